"""Reading a file that may be hostile: a regular file only, at most a given number of bytes.

A path named ``*.json`` or ``*.yaml`` can be anything: a symbolic link to ``/etc/passwd``
or ``/proc/self/environ`` (whose bytes would then be read and published as if they were
the file's), a link to ``/dev/zero`` (which never ends), a FIFO (which blocks the reader
forever), a directory, or a link to nothing. :func:`read_regular` reads only a regular
file, never through a symbolic link unless asked, and never more than ``limit`` bytes; any
other path is an error that says what the path is. The caller gives the error to raise
(its own kind, naming its file), so every reader reports alike.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from ...errors import TfperfError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a directory", "a FIFO (named pipe)")."""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def what_is(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (not following a symbolic link): "a
    symbolic link to /etc/passwd", "a directory"...; None for a regular file. Raises
    ``OSError`` (``FileNotFoundError``: nothing there) as ``os.lstat`` does."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            return "a symbolic link"
        dangling = "" if os.path.exists(path) else ", which does not exist"
        return f"a symbolic link to {target}{dangling}"
    return None if stat.S_ISREG(st.st_mode) else kind(st.st_mode)


def size_text(n: float) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def read_regular(path: str | Path, limit: int, error: Callable[[str], TfperfError], *,
                 follow_links: bool = False, too_large_hint: str = "") -> bytes:
    """The bytes of the regular file ``path``, or ``error(problem)`` raised: a symbolic link
    (unless ``follow_links``), a directory, a FIFO, a device, a missing or unreadable file,
    more than ``limit`` bytes (``too_large_hint`` ends that message). A FIFO or a device
    is never opened for reading, so nothing blocks or runs on forever."""
    p = Path(path)
    try:
        odd = None if follow_links else what_is(p)
        if odd is None:
            st = os.stat(p)
            odd = None if stat.S_ISREG(st.st_mode) else kind(st.st_mode)
        if odd is not None:
            raise error(f"is {odd}: only regular files are read")
        nofollow = 0 if follow_links else getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | nofollow)
    except OSError as exc:
        if exc.errno == errno.ELOOP:            # replaced by a link since the check
            raise error("is a symbolic link: only regular files are read") from None
        raise error(f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):    # replaced since the check
                raise error(f"is {kind(st.st_mode)}: only regular files are read")
            if st.st_size > limit:
                raise error(f"is {size_text(st.st_size)}; the limit is {size_text(limit)}{too_large_hint}")
            data = fh.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:                       # grew while it was read
        raise error(f"is over {size_text(limit)}, the limit{too_large_hint}")
    return data
