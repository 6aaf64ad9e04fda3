"""The negative controls of each runner: how far apart two worker processes with the same
settings landed.

A control (a topic's ``controls:``) pairs two settings groups that must measure the same,
such as ``threads=<cores>`` and TensorFlow's default threads, each in a worker process of
its own. A scenario's rounds all run in one set of processes, and its A/A pair in one
process, so a bias that a process brings with it (its memory layout, where its threads
land) is in none of its intervals; the controls are where it shows. When a control's
interval lies beyond its margin, the claims that compare that scenario's settings groups
are unclear (``judge.claims``); this view gathers every control of a runner, failed or
not, for the How we measure page and ``scripts/method_report.py``.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from ..dataset import Dataset
from ..judge.scenarios import ControlResult, controls_for
from ..judge.scenarios import index as control_index


@dataclass(frozen=True)
class RunnerControls:
    """Every control measured on one runner (its current results)."""

    runner: str
    results: tuple[ControlResult, ...]

    @property
    def gaps(self) -> list[float]:
        """How far each control's ratio lies from 1 (0.075: the two processes 7.5% apart)."""
        return [abs(r.ratio.point - 1) for r in self.results]

    @property
    def median_gap(self) -> float:
        return statistics.median(self.gaps)

    @property
    def widest(self) -> ControlResult:
        return max(self.results, key=lambda r: abs(r.ratio.point - 1))

    @property
    def failed(self) -> list[ControlResult]:
        return [r for r in self.results if r.failed]


def controls_by_runner(ds: Dataset) -> list[RunnerControls]:
    """The controls each runner measured, runner by runner (those with none left out), in
    the order of the topics and of the current results."""
    by = control_index(ds.current)
    found: dict[str, list[ControlResult]] = defaultdict(list)
    for topic, info in sorted(ds.topics.items()):
        for c in info.controls:
            same_as = {str(k): str(v) for k, v in c["same_as"].items()}
            for m in ds.current:
                if m.topic != topic or m.variant != str(c["variant"]) or not m.ok \
                        or any(m.settings.get(k) != v for k, v in same_as.items()):
                    continue
                found[m.runner].extend(controls_for(m, [c], by, ds.noise, ds.cache))
    return [RunnerControls(runner, tuple(results)) for runner, results in sorted(found.items()) if results]
