"""Scenarios measured twice (``analyse.repeats_by_runner``) and How we measure's table of them.

A designed results file (no TensorFlow): one scenario, a baseline and a candidate at two
batch sizes, measured in three runs. The two newest runs are compared: at batch 32 the
candidate's speedup goes from 2.0x to 2.1x (within ±10%), at batch 64 from 2.0x to 2.6x
(30% apart); the oldest run (9x) is never looked at. A case whose snippet changed between
the runs, and a run on another runner, give no pair.
"""

from __future__ import annotations

import copy
import html as html_text
import json
import re
from pathlib import Path
from typing import Any

import pytest
from store_records import make_doc, valid_doc

from tfperf import stats
from tfperf.analyse import Finding, analyse, repeats_by_runner
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.html import percent, times
from tfperf.store import record_types as ids

ROUNDS = 24
RUN_IDS = ("0" * 16, "a" * 16, "b" * 16)
TIMES = ("2026-10-01T12:00:00+00:00", "2026-11-01T12:00:00+00:00", "2026-11-20T12:00:00+00:00")


def _result(variant: str, batch: int, run: int, seconds: float, *, runner: str = "fixture-a",
            snippet_hash: str = "abc") -> dict[str, Any]:
    base = valid_doc()["results"]
    r: dict[str, Any] = copy.deepcopy(next(x for x in base if x["variant"] == variant))
    r["params"] = {"batch": batch, "model": "tiny"}
    r["case_id"] = f"{r['topic']}/batch={batch},model=tiny/keras=3/{variant}"
    r["key"] = {**r["key"], "runner": runner, "snippet_hash": snippet_hash}
    r["key_hash"] = ids.key_hash(r["key"])
    r["finished_at"] = TIMES[run]
    r["env_id"] = None
    baseline = f"{r['topic']}/batch={batch},model=tiny/keras=3/model_call"
    r["interleave"] = {"id": RUN_IDS[run], "baseline": baseline}
    # A little noise that differs from round to round and between the two variants.
    jitter = [1 + 0.004 * ((i * 7 + len(variant)) % 5 - 2) for i in range(ROUNDS)]
    samples = [seconds * j for j in jitter]
    r["timing"] = {**r["timing"], "samples": samples, "rounds": list(range(ROUNDS)),
                   "summary": stats.summarize(samples).as_dict()}
    return r


def _scenario(batch: int, run: int, speedup: float, **kw: Any) -> list[dict[str, Any]]:
    return [_result("model_call", batch, run, 0.002, **kw), _result("predict", batch, run, 0.002 / speedup, **kw)]


def _write(root: Path, runner: str, results: list[dict[str, Any]]) -> None:
    path = root / "results" / runner / "full.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_doc(runner, "full", results)), encoding="utf-8")


@pytest.fixture
def designed(tmp_path: Path) -> Any:
    results = [*_scenario(32, 0, 9.0), *_scenario(32, 1, 2.0), *_scenario(32, 2, 2.1),
               *_scenario(64, 1, 2.0), *_scenario(64, 2, 2.6),
               # the snippet changed between the runs: not the same code, no pair
               *_scenario(128, 1, 2.0), *_scenario(128, 2, 4.0, snippet_hash="def")]
    _write(tmp_path, "fixture-a", results)
    _write(tmp_path, "fixture-b", _scenario(32, 1, 2.0, runner="fixture-b"))    # one run only
    (tmp_path / "snippets").mkdir()
    return analyse(tmp_path / "results", tmp_path / "snippets")


def test_pairs_are_the_two_newest_runs_of_the_same_code(designed: Any) -> None:
    runners = repeats_by_runner(designed)
    assert [r.runner for r in runners] == ["fixture-a"]
    rr = runners[0]
    by_batch = {p.later.params["batch"]: p for p in rr.pairs}
    assert set(by_batch) == {32, 64}
    assert by_batch[32].before.point == pytest.approx(2.0, rel=0.01)
    assert by_batch[32].after.point == pytest.approx(2.1, rel=0.01)
    assert by_batch[32].agree and not by_batch[64].agree
    assert by_batch[64].change == pytest.approx(0.3, rel=0.03)
    assert rr.agreeing == 1 and rr.typical == pytest.approx(0.175, rel=0.05)
    assert rr.largest is by_batch[64]
    # The intervals are narrow (little noise), so neither second run lies inside the first's.
    assert rr.inside == 0 and rr.spread > 3 * rr.explained


