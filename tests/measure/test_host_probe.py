"""The host probe (``measure.host_probe``): the median of its timed runs after one not
counted, with a fake clock; and the real work, once, at its real size (a few milliseconds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfperf.measure import host_probe
from tfperf.measure.supervise import records


def test_the_probe_is_the_median_of_its_runs_after_a_warm_up() -> None:
    calls: list[int] = []

    def job(a: np.ndarray, b: np.ndarray) -> None:
        calls.append(len(a) + len(b))

    # five timed runs of 3, 1, 2, 9 and 2 ms: the median is 2 ms; the warm-up is not timed
    ticks = iter([0.0, 0.003, 1.0, 1.001, 2.0, 2.002, 3.0, 3.009, 4.0, 4.002])
    assert host_probe.probe_ms(clock=lambda: next(ticks), repeats=5, job=job) == pytest.approx(2.0)
    assert len(calls) == 6 and set(calls) == {host_probe.SORTED + host_probe.EXP}


def test_the_work_is_the_same_every_time_and_takes_milliseconds() -> None:
    a, b = host_probe._data()
    assert host_probe.work(a, b) == host_probe.work(*host_probe._data())      # fixed data, fixed work
    ms = host_probe.probe_ms()
    assert 0 < ms < 1000


def test_a_scenario_record_keeps_the_probe(tmp_path: Path) -> None:
    snap = records.snapshot(cpufreq=tmp_path / "none", probe=lambda: 12.5)
    assert records.public(snap)["probe_ms"] == 12.5
