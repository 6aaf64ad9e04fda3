"""The keys a topic YAML may use, what each value must be, and the names its claims may refer to.

YAML forgives typos: ``exlude:`` or ``timout_s:`` load as keys nobody reads, and a claim
whose ``candidate:`` names no variant matches no case, so the topic silently measures
everything and the claim silently has no data. It forgives types too: ``budget_s: fast``
loads as text that only fails once the workers measure. This module turns each into a
:class:`~tfperf.errors.CaseGridError` that names the file and the key path
(``profiles.quick.timout_s``), checked once when the topic is loaded.

The schema is plain data: a mapping of known keys (each to the schema of its value),
:class:`Each` for mappings whose keys are names chosen by the topic (variants, settings,
profiles), :class:`ListOf` for lists, :class:`Maybe` for a section that may be left
empty, and a :class:`Leaf` for a value the topic writes (text, a finite number in a range,
a count, true/false). Numbers are finite everywhere; nothing else may be empty (null).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypedDict

from ..arrival import MAX_GAP_S, MAX_REQUESTS, Pattern, parse_id
from ..errors import CaseGridError


@dataclass(frozen=True)
class Each:
    """A mapping whose keys are the topic's own names; every value follows ``spec``."""

    spec: Spec


@dataclass(frozen=True)
class ListOf:
    """A list whose every item follows ``spec``."""

    spec: Spec


@dataclass(frozen=True)
class Maybe:
    """A section that may be left empty (``claims:`` with nothing after it): ``None``, or ``spec``."""

    spec: Spec


@dataclass(frozen=True)
class Leaf:
    """A value the topic writes: ``test`` says whether it is one; ``what`` says, in words,
    what it must be (the error's text)."""

    what: str
    test: Callable[[Any], bool]


Spec = Leaf | Maybe | Each | ListOf | dict[str, "Spec"]

MAX_COUNT = 1_000_000          # samples, calls, threads: far beyond any real topic, far below a hang


