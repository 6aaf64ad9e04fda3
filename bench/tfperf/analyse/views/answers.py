"""The reader's questions and their answers, in the guide's one vocabulary
(:mod:`tfperf.analyse.judge.effects`), and the tables that gather the claims.

* :func:`claim_answer`: one claim on each runner: its finding over the runner's scenarios
  in words, with magnitudes and the exceptions named, whether the source's answer holds,
  and the hardware and release it was measured on. Every place that states a claim's
  finding (home, the topic's answers, claims table and "Do this", the versions strip, the
  this-machine box, ``tfperf compare``) takes its words from here.
* :func:`question_answers`: a topic's ``questions:``, each answered from its claims: a lead
  ("Yes", "No", "It depends", "Unclear") from the leading claim, then one sentence per
  claim and runner.
* :func:`findings`: the home page's table of every claim: per runner, its finding in words
  and whether the source's answer holds (:func:`claim_answer`), with whether its finding
  changed across releases and whether some of its results are stale.
* :func:`machine_differences`: the claims whose finding differs between CPUs (the Runners
  page), out of those measured on two or more runners.
* :func:`versions_table`: the home page's table of claims × TensorFlow releases: every
  claim measured with two or more releases, grouped by topic in the pages' reading order,
  with its finding per release (:mod:`tfperf.analyse.judge.version_verdicts`); one row per
  runner where several runners were measured across releases.
* :func:`then_now`: what changed since the source: a source's figure (quoted from
  ``docs/sources/<topic>.yaml``, :mod:`tfperf.analyse.origins`) beside today's finding on
  the claim that tests it, in the words of :func:`claim_answer`: "2019: compile() made
  predict() 30× slower → today: does not hold: the same in 28 of 30 scenarios ...".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...arrival import BACK_TO_BACK, Pattern, parse_id, words
from ...hardware import CORE_NAMES, core_name, isa_class, may_be_one_cpu, vendor
from ..dataset import Dataset
from ..judge.claims import ClaimResult
from ..judge.effects import (
    EXPECTED,
    SUBSTANTIAL_SIZE,
    Finding,
    Summary,
    Verdict,
    brief_text,
    phrase,
    range_text,
    ratio_text,
    summary_rest,
)
from ..judge.version_verdicts import NOT_MEASURED, VersionCell, VersionStrip
from ..origins import SourceFigure, Sources
from ..records import Measurement, Runner
from ..versions import listing, minor, short_labels, sort_versions

ISA_WORDS = {"avx512": "AVX-512", "neon": "NEON"}     # as vendors and TensorFlow's docs spell them


def hardware_name(runner: Runner | None, label: str = "") -> str:
    """A runner's machine as a reader names it: "2-core Intel Xeon (AMX)", "2-core AMD EPYC
    Zen 4 (AVX-512)" (with the core generation where :func:`tfperf.hardware.core_name`
    knows it, and the family and model numbers where it knows only those, so two CPUs
    are never given one name); the label when no environment was recorded."""
    env = runner.latest_environment() if runner is not None else None
    if env is None:
        return label or "unknown machine"
    model = str(env.get("cpu_model") or "")
    model = re.sub(r"\((R|TM|tm)\)", "", model)
    model = re.sub(r"\b(CPU|Processor)\b.*$", "", model).strip() or vendor(model, str(env.get("machine") or ""))
    core = core_name(env)
    if core is not None:          # "Zen 4"; "family 6 model 167" for a CPU outside the tables
        model = f"{model} {core}"
    isa = isa_class(env.get("isa") or {})
    extra = "" if isa in ("unknown", "base") else f" ({ISA_WORDS.get(isa, isa.upper())})"
    gpu = f", {env['gpus'][0].get('name')}" if env.get("gpus") else ""
    return f"{env.get('cores')}-core {model}{extra}{gpu}"


def cpu_text(env: Mapping[str, Any]) -> str:
    """An environment record's CPU for the Runners table: its model name, and its core
    generation with the numbers that name it: "AMD EPYC (Zen 4: family 25, model 17,
    stepping 1)"; "AMD EPYC (Zen 5, told by the instruction sets TensorFlow listed)" for a
    record made before the numbers were read, and "Intel(R) Xeon(R) Processor (family and
    model not recorded)" where nothing else tells."""
    model = str(env.get("cpu_model") or "–")
    core = core_name(env)
    signature = env.get("cpu_signature")
    numbers = ", ".join(f"{k} {v}" for k, v in signature.items()) if isinstance(signature, Mapping) else ""
    if core is None:
        unrecorded = signature is None and vendor(model) in ("intel", "amd")
        return f"{model} (family and model not recorded)" if unrecorded else model
    if not numbers:
        return f"{model} ({core}, told by the instruction sets TensorFlow listed)"
    return f"{model} ({core}: {numbers})" if core in CORE_NAMES else f"{model} ({numbers})"


