"""Check a results document against the schema and the rules a schema cannot express.

Every problem is reported as (JSON field path, problem), e.g.
``results[3].timing.summary.median: must be > 0, got -0.5``; ``validate`` raises one
``ResultsSchemaError`` whose message is the first problem on one line, with the count
and the fields of the others, and which keeps the full list in ``.problems``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from functools import cache
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any, cast

import numpy as np
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from ..errors import ResultsFileError
from ..hardware import cpu_identity
from ..stats import median, quantile
from .record_types import ResultsDoc, env_id, key_hash
from .schema import NAME_RE, NAME_RULE, SCHEMA_VERSION, check_version, is_name, load_schema

PathT = tuple[str | int, ...]
Problem = tuple[PathT, str]


class NonFinite:
    """Stands for a NaN or Infinity literal found while parsing, so that the error can
    name the field it was in instead of only "somewhere in the file"."""

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal


class ResultsSchemaError(ResultsFileError):
    """A results document breaks the schema; ``problems`` holds every (field, problem)."""

    def __init__(self, path: str, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = list(problems)
        field, problem = self.problems[0]
        rest = [f for f, _ in self.problems[1:]]
        if rest:
            shown = ", ".join(rest[:3]) + (", ..." if len(rest) > 3 else "")
            problem += f" (and {len(rest)} more: {shown})"
        super().__init__(path, field, problem)


def field_path(path: Sequence[str | int]) -> str:
    """("results", 3, "timing") -> "results[3].timing"; "(top level)" for the root."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", seg):
            out += f".{seg}" if out else seg
        else:
            out += f"[{json.dumps(seg)}]"
    return out or "(top level)"


