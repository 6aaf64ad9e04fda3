"""How the parent hands a worker its message pipe, waits on that pipe and kills the worker:
the POSIX way and the Windows way, chosen once by platform (:func:`for_platform`; the
pool reads :data:`tfperf.measure.supervise.pool.PROCESSES`). Never imports TensorFlow.

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
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from ..env import machine

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
    psutil (``machine.kill_tree``: TerminateProcess / SIGKILL each), then the worker again
    through its Popen, which also covers a worker psutil could not read."""
    machine.kill_tree(proc.pid)
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
