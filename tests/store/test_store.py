"""Results store: validation naming file and field, migration, writes, append, merge."""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from store_records import FIXTURES, make_doc, make_result, valid_doc

from tfperf import store
from tfperf.cli import results as commands
from tfperf.errors import ResultsFileError

# The package re-exports the function migrate(); the module holds the registry.
migrate_mod = importlib.import_module("tfperf.store.schema")


# -- validation: every bad fixture names its file and field, in one line ------------------

BAD = {
    "malformed_json.json": ("(file)", "not valid JSON"),
    "schema_v7.json": ("schema_version",
                       "schema version 7 is newer than this tfperf can read (max 2): upgrade tfperf"),
    "nan_median.json": ("results[1].timing.summary.median", "NaN is not allowed"),
    "infinity_sample.json": ("results[0].timing.samples[2]", "Infinity is not allowed"),
    "negative_time.json": ("results[2].timing.summary.median", "must be > 0, got -0.5"),
    "negative_first_call.json": ("results[1].first_call_s", "must be >= 0"),
    "missing_field.json": ("results[1].timing.summary.median", "missing"),
    "wrong_type.json": ("results[0].timing.inner_loops", "expected integer, got string"),
    "traversal_runner.json": ("runner.label", "not a valid name"),
    "traversal_case_id.json": ("results[0].case_id", "path traversal"),
    "traversal_variant.json": ("results[1].variant", "not a valid name"),
}


def test_valid_fixture_loads() -> None:
    doc = store.load(FIXTURES / "valid.json")
    assert doc["schema_version"] == store.SCHEMA_VERSION
    assert len(doc["results"]) == 4 and doc["results"][3]["status"] == "timeout"
    store.validate(doc, "valid.json")


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_fixture_names_file_and_field(name: str) -> None:
    """Fault: results files that are malformed JSON, of an unknown schema version, with NaN,
    infinite, zero or negative times, a missing field, a wrong type, or names that try path
    traversal.
    Happens: loading raises one error naming the file and the field (e.g.
    results[1].timing.summary.median: missing (required)).
    Kept: loading a folder keeps every good file and lists the bad ones.
    Also: test_load_dir_keeps_good_files_despite_bad_ones
    """
    field, problem = BAD[name]
    with pytest.raises(ResultsFileError) as info:
        store.load(FIXTURES / name)
    err = info.value
    assert err.path == str(FIXTURES / name)
    assert err.field == field
    assert problem in err.problem
    assert "\n" not in str(err) and str(err).startswith(f"{FIXTURES / name}: {field}: ")


def test_every_fixture_is_covered() -> None:
    assert {p.name for p in FIXTURES.glob("*.json")} == set(BAD) | {"valid.json", "published_v1.json"}


def test_load_dir_keeps_good_files_despite_bad_ones(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES, tmp_path / "r")
    # The two good fixtures share a runner label but not a CPU (an AMD EPYC and a Xeon):
    # read together, the second would mix two processors into one runner.
    good, bad = store.load_dir(tmp_path / "r")
    assert [p.name for p, _ in good] == ["published_v1.json"]   # v1 migrates
    assert sorted(Path(e.path).name for e in bad) == sorted([*BAD, "valid.json"])
    assert "two CPUs cannot share one runner label" in str(next(e for e in bad if e.path.endswith("valid.json")))
    (tmp_path / "other").mkdir()
    shutil.copy(FIXTURES / "valid.json", tmp_path / "other")
    good, bad = store.load_dir(tmp_path / "other")
    assert [p.name for p, _ in good] == ["valid.json"] and not bad


def _problems(doc: Any) -> dict[str, str]:
    return dict(store.problems(doc))


def test_all_problems_reported_in_field_order() -> None:
    doc = valid_doc()
    doc["results"][2]["status"] = "finished"
    del doc["results"][0]["topic"]
    doc["noise"][0]["ratio"] = 0
    found = store.problems(doc)
    assert [f for f, _ in found] == ["noise[0].ratio", "results[0].topic", "results[2].status"]
    with pytest.raises(store.ResultsSchemaError) as info:
        store.validate(doc, "x.json")
    assert info.value.field == "noise[0].ratio"
    assert "(and 2 more: results[0].topic, results[2].status)" in str(info.value)
    assert len(info.value.problems) == 3


