"""The serving page shows a trap conversion path as wrong output, with the size of its
error, next to the conversion that works; no TensorFlow.

The fixture (fixtures/serving_traps/quick.json) is real: serving_formats at batch 1
from a quick run under TensorFlow 2.21 and Keras 3, where both trap paths returned NaN in
every value (the output check's note says how many; its max abs diff covers finite values
only, 0 here, so it must not be shown as the size of the error)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfperf import store
from tfperf.analyse import analyse
from tfperf.cases.topic import load_topic
from tfperf.store import record_types as ids

ROOT = Path(__file__).resolve().parents[3]
SNIPPETS = ROOT / "snippets"
FIXTURE = Path(__file__).parents[2] / "fixtures" / "serving_traps" / "quick.json"
TRAPS = ("tflite_trap_concrete", "tflite_trap_saved_model")


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    """The fixture, keyed to today's snippet (else every result would be stale)."""
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    h = load_topic(SNIPPETS / "serving_formats.yaml").snippet_hash
    for r in doc["results"]:
        r["key"]["snippet_hash"] = h
        r["key_hash"] = ids.key_hash(r["key"])
    path = store.results_path(tmp_path / "data", "fixture-traps", "quick")
    path.parent.mkdir(parents=True, exist_ok=True)
    store.write_atomic(path, doc)
    store.load(path)                      # still a valid results file
    return tmp_path / "data" / "results"


def _rows(html: str) -> list[str]:
    return [r for r in html.split("<tr>")[1:] if "<td>" in r]


def test_the_metrics_table_shows_the_traps_as_wrong_output_next_to_the_path_that_works(results: Path) -> None:
    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    ds = analyse(results, SNIPPETS)
    assert not ds.errors, ds.errors
    html = str(render_block(parse_block("metrics serving_formats fields=load_s,convert_s,file_bytes columns=batch"),
                            Context(ds, prefix="", svgs=SvgCache(None))))
    rows = _rows(html)
    names = [next(ds.label("serving_formats", v) for v in ds.topics["serving_formats"].variants
                  if f"<td>{ds.label('serving_formats', v)}</td>" in r) for r in rows]
    by_label = dict(zip(names, rows))
    tflite, plain = ds.label("serving_formats", "tflite"), ds.label("serving_formats", "tflite_plain")
    assert "within tolerance" in by_label[tflite] and "wrong output" not in by_label[tflite]
    for trap in TRAPS:
        row = by_label[ds.label("serving_formats", trap)]
        assert "wrong output: NaN or inf in all 10 values" in row, row
        assert "max abs diff 0" not in row                  # the finite-only diff is no error size
        assert re.search(r"\d+ kB", row)                    # its size and load time are shown too
    # The traps sit right after the TFLite paths that work.
    i = names.index(plain)
    assert names[i + 1:i + 3] == [ds.label("serving_formats", t) for t in TRAPS]


def test_the_traps_are_never_recommended_and_say_why(results: Path) -> None:
    ds = analyse(results, SNIPPETS)
    (rec,) = ds.recommendations("serving_formats")
    assert rec.best not in TRAPS
    for trap in TRAPS:
        assert rec.excluded[trap] == "output outside tolerance (NaN or inf in all 10 values)"
    rows = [r for r in ds.chart_rows("serving_formats") if r.case.variant in TRAPS]
    assert rows and all(r.status == "output outside tolerance" and not r.correct for r in rows)


def test_a_finite_wrong_output_still_shows_its_max_abs_diff(results: Path) -> None:
    """A trap that returns a constant (finite, wrong) is shown with its max abs diff."""
    path = next(results.rglob("quick.json"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    for r in doc["results"]:
        if r["variant"] == "tflite_trap_saved_model":
            r["output"].update(max_abs_diff=0.49, max_rel_diff=3.1, note=None)
    store.write_atomic(path, doc, overwrite=True)
    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    ds = analyse(results, SNIPPETS)
    html = str(render_block(parse_block("metrics serving_formats fields=load_s columns=batch"),
                            Context(ds, prefix="", svgs=SvgCache(None))))
    row = next(r for r in _rows(html) if f"<td>{ds.label('serving_formats', 'tflite_trap_saved_model')}</td>" in r)
    assert "wrong output: outside tolerance (max abs diff 0.49)" in row
    (rec,) = ds.recommendations("serving_formats")
    assert rec.excluded["tflite_trap_saved_model"] == "output outside tolerance (max abs diff 0.49)"
