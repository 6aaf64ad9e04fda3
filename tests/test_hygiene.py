"""Runner hygiene from fake /proc and /sys trees (no processes, no TensorFlow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfperf.measure import hygiene


def _proc(root: Path, busy: int, idle: int, ours: dict[int, int]) -> Path:
    (root / "proc").mkdir(parents=True, exist_ok=True)
    # user nice system idle iowait irq softirq steal
    (root / "proc" / "stat").write_text(f"cpu  {busy} 0 0 {idle} 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n")
    for pid, ticks in ours.items():
        (root / "proc" / str(pid)).mkdir(exist_ok=True)
        # pid (comm with ) inside) state ppid ... utime stime cutime cstime at fields 14-17
        (root / "proc" / str(pid) / "stat").write_text(
            f"{pid} (python (x)) S 1 1 1 0 -1 0 0 0 0 0 {ticks} 0 0 0 20 0 1 0\n")
    return root / "proc"


def test_others_share_is_busy_time_minus_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hygiene, "_ticks", lambda: 100.0)
    monkeypatch.setattr(hygiene.os, "getpid", lambda: 1)
    proc = _proc(tmp_path, busy=1000, idle=5000, ours={1: 100, 7: 300})
    before = hygiene.snapshot([7], cpufreq=tmp_path / "none", proc=proc)
    # 10 s later on 2 cores: the machine was busy 16 s more, of which ours 12 s.
    proc = _proc(tmp_path, busy=2600, idle=5400, ours={1: 200, 7: 1400})
    after = hygiene.snapshot([7], cpufreq=tmp_path / "none", proc=proc)
    before["_t"], after["_t"] = 0.0, 10.0
    assert hygiene.others_share(before, after, cores=2) == pytest.approx(4 / 20)
    assert set(hygiene.public(after)) == {"load", "governor", "freq_mhz"}


def test_nobody_else_and_unreadable_counters(tmp_path: Path) -> None:
    quiet = {"_t": 0.0, "_busy": 10.0, "_ours": 4.0}
    assert hygiene.others_share(quiet, {"_t": 5.0, "_busy": 20.0, "_ours": 14.0}, cores=2) == 0.0
    assert hygiene.others_share({"_t": 0.0, "_busy": None, "_ours": 0.0}, quiet, cores=2) is None
    assert hygiene.machine_busy_s(tmp_path / "absent") is None


def test_governor_and_frequency_where_readable(tmp_path: Path) -> None:
    freq = tmp_path / "cpufreq"
    freq.mkdir()
    (freq / "scaling_governor").write_text("performance\n")
    (freq / "scaling_cur_freq").write_text("2900000\n")
    snap = hygiene.snapshot(cpufreq=freq)
    assert snap["governor"] == "performance" and snap["freq_mhz"] == 2900
    assert hygiene.snapshot(cpufreq=tmp_path / "absent")["governor"] is None
