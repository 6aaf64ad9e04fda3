"""The GitHub Actions workflows and Dependabot config, checked offline: the GitHub workflow
JSON schema (vendored in check-jsonschema), SHA pinning, least privilege, triggers, runner
images (none retired), no self-hosted runner on pull requests, timeouts near the real cost,
uploads that survive a failed step, pip cache keys, the benchmark matrix, and that every
step is a script in scripts/ci that runs here too (the merge step is run for real on fake
artifacts; scripts/setup's hashing without sha256sum). No TensorFlow, no network.
The results pull request, the data guard and the regression report have their own files
(test_ci_results_pr.py, test_ci_data_guard.py, test_ci_regression.py)."""

from __future__ import annotations

import datetime as dt
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_DIR = ROOT / ".github" / "workflows"
DEPENDABOT = ROOT / ".github" / "dependabot.yml"
SCRIPTS = ROOT / "scripts" / "ci"
FIXTURE = ROOT / "tests" / "fixtures" / "results" / "valid.json"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))

# Each SHA was found in public workflow files of several unrelated repositories beside
# this version (code search of public GitHub files); see scripts/ci/README.md.
VERIFIED_PINS: dict[str, tuple[str, str]] = {
    "actions/checkout": ("08c6903cd8c0fde910a37f88322edcfb5dd907a8", "v5.0.0"),
    "actions/setup-python": ("e797f83bcb11b83ae66e0230d6156d7c80228e7c", "v6.0.0"),
    "actions/cache": ("9255dc7a253b0ccc959486e2bca901246202afeb", "v5.0.1"),
    "actions/upload-artifact": ("b7c566a772e6b6bfb58ed0dc250532a479d7789f", "v6.0.0"),
    "actions/download-artifact": ("37930b1c2abaa49bbe596cd826c3c89aef350131", "v7.0.0"),
    "actions/configure-pages": ("45bfe0192ca1faeb007ade9deae92b16b8254a0d", "v6.0.0"),
    "actions/upload-pages-artifact": ("fc324d3547104276b827a68afc52ff2a11cc49c9", "v5.0.0"),
    "actions/deploy-pages": ("cd2ce8fcbc39b97be8ca5fce6e763baed58fa128", "v5.0.0"),
}

# The first major of each action whose action.yml says `runs.using: node24` (runners dropped
# Node 20 on 2026-09-16; upload-pages-artifact is a composite whose v5 calls upload-artifact v7).
# The Pages backend stopped accepting upload-pages-artifact v3's artifacts on 2026-07-03.
FIRST_NODE24_MAJOR: dict[str, int] = {
    "actions/checkout": 5, "actions/setup-python": 6, "actions/cache": 5, "actions/upload-artifact": 6,
    "actions/download-artifact": 7, "actions/configure-pages": 6, "actions/upload-pages-artifact": 5,
    "actions/deploy-pages": 5,
}

# The only jobs that may hold a write permission, and which.
MERGE_WRITES = {"contents", "pull-requests", "actions", "issues"}   # push, PR, dispatch the tests, issue
ALLOWED_WRITES: dict[tuple[str, str], set[str]] = {
    ("merge-results.yml", "merge"): MERGE_WRITES,
    ("bench.yml", "merge"): MERGE_WRITES,       # the caller grants what merge-results needs
    ("bench-gpu.yml", "merge"): MERGE_WRITES,
    ("pages.yml", "deploy"): {"pages", "id-token"},
    ("pr-bench-comment.yml", "comment"): {"pull-requests"},   # workflow_run: the default branch's code
    ("tests.yml", "results-pr-checks"): {"checks"},          # the results PR's check runs (post-checks.sh)
    ("bench-gpu.yml", "runner-watchdog"): {"actions"},       # cancel a run no GPU runner took (gpu-watchdog.sh)
}

# GitHub-hosted runner images and the day each is (or was) retired; None: no date announced.
# A job may only name a listed image, and none retired or retiring within RETIREMENT_NOTICE.
# Sources: the actions/runner-images announcements (macos-14: deprecation from 2026-07-06,
# unsupported from 2026-11-02; ubuntu-22.04: unsupported from 2027-04-17; macos-15-intel:
# the last Intel image, until August 2027). Add a new image here when a workflow uses it.
RUNNER_IMAGES: dict[str, dt.date | None] = {
    "ubuntu-18.04": dt.date(2023, 4, 3),
    "ubuntu-20.04": dt.date(2025, 4, 15),
    "ubuntu-22.04": dt.date(2027, 4, 17),
    "ubuntu-22.04-arm": dt.date(2027, 4, 17),
    "ubuntu-24.04": None,
    "ubuntu-24.04-arm": None,
    "macos-10.15": dt.date(2022, 8, 30),
    "macos-11": dt.date(2024, 6, 28),
    "macos-12": dt.date(2024, 12, 3),
    "macos-13": dt.date(2025, 12, 4),
    "macos-14": dt.date(2026, 11, 2),
    "macos-15": None,
    "macos-15-intel": dt.date(2027, 8, 1),
    "macos-26": None,
    "windows-2019": dt.date(2025, 6, 30),
    "windows-2022": None,
    "windows-2025": None,
}
RETIREMENT_NOTICE = dt.timedelta(days=30)

# Jobs that measure (or run the suite), the most minutes they may take, and the step that
# must stop first. The full profile is about 35 min on 2 cores: a shard of 3 about 12.
JOB_MINUTES: dict[tuple[str, str], int] = {
    ("bench.yml", "bench"): 60,
    ("bench.yml", "selfcheck"): 30,
    ("bench.yml", "history"): 30,
    ("bench-gpu.yml", "bench-gpu"): 120,
    ("tests.yml", "smoke"): 30,
    ("tests.yml", "test"): 45,
    ("pr-bench.yml", "compare"): 45,
}
ANY_JOB_MINUTES = 60


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), f"{path}: not a mapping"
    return doc


def triggers(wf: dict[str, Any]) -> dict[str, Any]:
    """``on:`` (YAML 1.1 reads the bare key as True)."""
    on = wf.get("on", wf.get(True))
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {k: None for k in on}
    return dict(on or {})


def steps(wf: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, s) for name, job in wf["jobs"].items() for s in job.get("steps", [])]


def by_name(name: str) -> dict[str, Any]:
    return load(WORKFLOW_DIR / name)


def uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).startswith(f"{action}@")


def callers(name: str) -> list[tuple[str, str]]:
    """(workflow, job) pairs that call the reusable workflow ``name``."""
    return [(p.name, job_name) for p in WORKFLOWS for job_name, job in load(p)["jobs"].items()
            if job.get("uses") == f"./.github/workflows/{name}"]


