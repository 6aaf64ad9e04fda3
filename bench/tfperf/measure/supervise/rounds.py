"""Interleaved rounds: the schedule and the stopping rule of one scenario, and the Poisson
arrivals of a round's blocks under a per-request arrival pattern.

A scenario (topic x parameters on one runner) is every variant in every settings group
measured side by side. In each round each slot (a settings group's variant) takes one
sample block, in a fresh order drawn from a seeded generator; the baseline takes two
blocks per round, so the scenario measures its own noise floor (the A/A pair). A
speedup is then the median of per-round ratios (:func:`tfperf.stats.paired_ratio`):
both samples of a ratio were taken seconds apart, so the machine's drift cancels.

Under a per-request pattern (:mod:`tfperf.arrival`) the parent draws each Poisson block's
schedule in advance, from a generator seeded with the scenario and the round as the order
is (:func:`schedule`); the worker receives it with its sample command
(``protocol.SampleCommand``) and runs it (``timing.open_loop_block``). :func:`block_seconds`
says how long a block lasts.

Pure Python: no processes, no TensorFlow; the orchestrator drives it.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from statistics import median

from ... import stats
from ...arrival import Arrival, ArrivalRecord, Pattern
from ...store.record_types import ScenarioStoppedBy

AA_SUFFIX = "#aa"
FAR_ROUNDS = 3                                          # rounds before a costly slot may leave


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


def process_of(slot: Slot, index: int, processes: int) -> int:
    """Which of its group's ``processes`` worker processes takes ``slot``'s block in round
    ``index``: the round's, and for the A/A block the next one, so the baseline's two blocks
    of a round come from two processes and its noise floor counts what differs between them."""
    return (index + (1 if slot.aa else 0)) % processes


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
    """Per-round samples (seconds per call) of a scenario's slots, and under a per-request
    arrival pattern every request's latency (the sample is then their median). A slot that
    stops (its case failed) keeps the rounds it has; ratios use the rounds both sides have.

    With ``processes`` > 1 each settings group has that many worker processes, and round
    ``i`` takes every block in process ``i % processes`` (the A/A block in the next one,
    :func:`process_of`): a ratio's interval then takes in each process pair's own median
    (:func:`tfperf.stats.paired_ratio`), and the A/A pair compares two processes."""

    baseline: str                                       # slot name of the baseline
    samples: dict[str, dict[int, float]] = field(default_factory=dict)
    count: int = 0                                      # rounds started
    latencies: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    processes: int = 1                                  # worker processes per settings group

    def add(self, index: int, slot: str, seconds: float, latencies: list[float] | None = None) -> None:
        self.samples.setdefault(slot, {})[index] = seconds
        if latencies is not None:
            self.latencies.setdefault(slot, {})[index] = latencies

    def drop(self, slot: str) -> None:
        self.samples.pop(slot, None)
        self.latencies.pop(slot, None)

    def paired_latencies(self, a: str, b: str) -> tuple[list[list[float]], list[list[float]]]:
        """Both slots' latencies of the rounds both have, round by round."""
        la, lb = self.latencies.get(a, {}), self.latencies.get(b, {})
        common = sorted(set(la) & set(lb))
        return [la[i] for i in common], [lb[i] for i in common]

    def paired(self, a: str, b: str) -> tuple[list[float], list[float]]:
        sa, sb = self.samples.get(a, {}), self.samples.get(b, {})
        common = sorted(set(sa) & set(sb))
        return [sa[i] for i in common], [sb[i] for i in common]

    def ratio(self, baseline: str, candidate: str) -> tuple[float, float, float] | None:
        """Speedup of ``candidate`` over ``baseline`` (paired), or None under 2 common rounds."""
        a, b = self.paired(baseline, candidate)
        if len(a) < 2:
            return None
        if self.processes < 2:
            return stats.paired_ratio(a, b)
        common = sorted(set(self.samples[baseline]) & set(self.samples[candidate]))
        return stats.paired_ratio(a, b, processes=[i % self.processes for i in common])

    @property
    def aa(self) -> str:
        return self.baseline + AA_SUFFIX

    def aa_noise(self) -> float | None:
        """The scenario's noise floor: how far the baseline's A/A ratio may lie from 1
        (the larger of its distance from 1 and its CI half-width)."""
        r = self.ratio(self.baseline, self.aa)
        if r is None:
            return None
        point, lo, hi = r
        return max(abs(point - 1.0), (hi - lo) / 2.0)

    def width(self, slot: str) -> float:
        """How far the slot is from settled: its speedup's relative CI half-width over the
        baseline; for the A/A slot its noise floor, which also counts how far the ratio
        lies from 1 (an A/A ratio of 1.05 +-2% is not a settled 2% floor)."""
        if slot == self.aa:
            noise = self.aa_noise()
            return float("inf") if noise is None else noise
        return self.pair_width(self.baseline, slot)

    def pair_width(self, a: str, b: str) -> float:
        r = self.ratio(a, b)
        return float("inf") if r is None else relative_halfwidth(*r)

    def widest(self, pairs: Sequence[tuple[str, str]] = (), skip: Collection[str] = ()) -> float:
        """The largest relative CI half-width among the speedups over the baseline (but
        those of ``skip``), the A/A noise floor and the ratios of ``pairs`` (slots compared
        with each other, such as a topic's negative controls): what the stopping rule
        tightens."""
        worst = 0.0
        for slot in self.samples:
            if slot != self.baseline and slot not in skip:
                worst = max(worst, self.width(slot))
        for a, b in pairs:
            if a in self.samples and b in self.samples:
                worst = max(worst, self.pair_width(a, b))
        return worst


