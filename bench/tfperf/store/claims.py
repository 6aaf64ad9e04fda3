"""Which ``tfperf run`` is measuring which scenario of a results file, so that two runs on
one file share the work instead of measuring a case twice (and then refusing, or
doubling, its result).

A claim is a POSIX record lock (``fcntl.lockf``) on one byte of a sibling ``.claims``
file, at an offset derived from the scenario's id. Like the file's ``.lock``, the kernel
releases it when its holder exits, even by SIGKILL, so no claim outlives its run; and one
file holds every claim, so nothing is created per scenario and nothing needs cleaning up.
Claims only steer the work: after taking one, a run reads the results file again and
skips what another run stored meanwhile (:mod:`tfperf.measure.cooperate`).

POSIX record locks belong to a process, not to a file descriptor: two claims on one
scenario from the same process do not exclude each other, and closing any descriptor of
the ``.claims`` file would drop them all, so one :class:`Claims` per run holds the only one.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from types import TracebackType
from typing import final

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no claims, a single run per file assumed
    fcntl = None  # type: ignore[assignment]

_SLOTS = 2**30          # offsets stay within a 32-bit off_t


def claims_path(path: str | Path) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".claims")


def _offset(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % _SLOTS


@final
class Claims:
    """The claims of one run on one results file (``path`` is the results file)."""

    def __init__(self, path: str | Path) -> None:
        self.path = claims_path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
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
        if key in self._held and self._fd is not None and fcntl is not None:
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, _offset(key))
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
        if fcntl is None or self._fd is None:
            return True
        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB), 1, _offset(key))
        except OSError as exc:
            if not wait and exc.errno in (errno.EACCES, errno.EAGAIN):
                return False
            raise
        return True
