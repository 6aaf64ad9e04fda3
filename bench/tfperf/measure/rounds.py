"""Interleaved rounds: the schedule and the stopping rule of one scenario.

A scenario (topic x parameters on one runner) is every variant in every settings group
measured side by side. In each round each slot (a settings group's variant) takes one
sample block, in a fresh order drawn from a seeded generator; the baseline takes two
blocks per round, so the scenario measures its own noise floor (the A/A pair). A
speedup is then the median of per-round ratios (:func:`tfperf.stats.paired_ratio`):
both samples of a ratio were taken seconds apart, so the machine's drift cancels.

Pure Python: no processes, no TensorFlow; the orchestrator drives it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import stats

AA_SUFFIX = "#aa"


@dataclass(frozen=True)
class Slot:
    """One sample block per round: task ``task`` in the worker of settings group ``group``.
    ``aa`` marks the baseline's second block of a round."""

    group: str
    task: str
    aa: bool = False

    @property
    def name(self) -> str:
        return self.task + (AA_SUFFIX if self.aa else "")


def round_order(slots: Sequence[Slot], seed: str, index: int) -> list[Slot]:
    """The order of round ``index``: every slot once, shuffled by a generator seeded with
    the scenario and the round, so a run can be replayed and no slot is always first
    (right after another process ran) or always after the same neighbour."""
    order = list(slots)
    random.Random(f"{seed}/{index}").shuffle(order)
    return order


def relative_halfwidth(point: float, low: float, high: float) -> float:
    return (high - low) / 2.0 / point if point > 0 else float("inf")


@dataclass
class Rounds:
    """Per-round samples (seconds per call) of a scenario's slots. A slot that stops
    (its case failed) keeps the rounds it has; ratios use the rounds both sides have."""

    baseline: str                                       # slot name of the baseline
    samples: dict[str, dict[int, float]] = field(default_factory=dict)
    count: int = 0                                      # rounds started

    def add(self, index: int, slot: str, seconds: float) -> None:
        self.samples.setdefault(slot, {})[index] = seconds

    def drop(self, slot: str) -> None:
        self.samples.pop(slot, None)

    def paired(self, a: str, b: str) -> tuple[list[float], list[float]]:
        sa, sb = self.samples.get(a, {}), self.samples.get(b, {})
        common = sorted(set(sa) & set(sb))
        return [sa[i] for i in common], [sb[i] for i in common]

    def ratio(self, baseline: str, candidate: str) -> tuple[float, float, float] | None:
        """Speedup of ``candidate`` over ``baseline`` (paired), or None under 2 common rounds."""
        a, b = self.paired(baseline, candidate)
        if len(a) < 2:
            return None
        return stats.paired_ratio(a, b)

    def aa_noise(self) -> float | None:
        """The scenario's noise floor: how far the baseline's A/A ratio may lie from 1
        (the larger of its distance from 1 and its CI half-width)."""
        r = self.ratio(self.baseline, self.baseline + AA_SUFFIX)
        if r is None:
            return None
        point, lo, hi = r
        return max(abs(point - 1.0), (hi - lo) / 2.0)

    def widest(self) -> float:
        """The largest relative CI half-width among the speedups over the baseline and the
        A/A ratio: what the stopping rule tightens."""
        worst = 0.0
        for slot in self.samples:
            if slot == self.baseline:
                continue
            r = self.ratio(self.baseline, slot)
            if r is None:
                return float("inf")
            worst = max(worst, relative_halfwidth(*r))
        return worst


@dataclass(frozen=True)
class RoundRule:
    """When a scenario stops taking rounds.

    At least ``min_rounds``; then stop when every speedup over the baseline (and the A/A
    ratio) has a CI half-width within ``target_rel_ci`` and no claim in ``decide`` is
    still inconclusive; or at ``max_rounds``; or when ``budget_s`` of sampling is spent
    (a very slow scenario still takes three rounds, within three times its budget).

    Spending the budget does not end a scenario whose widest ratio is still wider than
    ``publish_ci``: it goes on for up to ``extend`` x ``budget_s`` more, and in that time
    every ratio within ``publish_ci`` settles, so only the baseline, its A/A pair and the
    wide slots take the extra rounds. (In the run before this rule, 7 of 42 A/A pairs of
    16-170 ms cases ended at +-5.6-9.0%: one such call varies by 10-25% on this machine,
    and the scenario's budget had gone to its many other slots. With ``publish_ci`` at 5%
    the next run's published speedups had a median half-width of 3.2%, 90th percentile
    6.3%: the extension now goes on for anything wider than 3%.)"""

    min_rounds: int = 10
    max_rounds: int = 200
    target_rel_ci: float = 0.02
    budget_s: float = 30.0
    decide: tuple[tuple[str, str], ...] = ()           # (faster, slower) slot names of claims
    min_effect: float = 0.0                             # the claims' smallest speedup that counts
    publish_ci: float = 0.03                            # widest CI half-width worth extending for
    extend: float = 1.0                                 # extra budget, in multiples of budget_s

    def undecided(self, rounds: Rounds) -> list[tuple[str, str]]:
        noise = rounds.aa_noise() or 0.0
        out = []
        for faster, slower in self.decide:
            r = rounds.ratio(slower, faster)
            if r is not None and stats.judge(*r, noise, self.min_effect).state == stats.INCONCLUSIVE:
                out.append((faster, slower))
        return out

    def settled(self, rounds: Rounds, elapsed_s: float = 0.0) -> set[str]:
        """Slots that need no more rounds: at least ``min_rounds`` in common with the
        baseline, a speedup CI within ``target_rel_ci`` (``publish_ci`` once the budget is
        spent) and no undecided claim (none at all once the budget is spent: the extension
        is for the noise floor and the wide ratios, not for effects too small to decide).
        They leave the rounds, so the budget goes to the slots that are still wide (in a
        scenario that mixes a 0.1 ms call with a 50 ms ``predict``, the slow slot no longer
        waits for rounds it does not need, nor the fast one for the slow). The baseline
        never settles: every later ratio needs it in the same round."""
        extending = elapsed_s >= self.budget_s
        target = self.publish_ci if extending else self.target_rel_ci
        open_claims = set() if extending else {name for pair in self.undecided(rounds) for name in pair}
        out = set()
        for slot in rounds.samples:
            if slot == rounds.baseline or slot in open_claims:
                continue
            a, _ = rounds.paired(rounds.baseline, slot)
            if len(a) < self.min_rounds:
                continue
            r = rounds.ratio(rounds.baseline, slot)
            if r is not None and relative_halfwidth(*r) <= target:
                out.add(slot)
        return out

    def stop(self, rounds: Rounds, elapsed_s: float) -> str | None:
        """Why to stop now ("ci", "max_rounds", "budget"), or None to take another round."""
        n = rounds.count
        if n >= self.max_rounds:
            return "max_rounds"
        if n < self.min_rounds:
            return "budget" if elapsed_s >= self.budget_s * 3 and n >= 3 else None
        if elapsed_s >= self.budget_s * (1.0 + self.extend):
            return "budget"
        widest = rounds.widest()
        if elapsed_s >= self.budget_s:
            return "budget" if widest <= self.publish_ci else None
        if widest <= self.target_rel_ci and not self.undecided(rounds):
            return "ci"
        return None
