"""File system faults a test can make without a privileged mount: a folder that cannot be
written, even by root, and a shared temporary folder for it."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _nobody() -> int:
    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        return 65534


@contextmanager
def shared_tmp() -> Iterator[Path]:
    """A temporary folder that other users may enter and read: pytest's own belong to the
    user alone, which would stop ``nobody`` (see :func:`read_only`) before the folder a test
    makes read-only."""
    d = Path(tempfile.mkdtemp(prefix="tfperf-fs-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """In the body, nothing can be created in ``folder``: its mode is 0555 and, when the
    tests run as root (whom a mode does not stop), the body runs with the effective user
    id of ``nobody``, so every folder above must let others in (:func:`shared_tmp`)."""
    mode = folder.stat().st_mode
    folder.chmod(0o555)
    as_root = os.geteuid() == 0
    try:
        if as_root:
            os.seteuid(_nobody())
        yield
    finally:
        if as_root:
            os.seteuid(0)
        folder.chmod(mode)
