"""The "Do this" box of a settings topic (cpu_threads-like), on the frozen gaps fixture
(tests/fixtures/site/gaps/, make_gaps_fixture.py) and on copies of it whose timings are
rescaled to designed speedups. No TensorFlow.

Designed copy (``designed``), over the baseline ``threads=default, onednn=1``:

* ``OMP_NUM_THREADS=1`` is 1.2x faster in every scenario: faster (beyond the margin) in 3
  of 4 and slower in none, so it is the setting to use (the 4th is unclear, see below);
* one intra-op thread is 1.5x faster at batch 1 and stays 1.8x slower at batch 64 (the
  fixture's own design): it pays somewhere, never at batch 64;
* oneDNN off stays 2x slower everywhere: it costs speed;
* a control says ``threads=<cores>`` must equal the default. It does, except on runner
  fixture-b at batch 1, where ``threads=2`` is made 1.3x faster: that scenario's
  comparisons are unclear, not wins; and ``threads=<cores>`` is never itself a choice.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tfperf.analyse import analyse, controls_by_runner
from tfperf.analyse.views.advice import FASTER, SLOWER, UNCLEAR, advise_settings
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import parse_block
from tfperf.render.page.embed import SvgCache

FIX = Path(__file__).parents[2] / "fixtures" / "site" / "gaps"
TOPIC = "fixture_settings"
CONTROL = """controls:
  - {id: all_cores_is_default, text: "threads=<cores> is the default.", variant: call,
     settings: {threads: "{cores}"}, same_as: {threads: default}}
"""
CORES = {"fixture-a": "4", "fixture-b": "2"}


def _box(ds: Any) -> str:
    return str(render_block(parse_block(f"dothis {TOPIC}"), Context(ds, prefix="", svgs=SvgCache(None))))


def _items(html: str) -> dict[str, str]:
    """The box's list: each choice's label and what follows it, in order."""
    return dict(re.findall(r"<li><strong>([^<]+)</strong>: ([^<]*)</li>", html))


def _scale(timing: dict[str, Any], by: float) -> dict[str, Any]:
    """A copy of ``timing`` whose every time is multiplied by ``by``."""
    out = json.loads(json.dumps(timing))
    out["samples"] = [x * by for x in out["samples"]]
    for k in ("median", "ci_low", "ci_high", "min", "max", "mean", "stdev", "iqr"):
        out["summary"][k] *= by
    return out


def _designed(tmp: Path) -> Path:
    shutil.copytree(FIX, tmp / "gaps")
    yaml = tmp / "gaps" / "snippets" / f"{TOPIC}.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8") + CONTROL, encoding="utf-8")
    for runner, cores in CORES.items():
        path = tmp / "gaps" / "data" / "results" / runner / "full.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        mine = [r for r in doc["results"] if r["topic"] == TOPIC]
        base = {(r["params"]["batch"], r["settings"]["onednn"]): r["timing"] for r in mine
                if r["settings"]["threads"] == "default"}
        for r in mine:
            batch, onednn, threads = r["params"]["batch"], r["settings"]["onednn"], r["settings"]["threads"]
            if threads == cores:        # the control's twin: as fast as the default, but once
                speed = 1.3 if (runner, batch, onednn) == ("fixture-b", 1, "1") else 1.0
                r["timing"] = _scale(base[(batch, onednn)], 1 / speed)
            elif threads == "omp1" and onednn == "1":
                r["timing"] = _scale(base[(batch, onednn)], 1 / 1.2)
            elif threads == "1" and onednn == "1" and batch == 1:
                r["timing"] = _scale(base[(batch, onednn)], 1 / 1.5)
        path.write_text(json.dumps(doc), encoding="utf-8")
    return tmp / "gaps"


@pytest.fixture(scope="module")
def designed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = _designed(tmp_path_factory.mktemp("settings-advice"))
    return analyse(root / "data" / "results", root / "snippets")


def test_without_a_winning_setting_the_box_says_keep_the_defaults_and_what_costs_speed() -> None:
    """The frozen fixture: no setting is faster anywhere; oneDNN off is 2x slower in all
    four scenarios and so costs speed. Each choice is said per runner, by its hardware."""
    ds = analyse(FIX / "data" / "results", FIX / "snippets")
    a = advise_settings(ds, TOPIC)
    assert a is not None and a.use is None and a.pays_somewhere == []
    off = next(c for c in a.choices if (c.setting, c.value) == ("onednn", "0"))
    assert off.losses == off.scenarios == 4 and off in a.costly and 0.45 < off.typical < 0.55
    html = _box(ds)
    assert "Keep <strong>default threads, oneDNN on</strong>" in html
    assert "Set <strong>" not in html
    items = _items(html)
    assert items["oneDNN off"] == ("on the 4-core Fixture (AVX2), slower in both scenarios (0.499×–0.5×); "
                                   "on the 2-core Fixture (AVX2), slower in both scenarios (0.499×–0.501×).")
    assert items["OMP_NUM_THREADS=1"].count("the same in both scenarios (1×)") == 2
    assert not any("faster" in text for text in items.values())
    # threads=4 was measured on the 4-core runner only: its line must say so, or a reader of
    # the 2-core runner takes "slower" for theirs as the other lines name their runner
    assert "4-core Fixture" in items["intra-op threads = 4"]


def test_a_setting_faster_in_most_scenarios_and_slower_in_none_is_the_one_to_use(designed: Any) -> None:
    a = advise_settings(designed, TOPIC)
    assert a is not None and a.use is not None and (a.use.setting, a.use.value) == ("threads", "omp1")
    assert a.use.scenarios == 4 and a.use.wins == 3 and a.use.losses == 0
    assert a.use.typical == pytest.approx(1.2, rel=0.02)
    html = _box(designed)
    assert "Set <strong>OMP_NUM_THREADS=1</strong> instead of default threads" in html
    items = _items(html)
    assert next(iter(items)) == "OMP_NUM_THREADS=1"              # the one to use leads the list
    # faster in 3 of 4: both scenarios of runner A, one of runner B; the 4th unclear, named
    assert items["OMP_NUM_THREADS=1"] == ("on the 4-core Fixture (AVX2), faster in both scenarios (1.2×); "
                                          "on the 2-core Fixture (AVX2), faster in 1 of 2 scenarios (1.2×); "
                                          "unclear in 1, for batch 1 (1.2×).")


def test_a_failed_control_makes_its_scenario_unclear_and_the_control_twin_is_no_choice(designed: Any) -> None:
    a = advise_settings(designed, TOPIC)
    assert a is not None
    omp = next(c for c in a.choices if c.value == "omp1")
    b1 = next(p for p in omp.points if p.measurement.runner == "fixture-b" and p.params["batch"] == 1)
    assert b1.outcome == UNCLEAR and b1.note is not None and "control failed" in b1.note
    assert b1.speedup == pytest.approx(1.2, rel=0.02)        # faster, but not comparable
    # threads=<cores> (4 on fixture-a, 2 on fixture-b) must measure as the default: no choice.
    for c in a.choices:
        for p in c.points:
            assert (c.setting, c.value) != ("threads", CORES[p.measurement.runner])
    two = next(c for c in a.choices if (c.setting, c.value) == ("threads", "2"))
    assert {p.measurement.runner for p in two.points} == {"fixture-a"}


def test_where_a_setting_does_not_pay_is_said_by_the_parameter_that_explains_it(designed: Any) -> None:
    """One thread is faster at batch 1 (fixture-a; unclear on fixture-b, whose control
    failed) and slower at batch 64 on both runners: the analysis finds it never pays where
    batch = 64, the unclear scenario apart, and the box names the exceptions to each
    runner's finding by the batch that explains them."""
    a = advise_settings(designed, TOPIC)
    assert a is not None
    one = next(c for c in a.choices if (c.setting, c.value) == ("threads", "1"))
    assert (one.wins, one.losses) == (1, 2) and one in a.pays_somewhere and not one.recommended
    cond, rest = one.never_pays(designed.topics[TOPIC].param_values)
    assert cond is not None and (cond.param, cond.values) == ("batch", ("64",))
    assert cond.slower == 2 and all(p.outcome == SLOWER for p in cond.points)
    assert [(p.measurement.runner, p.params["batch"], p.outcome) for p in rest] == [("fixture-b", 1, UNCLEAR)]
    assert one.best == pytest.approx(1.5, rel=0.02) and FASTER in {p.outcome for p in one.points}
    # the box says it per runner: the parameter value names where it is faster (runner A)
    # or unclear (runner B), apart from the slower scenario at batch 64
    one_text = _items(_box(designed))["intra-op threads = 1"]
    assert one_text == ("on the 4-core Fixture (AVX2), slower in 1 of 2 scenarios (0.556×); faster in 1, for batch 1 "
                        "(1.5×); on the 2-core Fixture (AVX2), slower in 1 of 2 scenarios (0.557×); unclear in 1, "
                        "for batch 1 (1.5×).")


