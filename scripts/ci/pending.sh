#!/usr/bin/env bash
# Before merging, collect the results files of this repository's open results pull request
# (branch $RESULTS_BRANCH), so that updating that pull request from a new run keeps what the
# earlier run measured. Nothing is collected when no such pull request is open (a merged one
# is already in the base branch; a closed one was declined), nor from a fork's pull request
# whose branch has the same name (gh pr list --head matches forks too: scripts/ci/own_pr.py).
# open-pr.sh looks again right before it pushes; this early copy puts them in the merge
# step's report and artifact.
#
# Usage: scripts/ci/pending.sh DEST_DIR
# Environment: RESULTS_BRANCH (e.g. tfperf/results-main), GH_TOKEN (for gh),
#              GITHUB_REPOSITORY_OWNER (set on runners: the head's owner must be this one)
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 DEST_DIR" >&2
    exit 64
fi
dest="$1"
branch="${RESULTS_BRANCH:?set RESULTS_BRANCH to the branch of the results pull request}"
. "$(dirname "$0")/env.sh"
tfperf_env "test"
cd "$TFPERF_ROOT"
remote="${TFPERF_REMOTE:-origin}"
open="$(gh pr list --head "$branch" --state open --json number,headRefName,isCrossRepository,headRepositoryOwner \
    | "$PY" scripts/ci/own_pr.py --branch "$branch" --owner "${GITHUB_REPOSITORY_OWNER:-}")"
if [ -z "$open" ]; then
    echo "pending.sh: no open pull request from this repository's $branch: nothing to collect"
    exit 0
fi
# The checkout kept no token: authenticate this one fetch through gh (GH_TOKEN).
if ! git -c credential.helper= -c 'credential.helper=!gh auth git-credential' \
    fetch --no-tags --depth=1 "$remote" "refs/heads/$branch"; then
    echo "pending.sh: pull request #$open is open but $branch cannot be fetched: nothing collected" >&2
    exit 0
fi
n=0
while IFS= read -r path; do
    case "$path" in data/results/*/*.json) ;; *) continue;; esac
    mkdir -p "$dest/$(dirname "$path")"
    git show "FETCH_HEAD:$path" > "$dest/$path"
    n=$((n + 1))
done < <(git ls-tree -r --name-only FETCH_HEAD -- data/results)
echo "pending.sh: collected $n results file(s) of pull request #$open ($branch) into $dest (merge.sh validates them like any artifact)"
