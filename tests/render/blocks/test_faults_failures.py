"""Failures where readers look (no TensorFlow): a claim whose variant only failed, the
failures of a topic without a page, and a results file from a newer tfperf.

The data is the frozen fixture tests/fixtures/results/valid.json, in which the variant
predict_on_batch only ever timed out with an error that carries a <script> tag; the topic
YAML that claims predict_on_batch is faster is tests/fixtures/failures/snippets/.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tfperf import __version__, store
from tfperf.analyse import Dataset, analyse
from tfperf.cli import main
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import parse_block, parse_inline
from tfperf.render.page.embed import SvgCache
from tfperf.render.site.inline import render_inline
from tfperf.store.merge import newer_than_this, release

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
VALID = FIXTURES / "results" / "valid.json"
SNIPPETS = FIXTURES / "failures" / "snippets"
RUNNER = "linux-x86_64-2core-cpu"
HARDWARE = "2-core Intel Xeon (AVX-512)"      # the runner's machine as the pages name it
ERROR = "timeout: ValueError: &lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture()
def ds(tmp_path: Path) -> Dataset:
    results = tmp_path / "results" / RUNNER
    results.mkdir(parents=True)
    shutil.copyfile(VALID, results / "quick.json")
    return analyse(tmp_path / "results", SNIPPETS)


def _text(html: str) -> str:
    """What a reader sees: the page without its tags (and their data attributes)."""
    return re.sub(r"<[^>]+>", " ", html)


def _render(ds: Dataset, placeholder: str, topic_pages: set[str] | None = None) -> str:
    ctx = Context(ds, prefix="../", svgs=SvgCache(None), topic_pages=topic_pages)
    return str(render_block(parse_block(placeholder), ctx))


def test_a_claim_whose_variant_only_failed_says_failed_with_the_first_error(ds: Dataset, tmp_path: Path) -> None:
    """Fault: a claim whose candidate variant has only failed results (it timed out on every runner; its error message carries HTML).
    Happens: the claim says "failed: 1 case" with the first error, escaped, on the home page (headline findings), on its topic page (claims table, per runner, and every scenario) and in inline verdicts; never "no results yet", which stays for claims nothing was run for.
    Kept: the failure record itself, and the verdicts of the topic's other claims."""
    cr = ds.claim_result("predict_loop", "on_batch_beats_predict")
    assert cr is not None
    failed = "failed: 1 case (first error: timeout: ValueError: <script>alert(1)</script>)"
    assert cr.verdict_text() == failed
    assert cr.runners == [RUNNER] and cr.runners_with_data == []
    assert cr.summary_text(RUNNER) == f"no result in 1 ({failed})"
    home = _render(ds, "findings")
    topic = _render(ds, "claims predict_loop")
    inline = str(render_inline(parse_inline('verdict("predict_loop", "on_batch_beats_predict")'), ds))
    for html in (home, topic, inline):
        assert f"failed: 1 case (first error: {ERROR})" in html
        assert "<script>" not in html
    assert "no results yet" not in _text(home) and "no results yet" not in _text(inline)
    other = ds.claim_result("predict_loop", "function_beats_predict")
    assert other is not None and other.verdict_text() == "holds"    # the other claim is unaffected
    never = analyse(tmp_path / "nothing", SNIPPETS).claim_result("predict_loop", "on_batch_beats_predict")
    assert never is not None and never.verdict_text() == "no results yet"
    # The topic page says on which machine it failed, and no scenario of the claim reads
    # "no results yet": its one scenario was run, and failed.
    row = next(r for r in topic.split("<tr>") if "predict_on_batch is faster than predict." in r)
    problems = []
    if f"<strong>{HARDWARE}</strong>: " not in row:
        problems.append(f"the claims table does not name the machine it failed on: {row}")
    if "no results yet" in _text(topic):
        problems.append("a failed scenario reads \"no results yet\" on the topic page")
    assert problems == []


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


def test_merging_a_file_from_a_newer_tfperf_warns_with_both_versions(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf merge` given a results file written by a newer tfperf (its `tfperf_version` is later than this checkout's).
    Happens: the file is merged, and a warning on stderr names the file, its tfperf version and this one, and says to update and merge again; exit status 0.
    Kept: every record of the file, merged; files from this tfperf or with an unnumbered version merge without the warning."""
    doc = json.loads(VALID.read_text(encoding="utf-8"))
    doc["tfperf_version"] = "99.0.0"
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["merge", "--data", str(tmp_path / "data"), str(newer)]) == 0
    out, err = capsys.readouterr()
    assert f"merged {newer}" in out
    assert f"warning: {newer} was written by tfperf 99.0.0, newer than this tfperf {__version__}" in err
    merged = store.load(store.results_path(tmp_path / "data", RUNNER, "quick"))
    assert len(merged["results"]) == len(doc["results"])
    for version in (__version__, "fixture"):
        doc["tfperf_version"] = version
        same = tmp_path / f"same-{version}.json"
        same.write_text(json.dumps(doc), encoding="utf-8")
        assert main(["merge", "--data", str(tmp_path / f"data-{version}"), str(same)]) == 0
        assert "newer than this tfperf" not in capsys.readouterr().err
    # How versions compare: numeric releases; anything else is never "newer".
    assert release("0.2.0rc1") == (0, 2) and release("1.0") == release("1") == (1,)
    assert release("fixture") is None and release("9" * 5000) is None and release(None) is None
    assert newer_than_this("0.10.0", "0.9.1") and not newer_than_this("0.1", "0.1.0")
    assert not newer_than_this("fixture", "0.1.0") and not newer_than_this("1.0.0", "fixture")