def runner_name(ds: Dataset, label: str) -> str:
    """The runner ``label`` as a reader names it (:func:`hardware_name`), with the label added
    where another runner of ``ds`` has the same machine, and the profile of a series that
    is not the runner's main one: "2-core AMD EPYC (AVX2)", "2-core AMD EPYC (AVX2), quick
    profile"."""
    base, _, profile = label.partition("/")          # a series "<label>/<profile>" (a quick run)
    names = {r: hardware_name(ds.runners.get(r), r) for r in ds.runners}
    name = names.get(base) or hardware_name(None, base)
    if list(names.values()).count(name) > 1:
        name = f"{name} ({base})"
    return f"{name}, {profile} profile" if profile else name


def maybe_one_cpu(ds: Dataset) -> list[tuple[str, str]]:
    """Pairs of runner labels whose latest records may be one CPU
    (:func:`tfperf.hardware.may_be_one_cpu`): the first was measured before the harness read
    the CPU's family and model, the second reports them, and nothing else tells them apart."""
    envs = {label: env for label, r in sorted(ds.runners.items()) if (env := r.latest_environment()) is not None}
    return [(a, b) for a, ea in envs.items() for b, eb in envs.items()
            if a != b and core_name(ea) is None and may_be_one_cpu(ea, eb)]


def short_name(hardware: str, same_cores: bool = False) -> str:
    """A hardware name without its vendor: "2-core Xeon (AMX)", "2-core EPYC (AVX2)"; without
    its core count when every runner has the same (``same_cores``): "EPYC (AVX2)"; and
    without its instruction sets where it names its core: "EPYC Zen 4"."""
    words = hardware.split(" ")
    if len(words) > 3 and words[0].endswith("-core") and words[1].lower() in ("intel", "amd", "apple", "arm"):
        words = [words[0], *words[2:]]
    if same_cores and len(words) > 1 and words[0].endswith("-core"):
        words = words[1:]
    return _CORE_THEN_ISA.sub(r"\1", " ".join(words))


# "EPYC Zen 4 (AVX-512)" -> "EPYC Zen 4": a named core says the instruction sets already, and
# the short names fill the first screen's lines (the full name stays in tooltips and footnotes).
_CORE_THEN_ISA = re.compile(
    r"\b(" + "|".join(sorted((re.escape(c) for c in CORE_NAMES), key=len, reverse=True))
    + r") \([^)]*\)$")


def _same_cores(ds: Dataset) -> bool:
    """Whether every runner of ``ds`` has one core count, and more than one runner does:
    then the short names leave the count out (the footnote's full names keep it)."""
    counts = {hardware_name(r, label).split(" ")[0] for label, r in ds.runners.items()}
    return len(ds.runners) > 1 and len(counts) == 1 and next(iter(counts)).endswith("-core")


@dataclass(frozen=True)
class RunnerAnswer:
    """One claim on one runner."""

    runner: str
    hardware: str                 # hardware_name ("2-core Intel Xeon (AMX)")
    short: str                    # short_name ("Xeon (AMX)")
    releases: str                 # the TensorFlow releases of its results ("2.21")
    summary: Summary
    text: str                     # the summary in words ("slower in 9 of 10 scenarios (0.20×–0.95×); ...")
    rest: str                     # the same without its leading finding ("in 9 of 10 scenarios ...")
    brief: str                    # without the exceptions' names ("faster in 3 of 4 scenarios (...); unclear in 1")
    verdict: Verdict | None       # None: a comparison no source made
    sides: str = ""               # ``rest`` with the scenarios that could not tell counted, not named ("...; unclear in 2")
    counted: str = ""             # ``sides`` with the listed scenarios counted too ("faster for MLP (…); slower in 5")

    @property
    def finding(self) -> Finding:
        return self.summary.finding


