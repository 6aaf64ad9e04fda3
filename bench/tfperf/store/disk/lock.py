"""An exclusive inter-process lock for one results file (a sibling ``.lock`` file).

On POSIX, ``fcntl.flock`` of the whole ``.lock`` file; on Windows, which has no ``fcntl``,
``msvcrt.locking`` of its first byte (:mod:`tfperf.store.disk.windows_locks`). Either is
released by the operating system when the holder exits, even when it is killed, so a
crashed writer never leaves a stale lock. The ``.lock`` file is left in place (deleting
it would let two processes lock two different files of the same name); git ignores it.

:data:`LOCKING` is chosen here, once, by platform; the tests set it to the Windows kind
with a stand-in ``msvcrt`` to run that path on Linux.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .files import write_error
from .windows_locks import ByteLocks, load

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: LOCKING is the msvcrt kind (below)
    fcntl = None  # type: ignore[assignment]


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
    return FirstByte(ByteLocks(load())) if os.name == "nt" else Flock()


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