def short(value: Any, limit: int = 48) -> str:
    """A one-line, bounded rendering of a value for an error message."""
    try:
        text = json.dumps(value, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "NaN or Infinity" if not math.isfinite(value) else "number"
    if isinstance(value, NonFinite):
        return value.literal
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


# -- non-finite numbers ---------------------------------------------------------------

def non_finite(doc: Any, path: PathT = ()) -> Iterator[PathT]:
    """Paths of NaN / Infinity values (floats, or parse-time ``NonFinite`` markers)."""
    if isinstance(doc, NonFinite) or (isinstance(doc, float) and not math.isfinite(doc)):
        yield path
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield from non_finite(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from non_finite(v, (*path, i))


def _lookup(doc: Any, path: PathT) -> Any:
    for seg in path:
        doc = doc[seg]
    return doc


# -- JSON Schema errors -> one line each ------------------------------------------------

_FORMATS = FormatChecker(formats=())


@_FORMATS.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return datetime.fromisoformat(value).tzinfo is not None


# Speed: jsonschema costs milliseconds per result, mostly in the per-sample "$ref"s. So the
# document is checked in parts: the top level without its record lists, then each record
# against its own definition (records already found valid in this process are skipped,
# which makes repeated appends cheap), and the long number lists (samples, latencies, round
# indices: nine in ten of a file's values) by plain loops below.
RECORD_DEFS = {"results": "result", "noise": "noise", "breakdowns": "breakdown", "scenarios": "scenario"}
_known_good: set[str] = set()


@cache
def _validators() -> dict[str, Draft202012Validator]:
    schema = copy.deepcopy(load_schema(SCHEMA_VERSION))
    defs = schema["$defs"]
    del defs["result"]["properties"]["timing"]["properties"]["samples"]["items"]     # values: _sample_problems
    del defs["noise"]["properties"]["samples"]["items"]
    defs["round_indices"] = {"type": "array"}
    defs["latencies"] = {"type": "array", "items": {"type": "array", "minItems": 1}}
    top = copy.deepcopy(schema)
    for key in RECORD_DEFS:
        top["properties"][key] = {"type": "array"}
    out = {"": Draft202012Validator(top, format_checker=_FORMATS)}
    for key, name in RECORD_DEFS.items():
        out[key] = Draft202012Validator({"$defs": defs, **defs[name]}, format_checker=_FORMATS)
    return out


def _safe_datetime(value: object) -> bool:
    try:
        return _is_datetime(value)
    except ValueError:
        return False


@cache
def _fast_validators() -> dict[str, Callable[[Any], Any]] | None:
    """fastjsonschema's compiled code for the schemas of :func:`_validators`, where it is
    installed (the site extra brings it, with nbformat): a quick yes for a valid part. It
    checks the 24,833 records of the published results in ~3 s, where jsonschema takes ~60
    s, which a fresh machine's first site build pays. Only its yes is used: anything it
    refuses, or fails on, goes to jsonschema, whose errors the problems are made from, so
    it never changes a message; tests/store/faults/test_intake_fuzz.py holds its yes to
    jsonschema's. None: jsonschema alone."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    formats = {"date-time": _safe_datetime}
    try:
        return {key: fastjsonschema.compile(cast(dict[str, Any], v.schema), formats=formats)
                for key, v in _validators().items()}
    except fastjsonschema.JsonSchemaDefinitionException:   # a keyword it cannot compile: jsonschema alone
        return None


def _passes(key: str, value: Any) -> bool:
    """Whether the fast check of :func:`_fast_validators` says yes to ``value`` (a record of
    list ``key``, or the document without its records for ``key`` "")."""
    fast = _fast_validators()
    if fast is None:
        return False
    try:
        fast[key](value)
    except Exception:  # noqa: BLE001 - its refusal, or a value its code trips over: jsonschema decides
        return False
    return True


def _record_id(record: Any) -> str:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=True, default=repr)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _schema_problems(doc: Mapping[str, object]) -> Iterator[Problem]:
    validators = _validators()
    if not _passes("", doc):
        for err in validators[""].iter_errors(doc):
            yield from _describe(err, doc, ())
    for key in RECORD_DEFS:
        records = doc.get(key)
        if not isinstance(records, list):
            continue
        for i, record in enumerate(records):
            rid = _record_id(record)
            if rid in _known_good:
                continue
            found = [] if _passes(key, record) else [
                p for err in validators[key].iter_errors(record) for p in _describe(err, doc, (key, i))]
            if key in ("results", "noise"):
                found += _sample_problems(record, (key, i))
            if not found and isinstance(record, dict):
                found = _record_rules(key, record, (key, i))
            if found:
                yield from found
            else:
                if len(_known_good) > 500_000:
                    _known_good.clear()
                _known_good.add(rid)


def _sample_problems(record: Any, at: PathT) -> list[Problem]:
    """The values of a result's ``timing.samples``, ``timing.rounds`` and ``timing.latencies``,
    and of a noise record's ``samples``, ``rounds`` and ``latencies`` (left out of the schema
    check for speed): positive numbers, and round indices that are integers >= 0."""
    if not isinstance(record, dict):
        return []
    timing = record.get("timing") if at[0] == "results" else record
    if not isinstance(timing, dict):
        return []
    where: PathT = (*at, "timing") if at[0] == "results" else at
    out: list[Problem] = []
    samples = timing.get("samples")
    if isinstance(samples, list):
        out += _positive(samples, (*where, "samples"))
    rounds = timing.get("rounds")
    if isinstance(rounds, list):
        out += _round_indices(rounds, (*where, "rounds"))
    latencies = timing.get("latencies")
    for j, per_round in enumerate(latencies if isinstance(latencies, list) else []):
        if isinstance(per_round, list):
            out += _positive(per_round, (*where, "latencies", j))
    return out


def _positive(values: list[Any], at: PathT) -> list[Problem]:
    if all((type(x) is float or type(x) is int) and 0 < x < math.inf for x in values):
        return []                   # the usual case, in one pass; NaN, bool and the rest below
    out: list[Problem] = []
    for j, x in enumerate(values):
        if not _number(x) and not isinstance(x, (NonFinite, float)):
            out.append(((*at, j), f"expected number, got {json_type(x)}"))
        elif _number(x) and x <= 0:
            out.append(((*at, j), f"must be > 0, got {short(x)}"))
    return out


def _round_indices(values: list[Any], at: PathT) -> list[Problem]:
    out: list[Problem] = []
    for j, x in enumerate(values):
        if isinstance(x, bool) or not isinstance(x, int):
            out.append(((*at, j), f"expected integer, got {json_type(x)}"))
        elif x < 0:
            out.append(((*at, j), f"must be >= 0, got {short(x)}"))
    return out


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [str(x) for x in t]
    if "$ref" in schema:
        target = _lookup(load_schema(SCHEMA_VERSION), tuple(schema["$ref"].lstrip("#/").split("/")))
        return _types(target)
    return []


def _describe(err: ValidationError, doc: Any, prefix: PathT) -> list[Problem]:
    path: PathT = (*prefix, *err.absolute_path)
    # A validator's value is any JSON the schema holds; jsonschema types the error's fields
    # as possibly unset, which they never are for an error it raised.
    inst, kind = err.instance, str(err.validator)
    want: Any = err.validator_value
    schema = err.schema if isinstance(err.schema, Mapping) else {}
    if kind == "required" and isinstance(inst, dict):
        return [((*path, k), "missing (required)") for k in want if k not in inst]
    if kind == "additionalProperties" and isinstance(inst, dict):
        known = schema.get("properties", {})
        return [((*path, k), f"unknown field (not in schema version {SCHEMA_VERSION})")
                for k in inst if k not in known]
    if kind in ("oneOf", "anyOf") and err.context:
        specific = [e for e in err.context if e.validator != "type"]
        if specific:
            return [p for e in specific for p in _describe(e, doc, prefix)]
        names = [t for e in err.context for t in _types(e.schema)]
        return [(path, f"expected {' or '.join(dict.fromkeys(names))}, got {json_type(inst)}")]
    if kind == "type":
        problem = f"expected {' or '.join(_types(schema)) or want}, got {json_type(inst)}"
    elif kind == "enum":
        problem = f"{short(inst)} is not one of {', '.join(map(short, want))}"
    elif kind == "const":
        problem = f"must be {short(want)}, got {short(inst)}"
    elif kind == "pattern" and "propertyNames" in err.schema_path:
        return [((*path, str(inst)), "key must be 16 lowercase hex digits (an env id)")]
    elif kind == "pattern" and want == "^" + NAME_RE.pattern + "$":
        problem = f"{short(inst)} is not a valid name ({NAME_RULE})"
    elif kind == "pattern":
        problem = f"{short(inst)} does not match {want}"
    elif kind == "minimum":
        problem = f"must be >= {want}, got {short(inst)}"
    elif kind == "exclusiveMinimum":
        problem = f"must be > {want}, got {short(inst)}"
    elif kind == "maximum":
        problem = f"must be <= {want}, got {short(inst)}"
    elif kind == "exclusiveMaximum":
        problem = f"must be < {want}, got {short(inst)}"
    elif kind == "maxLength":
        problem = f"longer than {want} characters"
    elif kind == "format":
        problem = f"{short(inst)} is not an ISO 8601 date-time with a time zone"
    else:
        problem = err.message.splitlines()[0] if err.message else kind
    if "then" in err.schema_path and len(path) >= 2:
        parent = _lookup(doc, path[:2])
        if isinstance(parent, dict) and "status" in parent:
            problem += f" (required when status is {short(parent['status'])})"
    return [(path, problem)]


# -- rules beyond the schema ---------------------------------------------------------------

def _case_id_problem(case_id: Any, topic: Any = None, variant: Any = None, arrival: Any = None) -> str | None:
    """A case id is <topic>/<params>/<settings>/<variant>[@<arrival>][#aa], the arrival
    pattern's id there when the record names one; never a path to walk."""
    if not isinstance(case_id, str):
        return None  # the schema reports the type
    segs = case_id.split("/")
    if any(s in (".", "..") for s in segs) or "\\" in case_id or any(ord(c) < 32 for c in case_id):
        return f"{short(case_id)} contains a path traversal or control character"
    if len(segs) != 4:
        return f"{short(case_id)} is not <topic>/<params>/<settings>/<variant>"
    if topic is not None and segs[0] != topic:
        return f"{short(case_id)} does not start with its topic {short(topic)}"
    if variant is not None:
        end = f"{variant}@{arrival}" if isinstance(arrival, str) else variant
        if segs[3] not in (end, f"{end}#aa"):
            what = f"its variant and arrival pattern {short(end)}" if isinstance(arrival, str) \
                else f"its variant {short(variant)}"
            return f"{short(case_id)} does not end with {what}"
    return None


def _name_problems(doc: Mapping[str, object]) -> Iterator[Problem]:
    def check(path: PathT, value: Any) -> Iterator[Problem]:
        if isinstance(value, str) and not is_name(value):
            yield path, f"{short(value)} is not a valid name ({NAME_RULE})"

    runner = doc.get("runner")
    label = runner.get("label") if isinstance(runner, dict) else None
    yield from check(("runner", "label"), label)
    for i, r in enumerate(_list(doc, "results")):
        yield from check(("results", i, "topic"), r.get("topic"))
        yield from check(("results", i, "variant"), r.get("variant"))
    for i, b in enumerate(_list(doc, "breakdowns")):
        yield from check(("breakdowns", i, "topic"), b.get("topic"))
        yield from check(("breakdowns", i, "variant"), b.get("variant"))


def _list(doc: Mapping[str, object], key: str) -> list[dict[str, object]]:
    value = doc.get(key)
    return [x if isinstance(x, dict) else {} for x in value] if isinstance(value, list) else []


def _number(x: Any) -> bool:
    """A finite JSON number. Integers are finite however long (``math.isfinite`` would
    overflow converting a 400-digit one to float); ``files.parse`` refuses those anyway."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    return isinstance(x, int) or math.isfinite(x)


def _all_numbers(values: list[Any]) -> bool:
    """Whether every value is a finite JSON number (:func:`_number`): the usual list of finite
    floats in one quick pass, anything else value by value."""
    return all(type(x) is float and -math.inf < x < math.inf for x in values) or all(map(_number, values))


def _medians(rounds: list[list[float]]) -> list[float]:
    """Each round's median; rounds of one length (a pattern's fixed block) in one numpy call."""
    if rounds and len({len(r) for r in rounds}) == 1 and rounds[0]:
        return [float(x) for x in np.median(np.asarray(rounds, dtype=float), axis=1)]
    return [median(r) if r else math.nan for r in rounds]


# Stored samples are rounded to 6 significant digits after the summary was computed.
SUMMARY_RTOL = 1e-5


def _summary_problems(r: Mapping[str, object], at: PathT) -> list[Problem]:
    """An ``ok`` result has samples, and its summary is the summary of those samples."""
    timing = r.get("timing")
    if not isinstance(timing, dict):
        return []
    samples = timing.get("samples")
    if not isinstance(samples, list):
        return []
    if not samples:
        return [((*at, "timing", "samples"), f"empty, but the result's status is {short(r.get('status'))}")] \
            if r.get("status") == "ok" else []
    summary = timing.get("summary")
    if not isinstance(summary, dict) or not _all_numbers(samples):
        return []
    out: list[Problem] = []
    if summary.get("n") != len(samples):
        out.append(((*at, "timing", "summary", "n"), f"{short(summary.get('n'))}, but there are {len(samples)} samples"))
    ordered = sorted(samples)
    mid = len(ordered) // 2
    expected = {"min": ordered[0], "max": ordered[-1],
                "median": ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2}
    for key, want in expected.items():
        got = summary.get(key)
        if _number(got) and abs(got - want) > SUMMARY_RTOL * abs(want):
            out.append(((*at, "timing", "summary", key), f"{short(got)} is not the {key} of the samples ({want:.6g})"))
    return out


def _rule_problems(doc: Mapping[str, object]) -> Iterator[Problem]:
    yield from _name_problems(doc)
    runner = doc.get("runner")
    label = runner.get("label") if isinstance(runner, dict) else None
    envs = doc.get("environments")
    envs = envs if isinstance(envs, dict) else {}
    for eid, env in envs.items():
        if isinstance(env, dict):
            if env_id(env) != eid:
                yield ("environments", eid), f"env id does not match its record (expected {env_id(env)})"
            if label is not None and env.get("runner") != label:
                yield ("environments", eid, "runner"), f"{short(env.get('runner'))} differs from runner.label {short(label)}"

    yield from _one_cpu(envs, label)

    def env_ref(path: PathT, value: Any) -> Iterator[Problem]:
        if isinstance(value, str) and value not in envs:
            yield path, f"{short(value)} is not in environments"

    for i, r in enumerate(_list(doc, "results")):
        at: PathT = ("results", i)
        key = r.get("key")
        if isinstance(key, dict) and label is not None and "runner" in key and key["runner"] != label:
            yield (*at, "key", "runner"), f"{short(key['runner'])} differs from runner.label {short(label)}"
        yield from env_ref((*at, "env_id"), r.get("env_id"))
    for kind in ("noise", "breakdowns"):
        for i, rec in enumerate(_list(doc, kind)):
            yield from env_ref((kind, i, "env_id"), rec.get("env_id"))


def _one_cpu(envs: Mapping[str, object], label: object) -> Iterator[Problem]:
    """A runner is one CPU: every environment record of a file names the same one
    (:func:`tfperf.hardware.cpu_identity`). The first record in time sets it."""
    named = sorted(((str(e.get("time")), eid, cpu_identity(e)) for eid, e in envs.items() if isinstance(e, dict)))
    if not named:
        return
    first_id, first = named[0][1], named[0][2]
    for _, eid, cpu in named[1:]:
        if cpu != first:
            problem = (f"measured on {cpu}, but runner {short(label)} is {first} "
                       f"(environments[{json.dumps(first_id)}]): two CPUs cannot share one runner label; "
                       "measure under a label of its own (the default label names the CPU)")
            yield ("environments", eid, "cpu_model"), problem


def _record_rules(kind: str, r: Mapping[str, object], at: PathT) -> list[Problem]:
    """Rules about one record alone (run once its schema check passed; results cached)."""
    out: list[Problem] = []
    if kind == "scenarios":
        cases = r.get("cases")                  # a list: the record passed its schema check
        return [((*at, "cases", j), p) for j, c in enumerate(cases if isinstance(cases, list) else [])
                if (p := _case_id_problem(c, r.get("topic")))]
    arrival = r.get("arrival")
    arrival_id = arrival.get("id") if isinstance(arrival, dict) else arrival
    problem = _case_id_problem(r.get("case_id"), r.get("topic"), r.get("variant"), arrival_id)
    if problem:
        out.append(((*at, "case_id"), problem))
    if kind == "noise":
        return out + _latency_problems(r, r, at)
    if kind != "results":
        return out
    key = r.get("key")
    if isinstance(key, dict) and isinstance(r.get("key_hash"), str) and key_hash(key) != r["key_hash"]:
        out.append(((*at, "key_hash"), f"does not match the key (expected {key_hash(key)})"))
    timing = r.get("timing")
    rounds = timing.get("rounds") if isinstance(timing, dict) else None
    if isinstance(timing, dict) and isinstance(rounds, list) and len(rounds) != len(timing.get("samples") or []):
        out.append(((*at, "timing", "rounds"), f"{len(rounds)} round indices for {len(timing.get('samples') or [])} samples"))
    summary = timing.get("summary") if isinstance(timing, dict) else None
    if (isinstance(summary, dict) and all(_number(summary.get(k)) for k in ("min", "median", "max"))
            and not summary["min"] <= summary["median"] <= summary["max"]):
        out.append(((*at, "timing", "summary", "median"), "not between min and max"))
    if (isinstance(summary, dict) and _number(summary.get("ci_low")) and _number(summary.get("ci_high"))
            and summary["ci_low"] > summary["ci_high"]):
        out.append(((*at, "timing", "summary", "ci_low"), "greater than ci_high"))
    if isinstance(timing, dict):
        out += _latency_problems(timing, r, (*at, "timing"))
    return out + _summary_problems(r, at)


def _latency_problems(timing: Mapping[str, object], record: Mapping[str, object], at: PathT) -> list[Problem]:
    """Per-request latencies come with an arrival pattern (``arrival``), a list per round
    (as many as ``samples``), each round's sample its median (results), and the ``tail``
    percentiles of them all."""
    latencies = timing.get("latencies")
    if latencies is None:
        return []
    if "arrival" not in record:
        return [((*at, "latencies"), "per-request latencies without an arrival pattern (the record has no arrival)")]
    if not isinstance(latencies, list) or not all(isinstance(x, list) and _all_numbers(x) for x in latencies):
        return []
    samples = timing.get("samples")
    out: list[Problem] = []
    if isinstance(samples, list) and len(samples) != len(latencies):
        out.append(((*at, "latencies"), f"{len(latencies)} rounds of latencies for {len(samples)} samples"))
    elif isinstance(samples, list):
        for j, (x, want) in enumerate(zip(samples, _medians(latencies))):
            if _number(x) and abs(x - want) > SUMMARY_RTOL * abs(want):
                problem = f"{short(x)} is not the median latency of round {j}'s requests ({want:.6g})"
                out.append(((*at, "samples", j), problem))
                break
    tail = timing.get("tail")
    pooled = [x for per_round in latencies for x in per_round]
    if isinstance(tail, dict) and pooled:
        if tail.get("n") != len(pooled):
            out.append(((*at, "tail", "n"), f"{short(tail.get('n'))}, but there are {len(pooled)} latencies"))
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            got = tail.get(name)
            value = got.get("value") if isinstance(got, dict) else None
            want = quantile(pooled, q)
            if isinstance(value, (int, float)) and _number(value) and abs(value - want) > SUMMARY_RTOL * abs(want):
                problem = f"{short(value)} is not the {name} of the latencies ({want:.6g})"
                out.append(((*at, "tail", name, "value"), problem))
    return out


def _sort_key(path: PathT) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, s, "") if isinstance(s, int) else (1, 0, s) for s in path)


def problems(doc: Any) -> list[tuple[str, str]]:
    """Every problem of a current-version document as (field path, problem), in field order."""
    if not isinstance(doc, dict):
        return [("(top level)", f"must be a JSON object, got {json_type(doc)}")]
    found: dict[PathT, str] = {}
    try:  # the C encoder finds any NaN/Infinity fast; walk only when there is one
        json.dumps(doc, allow_nan=False, check_circular=False)
        bad: list[PathT] = []
    except (ValueError, TypeError):
        bad = list(non_finite(doc))
    for path in bad:
        found.setdefault(path, f"{short(_lookup(doc, path))} is not allowed: numbers must be finite")
    for path, problem in _schema_problems(doc):
        if not any(path[: len(p)] == p for p in found if p):
            found.setdefault(path, problem)
    if not found:
        for path, problem in _rule_problems(doc):
            found.setdefault(path, problem)
    return [(field_path(p), found[p]) for p in sorted(found, key=_sort_key)]


def validate(doc: Any, path: str = "<document>") -> None:
    """Raise ``ResultsSchemaError`` naming ``path`` and the first bad field, or return None.

    The document must already be at SCHEMA_VERSION (``load`` migrates first); a newer
    version is refused with "upgrade tfperf"."""
    if isinstance(doc, dict) and doc.get("schema_version") != SCHEMA_VERSION:
        version = check_version(doc, path)
        raise ResultsFileError(path, "schema_version",
                               f"schema version {version} must be migrated to {SCHEMA_VERSION} first (load() does)")
    found = problems(doc)
    if found:
        raise ResultsSchemaError(path, found)


def checked(doc: Mapping[str, Any], path: str = "<document>") -> ResultsDoc:
    """``doc`` once it passes :func:`validate`: the ``ResultsDoc`` the schema describes.
    The one place where JSON becomes the typed document (``trusted`` aside)."""
    validate(doc, path)
    return cast(ResultsDoc, doc)


class CheckedFiles:
    """The files whose exact bytes passed :func:`validate` before, in this process or another:
    a committed results file is megabytes, checking it takes about a second per 8 MB (per
    1.5 MB without fastjsonschema), and
    the site build, the reports and every test process load the same files again.

    A file is known by the SHA-256 of its bytes together with a fingerprint of the checking
    code (this package's modules and schema files, the modules they import, jsonschema's
    version): a changed byte, check or schema checks the file again. Only a file that
    passed is remembered, as an empty file named by both hashes in ``TFPERF_CHECKED_CACHE``
    (default ``$XDG_CACHE_HOME/tfperf/checked``, i.e. ``~/.cache/tfperf/checked``; an empty
    value turns the memo off). A folder that cannot be read or written costs the check
    again, never a verdict."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._known: set[str] = set()

    @classmethod
    def from_env(cls) -> CheckedFiles:
        value = os.environ.get("TFPERF_CHECKED_CACHE")
        if value is None:
            value = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tfperf" / "checked")
        return cls(Path(value) if value else None)

    def name(self, data: bytes) -> str:
        """What the memo knows ``data`` by: hashing megabytes takes milliseconds, so a caller
        asks for the name once and passes it to :meth:`knows` and :meth:`remember`."""
        return f"{_code_fingerprint()}-{hashlib.sha256(data).hexdigest()}"

    def knows(self, name: str) -> bool:
        if name in self._known:
            return True
        if self.folder is not None and os.path.isfile(self.folder / name):
            self._known.add(name)
            return True
        return False

    def remember(self, name: str) -> None:
        self._known.add(name)
        if self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / name).touch()
        except OSError:
            pass                    # only costs the next process the check


@cache
def _code_fingerprint() -> str:
    """What the verdict of :func:`validate` depends on besides the document."""
    here = Path(__file__).resolve().parent
    parts = [*sorted(here.glob("*.py")), *sorted(here.glob("*.json")),
             *(here.parent / name for name in ("hardware.py", "stats.py", "errors.py"))]
    h = hashlib.sha256(package_version("jsonschema").encode("utf-8"))
    if _fast_validators() is not None:
        h.update(b"fastjsonschema " + package_version("fastjsonschema").encode("utf-8"))
    for part in parts:
        h.update(part.name.encode("utf-8") + b"\0" + part.read_bytes())
    return h.hexdigest()[:16]


def trusted(doc: Mapping[str, Any]) -> ResultsDoc:
    """A document known to pass :func:`validate`, typed without checking the whole again:
    one put together from a validated header and records that each passed when they came
    in (re-validating a file on every append is what ``append`` avoids), or a file whose
    exact bytes passed before (:class:`CheckedFiles`)."""
    return cast(ResultsDoc, doc)
