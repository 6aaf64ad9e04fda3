"""The GitHub Actions workflows, checked offline: schema, SHA pinning, least privilege,
triggers, the benchmark matrix, and that every step is a script in scripts/ci that runs
here too (the merge step is run for real on fake artifacts). No TensorFlow, no network."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_DIR = ROOT / ".github" / "workflows"
SCRIPTS = ROOT / "scripts" / "ci"
FIXTURE = ROOT / "tests" / "fixtures" / "results" / "valid.json"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))

# Each SHA was found in public workflow files of several unrelated repositories beside
# this version (code search of public GitHub files); see scripts/ci/README.md.
VERIFIED_PINS: dict[str, tuple[str, str]] = {
    "actions/checkout": ("11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"),
    "actions/setup-python": ("a26af69be951a213d495a4c3e4e4022e16d87065", "v5.6.0"),
    "actions/upload-artifact": ("ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"),
    "actions/download-artifact": ("d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"),
    "actions/configure-pages": ("983d7736d9b0ae728b81ab479565c72886d7745b", "v5.0.0"),
    "actions/upload-pages-artifact": ("56afc609e74202658d3ffba0e8f6dda462b719fa", "v3.0.1"),
    "actions/deploy-pages": ("d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e", "v4.0.5"),
}

# The only jobs that may hold a write permission, and which.
ALLOWED_WRITES: dict[tuple[str, str], set[str]] = {
    ("bench.yml", "merge"): {"contents", "pull-requests"},
    ("pages.yml", "deploy"): {"pages", "id-token"},
}


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


def test_the_three_workflows_exist() -> None:
    assert {p.name for p in WORKFLOWS} >= {"tests.yml", "bench.yml", "pages.yml"}


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
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def check_schema(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_no_network_prefix(), _check_jsonschema(), "--builtin-schema", "vendor.github-workflows",
                           *map(str, paths)], capture_output=True, text=True, env=_offline_env(), timeout=120)


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
            continue  # a local action: pinned by this commit
        p, v = PINNED.match(ref), VERSION_COMMENT.match(rest)
        if not p:
            problems.append(f"{where}:{n}: {ref} is not pinned to a full commit SHA")
            continue
        if not v:
            problems.append(f"{where}:{n}: {ref} has no '# vX.Y.Z' version comment")
            continue
        known = VERIFIED_PINS.get(p["action"])
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
        if s.get("uses", "").startswith("actions/checkout@"):
            assert s.get("with", {}).get("persist-credentials") is False, f"{path.name}: job {job}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_concurrency_group_and_timeouts(path: Path) -> None:
    wf = load(path)
    assert wf.get("concurrency", {}).get("group"), f"{path.name}: no concurrency group"
    for name, job in wf["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int), f"{path.name}: job {name} has no timeout"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_setup_python_caches_pip(path: Path) -> None:
    for job, s in steps(load(path)):
        if s.get("uses", "").startswith("actions/setup-python@"):
            w = s.get("with", {})
            assert w.get("cache") == "pip", f"{path.name}: job {job}"
            # Without it setup-python looks for requirements.txt and fails.
            assert (ROOT / w.get("cache-dependency-path", "")).is_file(), f"{path.name}: job {job}"


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


def test_scripts_parse_as_bash() -> None:
    bash = shutil.which("bash")
    assert bash
    for script in sorted(SCRIPTS.glob("*.sh")):
        out = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True)
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
        if script.name != "env.sh":
            assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n"), script.name
            assert "set -euo pipefail" in script.read_text(encoding="utf-8"), script.name


# ---------------------------------------------------------------- what each workflow does

def test_tests_run_on_push_and_pull_request() -> None:
    wf = by_name("tests.yml")
    assert set(triggers(wf)) == {"push", "pull_request"}
    runs = [s["run"] for _, s in steps(wf) if "run" in s]
    assert any(r.startswith("scripts/ci/test.sh") for r in runs)
    assert any(r.startswith("scripts/ci/validate-data.sh") for r in runs), "contributed results are not validated"


def test_benchmark_triggers() -> None:
    on = triggers(by_name("bench.yml"))
    assert set(on) == {"schedule", "push", "workflow_dispatch"}
    assert on["schedule"] and all(len(s["cron"].split()) == 5 for s in on["schedule"])
    assert set(on["push"]["paths"]) == {"snippets/**", "bench/**"}
    assert on["push"]["branches"] == ["main"], "a self-hosted runner must only run code that reached main"
    profile = on["workflow_dispatch"]["inputs"]["profile"]
    assert profile["type"] == "choice" and set(profile["options"]) == {"quick", "full"}


def test_benchmark_matrix_covers_the_platforms_and_every_shard() -> None:
    job = by_name("bench.yml")["jobs"]["bench"]
    matrix = job["strategy"]["matrix"]
    assert job["strategy"]["fail-fast"] is False
    platforms = {p["os"]: p["runner"] for p in matrix["platform"]}
    assert platforms == {"ubuntu-24.04": "gha-ubuntu24-x86_64", "ubuntu-24.04-arm": "gha-ubuntu24-arm64",
                         "macos-14": "gha-macos14-arm64"}
    shard = re.fullmatch(r"\$\{\{ matrix\.shard \}\}/(\d+)", job["env"]["SHARD"])
    assert shard, job["env"]["SHARD"]
    count = int(shard[1])
    assert matrix["shard"] == list(range(1, count + 1)), "the matrix must run every shard I of N exactly once"
    assert job["env"]["BENCH_RUNNER"] == "${{ matrix.platform.runner }}"
    name_re = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
    assert all(name_re.match(label) for label in platforms.values()), "runner labels must be result names"


@pytest.mark.parametrize("job_name", ["bench", "bench-gpu"])
def test_benchmark_jobs_measure_and_upload_an_artifact(job_name: str) -> None:
    wf = by_name("bench.yml")
    job = wf["jobs"][job_name]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ['scripts/ci/bench.sh "$PROFILE" "$SHARD" "$BENCH_RUNNER"']
    upload = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert len(upload) == 1 and upload[0]["if"] == "${{ !cancelled() }}"
    out = wf["env"]["TFPERF_OUT"]
    assert upload[0]["with"]["path"].rstrip("/") == f"{out}/results"
    assert upload[0]["with"]["name"].startswith("results-")
    if job_name == "bench":  # one artifact per matrix cell
        assert "matrix.platform.runner" in upload[0]["with"]["name"] and "matrix.shard" in upload[0]["with"]["name"]


def test_gpu_job_is_skipped_without_a_runner_and_installs_the_gpu_extra() -> None:
    job = by_name("bench.yml")["jobs"]["bench-gpu"]
    assert job["if"] == "${{ vars.GPU_RUNNER_LABEL != '' }}"
    assert job["runs-on"][0] == "self-hosted" and "vars.GPU_RUNNER_LABEL" in job["runs-on"][1]
    assert job["env"]["TFPERF_EXTRAS"] == "gpu"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^gpu = \[.*"tensorflow\[and-cuda\]==', pyproject, re.M), "pyproject.toml has no gpu extra"


def test_merge_job_runs_after_every_runner_even_a_skipped_one() -> None:
    wf = by_name("bench.yml")
    job = wf["jobs"]["merge"]
    assert set(job["needs"]) == {"bench", "bench-gpu"}
    assert "!cancelled()" in job["if"]
    download = [s for s in job["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert len(download) == 1 and download[0]["with"]["pattern"] == "results-*"
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ["scripts/ci/pending.sh artifacts/pending", "scripts/ci/merge.sh artifacts data",
                    "scripts/ci/open-pr.sh"]
    assert download[0]["with"]["path"] == "artifacts"
    # The token that can push reaches only the two steps that talk to GitHub.
    assert "GH_TOKEN" not in job.get("env", {})
    assert [s["run"] for s in job["steps"] if "GH_TOKEN" in s.get("env", {})] == [
        "scripts/ci/pending.sh artifacts/pending", "scripts/ci/open-pr.sh"]


def test_publish_builds_strict_and_deploys_with_the_official_actions() -> None:
    wf = by_name("pages.yml")
    assert triggers(wf)["push"]["branches"] == ["main"]
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    uses = [s.get("uses", "").split("@")[0] for s in build["steps"]] + [s.get("uses", "").split("@")[0]
                                                                           for s in deploy["steps"]]
    for action in ("actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in uses
    assert [s["run"] for s in build["steps"] if "run" in s] == ["scripts/ci/build-site.sh site"]
    assert "mkdocs build --strict" in (SCRIPTS / "build-site.sh").read_text(encoding="utf-8")
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}


# ---------------------------------------------------------------- the merge step, run for real

def _venv() -> str:
    return sys.prefix  # the environment running the tests has tfperf's dependencies


def _relabel(doc: dict[str, Any], label: str) -> dict[str, Any]:
    """The fixture as if measured on another runner: label, environment ids and keys follow."""
    from tfperf.store import ids

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
    return subprocess.run([str(SCRIPTS / args[0]), *args[1:]], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TFPERF_VENV": _venv(), **env}, cwd=ROOT)


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.json"))}


def test_merge_step_takes_two_runners_rejects_the_malformed_one_and_is_idempotent(tmp_path: Path) -> None:
    base = json.loads(FIXTURE.read_text(encoding="utf-8"))
    art = tmp_path / "artifacts"
    # The layout download-artifact produces: one folder per artifact.
    for label, artifact in (("gha-ubuntu24-x86_64", "results-gha-ubuntu24-x86_64-shard1of3"),
                            ("gha-macos14-arm64", "results-gha-macos14-arm64-shard2of3")):
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
                           f"results/gha-macos14-arm64/{base['profile']}.json"}
    for label in ("gha-ubuntu24-x86_64", "gha-macos14-arm64"):
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
    (("medium", "1/2"), "PROFILE must be quick or full"),
    (("quick", "2"), "SHARD must be I/N"),
])
def test_bench_step_refuses_bad_arguments_before_installing(args: tuple[str, ...], message: str) -> None:
    out = run_script("bench.sh", *args)
    assert out.returncode == 64 and message in out.stderr


# ---------------------------------------------------------------- the pull-request steps, against a local "origin"

def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env, timeout=60).stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A small repository with this project's CI scripts, the package (linked) and .gitignore;
    its own folder is its ``origin``."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    r = tmp_path / "repo"
    (r / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "pending.sh", "open-pr.sh"):
        shutil.copy2(SCRIPTS / name, r / "scripts" / "ci" / name)
    (r / "bench").symlink_to(ROOT / "bench")
    shutil.copy2(ROOT / ".gitignore", r / ".gitignore")
    _git(r, "init", "-q", "-b", "main")
    _git(r, "add", "scripts", ".gitignore")
    _git(r, "commit", "-q", "-m", "init")
    _git(r, "remote", "add", "origin", str(r))
    return r


def _fake_gh(tmp_path: Path, open_prs: int) -> str:
    """A ``gh`` that answers ``pr list`` with ``open_prs`` pull requests (and logs its calls)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/gh.log"\necho {open_prs}\n', encoding="utf-8")
    gh.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def _write_results(repo: Path, label: str, profile: str) -> Path:
    doc = _relabel(json.loads(FIXTURE.read_text(encoding="utf-8")), label)
    doc["profile"] = profile
    f = repo / "data" / "results" / label / f"{profile}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(doc), encoding="utf-8")
    return f


