"""TensorFlow releases in the analysis, on frozen fixture data (no TensorFlow): numeric order,
the current result from the newest release (never a later run of an older one), the history
profile as the same runner, a verdict per release with "not available" and "not measured",
the release where a verdict changed, and the words for a claim that did not change."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from history_data import TOPIC, dataset
from tfperf.analyse.failures import failed_results, failure_summary
from tfperf.analyse.records import Measurement, Source, series_names
from tfperf.analyse.version_verdicts import (FAILED, HOLDS, NOT_AVAILABLE, NOT_MEASURED, REFUTED, UNCLEAR,
                                             VersionCell, VersionStrip, change_text, strip_text)
from tfperf.analyse.versions import release_key, short_labels, sort_versions, tf_version
from tfperf.analyse.versions_table import versions_table


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return dataset()


def _strip(ds, claim: str, runner: str = "fixture-a") -> VersionStrip:  # type: ignore[no-untyped-def]
    return next(s for s in ds.version_strips(TOPIC) if s.claim_id == claim and s.runner == runner)


def test_releases_sort_numerically() -> None:
    assert sort_versions(["2.12.1", "2.9.3", "2.16.0", "2.16.0rc1", "2.21.0", "2.13", "2.16.1"]) == [
        "2.9.3", "2.12.1", "2.13", "2.16.0rc1", "2.16.0", "2.16.1", "2.21.0"]
    assert release_key("TF 2.9.3") < release_key("TF 2.12.1") < release_key("TF 2.21.0")   # a label is skipped
    assert release_key("2.16") == release_key("2.16.0")
    assert release_key("?") < release_key("2.12.1")
    # a minor measured with one patch is named by the minor; two patches of one minor keep theirs
    assert short_labels(["2.21.0", "2.15.1", "2.21.1"]) == {"2.15.1": "2.15", "2.21.0": "2.21.0", "2.21.1": "2.21.1"}


def test_release_from_the_key_else_the_environment() -> None:
    assert tf_version({"tensorflow": "2.15.1"}, {"versions": {"tensorflow": "2.21.0"}}) == "2.15.1"
    assert tf_version({}, {"versions": {"tensorflow": "2.13.1"}}) == "2.13.1"
    assert tf_version({}, None) == "?"


def test_history_profile_is_the_same_runner(ds) -> None:  # type: ignore[no-untyped-def]
    docs = [(Path(f"{r}/{p}.json"), {"runner": {"label": r}, "profile": p})
            for r, p in (("a", "full"), ("a", "history"), ("a", "quick"), ("b", "history"))]
    assert series_names(docs) == {("a", "full"): "a", ("a", "history"): "a", ("a", "quick"): "a/quick",
                                  ("b", "history"): "b"}
    assert set(ds.runners) == {"fixture-a", "fixture-b"}
    assert {m.runner for m in ds.measurements} == {"fixture-a", "fixture-b"}
    assert {m.source.profile for m in ds.measurements if m.runner == "fixture-a"} == {"full", "history"}


def test_current_is_the_newest_release_not_the_newest_run(ds) -> None:  # type: ignore[no-untyped-def]
    # The history run (2.12 to 2.21) finished ten days after the full run (2.21).
    hist_at = max(m.finished_at for m in ds.measurements if m.source.profile == "history")
    assert hist_at > max(m.finished_at for m in ds.measurements if m.source.profile == "full")
    assert {m.tensorflow for m in ds.current} == {"2.21.0"}
    # Within 2.21.0 the published profile's result stays current; history measured it too.
    assert {m.source.profile for m in ds.current} == {"full"}
    assert any(m.source.profile == "history" and m.tensorflow == "2.21.0" for m in ds.measurements)
    # Without the full profile, the history profile's newest release is current.
    only_history = dataset(lambda p: p.name == "history.json")
    assert {(m.tensorflow, m.source.profile) for m in only_history.current} == {("2.21.0", "history")}
    # ... and without 2.21.0 at all, the newest measured one (2.16.2), never 2.12.1 or 2.15.1.
    older = [m for m in only_history.measurements if m.tensorflow != "2.21.0"]
    from tfperf.analyse.select import current
    assert {m.tensorflow for m in current(older) if m.runner == "fixture-a"} == {"2.16.2"}


def test_history_results_under_other_case_ids_stay_history_where_the_main_profile_measured(ds) -> None:  # type: ignore[no-untyped-def]
    """A history profile that does not vary a parameter of the main grid (serving's has no
    `model`) has other case ids for the same scenarios: its results are history only and
    never stand as scenarios of their own on the topic page, whatever their release; a
    runner with history only keeps them current, and so does a history case that has the
    main grid's parameters."""
    from dataclasses import replace

    from tfperf.analyse.select import current, history

    def without_size(m):  # type: ignore[no-untyped-def]   # history does not vary `size`
        if m.source.profile != "history":
            return m
        return replace(m, case_id=m.case_id + "-h", params={k: v for k, v in m.params.items() if k != "size"})

    renamed = [without_size(m) for m in ds.measurements]
    cur = current(renamed)
    assert not any(m.case_id.endswith("-h") for m in cur)                         # of any release
    assert {(m.source.profile, m.tensorflow) for m in cur} == {("full", "2.21.0")}
    assert any(m.case_id.endswith("-h") for m in history(renamed))                 # still history
    only_history = [m for m in renamed if m.source.profile == "history"]          # a history-only runner
    assert {m.tensorflow for m in current(only_history) if m.runner == "fixture-a"} == {"2.21.0"}
    # A history case with the main grid's parameters but an id the main grid lacks stays current.
    extra = [replace(m, case_id=m.case_id + "-x") if m.source.profile == "history" else m for m in ds.measurements]
    assert any(m.case_id.endswith("-x") for m in current(extra))


