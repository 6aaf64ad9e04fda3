"""What the operating system says about this machine and our processes, read through psutil
on every platform (Linux, macOS, Windows): physical memory, a process's resident memory and
CPU time, the machine's busy CPU time, the load averages, whether a process still runs, and
killing a process with everything it started; and the workers' memory cap, a share of the
physical memory. Never imports TensorFlow.

On Linux psutil reads the kernel's own counters (``/proc/meminfo``'s MemTotal,
``/proc/<pid>/statm``'s resident pages, ``/proc/stat``, ``/proc/<pid>/stat``, ``getloadavg``),
so each figure equals what ``/proc`` shows; tests/test_machine.py compares them. A figure this platform or process cannot give is ``None``
(stored as unknown), never 0.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

import psutil

# Windows has no load average: psutil emulates one from a counter it samples every 5 seconds
# in a thread it starts on the first call, and answers (0.0, 0.0, 0.0) until then.
_LOAD_WARMUP_S = 5.0
_load_started: float | None = None


def memory_bytes() -> int | None:
    """The machine's physical memory in bytes."""
    try:
        return int(psutil.virtual_memory().total)
    except (OSError, psutil.Error, RuntimeError):
        return None


# A worker above this share of physical memory is killed and its case stored as crashed,
# before the kernel's OOM killer picks a process (possibly not ours) on a shared machine.
MEMORY_SHARE = 0.75


def default_memory_limit_mb() -> int | None:
    """MEMORY_SHARE of physical memory in MB; None (no cap) where the size is unknown."""
    total = memory_bytes()
    return int(total * MEMORY_SHARE / 2**20) if total is not None else None


def memory_limit(value: int | None) -> int | None:
    """--memory-limit-mb: None -> the default share of RAM; 0 -> no limit."""
    if value is None:
        return default_memory_limit_mb()
    return value or None


def rss_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid``; None when it is gone or unreadable."""
    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (OSError, psutil.Error):
        return None


# CPU times that are not busy time, or are counted inside another field already: Linux's
# guest time is inside user time (/proc/stat's first 8 fields are the rest), Windows'
# interrupt and DPC time inside system time.
_NOT_BUSY = frozenset({"idle", "iowait", "guest", "guest_nice", "interrupt", "dpc"})


def busy_cpu_s() -> float | None:
    """Seconds of CPU time the whole machine has spent busy (all cores, since boot): every
    kind of CPU time but idle and, where the platform counts it, waiting for I/O."""
    try:
        times = psutil.cpu_times()
    except (OSError, psutil.Error, RuntimeError):
        return None
    return sum(float(v) for k, v in times._asdict().items() if k not in _NOT_BUSY)


def process_cpu_s(pids: Iterable[int]) -> float:
    """User + system seconds of these processes and of their waited-for children (the
    platforms that count those: Linux); a process that is gone counts nothing."""
    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
        except (OSError, psutil.Error):
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def load_averages() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, rounded to 0.01; None where there are none yet
    (Windows' emulation in its first 5 seconds) or at all."""
    global _load_started
    if _load_started is None:
        _load_started = time.monotonic()
    try:
        load = psutil.getloadavg()
    except (OSError, psutil.Error, AttributeError, RuntimeError):
        return None
    if os.name == "nt" and time.monotonic() - _load_started < _LOAD_WARMUP_S and not any(load):
        return None
    return [round(x, 2) for x in load]


def is_running(proc: psutil.Process) -> bool:
    """Whether ``proc`` is still the process it was (not gone, not a zombie, its pid not
    reused by another). A process psutil may not look at counts as running: the parent
    watch must never end the worker of a parent that is alive."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except (OSError, psutil.Error):
        return True


def parent() -> psutil.Process | None:
    """This process's parent, to watch with :func:`is_running`; None when it is unknown."""
    try:
        return psutil.Process(os.getppid())
    except (OSError, psutil.Error):
        return None


def kill_tree(pid: int) -> None:
    """Kill process ``pid`` and every process it started, children first, so that none is
    left running. A process already gone is skipped."""
    try:
        root = psutil.Process(pid)
        tree = [*root.children(recursive=True), root]
    except (OSError, psutil.Error):
        return
    for p in reversed(tree[:-1]):
        try:
            p.kill()
        except (OSError, psutil.Error):
            pass
    try:
        root.kill()
    except (OSError, psutil.Error):
        pass