@pytest.mark.parametrize("open_prs", [0, 1])
def test_pending_step_collects_the_open_results_pull_request_only(repo: Path, tmp_path: Path, open_prs: int) -> None:
    _git(repo, "switch", "-q", "-c", "tfperf/results-main")
    _write_results(repo, "box", "full")
    _git(repo, "add", "data")
    _git(repo, "commit", "-q", "-m", "results")
    _git(repo, "switch", "-q", "main")
    dest = tmp_path / "pending"
    out = subprocess.run([str(repo / "scripts" / "ci" / "pending.sh"), str(dest)], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PATH": _fake_gh(tmp_path, open_prs),
                                          "RESULTS_BRANCH": "tfperf/results-main"})
    assert out.returncode == 0, out.stdout + out.stderr
    collected = sorted(str(p.relative_to(dest)) for p in dest.rglob("*.json")) if dest.exists() else []
    assert collected == (["data/results/box/full.json"] if open_prs else [])


def test_open_pr_step_commits_full_results_only(repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TFPERF_VENV": _venv(), "TFPERF_DRY_RUN": "1", "RESULTS_BRANCH": "tfperf/results-main",
           "BASE_BRANCH": "main", "PATH": _fake_gh(tmp_path, 0), "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    script = str(repo / "scripts" / "ci" / "open-pr.sh")
    _write_results(repo, "box", "quick")  # quick results are .gitignored: never committed
    out = subprocess.run([script], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and "no pull request" in out.stdout, out.stdout + out.stderr
    _write_results(repo, "box", "full")
    out = subprocess.run([script], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and "dry run" in out.stdout, out.stdout + out.stderr
    assert _git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["data/results/box/full.json"]
    # A malformed file stops the step before anything is committed.
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "data" / "results" / "box" / "full.json").write_text('{"schema_version": 1}', encoding="utf-8")
    out = subprocess.run([script], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode != 0 and "full.json" in out.stderr
    assert _git(repo, "rev-parse", "HEAD") == head
    assert not (tmp_path / "gh.log").exists(), "a dry run must not call gh"


# ---------------------------------------------------------------- the benchmark step's command line

@pytest.fixture()
def fake_venv(tmp_path: Path) -> Path:
    """A venv whose python only records its arguments: bench.sh's decisions, without measuring."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\nshift 2\necho "$@" >> "{tmp_path}/tfperf.log"\n', encoding="utf-8")
    py.chmod(0o755)
    return venv


@pytest.mark.parametrize("force", ["0", "1"])
def test_bench_step_starts_from_the_published_file_unless_forced(tmp_path: Path, fake_venv: Path,
                                                                 force: str) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "bench.sh"):
        shutil.copy2(SCRIPTS / name, repo / "scripts" / "ci" / name)
    published = _write_results(repo, "gha-ubuntu24-x86_64", "full")
    out_dir = tmp_path / "out"
    env = {**os.environ, "TFPERF_VENV": str(fake_venv), "TFPERF_OUT": str(out_dir), "TFPERF_FORCE": force,
           "TFPERF_TOPICS": "alpha beta"}
    out = subprocess.run([str(repo / "scripts" / "ci" / "bench.sh"), "full", "2/3", "gha-ubuntu24-x86_64"],
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
