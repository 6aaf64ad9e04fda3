"""A profile's time budget for one case. Its own module because the worker imports it:
everything the worker imports must need nothing beyond the standard library, numpy and
TensorFlow (the worker may run in another TensorFlow version's venv, see
``tfperf.measure.venvs``), and ``tfperf.cases`` needs PyYAML."""

from __future__ import annotations

from dataclasses import dataclass

from .stats import StopRule


@dataclass(frozen=True)
class Budget:
    min_samples: int
    max_samples: int
    target_rel_ci: float
    budget_s: float
    warmup_s: float
    min_sample_s: float

    @property
    def stop_rule(self) -> StopRule:
        return StopRule(self.min_samples, self.max_samples, self.target_rel_ci, self.budget_s)
