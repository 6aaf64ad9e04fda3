"""Requests as a server sees them: the per-request arrival patterns (idle after a gap,
Poisson arrivals; :mod:`tfperf.arrival`) of a topic, judged in the guide's one vocabulary.

* :func:`pattern_tables`: per runner, profile and pattern, each variant's p50, p90 and p99
  with their confidence intervals, and its speedup over the topic's default at p50
  (paired per round) and at p99 (a bootstrap over whole rounds), each with its finding
  (:func:`tfperf.analyse.judge.effects.effect`) against the pattern's own A/A noise floor.
* :func:`pattern_claims`: the topic's claims judged on one pattern's results, as
  :mod:`tfperf.analyse.judge.claims` judges them back to back (what a question naming the
  pattern is answered from, :mod:`tfperf.analyse.views.answers`).

Back-to-back results never enter here (``Dataset.measurements``); a topic without a
per-request pattern has no table and its questions are answered back to back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ... import stats
from ...arrival import words
from ...cases import Claim
from ..records import Measurement, Noise, current, settings_id
from .claims import ClaimResult, check_claim, check_settings_claim, is_settings_claim
from .effects import MARGIN, Finding, effect
from .scenarios import NoiseFloor, Ratio, RatioCache, baseline_of, exclusion_reason, pair_noise, scenarios


def pattern_words(arrival_id: str) -> str:
    """A pattern in reader words ("after 10 ms idle"; :func:`tfperf.arrival.words`)."""
    return words(arrival_id)


def pattern_results(measurements: Sequence[Measurement], topic: str, arrival_id: str) -> list[Measurement]:
    """The current result of each case of ``topic`` measured with the pattern."""
    return current([m for m in measurements if m.topic == topic and m.arrival_id == arrival_id])


def pattern_noise(noise: Sequence[Noise], arrival_id: str) -> list[Noise]:
    return [n for n in noise if n.arrival == arrival_id]


def pattern_ids(measurements: Sequence[Measurement], topic: str) -> list[str]:
    """The per-request patterns ``topic`` has results of: idle ones by gap, then Poisson ones by rate."""
    ids = {m.arrival_id for m in measurements if m.topic == topic}

    def key(i: str) -> tuple[int, float]:
        kind, _, value = i.partition("-")
        return (0 if kind == "idle" else 1, float(value.removesuffix("ms") or 0))
    return sorted(ids, key=key)


@dataclass(frozen=True)
class Side:
    """A speedup over the default at one percentile, with its finding and the margin used."""

    ratio: Ratio
    finding: Finding
    margin: float


@dataclass(frozen=True)
class PatternRow:
    """One variant in one scenario under one pattern."""

    measurement: Measurement
    p50: stats.Percentile | None
    p90: stats.Percentile | None
    p99: stats.Percentile | None
    requests: int                       # every request of every round
    p50_speedup: Side | None            # over the default; None for the default itself or without a pair
    p99_speedup: Side | None
    problem: str | None                 # why it has no figures (failed, wrong output)

    @property
    def variant(self) -> str:
        return self.measurement.variant


@dataclass(frozen=True)
class PatternTable:
    """A runner's results of one profile under one pattern."""

    runner: str
    profile: str
    arrival: str                        # the pattern's id ("idle-10ms")
    default: str
    rows: tuple[PatternRow, ...]        # by scenario (settings, parameters), the default first in each
    noise: NoiseFloor | None            # the pattern's A/A noise at p50 (largest of its scenarios)
    p99_noise: float | None             # ... at p99
    baseline_settings: dict[str, str]   # set: each row against its variant in these settings, not the default

    def is_base(self, row: PatternRow) -> bool:
        """The row the others of its scenario are set against."""
        m = row.measurement
        if self.baseline_settings:
            return all(m.settings.get(k) == v for k, v in self.baseline_settings.items() if k in m.settings)
        return m.variant == self.default

    @property
    def words(self) -> str:
        return pattern_words(self.arrival)

    @property
    def scenarios(self) -> int:
        """Parameter combinations, as the answers count scenarios: the settings groups of a
        scenario (processes measured side by side) are rows of it, not scenarios of their own."""
        return len({r.measurement.params_id for r in self.rows})


def _pooled(m: Measurement) -> list[float]:
    return [x for r in m.latencies for x in r]


def _percentiles(m: Measurement) -> list[stats.Percentile | None]:
    xs = _pooled(m)
    return list(stats.tail(xs)) if xs and m.ok else [None, None, None]