@dataclass(frozen=True)
class ClaimAnswer:
    topic: str
    claim_id: str
    claim_text: str               # the source's claim, as the topic YAML quotes it
    candidate: str                # short names of the two sides
    baseline: str
    scope: str                    # the claim's `where` in words ("at batch 1"), or ""
    expect: Finding | None        # what the source said; None: a comparison no source made
    runners: tuple[RunnerAnswer, ...]
    verdict_text: str             # over runners ("holds on both runners")

    def by_finding(self) -> list[tuple[Finding, tuple[RunnerAnswer, ...], str]]:
        """The runners grouped by their finding, with each group's range (:func:`_by_finding`)."""
        return _by_finding(self)

    def by_machines(self) -> list[tuple[Finding, tuple[RunnerAnswer, ...], str, tuple[Finding, ...]]]:
        """The runners grouped by their leading finding alone (:func:`_by_machines`)."""
        return _by_machines(self)

    def sentence(self, r: RunnerAnswer) -> str:
        """The finding as a sentence: "jit_compile=True is slower than plain tf.function in
        9 of 10 scenarios (0.20×–0.95×); faster in 1: mlp, batch 1 (1.06×)"."""
        f = r.finding
        lead = phrase(f, f"{self.candidate} {self.scope}".strip(), self.baseline)
        if f in (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR):
            return f"{lead} {r.rest}"
        if f == Finding.NO_DATA and r.rest:          # every result failed, or gave a wrong output
            return f"{self.candidate} {self.scope}".strip() + f" against {self.baseline}: {r.rest}"
        return f"{lead}: {r.rest}" if r.rest else lead

    @property
    def disagreement(self) -> str | None:
        """Where the runners' findings differ, in one sentence: "The machines disagree: faster
        on the Xeon (AMX), the same on the EPYC (AVX2)."; None where they agree."""
        clear = {r.finding for r in self.runners if r.finding in (Finding.FASTER, Finding.SLOWER, Finding.SAME,
                                                                   Finding.DEPENDS)}
        if len(clear) < 2:               # one machine unclear is no disagreement: it could not tell
            return None
        return "The machines disagree: " + ", ".join(f"{r.finding} on the {r.short}" for r in self.runners) + "."

    def line(self) -> str:
        """The claim on every runner in one line, for a question with several claims: "ONNX
        Runtime at batch 1 against a tf.function: faster in all 4 scenarios (2.2×–11×)",
        each runner's part after its short name when there are several."""
        head = f"{self.candidate}{' ' + self.scope if self.scope else ''} against {self.baseline}"
        if len(self.runners) == 1:
            return f"{head}: {self.runners[0].text}"
        return f"{head}: " + "; ".join(f"{r.short}: {r.text}" for r in self.runners)



def _releases(cr: ClaimResult, runner: str) -> str:
    versions = sort_versions({m.tensorflow for ch in cr.mine(runner) for m in ch.scenario.variants.values()})
    return ", ".join(dict.fromkeys(minor(v) for v in versions)) or "–"


def claim_answer(ds: Dataset, topic: str, claim_id: str, arrival: str | None = None) -> ClaimAnswer | None:
    """The claim judged back to back, or on the per-request pattern ``arrival`` names."""
    cr = ds.claim_result(topic, claim_id, arrival)
    if cr is None:
        return None
    info = ds.topics.get(topic)
    order = info.param_values if info else None
    claim = cr.claim
    if "candidate_settings" in claim or "baseline_settings" in claim:
        cand, base = (", ".join(ds.setting_label(topic, k, v) for k, v in (scope or {}).items())
                      for scope in (claim.get("candidate_settings"), claim.get("baseline_settings")))
    else:
        cand, base = ((info.display_name(str(claim.get(side))) if info else str(claim.get(side)))
                      for side in ("candidate", "baseline"))
    same_cores = _same_cores(ds)
    def rest(r: str, s: Summary, name_unclear: bool = True, name_listed: bool = True) -> str:
        return (summary_rest(s, order, label=cr.label, total=len(cr.mine(r)), name_unclear=name_unclear,
                             name_listed=name_listed)
                + cr.summary_extra(r)).removeprefix("; ")

    runners = tuple(RunnerAnswer(r, hw, short_name(hw, same_cores), _releases(cr, r), s,
                                 cr.summary_text(r, order), rest(r, s),
                                 brief_text(s, total=len(cr.mine(r))) if s.n else cr.summary_text(r, order), cr.verdict(r),
                                 rest(r, s, name_unclear=False), rest(r, s, name_unclear=False, name_listed=False))
                    for r in cr.runners for s in (cr.summary(r),)       # a runner whose results failed says so
                    for hw in (hardware_name(ds.runners.get(r), r),))
    where: Mapping[str, object] = {k: v for k, v in (claim.get("where") or {}).items()
                                   if info is None or k in info.param_values}
    def values(vs: object) -> list[object]:
        return vs if isinstance(vs, list) else [vs]
    # "at batch 1" for numbers, "for the small model or small_2019 model" for names
    scope = " and ".join(
        ("at " if all(isinstance(v, (int, float)) for v in values(vs)) else "for ")
        + " or ".join(info.value_label(k, v) if info else f"{k} {v}" for v in values(vs))
        for k, vs in where.items())
    if claim.get("compare") == "per_step":          # the fixed cost of a call apart (analyse/judge/per_step.py)
        base = f"{base} (per step)"
    return ClaimAnswer(topic, cr.id, str(claim.get("text", cr.id)), cand, base, scope, cr.expect, runners,
                       cr.verdict_text())


# -- questions -------------------------------------------------------------------------------

LEADS = {"yes": "Yes", "no": "No", Finding.DEPENDS: "It depends on the case", Finding.UNCLEAR: "Unclear",
         Finding.NO_DATA: "No results yet"}


