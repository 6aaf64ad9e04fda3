#!/usr/bin/env bash
# After the merge: publish the merged results as the results pull request ($RESULTS_BRANCH
# into $BASE_BRANCH). The branch is built on $BASE_BRANCH as fetched now, not as checked out
# when the run began: a results pull request that landed while the runners measured is in
# it, and `tfperf merge` (a union of records) keeps it beside this run's results. The files
# of this repository's open results pull request are merged in too (never a fork's branch of
# the same name), and the push is a --force-with-lease on the branch as seen: if another run
# pushed meanwhile, or the base moved, everything is fetched and merged again (3 tries).
# Every results file is validated first. Files .gitignore excludes (quick-profile results)
# are never committed, so a quick run opens no pull request; its merged data is an artifact.
# The pull request's body is the regression report of each changed file against the base;
# cases slower by more than TFPERF_ISSUE_THRESHOLD (default 0.25), or failing now, get one
# issue per set of cases (scripts/ci/regression_issue.py): the next run that finds the same
# cases updates its body, a closed one stays closed, a different set opens its own. Last, the
# tests are dispatched on the branch (a PR made with GITHUB_TOKEN starts no workflow; a
# workflow_dispatch does), and that run posts its outcome as check runs on the branch's head
# commit, which the pull request shows and branch protection counts (tests.yml).
#
# Usage: scripts/ci/open-pr.sh
# Environment: RESULTS_BRANCH, BASE_BRANCH, GH_TOKEN, RUN_URL (link in the PR body), TFPERF_ISSUE_THRESHOLD,
#              GITHUB_REPOSITORY_OWNER (only a pull request whose head is this owner's counts)
#              TFPERF_REMOTE (default origin)
#              TFPERF_DRY_RUN=1: build the commit on the local $BASE_BRANCH, print it, stop
#              (no fetch, no push, no gh): for local runs.
set -euo pipefail
. "$(dirname "$0")/env.sh"
tfperf_env "test"
cd "$TFPERF_ROOT"
branch="${RESULTS_BRANCH:?set RESULTS_BRANCH}"
base="${BASE_BRANCH:?set BASE_BRANCH}"
remote="${TFPERF_REMOTE:-origin}"
dry="${TFPERF_DRY_RUN:-0}"

mapfile -t files < <(find data/results -name '*.json' -type f 2>/dev/null | LC_ALL=C sort)
if [ "${#files[@]}" -gt 0 ]; then
    tfperf validate --quiet "${files[@]}"
fi
# The files git would commit: tracked or untracked-but-not-ignored (no quick.json).
carry=()
while IFS= read -r f; do
    [ -f "$f" ] && carry+=("$TFPERF_ROOT/$f")
done < <(git ls-files --cached --others --exclude-standard -- data/results | grep '\.json$' | LC_ALL=C sort -u)
if [ "${#carry[@]}" -eq 0 ]; then
    echo "open-pr.sh: no committed results file changed: no pull request"
    exit 0
fi

# The checkout kept no token: fetch and push authenticate through gh (GH_TOKEN).
remote_git() { git -c credential.helper= -c 'credential.helper=!gh auth git-credential' "$@"; }
own_pr() {
    gh pr list --head "$branch" --base "$base" --state open \
        --json number,headRefName,isCrossRepository,headRepositoryOwner \
        | "$PY" scripts/ci/own_pr.py --branch "$branch" --owner "${GITHUB_REPOSITORY_OWNER:-}"
}

