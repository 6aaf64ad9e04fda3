#!/usr/bin/env bash
# A pull request that changes a snippet or the harness (pr-bench.yml): the quick profile of
# the base and of the pull request on this runner, one after the other, and the regression
# report of the pull request against the base. The report and the pull request's number go to
# $TFPERF_OUT/pr-comment/, the artifact that pr-bench-comment.yml posts as a comment (this job
# holds no write token: it runs the pull request's code).
# Only the topics whose snippets changed are measured, or every topic when anything else changed.
#
# Usage: scripts/ci/compare-pr.sh PR_NUMBER [BASE]      (BASE default: HEAD^1, the base side of
#        the merge commit a pull_request run checks out; needs fetch-depth: 2)
# Here:  TFPERF_VENV=.venv TFPERF_OUT=/tmp/cmp scripts/ci/compare-pr.sh 1 HEAD~3
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 PR_NUMBER [BASE]" >&2
    exit 64
fi
number="$1" base="${2:-HEAD^1}"
if ! [[ "$number" =~ ^[1-9][0-9]{0,9}$ ]]; then
    echo "compare-pr.sh: PR_NUMBER must be a number, not '$number'" >&2
    exit 64
fi
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/env.sh"
tfperf_env "${TFPERF_EXTRAS:-tf}"
cd "$TFPERF_ROOT"
out="$(mkdir -p "${TFPERF_OUT:-ci-out}" && cd "${TFPERF_OUT:-ci-out}" && pwd)"
base_sha="$(git rev-parse --verify "$base^{commit}")"
tmp="$(mktemp -d)"
wt="$tmp/base"
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --quiet --detach "$wt" "$base_sha"

# The topics to measure: those whose snippets changed, unless anything else changed.
topics="" only_snippets=1
while IFS= read -r path; do
    case "$path" in
        snippets/*.py|snippets/*.yaml) name="${path#snippets/}"; topics="$topics ${name%.*}" ;;
        *) only_snippets=0 ;;
    esac
done < <(git diff --name-only "$base_sha" HEAD -- snippets bench)
if [ "$only_snippets" = 1 ] && [ -n "$topics" ]; then
    # shellcheck disable=SC2086  # split the list on purpose
    topics="$(printf '%s\n' $topics | LC_ALL=C sort -u | while read -r t; do [ -f "snippets/$t.yaml" ] && printf '%s ' "$t"; done)"
else
    topics=""
fi
echo "compare-pr.sh: base $(git rev-parse --short "$base_sha"), topics: ${topics:-all}"

TFPERF_FORCE=1 TFPERF_TOPICS="$topics" TFPERF_OUT="$out/head" "$here/bench.sh" quick 1/1 pr-head
# The base's own scripts and code (its bench/ first on PYTHONPATH), in this environment.
base_ok=1
if [ -x "$wt/scripts/ci/bench.sh" ]; then
    TFPERF_FORCE=1 TFPERF_TOPICS="$topics" TFPERF_OUT="$out/base" "$wt/scripts/ci/bench.sh" quick 1/1 pr-base \
        || base_ok=0
else
    base_ok=0
fi

mkdir -p "$out/pr-comment"
echo "$number" > "$out/pr-comment/number"
report="$out/pr-comment/report.md"
{
    echo "### Quick profile: this pull request against its base"
    echo
    echo "Base $(git rev-parse --short "$base_sha") and this pull request measured one after the other on one"
    echo "hosted runner (quick profile${topics:+, topics: $topics}). Two runs of the same code differ by up to"
    echo "about 15% on such a machine, so read a flag as a case to look at, not a verdict."
    echo
} > "$report"
old="$out/base/results/pr-base/quick.json" new="$out/head/results/pr-head/quick.json"
if [ "$base_ok" = 1 ] && [ -f "$old" ] && [ -f "$new" ]; then
    "$PY" scripts/regression_report.py --title "Head against base" "$old" "$new" >> "$report" \
        || echo "The report could not be made (see the job's log)." >> "$report"
else
    echo "No comparison: the base or the pull request wrote no results file (see the job's log)." >> "$report"
fi
cat "$report"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$report" >> "$GITHUB_STEP_SUMMARY"
fi
