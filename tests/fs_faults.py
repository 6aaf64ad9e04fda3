"""A file system fault a test can make without a privileged mount: a folder in which
nothing can be created, even by root."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# What the operating system says when a file cannot be created in such a folder: a mode
# stops a user (EACCES); the immutable attribute stops root (EPERM).
REFUSED = "Operation not permitted" if os.geteuid() == 0 else "Permission denied"


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """In the body, no file can be created, renamed or removed in ``folder``: its mode is
    0555, or, for root (whom a mode does not stop), it has the immutable attribute
    (``chattr +i``; the test is skipped where the file system or the container does not
    allow it). Files already there keep their bytes."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], check=False, capture_output=True).returncode != 0:
        pytest.skip("running as root, and chattr +i cannot make a folder read-only here")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True, capture_output=True)
