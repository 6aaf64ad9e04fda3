#!/usr/bin/env bash
# Before merging, collect the results files of the open results pull request (branch
# $RESULTS_BRANCH), so that updating that pull request from a new run keeps what the
# earlier run measured. Nothing is collected when no such pull request is open (a
# merged one is already in data/; a closed one was declined).
#
# Usage: scripts/ci/pending.sh DEST_DIR
# Environment: RESULTS_BRANCH (e.g. tfperf/results-main), GH_TOKEN (for gh)
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 DEST_DIR" >&2
    exit 64
fi
dest="$1"
branch="${RESULTS_BRANCH:?set RESULTS_BRANCH to the branch of the results pull request}"
cd "$(dirname "$0")/../.."
open="$(gh pr list --head "$branch" --state open --json number --jq 'length')"
if [ "$open" = 0 ]; then
    echo "pending.sh: no open pull request from $branch: nothing to collect"
    exit 0
fi
# The checkout kept no token: authenticate this one fetch through gh (GH_TOKEN).
git -c credential.helper= -c 'credential.helper=!gh auth git-credential' \
    fetch --no-tags --depth=1 origin "refs/heads/$branch"
n=0
while IFS= read -r path; do
    case "$path" in data/results/*/*.json) ;; *) continue;; esac
    mkdir -p "$dest/$(dirname "$path")"
    git show "FETCH_HEAD:$path" > "$dest/$path"
    n=$((n + 1))
done < <(git ls-tree -r --name-only FETCH_HEAD -- data/results)
echo "pending.sh: collected $n results file(s) from $branch into $dest (merge.sh validates them like any artifact)"
