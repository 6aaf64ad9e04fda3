"""Adding records to one results file while other processes may do the same.

A run appends each scenario's results as they are measured. Reloading, re-validating,
re-merging and re-encoding the whole file each time would make an append cost in
proportion to the file (about 0.2 s a case on a 468-result file), so a run's store time
would grow with the square of its size. Instead, the process that writes a file keeps
what it wrote: the bytes, the records in their canonical order and each record's encoded
line. Under the file's lock it reads the file back; when the bytes are exactly those it
wrote, nobody else has changed it, and only the new records are validated, placed (by
bisection) and encoded; the file is then rewritten from the kept lines. Any other content
(another run appended meanwhile, a hand edit, a first append) is loaded and checked in
full once. The file is replaced atomically, and its bytes are those of ``files.dumps`` of
the merged document (a test holds the two equal).
"""

from __future__ import annotations

import bisect
import copy
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ResultsFileError
from . import files
from .files import LIST_KEYS, assemble, load, new_doc, publish, read_regular, record_line, records, write_atomic
from .lock import locked
from .merge import SORT_KEYS, canonical, merge_docs
from .record_types import Environment, ResultsDoc, Runner
from .result import ResultRecord
from .validate import checked, short, trusted

# A record of any of the four lists: kept, placed and encoded alike, whatever its kind.
AnyRecord = Mapping[str, object]


class ResultExists(ResultsFileError):
    """An ok result for the same case and key is stored already (``append`` without ``force``)."""


@dataclass
class _Kept:
    """What this process last wrote to one file, in the form the next append needs."""

    data: bytes                                   # the file's bytes as written
    header: ResultsDoc                            # the document with its record lists empty
    records: dict[str, list[AnyRecord]]           # per list key, in canonical order
    keys: dict[str, list[tuple[str, ...]]]        # their sort keys (merge.SORT_KEYS)
    lines: dict[str, list[str]]                   # their encoded lines in the file
    seen: set[str] = field(default_factory=set)   # canonical text of every record
    ok: set[tuple[Any, Any]] = field(default_factory=set)   # (case_id, key_hash) with an ok result

    @classmethod
    def of(cls, doc: ResultsDoc, data: bytes) -> _Kept:
        """From a loaded (valid, current-version) document; its lists are re-sorted the
        way ``merge_docs`` writes them, so a file in another order is normalised once."""
        kept = cls(data=data, header=_without_records(doc),
                   records={k: [] for k in LIST_KEYS}, keys={k: [] for k in LIST_KEYS},
                   lines={k: [] for k in LIST_KEYS})
        for kind in LIST_KEYS:
            kept.add(kind, records(doc, kind))
        return kept

    def add(self, kind: str, added: Iterable[AnyRecord]) -> None:
        sort_key = SORT_KEYS[kind]
        for r in added:
            c = canonical(r)
            if f"{kind}:{c}" in self.seen:
                continue
            self.seen.add(f"{kind}:{c}")
            k = sort_key(r)
            i = bisect.bisect(self.keys[kind], k)
            self.keys[kind].insert(i, k)
            self.records[kind].insert(i, r)
            self.lines[kind].insert(i, record_line(r))
            if kind == "results" and r.get("status") == "ok":
                self.ok.add((r.get("case_id"), r.get("key_hash")))

    def runner(self) -> Runner:
        return self.header["runner"]

    def doc(self) -> ResultsDoc:
        """The whole document (new lists; the records themselves are shared with what
        this process keeps, so a caller must not change them). Every part was validated
        when it came in."""
        return trusted({**self.header, **{k: list(v) for k, v in self.records.items()}})

    def text(self) -> str:
        """``files.dumps(self.doc())``, joined from the kept lines instead of re-encoding
        every record."""
        return assemble({k: v for k, v in self.header.items() if k not in LIST_KEYS}, self.lines)


# Per file (resolved path): what this process wrote there last.
_kept: dict[Path, _Kept] = {}


def forget() -> None:
    """Drop what this process keeps of the files it wrote (the next append to each reads
    and checks it in full); for tests and benchmarks."""
    _kept.clear()


