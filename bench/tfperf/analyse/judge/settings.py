"""Speedups of process-settings groups against a topic's ``baseline_settings``.

For topics whose comparisons are between settings rather than variants (cpu_threads:
threads, OMP_NUM_THREADS, oneDNN), every measured settings group is compared with the
baseline group for the same runner, parameters and variant: median(baseline) /
median(group) (or, measured side by side, the median of per-round ratios) with its CI,
and its finding (:func:`tfperf.analyse.judge.effects.effect`: faster, slower, the same or
unclear, with the margin of every comparison of the guide).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...store.record_types import Scalar
from ..load.noise import NoiseFloor, noise_floor
from ..load.records import Measurement, Noise, settings_id
from .effects import MARGIN, Finding, effect
from .ratios import Ratio, RatioCache
from .scenarios import exclusion_reason


@dataclass
class SettingsSpeedup:
    """One settings group of one case against the baseline group."""

    measurement: Measurement
    baseline: Measurement | None
    ratio: Ratio | None          # speedup of this group over the baseline (> 1: faster)
    noise: NoiseFloor | None
    finding: Finding | None      # faster / slower / the same / unclear; None: the baseline, or no ratio
    problem: str | None = None   # why there is no ratio

    @property
    def is_baseline(self) -> bool:
        return self.baseline is self.measurement

    @property
    def runner(self) -> str:
        return self.measurement.runner

    @property
    def settings(self) -> dict[str, str]:
        return self.measurement.settings

    @property
    def params(self) -> dict[str, Scalar]:
        return self.measurement.params


def pair_noise(noise: list[Noise], a: Measurement, b: Measurement, topic: str) -> NoiseFloor:
    """The noise floor of comparing ``a`` with ``b``: their scenario's own A/A pair when
    they were measured side by side, else the larger floor of their two settings groups."""
    if a.interleave and a.interleave == b.interleave:
        return noise_floor(noise, a.runner, a.settings_id, topic, interleave=a.interleave)
    return max(noise_floor(noise, a.runner, a.settings_id, topic), noise_floor(noise, b.runner, b.settings_id, topic),
               key=lambda n: n.value)


def baseline_of(settings: dict[str, str], baseline: dict[str, str]) -> dict[str, str]:
    """The baseline group for ``settings``: the baseline's values for the settings it names,
    the group's own values for the others (e.g. a Keras version)."""
    return {**settings, **{k: v for k, v in baseline.items() if k in settings}}


def settings_speedups(measurements: Iterable[Measurement], topic: str, baseline: dict[str, str],
                      noise: list[Noise], cache: RatioCache) -> list[SettingsSpeedup]:
    """Every measurement of ``topic`` against its baseline group (same runner, parameters,
    variant). Failed cases and missing baselines are kept, with the reason."""
    ms = [m for m in measurements if m.topic == topic]
    index = {(m.runner, m.params_id, m.variant, m.settings_id): m for m in ms}
    out: list[SettingsSpeedup] = []
    for m in ms:
        bsid = settings_id(baseline_of(m.settings, baseline))
        b = index.get((m.runner, m.params_id, m.variant, bsid))
        if b is m:
            one = Ratio(1.0, 1.0, 1.0) if m.ok else None
            out.append(SettingsSpeedup(m, m, one, None, None, None if m.ok else exclusion_reason(m)))
            continue
        if b is None:
            out.append(SettingsSpeedup(m, None, None, None, None, f"baseline {bsid} not measured"))
            continue
        if not (m.ok and b.ok):
            bad = m if not m.ok else b
            out.append(SettingsSpeedup(m, b, None, None, None, f"{bad.settings_id}: {exclusion_reason(bad)}"))
            continue
        nf = pair_noise(noise, b, m, topic)
        r = cache.speedup(b, m)
        out.append(SettingsSpeedup(m, b, r, nf, effect(r.low, r.high, max(nf.value, MARGIN))))
    return out
