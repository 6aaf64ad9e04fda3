"""Which ``tfperf run`` is measuring which scenario of a results file, so that two runs on
one file share the work instead of measuring a case twice (and then refusing, or
doubling, its result).

A claim is a lock on one byte of a sibling ``.claims`` file, at an offset derived from
the scenario's id: a POSIX record lock (``fcntl.lockf``), or on Windows ``msvcrt.locking``
(:class:`tfperf.store.lock.ByteLocks`; :data:`RECORD_LOCKS` is chosen once, by platform). Like
the file's ``.lock``, the operating system releases it when its holder exits, even when it
is killed, so no claim outlives its run; and one file holds every claim, so nothing is
created per scenario and nothing needs cleaning up.
Claims only steer the work: after taking one, a run reads the results file again and
skips what another run stored meanwhile (:mod:`tfperf.measure.supervise.orchestrate`).

POSIX record locks belong to a process, not to a file descriptor: two claims on one
scenario from the same process do not exclude each other, and closing any descriptor of
the ``.claims`` file would drop them all, so one :class:`Claims` per run holds the only one.
A Windows lock belongs to the handle instead, and the same handle cannot take it twice:
a key this run holds is taken again at once without asking the operating system.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sys
from pathlib import Path
from types import TracebackType
from typing import Protocol, final

from .files import write_error
from .lock import ByteLocks, load

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: RECORD_LOCKS is the msvcrt kind (below)
    fcntl = None  # type: ignore[assignment]

_SLOTS = 2**30          # offsets stay within a 32-bit off_t


class RecordLocks(Protocol):
    """Locks on single bytes of one open file, exclusive between processes."""

    def take(self, fd: int, offset: int, wait: bool) -> bool: ...

    def release(self, fd: int, offset: int) -> None: ...


class Lockf:
    """POSIX: ``fcntl.lockf`` record locks (held by the process)."""

    def take(self, fd: int, offset: int, wait: bool) -> bool:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB), 1, offset)
        except OSError as exc:
            if not wait and exc.errno in (errno.EACCES, errno.EAGAIN):
                return False
            raise
        return True

    def release(self, fd: int, offset: int) -> None:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset)


def _for_platform() -> RecordLocks:
    return ByteLocks(load()) if sys.platform == "win32" else Lockf()


RECORD_LOCKS: RecordLocks = _for_platform()


def claims_path(path: str | Path) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".claims")


def _offset(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % _SLOTS


@final
class Claims:
    """The claims of one run on one results file (``path`` is the results file). A claims
    file that cannot be created (read-only folder, full disk) is a
    :class:`~tfperf.errors.ResultsWriteError` naming it, raised before anything is measured."""

    def __init__(self, path: str | Path) -> None:
        self.path = claims_path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:      # a read-only folder, a full disk: before anything is measured
            raise write_error(self.path, exc) from None
        self._fd: int | None = fd
        self._held: set[str] = set()

    def take(self, key: str) -> bool:
        """Claim ``key`` if no other process holds it; False (at once) when one does."""
        if self._lock(key, wait=False):
            self._held.add(key)
            return True
        return False

    def wait(self, key: str) -> None:
        """Claim ``key``, waiting as long as another process holds it. A signal handler
        that raises interrupts the wait."""
        self._lock(key, wait=True)
        self._held.add(key)

    def release(self, key: str) -> None:
        if key in self._held and self._fd is not None:
            RECORD_LOCKS.release(self._fd, _offset(key))
        self._held.discard(key)

    def close(self) -> None:
        """Drop every claim (closing the descriptor releases them all)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._held.clear()

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _lock(self, key: str, wait: bool) -> bool:
        if self._fd is None:
            return True
        if key in self._held:
            return True      # POSIX would grant it again; Windows would refuse this very handle
        return RECORD_LOCKS.take(self._fd, _offset(key), wait)
