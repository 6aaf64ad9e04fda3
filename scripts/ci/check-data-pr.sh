#!/usr/bin/env bash
# The data guard of a pull request (tests / data): every results file the pull request adds,
# changes or deletes under data/ must keep every record of the base's file (it equals the merge
# of the base's file and its own: results are added, never removed or rewritten; the case ids of
# removed ones are named), and only the benchmarks bot may touch the gha-* and selfhosted-* runners' files.
#
# Usage: scripts/ci/check-data-pr.sh [BASE]      (default: HEAD^1, the base side of the merge
#        commit that a pull_request run checks out; needs fetch-depth: 2)
# Environment (from the pull_request event): PR_AUTHOR, PR_HEAD_REPO, PR_HEAD_REF, GITHUB_REPOSITORY
# Here:  TFPERF_VENV=.venv scripts/ci/check-data-pr.sh origin/main
set -euo pipefail
if [ $# -gt 1 ]; then
    echo "usage: $0 [BASE]" >&2
    exit 64
fi
. "$(dirname "$0")/env.sh"
tfperf_env "test"
cd "$TFPERF_ROOT"
exec "$PY" scripts/ci/check_data_pr.py --base "${1:-HEAD^1}" --head HEAD \
    --author "${PR_AUTHOR:-}" --head-repo "${PR_HEAD_REPO:-}" --repo "${GITHUB_REPOSITORY:-}" \
    --head-ref "${PR_HEAD_REF:-}"