def number(value: object) -> float | None:
    """The finite number a YAML value is, else None. YAML 1.1 reads ``1e-5`` (no dot) as
    text: text that spells a number counts as one; true/false do not."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            n = float(value)
        except OverflowError:        # an integer of hundreds of digits
            return None
    elif isinstance(value, str) and len(value) < 40:
        try:
            n = float(value)
        except ValueError:
            return None
    else:
        return None
    return n if math.isfinite(n) else None


def _at_least(low: float, above: bool) -> Callable[[Any], bool]:
    def test(value: Any) -> bool:
        n = number(value)
        return n is not None and (n > low if above else n >= low)
    return test


def _count(low: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= MAX_COUNT


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, bool, int)) or (isinstance(value, float) and math.isfinite(value))


def _values(value: Any) -> bool:
    return _scalar(value) or (isinstance(value, list) and bool(value) and all(map(_scalar, value)))


def _cpus(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_count(0)(c) for c in value)
    return (isinstance(value, str) or _count(0)(value)) and not isinstance(value, bool)


TEXT = Leaf("text", lambda v: isinstance(v, str))
# A variant's or a setting's display name: what a chart's legend, axis, tooltip and a table
# show, so it must fit a legend's line on a phone.
LABEL_MAX = 36
LABEL = Leaf(f"a text of 1 to {LABEL_MAX} characters (a display name for legends and tables)",
             lambda v: isinstance(v, str) and 0 < len(v.strip()) <= LABEL_MAX)
FUNCTION = Leaf("the name of a function of the snippet", lambda v: isinstance(v, str) and v.isidentifier())
POSITIVE = Leaf("a finite number above 0", _at_least(0, above=True))
NON_NEGATIVE = Leaf("a finite number, 0 or more", _at_least(0, above=False))
SAMPLES = Leaf(f"a whole number from 2 to {MAX_COUNT}", _count(2))
COUNT = Leaf(f"a whole number from 1 to {MAX_COUNT}", _count(1))
FLAG = Leaf("true or false", lambda v: isinstance(v, bool))
SCALAR = Leaf("a text, a finite number or true/false", _scalar)
VALUES = Leaf("a value or a non-empty list of values (text, finite numbers, true/false)", _values)
THREADS = Leaf(f"a whole number from 0 to {MAX_COUNT}, or text holding {{value}}",
               lambda v: _count(0)(v) or (isinstance(v, str) and "{value}" in v))
CPUS = Leaf('CPU numbers such as [1] or "0,1"', _cpus)
SCOPE: Spec = Each(VALUES)              # parameter, setting or "variant" -> a value or a list of values
GROUP: Spec = Each(SCALAR)              # setting -> one value

# The process fields a settings_map entry may set (cases.PROCESS_FIELDS reads them).
PROCESS: dict[str, Spec] = {"env": Each(SCALAR), "intra_op_threads": THREADS, "inter_op_threads": THREADS,
                            "eager": FLAG, "cpus": CPUS}

PROCESSES = Leaf("a whole number from 1 to 8", lambda v: _count(1)(v) and v <= 8)
BUDGET: dict[str, Spec] = {"min_samples": SAMPLES, "max_samples": SAMPLES, "target_rel_ci": POSITIVE,
                           "budget_s": POSITIVE, "warmup_s": NON_NEGATIVE, "min_sample_s": POSITIVE,
                           "processes": PROCESSES}

def _within(low: float, high: float, open_low: bool = False, open_high: bool = False) -> Callable[[Any], bool]:
    def test(value: Any) -> bool:
        n = number(value)
        return n is not None and (n > low if open_low else n >= low) and (n < high if open_high else n <= high)
    return test


# How the requests of a scenario arrive (tfperf.arrival): a profile lists the patterns it
# measures, each a scenario of its own; `pattern` says which keys go with it (topic.py).
PATTERNS = tuple(p.value for p in Pattern)
ARRIVAL: dict[str, Spec] = {
    "pattern": Leaf(f"one of {', '.join(PATTERNS)}", lambda v: v in PATTERNS),
    "gap_s": Leaf(f"seconds from 0 to {MAX_GAP_S:g}", _within(0.0, MAX_GAP_S)),
    "rate": Leaf("a fraction of the variant's back-to-back throughput, above 0 and below 1",
                 _within(0.0, 1.0, open_low=True, open_high=True)),
    "requests": Leaf(f"a whole number from 2 to {MAX_REQUESTS}",
                     lambda v: isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= MAX_REQUESTS),
}
# The keys each pattern takes besides `pattern` (the first, if any, is required).
ARRIVAL_KEYS: dict[str, tuple[str, ...]] = {"back_to_back": (), "idle": ("gap_s", "requests"),
                                            "poisson": ("rate", "requests")}

PROFILE: dict[str, Spec] = {"params": Maybe(SCOPE), "settings": Maybe(SCOPE), "variants": Maybe(ListOf(TEXT)),
                            "exclude": Maybe(ListOf(SCOPE)), "budget": Maybe(BUDGET), "timeout_s": Maybe(POSITIVE),
                            "arrivals": ListOf(ARRIVAL)}

# Variant against variant (claims:), and settings group against settings group
# (settings_claims:): the candidate against the baseline (what the reader would otherwise
# use), and what the source said the candidate is (`expect`: faster, slower or same; none for
# a comparison of this guide's own, which no source claimed);
# analyse/judge/claims.py reads them, measure/supervise/orchestrate.py pairs them.
CLAIM: dict[str, Spec] = {"id": TEXT, "text": TEXT, "candidate": TEXT, "baseline": TEXT, "expect": TEXT,
                          "where": Maybe(SCOPE), "min_effect": NON_NEGATIVE, "compare": TEXT}
SETTINGS_CLAIM: dict[str, Spec] = {**CLAIM, "candidate_settings": GROUP, "baseline_settings": GROUP}
EXPECT = ("faster", "slower", "same", "none")

# The questions a topic page opens with, each answered from its claims (analyse/views/answers.py).
# `arrival`: the pattern whose measurements answer it (tfperf.arrival ids; default back to back).
QUESTION: dict[str, Spec] = {"id": TEXT, "ask": TEXT, "claims": ListOf(TEXT), "yes_if": TEXT, "note": TEXT,
                             "arrival": TEXT, "accuracy": FLAG}

# What a claim between variants compares (`compare:`): the time per call (the default), or the
# cost per step of a line fitted over the step counts measured (analyse/judge/per_step.py), which
# needs the topic's `per_step: {param: <parameter counting the steps of a call>}`.
COMPARE = ("per_call", "per_step")
PER_STEP = "per_step"                     # the ``compare:`` value that judges a claim on the cost per step
PARAM_KEY: Final = "_per_step"            # a loaded per-step claim's key for the topic's step parameter

# Settings pairs that must measure the same (analyse/judge/controls.py).
CONTROL: dict[str, Spec] = {"id": TEXT, "text": TEXT, "variant": TEXT, "settings": GROUP, "same_as": GROUP,
                             "where": Maybe(SCOPE)}

# A cProfile run beside the timings (measure/supervise/orchestrate.py _breakdowns).
BREAKDOWN: dict[str, Spec] = {"variant": TEXT, "params": GROUP, "settings": GROUP, "calls": COUNT,
                              "profiles": ListOf(TEXT)}

class Claim(TypedDict, total=False):
    """A claim as a topic states it (``claims:``, ``settings_claims:``; keys: :data:`CLAIM`,
    :data:`SETTINGS_CLAIM`): the comparison of ``candidate`` against ``baseline`` and what
    its source said (``expect``, default faster). Loading checks that ``id``, ``candidate``
    and ``baseline`` are there and name declared variants, and that the scopes name the
    grid's parameters and settings; the analysis reads every key with ``.get``."""

    id: str
    text: str
    candidate: str
    baseline: str
    expect: str                           # one of EXPECT: what the source said the candidate is (none: no source)
    where: dict[str, object]              # parameter or setting -> a value or a list of values
    min_effect: float
    compare: str                          # one of COMPARE
    candidate_settings: dict[str, object]   # a settings claim's two groups
    baseline_settings: dict[str, object]
    _per_step: str                        # PARAM_KEY: the topic's step parameter (:func:`with_step_param`)


