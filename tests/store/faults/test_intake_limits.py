"""Results files that used to escape the store's checks as tracebacks, or to pass them:
numbers out of range, nesting deep enough to exhaust the parser's stack, files too large,
unknown keys inside nested objects, and summaries that do not match their samples.
Each is judged alone (no TensorFlow).

Each test's docstring starts with "Fault:" / "Happens:" / "Kept:" lines; the guide's
"Faults we test" page is generated from them (tfperf.render.site.faults)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tfperf import store
from tfperf.cli import main
from tfperf.errors import ResultsFileError
from tfperf.store import files

VALID_PATH = Path(__file__).parents[2] / "fixtures" / "results" / "valid.json"
VALID = json.loads(VALID_PATH.read_text(encoding="utf-8"))


def huge_int_median() -> str:
    """The valid file with its first median written as a 400-digit integer."""
    return re.sub(r'"median": [0-9.eE+-]+', '"median": ' + "7" * 400, VALID_PATH.read_text(encoding="utf-8"), count=1)


def deep_nesting(levels: int = 200_000) -> str:
    return '{"schema_version": 2, "results": ' + "[" * levels + "]" * levels + "}"


CRASHERS: dict[str, Callable[[], str]] = {"huge_int.json": huge_int_median, "deep.json": deep_nesting}


def _changed(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = json.loads(VALID_PATH.read_text(encoding="utf-8"))
    change(doc)
    return doc


def _reject(tmp_path: Path, doc: dict[str, Any] | str, field: str, words: str) -> None:
    p = tmp_path / "artifact.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    with pytest.raises(ResultsFileError) as info:
        store.load(p)
    assert info.value.path == str(p) and info.value.field == field, str(info.value)
    assert words in str(info.value)


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_crashing_files_are_rejected_by_validate_and_merge_beside_a_good_one(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: a results file whose median is a 400-digit integer, or whose array nests 200,000 levels deep.
    Happens: `validate` prints one line naming the file and exits 1; `merge` rejects that file by name and merges the good artifact given beside it.
    Kept: the good artifact's records are merged; the bad file is never parsed past the limits (integers of 18 digits, 32 levels of nesting)."""
    bad = tmp_path / "incoming" / name
    bad.parent.mkdir()
    bad.write_text(CRASHERS[name](), encoding="utf-8")
    good = tmp_path / "incoming" / "good.json"
    good.write_text(VALID_PATH.read_text(encoding="utf-8"), encoding="utf-8")

    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0] and "Traceback" not in err[0], err
    assert ("out of range" in err[0]) if name == "huge_int.json" else ("nest" in err[0])

    data = tmp_path / "data"
    assert main(["merge", "--data", str(data), str(bad.parent)]) == 1
    out = capsys.readouterr()
    assert f"rejected {bad}" in out.err and "good.json" in out.out
    stored = store.load(store.results_path(data, VALID["runner"]["label"], VALID["profile"]))
    assert len(stored["results"]) == len(VALID["results"])