@dataclass(frozen=True)
class RoundRule:
    """When a scenario stops taking rounds, and which slots take them.

    **Main phase.** At least ``min_rounds``; then stop when every speedup over the
    baseline, the A/A noise floor and every ratio in ``tighten`` are within
    ``target_rel_ci`` and no claim in ``decide`` is still inconclusive; or at
    ``max_rounds``; or when ``budget_s`` of sampling is spent (a very slow scenario still
    takes three rounds, within three times its budget).

    **Extension.** Spending the budget does not end a scenario whose widest ratio is still
    wider than ``publish_ci``: it goes on for up to ``extend`` x ``budget_s`` more, and in
    that time every ratio within ``publish_ci`` settles, so only the baseline, its A/A
    pair and the wide slots take the extra rounds. (In the run before this rule, 7 of 42
    A/A pairs of 16-170 ms cases ended at +-5.6-9.0%: one such call varies by 10-25% on
    this machine, and the scenario's budget had gone to its many other slots. With
    ``publish_ci`` at 5% the next run's published speedups had a median half-width of
    3.2%, 90th percentile 6.3%: the extension now goes on for anything wider than 3%.)

    **Noise-floor phase.** When the extension is spent and the A/A noise floor is still
    above ``publish_ci``, rounds go on for up to ``aa_extend`` x ``budget_s`` more with
    the baseline, its A/A slot and one companion slot (the others in turn, so that the
    baseline's blocks still follow other blocks, of other processes where the scenario
    has them, as in a full round). In the run that used 3% above, 3 of 44 A/A pairs of
    cases over 1 ms missed +-5%: two had spent the budget (24 and 53 rounds of 20-140 ms
    calls) and one A/A slot had settled on its 2% CI while its ratio stood at 1.05; an
    A/A round costs two of the baseline's blocks, a full round up to 25 blocks.

    **Costly slots.** A slot whose single call costs more than its share of the budget
    (``min_rounds`` of its calls would take longer than ``budget_s`` split over the
    scenario's slots) and whose speedup lies wholly beyond ``far`` (below 1/``far`` or
    above it) leaves once it has ``FAR_ROUNDS`` rounds with the baseline and its claims
    are decided, whatever its interval's width; nor does its width keep the scenario
    going, nor is it a companion in the noise-floor phase. Its question is answered (2-3
    s float16 training steps on a CPU with no float16 kernels, 45-80x slower than float32),
    and every round it stays in is a round the others cannot take: under TF 2.12-2.15
    the float16 slots of mixed_precision's history training scenario took 4-5 s of
    each round, and the scenario stopped after 10-12 rounds. With this rule the same
    scenarios (2x budget) gave the baseline 19-32 rounds; their A/A floor stayed wide in
    three of four releases (22%, 47%, 38%; before 71%, 91%, 21%) because the float32 step
    itself takes twice its time in 16-43% of those releases' calls. Longer blocks do not
    mend that: with ``min_sample_s`` 0.2 s instead of 0.02 s (eight steps a block, same
    budget) the scenario ran the 10 rounds of ``min_samples`` and its A/A floor was
    14-22% under TF 2.12-2.15, against 5-42% (median 9%) with one-step blocks measured
    beside it, and the inference scenario's went from 3-4% to 5%; the shorter blocks stay.

    ``tighten`` names pairs of slots compared with each other rather than with the
    baseline (a topic's negative controls: ``threads=2`` against the default on a 2-core
    runner). Their slots do not settle until the pair's CI is within the target: in the
    last run, one such pair had 47 rounds in common (its slots had settled against the
    baseline) and ended at 0.919 [0.773, 1.017].

    **Processes.** ``processes`` worker processes per settings group take the rounds in
    turn (:func:`process_of`). Rounds in one process cannot see what differs from one
    process to the next: on an AMD EPYC (Zen 5), the MLP at batch 1 under two settings that
    do the same thing (intra-op threads = 2 and the default, on 2 cores), each in fresh
    processes, measured from 0.861 [0.832, 0.901] to 1.095 [1.049, 1.144] in six runs of
    the same scenario (2 oneDNN settings each: 4 of the 12 intervals left out 1.0); the
    committed full run had one such control at 1.291 [1.241, 1.337]. With two processes, a
    ratio's interval takes in both processes' medians, and the A/A pair compares the two.
    Two are a floor, not a cure: in 12 runs of each (``scripts/process_bias.py``) the
    control's ratio spread with a standard deviation of 7.3% in one process per group and
    5.3% in two (about 1/sqrt(2), as when the processes, not the rounds, make the
    difference), and 5 then 7 of the 12 intervals contained 1.0, where a 95% interval
    should nearly always. The topics' controls stay the check that turns such claims
    "unclear". The second process costs little width: on the Zen 5, one topic's full
    profile run four times in a row, one process / two / one / two, published median
    half-widths of 2.8%, 2.8%, 2.5%, 2.8%. What moves more is the run: the same three
    topics, same code, two sessions apart, agreed within +-10% on 68% of speedups, and
    their median half-widths went 3.5% -> 6.4%, 4.6% -> 6.0% and 5.6% -> 3.8%."""

    min_rounds: int = 10
    max_rounds: int = 200
    target_rel_ci: float = 0.02
    budget_s: float = 30.0
    decide: tuple[tuple[str, str], ...] = ()           # (faster, slower) slot names of claims
    tighten: tuple[tuple[str, str], ...] = ()          # slot pairs compared with each other
    min_effect: float = 0.0                             # the claims' smallest speedup that counts
    publish_ci: float = 0.03                            # widest CI half-width worth extending for
    extend: float = 1.0                                 # extra budget, in multiples of budget_s
    aa_extend: float = 0.5                              # then, for the noise floor alone
    processes: int = 1                                  # worker processes per settings group
    far: float = 2.0                                    # a costly slot beyond this speedup has answered

    def costly(self, rounds: Rounds) -> set[str]:
        """Slots whose single call costs more than their share of the budget and whose
        speedup over the baseline lies wholly beyond ``far``, from ``FAR_ROUNDS`` rounds
        with the baseline on (see the class docstring)."""
        share = self.budget_s / max(1, len(rounds.samples))
        out = set()
        for slot, samples in rounds.samples.items():
            if not samples or slot in (rounds.baseline, rounds.aa) or median(samples.values()) * self.min_rounds <= share:
                continue
            a, _ = rounds.paired(rounds.baseline, slot)
            r = rounds.ratio(rounds.baseline, slot) if len(a) >= FAR_ROUNDS else None
            if r is not None and (r[2] < 1.0 / self.far or r[1] > self.far):
                out.add(slot)
        return out

    def undecided(self, rounds: Rounds) -> list[tuple[str, str]]:
        noise = rounds.aa_noise() or 0.0
        out = []
        for faster, slower in self.decide:
            r = rounds.ratio(slower, faster)
            if r is not None and stats.judge(*r, noise, self.min_effect).finding == stats.UNCLEAR:
                out.append((faster, slower))
        return out

    def phase(self, elapsed_s: float) -> str:
        """"main", "extend" (budget spent) or "noise" (extension spent too)."""
        if elapsed_s < self.budget_s:
            return "main"
        return "extend" if elapsed_s < self.budget_s * (1.0 + self.extend) else "noise"

    def aa_open(self, rounds: Rounds) -> bool:
        return rounds.aa in rounds.samples and rounds.width(rounds.aa) > self.publish_ci

    def settled(self, rounds: Rounds, elapsed_s: float = 0.0) -> set[str]:
        """Slots that need no more rounds: at least ``min_rounds`` in common with the
        baseline, a speedup CI within ``target_rel_ci`` (``publish_ci`` once the budget is
        spent; for the A/A slot, its noise floor), every ``tighten`` pair it is in as tight,
        and no undecided claim (none at all once the budget is spent: the extension is for
        the noise floor and the wide ratios, not for effects too small to decide). They
        leave the rounds, so the budget goes to the slots that are still wide (in a
        scenario that mixes a 0.1 ms call with a 50 ms ``predict``, the slow slot no longer
        waits for rounds it does not need, nor the fast one for the slow). The baseline
        never settles: every later ratio needs it in the same round. A costly slot that has
        answered (:meth:`costly`) settles whatever its width. In the noise-floor phase
        every slot but the baseline, its A/A slot and this round's companion (a slot that
        is not costly, where there is one) is settled."""
        phase = self.phase(elapsed_s)
        costly = self.costly(rounds)
        if phase == "noise":
            others = sorted(s for s in rounds.samples if s not in (rounds.baseline, rounds.aa))
            others = [s for s in others if s not in costly] or others
            keep = {rounds.baseline, rounds.aa}
            if others:
                keep.add(others[rounds.count % len(others)])
            return {s for s in rounds.samples if s not in keep}
        target = self.publish_ci if phase == "extend" else self.target_rel_ci
        open_claims = set() if phase == "extend" else {name for pair in self.undecided(rounds) for name in pair}
        wide_pairs = {name for a, b in self.tighten
                      if a in rounds.samples and b in rounds.samples and rounds.pair_width(a, b) > target
                      for name in (a, b)}
        out = set()
        for slot in rounds.samples:
            if slot == rounds.baseline or slot in open_claims or slot in wide_pairs:
                continue
            a, _ = rounds.paired(rounds.baseline, slot)
            if slot in costly or (len(a) >= self.min_rounds and rounds.width(slot) <= target):
                out.add(slot)
        return out

    def stop(self, rounds: Rounds, elapsed_s: float) -> ScenarioStoppedBy | None:
        """Why to stop now ("ci", "max_rounds", "budget"), or None to take another round."""
        n = rounds.count
        if n >= self.max_rounds:
            return "max_rounds"
        if n < self.min_rounds:
            return "budget" if elapsed_s >= self.budget_s * 3 and n >= 3 else None
        phase = self.phase(elapsed_s)
        if phase == "noise":
            spent = elapsed_s >= self.budget_s * (1.0 + self.extend + self.aa_extend)
            return "budget" if spent or not self.aa_open(rounds) else None
        widest = rounds.widest(self.tighten, skip=self.costly(rounds))
        if phase == "extend":
            return "budget" if widest <= self.publish_ci else None
        if widest <= self.target_rel_ci and not self.undecided(rounds):
            return "ci"
        return None