def test_in_memory_nan_zero_and_negative_times_rejected() -> None:
    doc = valid_doc()
    doc["results"][1]["timing"]["summary"]["median"] = float("nan")
    doc["results"][1]["timing"]["samples"][0] = 0.0
    doc["results"][2]["duration_s"] = -3.0
    found = _problems(doc)
    assert "finite" in found["results[1].timing.summary.median"]
    assert found["results[1].timing.samples[0]"] == "must be > 0, got 0.0"
    assert found["results[2].duration_s"] == "must be >= 0, got -3.0"


def test_long_number_lists_are_checked_value_by_value() -> None:
    """Samples, round indices and latencies are checked by plain loops, not the schema (for
    speed: nine in ten of a file's values); each bad value is still named by its field."""
    doc = valid_doc()
    timing = doc["results"][1]["timing"]
    timing["rounds"] = [0, -1, "3", True] + list(range(4, len(timing["samples"])))
    timing["samples"][4] = 0
    doc["noise"][0].update(samples=[-0.5, 0.1], rounds=[1.5, 1])
    found = _problems(doc)
    at = "results[1].timing"
    assert found[f"{at}.rounds[1]"] == "must be >= 0, got -1"
    assert found[f"{at}.rounds[2]"] == "expected integer, got string"
    assert found[f"{at}.rounds[3]"] == "expected integer, got boolean"
    assert found[f"{at}.samples[4]"] == "must be > 0, got 0"
    assert found["noise[0].samples[0]"] == "must be > 0, got -0.5"
    assert found["noise[0].rounds[0]"] == "expected integer, got number"


def test_ok_result_needs_timing_and_failure_needs_error_text() -> None:
    doc = valid_doc()
    doc["results"][1]["timing"] = None
    doc["results"][3]["error"] = None
    found = _problems(doc)
    assert found["results[1].timing"] == 'expected object, got null (required when status is "ok")'
    assert found["results[3].error"].startswith("expected string, got null")


def test_unknown_field_and_bad_time() -> None:
    doc = valid_doc()
    doc["extra"] = 1
    doc["results"][0]["finished_at"] = "yesterday"
    doc["noise"][0]["time"] = "2026-05-01T12:00:00"  # no time zone
    found = _problems(doc)
    assert found["extra"].startswith("unknown field")
    assert "ISO 8601" in found["results[0].finished_at"]
    assert "ISO 8601" in found["noise[0].time"]


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["results"][1].update(key_hash="0" * 16), "results[1].key_hash"),
    (lambda d: d["results"][1]["key"].update(snippet_hash="edited"), "results[1].key_hash"),
    (lambda d: d["results"][1].update(env_id="ffffffffffffffff"), "results[1].env_id"),
    (lambda d: d["results"][1].update(case_id="other/batch=32,model=tiny/keras=3/predict"), "results[1].case_id"),
    (lambda d: d["results"][1].update(case_id="predict_loop/x/keras=3/predict/.."), "results[1].case_id"),
    (lambda d: d["breakdowns"][0].update(case_id="../predict"), "breakdowns[0].case_id"),
    (lambda d: d["runner"].update(label="other-runner"), "environments.2217a24700f35ade.runner"),
    (lambda d: d["runner"].update(label="ok\n"), "runner.label"),  # "$" alone would let "\n" through
    (lambda d: d["results"][0]["timing"]["summary"].update(median=1.0), "results[0].timing.summary.median"),
])
def test_rules_beyond_the_schema(mutate: Any, field: str) -> None:
    doc = valid_doc()
    mutate(doc)
    assert field in _problems(doc)


def test_parse_rejects_duplicate_keys_and_non_object() -> None:
    with pytest.raises(ResultsFileError, match="duplicate key"):
        store.parse('{"a": 1, "a": 2}', "d.json")
    with pytest.raises(ResultsFileError, match="must be a JSON object"):
        store.validate([1, 2], "l.json")


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(ResultsFileError, match="cannot read"):
        store.load(tmp_path / "absent.json")
    (tmp_path / "latin.json").write_bytes(b'{"a": "\xe9"}')
    with pytest.raises(ResultsFileError, match="not UTF-8"):
        store.load(tmp_path / "latin.json")


