"""A topic YAML (``snippets/<topic>.yaml``), read and checked once into a typed :class:`Topic`.

:mod:`.topic_schema` says which keys exist and what the claims may name; this module
reads the file, applies those checks and the ones on values (names, the default and
reference variants, the settings sections), and builds the record that the measuring
side (:mod:`.grid`, ``measure.supervise.orchestrate``) and the analysis (``analyse.dataset``)
read. Nothing downstream reads the YAML: every mistake is reported here, with the file
and the key path, before anything is measured or drawn.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from ..arrival import BACK_TO_BACK, Arrival, Pattern
from ..errors import CaseGridError, TfperfError
from ..store.files import read_regular
from ..store.schema import NAME_RULE, PROFILES, is_name
from .topic_schema import (
    ARRIVAL_KEYS,
    LABEL_MAX,
    Breakdown,
    CategoryRule,
    Claim,
    Control,
    Question,
    Variant,
    check_keys,
    check_references,
    number,
    require,
    shown,
    with_step_param,
)
from .variant_source import source_hashes

Scope = dict[str, object]                 # parameter, setting or "variant" -> a value or a list of values


@dataclass(frozen=True)
class Profile:
    """One of ``profiles:`` (quick, full, history): the grid it measures and its budget."""

    params: dict[str, list[Any]]          # parameter -> values (YAML scalars)
    settings: dict[str, list[Any]]        # setting -> values ("1..cores" is expanded by cases)
    variants: list[str] | None            # None: every declared variant
    exclude: list[Scope]
    budget: dict[str, float]              # overrides of cases.DEFAULT_BUDGETS
    timeout_s: float | None
    arrivals: tuple[Arrival, ...] = (BACK_TO_BACK,)   # how requests arrive: a scenario per pattern


@dataclass(frozen=True)
class PerCall:
    """``per_call:``: one call does ``divide_by`` (a parameter) units of work called ``unit``."""

    divide_by: str
    unit: str


@dataclass(frozen=True)
class Topic:
    """A topic as loaded and checked: what the run measures (its grid, through
    :mod:`.grid`) and what the analysis reads (its claims, questions, settings, display
    names), and the reader's words for its variants and values. Nothing changes it once
    loaded."""

    name: str
    title: str
    path: Path                            # the YAML file
    snippet: Path
    snippet_hash: str                     # the snippet file and the YAML's variants: results before source hashes
    source_hashes: dict[str, str]         # variant -> what it runs (:mod:`.variant_source`)
    variants: dict[str, Variant]
    reference: str                        # the variant every output is checked against
    default: str                          # "the default way" users reach for
    profiles: dict[str, Profile]
    setup: str = "setup"                  # a variant's setup function unless it names its own
    tolerance: dict[str, float] = field(default_factory=dict)
    timeout_s: float = 300.0
    exclude: list[Scope] = field(default_factory=list)
    settings_map: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    baseline_settings: dict[str, str] = field(default_factory=dict)
    settings_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)   # a per-step one with its step parameter (with_step_param)
    settings_claims: list[Claim] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)   # variant -> its short name in answers
    # variant -> its display name in legends, tables, tooltips: ``display:``, else its label
    display: dict[str, str] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)  # variants a chart shows together
    # Variants measured as a limit to compare with (e.g. data already in memory), not as an
    # option a reader could take: charted and compared in claims, never recommended.
    bounds: list[str] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)
    breakdowns: list[Breakdown] = field(default_factory=list)
    breakdown_categories: list[CategoryRule] | None = None
    per_call: PerCall | None = None
    per_step: str | None = None           # the parameter that counts a call's steps

    @cached_property
    def param_values(self) -> dict[str, list[Any]]:
        """Each parameter's values in the order the YAML declares them, over the full and
        the quick profile (the full one first)."""
        order: dict[str, list[Any]] = {}
        for prof in self._main_profiles():
            for k, vals in prof.params.items():
                order.setdefault(k, [])
                order[k] += [v for v in vals if v not in order[k]]
        return order

    @cached_property
    def settings_values(self) -> dict[str, list[str]]:
        """Each setting's values (as text) in the order the YAML declares them, over the
        full and the quick profile (the full one first)."""
        order: dict[str, list[str]] = {}
        for prof in self._main_profiles():
            for k, vals in prof.settings.items():
                order.setdefault(k, [])
                order[k] += [str(v) for v in vals if str(v) not in order[k]]
        return order

    def _main_profiles(self) -> list[Profile]:
        return [self.profiles[p] for p in ("full", "quick") if p in self.profiles]

    def value_label(self, name: str, value: object) -> str:
        """A parameter's or setting's value in reader words: its ``settings_labels`` text
        when the YAML gives one, else a name as it is ("mlp") and a number with its
        parameter ("batch 1")."""
        labels = self.settings_labels.get(name) or {}
        if str(value) in labels or "*" in labels:
            return self.setting_label(name, value)
        return str(value) if isinstance(value, str) and not value.isdigit() else f"{name} {value}"

    def display_name(self, variant: str) -> str:
        """The variant's short name (``names:``), else its display name."""
        return self.names.get(variant) or self.display.get(variant, variant)

    def setting_label(self, name: str, value: object) -> str:
        """The YAML's ``settings_labels`` text for one value ("*" is a template), else name=value."""
        labels = self.settings_labels.get(name) or {}
        if str(value) in labels:
            return labels[str(value)]
        if "*" in labels:
            return labels["*"].replace("{value}", str(value))
        return f"{name}={value}"


