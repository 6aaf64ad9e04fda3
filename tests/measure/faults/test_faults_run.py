"""Faults of a real ``tfperf run`` (TensorFlow at tiny sizes, in a subprocess like a user's
terminal): interrupted by SIGINT, SIGTERM or SIGKILL and resumed; a snippet that eats memory.

Each test's docstring starts with "Fault:" / "Happens:" / "Kept:" lines; the guide's
"Faults we test" page is generated from them (tfperf.render.site.faults)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tfperf import store
from tfperf.store.merge import canonical

pytestmark = pytest.mark.tf

BENCH = Path(__file__).resolve().parents[3] / "bench"

SNIPPET = textwrap.dedent("""
    import os, time
    import numpy as np


    def setup(params):
        return {"x": np.arange(4, dtype="float32") * params["n"], "marker": os.environ.get("FAULT_MARKER")}


    def nap(x, marker):
        time.sleep(0.004)
        return x * 2.0


    def nap_too(x, marker):
        time.sleep(0.004)
        return x + x


    def stuck(x, marker):
        open(marker, "w").close()
        time.sleep(600)


    def hog(x, marker):
        chunks = []
        for _ in range(200):                      # up to 12.8 GB, 64 MB at a time, every page touched
            chunks.append(np.ones(8 * 2**20))
            time.sleep(0.02)
        return x
""")


def _yaml(params: list[int], variants: dict[str, str], timeout_s: int = 60,
          exclude: list[dict[str, object]] | None = None) -> str:
    return json.dumps({
        "topic": "faultrun", "snippet": "faultrun.py", "reference": "nap", "default": "nap",
        "exclude": exclude or [],
        "variants": {name: {"fn": fn} for name, fn in variants.items()},
        "profiles": {"quick": {
            "params": {"n": params}, "settings": {"keras": ["3"]}, "timeout_s": timeout_s,
            "budget": {"min_samples": 5, "max_samples": 6, "budget_s": 0.1, "warmup_s": 0.01, "min_sample_s": 0.01},
        }},
    })


def _topic(tmp_path: Path, params: list[int], variants: dict[str, str], timeout_s: int = 60,
           exclude: list[dict[str, object]] | None = None) -> Path:
    d = tmp_path / "snippets"
    d.mkdir(exist_ok=True)
    (d / "faultrun.py").write_text(SNIPPET)
    (d / "faultrun.yaml").write_text(_yaml(params, variants, timeout_s, exclude))
    return d


def _start(tmp_path: Path, snippets: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(BENCH), "FAULT_MARKER": str(tmp_path / "marker")}
    return subprocess.Popen([sys.executable, "-m", "tfperf.cli", "run", "--profile", "quick", "--runner", "fault-box",
                             "--data", str(tmp_path / "data"), "--snippets", str(snippets), "--no-progress", *extra],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _path(tmp_path: Path) -> Path:
    return store.results_path(tmp_path / "data", "fault-box", "quick")


def _results(tmp_path: Path) -> list[dict[str, Any]]:
    p = _path(tmp_path)
    return store.load(p)["results"] if p.exists() else []


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(cond: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _interrupt_after_new_results(tmp_path: Path, snippets: Path, sig: int, before: int) -> tuple[str, str, list[int]]:
    proc = _start(tmp_path, snippets)
    _wait_for(lambda: len(_results(tmp_path)) > before, 120, "a first new result")
    workers = _children(proc.pid)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err       # 130 after SIGINT, 143 after SIGTERM
    assert "run `tfperf run` again" in err
    return out, err, workers


def _ran(out: str) -> tuple[int, int]:
    m = re.search(r"(?:ran|interrupted after) (\d+) case\(s\).*skipped (\d+)", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def test_sigint_then_sigterm_then_resume(tmp_path: Path) -> None:
    """Fault: SIGINT (Ctrl-C), then SIGTERM, in the middle of `tfperf run`; then the same command again.
    Happens: each time the run stops within seconds with the exit status a shell gives for the signal (130 for SIGINT, 143 for SIGTERM) and says how to resume; its worker process is killed, not left behind.
    Kept: every case finished before the signal, in a valid results file; the resumed runs measure only the rest, so each case is measured once."""
    n_cases = 10
    snippets = _topic(tmp_path, list(range(1, n_cases + 1)), {"nap": "nap"})
    # 1. SIGINT after the first result.
    out, _, workers = _interrupt_after_new_results(tmp_path, snippets, signal.SIGINT, 0)
    first = _results(tmp_path)
    assert 1 <= len(first) < n_cases
    assert workers and not any(_alive(w) for w in workers)
    # 2. Resume, SIGTERM after it added something.
    out, _, workers = _interrupt_after_new_results(tmp_path, snippets, signal.SIGTERM, len(first))
    ran, skipped = _ran(out)
    assert skipped == len(first)
    second = _results(tmp_path)
    assert len(first) < len(second) < n_cases
    assert workers and not any(_alive(w) for w in workers)
    # 3. Resume to the end.
    proc = _start(tmp_path, snippets)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    ran, skipped = _ran(out)
    assert (ran, skipped) == (n_cases - len(second), len(second))
    final = _results(tmp_path)
    assert sorted(r["case_id"] for r in final) == sorted({r["case_id"] for r in final})  # each case once
    assert len(final) == n_cases and all(r["status"] == "ok" for r in final)
    kept = {canonical(r) for r in final}
    assert all(canonical(r) in kept for r in first + second), "records of the interrupted runs are unchanged"


def test_sigkill_of_the_run_leaves_no_worker_and_a_valid_file(tmp_path: Path) -> None:
    """Fault: SIGKILL of `tfperf run` (no chance to clean up) while its worker is inside a long case.
    Happens: the orphaned worker notices its parent is gone and exits within seconds instead of finishing (or hanging in) the case.
    Kept: the results file is valid and holds every case finished before the kill."""
    # Two scenarios: n=1 (nap alone) is finished and saved before n=2 (nap and stuck) starts.
    snippets = _topic(tmp_path, [1, 2], {"nap": "nap", "stuck": "stuck"}, timeout_s=600,
                      exclude=[{"n": 1, "variant": "stuck"}])
    proc = _start(tmp_path, snippets)
    marker = tmp_path / "marker"
    _wait_for(marker.exists, 120, "the long case to start")
    _wait_for(lambda: len(_results(tmp_path)) == 1, 30, "the first scenario's result to be saved")
    workers = _children(proc.pid)
    assert workers
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    _wait_for(lambda: not any(_alive(w) for w in workers), 10, "the orphaned worker to exit")
    assert [r["variant"] for r in _results(tmp_path)] == ["nap"]


def test_memory_hog_is_capped(tmp_path: Path) -> None:
    """Fault: a snippet that allocates memory without bound, run with `--memory-limit-mb`.
    Happens: its worker is killed when its resident memory passes the limit; the case is stored as crashed with "exceeded the memory limit"; a fresh worker runs the remaining cases.
    Kept: the cases before and after it, measured and ok."""
    snippets = _topic(tmp_path, [1], {"nap": "nap", "hog": "hog", "nap_too": "nap_too"})
    proc = _start(tmp_path, snippets, "--memory-limit-mb", "1500")
    _out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    by = {r["variant"]: r for r in _results(tmp_path)}
    assert by["hog"]["status"] == "crashed" and "memory limit of 1500 MB" in by["hog"]["error"]
    assert by["nap"]["status"] == by["nap_too"]["status"] == "ok"
    assert by["nap_too"]["output"]["within_tolerance"] is True