def lead_word(finding: Finding, yes: Finding | None) -> str:
    """"Yes" when the leading claim's finding is the one that means yes, "No" for another
    clear finding, else "It depends", "Unclear" or "No results yet"; no word ("") for a
    question that is not asked yes or no."""
    if yes is None:
        return ""
    if finding == yes:
        return LEADS["yes"]
    if finding in (Finding.FASTER, Finding.SLOWER, Finding.SAME):
        return LEADS["no"]
    return LEADS[finding]


def _runner_lead(claims: Sequence[ClaimAnswer], runner: str, yes: Finding | None) -> str:
    """A question's lead on one runner: the leading claim's word, except that a "No" where
    another of its claims says "Yes" is "It depends on the case": "Does mixed_bfloat16 make
    inference or training faster?" answered "No" from inference alone would hide a training
    step that is faster."""
    words = [lead_word(r.finding, yes) for c in claims for r in c.runners if r.runner == runner]
    if not words:
        return lead_word(Finding.NO_DATA, yes)
    if words[0] == LEADS["no"] and LEADS["yes"] in words[1:]:
        return LEADS[Finding.DEPENDS]
    return words[0]


@dataclass(frozen=True)
class QuestionAnswer:
    topic: str
    id: str
    ask: str
    lead: str                                  # "Yes", "No", "It depends"... (when all runners agree)
    leads: tuple[tuple[str, str], ...]         # (short hardware name, lead) per runner
    claims: tuple[ClaimAnswer, ...]            # the leading one first
    note: str | None
    arrival: str | None = None                 # the per-request pattern that answered it (None: back to back)
    changes: tuple[str, ...] = ()              # where the answer differs from back to back, one sentence each
    accuracy: tuple[str, ...] = ()             # how far the candidates' outputs are from the reference's, per runner

    @property
    def arrival_text(self) -> str:
        """What the answer is for: "Answered for requests after 10 ms idle, one at a time."."""
        if self.arrival is None:
            return ""
        a = parse_id(self.arrival)
        how = ", one at a time" if a is not None and a.pattern is Pattern.IDLE else ""
        return f"Answered for requests {words(self.arrival)}{how}."

    @property
    def hardware(self) -> list[str]:
        return list(dict.fromkeys(r.hardware for c in self.claims for r in c.runners))

    def lead_text(self) -> str:
        """The lead as a sentence: "Yes." for one machine, "No on both machines measured.",
        or, where the machines differ, once per answer with the machines that give it: "On
        the EPYC (AVX2) and EPYC Zen 4 (AVX-512): it depends on the case. On the Xeon (AMX):
        no." ("" for a question not asked yes or no)."""
        if not self.lead:
            return ""
        if len({w for _, w in self.leads}) > 1:
            machines: dict[str, list[str]] = {}          # the runners that share a word, in order
            for hw, w in self.leads:
                machines.setdefault(w, []).append(hw)
            return " ".join(f"On the {listing(hws)}: {w[0].lower()}{w[1:]}." for w, hws in machines.items())
        n = len(self.leads)
        return self.lead + (" on both machines measured." if n == 2
                            else f" on all {n} machines measured." if n > 2 else ".")

    @property
    def baseline(self) -> str:
        """The baseline most of the question's claims compare against."""
        return Counter(c.baseline for c in self.claims).most_common(1)[0][0]

    def against(self) -> str:
        """"Against X" for a question with several claims whose question does not name their
        common baseline X already; "" otherwise."""
        return "" if len(self.claims) < 2 or self.baseline in self.ask else f"Against {self.baseline}"

    def head(self, c: ClaimAnswer) -> str:
        """A claim's name in a list of the question's claims: "ONNX Runtime at batch 1",
        with " against Y" where its baseline is not the common one."""
        return (f"{c.candidate}{' ' + c.scope if c.scope else ''}"
                f"{'' if c.baseline == self.baseline else ' against ' + c.baseline}")

    def lines(self) -> list[tuple[str, str]]:
        """(hardware, sentence) per claim and runner, the leading claim first."""
        return [(r.hardware, c.sentence(r)) for c in self.claims for r in c.runners]

    def one_lines(self) -> list[str]:
        """The answer in one line, for the home page, in each of its forms, the most detailed
        first (the exceptions are on the topic's page). One claim: each machine's finding
        ("jit_compile=True is slower than plain tf.function: in 9 of 10 scenarios
        (0.20×–0.95×) on the Xeon (AMX); ..."), then the machines that share a finding named
        once, their scenarios counted together ("... in 46 of 50 scenarios on the 5
        machines (2×–3×)"). Several claims: each claim's finding with the machines that give
        it ("ONNX Runtime at batch 1: faster (2.2×–11×); a SavedModel signature: faster on
        the EPYC (AVX2), unclear on the Xeon (AMX)"), then how many machines give each ("...:
        faster on 1 of 2 machines, unclear on 1")."""
        if not any(c.runners for c in self.claims):
            return [str(Finding.NO_DATA)]
        if len(self.claims) > 1:
            against = self.against()
            start = f"{against}: " if against else ""
            forms = [start + "; ".join(f"{self.head(c)}: {say(c)}" for c in self.claims if c.runners)
                     for say in (_briefly, _counted_briefly)]
        else:
            c = self.claims[0]
            kinds = {r.finding for r in c.runners}
            head = phrase(next(iter(kinds)), c.candidate, c.baseline) if len(kinds) == 1 else (
                f"{c.candidate} against {c.baseline}")
            if len(kinds) == 1:
                each = "; ".join(f"{r.rest.split('; ')[0]} on the {r.short}" for r in c.runners)
            else:
                each = "; ".join(_runner_part(r) for r in c.runners)
            forms = [f"{head}: {each}"]
            if len(c.runners) > 1:
                f = c.runners[0].finding
                if len(kinds) == 1 and f in COUNTED:
                    share, figures, others = _pooled(f, c.runners)
                    forms.append(f"{head}: {share} on the {len(c.runners)} machines{figures}{others}")
                else:
                    forms.append(f"{head}: " + "; ".join(_group_part(g, rs) for g, rs, _, _ in c.by_machines()))
        return list(dict.fromkeys(forms))

    def one_line(self, within: int | None = None) -> str:
        """The most detailed of :meth:`one_lines` at most ``within`` characters long (the most
        compact where none is; the most detailed without ``within``): the form follows the
        line's length, not the number of machines."""
        forms = self.one_lines()
        return next((f for f in forms if within is None or len(f) <= within), forms[-1])


