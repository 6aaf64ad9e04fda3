"""The worker pool's Windows way (tfperf.measure.supervise.pool) run on Linux: the thread that
reads a worker's pipe into a queue instead of select(), and the kill of the worker's tree
as psutil lists it instead of its process group, through real worker processes (tests/fake_worker.py, no
TensorFlow): a round trip, a timeout, a worker that dies, a whole `tfperf run`. Linux can
only hand the pipe over the POSIX way (pass_fds); the Windows hand-over (an inherited
handle, ``h<handle>``) is checked as arguments, and the worker's side of it with a
stand-in msvcrt."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from tfperf import store
from tfperf.measure.supervise import pool
from tfperf.measure.supervise import pool as processes
from tfperf.measure.supervise.orchestrate import RunOptions, run
from tfperf.measure.supervise.pool import Processes, ThreadReader, WorkerGone, WorkerHandle
from tfperf.measure.worker import serve

TESTS = Path(__file__).resolve().parents[2]

# Windows' reader and kill; the pipe handed over as POSIX does (the only way on Linux).
PORTABLE = Processes("windows reader and kill, posix hand-over", processes.posix_handover,
                     ThreadReader, processes.kill_tree)


def _python(tmp_path: Path, script: Path = TESTS / "fake_worker.py") -> str:
    """An executable that the pool takes for Python and that runs ``script``."""
    python = tmp_path / f"python-{script.stem}"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return str(python)


def _handle(python: str) -> WorkerHandle:
    return WorkerHandle(python, {}, {"keras": "3"}, "box", None, processes=PORTABLE)


def _task(task_id: str) -> dict[str, Any]:
    return {"id": task_id, "case_id": task_id}


def _gone(pid: int) -> bool:
    """Exited (a zombie counts: it runs no more)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text.rsplit(")", 1)[-1].split()[0] == "Z"


def test_linux_keeps_the_posix_way() -> None:
    assert pool.PROCESSES is processes.POSIX
    assert processes.POSIX.reader is processes.SelectReader and processes.POSIX.kill is processes.kill_group
    assert processes.posix_handover(7) == processes.Handover("7", {"pass_fds": (7,), "start_new_session": True})


