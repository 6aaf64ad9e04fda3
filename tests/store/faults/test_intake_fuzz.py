"""Fuzzed intake: mutate a valid results file every way a broken runner or a hostile
contributor could, and check that reading it either gives a valid document or raises a
``ResultsFileError`` naming the file — never any other exception — and that merging it
beside a good artifact never changes or loses what was stored.

Seeded (``derandomize``) so that CI runs the same cases every time. The number of
examples is ``TFPERF_FUZZ_EXAMPLES`` (default 1500); a longer run:

    TFPERF_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/store/faults/test_intake_fuzz.py
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfperf import store
from tfperf.errors import ResultsFileError
from tfperf.store.files import LIST_KEYS, MAX_DEPTH

VALID_TEXT = (Path(__file__).parents[2] / "fixtures" / "results" / "valid.json").read_text(encoding="utf-8")
VALID = json.loads(VALID_TEXT)
EXAMPLES = int(os.environ.get("TFPERF_FUZZ_EXAMPLES", "1500"))
# One seed for every run, no example database, no deadline: the same mutations on CI and here
# (test_topic_fuzz.py uses them too).
FUZZ_OPTIONS: dict[str, Any] = {"derandomize": True, "deadline": None, "database": None,
                                    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                           HealthCheck.data_too_large]}
FUZZ = settings(max_examples=EXAMPLES, **FUZZ_OPTIONS)


def paths_into(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into the document (objects and arrays, and the leaves)."""
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths_into(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths_into(v, (*at, i))
    return out


PATHS = [p for p in paths_into(VALID) if p]

# Replacement values: wrong types, huge and non-finite numbers, deep nesting, odd strings.
NASTY_TEXT = ["1" * 400, "-" + "9" * 30, "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
              "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "[" * 5000 + "]" * 5000,
              '"../../etc/passwd"', '"<script>alert(1)</script>"', '"\\u0000"', "true", "null", "0", "-0.0",
              "1e-320", "[]", "{}", '{"unknown": 1}', '""']
values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for seg in path[:-1]:
        doc = doc[seg]
    doc[path[-1]] = value


def _with_marker(path: tuple[Any, ...]) -> str:
    """The valid document with the value at ``path`` replaced by a marker string, as text."""
    doc = json.loads(VALID_TEXT)
    _set(doc, path, "@@MARK@@")
    return json.dumps(doc)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["value", "nasty", "unknown_key", "drop_key", "truncate", "bytes",
                                 "duplicate_key", "invalid_utf8"]))
    if kind == "value":
        doc = json.loads(VALID_TEXT)
        _set(doc, draw(st.sampled_from(PATHS)), draw(values))
        return json.dumps(doc).encode()
    if kind == "nasty":
        text = _with_marker(draw(st.sampled_from(PATHS)))
        return text.replace('"@@MARK@@"', draw(st.sampled_from(NASTY_TEXT))).encode()
    if kind in ("unknown_key", "drop_key"):
        doc = json.loads(VALID_TEXT)
        objects = [p for p in [(), *PATHS] if isinstance(_get(doc, p), dict)]
        target = _get(doc, draw(st.sampled_from(objects)))
        if kind == "unknown_key":
            target[draw(st.text(min_size=1, max_size=8))] = draw(values)
        elif target:
            target.pop(draw(st.sampled_from(sorted(target))))
        return json.dumps(doc).encode()
    raw = VALID_TEXT.encode()
    if kind == "truncate":
        return raw[: draw(st.integers(0, len(raw) - 1))]
    if kind == "bytes":
        at = draw(st.integers(0, len(raw) - 1))
        return raw[:at] + draw(st.binary(min_size=1, max_size=4)) + raw[at + 1:]
    if kind == "duplicate_key":
        at = raw.index(b'"profile"')
        return raw[:at] + b'"profile": "quick", ' + raw[at:]
    at = draw(st.integers(0, len(raw) - 1))
    return raw[:at] + b"\xff\xfe" + raw[at:]


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for seg in path:
        doc = doc[seg]
    return doc


