#!/usr/bin/env bash
# The smoke job of a pull request: the quick profile of every topic on this runner, then
# the results file it wrote must exist and validate. Cases that fail are stored as data
# (the run goes on) and counted in the log and the step summary; they do not fail the job,
# since a topic may lack a backend on one platform (e.g. LiteRT on Linux arm64). A run in
# which no case measured (every one failed or unavailable) fails it: that is a harness that
# does not work on this platform, not a missing backend.
#
# Usage: scripts/ci/smoke.sh RUNNER
# Here:  TFPERF_VENV=.venv TFPERF_OUT=/tmp/smoke scripts/ci/smoke.sh smoke-local
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 RUNNER" >&2
    exit 64
fi
runner="$1"
here="$(cd "$(dirname "$0")" && pwd)"
TFPERF_FORCE=1 "$here/bench.sh" quick 1/1 "$runner"
. "$here/env.sh"
tfperf_env "${TFPERF_EXTRAS:-tf}"
cd "$TFPERF_ROOT"
file="${TFPERF_OUT:-ci-out}/results/$runner/quick.json"
if [ ! -f "$file" ]; then
    echo "smoke.sh: the quick profile wrote no results file ($file)" >&2
    exit 1
fi
tfperf validate "$file"
status=0
summary="$("$PY" - "$file" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
status = collections.Counter(r.get("status") for r in doc["results"])
failed = sorted(r["case_id"] for r in doc["results"] if r.get("status") != "ok")
print(f"{sum(status.values())} case(s): " + ", ".join(f"{n} {s}" for s, n in sorted(status.items())))
for cid in failed[:20]:
    print(f"  not ok: {cid}")
sys.exit(0 if status["ok"] else 3)
PY
)" || status=$?
echo "smoke.sh: $summary"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    { echo "### Quick profile on $runner"; echo '```'; echo "$summary"; echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
if [ "$status" -ne 0 ]; then
    echo "smoke.sh: no case of the quick profile measured on $runner ($file): the harness does not run here" >&2
    exit 1
fi
