"""What changed since the source: the sources files (``sources/<topic>.yaml``, checked with
errors that name file and field), today's side (each runner's finding on the claim and
whether it holds, as the claims table states them) computed from the frozen analysis fixture
(tests/fixtures/site/analysis/), and the lines in the "Do this" box. No TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tfperf.analyse import analyse
from tfperf.analyse.dataset import load_topics
from tfperf.analyse.judge.effects import Finding, Verdict, range_text
from tfperf.analyse.origins import SourcesFileError, load_sources
from tfperf.analyse.views.answers import claim_answer, then_now
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import badge, parse_block, stated
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.html import h

ROOT = Path(__file__).resolve().parents[2]
FIX = Path(__file__).parents[1] / "fixtures" / "site" / "analysis"
TOPIC = "fixture_topic"
CLAIMS = {TOPIC: {"fast_beats_default", "same_beats_default", "default_beats_fast", "fast_beats_default_small"}}

GOOD = """\
topic: fixture_topic
sources:
  - title: "Is the fast way fast?"
    url: https://example.org/questions/1/
    publisher: Example Answers
    licence: CC BY-SA 4.0
    date: "2019"
    figures:
      - claim: fast_beats_default
        then: "`fast()` was 3× faster"
        quote: "3.0 sec … 1.0 sec"
        context: "an old release"
      - claim: same_beats_default
        then: "`same()` was 2× faster"
        quote: "it took half the time"
  - title: "A blog post"
    url: null
    date: "2020-01-02"
    figures:
      - claim: default_beats_fast
        then: "the default won"
        quote: "the default won by a mile"
"""


def _write(tmp: Path, text: str, name: str = TOPIC) -> Path:
    d = tmp / "sources"
    d.mkdir(exist_ok=True)
    (d / f"{name}.yaml").write_text(text, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def ds() -> Any:
    return analyse(FIX / "data" / "results", FIX / "snippets")


def test_a_sources_file_loads_with_its_credit_and_figures(tmp_path: Path) -> None:
    sources, errors = load_sources(_write(tmp_path, GOOD), CLAIMS)
    assert errors == []
    figs = sources[TOPIC]
    assert [f.claim for f in figs] == ["fast_beats_default", "same_beats_default", "default_beats_fast"]
    assert figs[0].origin.url == "https://example.org/questions/1/" and figs[0].origin.licence == "CC BY-SA 4.0"
    assert figs[0].quote == "3.0 sec … 1.0 sec" and figs[0].context == "an old release"
    assert figs[2].origin.url is None and figs[2].origin.date == "2020-01-02"


@pytest.mark.parametrize("bad, field, words", [
    (GOOD.replace("        quote: \"3.0 sec … 1.0 sec\"\n", ""), "sources.0.figures.0.quote", "missing"),
    (GOOD.replace("claim: same_beats_default", "claim: no_such_claim"), "sources.0.figures.1.claim", "not a claim"),
    (GOOD.replace("    licence: CC BY-SA 4.0\n", "    licence: CC BY-SA 4.0\n    licenc: x\n"), "sources.0.licenc",
     "unknown key"),
    (GOOD.replace("url: https://example.org/questions/1/", "url: example.org/1"), "sources.0.url", "http(s)"),
    (GOOD.replace("topic: fixture_topic", "topic: other_topic"), "topic", "not this file's topic"),
    ("topic: fixture_topic\nsources: []\n", "sources", "non-empty list"),
    ("topic: [unclosed\n", "(file)", "YAML"),
])
def test_a_mistake_in_a_sources_file_names_the_file_and_the_field(tmp_path: Path, bad: str, field: str,
                                                                   words: str) -> None:
    root = _write(tmp_path, GOOD, "other_topic")          # a good file beside the bad one still loads
    (root / "other_topic.yaml").write_text(GOOD.replace("fixture_topic", "other_topic"), encoding="utf-8")
    _write(tmp_path, bad)
    sources, errors = load_sources(root, {**CLAIMS, "other_topic": CLAIMS[TOPIC]})
    assert len(errors) == 1 and isinstance(errors[0], SourcesFileError)
    assert errors[0].path.endswith(f"{TOPIC}.yaml") and errors[0].field == field and words in errors[0].problem
    assert list(sources) == ["other_topic"]


def test_no_sources_folder_is_no_error(tmp_path: Path) -> None:
    assert load_sources(tmp_path / "absent", CLAIMS) == ({}, [])
    assert load_sources(None, CLAIMS) == ({}, [])


def test_today_is_the_claims_finding_and_verdict_per_runner(tmp_path: Path, ds: Any) -> None:
    """Each figure is set beside its claim's finding and verdict on every runner with results,
    in the claims table's own words (ClaimResult.summary_text and .verdict), with the range of
    that runner's speedups and the TensorFlow releases they were measured on."""
    sources, _ = load_sources(_write(tmp_path, GOOD), CLAIMS)
    lines = then_now(ds, TOPIC, sources)
    assert [t.figure.claim for t in lines] == ["fast_beats_default", "same_beats_default", "default_beats_fast"]
    order = ds.topics[TOPIC].param_values
    for t in lines:
        res = ds.claim_result(TOPIC, t.figure.claim)
        assert t.measured and t.answer is not None and t.claim_text == res.claim["text"]
        assert [r.runner for r in t.answer.runners] == res.runners_with_data == ["fixture-a", "fixture-b"]
        for r in t.answer.runners:
            assert r.verdict == res.verdict(r.runner) and r.finding == res.summary(r.runner).finding
            assert r.text == res.summary_text(r.runner, order)
            points = [c.ratio.point for c in res.mine(r.runner) if c.ratio is not None and c.finding != Finding.NO_DATA]
            assert points and sorted(r.summary.speedups) == pytest.approx(sorted(points))
            lead = [p.speedup for p in r.summary.of(r.finding) if p.speedup is not None]
            assert f"({range_text(lead)})" in r.text
            assert r.releases and all(v.count(".") == 1 for v in r.releases.split(", "))
    # The fixture's designed outcomes: fast wins 2x on runner A and is level on B; "same" never wins,
    # and the default loses to fast where fast wins.
    fast, same, default = (t.answer.runners for t in lines if t.answer is not None)
    assert [(r.finding, r.verdict) for r in fast] == [(Finding.FASTER, Verdict.HOLDS),
                                                      (Finding.SAME, Verdict.DOES_NOT_HOLD)]
    assert max(fast[0].summary.speedups) == pytest.approx(2.0, rel=0.1)
    assert all((r.finding, r.verdict) == (Finding.SAME, Verdict.DOES_NOT_HOLD) for r in same)
    assert (default[0].finding, default[0].verdict) == (Finding.SLOWER, Verdict.DOES_NOT_HOLD)


