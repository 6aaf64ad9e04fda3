"""The data guard of a pull request (scripts/ci/check-data-pr.sh runs it): every results file
the pull request adds, changes or deletes under data/ is compared with the base's
(tfperf.store.merge):

* every path the pull request adds or changes under data/, at any depth, must be a regular
  file at data/results/<runner>/<profile>.json (or the same below a folder of data/): any
  other path, a symbolic link, a submodule, a folder named like a results file is refused;
* it must equal the merge of the base's file and its own: results may be added (a new
  measurement of a case included), never removed or rewritten; a finding names the case ids;
* runner labels ``gha-*`` and ``selfhosted-*`` belong to the benchmarks workflow's bot: nobody else's pull
  request may add or change such a file.

Usage: python scripts/ci/check_data_pr.py [--base REV] [--head REV] [--author LOGIN]
           [--head-repo OWNER/NAME] [--repo OWNER/NAME] [--head-ref BRANCH]
Exit status 1 when a file breaks a rule (each problem one line on stderr), else 0.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from tfperf.errors import TfperfError
from tfperf.store.files import load
from tfperf.store.merge import label_problems, path_problem, removals, results_runner

BOT = "github-actions[bot]"
BOT_BRANCH_PREFIX = "tfperf/results-"
SHOWN_LINK = 200        # characters of a symbolic link's target shown in a message


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], capture_output=True, check=True).stdout


@dataclass(frozen=True)
class Change:
    """One path under data/ that differs between base and head (git diff --raw)."""

    status: str          # A, D, M, T (type changed), ...
    path: str
    mode: str            # the head side's git mode (000000 when deleted)
    blob: str            # the head side's object id


def changes(base: str, head: str) -> list[Change]:
    """Every path under data/ that differs between base and head, at any depth."""
    out = git("diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, head, "--", "data").decode()
    parts = [p for p in out.split("\0") if p]
    found = []
    for meta, path in zip(parts[0::2], parts[1::2]):
        _, new_mode, _, new_blob, status = meta.lstrip(":").split()
        found.append(Change(status[0], path, new_mode, new_blob))
    return found


def changed_files(base: str, head: str) -> list[tuple[str, str]]:
    """(status letter, path) of each results file that differs between base and head."""
    return [(c.status, c.path) for c in changes(base, head) if results_runner(c.path) is not None]


def _link_target(blob: str) -> str:
    """What a symbolic link in the pull request points to (its blob is the target's text)."""
    return git("cat-file", "blob", blob)[:SHOWN_LINK].decode("utf-8", errors="replace")


def _load_at(rev: str, path: str, tmp: Path) -> dict:
    f = tmp / f"{len(list(tmp.iterdir()))}.json"
    f.write_bytes(git("show", f"{rev}:{path}"))
    try:
        return load(f)
    except TfperfError as exc:
        raise TfperfError(str(exc).replace(str(f), f"{rev}:{path}")) from None


def is_bot(author: str, head_repo: str, repo: str, head_ref: str) -> bool:
    """The benchmarks workflow's own pull request: the bot, from this repository's
    results branch (a fork can name its branch alike, but not be this repository)."""
    return author == BOT and bool(repo) and head_repo == repo and head_ref.startswith(BOT_BRANCH_PREFIX)


def check(base: str, head: str, bot: bool) -> list[str]:
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        for change in changes(base, head):
            runner = results_runner(change.path)
            if change.status != "D":
                odd = path_problem(change.path, change.mode,
                                   _link_target(change.blob) if change.mode == "120000" else None)
                if odd is not None:
                    problems.append(odd)
                    continue
            if runner is None:      # a deleted path that is not a results file: nothing is read or published
                continue
            try:
                old = None if change.status == "A" else _load_at(base, change.path, tmp)
                new = None if change.status == "D" else _load_at(head, change.path, tmp)
            except TfperfError as exc:
                problems.append(str(exc))
                continue
            if not bot and change.status != "D":
                problems += label_problems(change.path, runner, new)
            problems += removals(change.path, old, new).lines()
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="A data pull request only adds results; gha-* and selfhosted-* "
                                            "labels are the bot's.")
    p.add_argument("--base", default="HEAD^1", help="the base side (default: HEAD^1, the base of the merge commit "
                                                    "a pull_request run checks out)")
    p.add_argument("--head", default="HEAD", help="the pull request side (default: HEAD)")
    p.add_argument("--author", default="", help="login of the pull request's author")
    p.add_argument("--head-repo", default="", help="OWNER/NAME the pull request comes from")
    p.add_argument("--repo", default="", help="OWNER/NAME of this repository")
    p.add_argument("--head-ref", default="", help="the pull request's branch")
    args = p.parse_args(argv)
    bot = is_bot(args.author, args.head_repo, args.repo, args.head_ref)
    try:
        problems = check(args.base, args.head, bot)
    except subprocess.CalledProcessError as exc:
        print(f"check_data_pr: git {' '.join(exc.cmd[1:])}: {exc.stderr.decode(errors='replace').strip()}",
              file=sys.stderr)
        return 2
    for line in problems:
        print(line, file=sys.stderr)
    n = len(changed_files(args.base, args.head))
    if problems:
        print(f"check_data_pr: {len(problems)} problem(s) in {n} changed results file(s); under data/ only "
              f"results files may change, results may only be added, and gha-*/selfhosted-* runners are measured "
              f"by the workflows", file=sys.stderr)
        return 1
    print(f"check_data_pr: {n} changed results file(s) only add results"
          + (" (the benchmarks bot's pull request)" if bot else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