class Question(TypedDict, total=False):
    """A question a topic page answers first (``questions:``; keys: :data:`QUESTION`)."""

    id: str
    ask: str                              # as a reader asks it
    claims: list[str]                     # the comparisons that answer it, the leading one first
    yes_if: str                           # the leading comparison's finding that means "yes" (faster, slower,
                                          # same); without it, the answer has no yes/no lead
    note: str                             # a sentence after the answer (free text, no figures)
    arrival: str                          # the arrival pattern that answers it ("idle-10ms"); default back to back
    accuracy: bool                        # the answer also says how far the candidates' outputs are from the reference's


class Variant(TypedDict, total=False):
    """One of a topic's ``variants:`` (``fn`` is required; keys: :data:`TOPIC`)."""

    fn: str
    setup: str
    label: str


class Control(TypedDict, total=False):
    """Settings pairs that must measure the same (``controls:``; keys: :data:`CONTROL`)."""

    id: str
    text: str
    variant: str
    settings: dict[str, object]
    same_as: dict[str, object]
    where: dict[str, object]             # the scenarios it holds in (parameter -> values), else all


class CategoryRule(TypedDict):
    """A profiler category of ``breakdown_categories:``: frames whose text contains one of ``match``."""

    name: str
    match: list[str]


class Breakdown(TypedDict, total=False):
    """A cProfile run beside the timings (``breakdowns:``; keys: :data:`BREAKDOWN`)."""

    variant: str
    params: dict[str, object]
    settings: dict[str, object]
    calls: int
    profiles: list[str]


