#!/usr/bin/env bash
# The site build of the publish job: install the site extra, `mkdocs build --strict`.
# Usage: scripts/ci/build-site.sh [SITE_DIR]      (default: site)
# Here:  TFPERF_VENV=.venv scripts/ci/build-site.sh /tmp/site-ci
set -euo pipefail
. "$(dirname "$0")/env.sh"
tfperf_env "site"
cd "$TFPERF_ROOT"
site="${1:-site}"
start=$(date +%s)
"$PY" -m mkdocs build --strict --site-dir "$site"
echo "build-site.sh: built $site in $(( $(date +%s) - start )) s"
