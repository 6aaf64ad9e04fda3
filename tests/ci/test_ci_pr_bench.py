"""The base-against-head comparison of a pull request: pr-bench.yml runs the pull request's
code with a read-only token and uploads a report; pr-bench-comment.yml (workflow_run, the
default branch's code) posts it. scripts/ci/compare-pr.sh runs here with a venv whose python
only records its arguments; scripts/ci/pr-comment.sh with a fake gh. No network."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from test_ci_support import GIT_ENV, ROOT, SCRIPTS, git

WF = ROOT / ".github" / "workflows"


def _wf(name: str) -> dict:
    return yaml.safe_load((WF / name).read_text(encoding="utf-8"))


def test_the_comparison_runs_on_pull_requests_with_a_read_only_token() -> None:
    wf = _wf("pr-bench.yml")
    on = wf.get("on", wf.get(True))
    assert set(on) == {"pull_request"} and set(on["pull_request"]["paths"]) == {"snippets/**", "bench/**"}
    job = wf["jobs"]["compare"]
    assert job["permissions"] == {"contents": "read"}
    assert [s["run"] for s in job["steps"] if "run" in s] == ['scripts/ci/compare-pr.sh "$PR_NUMBER"']
    upload = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
    assert upload["with"]["name"] == "pr-bench" and upload["with"]["path"].rstrip("/") == "ci-out/pr-comment"


def test_the_comment_is_posted_by_the_default_branch_without_running_the_pull_request() -> None:
    wf = _wf("pr-bench-comment.yml")
    on = wf.get("on", wf.get(True))
    assert set(on) == {"workflow_run"} and on["workflow_run"]["workflows"] == [_wf("pr-bench.yml")["name"]]
    job = wf["jobs"]["comment"]
    assert "workflow_run.event == 'pull_request'" in job["if"] and "conclusion == 'success'" in job["if"]
    # contents: read for the checkout of this workflow's own scripts (a job-level block drops the rest)
    assert job["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "write"}
    checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert "ref" not in checkout.get("with", {}), "the pull request's code must not be checked out here"
    download = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@"))
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    step = next(s for s in job["steps"] if "run" in s)
    assert step["run"] == "scripts/ci/pr-comment.sh pr-bench"
    assert step["env"]["HEAD_SHA"] == "${{ github.event.workflow_run.head_sha }}"


# ---------------------------------------------------------------- pr-comment.sh

@pytest.fixture()
def gh(tmp_path: Path) -> Path:
    """A gh whose `pr view` says the head is the SHA in bin/head and `pr comment` keeps the body."""
    if not shutil.which("jq"):
        pytest.skip("jq is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "head").write_text("a" * 40, encoding="utf-8")
    script = bin_dir / "gh"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{bin_dir}/gh.log"\n'
        'body=""; prev=""; for a in "$@"; do [ "$prev" = "--body-file" ] && body="$a"; prev="$a"; done\n'
        'case "$1 $2" in\n'
        f'  "pr view") printf \'{{"headRefOid": "%s"}}\' "$(cat "{bin_dir}/head")" ;;\n'
        f'  "pr comment") cp "$body" "{bin_dir}/comment.md" ;;\n'
        '  *) exit 1 ;;\n'
        "esac\n", encoding="utf-8")
    script.chmod(0o755)
    return bin_dir


def _comment(gh: Path, artifact: Path, head_sha: str = "a" * 40) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPTS / "pr-comment.sh"), str(artifact)], check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{gh}{os.pathsep}{os.environ['PATH']}", "HEAD_SHA": head_sha})


def _artifact(tmp_path: Path, number: str, report: str = "### Quick profile\n") -> Path:
    a = tmp_path / "artifact"
    a.mkdir(exist_ok=True)
    (a / "number").write_text(number, encoding="utf-8")
    (a / "report.md").write_text(report, encoding="utf-8")
    return a


def test_comment_is_posted_on_the_pull_request_the_run_measured(tmp_path: Path, gh: Path) -> None:
    out = _comment(gh, _artifact(tmp_path, "12\n", "### Quick profile\n" + "x" * 70000))
    assert out.returncode == 0, out.stdout + out.stderr
    assert (gh / "gh.log").read_text(encoding="utf-8").splitlines()[-1].startswith("pr comment 12 --body-file")
    body = (gh / "comment.md").read_text(encoding="utf-8")
    assert body.startswith("### Quick profile") and len(body) == 60000


@pytest.mark.parametrize("number", ["12; touch /tmp/owned", "$(id)", "0", "", "-1", "1" * 12])
def test_comment_refuses_an_artifact_that_names_no_pull_request(tmp_path: Path, gh: Path, number: str) -> None:
    out = _comment(gh, _artifact(tmp_path, number))
    assert out.returncode == 1 and "no pull request number" in out.stderr
    assert not (gh / "comment.md").exists() and not (gh / "gh.log").exists()


def test_comment_refuses_a_pull_request_at_another_commit(tmp_path: Path, gh: Path) -> None:
    out = _comment(gh, _artifact(tmp_path, "12"), head_sha="b" * 40)
    assert out.returncode == 1 and "not posting" in out.stderr
    assert not (gh / "comment.md").exists()


def test_comment_with_no_artifact_is_not_an_error(tmp_path: Path, gh: Path) -> None:
    (tmp_path / "empty").mkdir()
    out = _comment(gh, tmp_path / "empty")
    assert out.returncode == 0 and "nothing to post" in out.stdout


# ---------------------------------------------------------------- compare-pr.sh

@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """Base: two topics and the CI scripts; the test commits the pull request on top."""
    r = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(r))
    (r / "scripts" / "ci").mkdir(parents=True)
    for name in ("env.sh", "machine-lock.sh", "bench.sh", "compare-pr.sh"):
        shutil.copy2(SCRIPTS / name, r / "scripts" / "ci" / name)
    (r / "snippets").mkdir()
    (r / "bench").mkdir()
    for topic in ("alpha", "beta"):
        (r / "snippets" / f"{topic}.py").write_text("x = 1\n", encoding="utf-8")
        (r / "snippets" / f"{topic}.yaml").write_text("title: t\n", encoding="utf-8")
    (r / "bench" / "harness.py").write_text("h = 1\n", encoding="utf-8")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "base")
    return r


def _compare(repo: Path, venv: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "TFPERF_VENV": str(venv), "TFPERF_OUT": str(out)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([str(repo / "scripts" / "ci" / "compare-pr.sh"), *args], check=False, capture_output=True, text=True,
                          timeout=120, cwd=repo, env=env)


@pytest.mark.parametrize("changed,topics", [("snippets/alpha.py", ["alpha"]), ("bench/harness.py", [])])
def test_compare_measures_base_and_head_of_the_changed_topics(repo: Path, fake_venv: Path, tmp_path: Path,
                                                              changed: str, topics: list[str]) -> None:
    (repo / changed).write_text("x = 2\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "the pull request")
    out = tmp_path / "out"
    done = _compare(repo, fake_venv, out, "7", "HEAD~1")
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [line.split() for line in (tmp_path / "tfperf.log").read_text(encoding="utf-8").splitlines()]
    assert [r[r.index("--runner") + 1] for r in runs] == ["pr-head", "pr-base"]
    assert [r[r.index("--data") + 1] for r in runs] == [str(out / "head"), str(out / "base")]
    for r in runs:
        assert r[:5] == ["run", "--profile", "quick", "--shard", "1/1"] and "--force" in r
        assert [r[i + 1] for i, a in enumerate(r) if a == "--topic"] == topics
    assert (out / "pr-comment" / "number").read_text(encoding="utf-8").strip() == "7"
    assert "No comparison" in (out / "pr-comment" / "report.md").read_text(encoding="utf-8")
    assert git(repo, "worktree", "list").count("\n") == 1, "the base's worktree is left behind"


@pytest.mark.parametrize("args", [(), ("7; id",), ("0",), ("1", "2", "3")])
def test_compare_refuses_bad_arguments_before_installing(repo: Path, fake_venv: Path, tmp_path: Path,
                                                         args: tuple[str, ...]) -> None:
    done = _compare(repo, fake_venv, tmp_path / "out", *args)
    assert done.returncode == 64
    assert not (tmp_path / "tfperf.log").exists()

