"""The merge scenario of scripts/ci/act.sh: what two runners of the full profile upload.

Usage: python tests/act_shards.py REPO ARTIFACTS

REPO's main (and its origin's) gains data/results/act-box/full.json with cases 1-4 measured
on 1 June at 1 ms (a runner's file as the last results pull request left it); ARTIFACTS gets
results-gha-act-box-shard1of2 (cases 1-2) and ...-shard2of2 (cases 3-4), the same cases
measured again on 8 June at 2 ms and case 5, new: so the merge adds records, the results
pull request's report lists four cases slower, and the regression issue names them. The
records are the test suite's (tests/store_records.py, beside it), valid against the schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from store_records import make_doc
from test_ci_support import measured, write_doc

RUNNER = "act-box"
GIT = {"GIT_AUTHOR_NAME": "act", "GIT_AUTHOR_EMAIL": "act@localhost", "GIT_COMMITTER_NAME": "act",
       "GIT_COMMITTER_EMAIL": "act@localhost"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT}).stdout


def main(repo: Path, artifacts: Path) -> None:
    committed = repo / "data" / "results" / RUNNER / "full.json"
    if not committed.exists():
        write_doc(repo, make_doc(runner=RUNNER, profile="full",
                                 results=[measured(n, runner=RUNNER, median=0.001, day=1) for n in (1, 2, 3, 4)]))
        git(repo, "add", str(committed))
        git(repo, "commit", "--quiet", "-m", "act-box's results as the last results pull request left them")
        git(repo, "push", "--quiet", "local", "main")
    for shard, cases in ((1, (1, 2)), (2, (3, 4, 5))):
        doc = make_doc(runner=RUNNER, profile="full",
                       results=[measured(n, runner=RUNNER, median=0.002, day=8) for n in cases])
        path = write_doc(artifacts / f"results-gha-{RUNNER}-shard{shard}of2", doc)
        # The artifact holds <runner>/<profile>.json, as upload-artifact stores ci-out/results/.
        dest = artifacts / f"results-gha-{RUNNER}-shard{shard}of2" / RUNNER / "full.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        path.replace(dest)
        for d in (path.parent, path.parent.parent, path.parent.parent.parent):
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
        print(f"act_shards.py: {dest.relative_to(artifacts)}: cases {', '.join(map(str, cases))}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
