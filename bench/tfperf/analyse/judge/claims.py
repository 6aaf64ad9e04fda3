"""Claims tested: a claim names a comparison (its ``candidate`` against its ``baseline``,
the alternative a reader would otherwise use) and what its source said the candidate is
(``expect``: faster, slower or the same). Per scenario the comparison has a finding
(:func:`tfperf.analyse.judge.effects.effect`); per runner, the findings over its scenarios are
summarised and the source's answer judged (:func:`tfperf.analyse.judge.effects.verdict`).

Two kinds of claim: ``claims:`` compare two variants inside one settings group;
``settings_claims:`` compare two settings groups (``candidate_settings`` against
``baseline_settings``, merged into the scenario's other settings) for the same variant. A
claim between variants with ``compare: per_step`` is judged on the cost per step, a call's
fixed cost apart (:mod:`tfperf.analyse.judge.per_step`). Across TensorFlow releases:
:mod:`tfperf.analyse.judge.version_verdicts`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ... import stats
from ...cases import PARAM_KEY, Claim, Control
from ..records import Measurement, Noise, failure_summary, settings_id
from .effects import (
    EXPECTED,
    MARGIN,
    Finding,
    Label,
    Point,
    Summary,
    Verdict,
    effect,
    plain,
    summarise,
    summary_text,
    verdict,
)
from .per_step import is_per_step, per_step_ratio, step_scenarios
from .scenarios import (
    NoiseFloor,
    Ratio,
    RatioCache,
    Scenario,
    controls_for,
    exclusion_reason,
    pair_noise,
    scenarios,
)
from .scenarios import index as control_index

NO_DATA = Finding.NO_DATA

Labeller = Label
plain_label = plain


def scenario_labels(scs: list[Scenario], label: Labeller = plain_label, order: Sequence[str] = ()
                    ) -> dict[tuple[str, str, str], str]:
    """Each scenario in reader words, naming only what varies between them ("mlp, batch
    1"; "the one scenario" when nothing does), in ``order`` (the topic's parameters as its
    YAML declares them), then the settings."""
    values: dict[str, set[str]] = defaultdict(set)
    for sc in scs:
        for k, v in {**sc.params, **sc.settings}.items():
            values[k].add(str(v))
    rank = {k: i for i, k in enumerate(order)}
    varying = sorted((k for k in values if len(values[k]) > 1), key=lambda k: (rank.get(k, len(rank)), k))
    out = {}
    for sc in scs:
        where = {**sc.params, **sc.settings}
        out[sc.key] = ", ".join(label(k, where[k]) for k in varying if k in where) or "the one scenario"
    return out


def expected(claim: Claim) -> Finding | None:
    """What the claim's source said the candidate is (``expect``, default faster); None for
    a comparison no source made (``expect: none``)."""
    return EXPECTED[str(claim.get("expect", "faster"))]


@dataclass
class ClaimCheck:
    """A claim's comparison in one scenario."""

    claim_id: str
    scenario: Scenario
    ratio: Ratio | None            # the candidate's speedup over the baseline
    noise: NoiseFloor | None
    finding: Finding               # faster / slower / the same / unclear, or no results (failed, wrong output)
    margin: float | None = None    # the band "the same" means: the larger of the claim's minimum effect and the noise
    note: str | None = None        # e.g. the candidate's output is outside tolerance
    detectable: float | None = None  # the smallest speedup (fraction) this measurement could have seen
    failed: tuple[Measurement, ...] = ()   # the side(s) whose result failed (finding: no results)
    wrong_output: bool = False       # the candidate's output is outside tolerance: its speed counts for nothing

    @property
    def has_data(self) -> bool:
        return self.finding != NO_DATA

    def point(self, label: str) -> Point:
        r = self.ratio
        return Point(self.finding, r.point if r else None, r.low if r else None, r.high if r else None,
                     {**self.scenario.params, **self.scenario.settings}, label)