def _without_records(doc: ResultsDoc) -> ResultsDoc:
    """A validated document's header (runner, profile, environments) with empty lists."""
    out = copy.copy(doc)
    out["results"], out["noise"], out["breakdowns"], out["scenarios"] = [], [], [], []
    return out


def append(path: str | Path, *, runner_label: str, profile: str, results: Iterable[ResultRecord | AnyRecord] = (),
           environments: Mapping[str, Environment] | None = None, noise: Iterable[AnyRecord] = (),
           breakdowns: Iterable[AnyRecord] = (), scenarios: Iterable[AnyRecord] = (), force: bool = False,
           description: str | None = None, contributed_by: str | None = None) -> ResultsDoc:
    """Under the file's lock: load (or create) the file, add the records, write it back
    atomically, and return the new document.

    A result for a (case_id, key_hash) that already has an ok result is refused
    (:class:`ResultExists`) unless ``force``; with ``force`` it is added beside the old one
    (history is kept). A record identical to one already stored is not added twice. Only the new records are
    validated when the file holds what this process last wrote there (see the module's
    docstring). The records may come as any mapping: they are validated here."""
    p = Path(path)
    with locked(p):
        kept = _current(p, runner_label, profile, description, contributed_by)
        if (kept.runner()["label"], kept.header["profile"]) != (runner_label, profile):
            raise ResultsFileError(str(p), "runner.label",
                                   f"file is for runner {short(kept.runner()['label'])}, profile "
                                   f"{short(kept.header['profile'])}; cannot add {short(runner_label)}, "
                                   f"{short(profile)}")
        fresh: list[AnyRecord] = []
        batch: set[str] = set()                      # identical records within this call
        new_ok: set[tuple[Any, Any]] = set()
        for record in results:
            r: AnyRecord = record.to_json() if isinstance(record, ResultRecord) else record
            c = canonical(r)
            if f"results:{c}" in kept.seen or c in batch:
                continue
            ident = (r.get("case_id"), r.get("key_hash"))
            if (ident in kept.ok or ident in new_ok) and not force:
                raise ResultExists(str(p), "results",
                                   f"{short(ident[0], 120)} already has an ok result for key {ident[1]}: "
                                   "refusing to add a second one; nothing was written")
            batch.add(c)
            fresh.append(r)
            if r.get("status") == "ok":
                new_ok.add(ident)
        incoming = checked({**new_doc(runner_label, profile, description, contributed_by),
                            "environments": {**kept.header["environments"], **(environments or {})},
                            "results": fresh, "noise": list(noise), "breakdowns": list(breakdowns),
                            "scenarios": list(scenarios)}, f"{p} (records being added)")
        # The header (runner, environments) merged as merge_docs does; the lists are
        # placed one record at a time instead of re-sorting the whole file.
        header = merge_docs([_without_records(kept.header), _without_records(incoming)])
        key = p.resolve()
        _kept.pop(key, None)            # kept again only once the file holds it
        kept.header = _without_records(header)
        for kind in LIST_KEYS:
            kept.add(kind, records(incoming, kind))
        data = kept.text().encode("utf-8")
        if not kept.data:
            write_atomic(p, kept.doc(), overwrite=True)      # a new file: the full check, once
        elif data != kept.data:
            publish(p, data)   # every record was checked when it came in: no full re-validation
        kept.data = data
        _kept[key] = kept
        return kept.doc()


def _current(p: Path, runner_label: str, profile: str, description: str | None,
             contributed_by: str | None) -> _Kept:
    """The file as it is now: what this process kept when the bytes on disk are those
    it wrote, else the file loaded and checked in full (or a new, empty document)."""
    if not os.path.lexists(p):
        return _Kept.of(new_doc(runner_label, profile, description, contributed_by), b"")
    data = read_regular(p, files.MAX_BYTES, lambda problem: ResultsFileError(str(p), "(file)", problem))
    kept = _kept.get(p.resolve())
    if kept is not None and kept.data == data:
        return kept
    return _Kept.of(load(p), data)

