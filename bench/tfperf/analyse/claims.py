"""Verdicts on the claims a topic makes ("A is faster than B where ..."): per scenario,
per runner ("holds on N of M runners"). Across TensorFlow releases:
:mod:`tfperf.analyse.version_verdicts`.

Two kinds of claim: ``claims:`` compare two variants inside one settings group;
``settings_claims:`` compare two settings groups (``faster_settings`` against
``slower_settings``, merged into the scenario's other settings) for the same variant. A claim
between variants with ``compare: per_step`` is judged on the cost per step, a call's fixed
cost apart (:mod:`tfperf.analyse.per_step`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .. import stats
from ..topic_schema import Claim, Control
from .compare import Scenario, exclusion_reason, scenarios
from .controls import controls_for
from .controls import index as control_index
from .failures import failure_summary
from .noise import NoiseFloor
from .per_step import PARAM_KEY, is_per_step, per_step_ratio, step_scenarios
from .ratios import Ratio, RatioCache
from .records import Measurement, Noise, settings_id
from .settings import pair_noise

NO_DATA = "no data"
MIXED = "mixed"


@dataclass
class ClaimCheck:
    """One claim in one scenario."""

    claim_id: str
    scenario: Scenario
    ratio: Ratio | None            # speedup of `faster` over `slower`
    noise: NoiseFloor | None
    verdict: str                   # holds / refuted / inconclusive / no data
    note: str | None = None        # e.g. the faster variant's output is outside tolerance
    detectable: float | None = None  # the smallest speedup (fraction) this measurement could have seen
    direction: str | None = None     # faster / slower / same / unclear
    failed: tuple[Measurement, ...] = ()   # the side(s) whose result failed (verdict "no data")
    wrong_output: bool = False       # the claimed winner's output is outside tolerance: refuted


@dataclass
class ClaimResult:
    claim: Claim
    checks: list[ClaimCheck]
    by_runner: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return str(self.claim.get("id"))

    @property
    def holds_on(self) -> int:
        return sum(1 for v in self.by_runner.values() if v == stats.HOLDS)

    @property
    def runners_with_data(self) -> int:
        return sum(1 for v in self.by_runner.values() if v != NO_DATA)

    def counts(self, runner: str | None = None) -> dict[str, int]:
        c: dict[str, int] = defaultdict(int)
        for ch in self.checks:
            if runner is None or ch.scenario.runner == runner:
                c[ch.verdict] += 1
        return dict(c)

    @property
    def outcome(self) -> str:
        """Over every scenario on every runner: "holds", "does not hold" or "inconclusive"
        when all scenarios agree, "mixed" when they do not, "no data" without any. What
        prose branches on (``tfperf.when``)."""
        return outcome(self.checks)

    def failed_text(self, runner: str | None = None) -> str | None:
        """"failed: N cases (first error: ...)" over the checks whose results failed (on
        one runner, or all), or None when none failed."""
        return failure_summary(m for ch in self.checks if runner is None or ch.scenario.runner == runner
                           for m in ch.failed)

    @property
    def summary(self) -> str:
        """What was found, in words (:func:`verdict_words`): on one runner "holds",
        "refuted: slower", "depends on the case", ...; on several, "holds on all 2
        runners" or "holds on 1, unclear on 1 of 2 runners". Without any result,
        "failed: N cases (first error: ...)" when its cases were run and failed, else
        "no results yet"."""
        if not self.runners_with_data:
            return self.failed_text() or "no results yet"
        words: dict[str, str] = {}
        for runner in self.by_runner:
            mine = [ch for ch in self.checks if ch.scenario.runner == runner and ch.verdict != NO_DATA]
            if mine:
                words[runner] = verdict_words(mine)
        return self._said(words) + self._failed_elsewhere()

    @staticmethod
    def _said(words: dict[str, str]) -> str:
        n = len(words)
        if n == 1:
            return next(iter(words.values()))
        kinds = list(dict.fromkeys(sorted(words.values(), key=_word_rank)))
        if len(kinds) == 1:
            return f"{kinds[0]} on all {n} runners"
        counts = {w: sum(1 for v in words.values() if v == w) for w in kinds}
        return ", ".join(f"{w} on {counts[w]}" for w in kinds) + f" of {n} runners"

    def _failed_elsewhere(self) -> str:
        """"; failed on 1 runner (...)" for runners where the claim's cases only failed, so
        a verdict from the others never hides them."""
        failed = [r for r, v in self.by_runner.items() if v == NO_DATA and self.failed_text(r)]
        if not failed:
            return ""
        return f"; failed on {len(failed)} runner{'s' if len(failed) != 1 else ''} ({self.failed_text(failed[0])})"


def verdict_words(checks: Iterable[ClaimCheck]) -> str:
    """A set of checks said as a reader wants it, never merging "refuted" with "unclear":

    * "holds": every scenario holds;
    * "refuted: slower" (the claimed winner is slower everywhere), "refuted: no
      difference" (level within the margin), "refuted: not faster" (level or slower),
      "refuted: wrong output", or "refuted";
    * "unclear": no scenario can tell;
    * "depends on the case": some scenarios hold and others are refuted;
    * "holds where clear" / "refuted where clear": one of those beside unclear ones."""
    cs = [c for c in checks if c.verdict != NO_DATA]
    states = {c.verdict for c in cs}
    if not states:
        return NO_DATA
    if states == {stats.HOLDS}:
        return "holds"
    if states == {stats.DOES_NOT_HOLD}:
        if all(c.wrong_output for c in cs):
            return "refuted: wrong output"
        ways = {c.direction for c in cs}
        if ways <= {"slower"}:
            return "refuted: slower"
        if ways <= {"same"}:
            return "refuted: no difference"
        if ways <= {"same", "slower"}:
            return "refuted: not faster"
        return "refuted"
    if states == {stats.INCONCLUSIVE}:
        return "unclear"
    if {stats.HOLDS, stats.DOES_NOT_HOLD} <= states:
        return "depends on the case"
    return "holds where clear" if stats.HOLDS in states else "refuted where clear"


def _word_rank(word: str) -> int:
    return 0 if word.startswith("holds") else 1 if word.startswith("depends") else 2 if word.startswith("refuted") else 3


def in_words(check: ClaimCheck) -> str:
    """The check as prose reads it: "holds"; "refuted" only when the effect goes the other
    way beyond the noise; "inconclusive" when the two are level within it (a claim refuted
    because there is no effect) or when the interval is too wide to tell."""
    if check.verdict == stats.DOES_NOT_HOLD:
        if check.wrong_output:
            return stats.DOES_NOT_HOLD
        return stats.DOES_NOT_HOLD if check.direction in (None, "slower") else stats.INCONCLUSIVE
    return check.verdict


def counts_text(checks: Iterable[ClaimCheck]) -> str:
    """"holds in 2, refuted in 1, unclear in 3 of 6 scenarios"."""
    checks = [c for c in checks if c.verdict != NO_DATA]
    n = {v: sum(1 for c in checks if c.verdict == v) for v in (stats.HOLDS, stats.DOES_NOT_HOLD, stats.INCONCLUSIVE)}
    return (f"holds in {n[stats.HOLDS]}, refuted in {n[stats.DOES_NOT_HOLD]}, unclear in {n[stats.INCONCLUSIVE]} "
            f"of {len(checks)} scenario{'s' if len(checks) != 1 else ''}")


def outcome(checks: Iterable[ClaimCheck]) -> str:
    """One word for a set of checks: the verdict they all share, "mixed", or "no data"."""
    seen = {c.verdict for c in checks if c.verdict != NO_DATA}
    if not seen:
        return NO_DATA
    return seen.pop() if len(seen) == 1 else MIXED


def runner_verdict(verdicts: list[str]) -> str:
    """A claim holds on a runner when it holds in every matching scenario measured there,
    does not hold when it fails in every one, and is inconclusive otherwise."""
    definite = [v for v in verdicts if v != NO_DATA]
    if not definite:
        return NO_DATA
    if all(v == stats.HOLDS for v in definite):
        return stats.HOLDS
    if all(v == stats.DOES_NOT_HOLD for v in definite):
        return stats.DOES_NOT_HOLD
    return stats.INCONCLUSIVE


def _result(claim: Claim, checks: list[ClaimCheck]) -> ClaimResult:
    """The claim's checks with each runner's verdict over its scenarios."""
    per_runner: dict[str, list[str]] = defaultdict(list)
    for ch in checks:
        per_runner[ch.scenario.runner].append(ch.verdict)
    return ClaimResult(claim=claim, checks=checks,
                       by_runner={r: runner_verdict(v) for r, v in sorted(per_runner.items())})


def _failed(*sides: Measurement) -> tuple[Measurement, ...]:
    return tuple(m for m in sides if m.status != "ok")


def _check(claim: Claim, sc: Scenario, r: Ratio, nf: NoiseFloor, winner: Measurement,
           winner_name: str) -> ClaimCheck:
    """A claim's verdict in one scenario, with the smallest effect it could have detected.
    The margin is the larger of the noise floor and the claim's minimum effect
    (``min_effect: 0.1`` for 10%; :data:`tfperf.stats.MIN_EFFECT` when it names none).

    A claimed winner whose output is outside tolerance never wins: however fast, the
    claim is "refuted: wrong output" (speed bought with a wrong answer is no advice)."""
    min_effect = claim.get("min_effect")
    v = stats.judge(r.point, r.low, r.high, nf.value,
                    stats.MIN_EFFECT if min_effect is None else float(min_effect))
    wrong = winner.within_tolerance is False
    state = stats.DOES_NOT_HOLD if wrong else v.state
    note = f"refuted: wrong output ({winner_name}'s output is outside tolerance)" if wrong else None
    return ClaimCheck(str(claim.get("id")), sc, r, nf, state, note, detectable=v.detectable, direction=v.direction,
                      wrong_output=wrong)


def check_claim(claim: Claim, scs: Iterable[Scenario], noise: list[Noise],
                cache: RatioCache) -> ClaimResult:
    if is_per_step(claim):
        return _result(claim, _per_step_checks(claim, scs, noise))
    faster, slower = str(claim.get("faster")), str(claim.get("slower"))
    checks: list[ClaimCheck] = []
    for sc in scs:
        if not sc.matches(claim.get("where")):
            continue
        f, s = sc.variants.get(faster), sc.variants.get(slower)
        if f is None or s is None:
            continue
        if not (f.ok and s.ok):
            bad = f if not f.ok else s
            checks.append(ClaimCheck(str(claim.get("id")), sc, None, None, NO_DATA,
                                     f"{bad.variant}: {exclusion_reason(bad)}", failed=_failed(f, s)))
            continue
        nf = pair_noise(noise, s, f, sc.topic)
        r = cache.speedup(s, f)
        checks.append(_check(claim, sc, r, nf, f, faster))
    return _result(claim, checks)


def _per_step_checks(claim: Claim, scs: Iterable[Scenario], noise: list[Noise]) -> list[ClaimCheck]:
    """``compare: per_step``: per scenario apart from the step count (the topic's
    ``per_step`` parameter), the claim judged on the two variants' cost per step
    (:func:`tfperf.analyse.per_step.per_step_ratio`) instead of per call, so that a call's
    fixed cost (fit() setting up an epoch) does not decide a claim about training steps.
    Scenarios measured at one step count are left out; the noise floor is the larger of
    the step counts' floors."""
    param = claim.get(PARAM_KEY)
    if not param:
        raise ValueError(f"claim {claim.get('id')!r} compares per step but was not loaded with its topic's "
                         "per_step parameter (analyse.per_step.with_step_param)")
    faster, slower = str(claim.get("faster")), str(claim.get("slower"))
    checks: list[ClaimCheck] = []
    for g in step_scenarios((sc for sc in scs if sc.matches(claim.get("where"))), str(param)):
        f, s = g.sides(faster, slower)
        if len(f) < 2:
            continue
        bad = [m for m in (*f.values(), *s.values()) if not m.ok]
        if bad:
            checks.append(ClaimCheck(str(claim.get("id")), g.scenario, None, None, NO_DATA,
                                     f"{bad[0].variant}: {exclusion_reason(bad[0])}", failed=_failed(*bad)))
            continue
        nf = max((pair_noise(noise, s[k], f[k], g.scenario.topic) for k in f), key=lambda n: n.value)
        winner = next((m for m in f.values() if m.within_tolerance is False), next(iter(f.values())))
        check = _check(claim, g.scenario, per_step_ratio(s, f), nf, winner, faster)
        check.note = check.note or (f"per step, from calls of {' and '.join(map(str, sorted(f)))} {param} "
                                    "(separate scenarios, not measured side by side)")
        checks.append(check)
    return checks


