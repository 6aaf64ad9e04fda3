"""Topic YAMLs and snippets that used to pass the checks, or to fail late (a TypeError once
the workers measured, every case stored as an error, a RecursionError or UnicodeDecodeError
in the run and in the site build): each is refused when the topic loads, by ``tfperf run``
before any worker starts and by the analysis alike, with one line naming the file and the
key path. No TensorFlow.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from store_records import make_doc, make_result

from tfperf import store
from tfperf.analyse import analyse
from tfperf.cli import main
from tfperf.measure.supervise import orchestrate

SNIPPET = "def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n"
TOPIC: dict[str, Any] = {
    "topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
    "profiles": {"quick": {"params": {"n": [1, 2]}}},
    "claims": [{"id": "b_beats_a", "text": "b is faster", "candidate": "b", "baseline": "a"}],
}


def _quick(**changes: Any) -> dict[str, Any]:
    return {**TOPIC, "profiles": {"quick": {**TOPIC["profiles"]["quick"], **changes}}}


def _bytes(data: dict[str, Any]) -> bytes:
    return yaml.safe_dump(data).encode()


def _deep(levels: int) -> bytes:
    return _bytes(TOPIC) + b"exclude: " + b"[" * levels + b"]" * levels + b"\n"


def _alias_bomb() -> bytes:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    return ("\n".join(lines) + "\n").encode() + _bytes(TOPIC)


# name -> (topic YAML bytes, snippet bytes, the file named, the key path, words of the problem)
YAML, PY = "t.yaml", "t.py"
CASES: dict[str, tuple[bytes, bytes, str, str, str]] = {
    "budget_s: fast": (_bytes(_quick(budget={"budget_s": "fast"})), b"", YAML, "profiles.quick.budget.budget_s",
                       "must be a finite number above 0, got 'fast'"),
    "rtol: .inf": (_bytes({**TOPIC, "tolerance": {"rtol": float("inf")}}), b"", YAML, "tolerance.rtol",
                   "must be a finite number, 0 or more, got inf"),
    "calls: many": (_bytes({**TOPIC, "breakdowns": [{"variant": "a", "calls": "many"}]}), b"", YAML,
                    "breakdowns.0.calls", "must be a whole number from 1 to 1000000, got 'many'"),
    "min_samples: -5": (_bytes(_quick(budget={"min_samples": -5})), b"", YAML, "profiles.quick.budget.min_samples",
                        "must be a whole number from 2 to 1000000, got -5"),
    "min above max": (_bytes(_quick(budget={"min_samples": 50, "max_samples": 10})), b"", YAML,
                      "profiles.quick.budget", "min_samples (50) is above max_samples (10)"),
    "timeout_s: .inf": (_bytes({**TOPIC, "timeout_s": float("inf")}), b"", YAML, "timeout_s",
                        "must be a finite number above 0, got inf"),
    "min_effect: big": (_bytes({**TOPIC, "claims": [{**TOPIC["claims"][0], "min_effect": "big"}]}), b"", YAML,
                        "claims.0.min_effect", "must be a finite number, 0 or more, got 'big'"),
    "empty grid": (_bytes(_quick(params={"n": []})), b"", YAML, "profiles.quick.params.n",
                   "must be a value or a non-empty list of values"),
    "every case excluded": (_bytes(_quick(exclude=[{"variant": ["a", "b"]}])), b"", YAML, "profiles.quick",
                            "the grid has no case"),
    "setting without mapping": (_bytes(_quick(settings={"onednn": ["1"]})), b"", YAML, "settings.onednn",
                                "no mapping for this setting"),
    "threads: many": (_bytes({**_quick(settings={"threads": ["many"]}),
                              "settings_map": {"threads": {"*": {"intra_op_threads": "{value}"}}}}), b"", YAML,
                      "settings_map.threads.many.intra_op_threads", "must be a whole number from 0 to 1000000"),
    "snippet: ../x.py": (_bytes({**TOPIC, "snippet": "../x.py"}), b"", YAML, "snippet", "is not a file name"),
    "YAML not UTF-8": (_bytes(TOPIC).replace(b"b is faster", b"b is f\xe4ster"), b"", YAML, "(file)",
                       "not UTF-8 text (byte"),
    "snippet not UTF-8": (_bytes(TOPIC), SNIPPET.encode() + b"# caf\xe9\n", PY, "(file)", "not UTF-8 text (byte"),
    "snippet with a null byte": (_bytes(TOPIC), SNIPPET.encode() + b"x = 1\x00\n", PY, "(file)",
                                 "the snippet does not parse: a null byte (byte"),
    "YAML 100,000 deep": (_deep(100_000), b"", YAML, "(file)", "nested more than 32 levels deep"),
    "YAML alias bomb": (_alias_bomb(), b"", YAML, "(file)", "holds more than 100000 values"),
    "YAML of 5,000 digits": (_bytes(TOPIC) + b"timeout_s: " + b"7" * 5000 + b"\n", b"", YAML, "(file)",
                             "not valid YAML: ValueError"),
    "YAML over the size limit": (_bytes(TOPIC) + b"#" * 300_000 + b"\n", b"", YAML, "(file)",
                                 "is 293 KiB; the limit is 256 KiB"),
    "YAML syntax": (b"topic: [t\nvariants: {\n", b"", YAML, "(file)", "not valid YAML:"),
}


def _snippets(tmp_path: Path, text: bytes, snippet: bytes) -> Path:
    d = tmp_path / "snippets"
    d.mkdir()
    (d / YAML).write_bytes(text)
    (d / PY).write_bytes(snippet or SNIPPET.encode())
    return d


def _stored(tmp_path: Path) -> Path:
    """A results file of the run's runner and profile, measured before: it must stay as it is."""
    path = store.results_path(tmp_path / "data", "box", "quick")
    store.write_atomic(path, make_doc("box", "quick", results=[make_result(1, runner="box")]))
    return path


