"""A stand-in for Windows' ``msvcrt.locking`` on Linux, so that the store's Windows locks
(tfperf.store.lock.ByteLocks) run here, between real processes too.

Like the real one, ``locking(fd, mode, n)`` locks ``n`` bytes from the descriptor's current
position and raises OSError(EACCES) for a region that is held, and a lock belongs to the
open descriptor: the same process cannot take a region twice, not even through the same
descriptor (POSIX record locks would grant it, Windows does not). Between processes the
regions are POSIX record locks (``fcntl.lockf``), which the kernel releases when the holder
exits, as Windows does; within the process, a region whose descriptor was closed is free
again, as on Windows. Unlocking a region that is not held raises, as on Windows.

``calls`` records every call as (mode name, offset, nbytes), for tests that check which
bytes were locked.
"""

from __future__ import annotations

import errno
import fcntl
import os
from types import ModuleType

LK_UNLCK, LK_LOCK, LK_NBLCK, LK_RLCK, LK_NBRLCK = 0, 1, 2, 3, 4      # msvcrt's values
_NAMES = {LK_UNLCK: "unlock", LK_LOCK: "lock", LK_NBLCK: "nblock"}


def _same_file(fd: int, st: os.stat_result) -> bool:
    """Whether ``fd`` is still open on that file (closing a handle drops its locks)."""
    try:
        now = os.fstat(fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


def make() -> ModuleType:
    """A fresh module object with the constants and ``locking``."""
    module = ModuleType("msvcrt")
    held: dict[tuple[int, int, int], int] = {}       # (st_dev, st_ino, offset) -> fd
    calls: list[tuple[str, int, int]] = []

    def locking(fd: int, mode: int, nbytes: int) -> None:
        offset = os.lseek(fd, 0, os.SEEK_CUR)
        st = os.fstat(fd)
        region = (st.st_dev, st.st_ino, offset)
        calls.append((_NAMES.get(mode, str(mode)), offset, nbytes))
        if mode == LK_UNLCK:
            if held.get(region) != fd:
                raise OSError(errno.EACCES, "Permission denied (not locked by this handle)")
            del held[region]
            fcntl.lockf(fd, fcntl.LOCK_UN, nbytes, offset)
            return
        if mode != LK_NBLCK:
            raise NotImplementedError(f"fake msvcrt: mode {mode}")
        if region in held and _same_file(held[region], st):
            raise OSError(errno.EACCES, "Permission denied (held by a handle of this process)")
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, nbytes, offset)
        except OSError as exc:
            raise OSError(errno.EACCES, "Permission denied (held by another process)") from exc
        held[region] = fd

    module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK = LK_UNLCK, LK_LOCK, LK_NBLCK
    module.LK_RLCK, module.LK_NBRLCK = LK_RLCK, LK_NBRLCK
    module.locking = locking
    module.calls = calls
    module.held = held
    return module


# Python run first in a child process so that it takes the store's locks the Windows way,
# through this stand-in (test_windows_store_locks.py, test_store_faults.py).
CHILD_PRELUDE = """
import fake_msvcrt
from tfperf.store import claims, lock
from tfperf.store.lock import ByteLocks
locks = ByteLocks(fake_msvcrt.make(), retry_s=0.01)
lock.LOCKING = lock.FirstByte(locks)
claims.RECORD_LOCKS = locks
"""
