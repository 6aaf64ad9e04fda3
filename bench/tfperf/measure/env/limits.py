"""The memory cap of worker processes (no TensorFlow here)."""

from __future__ import annotations

from . import machine

# A worker above this share of physical memory is killed and its case stored as crashed,
# before the kernel's OOM killer picks a process (possibly not ours) on a shared machine.
MEMORY_SHARE = 0.75


def default_memory_limit_mb() -> int | None:
    """MEMORY_SHARE of physical memory in MB; None (no cap) where the size is unknown."""
    total = machine.memory_bytes()
    return int(total * MEMORY_SHARE / 2**20) if total is not None else None


def memory_limit(value: int | None) -> int | None:
    """--memory-limit-mb: None -> the default share of RAM; 0 -> no limit."""
    if value is None:
        return default_memory_limit_mb()
    return value or None
