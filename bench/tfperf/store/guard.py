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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .files import records
from .merge import SORT_KEYS, MergeError, canonical, merge_docs
from .record_types import ResultsDoc

BOT_PREFIXES: tuple[str, ...] = ("gha-", "selfhosted-")   # hosted runners; the GPU runner's default label


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
