"""Merging results files without losing anything: documents of one runner and profile
merged into one, the CI merge step that merges incoming files into the data folder, and
what a data pull request may change, which is the merge's own rule.

A record (result, noise pair, breakdown) is identified by its whole content: identical
records collapse into one, every other record is kept, including several results of the
same case and key (history; analysis takes the newest). The output order is fixed by
the records themselves, so merging is order-independent and idempotent:
merge(A, B) == merge(B, A) and merge(merge(A, B), B) == merge(A, B).

The CI merge step (:func:`merge_into`) validates incoming results files (runner artifacts,
contributions) and merges the valid ones into ``<data>/results/<runner>/<profile>.json``.
Each incoming file is judged alone: a malformed one, a path that does not exist, a folder
with no results file, anything that is not a regular file is rejected by name and the
others are still merged. So is each target alone: one that cannot be read, merged or
written is skipped and the others are merged. A target that nothing new reaches is not
written at all, its runner description and contributor included. The outcome depends
only on the set of files, not on their order, and a second run with the same files
changes no byte.

A pull request may add records to a results file, never remove or rewrite one
(:func:`removals`): the pull request's file must equal ``merge_docs([base, pr])``, the merge
of the file on the base branch and the file in the pull request. Equal means the pull
request kept every record of the base (a new measurement of a case is a new record: the
newer one counts, the older one stays as history). Anything else removed something, and
the finding names it: the case ids of the records that are gone, the scenarios, the
environments.

Runner labels starting ``gha-`` (the project's GitHub-hosted runners) or ``selfhosted-`` (its GPU
runner's default label) are written only by the benchmarks workflows' bot: a pull request
from anyone else that adds or changes such a file (or a file claiming such a label) is refused.

Under ``data/`` a pull request may add or change nothing but results files, regular files at
``data/[<folder>/]results/<runner>/<profile>.json`` (:func:`path_problem`): another path at any
depth, a symbolic link (the site would read, and publish, what it points to), a submodule, a
folder named like a results file, is refused by name.

A file passes validation when its schema version is one this tfperf reads, but a newer
tfperf may have measured differently within the same schema (a changed harness, another
rule for a field). The merged file records the version that merged it, so the writer's
version would be lost without a word: ``tfperf merge`` warns, naming both versions
(:func:`newer_warning`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .. import __version__
from ..errors import ResultsFileError, ResultsWriteError, TfperfError
from .files import find_files, load, records, results_path, write_atomic
from .lock import locked
from .record_types import Environment, ResultsDoc, Runner
from .schema import PROFILES, SCHEMA_VERSION, is_name
from .validate import short

# -- merging documents ---------------------------------------------------------------------

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


# -- the CI merge step --------------------------------------------------------------------

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


# -- what a data pull request may change --------------------------------------------------

BOT_PREFIXES: tuple[str, ...] = ("gha-", "selfhosted-")   # hosted runners; the GPU runner's default label

# data/results/<runner>/<profile>.json, or the same under one or more folders of data/
# (data/reproducibility/results/...), never below another results folder.
RESULTS_FILE = re.compile(r"^data/(?:(?!results/)[^/]+/)*results/(?P<runner>[^/]+)/(?P<profile>[^/]+)\.json$")
LAYOUT = f"data/results/<runner>/<profile>.json (profile: {', '.join(PROFILES)})"
REGULAR_MODES = ("100644", "100755")     # git's modes of a regular file


@dataclass
class Finding:
    """What one results file of a pull request does wrong (empty lists: nothing)."""

    path: str
    removed_cases: list[str] = field(default_factory=list)      # case ids of removed or rewritten records
    removed_scenarios: list[str] = field(default_factory=list)
    removed_environments: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)               # runner/profile changes, a deleted file

    @property
    def ok(self) -> bool:
        return not (self.removed_cases or self.removed_scenarios or self.removed_environments or self.other)

    def lines(self, limit: int = 20) -> list[str]:
        out = [f"{self.path}: {p}" for p in self.other]
        for what, ids in (("case", self.removed_cases), ("scenario", self.removed_scenarios),
                          ("environment", self.removed_environments)):
            if ids:
                shown = ", ".join(ids[:limit]) + (f", and {len(ids) - limit} more" if len(ids) > limit else "")
                out.append(f"{self.path}: removes or rewrites records of {len(ids)} {what}(s) the base "
                           f"has: {shown}")
        return out


def _ids(found: Sequence[Mapping[str, object]], kind: str) -> list[str]:
    key = "id" if kind == "scenarios" else "case_id"
    return sorted({str(r.get(key)) for r in found})


def removals(path: str, base: ResultsDoc | None, pr: ResultsDoc | None) -> Finding:
    """Compare one file on the base branch (``None``: the pull request adds it) with the same
    file in the pull request (``None``: the pull request deletes it). Both are loaded
    (migrated, validated) documents."""
    finding = Finding(path)
    if base is None:
        return finding
    if pr is None:
        finding.other.append("the pull request deletes this results file")
        finding.removed_cases = _ids(records(base, "results"), "results")
        return finding
    try:
        merged = merge_docs([base, pr])
    except MergeError as exc:
        finding.other.append(f"cannot be merged with the base's file: {exc}")
        return finding
    if canonical(merged) == canonical(merge_docs([pr])):
        return finding
    kept = {kind: {canonical(r) for r in records(pr, kind)} for kind in SORT_KEYS}
    cases: set[str] = set()
    for kind in ("results", "noise", "breakdowns"):
        cases |= set(_ids([r for r in records(base, kind) if canonical(r) not in kept[kind]], kind))
    finding.removed_cases = sorted(cases)
    finding.removed_scenarios = _ids([r for r in base.get("scenarios", []) if canonical(r) not in kept["scenarios"]],
                                     "scenarios")
    pr_envs = pr.get("environments", {})
    finding.removed_environments = sorted(
        eid for eid, env in base.get("environments", {}).items()
        if eid not in pr_envs or canonical(merged["environments"][eid]) != canonical(pr_envs[eid]))
    if merged["runner"] != merge_docs([pr])["runner"]:
        finding.other.append("changes the runner's description or contributor the base has")
    if finding.ok:  # nothing named, yet not equal: say so rather than pass
        finding.other.append("differs from the merge of the base's file and this one")
    return finding


def reserved_label(label: str) -> bool:
    return any(label.startswith(p) for p in BOT_PREFIXES)


def label_problems(path: str, runner_dir: str, doc: ResultsDoc | None) -> list[str]:
    """Why a file written by someone other than the bot may not touch this runner: its folder
    or its ``runner.label`` is reserved."""
    labels = {runner_dir}
    if doc is not None:
        labels.add(str(doc.get("runner", {}).get("label")))
    bad = sorted(label for label in labels if reserved_label(label))
    return [f"{path}: runner label {label!r} is reserved for the benchmarks workflow "
            f"({', '.join(p + '*' for p in BOT_PREFIXES)}): contribute under a label of your own"
            for label in bad]


def results_runner(path: str) -> str | None:
    """The runner folder of a results file's path under ``data/``; None when the path is not
    one (another layout, a runner or profile that is not a name or a profile)."""
    m = RESULTS_FILE.match(path)
    if m is None or not is_name(m["runner"]) or m["profile"] not in PROFILES:
        return None
    return m["runner"]


def path_problem(path: str, mode: str, link_target: str | None = None) -> str | None:
    """Why a path that a pull request adds or changes under ``data/`` may not be there (None:
    it is a results file, checked as one). ``mode`` is git's (``100644``, ``120000`` for a
    symbolic link, ``160000`` for a submodule); ``link_target`` is what a link points to."""
    folders = path.split("/")[:-1]
    named = next((i for i, part in enumerate(folders) if part.endswith(".json")), None)
    if named is not None:
        folder = "/".join(folders[:named + 1])
        return f"{path}: {folder} is a folder named like a results file; a results file is a regular file at {LAYOUT}"
    if mode == "120000":
        return (f"{path}: is a symbolic link to {link_target!r}; only regular files may be added under data/ "
                "(the site would read and publish what a link points to)")
    if mode == "160000":
        return f"{path}: is a submodule; only regular files may be added under data/"
    if mode not in REGULAR_MODES:
        return f"{path}: is not a regular file (git mode {mode}); only regular files may be added under data/"
    if results_runner(path) is None:
        return f"{path}: is not a results file; under data/ a pull request may only add or change {LAYOUT}"
    return None


# -- which tfperf wrote a file ---------------------------------------------------------------

_RELEASE = re.compile(r"(\d{1,9}(?:\.\d{1,9}){0,9})(?!\d)")     # bounded: a hostile "999…9" is no version
_PLAIN = re.compile(r"[\w.+-]{1,40}")


def release(version: Any) -> tuple[int, ...] | None:
    """The numeric release of a version string ("0.2.0rc1" -> (0, 2, 0)), without trailing
    zeros so that "1.0" equals "1"; None when it does not start with one ("fixture")."""
    m = _RELEASE.match(version) if isinstance(version, str) else None
    if m is None:
        return None
    parts = [int(p) for p in m.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def newer_than_this(version: Any, this: str = __version__) -> bool:
    """True when ``version`` names a later release than ``this`` (both must be readable)."""
    theirs, ours = release(version), release(this)
    return theirs is not None and ours is not None and theirs > ours


def newer_warning(path: str, doc: Mapping[str, object], this: str = __version__) -> str | None:
    """One line for ``tfperf merge`` about a file written by a newer tfperf than ``this``,
    else None."""
    theirs = doc.get("tfperf_version")
    if not isinstance(theirs, str) or not newer_than_this(theirs, this):
        return None
    shown = theirs if _PLAIN.fullmatch(theirs) else short(theirs, 40)
    return (f"warning: {path} was written by tfperf {shown}, newer than this tfperf {this}; it was merged, "
            f"and the merged file says {this}: update this checkout (git pull) and merge again if the newer "
            "tfperf measures differently")