@dataclass
class ClaimResult:
    claim: Claim
    checks: list[ClaimCheck]
    label: Labeller = plain_label
    order: Sequence[str] = ()          # the topic's parameters in declared order: how scenarios are named

    @property
    def id(self) -> str:
        return str(self.claim.get("id"))

    @property
    def expect(self) -> Finding | None:
        return expected(self.claim)

    @property
    def runners(self) -> list[str]:
        return sorted({ch.scenario.runner for ch in self.checks})

    def mine(self, runner: str | None = None) -> list[ClaimCheck]:
        return [ch for ch in self.checks if runner is None or ch.scenario.runner == runner]

    def summary(self, runner: str) -> Summary:
        """The findings over the runner's scenarios (those with data)."""
        mine = [ch for ch in self.mine(runner) if ch.has_data]
        labels = scenario_labels([ch.scenario for ch in mine], self.label, self.order)
        return summarise(ch.point(labels[ch.scenario.key]) for ch in mine)

    def verdict(self, runner: str) -> Verdict | None:
        """Whether the source's answer holds on the runner; "does not hold" when every
        scenario's candidate gave a wrong output; None for a comparison no source made."""
        if self.expect is None:
            return None
        mine = self.mine(runner)
        if mine and all(ch.wrong_output for ch in mine):
            return Verdict.DOES_NOT_HOLD
        return verdict(self.expect, self.summary(runner))

    @property
    def runners_with_data(self) -> list[str]:
        return [r for r in self.runners if any(ch.has_data or ch.wrong_output for ch in self.mine(r))]

    def summary_text(self, runner: str, order: Mapping[str, list[object]] | None = None) -> str:
        """"slower in 9 of 10 scenarios (0.20×–0.95×); faster in 1: mlp, batch 1 (1.06×)",
        with the scenarios whose candidate gave a wrong output or whose results failed."""
        s = self.summary(runner)
        if not s.n:
            return self.summary_extra(runner).removeprefix("; ") or str(NO_DATA)
        return summary_text(s, order, label=self.label, total=len(self.mine(runner))) + self.summary_extra(runner)

    def summary_extra(self, runner: str) -> str:
        """What the summary leaves out: "; wrong output in 2", "; no result in 1 (failed:
        ...)"; the whole text when no scenario has data."""
        mine = self.mine(runner)
        wrong = [ch for ch in mine if ch.wrong_output]
        failed = [ch for ch in mine if not ch.has_data and not ch.wrong_output]
        if wrong and len(wrong) == len(mine):
            return ("; wrong output (outside tolerance) in the one scenario measured" if len(mine) == 1
                    else f"; wrong output (outside tolerance) in all {len(mine)} scenarios")
        text = f"; wrong output in {len(wrong)}" if wrong else ""
        if failed:
            text += f"; no result in {len(failed)} ({self.failed_text(runner)})"
        return text

    def verdict_text(self) -> str:
        """The verdict over runners: "holds", "holds on both runners", "holds on 1, does
        not hold on 1 of 2 runners"; "no results yet" (or the failures) without data."""
        runners = self.runners_with_data
        if not runners:
            return self.failed_text() or str(Verdict.NO_DATA)
        lost = [r for r in self.runners if r not in runners]
        extra = (f"; no result on {len(lost)} runner{'s' if len(lost) > 1 else ''} "
                 f"({'; '.join(str(self.failed_text(r)) for r in lost)})") if lost else ""
        if self.expect is None:
            return "a comparison no source claimed" + extra
        verdicts = [str(self.verdict(r)) for r in runners]
        if len(runners) == 1:
            return str(verdicts[0]) + extra
        kinds = list(dict.fromkeys(verdicts))
        if len(kinds) == 1:
            return f"{kinds[0]} on {'both' if len(runners) == 2 else f'all {len(runners)}'} runners" + extra
        counts = {v: verdicts.count(v) for v in kinds}
        return ", ".join(f"{v} on {counts[v]}" for v in kinds) + f" of {len(runners)} runners" + extra

    def failed_text(self, runner: str | None = None) -> str | None:
        """"failed: N cases (first error: ...)" over the checks whose results failed (on
        one runner, or all), or None when none failed."""
        return failure_summary(m for ch in self.mine(runner) for m in ch.failed)