def test_history_keeps_one_result_per_release(ds) -> None:  # type: ignore[no-untyped-def]
    case = next(m.case_id for m in ds.current if m.variant == "fast" and m.params["size"] == "small"
                and m.settings["keras"] == "2" and m.runner == "fixture-a")
    per = [m for m in ds.history if m.case_id == case and m.runner == "fixture-a"]
    assert [m.tensorflow for m in per] == ["2.12.1", "2.15.1", "2.16.2", "2.21.0"]     # 2.13.1: big only
    assert next(m for m in per if m.tensorflow == "2.21.0").source.profile == "full"
    assert ds.versions(TOPIC) == ["TF 2.12.1", "TF 2.13.1", "TF 2.15.1", "TF 2.16.2", "TF 2.21.0"]


def test_runners_counted_apart_from_releases(ds) -> None:  # type: ignore[no-untyped-def]
    cr = ds.claim_result(TOPIC, "fast_beats_default_small")
    assert set(cr.by_runner) == {"fixture-a", "fixture-b"} and cr.runners_with_data == 2
    assert cr.summary == "holds on 1, refuted: slower on 1 of 2 runners"    # not "of 7"
    t = versions_table(ds)
    assert t.runners == ["fixture-a", "fixture-b"]
    assert t.versions == ["2.12.1", "2.13.1", "2.15.1", "2.16.2", "2.21.0"]


def test_verdict_per_release_and_the_release_it_changed(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "fast_beats_default")
    assert s.versions == ["2.12.1", "2.13.1", "2.15.1", "2.16.2", "2.21.0"]
    assert [c.kind for c in s.cells] == [HOLDS, HOLDS, HOLDS, REFUTED, REFUTED]
    assert [c.word for c in s.cells][-1] == "refuted: slower"
    assert s.changed and len(s.changes) == 1 and s.latest.version == "2.16.2"
    assert strip_text(s) == "since TF 2.16: refuted (was: holds up to 2.15)"
    assert change_text(_strip(ds, "default_beats_fast").latest, short_labels(s.versions)) == \
        "since TF 2.16: holds (was: refuted up to 2.15)"


def test_only_scenarios_of_two_releases_are_judged(ds) -> None:  # type: ignore[no-untyped-def]
    # size=huge was measured by the full profile with 2.21.0 only, and there fast holds: the
    # claims table says "depends on the case", the strip compares like with like.
    assert ds.claim_result(TOPIC, "fast_beats_default").summary.startswith("holds on 1, depends on the case on 1")
    s = _strip(ds, "fast_beats_default")
    assert not any("huge" in x for x in s.scenarios)
    assert s.cells[-1].word == "refuted: slower" and len(s.cells[-1].checks) == 4