def where_holds(where: Mapping[str, object] | None, params: Mapping[str, object],
                settings: Mapping[str, object] | None = None, missing_holds: bool = False) -> bool:
    """A ``where`` (a claim's or a control's: parameter or setting -> value or values) holds
    for a scenario with these parameters and settings. A name the scenario has neither as
    parameter nor as setting fails it, unless ``missing_holds``."""
    for k, want in (where or {}).items():
        have = params.get(k, (settings or {}).get(k))
        if have is None:
            if missing_holds:
                continue
            return False
        wants = want if isinstance(want, list) else [want]
        if str(have).lower() not in {str(w).lower() for w in wants}:
            return False
    return True


def with_step_param(claim: Claim, param: str | None) -> Claim:
    """The claim as a loaded topic holds it: a ``compare: per_step`` claim carries the
    topic's step parameter (``per_step.param``) under :data:`PARAM_KEY`, so that whoever
    judges it needs no other part of the topic (loading makes sure there is one)."""
    if claim.get("compare") == PER_STEP and param:
        return {**claim, PARAM_KEY: param}
    return claim


def control_applies(control: Control, params: Mapping[str, object]) -> bool:
    """A control's ``where`` holds for a scenario with these parameters. A parameter the
    scenario does not have restricts nothing: a profile that does not vary it measures its
    default (serving's history profile has no ``model``)."""
    return where_holds(control.get("where"), params, missing_holds=True)


TOPIC: dict[str, Spec] = {
    "topic": TEXT, "title": TEXT, "snippet": TEXT, "setup": FUNCTION,
    "reference": TEXT, "default": TEXT,
    "tolerance": Maybe({"rtol": NON_NEGATIVE, "atol": NON_NEGATIVE}),
    "timeout_s": POSITIVE,
    "per_call": Maybe({"divide_by": TEXT, "unit": TEXT}),
    "per_step": Maybe({"param": TEXT}),
    "variants": Each({"fn": FUNCTION, "setup": FUNCTION, "label": TEXT}),
    "profiles": Each(Maybe(PROFILE)),
    "exclude": Maybe(ListOf(SCOPE)),
    "settings_map": Maybe(Each(Each(PROCESS))),
    "baseline_settings": Maybe(GROUP),
    "settings_labels": Maybe(Each(Each(LABEL))),
    "claims": Maybe(ListOf(CLAIM)),
    "settings_claims": Maybe(ListOf(SETTINGS_CLAIM)),
    "questions": Maybe(ListOf(QUESTION)),
    "names": Maybe(Each(TEXT)),
    "display": Maybe(Each(LABEL)),
    "groups": Maybe(Each(ListOf(TEXT))),
    "bounds": Maybe(ListOf(TEXT)),
    "controls": Maybe(ListOf(CONTROL)),
    "breakdowns": Maybe(ListOf(BREAKDOWN)),
    "breakdown_categories": Maybe(ListOf({"name": TEXT, "match": ListOf(TEXT)})),
}


