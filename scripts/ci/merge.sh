#!/usr/bin/env bash
# The merge job: validate every results file under ARTIFACT_DIR (runner artifacts,
# contributed files) and merge the valid ones into DATA_DIR/results/<runner>/<profile>.json.
# A malformed file is rejected with its file and field and the others are still merged;
# the merge is order-independent and idempotent (a second run changes no byte).
# Exit status: 0 all merged, 1 some file rejected (the valid ones are merged all the same).
#
# Usage: scripts/ci/merge.sh ARTIFACT_DIR [DATA_DIR]      (default DATA_DIR: data)
# Here:  TFPERF_VENV=.venv scripts/ci/merge.sh /tmp/artifacts /tmp/merged-data
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 ARTIFACT_DIR [DATA_DIR]" >&2
    exit 64
fi
. "$(dirname "$0")/env.sh"
tfperf_env "test"
if [ ! -d "$1" ]; then
    # download-artifact makes no folder when every runner failed before uploading.
    echo "merge.sh: $1 does not exist: no artifact was downloaded, nothing to merge" >&2
    exit 0
fi
artifacts="$(cd "$1" && pwd)"
data="$(mkdir -p "${2:-data}" && cd "${2:-data}" && pwd)"
cd "$TFPERF_ROOT"

mapfile -t files < <(find "$artifacts" -name '*.json' -type f | LC_ALL=C sort)
if [ "${#files[@]}" -eq 0 ]; then
    echo "merge.sh: no results files under $artifacts: nothing to merge"
    exit 0
fi
echo "merge.sh: ${#files[@]} file(s) from $artifacts -> $data"
status=0
tfperf merge --data "$data" "${files[@]}" || status=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    {
        echo "### Merge into data/"
        if [ "$status" -eq 0 ]; then echo "All ${#files[@]} file(s) valid."; else echo "**Some files were rejected** (see the log); the valid ones were merged."; fi
    } >> "$GITHUB_STEP_SUMMARY"
fi
exit "$status"