@pytest.fixture()
def no_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that gets as far as starting workers fails the test (it must stop before)."""
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("the run got as far as starting workers")
    monkeypatch.setattr(orchestrate, "Runner", refuse)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_topic_or_snippet_stops_the_run_before_any_worker_with_one_line(
        tmp_path: Path, name: str, no_workers: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: a topic YAML or snippet with a wrong type or range (`budget_s: fast`, `tolerance: {rtol: .inf}`, `calls: many`, `min_samples: -5`, `timeout_s: .inf`, `min_effect: big`, an empty grid, a setting without a mapping, a thread count "many"), a non-UTF-8 byte in the YAML or the snippet, a null byte, YAML nested 100,000 deep, an alias bomb, a 5,000-digit number, a file over 256 KiB.
    Happens: `tfperf run` stops before any worker starts with one line, `tfperf: error: <file>: <key path>: <problem>`, exit status 2; the analysis (the site build) refuses the same topic with the same words.
    Kept: the results file already stored is unchanged; no traceback."""
    text, snippet, named, field, words = CASES[name]
    snippets = _snippets(tmp_path, text, snippet)
    stored = _stored(tmp_path)
    before = stored.read_bytes()
    rc = main(["run", "--runner", "box", "--data", str(tmp_path / "data"), "--snippets", str(snippets),
               "--no-progress"])
    err = capsys.readouterr().err
    expected = f"tfperf: error: {snippets / named}: {field}: "
    assert rc == 2 and err.count("\n") == 1 and err.startswith(expected) and words in err, err
    assert stored.read_bytes() == before
    site = analyse(tmp_path / "data" / "results", snippets)
    assert f"tfperf: error: {site.topic_errors['t']}\n" == err
    assert site.topics == {} and len(site.files) == 1


def test_a_topic_that_is_not_a_regular_file_is_refused_by_name(tmp_path: Path, no_workers: None,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: a topic YAML that is a symbolic link (to a file outside the snippets), or a FIFO that would block its reader forever.
    Happens: `tfperf run` stops with one line naming the path and what it is ("is a symbolic link to ...", "is a FIFO (named pipe)"), before anything is measured.
    Kept: the stored results; nothing is read through the link, nothing waits on the FIFO."""
    snippets = _snippets(tmp_path, _bytes(TOPIC), b"")
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(_bytes(TOPIC))
    makers: dict[str, Callable[[Path], None]] = {"a symbolic link to": lambda p: p.symlink_to(outside),
                                                 "a FIFO (named pipe)": lambda p: os.mkfifo(p)}
    for words, make in makers.items():
        (snippets / YAML).unlink()
        make(snippets / YAML)
        rc = main(["run", "--runner", "box", "--data", str(tmp_path / "data"), "--snippets", str(snippets),
                   "--no-progress"])
        err = capsys.readouterr().err
        assert rc == 2 and err.startswith(f"tfperf: error: {snippets / YAML}: (file): is {words}"), err
        assert err.count("\n") == 1
