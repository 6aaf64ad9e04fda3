"""Windows' file locks for the store: ``msvcrt.locking`` on one byte of an open file, which
:mod:`tfperf.store.disk.lock` and :mod:`tfperf.store.disk.claims` use where POSIX has ``fcntl``.

``msvcrt.locking(fd, mode, n)`` locks ``n`` bytes from the descriptor's current position,
also past the end of the file (the ``.lock`` and ``.claims`` files stay empty). Windows
releases a process's locks when it exits, also when it is killed, as the kernel releases
``flock``/``lockf`` locks on POSIX. Two differences the callers must mind:

* a Windows lock belongs to the open handle, not to the process: the same process cannot
  take one region twice (a second take fails, and a blocking one would wait for itself),
  so the callers keep track of what they hold;
* ``LK_LOCK`` gives up after about 10 s (ten tries a second apart), so a blocking lock here
  tries ``LK_NBLCK`` again every ``retry_s`` for as long as it takes (a signal handler
  that raises interrupts the wait, as it interrupts ``flock``).

The module is passed in (:func:`load` gives the real one), so the tests run this path on
Linux with a stand-in (tests/fake_msvcrt.py).
"""

from __future__ import annotations

import errno
import importlib
import os
import time
from dataclasses import dataclass
from typing import Protocol, cast

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
    return cast(Msvcrt, importlib.import_module("msvcrt"))


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
