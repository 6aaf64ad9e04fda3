"""Adding records to one results file while other processes may do the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..errors import ResultsFileError
from .files import load, new_doc, write_atomic
from .lock import locked
from .merge import canonical, merge_docs
from .validate import short, validate

Doc = dict[str, Any]


def append(path: str | Path, *, runner_label: str, profile: str, results: Iterable[Doc] = (),
           environments: dict[str, Doc] | None = None, noise: Iterable[Doc] = (),
           breakdowns: Iterable[Doc] = (), scenarios: Iterable[Doc] = (), force: bool = False,
           description: str | None = None, contributed_by: str | None = None) -> Doc:
    """Under the file's lock: load (or create) the file, add the records, write it back
    atomically, and return the new document.

    A result for a (case_id, key_hash) that already has an ok result is refused unless
    ``force``; with ``force`` it is added beside the old one (history is kept). A record
    identical to one already stored is not added twice."""
    p = Path(path)
    with locked(p):
        doc = load(p) if p.exists() else new_doc(runner_label, profile, description, contributed_by)
        if (doc["runner"]["label"], doc["profile"]) != (runner_label, profile):
            raise ResultsFileError(str(p), "runner.label",
                                   f"file is for runner {short(doc['runner']['label'])}, profile "
                                   f"{short(doc['profile'])}; cannot add {short(runner_label)}, {short(profile)}")
        stored = {canonical(r) for r in doc["results"]}
        ok = {(r["case_id"], r["key_hash"]) for r in doc["results"] if r["status"] == "ok"}
        fresh: list[Doc] = []
        for r in results:
            c = canonical(r)
            if c in stored:
                continue
            ident = (r.get("case_id"), r.get("key_hash"))
            if ident in ok and not force:
                raise ResultsFileError(str(p), "results",
                                       f"{short(ident[0], 120)} already has an ok result for key {ident[1]}: "
                                       "refusing to add a second one; nothing was written")
            stored.add(c)
            fresh.append(r)
            if r.get("status") == "ok":
                ok.add(ident)
        incoming = new_doc(runner_label, profile, description, contributed_by)
        incoming.update(environments={**doc["environments"], **(environments or {})}, results=fresh,
                        noise=list(noise), breakdowns=list(breakdowns), scenarios=list(scenarios))
        validate(incoming, f"{p} (records being added)")
        merged = merge_docs([doc, incoming])
        write_atomic(p, merged, overwrite=True)
        return merged