COUNTED = (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR)


def _pooled(f: Finding, runners: Sequence[RunnerAnswer]) -> tuple[str, str, str]:
    """Finding ``f`` of several machines counted over all their scenarios at once, instead
    of one count per machine, which makes a home-page line a paragraph on a phone (the
    topic's page keeps them apart): the share, the range and the other findings' counts,
    ("in 42 of 50 scenarios", " (1.12×–90.8×)", "; unclear in 8")."""
    pts = [p for r in runners for p in r.summary.points]
    k, n = sum(p.finding == f for p in pts), len(pts)
    figures = _range(f, runners)
    others = ", ".join(f"{g} in {m}" for g, m in Counter(p.finding for p in pts if p.finding != f).most_common())
    return (f"in all {n} scenarios" if k == n else f"in {k} of {n} scenarios",
            f" ({figures})" if figures else "", f"; {others}" if others else "")


def _runner_part(r: RunnerAnswer) -> str:
    """One machine's part of a home-page line: "on the Xeon (AMX), slower in 9 of 10
    scenarios (0.201×–0.886×)"."""
    sep = ": " if r.finding == Finding.DEPENDS else " "
    return f"on the {r.short}, {r.finding}{sep}{r.rest.split('; ')[0]}"


def _group_part(f: Finding, runners: Sequence[RunnerAnswer]) -> str:
    """The part of a home-page line for the machines that share finding ``f``, named once:
    "on the Xeon (AMX) and Xeon family 6 model 167 (AMX), slower in 17 of 20 scenarios
    (0.197×–0.886×)"; "on the EPYC (AVX2), EPYC Zen 4 and EPYC Zen 5, depends on the case:
    faster for MLP (1.09×–1.63×)" where they all split the same way."""
    if len(runners) == 1:
        return _runner_part(runners[0])
    names = listing([r.short for r in runners])
    if f in COUNTED:
        share, figures, _ = _pooled(f, runners)
        return f"on the {names}, {f} {share}{figures}"
    firsts = {r.rest.split("; ")[0].split(" (")[0] for r in runners}
    first = firsts.pop() if len(firsts) == 1 else ""
    side = next((g for g in (Finding.FASTER, Finding.SLOWER) if first.startswith(f"{g} for ")), None)
    if f == Finding.DEPENDS and side is not None:
        figures = _range(side, runners)
        return f"on the {names}, {f}: {first}{f' ({figures})' if figures else ''}"
    return f"on the {names}, {f}"


def _briefly(c: ClaimAnswer) -> str:
    """A claim's finding on every runner in a few words: "faster (2.2×–11×)", or per finding
    where they differ, each with the runners that give it: "unclear on the EPYC (AVX2), the
    same on the EPYC Zen 4, EPYC Zen 5 and Xeon (AMX)"."""
    kinds = {r.finding for r in c.runners}
    if len(kinds) == 1:
        f = kinds.pop()
        figures = _range(f, c.runners)
        return f"{f} ({figures})" if figures else str(f)
    machines: dict[Finding, list[str]] = {}
    for r in c.runners:
        machines.setdefault(r.finding, []).append(r.short)
    return ", ".join(f"{f} on the {listing(names)}" for f, names in machines.items())


