"""`tfperf merge` says what it did: inputs that are not there or not files are errors, a merge
that adds nothing writes nothing, a target that cannot be used is skipped and the others
are merged; `tfperf validate` names every path that is not a regular file. No TensorFlow.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from store_records import make_doc, make_result

from tfperf import store
from tfperf.cli import main


def _artifact(path: Path, runner: str, *ns: int, description: str | None = None,
              contributed_by: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = make_doc(runner, "quick", results=[make_result(n, runner=runner) for n in ns], description=description)
    doc["runner"]["contributed_by"] = contributed_by
    path.write_text(store.dumps(doc))
    return path


def _stored(data: Path, runner: str = "box", description: str | None = "first") -> Path:
    target = store.results_path(data, runner, "quick")
    _artifact(target, runner, 0, description=description, contributed_by="me")
    return target


def _merge(capsys: pytest.CaptureFixture[str], data: Path, *given: Path) -> tuple[int, list[str], list[str]]:
    rc = main(["merge", "--data", str(data), *map(str, given)])
    out, err = capsys.readouterr()
    return rc, out.splitlines(), err.splitlines()


def test_a_merge_of_nothing_is_an_error_naming_each_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf merge` given an artifact path that does not exist, an empty folder, a symbolic link to nothing, and a symbolic link to a valid results file.
    Happens: each is rejected on a line of its own ("does not exist", "is a folder with no results file (*.json)", "is a symbolic link to ..., which does not exist", "is a symbolic link to ...: only regular files are read") and the exit status is 1.
    Kept: the data folder byte for byte."""
    data = tmp_path / "data"
    target = _stored(data)
    before = target.read_bytes()
    missing, empty, dangling, link = (tmp_path / n for n in ("missing.json", "empty", "dangling.json", "link.json"))
    empty.mkdir()
    dangling.symlink_to(tmp_path / "nowhere.json")
    link.symlink_to(_artifact(tmp_path / "real" / "a.json", "box", 1))
    rc, out, err = _merge(capsys, data, missing, empty, dangling, link)
    assert rc == 1 and out == ["no results file changed"]
    assert sorted(err) == sorted([
        f"rejected {missing}: (file): does not exist",
        f"rejected {empty}: (file): is a folder with no results file (*.json)",
        (f"rejected {dangling}: (file): is a symbolic link to {tmp_path / 'nowhere.json'}, which does not exist: "
        "only regular files are read"),
        f"rejected {link}: (file): is a symbolic link to {tmp_path / 'real' / 'a.json'}: only regular files are read"])
    assert target.read_bytes() == before


def test_a_merge_that_adds_nothing_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf merge` of an artifact whose every record is already stored, but with another runner description and contributor.
    Happens: it says "duplicate ...: every record is already in <target>" and "no results file changed", exit status 0.
    Kept: the target byte for byte, its metadata included."""
    data = tmp_path / "data"
    target = _stored(data, description="first")
    before = target.read_bytes()
    again = _artifact(tmp_path / "again.json", "box", 0, description="zzz later", contributed_by="someone else")
    doc = store.load(target)                 # the same record: only the runner's metadata differ
    copy = store.load(again)
    copy["results"] = doc["results"]
    copy["environments"] = doc["environments"]
    again.write_text(store.dumps(copy))
    rc, out, err = _merge(capsys, data, again)
    assert rc == 0 and err == [] and out == [f"duplicate {again}: every record is already in {target}",
                                             "no results file changed"]
    assert target.read_bytes() == before


def test_a_bad_target_is_skipped_and_the_others_are_merged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf merge` of artifacts for three runners, one whose folder in data/ is a symbolic link to a folder outside the data folder, and one whose results file is a symbolic link.
    Happens: those two targets are rejected by name, each "is a symbolic link to ...", and the third runner's artifact is merged ("wrote ..."), exit status 1.
    Kept: the folder outside and the link's target, untouched; the good runner's file gets the new records."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    outside.mkdir()
    (data / "results").mkdir(parents=True)
    (data / "results" / "away").symlink_to(outside)
    linked = _artifact(tmp_path / "elsewhere.json", "linked", 5)
    (data / "results" / "linked").mkdir()
    (data / "results" / "linked" / "quick.json").symlink_to(linked)
    good = _stored(data, "good")
    arts = tmp_path / "artifacts"
    for runner in ("away", "linked", "good"):
        _artifact(arts / runner / "quick.json", runner, 1, 2)
    linked_before = linked.read_bytes()
    rc, out, err = _merge(capsys, data, arts)
    assert rc == 1 and len(err) == 2
    assert err == [(f"rejected {data / 'results' / 'away'}: (file): is a symbolic link to {outside}: only regular "
                   "files and folders are used"),
                   (f"rejected {data / 'results' / 'linked' / 'quick.json'}: (file): is a symbolic link to {linked}: "
                   "only regular files and folders are used")]
    assert f"wrote {good}" in out and f"merged {arts / 'good' / 'quick.json'} -> {good} (2 new records)" in out
    assert len(store.load(good)["results"]) == 3
    assert list(outside.iterdir()) == [] and linked.read_bytes() == linked_before


def test_validate_names_every_path_that_is_not_a_regular_file(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf validate` of a folder holding a valid results file beside a symbolic link to /etc/passwd named full.json, a link to nothing and a folder named full.json.
    Happens: one line per path saying what it is; exit status 1.
    Kept: the valid file is reported ok; nothing is read through a link."""
    root = tmp_path / "results"
    good = _artifact(root / "box" / "quick.json", "box", 1)
    (root / "passwd").mkdir()
    (root / "passwd" / "full.json").symlink_to("/etc/passwd")
    (root / "gone").mkdir()
    (root / "gone" / "full.json").symlink_to(root / "nowhere")
    (root / "folder" / "full.json").mkdir(parents=True)
    assert main(["validate", str(root)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"{good}: ok (1 results, 0 noise, 0 breakdowns, 0 scenarios)"]
    assert err.splitlines() == [
        f"{root / 'folder' / 'full.json'}: (file): is a directory: only regular files are read",
        (f"{root / 'gone' / 'full.json'}: (file): is a symbolic link to {root / 'nowhere'}, which does not exist: "
        "only regular files are read"),
        f"{root / 'passwd' / 'full.json'}: (file): is a symbolic link to /etc/passwd: only regular files are read"]
    shutil.rmtree(root)
