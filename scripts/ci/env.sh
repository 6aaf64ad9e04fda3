# shellcheck shell=bash
# Sourced (not run) by the scripts in scripts/ci: find or build the Python environment
# a CI job uses, so that a job runs the same way on a GitHub runner and on this machine.
#
#   tfperf_env EXTRAS        EXTRAS: comma-separated extras of pyproject.toml ("tf,test")
#
# TFPERF_VENV=/path/to/venv  use that venv as it is, install nothing (e.g. TFPERF_VENV=.venv after scripts/setup);
# TFPERF_LOCK=FILE           install exactly that hashed lock into ./.venv (every CI job that installs
#                            Python packages sets it: scripts/ci/<extras>-requirements.txt; see below);
# otherwise                  TFPERF_EXTRAS=EXTRAS scripts/setup builds ./.venv with
#                            `pip install -e ".[EXTRAS]"` (the one place the project is installed;
#                            a machine of your own takes this path).
#
# Afterwards: $PY is the venv's python, its bin/ (Scripts/ on Windows) is first on PATH, and
# PYTHONPATH puts this checkout's bench/ first so the code under test is the code in this
# working tree.

TFPERF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export TFPERF_ROOT

tfperf_env() {
    local extras="$1"
    if [ -z "${TFPERF_VENV:-}" ] && [ -n "${TFPERF_LOCK:-}" ]; then
        tfperf_locked_venv "$TFPERF_LOCK" || return 1
        TFPERF_VENV="$TFPERF_ROOT/.venv"
    fi
    if [ -z "${TFPERF_VENV:-}" ]; then
        if [ ! -x "$TFPERF_ROOT/scripts/setup" ]; then
            echo "scripts/ci: scripts/setup is missing; set TFPERF_VENV=/path/to/venv to use an existing one" >&2
            return 1
        fi
        TFPERF_EXTRAS="$extras" "$TFPERF_ROOT/scripts/setup" || return 1
        TFPERF_VENV="$TFPERF_ROOT/.venv"
    fi
    PY="$(tfperf_venv_python "$TFPERF_VENV")"
    if [ -z "$PY" ]; then
        echo "scripts/ci: neither $TFPERF_VENV/bin/python nor $TFPERF_VENV/Scripts/python.exe exists (TFPERF_VENV)" >&2
        return 1
    fi
    PATH="$(dirname "$PY"):$PATH"
    export TFPERF_VENV PY PATH
    # Python on Windows (Git Bash, MSYS2, Cygwin) reads PYTHONPATH as Windows paths joined by ';'.
    local bench="$TFPERF_ROOT/bench" sep=":"
    case "${OSTYPE:-}" in
        msys*|cygwin*) bench="$(cygpath -w "$bench")" sep=";" ;;
    esac
    export PYTHONPATH="$bench${PYTHONPATH:+$sep$PYTHONPATH}"
}

# The interpreter of the venv DIR: bin/python (POSIX) or Scripts/python.exe (Windows); nothing
# when it has neither.
tfperf_venv_python() {
    if [ -x "$1/bin/python" ]; then
        echo "$1/bin/python"
    elif [ -x "$1/Scripts/python.exe" ]; then
        echo "$1/Scripts/python.exe"
    fi
}

# TFPERF_LOCK=FILE (set by every CI job that installs Python packages): ./.venv gets exactly the
# hashed lock FILE (pip --require-hashes, wheels only, no dependency resolution) and nothing
# else; tfperf itself runs from bench/ on PYTHONPATH (no `tfperf` console script: the scripts
# call the tfperf function below). So a job runs with the packages the lock names, not with
# whatever was newest that day, and no unpinned package runs beside the merge job's write token.
tfperf_locked_venv() {
    local lock="$1" venv="$TFPERF_ROOT/.venv"
    case "$lock" in /*) ;; *) lock="$TFPERF_ROOT/$lock";; esac
    if [ ! -f "$lock" ]; then
        echo "scripts/ci: TFPERF_LOCK: $lock does not exist" >&2
        return 1
    fi
    if [ -z "$(tfperf_venv_python "$venv")" ]; then
        "$(tfperf_base_python)" -m venv "$venv" || return 1
    fi
    if ! cmp -s "$lock" "$venv/.tfperf-lock"; then
        echo "scripts/ci: installing the hashed lock ${lock#"$TFPERF_ROOT"/} into $venv"
        "$(tfperf_venv_python "$venv")" -m pip install --quiet --require-hashes --only-binary=:all: --no-deps -r "$lock" || return 1
        cp "$lock" "$venv/.tfperf-lock"
    fi
}

# The interpreter that makes a venv, as scripts/setup chooses it: $PYTHON when set; on Windows
# (Git Bash, MSYS2, Cygwin) python, which setup-python provides (no python3.exe there; a python3
# may be the Store's stub, which runs no code); elsewhere python3 where it runs, else python.
tfperf_base_python() {
    if [ -n "${PYTHON:-}" ]; then
        echo "$PYTHON"
        return
    fi
    case "${OSTYPE:-}" in
        msys*|cygwin*) echo python ;;
        *) if python3 -c "" >/dev/null 2>&1; then echo python3; else echo python; fi ;;
    esac
}

# The tfperf command of the environment, running this checkout's package.
tfperf() {
    "$PY" -c 'import sys; from tfperf.cli import main; sys.exit(main())' "$@"
}
