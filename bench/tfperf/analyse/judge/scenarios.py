"""Per scenario (runner x parameters x settings): the fastest variant whose output is
correct, and its speedup over the default way, with a confidence interval and its finding."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...cases import where_holds
from ...store.record_types import Scalar
from ..load.noise import NoiseFloor, noise_floor
from ..load.records import Measurement, Noise, params_id, settings_id
from .effects import MARGIN, Finding, effect
from .ratios import Ratio, RatioCache


@dataclass
class Scenario:
    runner: str
    topic: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    variants: dict[str, Measurement] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.runner, settings_id(self.settings), params_id(self.params))

    @property
    def stale(self) -> bool:
        return any(m.stale for m in self.variants.values())

    def matches(self, where: Mapping[str, object] | None) -> bool:
        """True when every ``where`` field (a parameter or setting) has one of the values listed."""
        return where_holds(where, self.params, self.settings)


def scenarios(measurements: Iterable[Measurement], topic: str) -> list[Scenario]:
    out: dict[tuple[str, str, str], Scenario] = {}
    for m in measurements:
        if m.topic != topic:
            continue
        sc = Scenario(m.runner, m.topic, m.params, m.settings)
        sc = out.setdefault(sc.key, sc)
        sc.variants[m.variant] = m
    return [out[k] for k in sorted(out, key=_sort_key)]


def _sort_key(k: tuple[str, str, str]) -> tuple[Any, ...]:
    # Numbers inside ids sort numerically (batch_size=8 before batch_size=64).
    return tuple(tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", part)) for part in k)


def correct(m: Measurement) -> bool:
    """Output checked and within tolerance (the reference variant is correct by definition)."""
    return m.within_tolerance is True or (m.is_reference is True and m.within_tolerance is not False)


# The output check's note when the output has NaN or inf where the reference has a number
# (tfperf.measure.worker.outputs.compare); its max abs diff then covers the finite values only.
# Results before output.nonfinite existed say it only in this note.
_NONFINITE = re.compile(r"^(\d+) of (\d+) values non-finite")


def nonfinite(m: Measurement) -> tuple[int, int] | None:
    """(values NaN or inf where the reference's are finite, values in all) for an output
    outside tolerance that has such values, else None."""
    if m.within_tolerance is not False:
        return None
    if m.output_nonfinite is not None and m.output_values is not None:
        return (m.output_nonfinite, m.output_values) if m.output_nonfinite else None
    match = _NONFINITE.match(m.output_note or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def output_error(m: Measurement) -> str | None:
    """How far an output outside tolerance is off ("NaN or inf in all 10 values", "max abs
    diff 0.37"), or None for an output within tolerance or not checked."""
    if m.within_tolerance is not False:
        return None
    bad = nonfinite(m)
    if bad is not None:
        return f"NaN or inf in {'all ' + str(bad[1]) if bad[0] == bad[1] else f'{bad[0]} of {bad[1]}'} values"
    return f"max abs diff {m.max_abs_diff:.3g}" if m.max_abs_diff is not None else m.output_note


def exclusion_reason(m: Measurement) -> str | None:
    """Why a variant cannot be recommended, or None."""
    if m.status != "ok":
        return f"{m.status}: {(m.error or '').strip().splitlines()[-1] if m.error else 'no error text'}"
    if not m.ok:
        return "no timing samples"
    if m.within_tolerance is False:
        error = output_error(m)
        return f"output outside tolerance ({error})" if error else "output outside tolerance"
    if not correct(m):
        return "output not checked against the reference"
    return None


@dataclass
class Recommendation:
    scenario: Scenario
    default: str
    best: str | None
    speedup: Ratio | None          # best over default
    finding: Finding | None        # best against the default: faster / slower / the same / unclear (None: best is it)
    noise: NoiseFloor
    excluded: dict[str, str]       # variant -> reason it is never recommended
    fastest_overall: str | None    # fastest ok variant regardless of correctness
    tied: tuple[str, ...] = ()     # other correct variants level with `best` within the noise: no single winner

    @property
    def stale(self) -> bool:
        return self.scenario.stale


BOUND_REASON = "a limit to compare with, not an option"


def recommend(sc: Scenario, default: str, noise_records: list[Noise], cache: RatioCache,
              bounds: Iterable[str] = ()) -> Recommendation:
    """The fastest variant with a correct output, its speedup over ``default``, and those it
    is not clearly faster than; ``bounds`` (the topic's limits, e.g. data in memory) and the
    variants with a wrong output or no result are never it."""
    excluded = {v: r for v, m in sc.variants.items() if (r := exclusion_reason(m))}
    excluded.update({v: BOUND_REASON for v in bounds if v in sc.variants and v not in excluded})
    ok = [m for m in sc.variants.values() if m.ok]
    candidates = [m for m in ok if m.variant not in excluded]
    best = min(candidates, key=lambda m: m.median or float("inf")) if candidates else None
    fastest = min(ok, key=lambda m: m.median or float("inf")) if ok else None
    d = sc.variants.get(default)
    nf = noise_floor(noise_records, sc.runner, settings_id(sc.settings), sc.topic,
                     interleave=d.interleave if d is not None else None)
    speed: Ratio | None = None
    finding: Finding | None = None
    margin = max(nf.value, MARGIN)
    if best is not None and d is not None and d.ok:
        speed = cache.speedup(d, best)
        finding = effect(speed.low, speed.high, margin) if best.variant != default else None
    # A variant the best is not clearly faster than ties with it (e.g. two spellings of one
    # code path): the page names no winner among them.
    tied = tuple(sorted(m.variant for m in candidates if best is not None and m is not best
                        and cache.speedup(m, best).low <= 1.0 + margin))
    return Recommendation(scenario=sc, default=default, best=best.variant if best else None,
                          speedup=speed, finding=finding, noise=nf, excluded=excluded,
                          fastest_overall=fastest.variant if fastest else None, tied=tied)
