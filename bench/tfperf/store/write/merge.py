"""Merging results documents of one runner and profile without losing anything.

A record (result, noise pair, breakdown) is identified by its whole content: identical
records collapse into one, every other record is kept, including several results of the
same case and key (history; analysis takes the newest). The output order is fixed by
the records themselves, so merging is order-independent and idempotent:
merge(A, B) == merge(B, A) and merge(merge(A, B), B) == merge(A, B).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ... import __version__
from ...errors import TfperfError
from ..files import records
from ..format.schema import SCHEMA_VERSION
from ..record_types import Environment, ResultsDoc, Runner

# Any record of a results file's lists, where every kind is handled alike.
R = TypeVar("R", bound=Mapping[str, object])


class MergeError(TfperfError):
    """Documents that cannot be merged (different runners or profiles, conflicting records)."""


def canonical(record: Any) -> str:
    """The identity of a record: its JSON text with sorted keys."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _without_time(env: Environment) -> str:
    """An environment record's identity apart from when it was seen."""
    return canonical({k: v for k, v in env.items() if k != "time"})


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


SORT_KEYS: dict[str, Callable[[Mapping[str, object]], tuple[str, ...]]] = {
    "results": lambda r: (_s(r.get("case_id")), _s(r.get("finished_at")), _s(r.get("key_hash")), canonical(r)),
    "noise": lambda r: (_s(r.get("case_id")), _s(r.get("time")), canonical(r)),
    "breakdowns": lambda r: (_s(r.get("case_id")), _s(r.get("key_hash")), canonical(r)),
    "scenarios": lambda r: (_s(r.get("time")), _s(r.get("id")), canonical(r)),
}


def union(records: Iterable[R], kind: str) -> list[R]:
    """Distinct records in their canonical order."""
    by_id: dict[str, R] = {}
    for r in records:
        by_id.setdefault(canonical(r), r)
    return sorted(by_id.values(), key=SORT_KEYS[kind])


def _merge_environments(docs: list[ResultsDoc]) -> dict[str, Environment]:
    out: dict[str, Environment] = {}
    for doc in docs:
        for eid, env in doc.get("environments", {}).items():
            old = out.get(eid)
            if old is None:
                out[eid] = env
                continue
            if _without_time(old) != _without_time(env):
                raise MergeError(f"environments.{eid}: two different environment records share this id")
            # Same machine state seen twice: keep the first time it was seen.
            out[eid] = min(old, env, key=lambda e: (_s(e.get("time")), canonical(e)))
    return {k: out[k] for k in sorted(out)}


def _greatest(values: Iterable[str | None]) -> str | None:
    """When files disagree the greatest value wins: an order-independent choice."""
    given = [v for v in values if v is not None]
    return max(given) if given else None


def _runner(docs: list[ResultsDoc]) -> Runner:
    return {"label": docs[0]["runner"]["label"],
            "description": _greatest(d["runner"].get("description") for d in docs),
            "contributed_by": _greatest(d["runner"].get("contributed_by") for d in docs)}


def merge_docs(docs: Iterable[ResultsDoc]) -> ResultsDoc:
    """One document holding every record of ``docs`` (valid, current-version documents of
    the same runner label and profile). Never drops a record."""
    docs = list(docs)
    if not docs:
        raise MergeError("nothing to merge")
    labels = sorted({d["runner"]["label"] for d in docs})
    profiles = sorted({d["profile"] for d in docs})
    if len(labels) > 1 or len(profiles) > 1:
        raise MergeError(f"cannot merge different runners or profiles into one file: "
                         f"runners {', '.join(labels)}; profiles {', '.join(profiles)}")
    return {
        "schema_version": SCHEMA_VERSION,
        "tfperf_version": __version__,
        "runner": _runner(docs),
        "profile": profiles[0],
        "environments": _merge_environments(docs),
        "results": union((r for d in docs for r in d.get("results", [])), "results"),
        "noise": union((r for d in docs for r in d.get("noise", [])), "noise"),
        "breakdowns": union((r for d in docs for r in d.get("breakdowns", [])), "breakdowns"),
        "scenarios": union((r for d in docs for r in d.get("scenarios", [])), "scenarios"),
    }


def record_ids(doc: ResultsDoc) -> set[str]:
    """Identities of everything a document contributes (for duplicate detection)."""
    ids = {f"env:{eid}" for eid in doc.get("environments", {})}
    for kind in SORT_KEYS:
        ids |= {f"{kind}:{canonical(r)}" for r in records(doc, kind)}
    return ids