def effective_triggers(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """The events that can start the jobs of ``name``: its own, and for a reusable
    workflow those of every workflow that calls it."""
    own = set(triggers(by_name(name)))
    if "workflow_call" in own and name not in seen:
        own.discard("workflow_call")
        for caller, _ in callers(name):
            own |= effective_triggers(caller, seen | {name})
    return own


def test_the_workflows_exist() -> None:
    assert {p.name for p in WORKFLOWS} >= {"tests.yml", "bench.yml", "bench-gpu.yml", "merge-results.yml",
                                           "pages.yml"}


# ---------------------------------------------------------------- schema, offline

def _check_jsonschema() -> str:
    exe = Path(sys.executable).with_name("check-jsonschema")
    found = str(exe) if exe.exists() else shutil.which("check-jsonschema")
    assert found, "check-jsonschema is not installed (it is in the test extra)"
    return found


def _offline_env() -> dict[str, str]:
    """Any HTTP(S) request would go to a closed local port and fail."""
    dead = "http://127.0.0.1:9"
    return {**os.environ, "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead,
            "NO_PROXY": "", "no_proxy": ""}


def _no_network_prefix() -> list[str]:
    """Run in a network namespace with no interface where the machine allows it."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], check=False, capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def check_schema(*paths: Path, schema: str = "vendor.github-workflows") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_no_network_prefix(), _check_jsonschema(), "--builtin-schema", schema,
                           *map(str, paths)], check=False, capture_output=True, text=True, env=_offline_env(), timeout=120)


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_workflow_matches_the_github_workflow_schema(path: Path) -> None:
    out = check_schema(path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("name: x\non: push\njobs:\n  a:\n    runs_on: ubuntu-24.04\n    steps:\n      - run: true\n",
                      encoding="utf-8")
    out = check_schema(broken)
    assert out.returncode != 0 and "broken.yml" in out.stdout + out.stderr


def test_dependabot_config_matches_its_schema_and_covers_actions_and_pip() -> None:
    out = check_schema(DEPENDABOT, schema="vendor.dependabot")
    assert out.returncode == 0, out.stdout + out.stderr
    updates = {u["package-ecosystem"]: u for u in load(DEPENDABOT)["updates"]}
    assert set(updates) >= {"github-actions", "pip"}
    assert updates["github-actions"]["directory"] == "/" and updates["pip"]["directory"] == "/"
    assert (ROOT / "pyproject.toml").is_file(), "Dependabot's pip updater reads pyproject.toml at the root"
    for eco, update in updates.items():
        assert update.get("cooldown", {}).get("default-days", 0) >= 7, f"{eco}: a release proposed on its first day"


# ---------------------------------------------------------------- pinning

USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
PINNED = re.compile(r"^(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})$")
VERSION_COMMENT = re.compile(r"^\s+#\s*(?P<version>v\d+(?:\.\d+){0,2})\s*$")


def pin_problems(text: str, where: str) -> list[str]:
    """Every ``uses:`` must name owner/repo@<40-hex SHA> with ``# vX.Y.Z`` after it, and
    be one of the pins verified above."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        m = USES_LINE.match(line)
        if not m:
            continue
        ref, rest = m["ref"].strip("'\""), m["rest"]
        if ref.startswith("./"):
            continue  # a local action or reusable workflow: pinned by this commit
        p, v = PINNED.match(ref), VERSION_COMMENT.match(rest)
        if not p:
            problems.append(f"{where}:{n}: {ref} is not pinned to a full commit SHA")
            continue
        if not v:
            problems.append(f"{where}:{n}: {ref} has no '# vX.Y.Z' version comment")
            continue
        # An action in a folder of a repository (actions/cache/restore) is pinned by the repository's commit.
        known = VERIFIED_PINS.get("/".join(p["action"].split("/")[:2]))
        if known != (p["sha"], v["version"]):
            problems.append(f"{where}:{n}: {p['action']}@{p['sha']} # {v['version']} is not a verified pin "
                            f"(verified: {known})")
    return problems


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_action_is_pinned_by_sha_with_its_version(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert pin_problems(text, path.name) == []
    # The line scan saw every `uses:` the YAML holds (none hidden in flow style).
    wf = load(path)
    parsed = [s["uses"] for _, s in steps(wf) if "uses" in s]
    parsed += [j["uses"] for j in wf["jobs"].values() if "uses" in j]
    assert len(parsed) == sum(1 for line in text.splitlines() if USES_LINE.match(line))


@pytest.mark.parametrize("line,problem", [
    ("- uses: actions/checkout@v4", "not pinned"),
    ("- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "version comment"),
    ("- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af68", "not pinned"),
    ("- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.1.0", "not a verified pin"),
    ("- uses: evil/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2", "not a verified pin"),
])
def test_pin_check_can_fail(line: str, problem: str) -> None:
    problems = pin_problems(line, "x.yml")
    assert len(problems) == 1 and problem in problems[0]


def test_verified_pins_are_full_shas() -> None:
    for action, (sha, version) in VERIFIED_PINS.items():
        assert re.fullmatch(r"[0-9a-f]{40}", sha) and re.fullmatch(r"v\d+\.\d+\.\d+", version), action


def test_every_pinned_action_runs_on_node_24() -> None:
    """Runners no longer have Node 20: a JavaScript action of an older major does not start."""
    for action, (_, version) in VERIFIED_PINS.items():
        assert int(version[1:].split(".")[0]) >= FIRST_NODE24_MAJOR[action], f"{action} {version} runs on Node 20"


# ---------------------------------------------------------------- least privilege

@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_permissions_are_least_privilege_per_job(path: Path) -> None:
    wf = load(path)
    assert wf.get("permissions") in ({}, {"contents": "read"}), f"{path.name}: top-level permissions must be {{}}"
    for name, job in wf["jobs"].items():
        perms = job.get("permissions")
        assert isinstance(perms, dict), f"{path.name}: job {name} has no permissions: mapping"
        writes = {k for k, v in perms.items() if v == "write"}
        assert writes <= ALLOWED_WRITES.get((path.name, name), set()), f"{path.name}: job {name} writes {writes}"
        assert all(v in ("read", "write", "none") for v in perms.values())
        # A job's token has only what it names: a checkout needs contents (a private repository's
        # fails without it), configure-pages reads the Pages site (pages).
        if any(uses(s, "actions/checkout") for s in job.get("steps", [])):
            assert perms.get("contents") in ("read", "write"), f"{path.name}: job {name} checks out without contents"
        if any(uses(s, "actions/configure-pages") for s in job.get("steps", [])):
            assert perms.get("pages") in ("read", "write"), f"{path.name}: job {name}: configure-pages needs pages: read"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_no_pull_request_target_and_no_expression_in_run(path: Path) -> None:
    wf = load(path)
    assert "pull_request_target" not in triggers(wf)
    assert "pull_request_target" not in path.read_text(encoding="utf-8")
    for job, s in steps(wf):
        # Values reach scripts through env:, never spliced into the shell text.
        assert "${{" not in s.get("run", ""), f"{path.name}: job {job} splices an expression into run:"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_checkout_keeps_no_token(path: Path) -> None:
    """No token left in .git/config for later steps (or an artifact) to pick up; the merge
    job's push and fetch authenticate through gh with GH_TOKEN given to those steps only."""
    for job, s in steps(load(path)):
        if uses(s, "actions/checkout"):
            assert s.get("with", {}).get("persist-credentials") is False, f"{path.name}: job {job}"


# ---------------------------------------------------------------- runners: current images, no self-hosted on PRs

MATRIX_REF = re.compile(r"^\$\{\{\s*matrix\.(?P<path>[\w.-]+)\s*\}\}$")


def _matrix_values(matrix: dict[str, Any], path: str) -> list[Any]:
    """Every value ``matrix.<path>`` takes (rows and ``include`` entries)."""
    head, *rest = path.split(".")
    rows = list(matrix.get(head, [])) + [inc[head] for inc in matrix.get("include", []) if head in inc]
    for key in rest:
        rows = [r.get(key) if isinstance(r, dict) else None for r in rows]
    return rows


def runs_on(job: dict[str, Any]) -> list[list[str]]:
    """Each label set the job may run on (a matrix job: one per value). A label that is an
    expression this test cannot resolve stays as it is written."""
    ro = job.get("runs-on")
    if ro is None:
        return []            # a job that calls a reusable workflow: its jobs are checked in that file
    if isinstance(ro, dict):
        ro = list(ro.get("labels", [])) + ["(runner group)"] if ro.get("group") else ro.get("labels", [])
    labels = [ro] if isinstance(ro, str) else list(ro)
    out: list[list[str]] = [[]]
    for label in labels:
        m = MATRIX_REF.match(str(label))
        values = _matrix_values(job.get("strategy", {}).get("matrix", {}), m["path"]) if m else [label]
        out = [prefix + ([str(x) for x in v] if isinstance(v, list) else [str(v)])
               for prefix in out for v in values]
    return out


def runner_problems(name: str, wf: dict[str, Any], today: dt.date, events: set[str]) -> list[str]:
    problems = []
    on_prs = events & {"pull_request", "pull_request_target"}
    for job_name, job in wf["jobs"].items():
        for labels in runs_on(job):
            hosted = len(labels) == 1 and labels[0] in RUNNER_IMAGES
            if on_prs and not hosted:
                problems.append(f"{name}: job {job_name} may run on a self-hosted runner ({labels}) and the "
                                f"workflow runs on {', '.join(sorted(on_prs))}")
            if len(labels) == 1 and not hosted and "${{" not in labels[0]:
                problems.append(f"{name}: job {job_name}: {labels[0]} is not a known runner image "
                                f"(a '-latest' label moves under the results; add new images to RUNNER_IMAGES)")
            retired = RUNNER_IMAGES.get(labels[0]) if hosted else None
            if retired is not None and retired <= today + RETIREMENT_NOTICE:
                problems.append(f"{name}: job {job_name}: {labels[0]} is retired on {retired.isoformat()}")
    return problems


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_runner_images_are_current_and_no_pull_request_reaches_a_self_hosted_runner(path: Path) -> None:
    assert runner_problems(path.name, load(path), dt.date.today(), effective_triggers(path.name)) == []


@pytest.mark.parametrize("text,events,problem", [
    ("jobs: {a: {runs-on: macos-14}}", {"push"}, "retired on 2026-11-02"),
    ("jobs: {a: {runs-on: macos-latest}}", {"push"}, "not a known runner image"),
    ("jobs: {a: {runs-on: [self-hosted, gpu]}}", {"pull_request"}, "self-hosted"),
    ("jobs: {a: {runs-on: '${{ vars.RUNNER }}'}}", {"pull_request_target"}, "self-hosted"),
    ("jobs: {a: {runs-on: '${{ matrix.os }}', strategy: {matrix: {os: [ubuntu-24.04, macos-13]}}}}", {"push"},
     "macos-13 is retired"),
    (("jobs: {a: {runs-on: '${{ matrix.p.os }}', strategy: {matrix: {p: [{os: ubuntu-24.04}], include: "
     "[{p: {os: [self-hosted, x]}}]}}}}"), {"pull_request"}, "self-hosted"),
])
def test_runner_check_can_fail(text: str, events: set[str], problem: str) -> None:
    problems = runner_problems("x.yml", yaml.safe_load(text), dt.date(2026, 11, 23), events)
    assert problems and problem in problems[0], problems


def test_a_retirement_within_the_notice_is_reported_ahead() -> None:
    wf = {"jobs": {"a": {"runs-on": "ubuntu-22.04"}}}
    assert runner_problems("x.yml", wf, dt.date(2026, 11, 23), {"push"}) == []
    assert runner_problems("x.yml", wf, dt.date(2027, 3, 30), {"push"}), "no warning a month ahead"


def test_self_hosted_jobs_run_only_on_main_by_schedule_or_dispatch() -> None:
    for path in WORKFLOWS:
        wf = load(path)
        for job_name, job in wf["jobs"].items():
            if any(labels and labels[0] == "self-hosted" for labels in runs_on(job)):
                assert effective_triggers(path.name) <= {"schedule", "workflow_dispatch"}, (path.name, job_name)
                assert "github.ref == 'refs/heads/main'" in job.get("if", ""), (path.name, job_name)


def _self_hosted_jobs() -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(workflow, job name, job, workflow) of every job that may run on a self-hosted runner."""
    return [(path.name, name, job, wf) for path in WORKFLOWS for wf in [load(path)]
            for name, job in wf["jobs"].items()
            if any(labels and labels[0] == "self-hosted" for labels in runs_on(job))]


LOCKING_SCRIPTS = ("bench.sh", "selfcheck.sh", "test.sh")   # what measures or runs the tests


def test_a_self_hosted_machine_runs_one_measuring_or_test_job_at_a_time() -> None:
    """GitHub's side: every job that may land on the self-hosted machine is in one job-level
    concurrency group named after the runner's label (its workflow's group orders only its own
    runs). The machine's side: the job sets TFPERF_MACHINE_LOCK, and each of its steps is a
    script that takes that lock before anything else (a second runner instance on the machine,
    or a job of another group, then waits)."""
    jobs = _self_hosted_jobs()
    assert jobs, "no self-hosted job found (the GPU job moved?)"
    for workflow, name, job, wf in jobs:
        where = f"{workflow}: job {name}"
        label = job["runs-on"][1]
        assert job.get("concurrency", {}).get("group") == "selfhosted-" + label, where
        assert job["concurrency"].get("cancel-in-progress") is False, f"{where}: a measurement is never cut short"
        assert job["concurrency"].get("queue") == "max", f"{where}: a job queued behind another replaces a third"
        env = {**wf.get("env", {}), **job.get("env", {})}
        assert env.get("TFPERF_MACHINE_LOCK"), f"{where}: no TFPERF_MACHINE_LOCK"
        for s in job["steps"]:
            if "run" in s:
                m = RUN_LINE.match(s["run"].strip())
                assert m and m["script"] in LOCKING_SCRIPTS, f"{where}: {s['run']!r} does not take the machine lock"


@pytest.mark.parametrize("workflow", ["bench.yml", "bench-gpu.yml"])
def test_benchmark_runs_queue_and_are_never_cancelled(workflow: str) -> None:
    """A benchmark run is never cut short by the next one, and none waiting is dropped: with the
    default queue of one, a push queued behind the weekly run cancels the weekly run waiting
    after it (GitHub keeps one pending run per group unless queue: max)."""
    group = by_name(workflow)["concurrency"]
    assert group["cancel-in-progress"] is False and group.get("queue") == "max", group


@pytest.mark.parametrize("script", LOCKING_SCRIPTS)
def test_measuring_and_test_scripts_take_the_machine_lock_before_installing(script: str) -> None:
    text = (SCRIPTS / script).read_text(encoding="utf-8")
    lock = text.find("\ntfperf_machine_lock\n")
    assert '. "$(dirname "$0")/machine-lock.sh"' in text and lock > 0, f"{script} does not take the machine lock"
    assert lock < text.find("\ntfperf_env "), f"{script} installs (tfperf_env) before it holds the machine lock"


def test_hosted_results_labels_name_the_runner_image() -> None:
    """A new image is a new runner: results of macos-15 are not filed under macos-14's label."""
    for job in ("bench", "selfcheck"):
        for p in by_name("bench.yml")["jobs"][job]["strategy"]["matrix"]["platform"]:
            image = re.sub(r"[^a-z0-9]", "", p["os"].split("-arm")[0].split(".")[0])
            assert image in p["runner"].replace("-", ""), p


# ---------------------------------------------------------------- timeouts near the real cost

def step_minutes(job: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(s.get("run", ""), s.get("timeout-minutes")) for s in job.get("steps", []) if "run" in s]


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_concurrency_group_and_timeouts(path: Path) -> None:
    wf = load(path)
    if set(triggers(wf)) != {"workflow_call"}:   # a called workflow runs inside its caller's group
        assert wf.get("concurrency", {}).get("group"), f"{path.name}: no concurrency group"
    for name, job in wf["jobs"].items():
        if "uses" in job:
            continue                              # the called workflow's jobs carry the limits
        limit = job.get("timeout-minutes")
        assert isinstance(limit, int), f"{path.name}: job {name} has no timeout"
        assert limit <= JOB_MINUTES.get((path.name, name), ANY_JOB_MINUTES), \
            f"{path.name}: job {name} may hold a runner {limit} minutes, far above what it costs"
        for run, minutes in step_minutes(job):
            if minutes is not None:
                assert isinstance(minutes, int) and minutes < limit, f"{path.name}: {name}: {run}"


@pytest.mark.parametrize("workflow,job", sorted(JOB_MINUTES))
def test_measuring_steps_stop_before_their_job_so_the_upload_runs(workflow: str, job: str) -> None:
    j = by_name(workflow)["jobs"][job]
    timed = [(run, m) for run, m in step_minutes(j) if re.search(r"(bench|selfcheck|smoke|test|compare-pr)\.sh", run)]
    assert timed, f"{workflow}: {job} has no measuring step"
    for run, minutes in timed:
        assert isinstance(minutes, int) and minutes <= j["timeout-minutes"] - 5, f"{workflow}: {job}: {run}"


# ---------------------------------------------------------------- uploads and caches

@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_uploads_run_always_and_overwrite(path: Path) -> None:
    """An artifact is uploaded after a failed or timed-out step too (the harness saved every
    finished scenario), and a re-run of the job replaces it instead of failing on the name."""
    for job, s in steps(load(path)):
        if uses(s, "actions/upload-artifact"):
            assert s.get("if") == "${{ always() }}", f"{path.name}: job {job}: {s.get('name')}"
            assert s["with"].get("overwrite") is True, f"{path.name}: job {job}: {s.get('name')}"


EXTRAS_IN_SCRIPT = re.compile(r'^\s*tfperf_env "(?P<extras>[^"]+)"', re.MULTILINE)


def script_extras(run: str) -> str | None:
    """The extras a scripts/ci step installs ("$TFPERF_EXTRAS" when it reads the variable);
    None for a script that installs nothing."""
    m = RUN_LINE.match(run.strip())
    if not m:
        return None
    found = EXTRAS_IN_SCRIPT.findall((SCRIPTS / m["script"]).read_text(encoding="utf-8"))
    if m["script"] == "smoke.sh":   # bench.sh's extras
        found += EXTRAS_IN_SCRIPT.findall((SCRIPTS / "bench.sh").read_text(encoding="utf-8"))
    values = {"$TFPERF_EXTRAS" if e.startswith("${TFPERF_EXTRAS") else e for e in found}
    assert len(values) <= 1, f"{m['script']} installs two sets of extras: {values}"
    return values.pop() if values else None


CACHE_KEY = ("pip-${{ runner.os }}-${{ runner.arch }}-py${{ env.PYTHON_VERSION }}-${{ env.TFPERF_LOCK }}-"
             "${{ hashFiles(env.TFPERF_LOCK) }}")
# The runner's os and arch (runner.os, runner.arch) of each hosted image a cache step runs on.
IMAGE_PLATFORM = {"ubuntu-24.04": ("Linux", "X64"), "ubuntu-24.04-arm": ("Linux", "ARM64"),
                  "macos-15": ("macOS", "ARM64"), "windows-2025": ("Windows", "X64")}


def _cache_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job.get("steps", []) if uses(s, "actions/cache") or uses(s, "actions/cache/restore")]


def render_key(template: str, env: dict[str, str], image: str, matrix: dict[str, Any] | None = None) -> str:
    """A cache key as the runner computes it on ``image``: the expressions the workflows use."""
    os_, arch = IMAGE_PLATFORM[image]

    def one(m: re.Match[str]) -> str:
        expr = m[1].strip()
        if expr == "runner.os":
            return os_
        if expr == "runner.arch":
            return arch
        if expr.startswith("env."):
            return str(env[expr[4:]])
        if expr.startswith("matrix."):
            return str((matrix or {})[expr[7:]])
        h = re.fullmatch(r"hashFiles\((.*)\)", expr)
        assert h, f"no rendering for {expr}"
        args = [a.strip() for a in h[1].split(",")]
        files = sorted({f for a in args
                        for f in ROOT.glob(env[a[4:]] if a.startswith("env.") else a.strip("'\""))})
        assert files, f"hashFiles({h[1]}) matches no file"
        return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
    return re.sub(r"\$\{\{(.*?)\}\}", one, template)


def cache_keys(workflows: dict[str, dict[str, Any]], template: str | None = None) -> dict[str, set[str]]:
    """Every pip cache key the workflows' jobs compute (on each image they run on), with the
    locks the jobs that use it install; ``template`` replaces each step's own key."""
    keys: dict[str, set[str]] = {}
    for wf in workflows.values():
        for job in wf["jobs"].values():
            env = {**wf.get("env", {}), **job.get("env", {})}
            matrix = job.get("strategy", {}).get("matrix", {})
            for c in _cache_steps(job):
                for labels in runs_on(job):
                    for tf in matrix.get("tf", [None]):
                        key = render_key(template or c["with"]["key"], env, labels[0], {"tf": tf})
                        keys.setdefault(key, set()).add(env.get("TFPERF_LOCK", "(none)"))
    return keys


def test_each_lock_has_its_own_pip_cache_key_and_each_key_one_lock() -> None:
    """Jobs that install different locks never share a cache (the merge job's lock and the data
    job's test lock had one key, both being the test extra), and no job saves a cache that is
    not its lock's: the history jobs, which add a TensorFlow release each, only restore."""
    workflows = {p.name: load(p) for p in WORKFLOWS}
    keys = cache_keys(workflows)
    assert keys and all(len(locks) == 1 for locks in keys.values()), keys
    for name, wf in workflows.items():
        for job_name, job in wf["jobs"].items():
            for c in _cache_steps(job):
                assert c["with"]["key"] == CACHE_KEY, f"{name}: job {job_name}: {c['with']['key']}"
                assert c["with"]["restore-keys"] == CACHE_KEY.split("${{ hashFiles")[0], f"{name}: job {job_name}"
                assert c["with"]["path"] == "${{ env.PIP_CACHE_DIR }}", f"{name}: job {job_name}"
    history = [s for s in workflows["bench.yml"]["jobs"]["history"]["steps"] if "cache" in s.get("uses", "")]
    assert len(history) == 1 and uses(history[0], "actions/cache/restore"), "history jobs must not save caches"


def test_the_cache_key_check_can_fail() -> None:
    """The key the jobs used before (the extras, not the lock) gives the data job and the merge
    job, two locks, one key."""
    old = ("pip-${{ runner.os }}-${{ runner.arch }}-py${{ env.PYTHON_VERSION }}-${{ env.TFPERF_EXTRAS }}-"
           "${{ hashFiles('pyproject.toml', 'scripts/ci/*-requirements.txt') }}")
    workflows = {p.name: load(p) for p in WORKFLOWS}
    shared = [locks for locks in cache_keys(workflows, old).values() if len(locks) > 1]
    assert {"scripts/ci/test-requirements.txt", "scripts/ci/merge-requirements.txt"} in shared


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_jobs_that_install_restore_a_pip_cache(path: Path) -> None:
    wf = load(path)
    for name, job in wf["jobs"].items():
        job_steps = job.get("steps", [])
        for s in job_steps:
            if uses(s, "actions/setup-python"):
                # setup-python's own pip cache keys on the file's hash only, not the lock.
                assert "cache" not in s.get("with", {}), f"{path.name}: job {name}: use actions/cache"
                assert s["with"]["python-version"] == "${{ env.PYTHON_VERSION }}", f"{path.name}: job {name}"
        env = {**wf.get("env", {}), **job.get("env", {})}
        if _cache_steps(job):
            assert env.get("PIP_CACHE_DIR") and env.get("TFPERF_LOCK"), f"{path.name}: job {name}"
        installs = {script_extras(s["run"]) for s in job_steps if "run" in s} - {None}
        if not installs:
            continue
        runs_hosted = all(len(labels) == 1 and labels[0] in RUNNER_IMAGES for labels in runs_on(job))
        assert _cache_steps(job) or not runs_hosted, f"{path.name}: job {name} installs with no pip cache"
        # The job's scripts install its extras, from the lock TFPERF_LOCK names.
        assert env.get("TFPERF_EXTRAS"), f"{path.name}: job {name} names no TFPERF_EXTRAS"
        assert installs <= {env["TFPERF_EXTRAS"], "$TFPERF_EXTRAS"}, f"{path.name}: job {name}: {installs}"


# ---------------------------------------------------------------- every step is a script

RUN_LINE = re.compile(r"^scripts/ci/(?P<script>[\w-]+\.sh)(?:\s|$)")


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_run_step_is_one_script_in_scripts_ci(path: Path) -> None:
    for job, s in steps(load(path)):
        if "run" not in s:
            continue
        run = s["run"].strip()
        assert "\n" not in run, f"{path.name}: job {job}: a run: step is one script call"
        m = RUN_LINE.match(run)
        assert m, f"{path.name}: job {job}: {run!r} does not call scripts/ci/*.sh"
        script = SCRIPTS / m["script"]
        assert script.is_file() and os.access(script, os.X_OK), f"{script} missing or not executable"


SOURCED = "# shellcheck shell=bash\n"   # the first line of a file the scripts source (env.sh, machine-lock.sh)


def test_scripts_parse_as_bash() -> None:
    bash = shutil.which("bash")
    assert bash
    for script in sorted(SCRIPTS.glob("*.sh")):
        out = subprocess.run([bash, "-n", str(script)], check=False, capture_output=True, text=True)
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
        if not script.read_text(encoding="utf-8").startswith(SOURCED):
            assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n"), script.name
            assert "set -euo pipefail" in script.read_text(encoding="utf-8"), script.name


# ---------------------------------------------------------------- line endings on a Windows checkout

def eol_problems(repo: Path, paths: list[str]) -> list[str]:
    """The paths git would not check out with LF line endings under core.autocrlf=true (Git for
    Windows' default, which actions/checkout keeps on a Windows runner)."""
    out = subprocess.run(["git", "-C", str(repo), "check-attr", "eol", "--", *paths], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return [line.split(": eol: ")[0] for line in out.splitlines() if not line.endswith(": eol: lf")]


def _checked_out_by_bash_or_hashed() -> list[str]:
    """What bash runs (a CR stops it) and what a result's key hashes (a snippet's bytes)."""
    files = [*SCRIPTS.glob("*.sh"), *(ROOT / "scripts").glob("*"), *(ROOT / "snippets").glob("*")]
    return sorted(str(f.relative_to(ROOT)) for f in files if f.is_file() and f.suffix not in (".pyc",))


def test_scripts_and_snippets_keep_lf_line_endings_on_windows() -> None:
    if not shutil.which("git") or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    assert eol_problems(ROOT, _checked_out_by_bash_or_hashed()) == []


def test_line_ending_check_can_fail(tmp_path: Path) -> None:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    (tmp_path / "run.sh").write_text("#!/usr/bin/env bash\n", encoding="utf-8")
    assert eol_problems(tmp_path, ["run.sh"]) == ["run.sh"]
    shutil.copy2(ROOT / ".gitattributes", tmp_path / ".gitattributes")
    assert eol_problems(tmp_path, ["run.sh"]) == []


# ---------------------------------------------------------------- scripts/setup without sha256sum

def _setup_hash_snippet() -> str:
    """scripts/setup's hashing function and the line that uses it, nothing else (no venv,
    no pip)."""
    text = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    func = re.search(r"^sha256_hex\(\) \{\n.*?^\}\n", text, re.MULTILINE | re.DOTALL)
    want = re.search(r"^want=.*$", text, re.MULTILINE)
    assert func and want, "scripts/setup has no sha256_hex function or want= line"
    assert "sha256_hex" in want[0] and "sha256sum" not in want[0]
    return func[0] + want[0] + '\necho "$want"\n'


def _path_with(tmp_path: Path, *tools: str) -> str:
    """A PATH holding only ``tools`` (links to this machine's), so sha256sum can be missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in tools:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed here")
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


@pytest.mark.parametrize("tools", [("sha256sum", "cut"), ("shasum", "cut"), ("cut",)],
                         ids=["sha256sum", "shasum-only (macOS)", "neither (python hashlib)"])
def test_setup_hashes_pyproject_without_sha256sum(tmp_path: Path, tools: tuple[str, ...]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    expected = hashlib.sha256((project / "pyproject.toml").read_bytes()).hexdigest()[:16] + " tf,test"
    if "shasum" in tools and not shutil.which("perl"):
        pytest.skip("shasum needs perl")
    path = _path_with(tmp_path, *tools)   # shasum starts perl by its absolute path
    if "sha256sum" not in tools:
        assert not shutil.which("sha256sum", path=path), "sha256sum is still reachable"
    out = subprocess.run([shutil.which("bash") or "bash", "-c", _setup_hash_snippet()], check=False, capture_output=True,
                         text=True, timeout=60, cwd=project,
                         env={"PATH": path, "EXTRAS": "tf,test", "PYTHON": sys.executable})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


# ---------------------------------------------------------------- what each workflow does

def test_tests_run_on_push_pull_request_and_dispatch() -> None:
    wf = by_name("tests.yml")
    assert set(triggers(wf)) == {"push", "pull_request", "workflow_dispatch"}
    # Pushes to main only: a branch of this repository is tested through its pull request,
    # not twice (push and pull_request).
    assert triggers(wf)["push"] == {"branches": ["main"]}
    assert "gh workflow run tests.yml --ref" in (SCRIPTS / "open-pr.sh").read_text(encoding="utf-8"), \
        "the results pull request gets no checks"
    runs = [s["run"] for _, s in steps(wf) if "run" in s]
    assert any(r.startswith("scripts/ci/test.sh") for r in runs)
    assert any(r.startswith("scripts/ci/validate-data.sh") for r in runs), "contributed results are not validated"


def test_a_pull_request_is_checked_for_removed_results() -> None:
    job = by_name("tests.yml")["jobs"]["data"]
    checkout = next(s for s in job["steps"] if uses(s, "actions/checkout"))
    assert checkout["with"]["fetch-depth"] >= 2, "check-data-pr.sh compares HEAD with HEAD^1"
    guard = next(s for s in job["steps"] if s.get("run", "").startswith("scripts/ci/check-data-pr.sh"))
    assert guard["if"].startswith("${{ github.event_name == 'pull_request' || ")
    assert "startsWith(github.ref_name, 'tfperf/results-')" in guard["if"]
    assert set(guard["env"]) == {"PR_AUTHOR", "PR_HEAD_REPO", "PR_HEAD_REF"}
    assert guard["env"]["PR_AUTHOR"].endswith("|| github.actor }}"), "a dispatch by the bot is the bot's"


def test_pull_requests_get_a_quick_profile_smoke_run_per_os() -> None:
    job = by_name("tests.yml")["jobs"]["smoke"]
    assert job["if"].startswith("${{ github.event_name == 'pull_request' && ")
    oses = job["strategy"]["matrix"]["os"]
    for platform in ("ubuntu-", "macos-", "windows-"):
        assert [o for o in oses if o.startswith(platform)], f"no {platform}* cell in the smoke matrix"
    assert job["strategy"]["fail-fast"] is False, "one platform's failure must not cancel the others"
    # Every run: line is bash (scripts/ci/*.sh): Git Bash on Windows, whose default is PowerShell.
    assert job["defaults"]["run"]["shell"] == "bash"
    assert [s["run"] for s in job["steps"] if "run" in s] == ['scripts/ci/smoke.sh "$SMOKE_RUNNER"']
    assert "quick 1/1" in (SCRIPTS / "smoke.sh").read_text(encoding="utf-8")


# What keeps the harness from measuring on Windows (scripts/ci/README.md, "Windows"): code in
# bench/ that only POSIX systems run. While one of these is in its file with no Windows branch
# beside it, the Windows smoke cell is experimental (it reports, the run stays green).
WINDOWS_BLOCKERS: tuple[tuple[str, str, str], ...] = (
    ("bench/tfperf/measure/supervise/pool.py", r"pass_fds",
     "the worker's message pipe is handed over with pass_fds (subprocess: 'pass_fds not supported on Windows')"),
    ("bench/tfperf/measure/supervise/pool.py", r"selectors\.DefaultSelector\(\)",
     "the parent waits on that pipe with select(), which takes only sockets on Windows"),
    ("bench/tfperf/measure/supervise/pool.py", r"os\.killpg\(",
     "a hung worker is killed with os.killpg, which Windows does not have (AttributeError)"),
    ("bench/tfperf/measure/worker/serve.py", r"os\.fdopen\(fd",
     "the worker writes to the inherited descriptor number, which means nothing in a Windows child"),
    ("bench/tfperf/store/lock.py", r"fcntl\.flock",
     "the results file's lock is fcntl.flock, and without fcntl no lock at all"),
    ("bench/tfperf/store/claims.py", r"fcntl\.lockf",
     "the scenario claims are fcntl.lockf, and without fcntl no claims at all"),
)
WINDOWS_BRANCH = re.compile(r"os\.name\s*==\s*[\"']nt[\"']|sys\.platform\s*==\s*[\"']win32[\"']|\bmsvcrt\b")
# Once nothing blocks it, the Windows cell still stays experimental until a maintainer has seen
# it green on a pull request: the comment on the cell says so with these words, and
# scripts/ci/README.md says what to check on that first run. Dropping `experimental` drops them.
WINDOWS_UNPROVEN = "not seen green yet"


def windows_blockers(read: Any = lambda f: (ROOT / f).read_text(encoding="utf-8")) -> list[str]:
    """The blockers still in the code (a file with a Windows branch counts as ported)."""
    found = []
    for file, pattern, why in WINDOWS_BLOCKERS:
        text = read(file)
        if re.search(pattern, text) and not WINDOWS_BRANCH.search(text):
            found.append(f"{file}: {why}")
    return found


def _experimental_oses(job: dict[str, Any]) -> set[str]:
    assert job["continue-on-error"] == "${{ matrix.experimental || false }}"
    return {inc["os"] for inc in job["strategy"]["matrix"].get("include", []) if inc.get("experimental") is True}


def windows_cell_problems(experimental: bool, blockers: list[str], workflow: str, readme: str) -> list[str]:
    """What is wrong with the Windows cell's ``experimental`` flag, given what blocks the
    harness there and what the workflow's comment and the README say."""
    if blockers:
        return [] if experimental else ["the harness cannot run on Windows yet:", *blockers]
    if experimental:
        return [f"{where} does not say the ported Windows cell is {WINDOWS_UNPROVEN!r} (experimental until it is seen green)"
                for where, text in (("tests.yml", workflow), ("scripts/ci/README.md", readme))
                if WINDOWS_UNPROVEN not in text]
    return [f"{where} still says {WINDOWS_UNPROVEN!r}, but the Windows cell is no longer experimental"
            for where, text in (("tests.yml", workflow), ("scripts/ci/README.md", readme)) if WINDOWS_UNPROVEN in text]


def test_windows_smoke_is_experimental_while_the_harness_cannot_run_there_or_nobody_saw_it_green() -> None:
    job = by_name("tests.yml")["jobs"]["smoke"]
    experimental = _experimental_oses(job)
    windows = {o for o in job["strategy"]["matrix"]["os"] if o.startswith("windows-")}
    assert experimental <= windows, f"only a Windows cell may be experimental, not {experimental - windows}"
    assert experimental in (set(), windows), "every Windows cell or none is experimental"
    workflow = (WORKFLOW_DIR / "tests.yml").read_text(encoding="utf-8")
    readme = (SCRIPTS / "README.md").read_text(encoding="utf-8")
    problems = windows_cell_problems(bool(experimental), windows_blockers(), workflow, readme)
    assert not problems, "\n".join(problems)


def test_windows_blocker_check_can_fail() -> None:
    posix = "subprocess.Popen(cmd, pass_fds=(w,))\nos.killpg(pid, 9)\nfcntl.flock(fd, 2)\n"
    ported = posix + "if os.name == 'nt':\n    import msvcrt\n"
    assert len(windows_blockers(lambda f: posix)) == 3
    assert windows_blockers(lambda f: ported) == []


def test_windows_cell_check_can_fail() -> None:
    said = f"experimental: {WINDOWS_UNPROVEN}"
    assert windows_cell_problems(True, ["x.py: blocked"], "", "") == []
    assert windows_cell_problems(False, ["x.py: blocked"], said, said)[0].startswith("the harness cannot run")
    assert windows_cell_problems(True, [], said, said) == []
    assert len(windows_cell_problems(True, [], "", said)) == 1, "experimental with no reason given"
    assert windows_cell_problems(False, [], "", "") == []
    assert len(windows_cell_problems(False, [], said, said)) == 2, "seen green: the comment and the README go"


def test_benchmark_triggers() -> None:
    on = triggers(by_name("bench.yml"))
    assert set(on) == {"schedule", "push", "workflow_dispatch"}
    assert on["schedule"] and all(len(s["cron"].split()) == 5 for s in on["schedule"])
    assert set(on["push"]["paths"]) == {"snippets/**", "bench/**"}
    assert on["push"]["branches"] == ["main"], "benchmarks run on code that reached main"
    profile = on["workflow_dispatch"]["inputs"]["profile"]
    assert profile["type"] == "choice" and set(profile["options"]) == {"quick", "full", "history"}


def test_benchmark_matrix_covers_the_platforms_and_every_shard() -> None:
    job = by_name("bench.yml")["jobs"]["bench"]
    matrix = job["strategy"]["matrix"]
    assert job["strategy"]["fail-fast"] is False
    platforms = {p["os"]: p["runner"] for p in matrix["platform"]}
    # Hosted x86-64 runners come with an AMD EPYC or an Intel Xeon: {cpu} keeps the two apart
    assert platforms == {"ubuntu-24.04": "gha-ubuntu24-x86_64-{cpu}", "ubuntu-24.04-arm": "gha-ubuntu24-arm64",
                         "macos-15": "gha-macos15-arm64"}
    shard = re.fullmatch(r"\$\{\{ matrix\.shard \}\}/(\d+)", job["env"]["SHARD"])
    assert shard, job["env"]["SHARD"]
    count = int(shard[1])
    assert matrix["shard"] == list(range(1, count + 1)), "the matrix must run every shard I of N exactly once"
    assert job["env"]["BENCH_RUNNER"] == "${{ matrix.platform.runner }}"
    name_re = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
    # once {cpu} is replaced by a CPU class (letters, digits and dashes), a label is a result name
    assert all(name_re.match(label.replace("{cpu}", "amd-avx512")) for label in platforms.values()), \
        "runner labels must be result names"
    assert all(label.startswith("gha-") for label in platforms.values()), "gha-* is the hosted runners' prefix"


@pytest.mark.parametrize("workflow,job_name", [("bench.yml", "bench"), ("bench-gpu.yml", "bench-gpu")])
def test_benchmark_jobs_measure_and_upload_an_artifact(workflow: str, job_name: str) -> None:
    wf = by_name(workflow)
    job = wf["jobs"][job_name]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ['scripts/ci/bench.sh "$PROFILE" "$SHARD" "$BENCH_RUNNER"']
    upload = [s for s in job["steps"] if uses(s, "actions/upload-artifact")]
    assert len(upload) == 1 and upload[0]["if"] == "${{ always() }}"
    out = wf["env"]["TFPERF_OUT"]
    assert upload[0]["with"]["path"].rstrip("/") == f"{out}/results"
    assert upload[0]["with"]["name"].startswith("results-")
    if job_name == "bench":  # one artifact per matrix cell
        assert "matrix.platform.runner" in upload[0]["with"]["name"] and "matrix.shard" in upload[0]["with"]["name"]


def test_gpu_workflow_runs_main_only_by_schedule_or_dispatch_in_its_own_group() -> None:
    wf = by_name("bench-gpu.yml")
    assert set(triggers(wf)) == {"schedule", "workflow_dispatch"}, "never on a push or a pull request"
    assert wf["concurrency"]["group"] != by_name("bench.yml")["concurrency"]["group"]
    assert "${{" not in wf["concurrency"]["group"], "one GPU run at a time, whatever the ref"
    assert wf["concurrency"]["cancel-in-progress"] is False
    job = wf["jobs"]["bench-gpu"]
    assert job["if"] == "${{ github.ref == 'refs/heads/main' && vars.GPU_RUNNER_LABEL != '' }}"
    assert job["runs-on"][0] == "self-hosted" and "vars.GPU_RUNNER_LABEL" in job["runs-on"][1]
    assert job["env"]["TFPERF_EXTRAS"] == "gpu"
    assert "bench-gpu" not in by_name("bench.yml")["jobs"], "the GPU job moved to its own workflow"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^gpu = \[.*"tensorflow\[and-cuda\]==', pyproject, re.MULTILINE), "pyproject.toml has no gpu extra"


def test_a_gpu_run_no_runner_takes_is_cancelled_and_holds_nothing() -> None:
    """A job waiting for a self-hosted runner waits up to 24 hours (its timeout counts from its
    start) and, with queue: max, every later GPU run waits behind it: a hosted watchdog job of
    the same run cancels the run when the GPU job has not started in time."""
    wf = by_name("bench-gpu.yml")
    gpu, dog = wf["jobs"]["bench-gpu"], wf["jobs"]["runner-watchdog"]
    assert dog["if"] == gpu["if"], "the watchdog runs exactly when the GPU job does"
    assert dog["runs-on"] in RUNNER_IMAGES and "needs" not in dog, "it runs beside the GPU job, on a hosted runner"
    step = next(s for s in dog["steps"] if "run" in s)
    assert step["run"] == 'scripts/ci/gpu-watchdog.sh "$GPU_JOB"'
    assert step["env"]["GPU_JOB"] == gpu["name"], "the watchdog looks for the GPU job by its name"
    assert step["env"]["RUN_ID"] == "${{ github.run_id }}" and "GPU_RUNNER_WAIT_MINUTES" in step["env"]["WAIT_MINUTES"]
    assert dog["permissions"] == {"contents": "read", "actions": "write"}
    assert "GPU_RUNNER_WAIT_MINUTES" in (SCRIPTS / "gpu-runner.md").read_text(encoding="utf-8")
    # Once the runner has it: the machine lock's wait leaves the measuring step most of its time.
    measure = next(s for s in gpu["steps"] if s.get("run", "").startswith("scripts/ci/bench.sh"))
    wait_s = int(gpu["env"]["TFPERF_MACHINE_LOCK_WAIT"])
    assert wait_s <= 600 and measure["timeout-minutes"] * 60 - wait_s >= 60 * 60, (wait_s, measure)


def test_the_gpu_runner_set_up_is_written_out() -> None:
    doc = (SCRIPTS / "gpu-runner.md").read_text(encoding="utf-8")
    for needed in ("organisation", "Runner groups", "Allow public repositories", "Workflow access",
                   "bench-gpu.yml@refs/heads/main", "--ephemeral", "525.60.13", "nvidia-smi", "util-linux",
                   "Python 3.11", "GPU_RUNNER_LABEL", "runner-watchdog"):
        assert needed in doc, needed


MATRIX_EXPR = re.compile(r"\$\{\{\s*matrix\.(?P<path>[\w.-]+)\s*\}\}")


def _expand(text: str, matrix: dict[str, Any]) -> list[str]:
    """``text`` for every value of the matrix expressions in it (any other expression: x)."""
    m = MATRIX_EXPR.search(text)
    if not m:
        return [re.sub(r"\$\{\{[^}]*\}\}", "x", text)]
    return [t for v in _matrix_values(matrix, m["path"])
            for t in _expand(text[:m.start()] + str(v) + text[m.end():], matrix)]


def _upload_names(wf: dict[str, Any]) -> Iterator[str]:
    """Every artifact name the workflow uploads."""
    for job in wf["jobs"].values():
        for s in job.get("steps", []):
            if uses(s, "actions/upload-artifact"):
                yield from _expand(s["with"]["name"], job.get("strategy", {}).get("matrix", {}))


def test_history_runs_every_release_from_2_12_weekly_or_on_demand_and_feeds_the_merge() -> None:
    job = by_name("bench.yml")["jobs"]["history"]
    assert job["if"] == "${{ github.event_name == 'schedule' || inputs.profile == 'history' }}"
    releases = job["strategy"]["matrix"]["tf"]
    minors = sorted({tuple(map(int, v.split(".")[:2])) for v in releases})
    assert minors == [(2, m) for m in range(12, 22)], "one release of every minor from 2.12 to 2.21"
    assert job["env"]["TFPERF_TF"] == "${{ matrix.tf }}"
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ['scripts/ci/bench.sh history 1/1 "$BENCH_RUNNER"']
    cache = [s for s in job["steps"] if "actions/cache" in s.get("uses", "")]
    assert len(cache) == 1 and uses(cache[0], "actions/cache/restore"), "the releases' wheels are not cached"


# ---------------------------------------------------------------- which jobs run on which event

EXPR_TOKEN = re.compile(r"\s*(?:(?P<str>'[^']*')|(?P<op>==|!=|&&|\|\||!|\(|\)|,)|(?P<name>[A-Za-z_][\w.-]*))")


def evaluate(expr: str, context: dict[str, Any]) -> Any:
    """An ``if:`` expression of these workflows under ``context`` (dotted names such as
    ``github.event_name`` or ``inputs.profile``; a missing one is null), as GitHub evaluates
    it: ``||`` and ``&&`` give an operand, strings compare ignoring case, ``startsWith`` too,
    ``always()`` and ``!cancelled()`` hold in a run nobody cancelled."""
    text = expr.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    out, pos = [], 0
    while pos < len(text.rstrip()):
        m = EXPR_TOKEN.match(text, pos)
        assert m and m.end() > pos, f"cannot read {text[pos:]!r}"
        pos = m.end()
        if m["str"] is not None:
            out.append(f"_S({m['str']!r}[1:-1])")
        elif m["op"]:
            out.append({"&&": " and ", "||": " or ", "!": " not ", ",": ","}.get(m["op"], m["op"]))
        elif m["name"] in ("always", "cancelled", "success", "failure", "startsWith", "true", "false", "null"):
            out.append({"true": "True", "false": "False", "null": "None"}.get(m["name"], m["name"]))
        else:
            out.append(f"_S(_ctx({m['name']!r}))")

    class _S(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and self.lower() == other.lower()

        def __ne__(self, other: object) -> bool:
            return not self == other

        __hash__ = str.__hash__

    def _wrap(value: Any) -> Any:
        return _S(value) if isinstance(value, str) else value

    names = {"always": lambda: True, "cancelled": lambda: False, "success": lambda: True,
             "failure": lambda: False, "startsWith": lambda a, b: str(a or "").lower().startswith(str(b).lower()),
             "_ctx": lambda n: context.get(n), "_S": _wrap, "True": True, "False": False, "None": None}
    return eval("".join(out), {"__builtins__": {}}, names)


def runs(workflow: str, context: dict[str, Any]) -> set[str]:
    """The jobs of ``workflow`` whose ``if:`` holds (a job without one runs)."""
    jobs = by_name(workflow)["jobs"]
    return {name for name, job in jobs.items() if "if" not in job or evaluate(str(job["if"]), context)}


def _event(name: str, **more: Any) -> dict[str, Any]:
    return {"github.event_name": name, "github.ref": "refs/heads/main", "github.ref_name": "main",
            "vars.GPU_RUNNER_LABEL": "gpu-a100", **more}


@pytest.mark.parametrize("context,expected", [
    (_event("schedule"), {"bench", "selfcheck", "history", "merge"}),
    (_event("push"), {"bench", "selfcheck", "merge"}),
    (_event("workflow_dispatch", **{"inputs.profile": "full"}), {"bench", "selfcheck", "merge"}),
    (_event("workflow_dispatch", **{"inputs.profile": "quick"}), {"bench", "selfcheck", "merge"}),
    (_event("workflow_dispatch", **{"inputs.profile": "history"}), {"history", "merge"}),
], ids=["schedule", "push", "dispatch full", "dispatch quick", "dispatch history"])
def test_a_history_dispatch_runs_the_history_jobs_only(context: dict[str, Any], expected: set[str]) -> None:
    """profile: history measures the TensorFlow releases, not the nine-cell matrix and the
    self-check with the history profile (which would commit arm64 and macOS history files)."""
    assert runs("bench.yml", context) == expected


def test_the_expression_reader_reads_as_github_does() -> None:
    """What the job selection tests rely on, so that a wrong reading fails here first."""
    assert evaluate("${{ inputs.profile || 'full' }}", {}) == "full"
    assert evaluate("${{ inputs.profile != 'history' }}", {}) is True          # null is not 'history'
    assert evaluate("${{ inputs.profile != 'history' }}", {"inputs.profile": "History"}) is False
    assert evaluate("${{ !(a == 'x' && startsWith(b, 'TF/')) }}", {"a": "x", "b": "tf/results"}) is False
    assert evaluate("${{ !cancelled() && needs.x.result != 'skipped' }}", {"needs.x.result": "skipped"}) is False
    # Without its condition (as before), the bench job ran on a history dispatch too.
    jobs = {"bench": {}, "history": {"if": "${{ github.event_name == 'schedule' || inputs.profile == 'history' }}"}}
    history = _event("workflow_dispatch", **{"inputs.profile": "history"})
    assert {n for n, j in jobs.items() if "if" not in j or evaluate(j["if"], history)} == {"bench", "history"}


@pytest.mark.parametrize("context,smoke", [
    (_event("pull_request", **{"github.head_ref": "fix-x", "github.repository": "o/r",
                               "github.event.pull_request.head.repo.full_name": "o/r"}), True),
    (_event("pull_request", **{"github.head_ref": "tfperf/results-main", "github.repository": "o/r",
                               "github.event.pull_request.head.repo.full_name": "o/r"}), False),
    (_event("pull_request", **{"github.head_ref": "tfperf/results-main", "github.repository": "o/r",
                               "github.event.pull_request.head.repo.full_name": "fork/r"}), True),
    (_event("push"), False),
], ids=["a pull request", "the results pull request", "a fork's branch named like it", "push"])
def test_the_smoke_matrix_skips_the_results_pull_request(context: dict[str, Any], smoke: bool) -> None:
    assert ("smoke" in runs("tests.yml", context)) is smoke


@pytest.mark.parametrize("context,posts", [
    (_event("workflow_dispatch", **{"github.ref_name": "tfperf/results-main"}), True),
    (_event("workflow_dispatch"), False),
    (_event("push", **{"github.ref_name": "tfperf/results-main"}), False),
    (_event("pull_request", **{"github.ref_name": "7/merge"}), False),
], ids=["dispatched on the results branch", "dispatched on main", "push", "pull request"])
def test_the_results_pull_requests_checks_are_posted_only_from_its_dispatched_run(context: dict[str, Any],
                                                                                posts: bool) -> None:
    assert ("results-pr-checks" in runs("tests.yml", context)) is posts


def test_the_results_pull_request_gets_check_runs_named_like_the_jobs() -> None:
    """A dispatched run's checks are not the pull request's; check runs of the same names on
    its head commit are, and satisfy a branch protection that requires the jobs' checks."""
    wf = by_name("tests.yml")
    job = wf["jobs"]["results-pr-checks"]
    assert job["needs"] == ["data", "test"] and "always()" in job["if"]
    step = next(s for s in job["steps"] if "run" in s)
    assert step["run"] == 'scripts/ci/post-checks.sh "$DATA_CHECK=$DATA_RESULT" "$TEST_CHECK=$TEST_RESULT"'
    env = step["env"]
    assert env["DATA_CHECK"] == wf["jobs"]["data"]["name"] and env["TEST_CHECK"] == wf["jobs"]["test"]["name"]
    assert env["DATA_RESULT"] == "${{ needs.data.result }}" and env["TEST_RESULT"] == "${{ needs.test.result }}"
    assert env["HEAD_SHA"] == "${{ github.sha }}" and env["GH_TOKEN"] == "${{ github.token }}"
    assert job["permissions"] == {"contents": "read", "checks": "write"}


@pytest.mark.parametrize("workflow,needs,pattern", [("bench.yml", ["bench", "history"], "results-gha-*"),
                                                    ("bench-gpu.yml", ["bench-gpu"], "results-gpu-*")])
def test_each_benchmark_workflow_calls_the_merge_after_its_runners(workflow: str, needs: list[str],
                                                                   pattern: str) -> None:
    wf = by_name(workflow)
    job = wf["jobs"]["merge"]
    assert job["uses"] == "./.github/workflows/merge-results.yml"
    assert job["needs"] == needs and "!cancelled()" in job["if"]
    assert job["with"]["artifacts"] == pattern
    names = [n for n in _upload_names(wf) if n.startswith("results-")]
    assert names and all(fnmatch.fnmatchcase(n, pattern) for n in names), (names, pattern)
    assert set(job["permissions"]) == MERGE_WRITES and set(job["permissions"].values()) == {"write"}
    assert job["permissions"] == by_name("merge-results.yml")["jobs"]["merge"]["permissions"]


def test_merge_job_merges_reports_and_opens_the_pull_request() -> None:
    wf = by_name("merge-results.yml")
    assert set(triggers(wf)) == {"workflow_call"}
    assert callers("merge-results.yml") == [("bench-gpu.yml", "merge"), ("bench.yml", "merge")]
    job = wf["jobs"]["merge"]
    download = [s for s in job["steps"] if uses(s, "actions/download-artifact")]
    assert len(download) == 1 and download[0]["with"] == {"pattern": "${{ inputs.artifacts }}", "path": "artifacts"}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ["scripts/ci/pending.sh artifacts/pending", "scripts/ci/merge.sh artifacts data",
                    "scripts/ci/regressions.sh data", "scripts/ci/open-pr.sh"]
    # The token that can push reaches only the two steps that talk to GitHub.
    assert "GH_TOKEN" not in job.get("env", {})
    assert [s["run"] for s in job["steps"] if "GH_TOKEN" in s.get("env", {})] == [
        "scripts/ci/pending.sh artifacts/pending", "scripts/ci/open-pr.sh"]
    assert job["env"]["RESULTS_BRANCH"] == "tfperf/results-${{ github.ref_name }}"


def test_publish_builds_strict_and_deploys_with_the_official_actions() -> None:
    wf = by_name("pages.yml")
    assert triggers(wf)["push"]["branches"] == ["main"]
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    used = [s.get("uses", "").split("@")[0] for s in build["steps"]] + [s.get("uses", "").split("@")[0]
                                                                        for s in deploy["steps"]]
    for action in ("actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in used
    assert [s["run"] for s in build["steps"] if "run" in s] == ["scripts/ci/build-site.sh site"]
    assert "mkdocs build --strict" in (SCRIPTS / "build-site.sh").read_text(encoding="utf-8")
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    # configure-pages reads the Pages site through the API: without pages: read the first run fails.
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Source: **GitHub Actions**" in readme and "before the first push" in readme


def test_scripts_ci_readme_names_every_script() -> None:
    readme = (SCRIPTS / "README.md").read_text(encoding="utf-8")
    for script in sorted([*SCRIPTS.glob("*.sh"), *SCRIPTS.glob("*.py"), *SCRIPTS.glob("*.md")]):
        if script.name not in ("env.sh", "README.md"):
            assert f"scripts/ci/{script.name}" in readme or script.name in readme, script.name


# ---------------------------------------------------------------- the merge step, run for real

def _venv() -> str:
    return sys.prefix  # the environment running the tests has tfperf's dependencies


def _relabel(doc: dict[str, Any], label: str) -> dict[str, Any]:
    """The fixture as if measured on another runner: label, environment ids and keys follow."""
    from tfperf.store import record_types as ids

    doc = json.loads(json.dumps(doc))
    doc["runner"]["label"] = label
    moved: dict[str, str] = {}
    envs: dict[str, Any] = {}
    for old, env in doc["environments"].items():
        env["runner"] = label
        moved[old] = ids.env_id(env)
        envs[moved[old]] = env
    doc["environments"] = envs
    for kind in ("results", "noise", "breakdowns"):
        for r in doc[kind]:
            r["env_id"] = moved.get(r.get("env_id"), r.get("env_id"))
            if "key" in r:
                r["key"]["runner"] = label
                r["key_hash"] = ids.key_hash(r["key"])
    return doc


def run_script(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPTS / args[0]), *args[1:]], check=False, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TFPERF_VENV": _venv(), **env}, cwd=ROOT)


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.json"))}


def test_merge_step_takes_two_runners_rejects_the_malformed_one_and_is_idempotent(tmp_path: Path) -> None:
    base = json.loads(FIXTURE.read_text(encoding="utf-8"))
    art = tmp_path / "artifacts"
    # The layout download-artifact produces: one folder per artifact.
    for label, artifact in (("gha-ubuntu24-x86_64", "results-gha-ubuntu24-x86_64-shard1of3"),
                            ("gha-macos15-arm64", "results-gha-macos15-arm64-shard2of3")):
        f = art / artifact / label / f"{base['profile']}.json"
        f.parent.mkdir(parents=True)
        f.write_text(json.dumps(_relabel(base, label)), encoding="utf-8")
    bad = _relabel(base, "contributor-box")
    bad["results"][1]["timing"]["summary"]["median"] = "fast"
    bad_file = art / "results-contributed" / "contributor-box" / f"{base['profile']}.json"
    bad_file.parent.mkdir(parents=True)
    bad_file.write_text(json.dumps(bad), encoding="utf-8")

    data = tmp_path / "data"
    first = run_script("merge.sh", str(art), str(data))
    assert first.returncode == 1, first.stdout + first.stderr
    assert str(bad_file) in first.stderr and "results[1].timing.summary.median" in first.stderr
    merged = _digest(data)
    assert set(merged) == {f"results/gha-ubuntu24-x86_64/{base['profile']}.json",
                           f"results/gha-macos15-arm64/{base['profile']}.json"}
    for label in ("gha-ubuntu24-x86_64", "gha-macos15-arm64"):
        doc = json.loads((data / "results" / label / f"{base['profile']}.json").read_text(encoding="utf-8"))
        assert doc["runner"]["label"] == label
        assert len(doc["results"]) == len(base["results"]) and len(doc["noise"]) == len(base["noise"])

    second = run_script("merge.sh", str(art), str(data))
    assert second.returncode == 1 and "no results file changed" in second.stdout
    assert _digest(data) == merged, "a second merge of the same artifacts changed data/"

    bad_file.unlink()
    third = run_script("merge.sh", str(art), str(data))
    assert third.returncode == 0, third.stdout + third.stderr
    assert _digest(data) == merged


def test_merge_step_with_no_artifacts_is_not_an_error(tmp_path: Path) -> None:
    out = run_script("merge.sh", str(tmp_path / "artifacts"), str(tmp_path / "data"))
    assert out.returncode == 0 and "nothing to merge" in out.stderr
    (tmp_path / "artifacts").mkdir()
    out = run_script("merge.sh", str(tmp_path / "artifacts"), str(tmp_path / "data"))
    assert out.returncode == 0 and "nothing to merge" in out.stdout
    assert not list(tmp_path.rglob("*.json"))


def test_validate_data_step_names_the_bad_file(tmp_path: Path) -> None:
    good = tmp_path / "data" / "results" / "box" / "full.json"
    good.parent.mkdir(parents=True)
    good.write_text(json.dumps(_relabel(json.loads(FIXTURE.read_text(encoding="utf-8")), "box")), encoding="utf-8")
    assert run_script("validate-data.sh", str(tmp_path / "data")).returncode == 0
    broken = good.with_name("quick.json")
    broken.write_text('{"schema_version": 1}', encoding="utf-8")
    out = run_script("validate-data.sh", str(tmp_path / "data"))
    assert out.returncode != 0 and str(broken) in out.stderr


@pytest.mark.parametrize("args,message", [
    (("quick",), "usage"),
    (("medium", "1/2"), "PROFILE must be quick, full or history"),
    (("quick", "2"), "SHARD must be I/N"),
])
def test_bench_step_refuses_bad_arguments_before_installing(args: tuple[str, ...], message: str) -> None:
    out = run_script("bench.sh", *args)
    assert out.returncode == 64 and message in out.stderr


def _write_results(repo: Path, label: str, profile: str) -> Path:
    doc = _relabel(json.loads(FIXTURE.read_text(encoding="utf-8")), label)
    doc["profile"] = profile
    f = repo / "data" / "results" / label / f"{profile}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(doc), encoding="utf-8")
    return f


# ---------------------------------------------------------------- the benchmark step's command line

@pytest.mark.parametrize("force", ["0", "1"])
def test_bench_step_starts_from_the_published_file_unless_forced(tmp_path: Path, fake_venv: Path,
                                                                 force: str) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "machine-lock.sh", "bench.sh"):
        shutil.copy2(SCRIPTS / name, repo / "scripts" / "ci" / name)
    published = _write_results(repo, "gha-ubuntu24-x86_64", "full")
    out_dir = tmp_path / "out"
    env = {**os.environ, "TFPERF_VENV": str(fake_venv), "TFPERF_OUT": str(out_dir), "TFPERF_FORCE": force,
           "TFPERF_TOPICS": "alpha beta"}
    out = subprocess.run([str(repo / "scripts" / "ci" / "bench.sh"), "full", "2/3", "gha-ubuntu24-x86_64"], check=False,
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    args = (tmp_path / "tfperf.log").read_text(encoding="utf-8").split()
    assert args[:9] == ["run", "--profile", "full", "--shard", "2/3", "--data", str(out_dir), "--no-progress",
                        "--runner"]
    assert args[9] == "gha-ubuntu24-x86_64"
    assert ("--force" in args) == (force == "1")
    assert " ".join(args).endswith("--topic alpha --topic beta")
    seeded = out_dir / "results" / "gha-ubuntu24-x86_64" / "full.json"
    if force == "1":
        assert not seeded.exists()
    else:
        assert seeded.read_bytes() == published.read_bytes()


def test_bench_step_seeds_the_file_of_this_cpus_label(tmp_path: Path, fake_venv: Path) -> None:
    """With {cpu} in the runner, the published file seeded is the one of the label tfperf
    run will store under on this machine (``tfperf label``), never another CPU's."""
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "machine-lock.sh", "bench.sh"):
        shutil.copy2(SCRIPTS / name, repo / "scripts" / "ci" / name)
    mine = _write_results(repo, "gha-ubuntu24-x86_64-amd-avx512", "full")
    _write_results(repo, "gha-ubuntu24-x86_64-intel-amx", "full")
    py = fake_venv / "bin" / "python"          # `tfperf label` answers for an AMD EPYC with AVX-512
    py.write_text(f'#!/bin/sh\nshift 2\necho "$@" >> "{tmp_path}/tfperf.log"\n'
                  f'[ "$1" = label ] && echo gha-ubuntu24-x86_64-amd-avx512\nexit 0\n', encoding="utf-8")
    out_dir = tmp_path / "out"
    env = {**os.environ, "TFPERF_VENV": str(fake_venv), "TFPERF_OUT": str(out_dir), "TFPERF_FORCE": "0"}
    out = subprocess.run([str(repo / "scripts" / "ci" / "bench.sh"), "full", "1/3", "gha-ubuntu24-x86_64-{cpu}"], check=False,
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    calls = (tmp_path / "tfperf.log").read_text(encoding="utf-8").splitlines()
    assert calls[0] == "label gha-ubuntu24-x86_64-{cpu}"
    assert calls[1].split()[-1] == "gha-ubuntu24-x86_64-{cpu}"       # tfperf run expands it itself
    seeded = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.json"))
    assert seeded == ["results/gha-ubuntu24-x86_64-amd-avx512/full.json"]
    assert (out_dir / seeded[0]).read_bytes() == mine.read_bytes()


# ---------------------------------------------------------------- the site's address

def test_pages_build_gets_the_published_address() -> None:
    build = by_name("pages.yml")["jobs"]["build"]
    configure = next(s for s in build["steps"] if uses(s, "actions/configure-pages"))
    step = next(s for s in build["steps"] if s.get("run", "").startswith("scripts/ci/build-site.sh"))
    assert step["env"]["SITE_URL"] == f"${{{{ steps.{configure['id']}.outputs.base_url }}}}"


def test_build_step_sets_site_url_so_the_sitemap_names_the_site(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "build-site.sh"):
        shutil.copy2(SCRIPTS / name, repo / "scripts" / "ci" / name)
    (repo / "docs").mkdir()
    (repo / "docs" / "index.md").write_text("# t\n", encoding="utf-8")
    (repo / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    env = {**os.environ, "TFPERF_VENV": sys.prefix}

    def build(site: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(repo / "scripts" / "ci" / "build-site.sh"), site], check=False, capture_output=True, text=True,
                              timeout=300, cwd=repo, env={**env, **extra})

    out = build("with-url", SITE_URL="https://example.invalid/tfperf")
    assert out.returncode == 0, out.stdout + out.stderr
    sitemap = (repo / "with-url" / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.invalid/tfperf/</loc>" in sitemap
    assert sorted(p.name for p in repo.iterdir()) == ["docs", "mkdocs.yml", "scripts", "with-url"], "config left behind"
    out = build("without")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "example.invalid" not in (repo / "without" / "sitemap.xml").read_text(encoding="utf-8")
    assert build("bad", SITE_URL="example.invalid").returncode == 64


# ---------------------------------------------------------------- the job holding a write token installs a lock

LOCK = SCRIPTS / "merge-requirements.txt"


def test_the_job_with_a_write_token_installs_a_hashed_lock_of_the_runtime_dependencies() -> None:
    job = by_name("merge-results.yml")["jobs"]["merge"]
    assert ROOT / job["env"]["TFPERF_LOCK"] == LOCK
    text = LOCK.read_text(encoding="utf-8")
    reqs = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", text, re.MULTILINE)
    lines = [line for line in text.splitlines() if line and not line.startswith(("#", " "))]
    assert len(reqs) == len(lines), "every requirement is pinned with =="
    blocks = re.split(r"^(?=[A-Za-z0-9_.-]+==)", text, flags=re.MULTILINE)[1:]
    assert all("--hash=sha256:" in b for b in blocks), "every requirement has its hashes"
    pinned = {name.lower().replace("_", "-") for name, _ in reqs}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = re.search(r"^dependencies = \[(.*?)\]", pyproject, re.MULTILINE | re.DOTALL)
    assert deps
    for dep in re.findall(r'"([A-Za-z0-9_.-]+)', deps[1]):
        assert dep.lower().replace("_", "-") in pinned, f"{dep} is a dependency but not in the lock"


def test_env_installs_the_lock_and_nothing_else(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    shutil.copy2(SCRIPTS / "env.sh", repo / "scripts" / "ci" / "env.sh")
    (repo / "scripts" / "ci" / "lock.txt").write_text("x==1 \\\n    --hash=sha256:00\n", encoding="utf-8")
    (repo / "scripts" / "setup").write_text(f"#!/bin/sh\necho setup >> {tmp_path}/log\n", encoding="utf-8")
    (repo / "scripts" / "setup").chmod(0o755)
    # A "python3" that makes a venv whose python logs what it is asked to do.
    fake = tmp_path / "python3"
    fake.write_text(f'#!/bin/sh\nmkdir -p "$3/bin"\n'
                    f'printf \'#!/bin/sh\\necho "$@" >> {tmp_path}/log\\n\' > "$3/bin/python"\n'
                    'chmod +x "$3/bin/python"\n', encoding="utf-8")
    fake.chmod(0o755)
    script = f'. "{repo}/scripts/ci/env.sh"; tfperf_env test && echo "PY=$PY"'
    env = {"PATH": os.environ["PATH"], "PYTHON": str(fake), "TFPERF_LOCK": "scripts/ci/lock.txt"}
    for _ in range(2):   # the second time the venv already holds this lock: nothing to install
        out = subprocess.run(["bash", "-c", script], check=False, capture_output=True, text=True, timeout=60, env=env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().endswith(f"PY={repo}/.venv/bin/python")
    log = (tmp_path / "log").read_text(encoding="utf-8").splitlines()
    assert log == [("-m pip install --quiet --require-hashes --only-binary=:all: --no-deps "
                   f"-r {repo}/scripts/ci/lock.txt")]
    out = subprocess.run(["bash", "-c", script], check=False, capture_output=True, text=True, timeout=60,
                         env={**env, "TFPERF_LOCK": "scripts/ci/missing.txt"})
    assert out.returncode != 0 and "missing.txt does not exist" in out.stderr


def test_what_the_merge_job_runs_imports_only_the_lock_and_the_standard_library() -> None:
    """If tfperf's store, CLI or regression report start importing another package, the locked
    merge job breaks: add it to pyproject.toml's dependencies and regenerate the lock."""
    code = ("import sys, json\n"
            "import tfperf.cli, tfperf.cli.results, tfperf.store.merge, tfperf.cli.guide, "
            "tfperf.analyse.views.regress\n"
            "tfperf.cli.build_parser()\n"
            "top = {m.split('.')[0] for m in sys.modules}\n"
            "print(json.dumps(sorted(top - set(sys.stdlib_module_names) - set(sys.builtin_module_names))))\n")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "bench")})
    assert out.returncode == 0, out.stderr
    imported = set(json.loads(out.stdout.splitlines()[-1])) - {"__main__", "tfperf", "_distutils_hack"}
    imported = {m for m in imported if not m.startswith("__editable__")}
    # Modules a Cython-compiled extension registers (PyYAML's _yaml), not packages of their own.
    imported = {m for m in imported if m != "cython_runtime" and not m.startswith("_cython_")}
    # jsonschema's format checkers import these when present and do without them otherwise
    # (the merge job's locked venv, checked by hand, validates and merges without them).
    imported -= {"idna", "fqdn", "rfc3339_validator", "rfc3986_validator", "rfc3987", "rfc3987_syntax", "webcolors",
                 "jsonpointer", "uri_template", "isoduration"}
    import_names = {"attrs": "attr", "pyyaml": "yaml", "rpds-py": "rpds", "typing-extensions": "typing_extensions",
                    "jsonschema-specifications": "jsonschema_specifications"}
    locked = {import_names.get(n.lower(), n.lower().replace("-", "_"))
              for n in re.findall(r"^([A-Za-z0-9_.-]+)==", LOCK.read_text(encoding="utf-8"), re.MULTILINE)} | {"attrs"}
    assert imported <= locked, f"imported but not in the lock: {sorted(imported - locked)}"