# -- the arrivals of a per-request pattern ---------------------------------------------------


def schedule(seed: str, index: int, requests: int, mean_gap_s: float) -> list[float]:
    """Arrival times of round ``index``'s Poisson block, in seconds from its start: the sums
    of ``requests`` exponential gaps of mean ``mean_gap_s``, drawn from a generator seeded
    with the scenario and the round, so a run can be replayed. Every slot of a round gets
    the same draws, scaled by its own mean gap (common random numbers): the variants of a
    round meet the same bursts and lulls, at their own rate, and so do the two blocks of
    the A/A pair."""
    rng = random.Random(f"{seed}/{index}/arrivals")
    out, t = [], 0.0
    for _ in range(requests):
        t += rng.expovariate(1.0) * mean_gap_s
        out.append(t)
    return out


def mean_gap(record: ArrivalRecord) -> float:
    """A Poisson pattern's mean time between arrivals: the inverse of its rate per second
    (``rate`` times the back-to-back throughput its worker measured)."""
    return 1.0 / record["rate_per_s"]


def block_seconds(record: ArrivalRecord) -> float:
    """About how long one block of a per-request pattern lasts: its requests, each a call of
    the back-to-back time, after the idle gap or, for Poisson, at its mean gap."""
    arrival = Arrival.of(record)
    service = record.get("service_s", 0.0)
    if arrival.pattern is Pattern.POISSON:
        return arrival.block * mean_gap(record) + service
    return arrival.block * (arrival.gap_s + service) + service
