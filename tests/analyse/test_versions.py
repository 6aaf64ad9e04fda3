"""TensorFlow releases in the analysis, on frozen fixture data (no TensorFlow): numeric order,
the current result from the newest release (never a later run of an older one), the history
profile as the same runner, a finding per release with "not available" and "not measured",
the release where a finding changed, and the words for a claim that did not change (the rule
of a change is tested on synthetic cells in test_version_changes.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from history_data import TOPIC, dataset

from tfperf.analyse.judge.effects import Finding
from tfperf.analyse.judge.version_verdicts import NOT_AVAILABLE, NOT_MEASURED, VersionStrip, strip_text
from tfperf.analyse.records import Measurement, Source, failed_results, failure_summary, series_names
from tfperf.analyse.versions import release_key, short_labels, sort_versions, tf_version
from tfperf.analyse.views.answers import versions_table
from tfperf.store.result import ResultRecord


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
    hist_at = max(m.finished for m in ds.measurements if m.source.profile == "history")
    assert hist_at > max(m.finished for m in ds.measurements if m.source.profile == "full")
    assert {m.tensorflow for m in ds.current} == {"2.21.0"}
    # Within 2.21.0 the published profile's result stays current; history measured it too.
    assert {m.source.profile for m in ds.current} == {"full"}
    assert any(m.source.profile == "history" and m.tensorflow == "2.21.0" for m in ds.measurements)
    # Without the full profile, the history profile's newest release is current.
    only_history = dataset(lambda p: p.name == "history.json")
    assert {(m.tensorflow, m.source.profile) for m in only_history.current} == {("2.21.0", "history")}
    # ... and without 2.21.0 at all, the newest measured one (2.16.2), never 2.12.1 or 2.15.1.
    older = [m for m in only_history.measurements if m.tensorflow != "2.21.0"]
    from tfperf.analyse.records import current
    assert {m.tensorflow for m in current(older) if m.runner == "fixture-a"} == {"2.16.2"}


def test_history_results_under_other_case_ids_stay_history_where_the_main_profile_measured(ds) -> None:  # type: ignore[no-untyped-def]
    """A history profile that does not vary a parameter of the main grid (serving's has no
    `model`) has other case ids for the same scenarios: its results are history only and
    never stand as scenarios of their own on the topic page, whatever their release; a
    runner with history only keeps them current, and so does a history case that has the
    main grid's parameters."""
    from dataclasses import replace

    from tfperf.analyse.records import current, history

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
    assert cr.runners == ["fixture-a", "fixture-b"] and cr.runners_with_data == ["fixture-a", "fixture-b"]
    assert cr.verdict_text() == "does not hold on 1, holds on 1 of 2 runners"    # not "of 7"
    t = versions_table(ds)
    assert t.runners == ["fixture-a", "fixture-b"]
    assert t.versions == ["2.12.1", "2.13.1", "2.15.1", "2.16.2", "2.21.0"]


def test_finding_per_release_and_the_release_it_changed(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "fast_beats_default")
    assert s.versions == ["2.12.1", "2.13.1", "2.15.1", "2.16.2", "2.21.0"]
    assert [c.kind for c in s.cells] == ["faster", "faster", "faster", "slower", "depends on the case"]
    assert [(c.version, c.before, c.after) for c in s.changes] == [("2.16.2", Finding.FASTER, Finding.SLOWER)]
    assert strip_text(s) == "since TF 2.16: slower (was: faster in 2.15)"
    assert strip_text(_strip(ds, "default_beats_fast")) == "since TF 2.16: faster (was: slower in 2.15)"


def test_the_headline_release_is_the_headline_and_the_smaller_grid_is_named(ds) -> None:  # type: ignore[no-untyped-def]
    # size=huge was measured by the full profile with 2.21.0 only, and there fast is faster:
    # the 2.21 cell is the claims table's finding over all 6 scenarios ("depends on the
    # case"); the change is read on the scenarios 2.16 and 2.21 share, where nothing moved.
    cr = ds.claim_result(TOPIC, "fast_beats_default")
    s = _strip(ds, "fast_beats_default")
    head = s.cells[-1]
    assert head.headline and head.finding == cr.summary("fixture-a").finding == Finding.DEPENDS
    assert len(head.checks) == 6 and head.text == cr.summary_text("fixture-a", ds.topics[TOPIC].param_values)
    assert [c.version for c in s.changes] == ["2.16.2"]
    assert s.grid_note == ("2.12–2.16: 1 to 4 scenarios (the smaller grid measured for every release); "
                           "2.21: 6 (the full grid of this page)")
    assert _strip(ds, "new_beats_default").grid_note.startswith("2.16: 4 scenarios (")   # one release: no "each"


def test_not_available_with_its_reason(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "new_beats_default")
    assert [c.kind for c in s.cells] == [NOT_AVAILABLE] * 3 + ["faster"] * 2
    assert any("tf.new_api does not exist in TensorFlow 2.15.1" == r for r in s.cells[2].unavailable)
    assert not s.changed                           # not available is no change
    assert strip_text(s) == ("no change: faster in every release with results (2.16–2.21); "
                             "not available in 2.12, 2.13 and 2.15")
    # a release where some scenarios are not available: the finding of the others, and the reason
    first = _strip(ds, "fast_beats_default").cells[0]
    assert first.kind == "faster" and first.unavailable_scenarios == 2 and len(first.checks) == 2
    assert first.unavailable == ("Keras 3 is not the tf.keras of TensorFlow 2.12",)


def test_not_measured_is_passed_over(ds) -> None:  # type: ignore[no-untyped-def]
    s = _strip(ds, "fast_beats_default_small")
    assert [c.kind for c in s.cells] == ["faster", NOT_MEASURED, "faster", "slower", "slower"]
    assert [(c.before_version, c.version) for c in s.changes] == [("2.15.1", "2.16.2")]


def test_no_change_in_words(ds) -> None:  # type: ignore[no-untyped-def]
    assert strip_text(_strip(ds, "same_beats_default")) == \
        "no change: the same in every release with results (2.12–2.21)"
    noisy = _strip(ds, "noisy_beats_default")
    assert {c.kind for c in noisy.cells} == {"unclear"} and not noisy.changed
    b = _strip(ds, "fast_beats_default", "fixture-b")
    assert b.versions == ["2.15.1", "2.21.0"] and strip_text(b) == \
        "no change: faster in every release with results (2.15–2.21)"
    assert strip_text(_strip(ds, "same_beats_default", "fixture-b")) == \
        "no change: the same in every release with results (2.21); not measured in 2.15"


def test_one_release_gives_no_strip() -> None:
    full_only = dataset(lambda p: p.name == "full.json")
    assert full_only.version_strips(TOPIC) == []
    assert versions_table(full_only).rows == []


def _unavailable(status: str, error: str) -> Measurement:
    record = ResultRecord(case_id="c", topic=TOPIC, params={}, settings={}, variant="v", is_default=False,
                          is_reference=False, status=status, error=error, first_call_s=None, timing=None, output=None,
                          key={"tensorflow": "2.15.1"}, key_hash="0" * 16, env_id=None,  # type: ignore[typeddict-item]
                          finished_at=datetime.now(timezone.utc).isoformat())
    return Measurement.of(record, Source("r/history.json", "r", "history"), "r")


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