def test_not_available_with_its_reason(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "new_beats_default")
    assert [c.kind for c in s.cells] == [NOT_AVAILABLE] * 3 + [HOLDS] * 2
    assert any("tf.new_api does not exist in TensorFlow 2.15.1" == r for r in s.cells[2].unavailable)
    assert not s.changed                           # not available is no change
    assert strip_text(s) == ("no change: holds in every release with a verdict (2.16 and 2.21); "
                             "not available in 2.12, 2.13 and 2.15")
    # a release where some scenarios are not available: the verdict of the others, and the reason
    first = _strip(ds, "fast_beats_default").cells[0]
    assert first.kind == HOLDS and first.unavailable_scenarios == 2 and len(first.checks) == 2
    assert first.unavailable == ("Keras 3 is not the tf.keras of TensorFlow 2.12",)


def test_not_measured_is_passed_over(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "fast_beats_default_small")
    assert [c.kind for c in s.cells] == [HOLDS, NOT_MEASURED, HOLDS, REFUTED, REFUTED]
    assert s.latest.version == "2.16.2" and s.latest.before_versions == ("2.12.1", "2.15.1")


def test_no_change_in_words(ds) -> None:  # type: ignore[no-untyped-def]
    assert strip_text(_strip(ds, "same_beats_default")) == \
        "no change: refuted in every release with a verdict (2.12, 2.13, 2.15, 2.16 and 2.21)"
    noisy = _strip(ds, "noisy_beats_default")
    assert {c.kind for c in noisy.cells} == {UNCLEAR} and not noisy.changed
    b = _strip(ds, "fast_beats_default", "fixture-b")
    assert b.versions == ["2.15.1", "2.21.0"] and strip_text(b) == \
        "no change: holds in every release with a verdict (2.15 and 2.21)"


def _cells(*kinds: str) -> VersionStrip:
    versions = [f"2.{12 + i}.0" for i in range(len(kinds))]
    return VersionStrip(TOPIC, {"id": "c"}, "r", [VersionCell(v, k, k) for v, k in zip(versions, kinds)], ())


def test_changes_read_from_releases_with_a_verdict() -> None:
    s = _cells(HOLDS, NOT_AVAILABLE, HOLDS, REFUTED, FAILED, REFUTED, NOT_MEASURED, HOLDS)
    assert [(c.version, c.before, c.kind) for c in s.changes] == [("2.15.0", HOLDS, REFUTED),
                                                                   ("2.19.0", REFUTED, HOLDS)]
    labels = short_labels(s.versions)
    assert change_text(s.changes[0], labels) == "since TF 2.15: refuted (was: holds up to 2.14)"
    assert change_text(s.latest, labels, len(s.changes)) == \
        "since TF 2.19: holds (was: refuted in 2.15–2.17; 2 changes across the releases measured)"
    assert not _cells(NOT_AVAILABLE, HOLDS, FAILED, HOLDS).changed
    assert strip_text(_cells(NOT_AVAILABLE, NOT_MEASURED)) == \
        "no change: no verdict in any release measured; not available in 2.12; not measured in 2.13"


def test_one_release_gives_no_strip() -> None:
    full_only = dataset(lambda p: p.name == "full.json")
    assert full_only.version_strips(TOPIC) == []
    assert versions_table(full_only).rows == []


def _unavailable(status: str, error: str) -> Measurement:
    return Measurement(source=Source("r/history.json", "r", "history"), runner="r", topic=TOPIC, case_id="c",
                       params={}, settings={}, variant="v", is_default=False, is_reference=False, status=status,
                       error=error, samples=(), median=None, ci_low=None, ci_high=None, n=0, first_call_s=None,
                       within_tolerance=None, max_abs_diff=None, max_rel_diff=None, key={"tensorflow": "2.15.1"},
                       key_hash="0" * 16, env_id=None, env=None, finished_at=datetime.now(timezone.utc))


