"""The results schema: the version this tfperf writes, where the packaged JSON Schema files
(``schema_v1.json``, ``schema_v2.json``, package data) lie, the names it allows, and the
step-by-step migrations that bring an older file up to that version.

``MIGRATIONS[n]`` turns a version-``n`` document into a version-``n + 1`` one (asv's
``update_to_N`` style). ``migrate`` applies them in order up to ``SCHEMA_VERSION``. Each step
has a frozen fixture of the older version in tests/fixtures/results/ that must keep loading.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

from ..errors import ResultsFileError
from .record_types import Profile

# The version this tfperf writes. Older files are migrated up to it (``migrate``, below);
# newer files are refused with a message telling the user to upgrade.
SCHEMA_VERSION: Final = 2

# history: the smallest grid that decides each claim, run once per TensorFlow version (tfperf run --tf).
PROFILES: tuple[Profile, ...] = ("quick", "full", "history")

# Runner labels, profiles, topics and variants end up in file names and URLs: letters,
# digits and _ . + -, starting with a letter or digit, so "..", "a/b" or "" never pass.
# (fullmatch, not "$": "$" would let a trailing newline through.)
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
NAME_RULE = "letters, digits and _ . + -, starting with a letter or digit, at most 64 characters"


def is_name(value: object) -> bool:
    return isinstance(value, str) and NAME_RE.fullmatch(value) is not None


def schema_path(version: int = SCHEMA_VERSION) -> Path:
    """The packaged JSON Schema file (the site's Data page publishes a copy)."""
    return Path(__file__).with_name(f"schema_v{version}.json")


@cache
def load_schema(version: int = SCHEMA_VERSION) -> dict[str, Any]:
    with schema_path(version).open(encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema


# -- migrations ------------------------------------------------------------------------------

# A document of any version, before validation: a JSON object whose values are not known yet.
JsonObject = dict[str, object]
Migration = Callable[[JsonObject], JsonObject]

def _to_2(doc: JsonObject) -> JsonObject:
    """Version 2 measures the cases of a scenario side by side and records the interleave
    of each result and the round of each sample. Version-1 results were measured alone,
    one case after another: they get ``interleave: null`` (their speedups stay ratios of
    medians), their A/A records stay as they were, and the file gets an empty
    ``scenarios`` list. Nothing is dropped."""
    results = doc.get("results") or []
    if not isinstance(results, list):       # ``migrate`` names the file
        raise TypeError(f"results is {type(results).__name__}, not a list")
    for r in results:
        if isinstance(r, dict):
            r.setdefault("interleave", None)
    doc.setdefault("scenarios", [])
    return doc


MIGRATIONS: dict[int, Migration] = {1: _to_2}


def oldest_readable() -> int:
    """The oldest version from which an unbroken chain of migrations reaches SCHEMA_VERSION."""
    version = SCHEMA_VERSION
    while version - 1 in MIGRATIONS:
        version -= 1
    return version


def check_version(doc: Mapping[str, object], path: str) -> int:
    """The document's schema version, if this tfperf can read it (possibly after migration)."""
    if "schema_version" not in doc:
        raise ResultsFileError(path, "schema_version", "missing (required): is this a tfperf results file?")
    version = doc["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise ResultsFileError(path, "schema_version", f"must be an integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise ResultsFileError(path, "schema_version",
                               f"schema version {version} is newer than this tfperf can read "
                               f"(max {SCHEMA_VERSION}): upgrade tfperf")
    if version < oldest_readable():
        raise ResultsFileError(path, "schema_version",
                               f"schema version {version} is older than this tfperf can migrate "
                               f"(oldest {oldest_readable()}): no migration from version {version}")
    return version


def migrate(doc: object, path: str = "<document>") -> JsonObject:
    """``doc`` brought up to SCHEMA_VERSION: ``doc`` itself when already current, else a
    migrated copy (the input is never changed)."""
    if not isinstance(doc, dict):
        raise ResultsFileError(path, "(top level)", "must be a JSON object")
    version = check_version(doc, path)
    if version == SCHEMA_VERSION:
        return doc
    out = copy.deepcopy(doc)
    while version < SCHEMA_VERSION:
        step = MIGRATIONS[version]
        try:
            out = step(out)
        except Exception as exc:  # a migration bug must still name the file
            raise ResultsFileError(path, "schema_version",
                                   f"migration from version {version} to {version + 1} failed: "
                                   f"{type(exc).__name__}: {exc}") from exc
        version += 1
        out["schema_version"] = version
    return out
