#!/usr/bin/env bash
# After the merge: commit the changed files under data/results to $RESULTS_BRANCH and open
# a pull request into $BASE_BRANCH (or update the one that is open). Every results file is
# validated once more first. Files .gitignore excludes (quick-profile results) are never
# committed, so a quick run opens no pull request; its merged data is the job's artifact.
#
# Usage: scripts/ci/open-pr.sh
# Environment: RESULTS_BRANCH, BASE_BRANCH, GH_TOKEN, RUN_URL (link in the PR body)
#              TFPERF_DRY_RUN=1 stops after the commit (no push, no gh): for local runs.
set -euo pipefail
. "$(dirname "$0")/env.sh"
tfperf_env "test"
cd "$TFPERF_ROOT"
branch="${RESULTS_BRANCH:?set RESULTS_BRANCH}"
base="${BASE_BRANCH:?set BASE_BRANCH}"

mapfile -t files < <(find data/results -name '*.json' -type f 2>/dev/null | LC_ALL=C sort)
if [ "${#files[@]}" -gt 0 ]; then
    tfperf validate --quiet "${files[@]}"
fi
git add -- data/results 2>/dev/null || true
if git diff --cached --quiet -- data/results; then
    echo "open-pr.sh: no committed results file changed: no pull request"
    exit 0
fi
git diff --cached --stat -- data/results
git -c user.name="github-actions[bot]" \
    -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
    commit --quiet -m "Benchmark results from ${RUN_URL:-a local run}" -- data/results
if [ "${TFPERF_DRY_RUN:-0}" = 1 ]; then
    echo "open-pr.sh: dry run: committed $(git rev-parse --short HEAD); would push to $branch and open a PR into $base"
    exit 0
fi
# The checkout kept no token: authenticate this one push through gh (GH_TOKEN).
git -c credential.helper= -c 'credential.helper=!gh auth git-credential' \
    push --force origin "HEAD:refs/heads/$branch"
open="$(gh pr list --head "$branch" --base "$base" --state open --json number --jq '.[0].number // empty')"
if [ -n "$open" ]; then
    echo "open-pr.sh: updated pull request #$open"
else
    gh pr create --base "$base" --head "$branch" \
        --title "Benchmark results ($(date -u +%Y-%m-%d))" \
        --body "Results measured by ${RUN_URL:-the benchmarks workflow}, validated against the schema and merged into data/ by scripts/ci/merge.sh (idempotent; nothing dropped). Re-running the workflow updates this pull request."
fi
