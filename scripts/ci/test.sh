#!/usr/bin/env bash
# The test job: install the package with the measuring, site and test extras, run pytest in
# one worker per core (at most 4; tests/conftest.py), each test file on one worker.
# Usage: scripts/ci/test.sh [PYTEST_ARGS...]
#   CI (tests.yml):  scripts/ci/test.sh -m "not browser"
#   here:            TFPERF_VENV=.venv scripts/ci/test.sh
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/machine-lock.sh"
tfperf_machine_lock
tfperf_env "tf,site,test"
cd "$TFPERF_ROOT"
exec "$PY" -m pytest -n auto --dist loadfile --no-loadscope-reorder "$@"
