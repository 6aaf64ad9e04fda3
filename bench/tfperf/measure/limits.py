"""The memory cap of worker processes (no TensorFlow here)."""

from __future__ import annotations

import os

# A worker above this share of physical memory is killed and its case stored as crashed,
# before the kernel's OOM killer picks a process (possibly not ours) on a shared machine.
MEMORY_SHARE = 0.75


def default_memory_limit_mb() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * MEMORY_SHARE / 2**20)
    except (ValueError, OSError, AttributeError):
        return None


def memory_limit(value: int | None) -> int | None:
    """--memory-limit-mb: None -> the default share of RAM; 0 -> no limit."""
    if value is None:
        return default_memory_limit_mb()
    return value or None