def counted_text(finding: Finding, n: int, of: int, figures: str = "", others: tuple[Finding, ...] = ()) -> str:
    """"slower (0.62×–0.84×) on 3 of 5 machines, unclear in some scenarios": a finding and
    how many machines give it, for a claim measured on too many to name on a phone."""
    machines = f"all {n} machines" if n == of else f"{n} of {of} machines"
    rest = f", {' or '.join(str(g) for g in others)} in some scenarios" if others else ""
    return f"{finding}{f' ({figures})' if figures else ''} on {machines}{rest}"


def _counted_briefly(c: ClaimAnswer) -> str:
    """:func:`_briefly` with how many machines give each finding instead of their names,
    the commonest first: "faster on 3 of 5 machines, slower on 2"."""
    counts = Counter(r.finding for r in c.runners)
    if len(counts) == 1:
        return _briefly(c)
    (first, n), *rest = counts.most_common()
    return ", ".join([counted_text(first, n, len(c.runners)), *(f"{f} on {m}" for f, m in rest)])


def _by_finding(c: ClaimAnswer) -> list[tuple[Finding, tuple[RunnerAnswer, ...], str]]:
    """A claim's runners grouped by their finding, in the runners' order, each group with
    the range of its speedups for that finding ("1.29×–11.2×", or "" where a finding has
    no speedups): where three CPUs agree in every case, one phrase says so instead of three.
    A runner whose cases differ among themselves is a group of its own."""
    groups: dict[tuple[Finding, str], list[RunnerAnswer]] = {}
    for r in c.runners:
        # A runner whose cases do not all share its finding keeps its own counts: alone.
        # "Depends on the case" says that already.
        uniform = r.finding == Finding.DEPENDS or (r.summary.n > 0 and r.summary.count(r.finding) == r.summary.n)
        groups.setdefault((r.finding, "" if uniform else r.runner), []).append(r)
    out = []
    for (f, _), rs in groups.items():
        out.append((f, tuple(rs), _range(f, rs)))
    return out


def _by_machines(c: ClaimAnswer) -> list[tuple[Finding, tuple[RunnerAnswer, ...], str, tuple[Finding, ...]]]:
    """A claim's runners grouped by their leading finding alone, in the runners' order, each
    group with the range of its speedups for that finding and the other findings some of
    its scenarios have ("faster on 4 of 5 machines, unclear in some scenarios"): the first
    screen's form where the machines are too many to name."""
    groups: dict[Finding, list[RunnerAnswer]] = {}
    for r in c.runners:
        groups.setdefault(r.finding, []).append(r)
    out = []
    for f, rs in groups.items():
        others = () if f == Finding.DEPENDS else tuple(
            g for g in (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR)
            if g != f and any(r.summary.count(g) for r in rs))
        out.append((f, tuple(rs), _range(f, rs), others))
    return out


def _range(f: Finding, runners: Sequence[RunnerAnswer]) -> str:
    """The range of the runners' speedups for finding ``f`` ("1.29×–11.2×"); "" for a
    finding without speedups (unclear, depends on the case) or where none was measured."""
    pts = [p.speedup for r in runners for p in r.summary.of(f) if p.speedup is not None]
    return range_text(pts) if pts and f in (Finding.FASTER, Finding.SLOWER, Finding.SAME) else ""


def _typical(r: RunnerAnswer) -> float | None:
    return r.summary.typical(r.finding) if r.finding in (Finding.FASTER, Finding.SLOWER, Finding.SAME) else None


def change_sentence(c: ClaimAnswer, r: RunnerAnswer, then: RunnerAnswer, arrival: str) -> str | None:
    """Where a claim's answer on a runner under a per-request pattern (``r``) differs from
    back to back (``then``): another finding or verdict ("After 10 ms idle, ONNX Runtime
    is as fast as a tf.function (1.02×; back to back: faster, 4.1×)"), or the same finding
    with a typical speedup that moved by :data:`SUBSTANTIAL_SIZE` or more ("After 10 ms
    idle, ONNX Runtime is only 1.3× faster than a tf.function (back to back: 4.1×)");
    None where it is the same answer."""
    now, before = _typical(r), _typical(then)
    head = words(arrival)
    head = head[0].upper() + head[1:]
    if r.finding != then.finding or r.verdict != then.verdict:
        was = f"{then.finding}{', ' + ratio_text(before) if before is not None else ''}"
        figure = f"{ratio_text(now)}; " if now is not None else ""
        return f"{head}, {phrase(r.finding, c.candidate, c.baseline)} ({figure}back to back: {was})"
    if now is None or before is None or r.finding == Finding.SAME:
        return None
    if abs(math.log(now) - math.log(before)) < math.log1p(SUBSTANTIAL_SIZE):
        return None
    size = now if r.finding == Finding.FASTER else 1 / now
    size_then = before if r.finding == Finding.FASTER else 1 / before
    only = "only " if size < size_then else ""
    return (f"{head}, {c.candidate} is {only}{ratio_text(size)} {r.finding} than {c.baseline} "
            f"(back to back: {ratio_text(size_then)})")


