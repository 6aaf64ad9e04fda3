#!/usr/bin/env bash
# Post the comparison a pr-bench run left (its artifact, downloaded to DIR) on its pull request
# (pr-bench-comment.yml, on workflow_run: the default branch's code, with a token that may
# comment). The artifact was made by a pull request's code, so it is only data: its number must
# be digits and name a pull request whose head is the commit that run measured (HEAD_SHA, from
# the workflow_run event); the report is posted as a comment body, cut at 60 000 characters.
# Nothing from the artifact is executed or spliced into a command line.
#
# Usage: scripts/ci/pr-comment.sh DIR
# Environment: HEAD_SHA (github.event.workflow_run.head_sha), GH_TOKEN
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 64
fi
dir="$1"
want="${HEAD_SHA:?set HEAD_SHA to the commit the pr-bench run measured}"
if [ ! -f "$dir/number" ] || [ ! -f "$dir/report.md" ]; then
    echo "pr-comment.sh: $dir holds no number and report.md: nothing to post"
    exit 0
fi
number="$(head -c 16 "$dir/number" | tr -d '\n')"
if ! [[ "$number" =~ ^[1-9][0-9]{0,9}$ ]]; then
    echo "pr-comment.sh: the artifact names no pull request number: not posting" >&2
    exit 1
fi
head="$(gh pr view "$number" --json headRefOid | jq -r '.headRefOid // empty')"
if [ "$head" != "$want" ]; then
    echo "pr-comment.sh: pull request #$number is at ${head:-nothing}, the run measured $want: not posting" >&2
    exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
head -c 60000 "$dir/report.md" > "$tmp/body.md"
gh pr comment "$number" --body-file "$tmp/body.md"
echo "pr-comment.sh: posted the comparison on pull request #$number"
