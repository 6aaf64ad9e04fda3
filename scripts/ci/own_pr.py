"""The number of this repository's own open results pull request, from ``gh pr list --json``.

``gh pr list --head BRANCH`` matches a branch of that name in any fork as well: a fork can
open a pull request from its own ``tfperf/results-main``. Only a pull request whose head is in
this repository (``isCrossRepository`` false, and the head's owner this repository's owner
when that is known) is the workflow's own; its files may be carried into the next run.

Usage: gh pr list ... --json number,headRefName,isCrossRepository,headRepositoryOwner \\
           | python scripts/ci/own_pr.py --branch BRANCH [--owner OWNER]
Prints the number, or nothing when there is no such pull request.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def own_pr(prs: list[dict[str, Any]], branch: str, owner: str = "") -> int | None:
    for pr in sorted(prs, key=lambda p: int(p.get("number") or 0)):
        if pr.get("headRefName", branch) != branch or pr.get("isCrossRepository") is not False:
            continue
        login = ((pr.get("headRepositoryOwner") or {}).get("login") or "")
        if owner and login.lower() != owner.lower():
            continue
        return int(pr["number"])
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--branch", required=True)
    p.add_argument("--owner", default="", help="this repository's owner (GITHUB_REPOSITORY_OWNER)")
    args = p.parse_args(argv)
    text = sys.stdin.read().strip()
    prs = json.loads(text) if text else []
    if not isinstance(prs, list):
        print("own_pr: gh did not answer a list of pull requests", file=sys.stderr)
        return 2
    number = own_pr(prs, args.branch, args.owner)
    if number is not None:
        print(number)
    return 0


if __name__ == "__main__":
    sys.exit(main())
