#!/usr/bin/env python3
"""What one ``tfperf.store.append`` costs as a results file grows.

A run appends each scenario's results to one file as they are measured; if an append
costs in proportion to what the file already holds, a run's store time grows with the
square of its size. This script appends N results one at a time to a fresh synthetic
file (copies of one result record as the worker writes it, :data:`RESULT`), as a run
does from one process, and prints the wall time of the 1st and the Nth append (the
median of the appends around each, so that one disk hiccup does not decide), then the
time of an append made by a fresh process (another run's first append to the same file:
it must read and check the whole file once).

Usage: .venv/bin/python scripts/append_cost.py [-n 1000] [--json OUT]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tfperf import store

WINDOW = 5      # appends around the 1st and the Nth whose median is reported

# One ok result as the worker writes it. Appends differ only in the batch, which makes a new
# case id; the key stays the same, and so does key_hash, which the store checks against it.
# The key names the file's runner; env_id is None since the file holds no environment record.
RUNNER = "linux-x86_64-2core-cpu"
RESULT: dict[str, Any] = {
    "case_id": "predict_loop/batch=32,model=tiny/keras=3/model_call", "topic": "predict_loop",
    "variant": "model_call", "params": {"batch": 32, "model": "tiny"}, "settings": {"keras": "3"},
    "key": {"harness_version": "1", "keras": "3.15.1", "runner": RUNNER, "settings": {"keras": "3"},
            "snippet_hash": "0f1e2d3c4b5a6978", "tensorflow": "2.21.0"},
    "key_hash": "d58aa5364d9383f7", "env_id": None, "status": "ok", "error": None,
    "is_default": False, "is_reference": True, "interleave": None, "metrics": {},
    "started_at": "2026-05-01T12:00:00+00:00", "finished_at": "2026-05-01T12:00:05+00:00",
    "duration_s": 1.2, "setup_s": 0.2, "first_call_s": 0.41, "warmup": {"calls": 12, "seconds": 0.1},
    "output": {"atol": 1e-05, "rtol": 0.0001, "max_abs_diff": None, "max_rel_diff": None, "note": "reference",
               "within_tolerance": True},
    "timing": {"inner_loops": 4, "stopped_by": "ci",
               "samples": [0.000399, 0.0004116, 0.00042, 0.00042, 0.0004284, 0.0004368, 0.000462],
               "summary": {"n": 7, "min": 0.000399, "max": 0.000462, "median": 0.00042, "mean": 0.0004242,
                           "stdev": 1.26e-05, "iqr": 2.1e-05, "ci_low": 0.0004074, "ci_high": 0.0004368}},
}


def make_result(n: int) -> dict[str, Any]:
    """:data:`RESULT` measured at batch ``n``: a case id of its own."""
    r = copy.deepcopy(RESULT)
    r["params"] = {"batch": n, "model": "tiny"}
    r["case_id"] = f"predict_loop/batch={n},model=tiny/keras=3/model_call"
    return r


def _append(path: Path, n: int) -> float:
    result = make_result(n)
    t0 = time.perf_counter()
    store.append(path, runner_label=RUNNER, profile="quick", results=[result])
    return time.perf_counter() - t0


def measure(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "quick.json"
        times = [_append(path, i) for i in range(1, n + 1)]
        # Another process's first append to the same file (nothing kept, nothing cached).
        out = subprocess.run([sys.executable, __file__, "--one", str(path), str(n + 1)],
                             capture_output=True, text=True, check=True)
        fresh = float(out.stdout)
        assert len(store.load(path)["results"]) == n + 1
    return {"n": n, "first_s": statistics.median(times[:WINDOW]), "last_s": statistics.median(times[-WINDOW:]),
            "fresh_process_s": fresh, "total_s": sum(times)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000, help="results to append (default 1000)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--one", nargs=2, metavar=("FILE", "N"), help=argparse.SUPPRESS)   # the fresh process
    args = ap.parse_args()
    if args.one:
        print(_append(Path(args.one[0]), int(args.one[1])))
        return 0
    r = measure(args.n)
    print(f"append #1:     {r['first_s'] * 1e3:8.2f} ms  (median of appends 1-{WINDOW})")
    print(f"append #{args.n}: {r['last_s'] * 1e3:8.2f} ms  (median of appends {args.n - WINDOW + 1}-{args.n})")
    print(f"a fresh process's first append to the {args.n}-result file: {r['fresh_process_s'] * 1e3:.2f} ms")
    print(f"all {args.n} appends: {r['total_s']:.2f} s")
    if args.json:
        args.json.write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
