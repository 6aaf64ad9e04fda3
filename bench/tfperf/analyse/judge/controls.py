"""Negative controls: pairs of settings groups that must measure the same.

A scenario's A/A pair measures the baseline twice in one worker process, so it cannot see
a bias of the process itself. Such biases exist: on this project's 2-core runner, a
run's default-settings worker once measured 8-17% slower than three other groups,
``threads=2`` among them, which on two cores is what the default does (memory layout
and thread placement change from one process to the next; Mytkowicz et al., ASPLOS 2009).
A topic therefore names *controls* in its YAML::

    controls:
      - id: all_cores_is_default
        text: "threads=N on an N-core runner is what the default does."
        variant: call
        settings: {threads: "{cores}"}      # {cores}: the runner's core count
        same_as: {threads: default}

When a control of a scenario differs by more than the margin (the pair's noise floor,
and at least :data:`tfperf.stats.MIN_EFFECT`), comparisons between that scenario's
settings groups cannot be told from process bias: their verdicts become "unclear".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ... import stats
from ...cases import Control, control_applies
from ..load.records import Measurement, Noise, settings_id
from .ratios import Ratio, RatioCache
from .settings import pair_noise

Index = dict[tuple[str, str, str, str], Measurement]   # (runner, params_id, variant, settings_id)


@dataclass(frozen=True)
class ControlResult:
    control_id: str
    text: str
    measured: Measurement        # with the control's settings
    reference: Measurement       # with the settings it must equal
    ratio: Ratio                 # speedup of `measured` over `reference`; must be 1
    margin: float

    @property
    def failed(self) -> bool:
        return self.ratio.low > 1.0 + self.margin or self.ratio.high < 1.0 / (1.0 + self.margin)

    def describe(self) -> str:
        """"threads=2 measured 1.087× the speed of threads=default, which it must equal (±5%)"."""
        return (f"{self.measured.settings_id} measured {self.ratio.point:.3g}× the speed of "
                f"{self.reference.settings_id}, which it must equal (±{self.margin:.0%})")


def index(measurements: Iterable[Measurement]) -> Index:
    return {(m.runner, m.params_id, m.variant, m.settings_id): m for m in measurements}


def _resolve(settings: dict[str, str], m: Measurement) -> dict[str, str] | None:
    """``{cores}`` in a control's settings becomes the runner's core count (None when the
    environment record does not say it)."""
    cores = m.env.get("cores") if m.env else None
    out = {}
    for k, v in settings.items():
        if "{cores}" in v:
            if not isinstance(cores, int):
                return None
            v = v.replace("{cores}", str(cores))
        out[k] = v
    return out


def controls_for(m: Measurement, controls: Iterable[Control], by: Index, noise: list[Noise],
                 cache: RatioCache) -> list[ControlResult]:
    """The controls measured in ``m``'s scenario: the same runner and parameters, and the
    same values as ``m`` for every setting the control does not name."""
    out = []
    for c in controls:
        if not control_applies(c, m.params):
            continue
        a_settings = _resolve({**m.settings, **{str(k): str(v) for k, v in (c.get("settings") or {}).items()}}, m)
        b_settings = {**m.settings, **{str(k): str(v) for k, v in (c.get("same_as") or {}).items()}}
        if a_settings is None:
            continue
        variant = str(c.get("variant"))
        a = by.get((m.runner, m.params_id, variant, settings_id(a_settings)))
        b = by.get((m.runner, m.params_id, variant, settings_id(b_settings)))
        if a is None or b is None or a is b or not (a.ok and b.ok):
            continue
        margin = max(pair_noise(noise, a, b, m.topic).value, stats.MIN_EFFECT)
        out.append(ControlResult(str(c.get("id")), str(c.get("text") or ""), a, b, cache.speedup(b, a), margin))
    return out