def _failed(*sides: Measurement) -> tuple[Measurement, ...]:
    return tuple(m for m in sides if m.status != "ok")


def _margin(claim: Claim, noise: NoiseFloor) -> float:
    min_effect = claim.get("min_effect")
    return max(noise.value, MARGIN if min_effect is None else float(min_effect))


def _check(claim: Claim, sc: Scenario, r: Ratio, nf: NoiseFloor, candidate: Measurement,
           candidate_name: str) -> ClaimCheck:
    """The comparison in one scenario, with the smallest effect it could have detected.
    The margin is the larger of the noise floor and the claim's minimum effect
    (``min_effect: 0.1`` for 10%; :data:`tfperf.analyse.judge.effects.MARGIN` when it names none).

    A candidate whose output is outside tolerance is no result: however fast, speed bought
    with a wrong answer is no advice."""
    margin = _margin(claim, nf)
    detectable = stats.judge(r.point, r.low, r.high, nf.value, margin).detectable
    if candidate.within_tolerance is False:
        return ClaimCheck(str(claim.get("id")), sc, r, nf, NO_DATA, margin,
                          f"wrong output: {candidate_name}'s output is outside tolerance", detectable,
                          wrong_output=True)
    return ClaimCheck(str(claim.get("id")), sc, r, nf, effect(r.low, r.high, margin), margin, None, detectable)


def check_claim(claim: Claim, scs: Iterable[Scenario], noise: list[Noise],
                cache: RatioCache) -> ClaimResult:
    if is_per_step(claim):
        return ClaimResult(claim, _per_step_checks(claim, scs, noise))
    candidate, baseline = str(claim.get("candidate")), str(claim.get("baseline"))
    checks: list[ClaimCheck] = []
    for sc in scs:
        if not sc.matches(claim.get("where")):
            continue
        c, b = sc.variants.get(candidate), sc.variants.get(baseline)
        if c is None or b is None:
            continue
        if not (c.ok and b.ok):
            bad = c if not c.ok else b
            checks.append(ClaimCheck(str(claim.get("id")), sc, None, None, NO_DATA,
                                     note=f"{bad.variant}: {exclusion_reason(bad)}", failed=_failed(c, b)))
            continue
        nf = pair_noise(noise, b, c, sc.topic)
        checks.append(_check(claim, sc, cache.speedup(b, c), nf, c, candidate))
    return ClaimResult(claim, checks)


def _per_step_checks(claim: Claim, scs: Iterable[Scenario], noise: list[Noise]) -> list[ClaimCheck]:
    """``compare: per_step``: per scenario apart from the step count (the topic's
    ``per_step`` parameter), the claim judged on the two variants' cost per step
    (:func:`tfperf.analyse.judge.per_step.per_step_ratio`) instead of per call, so that a call's
    fixed cost (fit() setting up an epoch) does not decide a claim about training steps.
    Scenarios measured at one step count are left out; the noise floor is the larger of
    the step counts' floors."""
    param = claim.get(PARAM_KEY)
    if not param:
        raise ValueError(f"claim {claim.get('id')!r} compares per step but was not loaded with its topic's "
                         "per_step parameter (tfperf.cases.with_step_param)")
    candidate, baseline = str(claim.get("candidate")), str(claim.get("baseline"))
    checks: list[ClaimCheck] = []
    for g in step_scenarios((sc for sc in scs if sc.matches(claim.get("where"))), str(param)):
        c, b = g.sides(candidate, baseline)
        if len(c) < 2:
            continue
        bad = [m for m in (*c.values(), *b.values()) if not m.ok]
        if bad:
            checks.append(ClaimCheck(str(claim.get("id")), g.scenario, None, None, NO_DATA,
                                     note=f"{bad[0].variant}: {exclusion_reason(bad[0])}", failed=_failed(*bad)))
            continue
        nf = max((pair_noise(noise, b[k], c[k], g.scenario.topic) for k in c), key=lambda n: n.value)
        wrong = next((m for m in c.values() if m.within_tolerance is False), next(iter(c.values())))
        check = _check(claim, g.scenario, per_step_ratio(b, c), nf, wrong, candidate)
        check.note = check.note or (f"per step, from calls of {' and '.join(map(str, sorted(c)))} {param} "
                                    "(separate scenarios, not measured side by side)")
        checks.append(check)
    return checks