def is_settings_claim(claim: Claim) -> bool:
    return "faster_settings" in claim or "slower_settings" in claim


def _has(settings: dict[str, str], want: Mapping[str, object]) -> bool:
    return all(str(settings.get(k)) == str(v) for k, v in want.items())


def check_settings_claim(claim: Claim, measurements: Iterable[Measurement], topic: str,
                         noise: list[Noise], cache: RatioCache,
                         controls: tuple[Control, ...] = ()) -> ClaimResult:
    """A claim between two settings groups. A scenario is a runner, the parameters and the
    settings the claim does not set; ``where`` may name parameters and those settings.
    The noise floor is the larger of the two groups' floors. When one of the topic's
    ``controls`` (:mod:`tfperf.analyse.controls`) failed in the scenario, a holding or
    refuted verdict becomes "unclear": the processes were not comparable."""
    faster, slower = str(claim.get("faster")), str(claim.get("slower"))
    fs = {str(k): str(v) for k, v in (claim.get("faster_settings") or {}).items()}
    ss = {str(k): str(v) for k, v in (claim.get("slower_settings") or {}).items()}
    keys = set(fs) | set(ss)
    ms = [m for m in measurements if m.topic == topic]
    index = control_index(ms)
    checks: list[ClaimCheck] = []
    for f in ms:
        if f.variant != faster or not _has(f.settings, fs):
            continue
        common = {k: v for k, v in f.settings.items() if k not in keys}
        s = index.get((f.runner, f.params_id, slower, settings_id({**common, **ss})))
        sc = Scenario(f.runner, topic, f.params, common)
        if s is None or not sc.matches(claim.get("where")):
            continue
        sc.variants = {f.settings_id: f, s.settings_id: s}
        if not (f.ok and s.ok):
            bad = f if not f.ok else s
            checks.append(ClaimCheck(str(claim.get("id")), sc, None, None, NO_DATA,
                                     f"{bad.settings_id}: {exclusion_reason(bad)}", failed=_failed(f, s)))
            continue
        nf = pair_noise(noise, s, f, topic)
        r = cache.speedup(s, f)
        check = _check(claim, sc, r, nf, f, f.settings_id)
        failed = [c for c in controls_for(f, controls, index, noise, cache) if c.failed]
        if failed and not check.wrong_output and check.verdict != stats.INCONCLUSIVE:
            check.verdict = stats.INCONCLUSIVE
            check.note = f"unclear: control failed ({failed[0].describe()})"
        checks.append(check)
    checks.sort(key=lambda c: c.scenario.key)
    return _result(claim, checks)


def check_any_claim(claim: Claim, measurements: list[Measurement], topic: str,
                    noise: list[Noise], cache: RatioCache,
                    controls: tuple[Control, ...] = ()) -> ClaimResult:
    if is_settings_claim(claim):
        return check_settings_claim(claim, measurements, topic, noise, cache, controls)
    return check_claim(claim, scenarios(measurements, topic), noise, cache)
