"""The parent's side of the worker processes: one live worker per settings group, kept
alive across the scenarios that need it, at most ``max_live`` at once.

A worker is asked one command at a time (:meth:`WorkerHandle.request`) under a deadline;
a worker that hangs, dies or grows past the memory cap (its resident memory, read through
psutil on every platform) raises :class:`WorkerGone` with the tail of its log, and is
killed. How a worker gets its pipe, how the parent waits on it and how a worker is killed
depend on the platform (:class:`Processes`, chosen once in :data:`PROCESSES`). Never
imports TensorFlow.

POSIX (Linux, macOS), the way every committed measurement was taken:

* the pipe's write end is inherited through ``pass_fds`` and its number is the worker's
  argv[1]; the worker runs in a session of its own (``start_new_session``), so a Ctrl-C in
  the terminal reaches the parent only, which then ends the workers itself;
* the parent waits on the pipe with ``selectors`` (:class:`SelectReader`);
* a hung worker is killed with its whole process group (``os.killpg``, SIGKILL).

Windows has no ``pass_fds``, its ``select()`` takes sockets only, and it has no process
groups to signal:

* the write end's handle is made inheritable and is the only handle the worker inherits
  besides its standard streams (``STARTUPINFO.lpAttributeList["handle_list"]``); argv[1] is
  ``h<handle>``, which the worker opens with ``msvcrt.open_osfhandle`` (``serve.open_channel``).
  ``CREATE_NEW_PROCESS_GROUP`` keeps a Ctrl-C in the console away from the worker, as the
  new session does on POSIX;
* a daemon thread reads the pipe into a queue, which the parent waits on with a timeout
  (:class:`ThreadReader`);
* a worker is killed with everything it started: psutil lists the worker's descendants and
  each is terminated (TerminateProcess), then the worker (:func:`kill_tree`). Windows has
  no process group to signal at once; a process that a descendant started after the list
  was taken would outlive it (the harness's workers start none).

The pieces combine freely: the tests run the thread reader and the plain kill on Linux
(with the POSIX hand-over, the only one Linux can do) through a real worker pool.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn, Protocol, TypedDict

from ...store.record_types import Environment, ProcessSettings
from .. import envinfo
from ..worker.protocol import Answer, Command, Job, Ready

# Time a worker may take outside any case (importing TensorFlow) before it counts as hung.
GRACE_S = 120.0

# What one live TensorFlow worker may hold (the import alone is about 0.5 GB; a prepared
# convnet or a converted model adds to it): the pool keeps at most
# MEMORY_FOR_WORKERS of physical memory / WORKER_MB workers alive.
WORKER_MB = 1024
MEMORY_FOR_WORKERS = 0.6


# -- the platform's way with worker processes ------------------------------------------------


CHUNK = 1 << 16


class PopenExtras(TypedDict, total=False):
    """The keyword arguments of ``subprocess.Popen`` that hand the pipe over."""

    pass_fds: tuple[int, ...]
    start_new_session: bool
    startupinfo: Any            # subprocess.STARTUPINFO (Windows only)
    creationflags: int


@dataclass(frozen=True)
class Handover:
    """How the worker finds its pipe: its argv[1], and what Popen must be given."""

    arg: str
    popen: PopenExtras


def posix_handover(wfd: int) -> Handover:
    return Handover(str(wfd), {"pass_fds": (wfd,), "start_new_session": True})


def windows_handover(wfd: int) -> Handover:
    """The pipe's handle, inheritable and the only one passed (Windows only)."""
    if sys.platform == "win32":
        msvcrt: Any = importlib.import_module("msvcrt")
        handle = int(msvcrt.get_osfhandle(wfd))
        os.set_handle_inheritable(handle, True)
        info = subprocess.STARTUPINFO(lpAttributeList={"handle_list": [handle]})
        return Handover(f"h{handle}", {"startupinfo": info, "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP})
    raise RuntimeError("windows_handover: a Windows handle can only be handed over on Windows")


class PipeReader(Protocol):
    """The parent's end of one worker's message pipe."""

    def read(self, timeout_s: float) -> bytes | None:
        """The next bytes; ``b""`` at the end of the pipe (the worker is gone); None when
        nothing came within ``timeout_s``."""
        ...

    def close(self) -> None:
        """Stop reading, once the worker has exited."""
        ...


class SelectReader:
    """POSIX: ``select()`` on the pipe, read when it is readable."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._sel = selectors.DefaultSelector()
        self._sel.register(fd, selectors.EVENT_READ)

    def read(self, timeout_s: float) -> bytes | None:
        if self._sel.select(timeout=timeout_s):
            return os.read(self._fd, CHUNK)
        return None

    def close(self) -> None:
        self._sel.close()
        os.close(self._fd)


class ThreadReader:
    """Anywhere (Windows' way): a daemon thread reads the pipe into a queue until its end.

    The thread owns the descriptor and closes it at the end of the pipe, which comes when
    the worker has exited: closing it from here while the thread may still be in
    ``os.read`` could make it read whatever file is opened next under the same number."""

    def __init__(self, fd: int) -> None:
        self._chunks: queue.Queue[bytes] = queue.Queue()
        self.thread = threading.Thread(target=self._pump, args=(fd,), name="tfperf-worker-pipe", daemon=True)
        self.thread.start()

    def _pump(self, fd: int) -> None:
        try:
            while True:
                try:
                    chunk = os.read(fd, CHUNK)
                except OSError:
                    chunk = b""      # a broken pipe reads as its end
                self._chunks.put(chunk)
                if not chunk:
                    return
        finally:
            os.close(fd)

    def read(self, timeout_s: float) -> bytes | None:
        try:
            return self._chunks.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            return None

    def close(self) -> None:
        """Nothing to do here: the thread ends, and closes the pipe, at its end."""


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """POSIX: SIGKILL to the worker's process group (its session, see posix_handover)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Windows (and any platform): the worker and every process it started, found through
    psutil (``envinfo.kill_tree``: TerminateProcess / SIGKILL each), then the worker again
    through its Popen, which also covers a worker psutil could not read."""
    envinfo.kill_tree(proc.pid)
    proc.kill()


@dataclass(frozen=True)
class Processes:
    """One platform's way with worker processes."""

    name: str
    hand_over: Callable[[int], Handover]
    reader: Callable[[int], PipeReader]
    kill: Callable[[subprocess.Popen[bytes]], None]


POSIX = Processes("posix", posix_handover, SelectReader, kill_group)
WINDOWS = Processes("windows", windows_handover, ThreadReader, kill_tree)


def for_platform() -> Processes:
    return WINDOWS if os.name == "nt" else POSIX


# This platform's way with worker processes (the tests set another, to run Windows' pipe
# reader and kill on Linux).
PROCESSES: Processes = for_platform()


# -- the pool --------------------------------------------------------------------------------


def default_max_live(worker_mb: int = WORKER_MB) -> int:
    """How many workers fit in memory at once (at least 2: a baseline and one other)."""
    total = envinfo.memory_bytes()
    if total is None:
        return 4
    return max(2, int(total / 2**20 * MEMORY_FOR_WORKERS // worker_mb))


class WorkerGone(Exception):
    """The worker hung, died or exceeded the memory cap; ``reason`` is "timeout",
    "memory", "eof" (died while busy) or "exited" (had exited while idle, between two
    commands), ``tail`` the end of its log."""

    def __init__(self, reason: str, tail: str, returncode: int | None) -> None:
        super().__init__(reason)
        self.reason, self.tail, self.returncode = reason, tail, returncode


def _rss_mb(pid: int) -> float | None:
    """The worker's resident memory in MB; None when it cannot be read (gone, say)."""
    rss = envinfo.rss_bytes(pid)
    return rss / 2**20 if rss is not None else None


class WorkerHandle:
    """One worker process of one settings group."""

    def __init__(self, python: str, process: ProcessSettings, settings: dict[str, str], runner: str,
                 memory_limit_mb: int | None, processes: Processes | None = None) -> None:
        self.memory_limit_mb = memory_limit_mb
        self.processes = processes or PROCESSES
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - lives with the worker, closed by kill()
        # TensorFlow's INFO log stays on: the worker records its CPU-feature message.
        env = {**os.environ, **process.get("env", {}), "PYTHONUNBUFFERED": "1"}
        pkg_root = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        rfd, wfd = os.pipe()
        handover = self.processes.hand_over(wfd)
        self.proc = subprocess.Popen([python, "-m", "tfperf.measure.worker.serve", handover.arg],
                                     stdin=subprocess.PIPE, stdout=self.log, stderr=self.log, env=env,
                                     **handover.popen)
        os.close(wfd)
        self._reader: PipeReader | None = self.processes.reader(rfd)
        self._buf = b""
        job: Job = {"process": process, "settings": settings, "runner": runner, "git_commit": envinfo.git_commit()}
        self._write(job)
        self.env: Environment | None = None
        self.env_id: str | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _write(self, msg: Job | Command) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # the worker is gone; reading its answer finds the end of its pipe

    def ready(self) -> Ready:
        """Wait for the worker's "ready" message (TensorFlow imported)."""
        msg = self._read(time.monotonic() + GRACE_S)
        if "type" not in msg or msg["type"] != "ready":
            self._fail("eof")
        self.env = msg["env"]
        return msg

    def request(self, cmd: Command, timeout_s: float) -> Answer:
        """Send one command and return its answer; raise WorkerGone when none comes
        (reason "exited" when the worker had already exited before the command was sent)."""
        if self.proc.poll() is not None:
            self._fail("exited")
        self._write(cmd)
        return self._read(time.monotonic() + timeout_s)

    def _read(self, deadline: float) -> Answer:
        while True:
            if b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                msg: Answer = json.loads(line)          # one of the worker's answers (worker.serve)
                return msg
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail("timeout")
            if self.memory_limit_mb and (_rss_mb(self.proc.pid) or 0.0) > self.memory_limit_mb:
                self._fail("memory")
            chunk = self._reader.read(min(remaining, 0.25)) if self._reader is not None else None
            if chunk is not None:
                if not chunk:
                    self._fail("eof")
                self._buf += chunk

    def _fail(self, reason: str) -> NoReturn:
        self.kill()
        raise WorkerGone(reason, self.tail(), self.proc.returncode)

    def tail(self, chars: int = 3000) -> str:
        try:
            self.log.seek(0)
            return self.log.read().decode("utf-8", "replace")[-chars:]
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.processes.kill(self.proc)
        self.proc.wait()
        self._close_pipes()

    def close(self) -> None:
        """End the worker: closing its stdin tells it the parent is done."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def _close_pipes(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        self.log.close()


class Pool:
    """Live workers by settings group (its ``group_key``), least recently used evicted
    first when a new group needs room."""

    def __init__(self, python: str, runner: str, memory_limit_mb: int | None, max_live: int,
                 processes: Processes | None = None) -> None:
        self.python, self.runner, self.memory_limit_mb = python, runner, memory_limit_mb
        self.processes = processes
        self.max_live = max(1, max_live)
        self.live: OrderedDict[str, WorkerHandle] = OrderedDict()

    def get(self, group: str, process: ProcessSettings, settings: dict[str, str],
            keep: frozenset[str] = frozenset()) -> tuple[WorkerHandle, bool]:
        """The group's worker, started if needed (``True`` when new: wait for its ready)."""
        if group in self.live:
            self.live.move_to_end(group)
            return self.live[group], False
        for old in [g for g in self.live if g not in keep]:
            if len(self.live) < self.max_live:
                break
            self.live.pop(old).close()
        handle = WorkerHandle(self.python, process, settings, self.runner, self.memory_limit_mb, self.processes)
        self.live[group] = handle
        return handle, True

    def retain(self, groups: set[str]) -> None:
        """Close the workers of every other group (an idle worker holds its memory)."""
        for g in [g for g in self.live if g not in groups]:
            self.live.pop(g).close()

    def discard(self, group: str) -> None:
        handle = self.live.pop(group, None)
        if handle is not None:
            handle.kill()

    def pids(self) -> list[int]:
        return [h.pid for h in self.live.values()]

    def close_all(self, kill: bool = False) -> None:
        while self.live:
            _, handle = self.live.popitem()
            handle.kill() if kill else handle.close()
