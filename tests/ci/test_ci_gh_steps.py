"""The two CI steps that only talk to GitHub, against a fake ``gh`` (no network):

* scripts/ci/post-checks.sh: the dispatched tests run posts each job's outcome as a check run
  of the job's name on the results branch's head commit (the results pull request's checks);
* scripts/ci/gpu-watchdog.sh: the GPU run is cancelled when no self-hosted runner takes its
  job in time, and left alone once one has."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "ci"
SHA = "0123456789abcdef0123456789abcdef01234567"


def _gh(tmp: Path, job_states: list[str] | None = None) -> Path:
    """A gh that logs each call, one argument a line, calls separated by '--'; ``api .../jobs``
    answers the next of ``job_states`` (the GPU job's status; the last one repeats) as --jq
    would, after checking the filter names the job."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "states").write_text("\n".join(job_states or []) + "\n")
    gh = bin_dir / "gh"
    gh.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do printf "%s\\n" "$a"; done >> "{bin_dir}/calls"; echo -- >> "{bin_dir}/calls"\n'
        'case "$*" in\n'
        '  *"/jobs?per_page=100"*)\n'
        f'    state="$(head -n 1 "{bin_dir}/states")"\n'
        f'    [ "$(wc -l < "{bin_dir}/states")" -gt 1 ] && sed -i 1d "{bin_dir}/states"\n'
        '    echo "$state" ;;\n'
        "esac\n")
    gh.chmod(0o755)
    return bin_dir


def _calls(bin_dir: Path) -> list[list[str]]:
    text = (bin_dir / "calls").read_text() if (bin_dir / "calls").exists() else ""
    return [c.strip("\n").split("\n") for c in text.split("--\n") if c.strip()]


def _run(script: str, args: list[str], bin_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPTS / script), *args], check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **env})


# ---------------------------------------------------------------- post-checks.sh

def test_each_jobs_outcome_becomes_a_check_run_of_its_name_on_the_head_commit(tmp_path: Path) -> None:
    gh = _gh(tmp_path)
    names = ["results files validate; a pull request only adds results", "pytest (TensorFlow at tiny sizes)"]
    out = _run("post-checks.sh", [f"{names[0]}=success", f"{names[1]}=failure"], gh,
               GH_REPO="o/r", HEAD_SHA=SHA, RUN_URL="https://github.com/o/r/actions/runs/1")
    assert out.returncode == 0, out.stdout + out.stderr
    calls = _calls(gh)
    assert len(calls) == 2
    for call, name, conclusion in zip(calls, names, ["success", "failure"]):
        assert call[:4] == ["api", "--method", "POST", "repos/o/r/check-runs"]
        fields = dict(call[i + 1].split("=", 1) for i, a in enumerate(call) if a == "-f")
        assert fields["name"] == name and fields["head_sha"] == SHA
        assert fields["status"] == "completed" and fields["conclusion"] == conclusion
        assert fields["details_url"] == "https://github.com/o/r/actions/runs/1"


@pytest.mark.parametrize("args,env", [
    (["pytest=maybe"], {"GH_REPO": "o/r", "HEAD_SHA": SHA}),
    (["no-result"], {"GH_REPO": "o/r", "HEAD_SHA": SHA}),
    (["=success"], {"GH_REPO": "o/r", "HEAD_SHA": SHA}),
    (["pytest=success"], {"GH_REPO": "o/r", "HEAD_SHA": "main; rm -rf /"}),
    ([], {"GH_REPO": "o/r", "HEAD_SHA": SHA}),
])
def test_post_checks_refuses_what_is_not_a_check(tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
    gh = _gh(tmp_path)
    out = _run("post-checks.sh", args, gh, **env)
    assert out.returncode == 64, out.stdout + out.stderr
    assert _calls(gh) == []


# ---------------------------------------------------------------- gpu-watchdog.sh

JOB = "GPU (self-hosted runner from vars.GPU_RUNNER_LABEL)"


def _watch(tmp_path: Path, states: list[str], wait_minutes: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    gh = _gh(tmp_path, states)
    out = _run("gpu-watchdog.sh", [JOB], gh, GH_REPO="o/r", RUN_ID="77", WAIT_MINUTES=wait_minutes,
               POLL_SECONDS="0")
    return out, gh


def test_a_gpu_job_no_runner_takes_gets_its_run_cancelled(tmp_path: Path) -> None:
    out, gh = _watch(tmp_path, ["queued"], "0")
    assert out.returncode == 1 and "No self-hosted runner took" in out.stdout, out.stdout + out.stderr
    calls = _calls(gh)
    assert calls[-1] == ["api", "--method", "POST", "repos/o/r/actions/runs/77/cancel"]
    jq = calls[0][calls[0].index("--jq") + 1]
    assert json.dumps(JOB) in jq, "the filter names the GPU job"


@pytest.mark.parametrize("states", [["in_progress"], ["queued", "queued", "in_progress"], ["completed"]])
def test_a_gpu_job_a_runner_took_is_left_alone(tmp_path: Path, states: list[str]) -> None:
    out, gh = _watch(tmp_path, states, "1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert not any("cancel" in " ".join(c) for c in _calls(gh))
    assert len(_calls(gh)) == len(states)


def test_the_watchdog_refuses_a_wait_that_is_not_minutes(tmp_path: Path) -> None:
    out, gh = _watch(tmp_path, ["queued"], "soon")
    assert out.returncode == 64 and _calls(gh) == []