def test_nesting_depth_ignores_brackets_inside_strings() -> None:
    assert files.nesting_depth('{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert files.nesting_depth('"\\"[[["') == 0
    assert files.nesting_depth(VALID_PATH.read_text(encoding="utf-8")) <= files.MAX_DEPTH


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault: an artifact larger than the size limit (64 MiB), e.g. a runaway breakdown dump.
    Happens: it is refused before it is read, with its size and the limit; `merge` goes on with the others.
    Kept: nothing of it is merged; the stored file is untouched."""
    monkeypatch.setattr(files, "MAX_BYTES", 1024)
    _reject(tmp_path, VALID, "(file)", "the limit is 1 KiB")


@pytest.mark.parametrize("where, change", [
    ("results[0].timing.unknown", lambda d: d["results"][0]["timing"].__setitem__("unknown", 1)),
    ("results[0].timing.summary.extra", lambda d: d["results"][0]["timing"]["summary"].__setitem__("extra", 1)),
    ("results[0].key.settings.process.threads", lambda d: d["results"][0]["key"]["settings"].setdefault(
        "process", {}).__setitem__("threads", 2)),
    ("results[0].surprise", lambda d: d["results"][0].__setitem__("surprise", True)),
])
def test_unknown_keys_inside_nested_objects_are_refused(tmp_path: Path, where: str,
                                                        change: Callable[[dict[str, Any]], None]) -> None:
    """Fault: an unknown key inside a nested object of a result (in `timing`, its `summary`, the key's settings).
    Happens: the file is rejected with the field path of the unknown key ("unknown field").
    Kept: the other files; the schema is closed at every level except the maps whose keys are names (params, settings, env, versions)."""
    p = tmp_path / "artifact.json"
    p.write_text(json.dumps(_changed(change)), encoding="utf-8")
    with pytest.raises(ResultsFileError) as info:
        store.load(p)
    assert where in str(info.value) and "unknown field" in str(info.value)


def _first_ok(doc: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in doc["results"] if r["status"] == "ok")


def test_an_ok_result_without_samples_is_refused(tmp_path: Path) -> None:
    """Fault: a result with status "ok" whose `timing.samples` is empty while its summary claims 12 samples.
    Happens: the file is rejected naming `results[i].timing.samples` ("empty, but the result's status is ok").
    Kept: the other files."""
    doc = _changed(lambda d: _first_ok(d)["timing"].update(samples=[], rounds=[]))
    i = doc["results"].index(_first_ok(doc))
    _reject(tmp_path, doc, f"results[{i}].timing.samples", "empty")


@pytest.mark.parametrize("key, scale, words", [("n", 0, "but there are"), ("median", 1.2, "median"),
                                               ("max", 10.0, "is not the max")])
def test_a_summary_that_does_not_match_its_samples_is_refused(tmp_path: Path, key: str, scale: float,
                                                              words: str) -> None:
    """Fault: a result whose summary (sample count, median, maximum) is not the summary of its samples.
    Happens: the file is rejected naming the summary field that disagrees with the samples.
    Kept: the other files."""
    def change(d: dict[str, Any]) -> None:
        summary = _first_ok(d)["timing"]["summary"]
        summary[key] = summary[key] + 1 if key == "n" else summary[key] * scale
    doc = _changed(change)
    i = doc["results"].index(_first_ok(doc))
    _reject(tmp_path, doc, f"results[{i}].timing.summary.{key}", words)


def test_committed_results_pass_the_stricter_checks() -> None:
    root = Path(__file__).resolve().parents[3] / "data"
    good, bad = store.load_dir(root)
    assert good and not bad, [str(e) for e in bad]


def test_any_other_exception_while_checking_a_file_names_the_file(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault: a file that trips an unforeseen exception somewhere in migration or validation (stood in for by a KeyError).
    Happens: loading turns it into one error naming the file ("could not be checked (KeyError: ...)"); validate, merge and the site build treat it like any bad file.
    Kept: the other files."""
    def broken(doc: Any, path: str) -> Any:
        raise KeyError("environments")
    monkeypatch.setattr(files, "migrate", broken)
    _reject(tmp_path, VALID, "(file)", "could not be checked (KeyError")



def test_nesting_depth_is_the_running_count_of_brackets_outside_strings() -> None:
    """The quick count (a regular expression and numpy) against a plain reading, character by
    character, of random text of quotes, escapes, brackets and other characters, well formed
    or not: a quote never closed is plain text; a closing bracket first goes below zero."""
    import random

    def plain(text: str) -> int:
        i, depth, deepest, seen = 0, 0, 0, False
        while i < len(text):
            c = text[i]
            if c == '"':
                j = i + 1
                while j < len(text) and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                if j < len(text):             # a string: skipped whole
                    i = j + 1
                    continue
            elif c in "[{]}":
                depth += 1 if c in "[{" else -1
                deepest, seen = (max(deepest, depth) if seen else depth), True
            i += 1
        return deepest if seen else 0

    rng = random.Random(5)
    for _ in range(20000):
        text = "".join(rng.choice('"\\[]{}a é\n,:') for _ in range(rng.randint(0, 30)))
        assert files.nesting_depth(text) == plain(text), text