def is_settings_claim(claim: Claim) -> bool:
    return "candidate_settings" in claim or "baseline_settings" in claim


def _has(settings: dict[str, str], want: Mapping[str, object]) -> bool:
    return all(str(settings.get(k)) == str(v) for k, v in want.items())


def check_settings_claim(claim: Claim, measurements: Iterable[Measurement], topic: str,
                         noise: list[Noise], cache: RatioCache,
                         controls: Sequence[Control] = ()) -> ClaimResult:
    """A claim between two settings groups. A scenario is a runner, the parameters and the
    settings the claim does not set; ``where`` may name parameters and those settings.
    The noise floor is the larger of the two groups' floors. When one of the topic's
    ``controls`` (:func:`tfperf.analyse.judge.scenarios.controls_for`) failed in the scenario, a clear finding
    becomes "unclear": the processes were not comparable."""
    candidate, baseline = str(claim.get("candidate")), str(claim.get("baseline"))
    cs = {str(k): str(v) for k, v in (claim.get("candidate_settings") or {}).items()}
    bs = {str(k): str(v) for k, v in (claim.get("baseline_settings") or {}).items()}
    keys = set(cs) | set(bs)
    ms = [m for m in measurements if m.topic == topic]
    index = control_index(ms)
    checks: list[ClaimCheck] = []
    for c in ms:
        if c.variant != candidate or not _has(c.settings, cs):
            continue
        common = {k: v for k, v in c.settings.items() if k not in keys}
        b = index.get((c.runner, c.params_id, baseline, settings_id({**common, **bs})))
        sc = Scenario(c.runner, topic, c.params, common)
        if b is None or not sc.matches(claim.get("where")):
            continue
        sc.variants = {c.settings_id: c, b.settings_id: b}
        if not (c.ok and b.ok):
            bad = c if not c.ok else b
            checks.append(ClaimCheck(str(claim.get("id")), sc, None, None, NO_DATA,
                                     note=f"{bad.settings_id}: {exclusion_reason(bad)}", failed=_failed(c, b)))
            continue
        nf = pair_noise(noise, b, c, topic)
        check = _check(claim, sc, cache.speedup(b, c), nf, c, c.settings_id)
        failed = [x for x in controls_for(c, controls, index, noise, cache) if x.failed]
        if failed and check.finding not in (Finding.UNCLEAR, NO_DATA):
            check.finding = Finding.UNCLEAR
            check.note = f"unclear: control failed ({failed[0].describe()})"
        checks.append(check)
    checks.sort(key=lambda ch: ch.scenario.key)
    return ClaimResult(claim, checks)


def check_any_claim(claim: Claim, measurements: list[Measurement], topic: str,
                    noise: list[Noise], cache: RatioCache,
                    controls: Sequence[Control] = ()) -> ClaimResult:
    if is_settings_claim(claim):
        return check_settings_claim(claim, measurements, topic, noise, cache, controls)
    return check_claim(claim, scenarios(measurements, topic), noise, cache)


def runner_findings(checks: Iterable[ClaimCheck]) -> dict[str, list[ClaimCheck]]:
    """The checks per runner, runners sorted."""
    out: dict[str, list[ClaimCheck]] = defaultdict(list)
    for ch in checks:
        out[ch.scenario.runner].append(ch)
    return dict(sorted(out.items()))


__all__ = ["NO_DATA", "ClaimCheck", "ClaimResult", "Labeller", "check_any_claim", "check_claim",
           "check_settings_claim", "expected", "is_settings_claim", "plain_label", "runner_findings",
           "scenario_labels"]