# Limits on what a topic may be, checked before it is built: the largest topic YAML is a
# few KB and nests 6 levels deep, the largest snippet about 20 KB.
MAX_YAML_BYTES = 256 * 1024
MAX_SNIPPET_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_VALUES = 100_000           # values of a YAML once its aliases are expanded


class _TooDeep(TfperfError):
    """Raised inside the YAML loader; :func:`read_yaml` turns it into the caller's error."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, stopping at ``MAX_DEPTH`` levels of nesting (its composer
    recurses once per level: 100,000 levels would exhaust Python's stack)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line + 1)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def read_yaml(path: Path, error: Callable[[str], TfperfError]) -> Any:
    """The value of a YAML file of the repository (a topic, a source), read with limits:
    a regular file (never a link, a FIFO, a device), at most ``MAX_YAML_BYTES`` of UTF-8
    text, at most ``MAX_DEPTH`` levels deep and ``MAX_VALUES`` values with its aliases
    expanded. Any problem is ``error(problem)``, one line."""
    text = _utf8(read_regular(path, MAX_YAML_BYTES, error), error)
    loader: _Loader | None = None
    try:
        loader = _Loader(text)           # checks the characters: a YAMLError already
        data = loader.get_single_data()
    except _TooDeep as exc:
        raise error(f"nested more than {MAX_DEPTH} levels deep (line {exc.line})") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise error(f"not valid YAML: {exc.problem or exc.context}{at}") from None
    except yaml.YAMLError as exc:
        raise error(f"not valid YAML: {str(exc).splitlines()[0]}") from None
    except (ValueError, RecursionError, MemoryError, OverflowError, TypeError) as exc:   # PyYAML's own constructors
        raise error(f"not valid YAML: {type(exc).__name__}: {shown(str(exc), 120)}") from None
    finally:
        if loader is not None:
            loader.dispose()
    if not _at_most(data, MAX_VALUES):
        raise error(f"holds more than {MAX_VALUES} values once its aliases are expanded (or an alias holds itself)")
    return data


def _utf8(data: bytes, error: Callable[[str], TfperfError]) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})") from None


def _at_most(data: Any, limit: int) -> bool:
    """``data`` holds at most ``limit`` values, counting a value each time an alias reaches
    it (a YAML alias is the same object, so a few lines can name billions of values)."""
    todo, seen = [data], 0
    while todo:
        value = todo.pop()
        seen += 1
        if seen > limit:
            return False
        if isinstance(value, dict):
            todo += [*value, *value.values()]
        elif isinstance(value, list):
            todo += value
    return True


def load_topic(path: str | Path) -> Topic:
    """Read and check one topic YAML and its snippet; every error names the file and the
    key path. What passes is what every later step can use: keys, types, ranges (finite
    numbers, positive counts), names, references; the snippet is UTF-8 Python that parses.
    The case grid itself (settings mappings, an empty grid) is checked by
    :func:`tfperf.cases.load`, which both the run and the analysis call."""
    path = Path(path)
    data = read_yaml(path, lambda problem: CaseGridError(str(path), "(file)", problem))
    require(isinstance(data, dict), path, "(file)", "top level must be a mapping")
    check_keys(data, path)
    for key in ("topic", "variants", "reference", "default", "profiles"):
        require(key in data, path, key, "missing")
    require(isinstance(data["profiles"], dict) and bool(data["profiles"]), path, "profiles",
            "must be a non-empty mapping")
    name = data["topic"]
    require(is_name(name), path, "topic", f"{shown(name)} is not a valid name ({NAME_RULE})")
    variants = data["variants"]
    require(isinstance(variants, dict) and bool(variants), path, "variants", "must be a non-empty mapping")
    for vname, vdef in variants.items():
        require(isinstance(vname, str) and is_name(vname), path, f"variants.{vname}", f"invalid name ({NAME_RULE})")
        require(isinstance(vdef, dict) and "fn" in vdef, path, f"variants.{vname}.fn", "missing")
    for key in ("reference", "default"):
        require(data[key] in variants, path, key, f"{shown(data[key])} is not a declared variant")
    for prof, body in data["profiles"].items():
        require(prof in PROFILES, path, f"profiles.{prof}", f"unknown profile (known: {', '.join(PROFILES)})")
        for v in (body or {}).get("variants") or []:
            require(v in variants, path, f"profiles.{prof}.variants", f"{shown(v)} is not a declared variant")
    check_references(data, path)
    for i, bd in enumerate(data.get("breakdowns") or []):
        for prof in bd.get("profiles") or []:
            require(prof in PROFILES, path, f"breakdowns.{i}.profiles", f"{shown(prof)} is not one of "
                    f"{', '.join(PROFILES)}")
    _check_settings_sections(data, path)
    snippet_name = data.get("snippet", f"{name}.py")
    require(snippet_name.endswith(".py") and Path(snippet_name).name == snippet_name and "\\" not in snippet_name,
            path, "snippet", f"{shown(snippet_name)} is not a file name ending .py (the snippet sits beside the YAML)")
    snippet = path.with_name(snippet_name)
    source = read_regular(snippet, MAX_SNIPPET_BYTES, lambda problem: CaseGridError(str(snippet), "(file)", problem))
    _utf8(source, lambda problem: CaseGridError(str(snippet), "(file)", problem))
    digest = hashlib.sha256(source)
    digest.update(json.dumps({k: data.get(k) for k in ("variants", "tolerance", "reference")},
                             sort_keys=True, default=str).encode())
    setup = str(data.get("setup", "setup"))
    tolerance = {"rtol": 1e-4, "atol": 1e-5,
                 **{str(k): _number(v, path, f"tolerance.{k}") for k, v in (data.get("tolerance") or {}).items()}}
    per_call = data.get("per_call")
    per_step = str((data.get("per_step") or {}).get("param") or "") or None
    return Topic(
        name=name, title=str(data.get("title", name)), path=path, snippet=snippet,
        snippet_hash=digest.hexdigest()[:16],
        source_hashes=source_hashes(source, snippet, variants, str(data["reference"]), setup, tolerance),
        variants=dict(variants), reference=str(data["reference"]), default=str(data["default"]),
        profiles={str(p): _profile(body or {}, path, str(p)) for p, body in data["profiles"].items()},
        setup=setup, tolerance=tolerance, timeout_s=_number(data.get("timeout_s", 300), path, "timeout_s"),
        exclude=list(data.get("exclude") or []), settings_map=dict(data.get("settings_map") or {}),
        baseline_settings={str(k): str(v) for k, v in (data.get("baseline_settings") or {}).items()},
        settings_labels={str(k): {str(a): str(b) for a, b in v.items()}
                         for k, v in (data.get("settings_labels") or {}).items()},
        claims=[with_step_param(c, per_step) for c in data.get("claims") or []],
        settings_claims=list(data.get("settings_claims") or []),
        questions=list(data.get("questions") or []), names=_names(data, path),
        display=_display(data, path), groups=_groups(data, path), bounds=_bounds(data, path),
        controls=list(data.get("controls") or []), breakdowns=list(data.get("breakdowns") or []),
        breakdown_categories=data.get("breakdown_categories"),
        per_call=PerCall(str(per_call["divide_by"]), str(per_call.get("unit") or "unit")) if per_call else None,
        per_step=per_step,
    )


def _profile(body: Mapping[str, Any], path: Path, name: str) -> Profile:
    """One profile, its keys' types already checked (:data:`~tfperf.cases.topic_schema.PROFILE`)."""
    where = f"profiles.{name}"
    require(isinstance(body, dict), path, where, "must be a mapping")
    params = {str(k): v if isinstance(v, list) else [v] for k, v in (body.get("params") or {}).items()}
    settings = {str(k): v if isinstance(v, list) else [v] for k, v in (body.get("settings") or {}).items()}
    only = body.get("variants")
    timeout = body.get("timeout_s")
    budget = {str(k): v if isinstance(v, int) else _number(v, path, f"{where}.budget.{k}")
              for k, v in (body.get("budget") or {}).items()}
    return Profile(params=params, settings=settings, variants=None if only is None else [str(v) for v in only],
                   exclude=list(body.get("exclude") or []), budget=budget,
                   timeout_s=None if timeout is None else _number(timeout, path, f"{where}.timeout_s"),
                   arrivals=_arrivals(body.get("arrivals"), path, f"{where}.arrivals"))


