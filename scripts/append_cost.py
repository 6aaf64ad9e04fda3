#!/usr/bin/env python3
"""What one ``tfperf.store.append`` costs as a results file grows.

A run appends each scenario's results to one file as they are measured; if an append
costs in proportion to what the file already holds, a run's store time grows with the
square of its size. This script appends N results one at a time to a fresh synthetic
file (the records of ``tests/store_records.py``, the shape the worker writes), as a run
does from one process, and prints the wall time of the 1st and the Nth append (the
median of the appends around each, so that one disk hiccup does not decide), then the
time of an append made by a fresh process (another run's first append to the same file:
it must read and check the whole file once).

Usage: .venv/bin/python scripts/append_cost.py [-n 1000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))   # the tests' record builders

from store_records import make_result

from tfperf import store

WINDOW = 5      # appends around the 1st and the Nth whose median is reported


def _append(path: Path, n: int) -> float:
    t0 = time.perf_counter()
    store.append(path, runner_label="test-runner", profile="quick", results=[make_result(n)])
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
