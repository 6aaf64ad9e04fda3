"""``tfperf compare`` over the frozen analysis fixture (no TensorFlow): a runner compared with
itself sits exactly on its own numbers; fixture-b against fixture-a shows the designed 2x;
a broken published file is named and skipped; --json and the text table. A claim's finding
here and on each runner is in the guide's one vocabulary (``analyse.effects``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tfperf import stats
from tfperf.analyse import Dataset, analyse
from tfperf.analyse.judge.effects import Finding
from tfperf.analyse.views.answers import claim_answer
from tfperf.analyse.views.versus import compare_files
from tfperf.cli import main

FIXTURE = Path(__file__).parents[1] / "fixtures" / "site" / "analysis"
RESULTS = FIXTURE / "data" / "results"
SNIPPETS = FIXTURE / "snippets"


def _page(ds: Dataset, topic: str, runner: str) -> dict[str, tuple[Finding, str]]:
    """Each claim's finding on ``runner`` and its words, as the topic's page states them."""
    out = {}
    for cr in ds.claim_results(topic):
        a = claim_answer(ds, topic, cr.id)
        assert a is not None
        (r,) = [r for r in a.runners if r.runner == runner]
        out[cr.id] = (r.finding, r.text)
    return out


def test_a_runner_against_itself_sits_on_its_own_numbers(tmp_path: Path) -> None:
    here = tmp_path / "full.json"
    shutil.copyfile(RESULTS / "fixture-a" / "full.json", here)
    v = compare_files(here, RESULTS, SNIPPETS, only=["fixture-a"])
    assert [s.name for s in v.runners] == ["fixture-a/full"]
    assert v.cases, "every current case of fixture-a is compared"
    for c in v.cases:
        assert c.ratio.point == pytest.approx(1.0)
        assert c.ratio.low <= 1.0 <= c.ratio.high
        assert c.in_iqr and c.in_ci and c.same_software
    # The claims' findings here, and their words, are the published page's on that runner.
    ds = analyse(RESULTS, SNIPPETS)
    page = _page(ds, "fixture_topic", "fixture-a")
    assert {cl.claim_id for cl in v.claims} == set(page)
    for cl in v.claims:
        assert (cl.here_finding, cl.here) == page[cl.claim_id]
        assert (cl.there_finding["fixture-a/full"], cl.there["fixture-a/full"]) == page[cl.claim_id]
        assert cl.agree == ["fixture-a/full"]
    # ... and they are not all one finding (the fixture has faster, the same and slower claims).
    assert {f for f, _ in page.values()} == {Finding.FASTER, Finding.SAME, Finding.SLOWER}
    # The page's recommendation (the fast variant) holds on a copy of the same data.
    assert v.recommendations and all(r.holds_here for r in v.recommendations if r.there_best != r.default)


def test_other_runner_ratio_spread_and_claims() -> None:
    v = compare_files(RESULTS / "fixture-b" / "full.json", RESULTS, SNIPPETS)
    assert [s.name for s in v.runners] == ["fixture-a/full"], "the local file itself is not a published runner"
    by = {c.case_id: c for c in v.cases}
    slow = by["fixture_topic/size=small/keras=3/slow_default"]
    assert slow.ratio.point == pytest.approx(slow.here_median / slow.there_median)
    assert slow.ratio.low > 1.5 and not slow.in_iqr and not slow.in_ci
    summary = v.runners[0]
    assert summary.cases == len(v.cases)
    assert summary.typical_ratio == pytest.approx(stats.median([c.ratio.point for c in v.cases]))
    claims = {c.claim_id: c for c in v.claims}
    fast = claims["fast_beats_default"]
    assert fast.there_finding["fixture-a/full"] == Finding.FASTER
    assert fast.there["fixture-a/full"] == "faster in both scenarios (2×)"
    assert fast.here_finding == Finding.SAME                 # fixture-b: fast is no faster there
    assert fast.here.startswith("the same in both scenarios") and fast.agree == []
    recs = [r for r in v.recommendations if r.there_best == "fast"]
    assert recs and all(r.holds_here is False for r in recs)


def test_broken_published_file_is_named_and_the_rest_used(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(RESULTS, root)
    bad = root / "broken" / "full.json"
    bad.parent.mkdir()
    bad.write_text('{"schema_version": 1, "runner": ')
    v = compare_files(RESULTS / "fixture-b" / "full.json", root, SNIPPETS)
    assert [s.name for s in v.runners] == ["fixture-a/full", "fixture-b/full"]
    assert any(str(bad) in e and "(file)" in e for e in v.errors)


def test_cli_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "--results", str(RESULTS / "fixture-b" / "full.json"), "--published", str(RESULTS),
            "--snippets", str(SNIPPETS)]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["here"]["runner"] == "fixture-b"
    assert {c["runner"] for c in data["cases"]} == {"fixture-a/full"}
    assert all(set(c["ratio"]) == {"point", "low", "high"} for c in data["cases"])
    assert {c["claim"] for c in data["claims"]} >= {"fast_beats_default"}
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "fixture-a/full" in text and "Claims" in text and "Recommendations" in text
    assert "\x1b" not in text


def test_cli_missing_results_file_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    assert main(["compare", "--results", str(missing), "--published", str(RESULTS)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "(file)" in err


def test_cli_measures_here_without_results_and_passes_an_interruption_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No --results: compare runs the profile here (``orchestrate.run``, faked), compares what it
    wrote, and exits as the run did (130 after SIGINT), saying to run it again."""
    from tfperf.measure.supervise import orchestrate

    seen: list[orchestrate.RunOptions] = []

    def fake_run(options: orchestrate.RunOptions) -> orchestrate.Report:
        seen.append(options)
        return orchestrate.Report(ran=3, failed=1, skipped=2, path=RESULTS / "fixture-b" / "full.json", signum=2)

    monkeypatch.setattr(orchestrate, "run", fake_run)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["compare", "--published", str(RESULTS), "--snippets", str(SNIPPETS), "--topic", "fixture_topic",
                 "--runner", "mine", "--memory-limit-mb", "0", "--no-progress"]) == 130
    out, err = capsys.readouterr()
    assert "fixture-a/full" in out
    assert f"measured 3 case(s) here (1 failed), 2 already measured -> {RESULTS / 'fixture-b' / 'full.json'}" in err
    assert "the local run was interrupted: run the same command again to finish it" in err
    [options] = seen
    assert (options.profile, options.topics, options.runner) == ("quick", ["fixture_topic"], "mine")
    assert not options.progress
    assert options.data_root == tmp_path / ".cache" / "tfperf" and options.memory_limit_mb is None
    assert options.snippets_dir == SNIPPETS


