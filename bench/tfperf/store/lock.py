"""An exclusive inter-process lock for one results file (a sibling ``.lock`` file).

``fcntl.flock`` is released by the kernel when the holder exits, even by SIGKILL, so a
crashed writer never leaves a stale lock. The ``.lock`` file is left in place (deleting
it would let two processes lock two different files of the same name); git ignores it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking, single writer assumed
    fcntl = None  # type: ignore[assignment]


def lock_path(path: str | Path) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".lock")


@contextmanager
def locked(path: str | Path) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (blocking until it is free) for the ``with`` body."""
    lp = lock_path(path)
    lp.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lp, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield Path(path)
    finally:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