def test_the_box_sets_the_quoted_figure_beside_todays_with_credit_and_link(tmp_path: Path, ds: Any) -> None:
    sources, _ = load_sources(_write(tmp_path, GOOD), CLAIMS)
    ctx = Context(ds, prefix="", svgs=SvgCache(None), sources=sources)
    html = str(render_block(parse_block(f"dothis {TOPIC}"), ctx))
    assert "What changed since the source" in html
    assert '<a href="https://example.org/questions/1/" rel="noopener">“Is the fast way fast?”</a>' in html
    assert "(Example Answers, CC BY-SA 4.0)" in html
    assert "<code>fast()</code> was 3× faster" in html and 'title="“3.0 sec … 1.0 sec”"' in html
    assert "<strong>2020-01-02</strong>, <em>“A blog post”</em>: " in html and "not recorded" not in html
    # Today's side on each runner: its hardware and release, the verdict's badge and the finding
    # in the words (and with the marks) the claims table uses for the same claim and runner.
    a = claim_answer(ds, TOPIC, "fast_beats_default")
    assert a is not None and len(a.runners) == 2
    table = str(render_block(parse_block(f"claims {TOPIC}"), ctx))
    for r in a.runners:
        said = str(stated(r.text, TOPIC, a.claim_id, r.runner, r.releases, r.finding))
        assert (f"<strong>today</strong> (TensorFlow {r.releases}, {h(r.hardware)}): {badge(r.verdict)}, "
                f"{h(a.candidate)} against {h(a.baseline)}: {said}") in html
        assert said in table
    assert "✓</span> holds</span>" in html and "✗</span> does not hold</span>" in html
    # One credit per source, its figures under it.
    assert html.count("Is the fast way fast?") == 1
    plain = str(render_block(parse_block(f"dothis {TOPIC}"), Context(ds, prefix="", svgs=SvgCache(None))))
    assert "What changed since the source" not in plain and "Do this" in plain
    # Each line names the claim its verdict and finding are about: "holds ... slower in all 2
    # scenarios" says nothing unless the reader knows what is slower than what.
    lines = html.split('<span class="tfperf-then"')[1:]
    for t, line in zip(then_now(ds, TOPIC, sources), lines, strict=True):
        assert t.answer is not None
        assert str(h(t.claim_text)) in line or (str(h(t.answer.candidate)) in line
                                                and str(h(t.answer.baseline)) in line), line


def test_every_topic_page_has_a_sources_file_that_loads() -> None:
    """The project's own docs/sources/: one file per topic with a page, each figure naming a
    claim its topic makes (the loader checks it), each with the source's date and words."""
    topics, errors = load_topics(ROOT / "snippets")
    assert errors == []
    claims = {t: {str(c.get("id")) for c in (*info.claims, *info.settings_claims)} for t, info in topics.items()}
    sources, errors = load_sources(ROOT / "docs" / "sources", claims)
    assert errors == []
    pages = {p.stem for p in (ROOT / "docs" / "topics").glob("*.md")}
    assert pages <= set(sources), f"topic pages without docs/sources/<topic>.yaml: {sorted(pages - set(sources))}"
    for figs in sources.values():
        assert figs and all(f.quote and f.then and f.origin.date for f in figs)


def test_a_claim_without_results_says_so_instead_of_a_range(tmp_path: Path) -> None:
    from tfperf.render.blocks.answers_block import figure_line

    empty = analyse(tmp_path / "no-results", FIX / "snippets")
    sources, _ = load_sources(_write(tmp_path, GOOD), CLAIMS)
    t = then_now(empty, TOPIC, sources)[0]
    assert not t.measured and t.answer is not None and t.answer.runners == ()
    assert t.answer.verdict_text == "no results yet"
    html = str(figure_line(t))
    today = html.split("→")[1]
    assert "<strong>today</strong>" in today and today.endswith(": no results yet.") and "×" not in today
    assert "TensorFlow" not in today and "holds" not in today
