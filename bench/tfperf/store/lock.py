"""An exclusive inter-process lock for one results file (a sibling ``.lock`` file), and the
Windows one-byte locks that it and :mod:`tfperf.store.claims` take.

On POSIX, ``fcntl.flock`` of the whole ``.lock`` file; on Windows, which has no ``fcntl``,
``msvcrt.locking`` of its first byte (:class:`ByteLocks`, below). Either is
released by the operating system when the holder exits, even when it is killed, so a
crashed writer never leaves a stale lock. The ``.lock`` file is left in place (deleting
it would let two processes lock two different files of the same name); git ignores it.

:data:`LOCKING` is chosen here, once, by platform; the tests set it to the Windows kind
with a stand-in ``msvcrt`` to run that path on Linux.

Windows' file locks, which this module and :mod:`tfperf.store.claims` use where POSIX has
``fcntl``, are :class:`ByteLocks`: ``msvcrt.locking(fd, mode, n)`` locks ``n`` bytes from
the descriptor's current position, also past the end of the file (the ``.lock`` and
``.claims`` files stay empty). Windows releases a process's locks when it exits, also when
it is killed, as the kernel releases ``flock``/``lockf`` locks on POSIX. Two differences
the callers must mind:

* a Windows lock belongs to the open handle, not to the process: the same process cannot
  take one region twice (a second take fails, and a blocking one would wait for itself),
  so the callers keep track of what they hold;
* ``LK_LOCK`` gives up after about 10 s (ten tries a second apart), so a blocking lock here
  tries ``LK_NBLCK`` again every ``retry_s`` for as long as it takes (a signal handler
  that raises interrupts the wait, as it interrupts ``flock``).

The ``msvcrt`` module is passed in (:func:`load` gives the real one), so the tests run this
path on Linux with a stand-in (tests/fake_msvcrt.py).
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .files import write_error

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: LOCKING is the msvcrt kind (below)
    fcntl = None  # type: ignore[assignment]


# -- Windows: msvcrt.locking of one byte -----------------------------------------------------

# What msvcrt.locking raises for a region another handle holds: EACCES with LK_NBLCK,
# EDEADLOCK once LK_LOCK has given up.
_HELD = {errno.EACCES, errno.EDEADLK, getattr(errno, "EDEADLOCK", errno.EDEADLK)}


class Msvcrt(Protocol):
    """The part of the ``msvcrt`` module used here."""

    LK_NBLCK: int
    LK_UNLCK: int

    def locking(self, fd: int, mode: int, nbytes: int, /) -> None: ...


def load() -> Msvcrt:
    """The real ``msvcrt`` (Windows only: ImportError elsewhere)."""
    if sys.platform != "win32":
        raise ImportError("msvcrt is a Windows module")
    import msvcrt

    return msvcrt


@dataclass(frozen=True)
class ByteLocks:
    """One-byte locks at given offsets of an open file."""

    msvcrt: Msvcrt
    retry_s: float = 0.05

    def take(self, fd: int, offset: int, wait: bool) -> bool:
        """Lock the byte at ``offset``; False at once when another handle holds it and
        ``wait`` is false, else wait until it is free."""
        while True:
            os.lseek(fd, offset, os.SEEK_SET)
            try:
                self.msvcrt.locking(fd, self.msvcrt.LK_NBLCK, 1)
            except OSError as exc:
                if exc.errno not in _HELD:
                    raise
                if not wait:
                    return False
                time.sleep(self.retry_s)
            else:
                return True

    def release(self, fd: int, offset: int) -> None:
        """Unlock the byte at ``offset`` (which this handle holds)."""
        os.lseek(fd, offset, os.SEEK_SET)
        self.msvcrt.locking(fd, self.msvcrt.LK_UNLCK, 1)


# -- the lock of one results file ---------------------------------------------------------

class Locking(Protocol):
    """How a process holds a whole file's lock through one open descriptor."""

    def acquire(self, fd: int) -> None: ...

    def release(self, fd: int) -> None: ...


class Flock:
    """POSIX: ``flock`` on the descriptor's open file."""

    def acquire(self, fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def release(self, fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@dataclass(frozen=True)
class FirstByte:
    """Windows: ``msvcrt.locking`` of byte 0, retried until it is free."""

    locks: ByteLocks

    def acquire(self, fd: int) -> None:
        self.locks.take(fd, 0, wait=True)

    def release(self, fd: int) -> None:
        self.locks.release(fd, 0)


def _for_platform() -> Locking:
    return FirstByte(ByteLocks(load())) if sys.platform == "win32" else Flock()


LOCKING: Locking = _for_platform()


def lock_path(path: str | Path) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".lock")


@contextmanager
def locked(path: str | Path) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (blocking until it is free) for the ``with`` body.
    A lock file that cannot be created (read-only folder, full disk) is a
    :class:`~tfperf.errors.ResultsWriteError` naming it."""
    lp = lock_path(path)
    try:
        lp.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lp, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:          # a read-only folder, a full disk: the user's to fix
        raise write_error(lp, exc) from None
    try:
        LOCKING.acquire(fd)
        try:
            yield Path(path)
        finally:
            LOCKING.release(fd)
    finally:
        os.close(fd)
