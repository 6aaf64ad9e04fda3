#!/usr/bin/env bash
# Vendor the chart libraries the site embeds, at pinned versions, from the npm registry.
#
# The site must make no request outside itself, so vega, vega-lite and vega-embed are
# committed under bench/tfperf/render/vendor/ with their licences (package data: the site serves
# them from assets/vendor/, `tfperf advise` inlines them). The versions match what the
# Python side renders with (altair's Vega-Lite schema and vl-convert's Vega); bump them
# together. Run from the repository root: scripts/vendor_js.sh
set -euo pipefail

VEGA=6.2.0
VEGA_LITE=6.4.1
VEGA_EMBED=7.0.2
AXE=4.14.1          # axe-core, for the browser test's accessibility check (tests/vendor/, not the site)

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/bench/tfperf/render/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
npm pack --silent "vega@$VEGA" "vega-lite@$VEGA_LITE" "vega-embed@$VEGA_EMBED" "axe-core@$AXE" >/dev/null

copy() {  # package version dist-file
  local pkg=$1 ver=$2 file=$3
  mkdir -p "$tmp/$pkg" "$dest/$pkg-$ver"
  tar xzf "$tmp/$pkg-$ver.tgz" -C "$tmp/$pkg"
  cp "$tmp/$pkg/package/build/$file" "$dest/$pkg-$ver/"
  cp "$tmp/$pkg/package/LICENSE" "$dest/$pkg-$ver/LICENSE"
}

rm -rf "$dest"
copy vega "$VEGA" vega.min.js
copy vega-lite "$VEGA_LITE" vega-lite.min.js
copy vega-embed "$VEGA_EMBED" vega-embed.min.js

# docs/assets/tfperf.js names these folders (LIBS): change it with the versions.
# Source maps are not shipped; drop the comment that would make browsers ask for them.
sed -i '/^\/\/# sourceMappingURL=/d; s|//# sourceMappingURL=[^ ]*$||' "$dest"/*/*.js

cat > "$dest/VERSIONS" <<VERS
vega $VEGA
vega-lite $VEGA_LITE
vega-embed $VEGA_EMBED
(from the npm registry with scripts/vendor_js.sh; each folder carries the package's LICENSE)
VERS
echo "vendored into $dest:"
cat "$dest/VERSIONS"

# axe-core runs in the browser test only: it goes under tests/, never into the site.
mkdir -p "$tmp/axe-core" && tar xzf "$tmp/axe-core-$AXE.tgz" -C "$tmp/axe-core"
rm -rf "$root/tests/vendor/axe-core-"* && mkdir -p "$root/tests/vendor/axe-core-$AXE"
cp "$tmp/axe-core/package/axe.min.js" "$tmp/axe-core/package/LICENSE" "$root/tests/vendor/axe-core-$AXE/"
