"""What a pull request may do to a results file: add records, never remove or rewrite one.

The rule is the merge's own: the pull request's file must equal ``merge_docs([base, pr])``,
the merge of the file on the base branch and the file in the pull request. Equal means the
pull request kept every record of the base (a new measurement of a case is a new record:
the newer one counts, the older one stays as history). Anything else removed something,
and the finding names it: the case ids of the records that are gone, the scenarios, the
environments.

Runner labels starting ``gha-`` (the project's GitHub-hosted runners) or ``selfhosted-`` (its GPU
runner's default label) are written only by the benchmarks workflows' bot: a pull request
from anyone else that adds or changes such a file (or a file claiming such a label) is refused.

Under ``data/`` a pull request may add or change nothing but results files, regular files at
``data/[<folder>/]results/<runner>/<profile>.json`` (:func:`path_problem`): another path at any
depth, a symbolic link (the site would read, and publish, what it points to), a submodule, a
folder named like a results file, is refused by name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..files import records
from ..format.schema import PROFILES, is_name
from ..record_types import ResultsDoc
from .merge import SORT_KEYS, MergeError, canonical, merge_docs

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
