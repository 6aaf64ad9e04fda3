#!/usr/bin/env bash
# The harness self-check on this runner (scripts/selfcheck.py): its own cost per call and its
# agreement with a plain timeit, in paired rounds. Writes $TFPERF_OUT/selfcheck/<runner>.json
# (the job's artifact) and exits 1 when a target is missed, so a noisy or biased runner shows.
#
# Usage: scripts/ci/selfcheck.sh RUNNER
# Here:  TFPERF_VENV=.venv scripts/ci/selfcheck.sh local-ci-test
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 RUNNER" >&2
    exit 64
fi
runner="$1"
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/machine-lock.sh"
tfperf_machine_lock
tfperf_env "${TFPERF_EXTRAS:-tf}"
cd "$TFPERF_ROOT"
out="${TFPERF_OUT:-ci-out}/selfcheck"
mkdir -p "$out"
if [[ "$runner" == *"{cpu}"* ]]; then
    runner="$(tfperf label "$runner")"            # this machine's CPU class in place of {cpu}
fi
"$PY" scripts/selfcheck.py --json "$out/$runner.json"
