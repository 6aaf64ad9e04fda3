#!/usr/bin/env bash
# The results pull request's checks: the tests workflow, dispatched on the results branch by the
# merge job, posts each job's outcome as a check run of the job's own name on the branch's head
# commit (POST /repos/OWNER/REPO/check-runs, `checks: write`). A dispatched run's own checks are
# not attached to the pull request, so without these a required status check would wait forever.
#
# Usage: scripts/ci/post-checks.sh "NAME=RESULT"...
#   NAME    the check's name: the job's name as its own check run shows it
#   RESULT  the job's result (needs.<job>.result): success, failure, cancelled or skipped
# Environment: GH_TOKEN, GH_REPO (OWNER/REPO), HEAD_SHA (the commit to check), RUN_URL (details link)
# Exit status 0 once every check is posted, whatever the jobs' results (a failed job has failed the
# run already); non-zero when an argument is wrong or gh cannot post.
# Here, with a fake gh on PATH: GH_REPO=o/r HEAD_SHA=abc scripts/ci/post-checks.sh "pytest=success"
set -euo pipefail
if [ $# -eq 0 ]; then
    echo "usage: $0 NAME=RESULT..." >&2
    exit 64
fi
repo="${GH_REPO:?set GH_REPO to OWNER/REPO}"
sha="${HEAD_SHA:?set HEAD_SHA to the commit the checks are for}"
if ! [[ "$sha" =~ ^[0-9a-f]{7,40}$ ]]; then
    echo "post-checks.sh: HEAD_SHA must be a commit SHA, not '$sha'" >&2
    exit 64
fi
for pair in "$@"; do
    name="${pair%=*}" result="${pair##*=}"
    case "$result" in
        success|failure|cancelled|skipped) conclusion="$result" ;;
        *) echo "post-checks.sh: '$pair': the result must be success, failure, cancelled or skipped" >&2; exit 64 ;;
    esac
    if [ -z "$name" ] || [ "$name" = "$pair" ]; then
        echo "post-checks.sh: '$pair' is not NAME=RESULT" >&2
        exit 64
    fi
    gh api --method POST "repos/$repo/check-runs" \
        -f name="$name" -f head_sha="$sha" -f status=completed -f conclusion="$conclusion" \
        -f details_url="${RUN_URL:-}" \
        -f "output[title]=$conclusion in the dispatched tests run" \
        -f "output[summary]=The tests workflow ran on this commit (dispatched by the benchmarks' merge job): ${RUN_URL:-}" \
        >/dev/null
    echo "post-checks.sh: $name: $conclusion on $sha"
done
