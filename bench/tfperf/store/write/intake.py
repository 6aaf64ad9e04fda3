"""The CI merge step: validate incoming results files (runner artifacts, contributions)
and merge the valid ones into ``<data>/results/<runner>/<profile>.json``.

Each incoming file is judged alone: a malformed one, a path that does not exist, a folder
with no results file, anything that is not a regular file is rejected by name and the
others are still merged. So is each target alone: one that cannot be read, merged or
written is skipped and the others are merged. A target that nothing new reaches is not
written at all, its runner description and contributor included. The outcome depends
only on the set of files, not on their order, and a second run with the same files
changes no byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ResultsFileError, ResultsWriteError, TfperfError
from ..files import find_files, load, results_path, write_atomic
from ..lock import locked
from ..record_types import ResultsDoc
from .merge import merge_docs, record_ids


@dataclass
class MergeReport:
    merged: list[tuple[Path, Path, int]] = field(default_factory=list)  # (incoming, target, new records)
    duplicates: list[tuple[Path, Path]] = field(default_factory=list)   # (incoming, target): nothing new
    rejected: list[TfperfError] = field(default_factory=list)           # incoming files and targets skipped
    written: list[Path] = field(default_factory=list)                   # targets whose bytes changed
    unwritten: list[ResultsWriteError] = field(default_factory=list)    # targets the file system refused

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.unwritten

    def lines(self) -> list[str]:
        out = [f"merged {src} -> {dst} ({n} new records)" for src, dst, n in self.merged]
        out += [f"duplicate {src}: every record is already in {dst}" for src, dst in self.duplicates]
        out += [f"rejected {err}" for err in self.rejected]
        out += [f"wrote {p}" for p in self.written]
        if not self.written:
            out.append("no results file changed")
        return out

    def write_failure(self) -> ResultsWriteError | None:
        """One error for the targets the file system refused (None: there were none)."""
        if not self.unwritten:
            return None
        first = self.unwritten[0]
        if len(self.unwritten) == 1:
            return first
        more = ", ".join(e.path for e in self.unwritten[1:])
        return ResultsWriteError(first.path, first.field, f"{first.problem}; not written either: {more}")


def merge_into(data_root: str | Path, incoming_paths: Iterable[str | Path]) -> MergeReport:
    """Validate every incoming file (folders are searched for ``*.json``) and merge the
    valid ones into the results files under ``data_root``, creating them as needed."""
    report = MergeReport()
    groups: dict[tuple[str, str], list[tuple[Path, ResultsDoc]]] = {}
    for src in sorted(set(_incoming(incoming_paths, report)), key=str):
        try:
            doc = load(src)
        except ResultsFileError as exc:
            report.rejected.append(exc)
            continue
        groups.setdefault((doc["runner"]["label"], doc["profile"]), []).append((src, doc))
    for (label, profile), items in sorted(groups.items()):
        try:
            _merge_target(results_path(data_root, label, profile), items, report)
        except ResultsWriteError as exc:
            report.unwritten.append(exc)
        except TfperfError as exc:      # this target is broken or outside the folder: the others go on
            report.rejected.append(exc)
    return report


def _incoming(given: Iterable[str | Path], report: MergeReport) -> list[Path]:
    """The files under each given path; a path that does not exist, or a folder without a
    results file, is rejected by name (a merge of nothing is never silent)."""
    out: list[Path] = []
    for g in map(Path, given):
        found = find_files(g)
        if not os.path.lexists(g):
            report.rejected.append(ResultsFileError(str(g), "(file)", "does not exist"))
        elif not found:
            report.rejected.append(ResultsFileError(str(g), "(file)", "is a folder with no results file (*.json)"))
        out += found
    return out


def _merge_target(target: Path, items: list[tuple[Path, ResultsDoc]], report: MergeReport) -> None:
    """Merge the documents of one target that add something to it; the report says what
    happened only once it has (a target that raises is reported by the caller)."""
    if not any(record_ids(d) for _, d in items):        # empty documents: nothing to add anywhere
        report.duplicates += [(src, target) for src, _ in items]
        return
    with locked(target):
        base = [load(target)] if os.path.lexists(target) else []
        seen = set().union(*(record_ids(d) for d in base))
        adding: list[tuple[Path, ResultsDoc, int]] = []
        same: list[tuple[Path, Path]] = []
        for src, doc in items:
            new = record_ids(doc) - seen
            if new:
                adding.append((src, doc, len(new)))
            else:
                same.append((src, target))
            seen |= new
        if adding and write_atomic(target, merge_docs(base + [d for _, d, _ in adding]), overwrite=True):
            report.written.append(target)
        report.merged += [(src, target, n) for src, _, n in adding]
        report.duplicates += same