tmp="$(mktemp -d)"
wt="$tmp/worktree"
cleanup() {
    git worktree remove --force "$wt" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

pushed=""
for _try in 1 2 3; do
    if [ "$dry" = 1 ]; then
        base_sha="$(git rev-parse --verify "refs/heads/$base^{commit}")"
        lease="" pr=""
    else
        remote_git fetch --no-tags --quiet "$remote" "+refs/heads/$base:refs/tfperf/base"
        base_sha="$(git rev-parse refs/tfperf/base)"
        lease="$(remote_git ls-remote "$remote" "refs/heads/$branch" | cut -f1)"
        pr="$(own_pr)"
    fi
    inputs=("${carry[@]}")
    if [ -n "$pr" ] && [ -n "$lease" ]; then
        # The open pull request's files: an earlier run's results not yet in the base.
        remote_git fetch --no-tags --quiet "$remote" "+refs/heads/$branch:refs/tfperf/results"
        rm -rf "$tmp/pr" && mkdir -p "$tmp/pr"
        while IFS= read -r path; do
            case "$path" in data/results/*/*.json) ;; *) continue;; esac
            mkdir -p "$tmp/pr/$(dirname "$path")"
            git show "refs/tfperf/results:$path" > "$tmp/pr/$path"
            inputs+=("$tmp/pr/$path")
        done < <(git ls-tree -r --name-only refs/tfperf/results -- data/results)
    fi
    git worktree remove --force "$wt" >/dev/null 2>&1 || true
    git worktree add --quiet --detach "$wt" "$base_sha"
    echo "open-pr.sh: merging ${#inputs[@]} file(s) onto $base at $(git rev-parse --short "$base_sha")${pr:+ (with pull request #$pr)}"
    tfperf merge --data "$wt/data" "${inputs[@]}"
    git -C "$wt" add -- data/results
    if git -C "$wt" diff --cached --quiet; then
        echo "open-pr.sh: $base already holds every result: no pull request"
        exit 0
    fi
    git -C "$wt" diff --cached --stat
    git -C "$wt" -c user.name="github-actions[bot]" \
        -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
        commit --quiet -m "Benchmark results from ${RUN_URL:-a local run}"
    commit="$(git -C "$wt" rev-parse HEAD)"
    if [ "$dry" = 1 ]; then
        git update-ref "refs/tfperf/dry-run" "$commit"
        echo "open-pr.sh: dry run: committed $commit (refs/tfperf/dry-run) on $base; would push it to $branch and open a PR into $base"
        exit 0
    fi
    if remote_git push --quiet --force-with-lease="refs/heads/$branch:$lease" "$remote" "$commit:refs/heads/$branch"; then
        now="$(remote_git ls-remote "$remote" "refs/heads/$base" | cut -f1)"
        if [ "$now" = "$base_sha" ]; then
            pushed="$commit"
            break
        fi
        echo "open-pr.sh: $base moved while this run merged: building $branch again on the new $base"
    else
        echo "open-pr.sh: $branch changed while this run merged (another run?): fetching and merging again"
    fi
done
if [ -z "$pushed" ]; then
    echo "open-pr.sh: $branch could not be updated in 3 tries; re-run the merge job" >&2
    exit 1
fi
echo "open-pr.sh: pushed $(git rev-parse --short "$pushed") to $branch"

# The pull request's body: what the results change, case by case, against the base
# (scripts/regression_report.py on each changed file). Past TFPERF_ISSUE_THRESHOLD (default
# 25%) a case that got slower, or now fails, also opens an issue.
body="$tmp/body.md"
{
    echo "Results measured by ${RUN_URL:-the benchmarks workflow}, validated against the schema and merged"
    echo "(a union: nothing dropped) onto \`$base\` as it was when this run finished, with the results of"
    echo "the earlier open results pull request. Re-running the workflow updates this pull request."
    echo
} > "$body"
issue="$tmp/issue.md" ids="$tmp/issue-cases.txt"
: > "$issue"
: > "$ids"
while IFS= read -r path; do
    git show "$base_sha:$path" > "$tmp/old.json" 2>/dev/null || continue   # a new file: nothing to compare
    git show "$pushed:$path" > "$tmp/new.json"
    "$PY" scripts/regression_report.py --title "Changes in $path" "$tmp/old.json" "$tmp/new.json" >> "$body" 2>/dev/null \
        || echo "(no report for $path)" >> "$body"
    echo >> "$body"
    rc=0
    "$PY" scripts/regression_report.py --fail-on-slower --threshold "${TFPERF_ISSUE_THRESHOLD:-0.25}" --ids "$ids" \
        --title "Slower by more than $(awk "BEGIN {print ${TFPERF_ISSUE_THRESHOLD:-0.25} * 100}")% in $path" \
        "$tmp/old.json" "$tmp/new.json" > "$tmp/part.md" 2>/dev/null || rc=$?
    if [ "$rc" = 1 ]; then
        cat "$tmp/part.md" >> "$issue"
    fi
done < <(git diff --name-only "$base_sha" "$pushed" -- data/results)
head -c 60000 "$body" > "$body.cut"

open="$(own_pr)"
if [ -n "$open" ]; then
    gh pr edit "$open" --body-file "$body.cut" >/dev/null
    echo "open-pr.sh: updated pull request #$open"
else
    gh pr create --base "$base" --head "$branch" --title "Benchmark results ($(date -u +%Y-%m-%d))" \
        --body-file "$body.cut"
fi
if [ -s "$issue" ]; then
    key="$("$PY" scripts/ci/regression_issue.py key "$ids")"
    n_cases="$(LC_ALL=C sort -u "$ids" | grep -c .)"
    { echo "Run: ${RUN_URL:-a local run}; results pull request from \`$branch\`. Each run that finds these"
      echo "same cases updates this issue; other cases get an issue of their own."; echo; cat "$issue"; } \
        | head -c 60000 > "$issue.cut"
    action="$(gh issue list --state all --limit 200 --search "\"[cases $key]\" in:title" \
        --json number,title,state | "$PY" scripts/ci/regression_issue.py find "$key")"
    case "$action" in
        edit\ *)
            gh issue edit "${action#edit }" --body-file "$issue.cut" >/dev/null
            echo "open-pr.sh: updated issue #${action#edit } (cases $key)" ;;
        keep\ *)
            echo "open-pr.sh: issue #${action#keep } (cases $key) was closed: not opened again" ;;
        *)
            gh issue create --title "Benchmarks: $n_cases case(s) slower than before [cases $key]" \
                --body-file "$issue.cut" ;;
    esac
fi
# A pull request made with GITHUB_TOKEN starts no workflow; a dispatch does: run the tests
# (and the data guard) on the results branch, so the pull request shows real checks.
gh workflow run tests.yml --ref "$branch" || echo "open-pr.sh: could not start the tests on $branch" >&2
