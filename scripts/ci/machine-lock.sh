# shellcheck shell=bash
# Sourced (not run) by the scripts that measure or run the tests (bench.sh, selfcheck.sh,
# test.sh): on a machine that serves more than one job at a time, no such job may run beside
# a measurement, or it changes the numbers.
#
#   tfperf_machine_lock    with TFPERF_MACHINE_LOCK=FILE: wait (TFPERF_MACHINE_LOCK_WAIT
#                          seconds, default 1800) for an exclusive flock on FILE and hold it
#                          until the script and everything it started have exited; then refuse
#                          to go on while another process computes on the GPU (nvidia-smi).
#                          Without TFPERF_MACHINE_LOCK: nothing.
#
# Why: a GitHub-hosted job has a fresh virtual machine of its own, so hosted jobs never share
# one. A self-hosted machine may run several runner instances (or a runner and someone's
# work), and GitHub's concurrency groups only order the runs of one group. bench-gpu.yml sets
# TFPERF_MACHINE_LOCK; scripts/ci/README.md says what the runner machine needs.
# The lock is taken before the environment is installed: pip's work, too, would slow a
# measurement beside it. The file holds its holder (pid, workflow, run, job, since when).
# Exit status 75 (EX_TEMPFAIL): the machine stayed busy.

tfperf_machine_lock() {
    local lock="${TFPERF_MACHINE_LOCK:-}" wait="${TFPERF_MACHINE_LOCK_WAIT:-1800}"
    [ -n "$lock" ] || return 0
    if ! [[ "$wait" =~ ^[0-9]+$ ]]; then
        echo "scripts/ci: TFPERF_MACHINE_LOCK_WAIT must be a number of seconds, not '$wait'" >&2
        return 64
    fi
    if ! command -v flock >/dev/null 2>&1; then
        echo "scripts/ci: TFPERF_MACHINE_LOCK is set, but flock (util-linux) is not installed" >&2
        return 1
    fi
    # Descriptor 9 stays open in this shell and in what it starts, so the lock is released
    # when the last of them exits (a crash or a kill included: the kernel releases a flock).
    if ! exec 9>>"$lock"; then
        echo "scripts/ci: cannot open the machine lock $lock (TFPERF_MACHINE_LOCK)" >&2
        return 1
    fi
    if ! flock -n 9; then
        echo "scripts/ci: waiting up to ${wait}s for the machine lock $lock, held by: $(cat "$lock" 2>/dev/null)"
        if ! flock -w "$wait" 9; then
            echo "scripts/ci: the machine lock $lock is still held after ${wait}s, by: $(cat "$lock" 2>/dev/null)" >&2
            return 75
        fi
    fi
    : > "$lock"
    echo "pid $$, ${GITHUB_WORKFLOW:-(no workflow)} run ${GITHUB_RUN_ID:--} job ${GITHUB_JOB:--}," \
         "since $(date -u +%Y-%m-%dT%H:%M:%SZ)" >&9
    tfperf_gpu_idle
}

# Refuse (75) while any process computes on an NVIDIA GPU of this machine: a GPU shared with
# someone else's kernels makes every GPU figure wrong. Nothing to check without nvidia-smi.
tfperf_gpu_idle() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    local apps
    if ! apps="$(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader)"; then
        echo "scripts/ci: nvidia-smi failed: cannot tell whether the GPU is free" >&2
        return 1
    fi
    if [ -n "$apps" ]; then
        echo "scripts/ci: other processes compute on the GPU; measuring beside them would change the numbers:" >&2
        echo "$apps" >&2
        return 75
    fi
}