def _changes(ds: Dataset, topic: str, claims: tuple[ClaimAnswer, ...], arrival: str) -> tuple[str, ...]:
    out = []
    for c in claims:
        then = claim_answer(ds, topic, c.claim_id)
        before = {r.runner: r for r in (then.runners if then else ())}
        several = len(c.runners) > 1
        for r in c.runners:
            if r.runner in before and (text := change_sentence(c, r, before[r.runner], arrival)):
                out.append(f"On the {r.short}: {text[0].lower()}{text[1:]}" if several else text)
    return tuple(out)


def question_answers(ds: Dataset, topic: str) -> list[QuestionAnswer]:
    """Each of the topic's questions answered from its claims: back to back, or from the
    per-request pattern the question names (``arrival:``). A question naming a pattern the
    topic has no results of is left out until it has some: a back-to-back answer would
    answer another question (what a saturated loop sees)."""
    info = ds.topics.get(topic)
    out: list[QuestionAnswer] = []
    for q in (info.questions if info else ()):
        arrival = str(q["arrival"]) if q.get("arrival") and q["arrival"] != BACK_TO_BACK.id else None
        if arrival is not None and not any(cr.runners_with_data for cr in ds.arrival_claim_results(topic, arrival)):
            continue
        claims = tuple(a for cid in q.get("claims", [])
                       if (a := claim_answer(ds, topic, str(cid), arrival)) is not None)
        yes = EXPECTED[str(q["yes_if"])] if q.get("yes_if") else None
        leads = tuple((r.short, _runner_lead(claims, r.runner, yes)) for r in (claims[0].runners if claims else ()))
        kinds = {word for _, word in leads}
        lead = kinds.pop() if len(kinds) == 1 else ("It depends on the machine" if kinds else LEADS[Finding.NO_DATA])
        out.append(QuestionAnswer(topic, str(q.get("id")), str(q.get("ask")), lead, leads, claims,
                                  str(q["note"]) if q.get("note") else None, arrival,
                                  _changes(ds, topic, claims, arrival) if arrival else (),
                                  accuracy_sentences(ds, topic, claims, arrival) if q.get("accuracy") else ()))
    return out


def accuracy_sentences(ds: Dataset, topic: str, claims: tuple[ClaimAnswer, ...],
                       arrival: str | None = None) -> tuple[str, ...]:
    """For a question that asks what a variant costs in accuracy (``accuracy: true``): per
    runner, the largest difference of the claims' candidates' outputs from the reference's
    over the scenarios that answer it, and where it is: "On the EPYC (AVX2): mixed_bfloat16's
    output differs from float32's by at most 0.021 (mlp, batch 64, inference); all 9 results
    within the bound" (the runners named where there are several; runners whose sentence is
    the same share it: "On the EPYC Zen 4 and EPYC Zen 5: ..."). Claims between settings
    are left out (their candidate is the same variant)."""
    info = ds.topics.get(topic)
    if info is None:
        return ()
    order = list(info.param_values)
    reference = ds.label(topic, info.reference)
    several = len({r.runner for c in claims for r in c.runners}) > 1
    said: dict[str, list[str]] = {}                 # a sentence -> the runners that give it, in order
    for runner in sorted({r.runner for c in claims for r in c.runners}):
        short = next(r.short for c in claims for r in c.runners if r.runner == runner)
        by_candidate: dict[str, list[Measurement]] = {}
        for c in claims:
            cr = ds.claim_result(topic, c.claim_id, arrival)
            if cr is None or "candidate_settings" in cr.claim:
                continue
            name = str(cr.claim.get("candidate"))
            for ch in cr.mine(runner):
                m = ch.scenario.variants.get(name)
                if m is not None and (m.ok or m.within_tolerance is False):
                    by_candidate.setdefault(name, []).append(m)
        for name, ms in by_candidate.items():
            ms = list({id(m): m for m in ms}.values())
            checked = [m for m in ms if m.max_abs_diff is not None]
            if not checked:
                continue
            worst = max(checked, key=lambda m: m.max_abs_diff or 0.0)
            where = ", ".join(info.value_label(k, worst.params[k]) for k in order if k in worst.params)
            outside = sum(1 for m in ms if m.within_tolerance is False)
            held = (f"all {len(ms)} results within the bound" if not outside and len(ms) > 1 else
                    "within the bound" if not outside else
                    f"{outside} of {len(ms)} outside the bound (wrong outputs: never recommended)")
            said.setdefault(f"{info.display_name(name)}'s output differs from {reference}'s by at most "
                            f"{worst.max_abs_diff:.2g} ({where}); {held}", []).append(short)
    return tuple(f"On the {listing(shorts)}: {text}" if several else text for text, shorts in said.items())


