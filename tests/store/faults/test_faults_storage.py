"""The file system refusing a write (a full disk, a file-size limit, a read-only folder), Ctrl-C
before a run measures anything, and a merge into the file a run is writing: `tfperf run`
(with tests/fake_worker.py, no TensorFlow) and `tfperf merge` end with one line and lose
nothing stored, or go on.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import fake_run
import pytest
from fs_faults import REFUSED, read_only
from store_records import make_doc, make_result

from tfperf import store
from tfperf.cli import main
from tfperf.measure.supervise import orchestrate

N = 3
CLI = "import sys; from tfperf.cli import main; sys.exit(main())"     # what the `tfperf` script runs


def _topic(snippets: Path, name: str, n: int = N, profile: str = "quick") -> None:
    snippets.mkdir(exist_ok=True)
    (snippets / f"{name}.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
    (snippets / f"{name}.yaml").write_text(json.dumps({
        "topic": name, "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
        "profiles": {profile: {"params": {"n": list(range(n))}}}}))


def _leftovers(folder: Path) -> list[str]:
    """Temp files a write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_full_disk_ends_the_run_with_one_line_naming_the_file_and_the_scenario(tmp_path: Path) -> None:
    """Fault: the results file cannot grow while `tfperf run` stores a scenario (a full disk; here a file-size limit, RLIMIT_FSIZE, just above the stored file).
    Happens: the run stops with one line, `tfperf: error: <file>: (file): cannot write: File too large; <scenario> was measured but not stored ...`, exit status 2, no traceback; the same command without the limit resumes.
    Kept: every scenario stored before, byte for byte; no temp file is left; the resumed run stores the rest."""
    _topic(tmp_path / "snippets", "left")
    _topic(tmp_path / "snippets", "right")
    first = fake_run.start(tmp_path, fake_run.run_argv(tmp_path, "left", "box"), "left")
    assert first.wait(timeout=120) == 0, (tmp_path / "left.err").read_text()
    path = store.results_path(tmp_path / "data", "box", "quick")
    before = path.read_bytes()

    argv = fake_run.run_argv(tmp_path, "right", "box")
    full = fake_run.start(tmp_path, argv, "full", file_size_limit=len(before) + 200)
    full.communicate(timeout=120)
    err = (tmp_path / "full.err").read_text()
    errors = [line for line in err.splitlines() if line.startswith("tfperf: error:")]
    assert full.returncode == 2 and "Traceback" not in err, err
    assert len(errors) == 1 and re.fullmatch(
        rf"tfperf: error: {re.escape(str(path))}: \(file\): cannot write: File too large; right/n=\d was measured "
        r"but not stored \(1 result\(s\)\); the scenarios stored before it are kept, and `tfperf run` again resumes "
        r"from there", errors[0]), errors
    assert path.read_bytes() == before and _leftovers(path.parent) == []

    again = fake_run.start(tmp_path, argv, "again")
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0 and fake_run.summary(out) == (N, 0), (tmp_path / "again.err").read_text()
    assert len(store.load(path)["results"]) == 2 * N


def test_a_full_disk_ends_a_merge_with_one_line_and_the_target_unchanged(tmp_path: Path) -> None:
    """Fault: `tfperf merge` cannot write the merged target (a full disk; here a file-size limit just above the stored file).
    Happens: it says what it merged and ends with one line, `tfperf: error: <target>: (file): cannot write: File too large`, exit status 2, no traceback.
    Kept: the target byte for byte; no temp file is left."""
    target = store.results_path(tmp_path / "data", "box", "quick")
    store.write_atomic(target, make_doc("box", "quick", results=[make_result(0, runner="box")]))
    artifact = tmp_path / "artifact.json"
    artifact.write_text(store.dumps(make_doc("box", "quick", results=[make_result(i, runner="box") for i in (1, 2)])))
    before = target.read_bytes()
    done = subprocess.run([sys.executable, "-c", CLI, "merge", "--data", str(tmp_path / "data"), str(artifact)], check=False,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(fake_run.BENCH)},
                          preexec_fn=fake_run.limit_file_size(len(before) + 100))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [f"tfperf: error: {target}: (file): cannot write: File too large"]
    assert target.read_bytes() == before and _leftovers(target.parent) == []