def _judged(path: Path) -> dict[str, Any] | None:
    """Load one file: the document if it is accepted, None if it is rejected with an error
    that names it. Any other outcome fails the test."""
    try:
        doc = store.load(path)
    except ResultsFileError as exc:
        assert str(path) in str(exc), f"the error does not name the file: {exc}"
        assert "\n" not in str(exc).strip(), "one line per error"
        return None
    store.validate(doc, str(path))          # an accepted document is valid...
    store.dumps(doc)                        # ...and can be written back
    return doc


@FUZZ
@given(data=mutated())
def test_a_mutated_file_is_accepted_valid_or_rejected_by_name(tmp_path_factory: pytest.TempPathFactory,
                                                              data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "artifact.json"
    path.write_bytes(data)
    _judged(path)


@settings(max_examples=max(50, EXAMPLES // 10), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=mutated())
def test_merging_a_mutated_file_never_changes_or_loses_stored_data(tmp_path_factory: pytest.TempPathFactory,
                                                                   data: bytes) -> None:
    root = tmp_path_factory.mktemp("merge")
    stored = store.results_path(root / "data", VALID["runner"]["label"], VALID["profile"])
    stored.parent.mkdir(parents=True)
    stored.write_text(store.dumps(VALID), encoding="utf-8")
    before = stored.read_bytes()
    bad = root / "incoming.json"
    bad.write_bytes(data)
    accepted = _judged(bad)
    report = store.merge_into(root / "data", [bad])
    if accepted is None:
        assert len(report.rejected) == 1 and str(bad) in str(report.rejected[0])
        assert stored.read_bytes() == before
    elif stored.read_bytes() != before and accepted["runner"]["label"] == VALID["runner"]["label"] \
            and accepted["profile"] == VALID["profile"]:
        # Accepted and merged into the stored file: every stored record is still there.
        after = store.load(stored)
        for kind in LIST_KEYS:
            assert all(r in after[kind] for r in VALID[kind])


# The check's module (tfperf.store.validate; the package's ``validate`` is its function).
CHECK = importlib.import_module("tfperf.store.validate")


def test_the_fast_schema_check_is_used_and_refuses_a_bad_record() -> None:
    """fastjsonschema (declared in the site extra) gives the check its quick yes; a record
    it refuses is still described by jsonschema, field by field."""
    assert CHECK._fast_validators() is not None, "fastjsonschema is not installed: the check runs at jsonschema's speed"
    result = json.loads(json.dumps(VALID["results"][0]))
    assert CHECK._passes("results", result)
    result["timing"]["summary"]["median"] = "fast"
    assert not CHECK._passes("results", result)
    doc = json.loads(VALID_TEXT)
    doc["results"][0] = result
    assert ("results[0].timing.summary.median", "expected number, got string") in CHECK.problems(doc)


@settings(max_examples=max(50, EXAMPLES // 5), **FUZZ_OPTIONS)     # ~6 s: jsonschema checks every record
@given(data=mutated())
def test_the_fast_schema_check_never_passes_what_jsonschema_refuses(data: bytes) -> None:
    """Whatever a mutation does to the document or one of its records, the fast check's yes
    (:func:`tfperf.store.validate._passes`) is only given where jsonschema finds no error:
    it may refuse more (jsonschema then decides), never less."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):   # not JSON, or nested past Python's limit: refused before any check
        return
    if not isinstance(doc, dict):
        return
    slow = CHECK._validators()
    parts = [("", doc)] + [(key, r) for key in CHECK.RECORD_DEFS
                           for r in (doc[key] if isinstance(doc.get(key), list) else [])]
    for key, value in parts:
        if CHECK._passes(key, value):
            errors = [e.message for e in slow[key].iter_errors(value)]
            assert not errors, f"{key or 'the document'}: fastjsonschema passed what jsonschema refuses: {errors[:3]}"
