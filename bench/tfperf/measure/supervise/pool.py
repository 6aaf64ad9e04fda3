"""The parent's side of the worker processes: one live worker per settings group, kept
alive across the scenarios that need it, at most ``max_live`` at once.

A worker is asked one command at a time (:meth:`WorkerHandle.request`) under a deadline;
a worker that hangs, dies or grows past the memory cap (its resident memory, read through
psutil on every platform) raises :class:`WorkerGone` with
the tail of its log, and is killed. How a worker gets its pipe, how the parent waits on
it and how a worker is killed depend on the platform (:mod:`tfperf.measure.supervise.processes`,
chosen once in :data:`PROCESSES`). Never imports TensorFlow.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import IO, NoReturn, cast

from ...store.record_types import Environment, ProcessSettings
from ..env import envinfo, machine
from ..worker.protocol import Answer, Command, Job, Ready
from .processes import PipeReader, Processes, for_platform

# Time a worker may take outside any case (importing TensorFlow) before it counts as hung.
GRACE_S = 120.0

# What one live TensorFlow worker may hold (the import alone is about 0.5 GB; a prepared
# convnet or a converted model adds to it): the pool keeps at most
# MEMORY_FOR_WORKERS of physical memory / WORKER_MB workers alive.
WORKER_MB = 1024
MEMORY_FOR_WORKERS = 0.6

# This platform's way with worker processes (the tests set another, to run Windows' pipe
# reader and kill on Linux).
PROCESSES: Processes = for_platform()


def default_max_live(worker_mb: int = WORKER_MB) -> int:
    """How many workers fit in memory at once (at least 2: a baseline and one other)."""
    total = machine.memory_bytes()
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
    rss = machine.rss_bytes(pid)
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
        if msg.get("type") != "ready":
            self._fail("eof")
        ready = cast(Ready, msg)
        self.env = ready["env"]
        return ready

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