def _arrivals(items: list[Mapping[str, Any]] | None, path: Path, where: str) -> tuple[Arrival, ...]:
    """A profile's ``arrivals:``, each value already range-checked
    (:data:`~tfperf.cases.topic_schema.ARRIVAL`): each pattern with its own keys (idle needs
    ``gap_s``, poisson ``rate``; ``requests`` for both; back_to_back none), none twice.
    Absent: back to back alone, as every topic measured before patterns."""
    if items is None:
        return (BACK_TO_BACK,)
    require(bool(items), path, where, "must list at least one pattern (or be left out: back_to_back alone)")
    out: list[Arrival] = []
    for i, item in enumerate(items):
        at = f"{where}.{i}"
        require("pattern" in item, path, f"{at}.pattern", f"missing (one of {', '.join(ARRIVAL_KEYS)})")
        pattern = Pattern(item["pattern"])
        keys = ARRIVAL_KEYS[pattern.value]
        for key in item:
            require(key == "pattern" or key in keys, path, f"{at}.{key}",
                    f"not a key of the {pattern.value} pattern (its keys: {', '.join(keys) or 'none'})")
        if keys:
            require(keys[0] in item, path, f"{at}.{keys[0]}", f"missing (the {pattern.value} pattern needs it)")
        arrival = Arrival(pattern, gap_s=number(item.get("gap_s", 0.0)) or 0.0, rate=number(item.get("rate", 0.0)) or 0.0,
                          requests=int(item.get("requests", 0)))
        require(all(a.id != arrival.id for a in out), path, at, f"{arrival.id} is listed twice")
        out.append(arrival)
    return tuple(out)


