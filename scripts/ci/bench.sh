#!/usr/bin/env bash
# One benchmark job: install the measuring extra, measure one shard of a profile, leave the
# results file in $TFPERF_OUT/results/<runner>/<profile>.json (the job's artifact).
#
# Usage: scripts/ci/bench.sh PROFILE SHARD [RUNNER]
#   PROFILE  quick | full | history
#   SHARD    I/N (e.g. 2/3); 1/1 runs everything
#   RUNNER   runner label stored with the results (CI passes gha-<os>-<arch>, with {cpu} where a
#            hosted runner comes with more than one CPU: tfperf replaces it by this machine's
#            CPU class, e.g. gha-ubuntu24-x86_64-amd-avx512, so two CPUs never share a label);
#            default: the harness derives one from this machine
# Environment:
#   TFPERF_EXTRAS  extras to install (default "tf"; the GPU job sets "gpu")
#   TFPERF_OUT     output data directory (default: ci-out)
#   TFPERF_FORCE   1 = measure again even what data/ already holds for this key (weekly run)
#   TFPERF_TOPICS  space-separated topic names to limit the run (default: every topic)
#   TFPERF_TF      a TensorFlow release to run the workers under (tfperf run --tf; its venv
#                  is built in .venvs/ first); default: the TensorFlow of the extra
#   TFPERF_MACHINE_LOCK  a file to flock for the whole job, on a machine that runs more than
#                  one job at a time (the GPU runner; see machine-lock.sh)
#
# Unless TFPERF_FORCE=1, the runner's published file in data/ is copied into the output
# first, so the harness skips every case whose complete key already has a result: a push
# that changes one snippet re-measures that snippet only.
# Here: TFPERF_VENV=.venv TFPERF_TOPICS=predict_vs_call scripts/ci/bench.sh quick 1/2 local-ci-test
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 PROFILE SHARD [RUNNER]" >&2
    exit 64
fi
profile="$1" shard="$2" runner="${3:-}"
case "$profile" in quick|full|history) ;; *) echo "bench.sh: PROFILE must be quick, full or history, not '$profile'" >&2; exit 64;; esac
if ! [[ "$shard" =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]]; then
    echo "bench.sh: SHARD must be I/N, e.g. 1/3, not '$shard'" >&2
    exit 64
fi

. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/machine-lock.sh"
tfperf_machine_lock
tfperf_env "${TFPERF_EXTRAS:-tf}"
cd "$TFPERF_ROOT"
out="${TFPERF_OUT:-ci-out}"
mkdir -p "$out"

args=(run --profile "$profile" --shard "$shard" --data "$out" --no-progress)
if [ -n "$runner" ]; then
    args+=(--runner "$runner")
    label="$runner"
    if [[ "$runner" == *"{cpu}"* ]]; then
        label="$(tfperf label "$runner")"        # the label tfperf run stores under, on this CPU
        echo "bench.sh: runner $runner is ${label:-?} on this machine"
    fi
    published="data/results/$label/$profile.json"
    if [ "${TFPERF_FORCE:-0}" != 1 ] && [ -n "$label" ] && [ -f "$published" ] \
            && [ ! -e "$out/results/$label/$profile.json" ]; then
        mkdir -p "$out/results/$label"
        cp "$published" "$out/results/$label/$profile.json"
        echo "bench.sh: starting from $published (cases already measured with the same key are skipped)"
    fi
fi
if [ "${TFPERF_FORCE:-0}" = 1 ]; then
    args+=(--force)
fi
if [ -n "${TFPERF_TF:-}" ]; then
    args+=(--tf "$TFPERF_TF")
fi
for t in ${TFPERF_TOPICS:-}; do
    args+=(--topic "$t")
done

echo "bench.sh: tfperf ${args[*]}"
tfperf "${args[@]}"
if [ -d "$out/results" ]; then
    echo "bench.sh: results in $out/results/"
    find "$out/results" -name '*.json' -type f | LC_ALL=C sort
else
    # A shard can hold no case (a small profile split in many shards): nothing to upload.
    echo "bench.sh: no results file written (no case in shard $shard?)"
fi
