"""store/record_types.py says what schema_v2.json says: for the file and every record in it,
the same properties, the same required ones, and the same JSON types (null, string, integer,
number, boolean, array, object, enum values), recursively. A field added to the schema and
not to the types (or the other way round) fails here with its path."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from tfperf.store import record_types as rt
from tfperf.store.schema import schema_path

SCHEMA: dict[str, Any] = json.loads(Path(schema_path(2)).read_text(encoding="utf-8"))
DEFS: dict[str, Any] = SCHEMA["$defs"]


def _resolve(s: Any) -> Any:
    while isinstance(s, dict) and "$ref" in s:
        s = DEFS[s["$ref"].rsplit("/", 1)[-1]]
    return s


def _schema_options(s: Any) -> list[Any]:
    """A schema as a list of single-type alternatives."""
    s = _resolve(s)
    if s is True or s == {}:
        return ["any"]
    if "oneOf" in s or "anyOf" in s:
        return [o for alt in s.get("oneOf", s.get("anyOf")) for o in _schema_options(alt)]
    if "enum" in s or "const" in s:
        return [("enum", frozenset(s.get("enum", [s.get("const")])))]
    kinds = s["type"] if isinstance(s["type"], list) else [s["type"]]
    return [{**s, "type": k} for k in kinds]


def _kind(option: Any) -> str:
    if option == "any":
        return "any"
    if isinstance(option, tuple):
        return "enum"
    if option["type"] == "object":
        return "record" if "properties" in option else "map"
    return str(option["type"])


def _type_options(ann: Any) -> list[Any]:
    if get_origin(ann) in (Union, types.UnionType):
        return [o for a in get_args(ann) for o in _type_options(a)]
    return [ann]


def _type_kind(ann: Any) -> str:
    if ann is Any:
        return "any"
    if ann is type(None):
        return "null"
    if get_origin(ann) is Literal:
        return "enum"
    if typing.is_typeddict(ann):
        return "record"
    base = get_origin(ann) or ann
    return {str: "string", bool: "boolean", int: "integer", float: "number", dict: "map", list: "array"}[base]


def compare(schema: Any, ann: Any, path: str) -> list[str]:
    """How the annotation ``ann`` differs from ``schema`` (empty when they agree)."""
    by_kind = {_kind(o): o for o in _schema_options(schema)}
    by_type = {_type_kind(a): a for a in _type_options(ann)}
    if set(by_kind) != set(by_type):
        return [f"{path}: schema allows {sorted(by_kind)}, the type {sorted(by_type)}"]
    out: list[str] = []
    for kind, option in by_kind.items():
        a = by_type[kind]
        if kind == "enum" and option[1] != frozenset(get_args(a)):
            out.append(f"{path}: schema's values {sorted(option[1])}, the type's {sorted(get_args(a))}")
        elif kind == "record":
            out += compare_record(option, a, path)
        elif kind == "map":
            values = option.get("additionalProperties", True)
            out += compare(values, get_args(a)[1] if get_args(a) else Any, f"{path}.*")
        elif kind == "array":
            out += compare(option.get("items", True), get_args(a)[0] if get_args(a) else Any, f"{path}[]")
    return out


def compare_record(schema: dict[str, Any], td: Any, path: str) -> list[str]:
    hints = get_type_hints(td)
    props, required = schema["properties"], set(schema.get("required", []))
    out = [f"{path}.{k}: in the schema, not in {td.__name__}" for k in props if k not in hints]
    out += [f"{path}.{k}: in {td.__name__}, not in the schema" for k in hints if k not in props]
    out += [f"{path}.{k}: required in the schema, optional in {td.__name__}"
            for k in sorted(required - td.__required_keys__)]
    out += [f"{path}.{k}: optional in the schema, required in {td.__name__}"
            for k in sorted(td.__required_keys__ - required)]
    for k in props:
        if k in hints:
            out += compare(props[k], hints[k], f"{path}.{k}")
    return out


def test_the_results_file_type_is_the_schema() -> None:
    top = {k: v for k, v in SCHEMA.items() if k != "$defs"}
    assert compare_record(top, rt.ResultsDoc, "(file)") == []


@pytest.mark.parametrize(("name", "td"), [
    ("environment", rt.Environment), ("summary", rt.Summary), ("result", rt.Result), ("noise", rt.Noise),
    ("breakdown", rt.Breakdown), ("scenario", rt.Scenario)])
def test_each_record_type_is_its_schema_definition(name: str, td: Any) -> None:
    assert compare_record(DEFS[name], td, name) == []


def test_a_drift_is_named_by_its_path() -> None:
    """The comparison itself can fail: a schema with one field more, one required field
    made optional, and one type changed."""
    result = json.loads(json.dumps(DEFS["result"]))
    result["properties"]["new_field"] = {"type": "string"}
    result["required"].remove("error")
    result["properties"]["timing"]["properties"]["inner_loops"] = {"type": "number"}
    result["properties"]["status"]["enum"].append("skipped")
    assert compare_record(result, rt.Result, "result") == [
        "result.new_field: in the schema, not in Result",
        "result.error: optional in the schema, required in Result",
        ("result.status: schema's values ['crashed', 'error', 'ok', 'skipped', 'timeout', 'unavailable'], "
         "the type's ['crashed', 'error', 'ok', 'timeout', 'unavailable']"),
        "result.timing.inner_loops: schema allows ['number'], the type ['integer']",
    ]