def _check_settings_sections(data: Mapping[str, Any], path: Path) -> None:
    """The shapes of baseline_settings, settings_labels, settings_claims, controls,
    breakdown_categories and per_call (a mistake names the file and the field)."""
    for name in ("baseline_settings", "settings_labels", "settings_map"):
        require(isinstance(data.get(name) or {}, dict), path, name, "must be a mapping")
    for k, v in (data.get("settings_labels") or {}).items():
        require(isinstance(v, dict), path, f"settings_labels.{k}", "must map values to labels")
    for section, fields in (("settings_claims", ("candidate_settings", "baseline_settings")),
                            ("controls", ("settings", "same_as"))):
        items = data.get(section) or []
        require(isinstance(items, list), path, section, "must be a list")
        for i, item in enumerate(items):
            need = ("id", "candidate", "baseline", *fields) if section == "settings_claims" else ("id", "variant", *fields)
            for fld in need:
                require(isinstance(item, dict) and fld in item, path, f"{section}.{i}.{fld}", "missing")
            for fld in fields:
                require(isinstance(item[fld], dict) and bool(item[fld]), path, f"{section}.{i}.{fld}",
                         "must be a non-empty mapping")
    rules = data.get("breakdown_categories")
    require(rules is None or isinstance(rules, list), path, "breakdown_categories",
             "must be a list of {name: ..., match: [...]}")
    for i, rule in enumerate(rules or []):
        require(isinstance(rule, dict) and isinstance(rule.get("name"), str) and isinstance(rule.get("match"), list)
                 and all(isinstance(m, str) for m in rule["match"]), path, f"breakdown_categories.{i}",
                 "must be {name: <text>, match: [<text in a frame>, ...]}")
    per_call = data.get("per_call")
    require(per_call is None or (isinstance(per_call, dict) and bool(per_call.get("divide_by"))), path,
             "per_call.divide_by", "missing (the parameter one call is divided by)")