def test_a_failed_baseline_in_one_run_gives_no_pair(tmp_path: Path) -> None:
    results = [*_scenario(32, 1, 2.0), *_scenario(32, 2, 2.1)]
    results[2]["status"] = "failed"
    results[2].update(timing=None, first_call_s=None, error="Traceback: boom", output=None)
    _write(tmp_path, "fixture-a", results)
    (tmp_path / "snippets").mkdir()
    assert repeats_by_runner(analyse(tmp_path / "results", tmp_path / "snippets")) == []


@pytest.mark.parametrize(("first", "second", "found", "clear", "repeated", "contradicted"), [
    (1.10, 0.92, (Finding.FASTER, Finding.SLOWER), 2, 0, 2),     # 10% faster, then 8% slower: contradicted
    (1.10, 1.12, (Finding.FASTER, Finding.FASTER), 2, 2, 0),
    (1.00, 1.01, (Finding.SAME, Finding.SAME), 2, 2, 0),
    (1.10, 1.00, (Finding.FASTER, Finding.SAME), 2, 0, 2),
])
def test_each_runs_finding_is_judged_by_the_pages_rule(tmp_path: Path, first: float, second: float,
                                                      found: tuple[Finding, Finding], clear: int, repeated: int,
                                                      contradicted: int) -> None:
    # one scenario, no A/A pair stored: the margin is 5% (the assumed floor, as on the pages)
    _write(tmp_path, "fixture-a", [*_scenario(32, 1, first), *_scenario(32, 2, second)])
    (tmp_path / "snippets").mkdir()
    (rr,) = repeats_by_runner(analyse(tmp_path / "results", tmp_path / "snippets"))
    (pair,) = rr.pairs
    assert pair.findings == found
    assert (rr.clear, rr.repeated, rr.contradicted) == (clear, repeated, contradicted)
    assert pair.contradicted == (contradicted > 0)


def test_a_finding_the_other_run_calls_unclear_is_not_repeated_nor_contradicted(tmp_path: Path) -> None:
    # 1.05x sits on the margin's edge: unclear; the other run's 1.30x is clear
    _write(tmp_path, "fixture-a", [*_scenario(32, 1, 1.05), *_scenario(32, 2, 1.30)])
    (tmp_path / "snippets").mkdir()
    (rr,) = repeats_by_runner(analyse(tmp_path / "results", tmp_path / "snippets"))
    assert rr.pairs[0].findings == (Finding.UNCLEAR, Finding.FASTER)
    assert (rr.clear, rr.repeated, rr.contradicted) == (1, 0, 0)


def _cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.DOTALL)
    return [[html_text.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, flags=re.DOTALL)]
            for r in rows]


def _block(ds: Any) -> str:
    return str(render_block(parse_block("repeats"), Context(ds, prefix="", svgs=SvgCache(None))))


def test_the_table_gives_each_runner_its_agreement_and_largest_change(designed: Any) -> None:
    html = _block(designed)
    rr = repeats_by_runner(designed)[0]
    w = rr.largest
    head, *rows = _cells(html)
    assert head == ["runner", "speedups measured twice", "within ±10% of the first run", "typical change",
                    "second run inside the first run's interval", "clear findings the other run repeated",
                    "largest change"]
    assert len(rows) == 1
    row = rows[0]
    assert row[1] == "2" and row[2] == "1 (50%)" and row[3] == percent(rr.typical) and row[4] == "0 (0%)", row
    assert row[3] in ("17%", "18%")
    # both runs found predict faster at both batch sizes: four clear findings, each repeated
    assert row[5] == "4 of 4 (100%)0 contradicted, the rest unclear", row
    assert row[6].startswith(f"predict against model_call: {times(w.before.point)} in the first run, "
                             f"{times(w.after.point)} in the second"), row
    assert "batch 64" in row[6] and w.after.point == pytest.approx(2.6, rel=0.02), row
    assert "fixture-a/full.json" in html      # where the figures came from
    once = html.split("Not in the table", 1)[1].split("</p>", 1)[0]
    assert "fixture-b" in once and "fixture-a" not in once     # the runner with one run is named