def check_keys(data: Any, path: Path, spec: Spec = TOPIC, where: str = "") -> None:
    """Raise CaseGridError at the first key the schema does not know, the first value of
    the wrong shape (a mapping where a list is expected...) or the first value that is not
    what its :class:`Leaf` says (text, a finite number in range, a count). ``None`` passes
    only where the schema says :class:`Maybe` (an empty ``claims:`` is the same as none)."""
    if isinstance(spec, Maybe):
        if data is not None:
            check_keys(data, path, spec.spec, where)
        return
    if isinstance(spec, Leaf):
        require(spec.test(data), path, where, f"must be {spec.what}, got {shown(data)}")
        return
    if isinstance(spec, ListOf):
        require(isinstance(data, list), path, where, "must be a list")
        for i, item in enumerate(data):
            check_keys(item, path, spec.spec, _join(where, str(i)))
        return
    require(isinstance(data, dict), path, where or "(file)", "must be a mapping")
    for key, value in data.items():
        at = _join(where, str(key))
        if isinstance(spec, Each):
            check_keys(value, path, spec.spec, at)
            continue
        if key not in spec:
            close = difflib.get_close_matches(str(key), list(spec), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise CaseGridError(str(path), at, f"unknown key; {hint}(known here: {', '.join(spec)})")
        check_keys(value, path, spec[key], at)


def shown(value: object, limit: int = 60) -> str:
    """A value as an error shows it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def check_references(data: dict[str, Any], path: Path) -> None:
    """Every claim and breakdown names declared variants; every key of an ``exclude``
    entry, a claim's ``where`` and ``candidate_settings``/``baseline_settings``, and of
    ``baseline_settings`` names a parameter, a setting or ``variant`` (else the entry
    silently matches nothing: the exclusion excludes nothing, the claim covers every
    scenario, the baseline falls back to the first settings group)."""
    variants = data.get("variants") or {}
    names = {str(v) for v in variants}
    for section in ("claims", "settings_claims"):
        for i, claim in enumerate(data.get(section) or []):
            require(isinstance(claim, dict), path, f"{section}.{i}", "must be a mapping")
            for side in ("id", "candidate", "baseline"):
                require(side in claim, path, f"{section}.{i}.{side}", "missing")
            for side in ("candidate", "baseline"):
                require(str(claim[side]) in names, path, f"{section}.{i}.{side}",
                         f"{claim[side]!r} is not a declared variant (declared: {', '.join(map(str, variants))})")
            require(claim.get("expect", "faster") in EXPECT, path, f"{section}.{i}.expect",
                    f"{claim.get('expect')!r} is not one of {', '.join(EXPECT)}")
            for part in ("where", "candidate_settings", "baseline_settings"):
                _check_scope(claim.get(part), data, path, f"{section}.{i}.{part}")
    _check_questions(data, path)
    for i, control in enumerate(data.get("controls") or []):
        require(isinstance(control, dict), path, f"controls.{i}", "must be a mapping")
        require(str(control.get("variant")) in names, path, f"controls.{i}.variant",
                 f"{control.get('variant')!r} is not a declared variant")
        for part in ("settings", "same_as", "where"):
            _check_scope(control.get(part), data, path, f"controls.{i}.{part}")
    for i, bd in enumerate(data.get("breakdowns") or []):
        require(isinstance(bd, dict), path, f"breakdowns.{i}", "must be a mapping")
        require(str(bd.get("variant")) in names, path, f"breakdowns.{i}.variant",
                 f"{bd.get('variant')!r} is not a declared variant")
    _check_compare(data, path)
    _check_scope(data.get("baseline_settings"), data, path, "baseline_settings")
    _check_excludes(data.get("exclude"), data, path, "exclude")
    for name, prof in (data.get("profiles") or {}).items():
        _check_excludes((prof or {}).get("exclude"), data, path, f"profiles.{name}.exclude")


def _check_questions(data: dict[str, Any], path: Path) -> None:
    """Each question asks something and names claims of this topic (the leading one
    first); ``yes_if`` is faster, slower or same."""
    ids = {str(c.get("id")) for section in ("claims", "settings_claims") for c in (data.get(section) or [])
           if isinstance(c, dict)}
    questions = data.get("questions") or []
    require(isinstance(questions, list), path, "questions", "must be a list of mappings")
    for i, q in enumerate(questions):
        require(isinstance(q, dict), path, f"questions.{i}", "must be a mapping")
        for key in ("id", "ask", "claims"):
            require(key in q, path, f"questions.{i}.{key}", "missing")
        require(isinstance(q["ask"], str) and q["ask"].strip() != "", path, f"questions.{i}.ask",
                "must be the question as a reader asks it")
        claims = q["claims"]
        require(isinstance(claims, list) and bool(claims), path, f"questions.{i}.claims",
                "must be a list of claim ids (the leading one first)")
        for j, cid in enumerate(claims):
            require(str(cid) in ids, path, f"questions.{i}.claims.{j}",
                    f"{cid!r} is not a claim of this topic (claims: {', '.join(sorted(ids))})")
        require(q.get("yes_if") is None or q.get("yes_if") in EXPECT[:3], path, f"questions.{i}.yes_if",
                f"{q.get('yes_if')!r} is not one of {', '.join(EXPECT[:3])}")
        require(q.get("arrival") is None or parse_id(str(q["arrival"])) is not None, path, f"questions.{i}.arrival",
                f"{q.get('arrival')!r} is not a pattern (back_to_back, idle-<ms>ms up to {MAX_GAP_S * 1000:g} ms, "
                "or poisson-<rate> with a rate between 0 and 1, e.g. idle-10ms, poisson-0.7)")


def _check_compare(data: dict[str, Any], path: Path) -> None:
    """``per_step.param`` names a parameter whose values are step counts (positive
    integers); a claim's ``compare`` is one of :data:`COMPARE`, and ``per_step`` only
    between variants of a topic that declares ``per_step`` (else the claim would silently
    have no per-step cost to compare)."""
    per_step = data.get("per_step")
    if per_step is not None:
        require(isinstance(per_step, dict) and "param" in per_step, path, "per_step.param",
                 "missing (the parameter that counts the steps of one call, e.g. steps)")
        param = str(per_step["param"])
        declared = [((prof or {}).get("params") or {}).get(param) for prof in (data.get("profiles") or {}).values()]
        values = [v for d in declared if d is not None for v in (d if isinstance(d, list) else [d])]
        require(any(d is not None for d in declared), path, "per_step.param",
                 f"{param!r} is not a parameter of any profile")
        require(all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values), path,
                 "per_step.param", f"the values of {param!r} must be step counts (positive integers), got {values}")
    for section in ("claims", "settings_claims"):
        for i, claim in enumerate(data.get(section) or []):
            how = claim.get("compare")
            if how is None:
                continue
            where = f"{section}.{i}.compare"
            require(how in COMPARE, path, where, f"{how!r} is not one of {', '.join(COMPARE)}")
            if how == "per_step":
                require(section == "claims", path, where, "per_step compares two variants; a settings claim "
                         "compares time per call")
                require(per_step is not None, path, where, "per_step needs the topic's `per_step: {param: "
                         "<parameter>}` (the parameter that counts the steps of one call)")


def _check_excludes(excludes: Any, data: dict[str, Any], path: Path, where: str) -> None:
    if excludes is None:
        return
    require(isinstance(excludes, list), path, where, "must be a list of mappings")
    for i, ex in enumerate(excludes):
        _check_scope(ex, data, path, f"{where}.{i}", also=("arrival",))


def _check_scope(scope: Any, data: dict[str, Any], path: Path, where: str, also: tuple[str, ...] = ()) -> None:
    """``scope`` (an exclude entry, a claim's ``where``) maps names the grid knows to values;
    an exclude entry may also name ``arrival`` (a pattern's id: "idle-10ms", "poisson-0.7")."""
    if scope is None:
        return
    require(isinstance(scope, dict), path, where, "must be a mapping")
    known = _grid_names(data) | set(also)
    for key in scope:
        require(key in known, path, _join(where, str(key)),
                 f"names no parameter, setting or 'variant' of this topic (known: {', '.join(sorted(known))})")


def _grid_names(data: dict[str, Any]) -> set[str]:
    """Parameter and setting names of every profile, and ``variant``."""
    names = {"variant"}
    for prof in (data.get("profiles") or {}).values():
        for part in ("params", "settings"):
            names.update(str(k) for k in ((prof or {}).get(part) or {}))
    return names


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def require(cond: bool, path: Path, fld: str, problem: str) -> None:
    """Raise the error a topic YAML's mistake gets: its file, the key path, the problem."""
    if not cond:
        raise CaseGridError(str(path), fld, problem)