def test_schema_path_is_packaged_and_valid_json() -> None:
    schema = json.loads(store.schema_path().read_text())
    assert schema["properties"]["schema_version"] == {"const": store.SCHEMA_VERSION}


# -- names and paths -------------------------------------------------------------------

@pytest.mark.parametrize("label", ["../x", "a/b", "..", ".hidden", "", "/abs", "a\\b", "x" * 65, "ok\n", "é"])
def test_results_path_refuses_traversal(tmp_path: Path, label: str) -> None:
    with pytest.raises(ResultsFileError) as info:
        store.results_path(tmp_path, label, "quick")
    assert info.value.field == "runner.label"


def test_results_path_layout(tmp_path: Path) -> None:
    assert store.results_path(tmp_path, "linux-x86_64-2core-cpu", "full") == \
        tmp_path / "results" / "linux-x86_64-2core-cpu" / "full.json"
    with pytest.raises(ResultsFileError, match="profile"):
        store.results_path(tmp_path, "r", "../quick")


def test_new_doc_is_valid() -> None:
    doc = store.new_doc("r1", "quick", description="a box", contributed_by="me")
    store.validate(doc)
    assert doc["runner"] == {"label": "r1", "description": "a box", "contributed_by": "me"}
    with pytest.raises(ResultsFileError):
        store.new_doc("../r1", "quick")


# -- migration -------------------------------------------------------------------------

def test_registry_has_the_step_to_version_2() -> None:
    assert sorted(store.MIGRATIONS) == [1] and store.SCHEMA_VERSION == 2
    doc = store.MIGRATIONS[1]({"schema_version": 1, "results": [{"case_id": "x"}]})
    assert doc["scenarios"] == [] and doc["results"][0]["interleave"] is None