def test_unavailable_is_no_failure() -> None:
    na = _unavailable("unavailable", "Keras 3 is not the tf.keras of TensorFlow 2.15")
    assert failure_summary([na]) == ("not available in this version: 1 case "
                                     "(Keras 3 is not the tf.keras of TensorFlow 2.15)")
    assert failed_results([na]) == []
    boom = _unavailable("error", "Traceback\nValueError: boom")
    assert failure_summary([na, boom]).startswith("failed: 1 case")
    assert failed_results([na, boom]) == [boom]


def test_runner_described_by_its_newest_release(ds) -> None:  # type: ignore[no-untyped-def]
    # the history run of 2.12 finished last; the runner is still described by 2.21
    assert ds.runners["fixture-a"].latest_environment()["versions"]["tensorflow"] == "2.21.0"


def test_fixture_passes_the_store(ds) -> None:  # type: ignore[no-untyped-def]
    # the same data through the store's loader (schema: the history profile, the unavailable status)
    from history_data import FIX, RESULTS
    from tfperf.analyse import analyse

    stored = analyse(RESULTS, FIX / "snippets")
    assert stored.errors == []
    assert [strip_text(s) for s in stored.version_strips(TOPIC)] == [strip_text(s) for s in ds.version_strips(TOPIC)]


def _cell_with(version: str, kind: str, speedup: float):
    from types import SimpleNamespace

    from tfperf.analyse.version_verdicts import VersionCell
    sc = SimpleNamespace(settings={"keras": "3"}, params={"batch": 1})
    check = SimpleNamespace(scenario=sc, ratio=SimpleNamespace(point=speedup, low=speedup * 0.98, high=speedup * 1.02))
    return VersionCell(version, kind, kind, (check,))  # type: ignore[arg-type]


def test_a_verdict_that_flips_on_its_margin_is_no_change_but_a_real_move_is() -> None:
    """Measured: 'eager off helps' flipped between holds and refuted seven times across ten
    releases with speedups of 0.95-1.07; each release is another run, and two runs agree
    within 10%. Such flips are borderline cells, not changes; a move beyond 10% is."""
    from tfperf.analyse.version_verdicts import VersionStrip, strip_text
    cells = [_cell_with("2.12.1", "refuted", 1.01), _cell_with("2.13.1", "holds", 1.07),
             _cell_with("2.14.1", "refuted", 1.02), _cell_with("2.15.1", "unclear", 1.04)]
    strip = VersionStrip("t", {"id": "c"}, "r", cells, ("batch=1, keras=3",))
    assert strip.changes == [] and [c.version for c in strip.borderline] == ["2.13.1", "2.15.1"]
    text = strip_text(strip)
    assert text.startswith("no change: refuted in 2.12 and 2.14") and "sits on its margin" in text
    moved = VersionStrip("t", {"id": "c"}, "r", cells + [_cell_with("2.16.2", "holds", 1.30)], ("batch=1, keras=3",))
    assert [(c.version, c.kind, c.before) for c in moved.changes] == [("2.16.2", "holds", "refuted")]


def test_one_release_that_moved_and_came_back_is_a_blip_not_a_change() -> None:
    from tfperf.analyse.version_verdicts import VersionStrip
    cells = [_cell_with("2.17.1", "depends on the case", 1.00), _cell_with("2.18.1", "holds", 1.20),
             _cell_with("2.19.1", "depends on the case", 1.19), _cell_with("2.20.0", "depends on the case", 1.18)]
    strip = VersionStrip("t", {"id": "c"}, "r", cells, ("batch=1, keras=3",))
    assert strip.changes == [] and [c.version for c in strip.borderline] == ["2.18.1"]
    last = VersionStrip("t", {"id": "c"}, "r", cells[:2], ("batch=1, keras=3",))
    assert [c.version for c in last.changes] == ["2.18.1"]       # the newest release: nothing to go back


def test_becoming_unclear_is_not_a_change() -> None:
    from tfperf.analyse.version_verdicts import VersionStrip
    cells = [_cell_with("2.15.1", "refuted", 0.90), _cell_with("2.16.2", "unclear", 1.05),
             _cell_with("2.17.1", "unclear", 1.04)]
    strip = VersionStrip("t", {"id": "c"}, "r", cells, ("batch=1, keras=3",))
    assert strip.changes == [] and [c.version for c in strip.borderline] == ["2.16.2", "2.17.1"]