def test_windows_gets_the_thread_reader_and_the_tree_kill(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setattr(os, "name", "nt")
        chosen = processes.for_platform()
    assert chosen is processes.WINDOWS
    assert chosen.reader is ThreadReader and chosen.kill is processes.kill_tree
    assert chosen.hand_over is processes.windows_handover


def test_a_round_trip_through_the_thread_reader(tmp_path: Path) -> None:
    handle = _handle(_python(tmp_path))
    reader = handle._reader
    assert isinstance(reader, ThreadReader)
    ready = handle.ready()
    assert ready["type"] == "ready" and ready["env"]["runner"] == "box"
    prepared = handle.request({"cmd": "prepare", "task": _task("t/a")}, 10.0)   # type: ignore[typeddict-item]
    assert prepared["type"] == "prepared" and prepared["id"] == "t/a"
    for warm in (True, False):
        sample = handle.request({"cmd": "sample", "id": "t/a", "warm": warm}, 10.0)
        assert sample == {"type": "sample", "id": "t/a", "seconds": 0.001}
    assert handle.request({"cmd": "release", "id": "t/a"}, 10.0) == {"type": "released", "id": "t/a"}
    handle.close()
    assert handle.proc.returncode == 0, "closing stdin ends the worker by itself"
    reader.thread.join(timeout=10)
    assert not reader.thread.is_alive(), "the reading thread ends with the pipe"


def test_a_timeout_kills_the_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_WORKER_DELAY_S", "60")          # every sample block hangs a minute
    handle = _handle(_python(tmp_path))
    handle.ready()
    handle.request({"cmd": "prepare", "task": _task("t/a")}, 10.0)   # type: ignore[typeddict-item]
    t0 = time.monotonic()
    with pytest.raises(WorkerGone) as gone:
        handle.request({"cmd": "sample", "id": "t/a", "warm": False}, 0.5)
    assert gone.value.reason == "timeout"
    assert 0.5 <= time.monotonic() - t0 < 10
    assert handle.proc.returncode == -signal.SIGKILL


DIES = """
import os, sys
from tfperf.measure.worker.serve import open_channel, read_command, read_job
out = open_channel(sys.argv[-1])
read_job(sys.stdin)
out.send({"type": "ready", "env": {}, "import_s": 0.0, "unavailable": None})
read_command(sys.stdin)
os._exit(3)
"""


def test_a_worker_dying_in_a_command_is_the_end_of_its_pipe(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text(DIES)
    handle = _handle(_python(tmp_path, script))
    handle.ready()
    with pytest.raises(WorkerGone) as gone:
        handle.request({"cmd": "release", "id": "t/a"}, 30.0)
    assert (gone.value.reason, gone.value.returncode) == ("eof", 3)
    with pytest.raises(WorkerGone) as again:
        handle.request({"cmd": "release", "id": "t/a"}, 30.0)
    assert again.value.reason == "exited"


SPAWNS = """
import os, subprocess, sys, time
pid_file = sys.argv[1]
child = subprocess.Popen(["sleep", "60"])
with open(pid_file, "w") as fh:
    fh.write(str(child.pid))
time.sleep(60)
"""


@pytest.mark.parametrize("kill, survives", [(processes.kill_group, False), (processes.kill_tree, False),
                                            (lambda proc: proc.kill(), True)],
                         ids=["posix: the process group", "windows: the tree psutil lists", "Popen.kill: the worker alone"])
def test_what_each_kill_reaches(tmp_path: Path, kill: Any, survives: bool) -> None:
    """POSIX kills the worker's process group, a process it started too; Windows' kill
    (psutil's list of the worker's descendants, then the worker) reaches it too; a plain
    Popen.kill (TerminateProcess there), the worker alone, which shows the test can fail."""
    pid_file = tmp_path / "grandchild"
    proc = subprocess.Popen([sys.executable, "-c", SPAWNS, str(pid_file)], start_new_session=True)
    try:
        end = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < end, "the worker did not start its child"
            time.sleep(0.01)
        grandchild = int(pid_file.read_text())
        kill(proc)
        proc.wait(timeout=10)
        end = time.monotonic() + 5
        while not _gone(grandchild) and time.monotonic() < end and not survives:
            time.sleep(0.01)
        assert _gone(grandchild) is not survives
    finally:
        proc.kill()
        proc.wait()
        if pid_file.exists() and not _gone(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_run_through_the_thread_reader_measures_every_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole `tfperf run` with Windows' reader and kill, one worker dying between two cases."""
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "t.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n")
    (snippets / "t.yaml").write_text(
        "topic: t\nreference: a\ndefault: a\nvariants: {a: {fn: f}, b: {fn: g}}\n"
        "profiles: {quick: {params: {n: [1, 2, 3]}}}\n")
    monkeypatch.setattr(pool, "PROCESSES", PORTABLE)
    monkeypatch.setenv("FAKE_WORKER_DIE_ONCE", str(tmp_path / "died"))
    readers: list[ThreadReader] = []
    real_reader = ThreadReader.__init__

    def counted(self: ThreadReader, fd: int) -> None:
        real_reader(self, fd)
        readers.append(self)

    monkeypatch.setattr(ThreadReader, "__init__", counted)
    report = run(RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                            progress=False, python=_python(tmp_path)))
    assert (tmp_path / "died").exists(), "the first worker did die"
    assert len(readers) >= 2, "the workers were read through the thread reader"
    doc = store.load(report.path)
    assert sorted((r["params"]["n"], r["variant"]) for r in doc["results"]) == \
        [(n, v) for n in (1, 2, 3) for v in ("a", "b")]
    assert all(r["status"] == "ok" for r in doc["results"]), [r["error"] for r in doc["results"]]
    for reader in readers:
        reader.thread.join(timeout=10)
        assert not reader.thread.is_alive()


# -- the hand-over ---------------------------------------------------------------------------

def test_the_windows_hand_over_passes_one_inheritable_handle(monkeypatch: pytest.MonkeyPatch) -> None:
    inheritable: list[tuple[int, bool]] = []
    fake = ModuleType("msvcrt")
    fake.get_osfhandle = lambda fd: 1000 + fd           # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(os, "set_handle_inheritable", lambda h, flag: inheritable.append((h, flag)), raising=False)
    monkeypatch.setattr(subprocess, "STARTUPINFO", SimpleNamespace, raising=False)
    monkeypatch.setattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200, raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    handover = processes.windows_handover(7)
    monkeypatch.undo()
    assert handover.arg == "h1007"
    assert inheritable == [(1007, True)]
    assert set(handover.popen) == {"startupinfo", "creationflags"}, "no pass_fds or start_new_session on Windows"
    assert handover.popen["startupinfo"].lpAttributeList == {"handle_list": [1007]}
    assert handover.popen["creationflags"] == 0x200


def test_the_windows_hand_over_refuses_elsewhere() -> None:
    with pytest.raises(RuntimeError, match="only be handed over on Windows"):
        processes.windows_handover(7)


def test_the_worker_opens_a_windows_handle_through_msvcrt(monkeypatch: pytest.MonkeyPatch) -> None:
    rfd, wfd = os.pipe()
    opened: list[tuple[int, int]] = []

    def open_osfhandle(handle: int, flags: int) -> int:
        opened.append((handle, flags))
        return wfd

    fake = ModuleType("msvcrt")
    fake.open_osfhandle = open_osfhandle                 # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    channel = serve.open_channel("h1234")
    channel.send({"type": "released", "id": "t/a"})
    with os.fdopen(rfd, "rb") as r:
        assert r.readline() == b'{"type": "released", "id": "t/a"}\n'
    assert opened == [(1234, os.O_WRONLY)]


def test_the_worker_opens_a_descriptor_number_as_before() -> None:
    rfd, wfd = os.pipe()
    serve.open_channel(str(wfd)).send({"type": "released", "id": "x"})
    with os.fdopen(rfd, "rb") as r:
        assert r.readline() == b'{"type": "released", "id": "x"}\n'


@pytest.mark.tf
def test_tensorflow_workers_through_the_thread_reader_keep_every_fault_apart(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """test_harness_faults' topic (ok, wrong, raises, hangs, dies) with real TensorFlow
    workers, read by Windows' thread and killed the Windows way: the same records."""
    from test_harness_faults import SNIPPET, YAML

    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "faults.py").write_text(SNIPPET)
    (snippets / "faults.yaml").write_text(YAML)
    monkeypatch.setattr(pool, "PROCESSES", PORTABLE)
    report = run(RunOptions(profile="quick", data_root=tmp_path / "data", snippets_dir=snippets,
                            runner="test-runner", progress=False))
    by_variant = {r["variant"]: r for r in store.load(report.path)["results"]}
    assert {v: r["status"] for v, r in by_variant.items()} == {
        "double": "ok", "double_again": "ok", "wrong": "ok", "raises": "error", "hangs": "timeout", "dies": "crashed"}
    assert by_variant["wrong"]["output"]["within_tolerance"] is False
    assert "exit code 3" in by_variant["dies"]["error"]
    assert by_variant["double"]["timing"]["summary"]["n"] >= 5