def test_migration_chain_applies_steps_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrate_mod, "SCHEMA_VERSION", 3)
    calls: list[int] = []

    def to_2(d: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        d["renamed"] = d.pop("old")
        return d

    def to_3(d: dict[str, Any]) -> dict[str, Any]:
        calls.append(2)
        d["renamed"] *= 10
        return d

    monkeypatch.setattr(migrate_mod, "MIGRATIONS", {1: to_2, 2: to_3})
    old = {"schema_version": 1, "old": 4}
    new = migrate_mod.migrate(old, "old.json")
    assert new == {"schema_version": 3, "renamed": 40} and calls == [1, 2]
    assert old == {"schema_version": 1, "old": 4}  # the input is not changed
    assert migrate_mod.migrate({"schema_version": 2, "renamed": 1}, "x")["renamed"] == 10
    with pytest.raises(ResultsFileError, match="schema version 0 is older than this tfperf can migrate"):
        migrate_mod.migrate({"schema_version": 0}, "x.json")
    with pytest.raises(ResultsFileError, match="schema version 4 is newer .* upgrade tfperf"):
        migrate_mod.migrate({"schema_version": 4}, "x.json")


def test_broken_migration_names_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrate_mod, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(migrate_mod, "MIGRATIONS", {1: lambda d: d["absent"]})
    with pytest.raises(ResultsFileError) as info:
        migrate_mod.migrate({"schema_version": 1}, "old.json")
    assert info.value.path == "old.json" and "migration from version 1 to 2 failed: KeyError" in info.value.problem


def test_load_migrates_old_file_then_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written as "version 0" (a test-only format) loads through a registered step."""
    def to_1(d: dict[str, Any]) -> dict[str, Any]:
        d["runner"] = {"label": d.pop("runner_label"), "description": None, "contributed_by": None}
        return d

    monkeypatch.setitem(migrate_mod.MIGRATIONS, 0, to_1)
    old = valid_doc()
    old["schema_version"] = 0
    old["runner_label"] = old.pop("runner")["label"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    doc = store.load(tmp_path / "old.json")
    assert doc["schema_version"] == 2 and doc["runner"]["label"] == "linux-x86_64-2core-cpu"


@pytest.mark.parametrize("version, problem", [
    (None, "missing"), ("1", "must be an integer"), (True, "must be an integer"),
    (0, "older than this tfperf can migrate"), (3, "newer than this tfperf can read (max 2)"),
])
def test_unusable_versions(version: Any, problem: str) -> None:
    doc = valid_doc()
    if version is None:
        del doc["schema_version"]
    else:
        doc["schema_version"] = version
    with pytest.raises(ResultsFileError) as info:
        store.validate(store.migrate(doc, "v.json"), "v.json")
    assert info.value.field == "schema_version" and problem in info.value.problem


# -- writing ---------------------------------------------------------------------------

def test_write_atomic_round_trip_and_refuses_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "results" / "r" / "quick.json"
    doc = valid_doc()
    assert store.write_atomic(path, doc) is True
    assert store.load(path) == doc
    before = path.read_bytes()
    assert store.write_atomic(path, copy.deepcopy(doc)) is False  # same content: nothing to do
    changed = copy.deepcopy(doc)
    changed["runner"]["description"] = "another"
    with pytest.raises(ResultsFileError, match="refusing to overwrite"):
        store.write_atomic(path, changed)
    assert path.read_bytes() == before
    store.write_atomic(path, changed, overwrite=True)
    assert store.load(path)["runner"]["description"] == "another"
    assert [p.name for p in path.parent.iterdir()] == ["quick.json"]  # no temp file left


def test_write_atomic_validates_first(tmp_path: Path) -> None:
    doc = valid_doc()
    doc["results"][0]["timing"]["summary"]["median"] = -1.0
    with pytest.raises(ResultsFileError, match=r"results\[0\].timing.summary.median"):
        store.write_atomic(tmp_path / "x.json", doc)
    assert not (tmp_path / "x.json").exists()


def test_canonical_text_is_one_record_per_line() -> None:
    text = store.dumps(valid_doc())
    assert json.loads(text) == valid_doc()
    lines = text.splitlines()
    records = [line for line in lines if line.startswith("  {")]
    assert len(records) == 4 + 1 + 1  # results, noise, breakdowns
    assert all(json.loads(line.strip().rstrip(",")) for line in records)
    assert "NaN" not in text


# -- append ------------------------------------------------------------------------------

def test_append_creates_adds_and_refuses_duplicates(tmp_path: Path) -> None:
    path = store.results_path(tmp_path, "test-runner", "quick")
    r1, r2 = make_result(1), make_result(2)
    store.append(path, runner_label="test-runner", profile="quick", results=[r1, r2])
    doc = store.append(path, runner_label="test-runner", profile="quick", results=[r1])  # identical: no copy
    assert len(doc["results"]) == 2
    again = make_result(1, median=0.002, finished_at="2026-05-02T00:00:00+00:00")
    with pytest.raises(ResultsFileError, match="already has an ok result.*refusing") as refused:
        store.append(path, runner_label="test-runner", profile="quick", results=[again])
    assert "--force" not in str(refused.value)     # a hint to force would store the case twice
    assert len(store.load(path)["results"]) == 2
    doc = store.append(path, runner_label="test-runner", profile="quick", results=[again], force=True)
    same_case = [r for r in doc["results"] if r["case_id"] == r1["case_id"]]
    assert [r["timing"]["summary"]["median"] for r in same_case] == [0.001, 0.002]  # history kept, oldest first


def test_append_after_failure_and_new_key_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    store.append(path, runner_label="test-runner", profile="quick", results=[make_result(1, status="error")])
    store.append(path, runner_label="test-runner", profile="quick", results=[make_result(1)])
    doc = store.append(path, runner_label="test-runner", profile="quick",
                       results=[make_result(1, snippet_hash="changed")])
    assert len(doc["results"]) == 3


def test_append_validates_new_records_and_runner(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    bad = make_result(1)
    bad["timing"]["summary"]["median"] = 0
    with pytest.raises(ResultsFileError, match=r"records being added\): results\[0\].timing.summary.median"):
        store.append(path, runner_label="test-runner", profile="quick", results=[bad])
    assert not path.exists()
    store.append(path, runner_label="test-runner", profile="quick", results=[make_result(1)])
    with pytest.raises(ResultsFileError, match="file is for runner"):
        store.append(path, runner_label="test-runner", profile="full", results=[make_result(2)])


def test_append_environment_then_results_referring_to_it(tmp_path: Path) -> None:
    base = valid_doc()
    env_id, env = next(iter(base["environments"].items()))
    path = tmp_path / "f.json"
    label = base["runner"]["label"]
    store.append(path, runner_label=label, profile="quick", environments={env_id: env})
    later = {**env, "time": "2026-05-03T00:00:00+00:00"}  # the same machine seen by a later worker
    store.append(path, runner_label=label, profile="quick", environments={env_id: later})
    doc = store.append(path, runner_label=label, profile="quick", results=base["results"][:2])
    assert doc["environments"] == {env_id: env} and len(doc["results"]) == 2


# -- merge -------------------------------------------------------------------------------

def test_merge_keeps_everything_dedups_identical_and_is_idempotent() -> None:
    a = make_doc(results=[make_result(1), make_result(2)])
    b = make_doc(results=[make_result(2), make_result(1, median=0.5, finished_at="2026-05-09T00:00:00+00:00")])
    ab, ba = store.merge_docs([a, b]), store.merge_docs([b, a])
    assert ab == ba and store.dumps(ab) == store.dumps(ba)
    assert len(ab["results"]) == 3
    assert store.merge_docs([ab, b]) == ab and store.merge_docs([ab, ab]) == ab
    store.validate(ab)


def test_merge_refuses_other_runner_or_profile() -> None:
    with pytest.raises(store.MergeError, match="different runners"):
        store.merge_docs([make_doc(runner="a"), make_doc(runner="b")])
    with pytest.raises(store.MergeError):
        store.merge_docs([make_doc(profile="quick"), make_doc(profile="full")])


# -- the CLI subcommands ---------------------------------------------------------------------

def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tfperf")
    commands.add_parsers(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_cli_validate(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parse(["validate", str(FIXTURES / "valid.json"), str(FIXTURES / "nan_median.json")])
    assert args.handler(args) == 1
    out, err = capsys.readouterr()
    assert "valid.json: ok (4 results, 1 noise, 1 breakdowns, 0 scenarios)" in out
    assert err.splitlines() == [(f"{FIXTURES / 'nan_median.json'}: results[1].timing.summary.median: "
                                "NaN is not allowed: measurements must be finite numbers")]
    args = _parse(["validate", "-q", str(FIXTURES / "valid.json")])
    assert args.handler(args) == 0
    args = _parse(["validate", str(FIXTURES)])
    assert args.handler(args) == 1
    assert len(capsys.readouterr().err.splitlines()) == len(BAD)


# -- a file checked once is not checked again until its bytes or the checks change --------

def test_a_file_that_passed_is_not_checked_again_in_another_process(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    files = importlib.import_module("tfperf.store.files")
    memo = tmp_path / "memo"
    monkeypatch.setenv("TFPERF_CHECKED_CACHE", str(memo))
    calls: list[str] = []
    real = files.checked
    monkeypatch.setattr(files, "checked", lambda doc, path: (calls.append(path), real(doc, path))[1])

    def load_in_a_new_process(path: Path) -> Any:
        files.checked_files.cache_clear()      # each process starts with no memo but the folder's
        return store.load(path)

    good = tmp_path / "full.json"
    store.write_atomic(good, valid_doc())
    first = load_in_a_new_process(good)
    assert calls == [str(good)] and len(list(memo.iterdir())) == 1
    assert load_in_a_new_process(good) == first and calls == [str(good)]       # not checked again
    # one byte more (the same records): checked again; and a bad file is never remembered
    good.write_bytes(good.read_bytes() + b"\n")
    load_in_a_new_process(good)
    assert len(calls) == 2
    bad = tmp_path / "bad.json"
    doc = valid_doc()
    doc["results"][1]["timing"]["samples"][0] = 0.0
    bad.write_text(json.dumps(doc), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(ResultsFileError, match=r"samples\[0\]"):
            load_in_a_new_process(bad)
    assert len(calls) == 4 and len(list(memo.iterdir())) == 2
    # a folder that cannot be written only costs the check; an empty value turns the memo off
    monkeypatch.setenv("TFPERF_CHECKED_CACHE", str(good))         # a file, not a folder
    load_in_a_new_process(good)
    monkeypatch.setenv("TFPERF_CHECKED_CACHE", "")
    load_in_a_new_process(good)
    load_in_a_new_process(good)
    assert len(calls) == 7
    files.checked_files.cache_clear()          # the next test's memo reads its own setting
