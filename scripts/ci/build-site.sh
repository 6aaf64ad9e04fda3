#!/usr/bin/env bash
# The site build of the publish job: install the site extra, `mkdocs build --strict`.
# SITE_URL (the Pages job passes actions/configure-pages' base_url) becomes the site's
# site_url, so the sitemap and the canonical links name the published address: a config
# beside mkdocs.yml that INHERITs it and adds only site_url, removed afterwards. Without
# SITE_URL, mkdocs.yml is built as it is.
# Usage: [SITE_URL=https://OWNER.github.io/REPO/] scripts/ci/build-site.sh [SITE_DIR]   (default: site)
# Here:  TFPERF_VENV=.venv scripts/ci/build-site.sh /tmp/site-ci
set -euo pipefail
. "$(dirname "$0")/env.sh"
tfperf_env "site"
cd "$TFPERF_ROOT"
site="${1:-site}"
config=mkdocs.yml
if [ -n "${SITE_URL:-}" ]; then
    case "$SITE_URL" in
        https://*|http://*) ;;
        *) echo "build-site.sh: SITE_URL must be an http(s) URL, not '$SITE_URL'" >&2; exit 64;;
    esac
    config=".mkdocs-site-url.$$.yml"   # beside mkdocs.yml: its relative paths stay right
    trap 'rm -f "$config"' EXIT
    printf 'INHERIT: mkdocs.yml\nsite_url: "%s/"\n' "${SITE_URL%/}" > "$config"
    echo "build-site.sh: site_url ${SITE_URL%/}/"
fi
start=$(date +%s)
"$PY" -m mkdocs build --strict --config-file "$config" --site-dir "$site"
echo "build-site.sh: built $site in $(( $(date +%s) - start )) s"