def test_a_topic_without_baseline_settings_keeps_the_variant_box() -> None:
    ds = analyse(FIX / "data" / "results", FIX / "snippets")
    assert advise_settings(ds, "fixture_steps") is None


def _controls(ds: Any) -> str:
    return str(render_block(parse_block("controls"), Context(ds, prefix="", svgs=SvgCache(None))))


def test_how_we_measure_shows_how_far_apart_each_runners_processes_landed(designed: Any) -> None:
    """The controls table (How we measure): per runner, its controls' gaps, the largest named
    with its scenario and settings, and how many made a scenario unclear. Designed: every
    twin equals the default except fixture-b's at batch 1 with oneDNN on, made 1.3x faster."""
    by = {rc.runner: rc for rc in controls_by_runner(designed)}
    assert set(by) == set(CORES)
    a, b = by["fixture-a"], by["fixture-b"]
    assert max(a.gaps) < 0.01 and not a.failed
    assert b.widest.ratio.point == pytest.approx(1.3, rel=0.02) and len(b.failed) == 1
    assert b.widest.measured.params["batch"] == 1 and b.widest.measured.settings == {"threads": "2", "onednn": "1"}
    rows = re.findall(r"<tr>(.*?)</tr>", _controls(designed), flags=re.DOTALL)
    b_row = next(r for r in rows if "2-core Fixture" in r)
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", b_row, flags=re.DOTALL)]
    assert cells[1] == str(len(b.results)) and cells[-1] == "1"
    assert cells[3].startswith("30%: ") and "1.3× the speed of" in cells[3] and "batch 1" in cells[3], cells


def test_without_controls_the_table_says_none_was_measured() -> None:
    ds = analyse(FIX / "data" / "results", FIX / "snippets")
    assert controls_by_runner(ds) == []
    assert "No runner has measured a control yet." in _controls(ds)
