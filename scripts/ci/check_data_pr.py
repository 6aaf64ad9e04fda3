"""The data guard of a pull request (scripts/ci/check-data-pr.sh runs it): every results file
the pull request adds, changes or deletes under data/ is compared with the base's
(tfperf.store.guard):

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
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from tfperf.errors import TfperfError  # noqa: E402
from tfperf.store.files import load  # noqa: E402
from tfperf.store.guard import label_problems, removals  # noqa: E402

BOT = "github-actions[bot]"
BOT_BRANCH_PREFIX = "tfperf/results-"
RESULTS_FILE = re.compile(r"^data/(?:.+/)?results/(?P<runner>[^/]+)/[^/]+\.json$")


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], capture_output=True, check=True).stdout


def changed_files(base: str, head: str) -> list[tuple[str, str]]:
    """(status letter, path) of each results file that differs between base and head."""
    out = git("diff", "--name-status", "--no-renames", "-z", base, head, "--", "data").decode()
    parts = [p for p in out.split("\0") if p]
    pairs = list(zip(parts[0::2], parts[1::2]))
    return [(status[0], path) for status, path in pairs if RESULTS_FILE.match(path)]


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
        for status, path in changed_files(base, head):
            runner = RESULTS_FILE.match(path)["runner"]  # type: ignore[index]
            try:
                old = None if status == "A" else _load_at(base, path, tmp)
                new = None if status == "D" else _load_at(head, path, tmp)
            except TfperfError as exc:
                problems.append(str(exc))
                continue
            if not bot and status != "D":
                problems += label_problems(path, runner, new)
            problems += removals(path, old, new).lines()
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
        print(f"check_data_pr: {len(problems)} problem(s) in {n} changed results file(s); results may only be "
              f"added, and gha-*/selfhosted-* runners are measured by the workflows", file=sys.stderr)
        return 1
    print(f"check_data_pr: {n} changed results file(s) only add results"
          + (" (the benchmarks bot's pull request)" if bot else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
