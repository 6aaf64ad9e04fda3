"""Store faults with real processes: concurrent appends lose nothing; SIGKILL during a
write never leaves a corrupt or truncated results file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import fake_msvcrt
import pytest

from tfperf import store

TESTS = Path(__file__).parents[2]
BENCH = TESTS.parent / "bench"


def _python(script: str, *args: str, prelude: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH), str(TESTS)])}
    return subprocess.Popen([sys.executable, "-c", prelude + textwrap.dedent(script), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


APPENDER = """
    import os, sys, time
    from store_records import make_result
    from tfperf import store
    path, start, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    records = [make_result(i) for i in range(start, start + 50)]
    while not os.path.exists(go):
        time.sleep(0.001)
    for r in records:
        store.append(path, runner_label="test-runner", profile="quick", results=[r])
"""


@pytest.mark.parametrize("locks", ["posix", "windows"])
def test_two_processes_appending_lose_nothing(tmp_path: Path, locks: str) -> None:
    """Under this platform's locks, and under Windows' (msvcrt.locking of one byte, through
    the stand-in of tests/fake_msvcrt.py)."""
    path = tmp_path / "results" / "test-runner" / "quick.json"
    go = tmp_path / "go"
    prelude = fake_msvcrt.CHILD_PRELUDE if locks == "windows" else ""
    procs = [_python(APPENDER, str(path), str(start), str(go), prelude=prelude) for start in (0, 1000)]
    time.sleep(0.3)
    go.touch()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    doc = store.load(path)
    batches = {r["params"]["batch"] for r in doc["results"]}
    assert batches == set(range(50)) | set(range(1000, 1050))
    assert len(doc["results"]) == 100


WRITER = """
    import copy, sys
    from store_records import make_result, make_doc
    from tfperf.store import files
    files.validate = lambda doc, path=None: None  # validation is not what is tested; keep the loop fast
    path, mode = sys.argv[1], sys.argv[2]
    template = make_result(1)
    results = []
    for i in range(2500):
        r = copy.deepcopy(template)
        r["case_id"] = f"predict_loop/batch={i}/keras=3/model_call"
        r["timing"]["samples"] = [0.001 + i * 1e-9 + k * 1e-7 for k in range(40)]
        results.append(r)
    docs = [make_doc(results=results, description=f"version {v}") for v in (0, 1)]
    files.write_atomic(path, docs[0], overwrite=True)
    if mode == "stall-in-fsync":
        import os, time
        real_fsync = os.fsync
        def stalled(fd):
            print("in-fsync", flush=True)
            time.sleep(60)
        files.os.fsync = stalled
        files.write_atomic(path, docs[1], overwrite=True)
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        files.write_atomic(path, docs[n % 2], overwrite=True)
"""


def _check_intact(path: Path) -> str:
    doc = store.read(path)  # raises on a truncated or corrupt file
    assert len(doc["results"]) == 2500
    description: str = doc["runner"]["description"]
    return description


def test_sigkill_during_writes_never_corrupts(tmp_path: Path) -> None:
    """Fault: SIGKILL of a process while it writes a results file (at random moments, and
    between writing the temporary file and renaming it).
    Happens: the write is a temporary file in the same folder, fsync, rename: the kill leaves
    at most a stray hidden temp file, never taken for results.
    Kept: the results file is always the complete old or the complete new version.
    Also: test_sigkill_after_temp_written_before_rename
    """
    rng = random.Random(7)
    path = tmp_path / "quick.json"
    seen = set()
    for _ in range(6):
        proc = _python(WRITER, str(path), "loop")
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        seen.add(_check_intact(path))
    assert seen <= {"version 0", "version 1"}
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "quick.json"]
    assert all(name.startswith(".quick.json.") and name.endswith(".tmp") for name in leftovers)
    assert store.find_files(tmp_path) == [path]  # temp files are never taken for results


def test_sigkill_after_temp_written_before_rename(tmp_path: Path) -> None:
    """Killed at the worst moment (the new content is in the temp file, not yet renamed):
    the results file still holds the complete old version."""
    path = tmp_path / "quick.json"
    proc = _python(WRITER, str(path), "stall-in-fsync")
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "in-fsync", proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _check_intact(path) == "version 0"
    temps = [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]
    assert len(temps) == 1 and temps[0].stat().st_size > 0
