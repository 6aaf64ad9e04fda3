"""The machine lock of scripts/ci/machine-lock.sh, run for real: with TFPERF_MACHINE_LOCK set,
a measuring job (bench.sh) waits while another job of the machine holds the lock, gives up
with 75 after TFPERF_MACHINE_LOCK_WAIT seconds without installing or measuring, goes on once
the lock is free, and refuses while someone else's process computes on the GPU. Which jobs
set the lock is checked in test_workflows.py. No TensorFlow, no network."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_ci_support import SCRIPTS

BASH = shutil.which("bash") or "bash"
pytestmark = pytest.mark.skipif(shutil.which("flock") is None, reason="flock (util-linux) is not installed")


def _holder(lock: Path, seconds: float, ready: Path) -> subprocess.Popen[str]:
    """Another job of the machine: takes the lock through machine-lock.sh and keeps it."""
    script = (f'set -euo pipefail\n. "{SCRIPTS / "machine-lock.sh"}"\ntfperf_machine_lock\n'
              f': > "{ready}"\nsleep {seconds}\n')
    proc = subprocess.Popen([BASH, "-c", script], env={**os.environ, "TFPERF_MACHINE_LOCK": str(lock),
                                                       "GITHUB_WORKFLOW": "tests", "GITHUB_RUN_ID": "77",
                                                       "GITHUB_JOB": "test"}, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the holder did not get the lock"
        time.sleep(0.05)
    return proc


def _bench(tmp_path: Path, fake_venv: Path, lock: Path, wait: str, path: str | None = None
           ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TFPERF_VENV": str(fake_venv), "TFPERF_OUT": str(tmp_path / "out"),
           "TFPERF_MACHINE_LOCK": str(lock), "TFPERF_MACHINE_LOCK_WAIT": wait}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(SCRIPTS / "bench.sh"), "quick", "1/1", "gpu-test"], capture_output=True, text=True,
                          timeout=120, check=False, env=env)


def _measured(tmp_path: Path) -> bool:
    return (tmp_path / "tfperf.log").exists()


def test_a_measurement_gives_up_while_another_job_holds_the_machine(tmp_path: Path, fake_venv: Path) -> None:
    lock = tmp_path / "machine.lock"
    holder = _holder(lock, 30, tmp_path / "ready")
    try:
        out = _bench(tmp_path, fake_venv, lock, "1")
    finally:
        holder.kill()
        holder.wait()
    assert out.returncode == 75, out.stdout + out.stderr
    assert "still held after 1s" in out.stderr and "tests run 77 job test" in out.stderr, out.stderr
    assert not _measured(tmp_path), "measured beside another job"


def test_a_measurement_waits_for_the_machine_and_then_runs(tmp_path: Path, fake_venv: Path) -> None:
    lock = tmp_path / "machine.lock"
    holder = _holder(lock, 3, tmp_path / "ready")
    t0 = time.monotonic()
    out = _bench(tmp_path, fake_venv, lock, "60")
    waited = time.monotonic() - t0
    holder.wait(timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "waiting up to 60s for the machine lock" in out.stdout
    assert waited >= 2.0 and _measured(tmp_path)
    assert lock.read_text(encoding="utf-8").startswith("pid "), "the lock file names its holder"


def test_a_free_machine_is_measured_at_once(tmp_path: Path, fake_venv: Path) -> None:
    out = _bench(tmp_path, fake_venv, tmp_path / "machine.lock", "0")
    assert out.returncode == 0 and "waiting" not in out.stdout and _measured(tmp_path), out.stdout + out.stderr


def test_no_lock_without_the_variable(tmp_path: Path, fake_venv: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFPERF_MACHINE_LOCK")}
    env.update(TFPERF_VENV=str(fake_venv), TFPERF_OUT=str(tmp_path / "out"))
    out = subprocess.run([str(SCRIPTS / "bench.sh"), "quick", "1/1", "hosted"], capture_output=True, text=True,
                         timeout=120, check=False, env=env)
    assert out.returncode == 0 and _measured(tmp_path)


def _fake_nvidia_smi(tmp_path: Path, output: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\nprintf '%s' '{output}'\n", encoding="utf-8")
    smi.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def test_a_gpu_busy_with_another_process_is_not_measured(tmp_path: Path, fake_venv: Path) -> None:
    path = _fake_nvidia_smi(tmp_path, "4242, python, 9000 MiB\n")
    out = _bench(tmp_path, fake_venv, tmp_path / "machine.lock", "0", path=path)
    assert out.returncode == 75 and "4242, python, 9000 MiB" in out.stderr, out.stdout + out.stderr
    assert not _measured(tmp_path)


def test_an_idle_gpu_is_measured(tmp_path: Path, fake_venv: Path) -> None:
    out = _bench(tmp_path, fake_venv, tmp_path / "machine.lock", "0", path=_fake_nvidia_smi(tmp_path, ""))
    assert out.returncode == 0 and _measured(tmp_path), out.stdout + out.stderr


@pytest.mark.parametrize("wait", ["soon", "-1"])
def test_a_wait_that_is_no_number_of_seconds_is_refused(tmp_path: Path, fake_venv: Path, wait: str) -> None:
    out = _bench(tmp_path, fake_venv, tmp_path / "machine.lock", wait)
    assert out.returncode == 64 and "TFPERF_MACHINE_LOCK_WAIT" in out.stderr