def test_a_read_only_folder_ends_run_and_merge_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: nothing can be created in the results folder (mode 0555; for root, the immutable attribute) when `tfperf run` starts and when `tfperf merge` writes.
    Happens: the run stops before measuring anything with one line naming the file it could not create (`<file>.claims: (file): cannot write: Permission denied`), the merge with one line naming its target's lock; exit status 2, no traceback.
    Kept: the stored results file byte for byte."""
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a scenario was measured")
    monkeypatch.setattr(orchestrate, "ScenarioRun", refuse)
    _topic(tmp_path / "snippets", "ro")
    path = store.results_path(tmp_path / "data", "box", "quick")
    store.write_atomic(path, make_doc("box", "quick", results=[make_result(0, runner="box")]))
    artifact = tmp_path / "artifact.json"
    artifact.write_text(store.dumps(make_doc("box", "quick", results=[make_result(1, runner="box")])))
    before = path.read_bytes()
    with read_only(path.parent):
        rc_run = main(["run", "--runner", "box", "--data", str(tmp_path / "data"), "--snippets",
                       str(tmp_path / "snippets"), "--no-progress"])
        run_err = capsys.readouterr().err
        rc_merge = main(["merge", "--data", str(tmp_path / "data"), str(artifact)])
        merge_err = capsys.readouterr().err
    assert rc_run == 2 and run_err.splitlines() == [
        f"tfperf: error: {path}.claims: (file): cannot write: {REFUSED}"], run_err
    assert rc_merge == 2 and merge_err.splitlines() == [
        f"tfperf: error: {path}.lock: (file): cannot write: {REFUSED}"], merge_err
    assert path.read_bytes() == before


def _ctrl_c_as_in_a_terminal() -> None:
    """SIGINT as a terminal delivers it: a suite started in the background (``&``, nohup)
    passes SIGINT on ignored, and Python keeps an ignored SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("delay_s", [0.1, 0.2, 0.3, 0.45])
def test_ctrl_c_at_any_moment_exits_130_without_a_traceback(tmp_path: Path, delay_s: float) -> None:
    """Fault: SIGINT (Ctrl-C) in the first half second of `tfperf run`, while it imports the stages and loads the topics, before it measures anything.
    Happens: exit status 130 and one line, `tfperf: interrupted`, never a KeyboardInterrupt traceback.
    Kept: the results file byte for byte."""
    # loading these keeps the run busy past the last signal: on an idle Zen 5 core the run
    # ended 0.3 s after its start with 80 of them, and 0.5 s with 400
    for i in range(1500):
        _topic(tmp_path / "snippets", f"t{i}", profile="full")
    path = store.results_path(tmp_path / "data", "box", "quick")
    store.write_atomic(path, make_doc("box", "quick", results=[make_result(0, runner="box")]))
    before = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", CLI, *fake_run.run_argv(tmp_path, "t0", "box")],
                            env={**os.environ, "PYTHONPATH": str(fake_run.BENCH)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_in_a_terminal)  # noqa: PLW1509 (a signal disposition only)
    time.sleep(delay_s)
    assert proc.poll() is None, "the run ended before the signal"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err and proc.returncode in (130, -signal.SIGINT), (proc.returncode, err)
    if proc.returncode == 130:
        assert err == "tfperf: interrupted\n", err
    assert path.read_bytes() == before


def test_a_merge_into_the_file_a_run_is_writing_does_not_stop_the_run(tmp_path: Path) -> None:
    """Fault: `tfperf merge` of an artifact holding ok results of the same cases and keys into the results file that a `tfperf run` is writing, while it measures.
    Happens: the run goes on to the end (exit 0): it says that another process stored results of the scenario it was measuring and that both are kept, and skips the scenarios it finds stored since.
    Kept: every record of the artifact and every result the run measured."""
    n = 4
    _topic(tmp_path / "snippets", "shared", n)
    argv = fake_run.run_argv(tmp_path, "shared", "box")
    at = argv.index("--data") + 1
    elsewhere = fake_run.start(tmp_path, [*argv[:at], str(tmp_path / "artifact"), *argv[at + 1:]], "artifact")
    assert elsewhere.wait(timeout=120) == 0, (tmp_path / "artifact.err").read_text()
    artifact = store.results_path(tmp_path / "artifact", "box", "quick")
    run = fake_run.start(tmp_path, fake_run.run_argv(tmp_path, "shared", "box"), "run", delay_s=0.03)
    path = store.results_path(tmp_path / "data", "box", "quick")
    fake_run.wait_for(lambda: path.exists(), 60, "the run's first scenario")
    assert main(["merge", "--data", str(tmp_path / "data"), str(artifact)]) == 0
    out, _ = run.communicate(timeout=120)
    err = (tmp_path / "run.err").read_text()
    assert run.returncode == 0 and "tfperf: error" not in err and "Traceback" not in err, err
    ran, skipped = fake_run.summary(out)       # the scenarios not begun yet are found stored and skipped
    assert ran >= 2 and ran + skipped == n and "both are kept" in err, out + err
    stored = store.load(path)
    measured_elsewhere = store.load(artifact)
    for kind in ("results", "noise", "scenarios"):
        assert all(r in stored[kind] for r in measured_elsewhere[kind]), kind
    assert len(stored["results"]) == n + ran