def test_terminal_units_round_up_cleanly() -> None:
    from tfperf.render.text import seconds

    assert [seconds(x) for x in (0.0009996, 0.000999, 2.5e-7, None)] == ["1 ms", "999 us", "250 ns", "-"]


GAPS = Path(__file__).parents[1] / "fixtures" / "site" / "gaps"


def test_settings_claims_get_the_page_finding_when_compared_with_itself(tmp_path: Path) -> None:
    """Claims between settings groups (cpu_threads-style) are compared too: a runner
    against a copy of itself gets, for each, exactly the finding (and its words) its page
    shows."""
    here = tmp_path / "full.json"
    shutil.copyfile(GAPS / "data" / "results" / "fixture-a" / "full.json", here)
    v = compare_files(here, GAPS / "data" / "results", GAPS / "snippets", only=["fixture-a"])
    ds = analyse(GAPS / "data" / "results", GAPS / "snippets")
    page = _page(ds, "fixture_settings", "fixture-a")
    settings_ids = {"onednn_faster", "one_thread_slower", "omp_faster", "one_thread_faster_batch"}
    got = {c.claim_id: c for c in v.claims if c.claim_id in settings_ids}
    assert set(got) == settings_ids
    for cid, c in got.items():
        there = (c.there_finding["fixture-a/full"], c.there["fixture-a/full"])
        assert (c.here_finding, c.here) == page[cid] == there, cid
        assert c.agree == ["fixture-a/full"], cid
    assert {c.here_finding for c in got.values()} == {Finding.FASTER, Finding.SAME, Finding.SLOWER}


def test_topic_option_limits_a_comparison_of_a_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((RESULTS / "fixture-b" / "full.json").read_text())
    other = [{**r, "topic": "other_topic", "case_id": r["case_id"].replace("fixture_topic/", "other_topic/", 1)}
             for r in doc["results"]]
    here = tmp_path / "full.json"
    here.write_text(json.dumps({**doc, "results": doc["results"] + other}))
    whole = compare_files(here, RESULTS, SNIPPETS)
    only = compare_files(here, RESULTS, SNIPPETS, topics_only=["fixture_topic"])
    assert {m.topic for m in whole.here.measurements} == {"fixture_topic", "other_topic"}
    assert {m.topic for m in only.here.measurements} == {"fixture_topic"}
    assert only.topics() == ["fixture_topic"] and len(only.cases) == len(whole.cases)
    args = ["compare", "--results", str(here), "--published", str(RESULTS), "--snippets", str(SNIPPETS)]
    assert main([*args, "--topic", "no_such_topic"]) == 2
    err = capsys.readouterr().err
    assert "unknown topic(s): no_such_topic" in err and "fixture_topic" in err
