"""Runner hygiene from psutil's counters set by the test and fake /sys trees (no processes,
no TensorFlow). tests/measure/test_machine.py holds psutil's counters equal to /proc on Linux."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path
from typing import Any

import psutil
import pytest

from tfperf.measure.supervise import records as hygiene

CpuTimes = namedtuple("CpuTimes", "user nice system idle iowait irq softirq steal guest guest_nice")
ProcTimes = namedtuple("ProcTimes", "user system children_user children_system")


def _machine(monkeypatch: pytest.MonkeyPatch, busy: float, idle: float, ours: dict[int, float]) -> None:
    """psutil says: the machine was busy ``busy`` seconds (user time) and idle ``idle``; process
    ``pid`` used ``ours[pid]`` seconds."""
    monkeypatch.setattr(psutil, "cpu_times", lambda: CpuTimes(busy, 0.0, 0.0, idle, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))

    class Process:
        def __init__(self, pid: int) -> None:
            if pid not in ours:
                raise psutil.NoSuchProcess(pid)
            self.pid = pid

        def cpu_times(self) -> Any:
            return ProcTimes(ours[self.pid], 0.0, 0.0, 0.0)

    monkeypatch.setattr(psutil, "Process", Process)


def test_others_share_is_busy_time_minus_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hygiene.os, "getpid", lambda: 1)
    _machine(monkeypatch, busy=10.0, idle=50.0, ours={1: 1.0, 7: 3.0})
    before = hygiene.snapshot([7], cpufreq=tmp_path / "none")
    # 10 s later on 2 cores: the machine was busy 16 s more, of which ours 12 s.
    _machine(monkeypatch, busy=26.0, idle=54.0, ours={1: 2.0, 7: 14.0})
    after = hygiene.snapshot([7], cpufreq=tmp_path / "none")
    before["_t"], after["_t"] = 0.0, 10.0
    assert hygiene.others_share(before, after, cores=2) == pytest.approx(4 / 20)
    assert set(hygiene.public(after)) == {"load", "governor", "freq_mhz", "probe_ms"}


def test_a_worker_gone_meanwhile_counts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hygiene.os, "getpid", lambda: 1)
    _machine(monkeypatch, busy=10.0, idle=50.0, ours={1: 1.0})
    assert hygiene.snapshot([7], cpufreq=tmp_path / "none")["_ours"] == 1.0


def test_nobody_else_and_unreadable_counters() -> None:
    quiet = {"_t": 0.0, "_busy": 10.0, "_ours": 4.0}
    assert hygiene.others_share(quiet, {"_t": 5.0, "_busy": 20.0, "_ours": 14.0}, cores=2) == 0.0
    assert hygiene.others_share({"_t": 0.0, "_busy": None, "_ours": 0.0}, quiet, cores=2) is None


def test_a_window_too_short_for_the_kernels_ticks_tells_no_share() -> None:
    # A scenario whose cases are not available in that TensorFlow ends in 5 ms: one 10 ms
    # tick of someone else's time would read as 100% of the machine busy, and flag it.
    before = {"_t": 0.0, "_busy": 10.0, "_ours": 4.0}
    assert hygiene.others_share(before, {"_t": 0.005, "_busy": 10.01, "_ours": 4.0}, cores=2) is None
    assert hygiene.others_share(before, {"_t": 1.0, "_busy": 10.01, "_ours": 4.0}, cores=2) == 0.005


def test_governor_and_frequency_where_readable(tmp_path: Path) -> None:
    freq = tmp_path / "cpufreq"
    freq.mkdir()
    (freq / "scaling_governor").write_text("performance\n")
    (freq / "scaling_cur_freq").write_text("2900000\n")
    snap = hygiene.snapshot(cpufreq=freq)
    assert snap["governor"] == "performance" and snap["freq_mhz"] == 2900
    assert hygiene.snapshot(cpufreq=tmp_path / "absent")["governor"] is None
