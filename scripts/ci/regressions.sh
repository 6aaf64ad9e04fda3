#!/usr/bin/env bash
# After the merge: for each results file under DATA_DIR/results, which cases got slower or
# faster than in the file as committed at BASE (scripts/regression_report.py: the 95% CIs of
# the medians do not overlap and the change is above TFPERF_REGRESSION_THRESHOLD). The
# markdown goes to the job's step summary ($GITHUB_STEP_SUMMARY), or to standard output here.
# A report never fails the job: it says what changed, the pull request's reviewer decides.
#
# Usage: scripts/ci/regressions.sh [DATA_DIR] [BASE]      (defaults: data, HEAD)
# Here:  TFPERF_VENV=.venv scripts/ci/regressions.sh data HEAD~3
set -euo pipefail
if [ $# -gt 2 ]; then
    echo "usage: $0 [DATA_DIR] [BASE]" >&2
    exit 64
fi
. "$(dirname "$0")/env.sh"
tfperf_env "test"
data="${1:-data}"
base="${2:-HEAD}"
data="$(cd "$data" 2>/dev/null && pwd)" || { echo "regressions.sh: no folder ${1:-data}: nothing to compare"; exit 0; }
cd "$TFPERF_ROOT"
out="${GITHUB_STEP_SUMMARY:-/dev/stdout}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

n=0
while IFS= read -r file; do
    rel="results/${file#"$data"/results/}"
    # The same file as committed at BASE (data/ of this checkout), if it existed there.
    if ! git show "$base:data/$rel" > "$tmp/old.json" 2>/dev/null; then
        echo "regressions.sh: data/$rel is new at $base: nothing to compare it with"
        continue
    fi
    if cmp -s "$tmp/old.json" "$file"; then
        continue
    fi
    "$PY" scripts/regression_report.py --threshold "${TFPERF_REGRESSION_THRESHOLD:-0.10}" \
        --title "Regressions in data/$rel (against $base)" "$tmp/old.json" "$file" >> "$out" || true
    n=$((n + 1))
done < <(find "$data/results" -name '*.json' -type f 2>/dev/null | LC_ALL=C sort)
echo "regressions.sh: compared $n changed results file(s) with $base"
