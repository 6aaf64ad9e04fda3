"""Appends that cost the same for the 1st and the 1,000th result: the appending process
keeps what it wrote and checks only the new records, yet the file is byte for byte what
merging and writing the whole document gives, and a change made by anyone else is seen."""

from __future__ import annotations

import copy
import importlib
import random
from pathlib import Path
from typing import Any

import pytest
from store_records import make_doc, make_result, valid_doc

from tfperf import store
from tfperf.errors import ResultsFileError
from tfperf.store import files, merge

append_mod = importlib.import_module("tfperf.store.append")   # the module: store.append is the function

@pytest.fixture(autouse=True)
def _fresh() -> None:
    append_mod.forget()


def _add(path: Path, **records: Any) -> dict[str, Any]:
    return store.append(path, runner_label="test-runner", profile="quick", **records)


def test_file_is_the_canonical_merge_of_everything_appended(tmp_path: Path) -> None:
    base = valid_doc()
    label, profile = base["runner"]["label"], base["profile"]
    results = [*base["results"]]
    for n in range(40):
        r = copy.deepcopy(base["results"][n % len(base["results"])])
        r["finished_at"] = f"2026-05-01T12:{n:02d}:00+00:00"     # history: same case, other times
        results.append(r)
    random.Random(3).shuffle(results)
    path = tmp_path / "quick.json"
    env = base["environments"]
    for i in range(0, len(results), 3):
        store.append(path, runner_label=label, profile=profile, results=results[i:i + 3], environments=env,
                     noise=base["noise"] if i == 6 else (), breakdowns=base["breakdowns"] if i == 9 else (),
                     force=True)
    runner = {"label": label, "description": None, "contributed_by": None}
    expected = merge.merge_docs([{**base, "runner": runner, "results": results}])
    assert path.read_bytes() == files.dumps(expected).encode("utf-8")
    assert store.load(path) == expected


def test_only_the_first_append_loads_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "quick.json"
    _add(path, results=[make_result(0)])
    append_mod.forget()
    loads: list[Path] = []
    real = append_mod.load
    monkeypatch.setattr(append_mod, "load", lambda p: loads.append(p) or real(p))
    checked: list[int] = []
    real_checked = append_mod.checked
    monkeypatch.setattr(append_mod, "checked",
                        lambda doc, where: checked.append(len(doc["results"])) or real_checked(doc, where))
    for n in range(1, 30):
        _add(path, results=[make_result(n)])
    assert loads == [path], "the file this process wrote is not read and checked again"
    assert checked == [1] * 29, "each append checks only its own records"
    assert [r["params"]["batch"] for r in store.load(path)["results"]] == sorted(range(30), key=str)


def test_a_change_by_another_writer_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "quick.json"
    _add(path, results=[make_result(1)])
    other = store.load(path)
    other["results"].append(make_result(2))
    files.write_atomic(path, merge.merge_docs([other]), overwrite=True)   # another process, meanwhile
    doc = _add(path, results=[make_result(3)])
    assert sorted(r["params"]["batch"] for r in doc["results"]) == [1, 2, 3]
    with pytest.raises(ResultsFileError, match="already has an ok result"):
        _add(path, results=[make_result(2, finished_at="2026-06-01T12:00:00+00:00")])   # a second ok result


def test_a_refused_append_writes_nothing_and_the_next_one_works(tmp_path: Path) -> None:
    path = tmp_path / "quick.json"
    _add(path, results=[make_result(1)])
    before = path.read_bytes()
    bad = make_result(2)
    bad["timing"]["samples"] = ["x"]
    with pytest.raises(ResultsFileError):
        _add(path, results=[make_result(3), bad])
    assert path.read_bytes() == before
    doc = _add(path, results=[make_result(3)])
    assert sorted(r["params"]["batch"] for r in doc["results"]) == [1, 3]
    assert store.load(path) == doc


def test_identical_records_are_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "quick.json"
    r = make_result(1)
    _add(path, results=[r, copy.deepcopy(r)])
    assert len(_add(path, results=[r])["results"]) == 1
    assert store.load(path) == merge.merge_docs([make_doc(results=[r])])