def _display(data: Mapping[str, Any], path: Path) -> dict[str, str]:
    """Every variant's display name: its ``display:`` entry, else its ``label`` (which is
    part of what a result's key hashes, so it stays as measured). A display name fits a
    legend's line (``LABEL_MAX`` characters) and names one variant only."""
    given = data.get("display") or {}
    out: dict[str, str] = {}
    for v, vdef in (data.get("variants") or {}).items():
        name = str(given.get(v) or vdef.get("label") or v)
        where = f"display.{v}" if v in given else f"variants.{v}.label"
        require(len(name) <= LABEL_MAX, path, where,
                f"{name!r} is {len(name)} characters; a display name has at most {LABEL_MAX} "
                f"(give the variant a shorter one under `display:`)")
        twin = next((o for o, n in out.items() if n == name), None)
        require(twin is None, path, where, f"{name!r} is also the display name of {twin!r}")
        out[str(v)] = name
    for v in given:
        require(v in (data.get("variants") or {}), path, f"display.{v}", f"{v!r} is not a declared variant")
    return out


def _groups(data: Mapping[str, Any], path: Path) -> dict[str, list[str]]:
    """``groups:``: named sets of variants a chart shows together (a topic with more variants
    than a chart panel holds); each variant belongs to one at least."""
    groups = {str(g): [str(v) for v in vs] for g, vs in (data.get("groups") or {}).items()}
    variants = data.get("variants") or {}
    for g, vs in groups.items():
        for v in vs:
            require(v in variants, path, f"groups.{g}", f"{v!r} is not a declared variant")
    if groups:
        left = [v for v in variants if v != data.get("default") and not any(v in vs for vs in groups.values())]
        require(not left, path, "groups", f"{', '.join(map(repr, left))} in no group (each variant needs one)")
    return groups


def _bounds(data: Mapping[str, Any], path: Path) -> list[str]:
    """``bounds:``: variants that are limits to compare with, never recommendations; the
    default and the reference cannot be one (every speedup and output is judged against them)."""
    bounds = [str(v) for v in data.get("bounds") or []]
    for i, v in enumerate(bounds):
        require(v in (data.get("variants") or {}), path, f"bounds.{i}", f"{v!r} is not a declared variant")
        require(v not in (data.get("default"), data.get("reference")), path, f"bounds.{i}",
                f"{v!r} is the default or the reference, which cannot be a bound")
    return bounds


def _names(data: Mapping[str, Any], path: Path) -> dict[str, str]:
    """``names:``: a short name per variant for the answers ("jit_compile=True"), beside its
    display name."""
    names = data.get("names") or {}
    require(isinstance(names, dict), path, "names", "must map variants to short names")
    for k, v in names.items():
        require(str(k) in (data.get("variants") or {}), path, f"names.{k}", f"{k!r} is not a declared variant")
        require(isinstance(v, str) and v.strip() != "", path, f"names.{k}", "must be a non-empty text")
    return {str(k): str(v) for k, v in names.items()}


def _number(value: object, path: Path, fld: str) -> float:
    """A finite, non-negative number from the YAML (its range was checked against the
    schema), or an error naming the file and the field. YAML 1.1 reads ``1e-5`` (no dot)
    as a string: a string that is a number counts as one."""
    n = number(value)
    if n is None or n < 0:
        raise CaseGridError(str(path), fld, f"must be a finite number, 0 or more, got {shown(value)}")
    return n