def _scenario_record(run: int, batch: int, probe_ms: tuple[float | None, float | None]) -> dict[str, Any]:
    """The scenario record of run ``run`` at ``batch``, its host probe ``probe_ms`` (before, after)."""
    topic = valid_doc()["results"][0]["topic"]
    return {"id": RUN_IDS[run], "topic": topic, "params": {"batch": batch, "model": "tiny"}, "runner": "fixture-a",
            "baseline": f"{topic}/batch={batch},model=tiny/keras=3/model_call", "cases": [], "rounds": ROUNDS,
            "stopped_by": "budget", "seconds": 10.0, "loaded": False, "time": TIMES[run],
            "before": {"load": None, "governor": None, "freq_mhz": None, "probe_ms": probe_ms[0]},
            "after": {"load": None, "governor": None, "freq_mhz": None, "probe_ms": probe_ms[1]}}


def test_the_host_probes_of_two_runs_say_how_much_slower_the_second_host_was(tmp_path: Path) -> None:
    # Six scenarios (batch sizes) measured in runs 1 and 2. Five timed the probe: the first
    # runs 9-11 ms, the second 15-17 ms (medians 10 and 16: 1.6x as long); the sixth was
    # measured before the probe existed and has none.
    batches = (8, 16, 32, 64, 128, 256)
    results, scenarios = [], []
    for i, batch in enumerate(batches):
        for run, probes in ((1, (9.0, 11.0)), (2, (15.0 + (i % 2), 17.0 - (i % 2)))):
            sid = f"{i:015x}{run}"
            for r in _scenario(batch, run, 2.0 + run / 10):
                r["interleave"]["id"] = sid
                results.append(r)
            sc = {**_scenario_record(run, batch, probes), "id": sid}
            if batch == 256:
                del sc["before"]["probe_ms"], sc["after"]["probe_ms"]       # from before the probe
            scenarios.append(sc)
    _write(tmp_path, "fixture-a", results)
    path = tmp_path / "results" / "fixture-a" / "full.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["scenarios"] = scenarios
    path.write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "snippets").mkdir()
    ds = analyse(tmp_path / "results", tmp_path / "snippets")
    assert not ds.errors
    (rr,) = repeats_by_runner(ds)
    by_batch = {p.later.params["batch"]: p for p in rr.pairs}
    assert by_batch[32].probes == ((9.0, 11.0), (15.0, 17.0)) and by_batch[256].probes is None
    assert len(rr.probed) == 5 and rr.scenarios == 6 and rr.host == pytest.approx(1.6)
    html = _block(ds)
    (row,) = _cells(html)[1:]
    assert row[3].endswith(f"host probe: {times(1.6)} as long in the second run "
                           "(5 of 6 scenarios timed it in both runs)"), row
    assert "Where both runs timed the host probe" in html
    # Fewer than MIN_PROBED scenarios with probes: one probe is a moment, so no comparison.
    doc["scenarios"] = [sc if sc["params"]["batch"] in (8, 16, 32, 64) else
                        {**sc, "before": {"load": None}, "after": {"load": None}} for sc in scenarios]
    path.write_text(json.dumps(doc), encoding="utf-8")
    (rr,) = repeats_by_runner(analyse(tmp_path / "results", tmp_path / "snippets"))
    assert len(rr.probed) == 4 and rr.host is None


def test_without_a_host_probe_the_table_says_nothing_of_it(designed: Any) -> None:
    assert repeats_by_runner(designed)[0].host is None
    html = _block(designed)
    assert "host probe" not in html


def test_without_a_second_run_the_table_says_so(tmp_path: Path) -> None:
    _write(tmp_path, "fixture-a", _scenario(32, 1, 2.0))
    (tmp_path / "snippets").mkdir()
    html = _block(analyse(tmp_path / "results", tmp_path / "snippets"))
    assert "No runner has measured a scenario twice with the same code yet." in html
