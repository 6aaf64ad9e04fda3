# shellcheck shell=bash
# Sourced (not run) by the scripts in scripts/ci: find or build the Python environment
# a CI job uses, so that a job runs the same way on a GitHub runner and on this machine.
#
#   tfperf_env EXTRAS        EXTRAS: comma-separated extras of pyproject.toml ("tf,test")
#
# TFPERF_VENV=/path/to/venv  use that venv as it is, install nothing (e.g. TFPERF_VENV=.venv after scripts/setup);
# otherwise                  TFPERF_EXTRAS=EXTRAS scripts/setup builds ./.venv with
#                            `pip install -e ".[EXTRAS]"` (the one place install logic lives;
#                            CI runners take this path).
#
# Afterwards: $PY is the venv's python, its bin/ is first on PATH, and PYTHONPATH puts this
# checkout's bench/ first so the code under test is the code in this working tree.

TFPERF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export TFPERF_ROOT

tfperf_env() {
    local extras="$1"
    if [ -z "${TFPERF_VENV:-}" ]; then
        if [ ! -x "$TFPERF_ROOT/scripts/setup" ]; then
            echo "scripts/ci: scripts/setup is missing; set TFPERF_VENV=/path/to/venv to use an existing one" >&2
            return 1
        fi
        TFPERF_EXTRAS="$extras" "$TFPERF_ROOT/scripts/setup" || return 1
        TFPERF_VENV="$TFPERF_ROOT/.venv"
    fi
    if [ ! -x "$TFPERF_VENV/bin/python" ]; then
        echo "scripts/ci: $TFPERF_VENV/bin/python does not exist (TFPERF_VENV)" >&2
        return 1
    fi
    export TFPERF_VENV
    export PATH="$TFPERF_VENV/bin:$PATH"
    export PYTHONPATH="$TFPERF_ROOT/bench${PYTHONPATH:+:$PYTHONPATH}"
    PY="$TFPERF_VENV/bin/python"
    export PY
}

# The tfperf command of the environment, running this checkout's package.
tfperf() {
    "$PY" -c 'import sys; from tfperf.cli import main; sys.exit(main())' "$@"
}
