"""Runner hygiene: how busy the machine was around a scenario, apart from the scenario.

Before and after each scenario: the load averages, the CPU frequency and governor where
the kernel shows them, the machine's busy CPU time (/proc/stat) and the CPU time of our
own processes (the parent and its workers, /proc/<pid>/stat). The busy time nobody of
ours used, per core and second, is what someone else took from the machine: a scenario
where it exceeds ``OTHERS_LIMIT`` is flagged. (A load average above the core count is no
sign here: one TensorFlow worker running two threads alone gives a load of 2 on 2 cores.)
No TensorFlow, no processes of its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from ..store.record_types import MachineState


class Snapshot(MachineState):
    """The machine state stored with a scenario, and the raw counters ``others_share`` compares."""

    _t: float                     # time.monotonic()
    _busy: float | None           # machine_busy_s
    _ours: float                  # process_cpu_s of this process and its workers

CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")
PROC = Path("/proc")

# Flag a scenario when others used more than this share of the machine's cores.
OTHERS_LIMIT = 0.10


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _ticks() -> float:
    return float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0


def machine_busy_s(proc: Path = PROC) -> float | None:
    """Seconds of CPU time the whole machine has spent busy since boot (all cores)."""
    text = _read(proc / "stat")
    if not text or not text.startswith("cpu "):
        return None
    fields = [int(x) for x in text.splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)       # idle + iowait
    busy = sum(fields[:8]) - idle                                   # guest time is inside user time
    return busy / _ticks()


def process_cpu_s(pids: Iterable[int], proc: Path = PROC) -> float:
    """User + system seconds of these processes and their waited-for children."""
    total = 0.0
    for pid in pids:
        text = _read(proc / str(pid) / "stat")
        if not text:
            continue
        fields = text.rsplit(")", 1)[-1].split()
        # after the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
        total += sum(int(x) for x in fields[11:15]) / _ticks()
    return total


def snapshot(pids: Iterable[int] = (), cpufreq: Path = CPUFREQ, proc: Path = PROC) -> Snapshot:
    """Load averages (1, 5, 15 min), governor and frequency (MHz) where readable, and the
    CPU-time counters that :func:`others_share` compares."""
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = None
    khz = _read(cpufreq / "scaling_cur_freq")
    return {"load": load, "governor": _read(cpufreq / "scaling_governor"),
            "freq_mhz": round(int(khz) / 1000) if khz and khz.isdigit() else None,
            "_t": time.monotonic(), "_busy": machine_busy_s(proc),
            "_ours": process_cpu_s([os.getpid(), *pids], proc)}


def others_share(before: Snapshot, after: Snapshot, cores: int) -> float | None:
    """The share of the machine's cores that processes other than ours kept busy between
    two snapshots (0.0: nobody else; 1.0: every core all the time)."""
    busy_before, busy_after = before.get("_busy"), after.get("_busy")
    if busy_before is None or busy_after is None:
        return None
    elapsed = after["_t"] - before["_t"]
    if elapsed <= 0:
        return None
    others = (busy_after - busy_before) - (after["_ours"] - before["_ours"])
    share: float = round(max(0.0, others) / (elapsed * max(cores, 1)), 4)
    return share


def public(snap: Snapshot) -> MachineState:
    """The snapshot as stored (without its raw counters)."""
    return {"load": snap.get("load"), "governor": snap.get("governor"), "freq_mhz": snap.get("freq_mhz")}