def p99_floor(noise: Sequence[Noise], baseline: Measurement) -> float | None:
    """The A/A noise at p99 of the interleave the baseline was measured in."""
    own = [n.p99_noise for n in noise if n.interleave and n.interleave == baseline.interleave_id
           and n.p99_noise is not None]
    return max(own) if own else None


def _row(m: Measurement, d: Measurement | None, noise: Sequence[Noise], cache: RatioCache) -> PatternRow:
    problem = exclusion_reason(m)
    p50, p90, p99 = _percentiles(m)
    s50 = s99 = None
    if problem is None and d is not None and d is not m and d.ok:
        nf = pair_noise(list(noise), d, m, m.topic)
        margin = max(nf.value, MARGIN)
        r50 = cache.speedup(d, m)
        s50 = Side(r50, effect(r50.low, r50.high, margin), margin)
        r99 = cache.tail_speedup(d, m, 0.99)
        if r99 is not None:
            m99 = max(p99_floor(noise, d) or nf.value, MARGIN)
            s99 = Side(r99, effect(r99.low, r99.high, m99), m99)
    return PatternRow(m, p50, p90, p99, len(_pooled(m)), s50, s99, problem)


def pattern_tables(measurements: Sequence[Measurement], noise: Sequence[Noise], topic: str, default: str | None,
                   cache: RatioCache, baseline_settings: Mapping[str, str] | None = None) -> list[PatternTable]:
    """Per runner, profile and pattern (runners by name, patterns as :func:`pattern_ids`).
    Each result is set against the default variant of its scenario, or, for a topic whose
    claims compare settings (``baseline_settings``), against the same variant in the
    baseline settings group."""
    if default is None:
        return []
    out = []
    for arrival in pattern_ids(measurements, topic):
        ms = pattern_results(measurements, topic, arrival)
        own_noise = pattern_noise(noise, arrival)
        groups: dict[tuple[str, str], list[Measurement]] = {}
        for m in ms:
            groups.setdefault((m.runner, m.source.profile), []).append(m)
        for (runner, profile), group in sorted(groups.items()):
            index = {(m.settings_id, m.params_id, m.variant): m for m in group}
            base = {id(m): _base(m, index, default, baseline_settings) for m in group}
            group.sort(key=lambda m: (_params_key(m), m.variant, base[id(m)] is not m, m.settings_id)
                       if baseline_settings else (m.settings_id, _params_key(m), m.variant != default, m.variant))
            rows = tuple(_row(m, base[id(m)], own_noise, cache) for m in group)
            bases = {id(b): b for b in base.values() if b is not None}.values()
            floors = [pair_noise(own_noise, b, b, topic) for b in bases if b.interleave_id]
            p99s = [f for b in bases if (f := p99_floor(own_noise, b)) is not None]
            out.append(PatternTable(runner, profile, arrival, default, rows,
                                    max(floors, key=lambda n: n.value) if floors else None,
                                    max(p99s) if p99s else None, dict(baseline_settings or {})))
    return out


def _base(m: Measurement, index: Mapping[tuple[str, str, str], Measurement], default: str,
          baseline_settings: Mapping[str, str] | None) -> Measurement | None:
    """What ``m`` is set against: the default variant in its settings, or its own variant in
    the baseline settings group."""
    if baseline_settings:
        return index.get((settings_id(baseline_of(m.settings, dict(baseline_settings))), m.params_id, m.variant))
    return index.get((m.settings_id, m.params_id, default))


def _params_key(m: Measurement) -> tuple[object, ...]:
    return tuple((k, (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))) for k, v in m.params.items())


def pattern_claims(claims: Sequence[Claim], measurements: Sequence[Measurement], noise: Sequence[Noise], topic: str,
                   arrival_id: str, cache: RatioCache) -> list[ClaimResult]:
    """Each claim judged on the pattern's current results, with the pattern's A/A pairs as
    its noise floors (the claims' rules are those of back to back)."""
    ms = pattern_results(measurements, topic, arrival_id)
    own_noise = pattern_noise(noise, arrival_id)
    scs = scenarios(ms, topic)
    return [check_settings_claim(c, ms, topic, own_noise, cache) if is_settings_claim(c)
            else check_claim(c, scs, own_noise, cache) for c in claims]


__all__ = ["PatternRow", "PatternTable", "Side", "p99_floor", "pattern_claims", "pattern_ids", "pattern_tables",
           "pattern_words"]
