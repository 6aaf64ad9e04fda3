"""Step-by-step migrations of results documents, asv ``update_to_N`` style.

``MIGRATIONS[n]`` turns a version-``n`` document into a version-``n + 1`` one. ``migrate``
applies them in order up to ``SCHEMA_VERSION``. Each step has a frozen fixture of the
older version in tests/fixtures/results/ that must keep loading.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import cast

from ...errors import ResultsFileError
from .schema import SCHEMA_VERSION

# A document of any version, before validation: a JSON object whose values are not known yet.
JsonObject = dict[str, object]
Migration = Callable[[JsonObject], JsonObject]

def _to_2(doc: JsonObject) -> JsonObject:
    """Version 2 measures the cases of a scenario side by side and records the interleave
    of each result and the round of each sample. Version-1 results were measured alone,
    one case after another: they get ``interleave: null`` (their speedups stay ratios of
    medians), their A/A records stay as they were, and the file gets an empty
    ``scenarios`` list. Nothing is dropped."""
    # Not a list: the loop fails as it always did, and ``migrate`` names the file.
    for r in cast("list[object]", doc.get("results") or []):
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
