"""One regression issue per set of cases: what scripts/ci/open-pr.sh does with the cases that
got slower (or fail now) in a run.

    python scripts/ci/regression_issue.py key IDS_FILE
        prints the case set's key: the first 12 hex digits of the SHA-256 of its sorted,
        distinct lines ("<runner>/<profile> <case id>"), whatever order the runs found them in
    python scripts/ci/regression_issue.py find KEY < issues.json
        reads `gh issue list --state all --json number,title,state` and prints
        "edit N" when an open issue's title names the key (update its body),
        "keep N" when only a closed one does (a maintainer closed it: it stays closed, and
        no new issue is opened for the same cases), or "create" when none does

The title names the key as "[cases <key>]", so the same cases, found again by the next run
(the GPU workflow's run too, which measured none of them while the results pull request is
open), update one issue instead of opening another; a different set of cases gets its own.
Standard library only (it runs beside the merge job's write token)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def key(lines: list[str]) -> str:
    cases = sorted({line.strip() for line in lines if line.strip()})
    return hashlib.sha256("\n".join(cases).encode("utf-8")).hexdigest()[:12]


def marker(case_key: str) -> str:
    return f"[cases {case_key}]"


def find(case_key: str, issues: list[dict[str, object]]) -> str:
    named = [i for i in issues if marker(case_key) in str(i.get("title", ""))]
    open_ = sorted(int(str(i["number"])) for i in named if str(i.get("state", "")).upper() == "OPEN")
    if open_:
        return f"edit {open_[0]}"
    closed = sorted(int(str(i["number"])) for i in named)
    if closed:
        return f"keep {closed[-1]}"
    return "create"


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "key":
        print(key(Path(argv[1]).read_text(encoding="utf-8").splitlines()))
        return 0
    if len(argv) == 2 and argv[0] == "find":
        issues = json.load(sys.stdin)
        print(find(argv[1], issues if isinstance(issues, list) else []))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
