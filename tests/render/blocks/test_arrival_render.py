"""The per-request patterns on a topic page (render/blocks/topic_blocks.py, answers_block.py) and
in ``tfperf answers``, from the synthetic fixture of tests/fixtures/site/make_arrivals_fixture.py;
a topic without such results renders nothing new. No TensorFlow."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfperf.analyse.dataset import Dataset, analyse_documents
from tfperf.render.blocks.blocks import render_block
from tfperf.render.page.context import Context, parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.render.text import report

FIX = Path(__file__).parents[2] / "fixtures" / "site" / "arrivals"
TOPIC = "fixture_arrivals"


def _dataset() -> Dataset:
    docs = [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((FIX / "data" / "results").rglob("*.json"))]
    return analyse_documents(docs, FIX / "snippets", FIX / "data" / "results")


@pytest.fixture(scope="module")
def ds() -> Dataset:
    return _dataset()


def _block(ds: Dataset, text: str) -> str:
    return str(render_block(parse_block(text), Context(ds, prefix="../../", svgs=SvgCache(None))))


def _text(html: str) -> str:
    return re.sub(r"\s+([.,;:)])", r"\1", re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).strip()


def test_each_pattern_has_a_table_of_p50_p99_and_speedups(ds: Dataset) -> None:
    html = _block(ds, f"arrivals {TOPIC}")
    assert html.count("<details") == 2 and html.count("<table>") == 2
    assert "2-core Fixture (AVX2), full profile: requests after 10 ms idle, 1 scenario" in html
    assert "2-core Fixture (AVX2), full profile: requests at random at 70% of full load, 1 scenario" in html
    idle = html.split("<details")[1]
    heads = re.findall(r"<th>(.*?)</th>", idle)
    assert heads == ["case", "variant", "median request (p50)", "slowest 1% (p99)", "p50 against a tf.function",
                     "p99 against a tf.function"]
    rows = [_text(r) for r in re.findall(r"<tr>(.*?)</tr>", idle)[1:]]
    assert rows[0].startswith("batch 1, keras=3 a tf.function 2.5 ms 95% CI")      # the default first, no speedup
    assert "▲ faster 1.43× (95% CI" in rows[2] and rows[2].startswith("batch 1, keras=3 ONNX Runtime")
    assert "▼ slower 0.714×" in rows[1]
    assert "Run-to-run noise of this pattern (the same case measured twice): 8% at p50, 30% at p99." in html
    busy = html.split("<details")[2]
    assert "= the same 1× (95% CI 1×–1×)" in _text(busy)
    assert 'href="../../how-we-measure/#how-requests-arrive"' in html


def test_a_topic_without_patterns_renders_nothing() -> None:
    ds = _dataset()
    ds.arrivals, ds.arrival_noise = [], []
    ds.forget()
    assert _block(ds, f"arrivals {TOPIC}") == ""


def test_the_answers_say_the_pattern_and_what_changed(ds: Dataset) -> None:
    html = _block(ds, f"answers {TOPIC}")
    sections = {m.group(1): m.group(2) for m in re.finditer(r'<section class="tfperf-qa" id="q-(\w+)">(.*?)</section>',
                                                            html)}
    assert "Answered for requests" not in sections["throughput"] and "tfperf-a-change" not in sections["throughput"]
    assert "unmeasured" not in sections                          # its pattern has no results: not on the page
    busy = _text(sections["busy"])
    assert "No. ONNX Runtime is as fast as a tf.function in the one scenario measured (1×)." in busy
    assert ("Answered for requests at random at 70% of full load. How requests arrive changes the answer: At random "
            "at 70% of full load, ONNX Runtime is as fast as a tf.function (1×; back to back: faster, 4×).") in busy
    one = _text(sections["one_at_a_time"])
    assert "After 10 ms idle, ONNX Runtime is only 1.43× faster than a tf.function (back to back: 4×)." in one
    # What the page states of a claim under a pattern is kept apart from its back-to-back finding.
    assert 'data-scope="brief idle-10ms"' in sections["one_at_a_time"]
    assert 'data-scope="poisson-0.7"' in sections["busy"] and 'data-scope="all"' in sections["throughput"]


def test_the_terminal_answers_say_it_too(ds: Dataset) -> None:
    text = report(ds, [TOPIC])
    assert "   Answered for requests after 10 ms idle, one at a time." in text
    assert ("   How requests arrive changes the answer: At random at 70% of full load, ONNX Runtime is as fast as a "
            "tf.function (1×; back to back: faster, 4×).") in text