# -- the home page's tables --------------------------------------------------------------------

@dataclass
class ClaimRow:
    topic: str
    topic_title: str
    answer: ClaimAnswer
    changed: bool                     # the finding changed between TensorFlow releases somewhere
    stale: bool                       # some of the results behind it are stale
    failed: str | None                # "failed: N cases (first error: ...)" when no runner has data


def findings(ds: Dataset, order: Sequence[str] = ()) -> list[ClaimRow]:
    """Every claim of every topic, topics in ``order`` (the pages' reading order) first,
    then the others by name; a topic's claims in the order its YAML gives them."""
    rank = {t: i for i, t in enumerate(order)}
    out: list[ClaimRow] = []
    for topic in sorted(ds.topic_names(), key=lambda t: (rank.get(t, len(rank)), t)):
        info = ds.topics.get(topic)
        flips = ds.changed_claims(topic)
        for cr in ds.claim_results(topic):
            answer = claim_answer(ds, topic, cr.id)
            if answer is None:
                continue
            out.append(ClaimRow(topic=topic, topic_title=info.title if info else topic, answer=answer,
                               changed=cr.id in flips, stale=any(c.scenario.stale for c in cr.checks),
                               failed=None if cr.runners_with_data else cr.failed_text()))
    return out


def machine_differences(ds: Dataset, order: Sequence[str] = ()) -> tuple[list[ClaimRow], int]:
    """The claims whose finding differs between the runners (:attr:`ClaimAnswer.disagreement`:
    two clear findings, such as faster on one CPU and the same on another; a runner that could
    not tell is no disagreement), in :func:`findings`' order, and how many claims have results
    on two or more runners, which is what the first are out of."""
    compared = [row for row in findings(ds, order)
                if sum(r.finding != Finding.NO_DATA for r in row.answer.runners) >= 2]
    return [row for row in compared if row.answer.disagreement], len(compared)


@dataclass
class VersionRow:
    topic: str
    topic_title: str
    strip: VersionStrip

    def cell(self, version: str) -> VersionCell:
        """The claim's cell for ``version``; "not measured" where this runner did not
        measure the topic with it."""
        return next((c for c in self.strip.cells if c.version == version),
                    VersionCell(version, NOT_MEASURED, NOT_MEASURED))


@dataclass
class VersionsTable:
    versions: list[str]                       # every release of any row, in order
    rows: list[VersionRow]
    runners: list[str]                        # runners with rows (hardware, not software)
    unmeasured: list[tuple[str, str, str]] = field(default_factory=list)   # (topic, claim id, text) of
    # claims of topics measured across releases whose own scenarios were not

    @property
    def labels(self) -> dict[str, str]:
        return short_labels(self.versions)

    @property
    def changed(self) -> list[VersionRow]:
        return [r for r in self.rows if r.strip.changed]


def versions_table(ds: Dataset, order: Sequence[str] = ()) -> VersionsTable:
    """Topics in ``order`` (the nav's) first, then the others by name; a topic's claims in
    its YAML's order; within a claim, runners by name."""
    rank = {t: i for i, t in enumerate(order)}
    rows: list[VersionRow] = []
    unmeasured: list[tuple[str, str, str]] = []
    for topic in sorted(ds.topic_names(), key=lambda t: (rank.get(t, len(rank)), t)):
        strips = ds.version_strips(topic)
        if not strips:
            continue
        info = ds.topics.get(topic)
        title = info.title if info else topic
        for claim in ds.claims_of(topic):
            mine = [s for s in strips if s.claim_id == str(claim.get("id"))]
            rows += [VersionRow(topic, title, s) for s in mine]
            if not mine:
                unmeasured.append((topic, str(claim.get("id")), str(claim.get("text", claim.get("id")))))
    versions = sort_versions(v for r in rows for v in r.strip.versions)
    return VersionsTable(versions, rows, sorted({r.strip.runner for r in rows}), unmeasured)


# -- then and now ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ThenNow:
    figure: SourceFigure
    claim_text: str
    answer: ClaimAnswer | None     # today's finding per runner; None: no such claim

    @property
    def measured(self) -> bool:
        return self.answer is not None and bool(self.answer.runners)


def then_now(ds: Dataset, topic: str, sources: Sources) -> list[ThenNow]:
    """One line per source figure of ``topic`` (``sources``: :func:`origins.load_sources`),
    in the file's order."""
    out = []
    for fig in sources.get(topic, []):
        claim = ds.claim(topic, fig.claim) or {}
        out.append(ThenNow(fig, str(claim.get("text") or fig.claim), claim_answer(ds, topic, fig.claim)))
    return out
