"""Runner hygiene: how busy the machine was around a scenario, apart from the scenario.

Before and after each scenario: the load averages, the CPU frequency and governor where
the kernel shows them (Linux's cpufreq), the machine's busy CPU time and the CPU time of our
own processes (the parent and its workers), all but the frequency through psutil
(``machine``), so Linux, macOS and Windows record them alike. The busy time nobody of ours
used, per core and second, is what someone else took from the machine: a scenario where it
exceeds ``OTHERS_LIMIT`` is flagged. (A load average above the core count is no sign here:
one TensorFlow worker running two threads alone gives a load of 2 on 2 cores.) No
TensorFlow, no processes of its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from ...store.record_types import MachineState
from . import machine


class Snapshot(MachineState):
    """The machine state stored with a scenario, and the raw counters ``others_share`` compares."""

    _t: float                     # time.monotonic()
    _busy: float | None           # machine_busy_s
    _ours: float                  # process_cpu_s of this process and its workers

CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")

# Flag a scenario when others used more than this share of the machine's cores.
OTHERS_LIMIT = 0.10


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def snapshot(pids: Iterable[int] = (), cpufreq: Path = CPUFREQ) -> Snapshot:
    """Load averages (1, 5, 15 min), governor and frequency (MHz) where readable, and the
    CPU-time counters that :func:`others_share` compares."""
    khz = _read(cpufreq / "scaling_cur_freq")
    return {"load": machine.load_averages(), "governor": _read(cpufreq / "scaling_governor"),
            "freq_mhz": round(int(khz) / 1000) if khz and khz.isdigit() else None,
            "_t": time.monotonic(), "_busy": machine.busy_cpu_s(),
            "_ours": machine.process_cpu_s([os.getpid(), *pids])}


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
