"""Where the analysis gets its documents: every results file under a data root.

One small function stands between the analysis and the store, so the store's loader
(validation, migration) is used when it is there and a plain schema-checked JSON read
otherwise. A file that cannot be used becomes a :class:`ResultsFileError` in the error
list (file and field named); the other files still load.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, cast

from ..errors import ResultsFileError
from ..store.record_types import ResultsDoc

Loaded = tuple[list[tuple[Path, ResultsDoc]], list[ResultsFileError]]


def load_results(root: str | Path) -> Loaded:
    """All results documents under ``root`` (e.g. ``data/results``) with the errors met."""
    root = Path(root)
    if not root.is_dir():
        return [], []
    try:
        from ..store import load_dir
    except ImportError:
        return _load_plain(root)
    docs, errors = load_dir(root)
    return [(Path(p), d) for p, d in docs], [_as_error(e) for e in errors]


def _as_error(err: Any) -> ResultsFileError:
    if isinstance(err, ResultsFileError):
        return err
    return ResultsFileError(str(getattr(err, "path", "?")), str(getattr(err, "field", "(file)")), str(err))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _load_plain(root: Path) -> Loaded:
    import jsonschema

    schema_file = Path(__file__).resolve().parent.parent / "store" / "schema_v2.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    docs: list[tuple[Path, ResultsDoc]] = []
    errors: list[ResultsFileError] = []
    for path in sorted(root.rglob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            errors.append(ResultsFileError(str(path), "(file)", f"not valid JSON: {exc}"))
            continue
        if not isinstance(doc, dict):
            errors.append(ResultsFileError(str(path), "(file)", "top level is not an object"))
            continue
        if doc.get("schema_version") != 2:
            errors.append(ResultsFileError(str(path), "schema_version",
                                           f"unknown schema version {doc.get('schema_version')!r}"))
            continue
        problems = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if problems:
            first = problems[0]
            field = ".".join(str(p) for p in first.absolute_path) or "(top level)"
            errors.append(ResultsFileError(str(path), field, first.message))
            continue
        bad = _first_non_finite(doc)
        if bad:
            errors.append(ResultsFileError(str(path), bad, "not a finite number"))
            continue
        docs.append((path, cast(ResultsDoc, doc)))      # valid against the schema the type mirrors
    return docs, errors


def _first_non_finite(obj: Any, where: str = "") -> str | None:
    if isinstance(obj, float) and not math.isfinite(obj):
        return where or "(top level)"
    if isinstance(obj, dict):
        for k, v in obj.items():
            hit = _first_non_finite(v, f"{where}.{k}" if where else str(k))
            if hit:
                return hit
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            hit = _first_non_finite(v, f"{where}.{i}")
            if hit:
                return hit
    return None
