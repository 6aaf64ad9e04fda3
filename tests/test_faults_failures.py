"""Failures where readers look (no TensorFlow): a claim whose variant only failed, and the
failures of a topic without a page.

The data is the frozen fixture tests/fixtures/results/valid.json, in which the variant
predict_on_batch only ever timed out with an error that carries a <script> tag; the topic
YAML that claims predict_on_batch is faster is tests/fixtures/failures/snippets/.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tfperf.analyse import Dataset, analyse
from tfperf.render.blocks import Context, render_block
from tfperf.render.directives import parse_block, parse_inline
from tfperf.render.embed import SvgCache
from tfperf.render.inline import render_inline

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
VALID = FIXTURES / "results" / "valid.json"
SNIPPETS = FIXTURES / "failures" / "snippets"
RUNNER = "linux-x86_64-2core-cpu"
ERROR = "timeout: ValueError: &lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture()
def ds(tmp_path: Path) -> Dataset:
    results = tmp_path / "results" / RUNNER
    results.mkdir(parents=True)
    shutil.copyfile(VALID, results / "quick.json")
    return analyse(tmp_path / "results", SNIPPETS)


def _render(ds: Dataset, placeholder: str, topic_pages: set[str] | None = None) -> str:
    ctx = Context(ds, prefix="../", svgs=SvgCache(None), topic_pages=topic_pages)
    return str(render_block(parse_block(placeholder), ctx))


def test_a_claim_whose_variant_only_failed_says_failed_with_the_first_error(ds: Dataset, tmp_path: Path) -> None:
    """Fault: a claim whose faster variant has only failed results (it timed out on every runner; its error message carries HTML).
    Happens: the claim says "failed: 1 case" with the first error, escaped, on the home page (headline findings), on its topic page (claims table, per runner) and in inline verdicts; never "no results yet", which stays for claims nothing was run for.
    Kept: the failure record itself, and the verdicts of the topic's other claims."""
    cr = ds.claim_result("predict_loop", "on_batch_beats_predict")
    assert cr is not None
    assert cr.summary == "failed: 1 case (first error: timeout: ValueError: <script>alert(1)</script>)"
    home = _render(ds, "findings")
    topic = _render(ds, "claims predict_loop")
    inline = str(render_inline(parse_inline('verdict("predict_loop", "on_batch_beats_predict")'), ds))
    for html in (home, topic, inline):
        assert f"failed: 1 case (first error: {ERROR})" in html
        assert "<script>" not in html and "no results yet" not in html
    assert f"<code>{RUNNER}</code>: " in topic and f"(failed: 1 case (first error: {ERROR}))" in topic
    other = ds.claim_result("predict_loop", "function_beats_predict")
    assert other is not None and other.summary.startswith("holds on ")    # the other claim is unaffected
    never = analyse(tmp_path / "nothing", SNIPPETS).claim_result("predict_loop", "on_batch_beats_predict")
    assert never is not None and never.summary == "no results yet"


def test_failures_of_a_topic_without_a_page_are_listed_on_the_data_page(ds: Dataset, tmp_path: Path) -> None:
    """Fault: failed results of a topic that has no page under docs/topics/ (a YAML added before its page, or a contributor's own topic).
    Happens: the Data page's "Failed cases" list shows every current failure of every topic, with runner, case and the error (escaped); a topic without a page is marked "(no page)", one with a page is linked.
    Kept: every failure record, in its results file; the pages of other topics are unchanged."""
    assert "<!-- tfperf:failures -->" in (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    html = _render(ds, "failures", topic_pages={"some_other_topic"})
    assert "predict_loop <em>(no page)</em>" in html
    assert "predict_loop/batch=32,model=tiny/keras=3/predict_on_batch" in html and ERROR in html
    assert "<script>" not in html and "model_call" not in html        # only the failures
    linked = _render(ds, "failures", topic_pages={"predict_loop"})
    assert 'href="../topics/predict_loop/"' in linked and "(no page)" not in linked
    # Nothing failed: the list says so.
    doc = json.loads(VALID.read_text(encoding="utf-8"))
    doc["results"] = [r for r in doc["results"] if r["status"] == "ok"]
    (tmp_path / "ok" / RUNNER).mkdir(parents=True)
    (tmp_path / "ok" / RUNNER / "quick.json").write_text(json.dumps(doc), encoding="utf-8")
    assert "No current result is a failure." in _render(analyse(tmp_path / "ok", SNIPPETS), "failures")
