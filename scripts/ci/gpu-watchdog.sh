#!/usr/bin/env bash
# The GPU workflow's watchdog, on a hosted runner beside the GPU job: a job waiting for a
# self-hosted runner that never comes stays queued for up to 24 hours (its timeout-minutes
# counts only once it runs), and the workflow's concurrency group (queue: max) holds every
# later GPU run behind it. So: poll the run's jobs; once the GPU job has started (or ended),
# exit 0; if it is still waiting for a runner after WAIT_MINUTES, cancel the run (its merge
# job is skipped), say why, and exit 1. A cancelled run frees the group for the next one.
#
# Usage: scripts/ci/gpu-watchdog.sh JOB_NAME
#   JOB_NAME  the GPU job's name as the run's job list shows it
# Environment: GH_TOKEN (actions: write), GH_REPO (OWNER/REPO), RUN_ID,
#              WAIT_MINUTES (default 15), POLL_SECONDS (default 30)
# Here, with a fake gh on PATH: GH_REPO=o/r RUN_ID=1 WAIT_MINUTES=0 scripts/ci/gpu-watchdog.sh "GPU"
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 JOB_NAME" >&2
    exit 64
fi
job="$1"
repo="${GH_REPO:?set GH_REPO to OWNER/REPO}"
run="${RUN_ID:?set RUN_ID to the run to watch}"
wait_min="${WAIT_MINUTES:-15}" poll="${POLL_SECONDS:-30}"
for v in "$run" "$wait_min" "$poll"; do
    if ! [[ "$v" =~ ^[0-9]+$ ]]; then
        echo "gpu-watchdog.sh: RUN_ID, WAIT_MINUTES and POLL_SECONDS must be whole numbers, not '$v'" >&2
        exit 64
    fi
done
deadline=$(( $(date +%s) + wait_min * 60 ))
while :; do
    # queued / waiting / pending: no runner has taken it yet; in_progress / completed: it has.
    state="$(gh api "repos/$repo/actions/runs/$run/jobs?per_page=100" \
        --jq ".jobs[] | select(.name == \"$job\") | .status" | head -n 1)"
    case "$state" in
        in_progress|completed)
            echo "gpu-watchdog.sh: '$job' is $state: a runner took it"
            exit 0 ;;
        "")
            echo "gpu-watchdog.sh: no job '$job' in run $run (yet)" ;;
        *)
            echo "gpu-watchdog.sh: '$job' is $state (waiting for a runner)" ;;
    esac
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "::error::No self-hosted runner took '$job' within ${wait_min} minutes: cancelling run $run so that later GPU runs do not wait behind it (is the runner online, in a group this repository may use? scripts/ci/gpu-runner.md)"
        gh api --method POST "repos/$repo/actions/runs/$run/cancel" >/dev/null
        exit 1
    fi
    sleep "$poll"
done
