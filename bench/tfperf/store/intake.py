"""The CI merge step: validate incoming results files (runner artifacts, contributions)
and merge the valid ones into ``<data>/results/<runner>/<profile>.json``.

Each incoming file is judged alone: a malformed one is rejected with its file and field
and the others are still merged. The outcome depends only on the set of files, not on
their order, and a second run with the same files changes no byte.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ResultsFileError, TfperfError
from .files import iter_paths, load, results_path, write_atomic
from .lock import locked
from .merge import merge_docs, record_ids
from .record_types import ResultsDoc


@dataclass
class MergeReport:
    merged: list[tuple[Path, Path, int]] = field(default_factory=list)  # (incoming, target, new records)
    duplicates: list[tuple[Path, Path]] = field(default_factory=list)   # (incoming, target): nothing new
    rejected: list[TfperfError] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)                   # targets whose bytes changed

    @property
    def ok(self) -> bool:
        return not self.rejected

    def lines(self) -> list[str]:
        out = [f"merged {src} -> {dst} ({n} new records)" for src, dst, n in self.merged]
        out += [f"duplicate {src}: every record is already in {dst}" for src, dst in self.duplicates]
        out += [f"rejected {err}" for err in self.rejected]
        out += [f"wrote {p}" for p in self.written]
        if not self.written:
            out.append("no results file changed")
        return out


def merge_into(data_root: str | Path, incoming_paths: Iterable[str | Path]) -> MergeReport:
    """Validate every incoming file (folders are searched for ``*.json``) and merge the
    valid ones into the results files under ``data_root``, creating them as needed."""
    report = MergeReport()
    groups: dict[tuple[str, str], list[tuple[Path, ResultsDoc]]] = {}
    for src in sorted(set(iter_paths(incoming_paths)), key=str):
        try:
            doc = load(src)
        except ResultsFileError as exc:
            report.rejected.append(exc)
            continue
        groups.setdefault((doc["runner"]["label"], doc["profile"]), []).append((src, doc))
    for (label, profile), items in sorted(groups.items()):
        target = results_path(data_root, label, profile)
        with locked(target):
            try:
                base = [load(target)] if target.exists() else []
            except ResultsFileError as exc:  # the repository's own file is broken: touch nothing
                report.rejected.append(exc)
                continue
            seen = set().union(*(record_ids(d) for d in base))
            for src, doc in items:
                new = record_ids(doc) - seen
                if new:
                    report.merged.append((src, target, len(new)))
                else:
                    report.duplicates.append((src, target))
                seen |= new
            try:
                merged = merge_docs(base + [d for _, d in items])
                if write_atomic(target, merged, overwrite=True):
                    report.written.append(target)
            except TfperfError as exc:
                report.rejected.append(exc)
    return report
