#!/usr/bin/env bash
# The data job: every results file in data/ (including contributed ones in a pull request)
# must validate against the schema; each error names the file and the field.
# Usage: scripts/ci/validate-data.sh [DATA_DIR]      (default: data)
set -euo pipefail
. "$(dirname "$0")/env.sh"
tfperf_env "test"
cd "$TFPERF_ROOT"
data="${1:-data}"
mapfile -t files < <(find "$data" -path '*/results/*' -name '*.json' -type f | LC_ALL=C sort)
if [ "${#files[@]}" -eq 0 ]; then
    echo "validate-data: no results files under $data"
    exit 0
fi
tfperf validate "${files[@]}"
echo "validate-data: ${#files[@]} file(s) valid"
