#!/usr/bin/env bash
# Regenerate the hashed locks the CI jobs install (scripts/ci/<extras>-requirements.txt): each is
# tfperf's dependencies plus one set of extras of pyproject.toml, every package pinned with `==`
# and its sha256 hashes, for Python 3.11 on every platform at once (uv's universal resolution:
# environment markers choose each platform's packages). A job names its lock in TFPERF_LOCK and
# scripts/ci/env.sh installs exactly that (pip --require-hashes --only-binary=:all: --no-deps),
# so two runs a week apart test and measure with the same packages. After the resolution each
# lock is checked to have a wheel of every package on each platform its jobs run on.
#
# Usage: scripts/ci/lock-requirements.sh [LOCK...]    (default: every lock below; needs PyPI)
#   after changing pyproject.toml:  scripts/ci/lock-requirements.sh
#     keeps every pin the old lock has that still fits (uv reads the old file as preferences);
#   to move every package to its newest release:  TFPERF_LOCK_UPGRADE=1 scripts/ci/lock-requirements.sh
# uv: $UV, else `uv` on PATH when it is uv $UV_VERSION, else uv $UV_VERSION installed into a
# throwaway venv from PyPI.
# The merge job's lock (merge-requirements.txt) is made by pip-compile: the command is in it.
set -euo pipefail
cd "$(dirname "$0")/../.."

UV_VERSION=0.13.9
# The workflows' PYTHON_VERSION (tests/ci/test_ci_lock.py holds the two together).
PYTHON_VERSION=3.11
# The macOS runners are macos-15: a wheel for macOS 14 or older runs there.
export MACOSX_DEPLOYMENT_TARGET=15.0

# lock (in scripts/ci/)           extras        the platforms of the jobs that install it
# (tests/ci/test_ci_lock.py checks each job's runner against this table)
LOCKS="
tf-requirements.txt             tf            x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu aarch64-apple-darwin x86_64-pc-windows-msvc
tf-site-test-requirements.txt   tf,site,test  x86_64-unknown-linux-gnu
site-requirements.txt           site          x86_64-unknown-linux-gnu
test-requirements.txt           test          x86_64-unknown-linux-gnu
gpu-requirements.txt            gpu           x86_64-unknown-linux-gnu
"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
uv="${UV:-}"
if [ -z "$uv" ] && command -v uv >/dev/null 2>&1 && [ "$(uv --version | cut -d' ' -f2)" = "$UV_VERSION" ]; then
    uv=uv
fi
if [ -z "$uv" ]; then
    echo "lock-requirements.sh: installing uv==$UV_VERSION into a throwaway venv"
    "${PYTHON:-python3}" -m venv "$tmp/uv"
    "$tmp/uv/bin/python" -m pip install --quiet "uv==$UV_VERSION"
    uv="$tmp/uv/bin/uv"
fi

want=" $* "
echo "$LOCKS" | while read -r lock extras platforms; do
    [ -n "$lock" ] || continue
    if [ $# -gt 0 ] && [[ "$want" != *" $lock "* && "$want" != *" scripts/ci/$lock "* ]]; then
        continue
    fi
    args=(pip compile --universal --generate-hashes --python-version "$PYTHON_VERSION")
    for e in ${extras//,/ }; do
        args+=(--extra "$e")
    done
    args+=(-c scripts/ci/lock-constraints.txt pyproject.toml)
    upgrade=()
    if [ "${TFPERF_LOCK_UPGRADE:-0}" = 1 ]; then
        upgrade=(--upgrade)
    fi
    out="$tmp/$lock"
    [ -f "scripts/ci/$lock" ] && cp "scripts/ci/$lock" "$out"     # its pins are uv's preferences
    echo "lock-requirements.sh: uv ${args[*]}"
    "$uv" "${args[@]}" "${upgrade[@]}" --no-header --quiet -o "$out"
    for platform in $platforms; do
        # Every pin resolves to a wheel on that platform (--no-deps: the lock as it is).
        if ! "$uv" pip compile "$out" --no-deps --only-binary :all: --python-platform "$platform" \
            --python-version "$PYTHON_VERSION" --no-header --quiet -o "$tmp/check.txt"; then
            echo "lock-requirements.sh: $lock has a package with no wheel for $platform (above): not written" >&2
            exit 1
        fi
    done
    {
        echo "# The hashed lock of tfperf[$extras] for CI: pyproject.toml's dependencies and the"
        echo "# extras $extras, every package pinned with == and the sha256 of each of its files,"
        echo "# for Python $PYTHON_VERSION on every platform (uv's universal resolution; the markers pick"
        echo "# each platform's packages). The jobs that install these extras set TFPERF_LOCK to this"
        echo "# file, and scripts/ci/env.sh installs exactly it (pip --require-hashes --only-binary=:all:"
        echo "# --no-deps; tfperf itself runs from bench/), so two runs a week apart test and measure"
        echo "# with the same packages. Wheels checked for: $platforms."
        echo "# Regenerate (after changing pyproject.toml; TFPERF_LOCK_UPGRADE=1 to take new releases):"
        echo "#   scripts/ci/lock-requirements.sh scripts/ci/$lock"
        echo "# which runs (uv $UV_VERSION, MACOSX_DEPLOYMENT_TARGET=$MACOSX_DEPLOYMENT_TARGET for the check):"
        echo "#   uv ${args[*]} --no-header -o scripts/ci/$lock"
        grep -v '^#' "$out"
    } > "scripts/ci/$lock"
    echo "lock-requirements.sh: wrote scripts/ci/$lock ($(grep -c '^[A-Za-z0-9]' "scripts/ci/$lock") packages)"
done
