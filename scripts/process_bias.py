#!/usr/bin/env python3
"""Do a speedup's intervals cover what differs between worker processes? One cpu_threads
scenario measured again and again in fresh processes, with one and with two processes per
settings group.

The scenario: the cpu_threads topic's MLP at batch 1, back to back, under intra-op threads
= the core count and TensorFlow's default (the topic's control: the two do the same thing),
with oneDNN on and off. Each run is a fresh ``tfperf run --profile full`` of that scenario
alone, into a temporary data folder, with ``processes`` 1 or 2 in the budget; the runs
alternate between the two. For each run and oneDNN setting the script prints the
control's ratio (threads = cores over the default) and its interval as the pages compute
it, and at the end how many intervals contain 1.0: a 95% interval should, about 19 times
in 20, and a process difference the rounds cannot see makes it miss more often.

The run takes about a minute per run on a 2-core runner; run it with nothing else on the
machine. Usage: .venv/bin/python scripts/process_bias.py [--runs N] [--keep DIR]
Exit 1 when the two-process intervals contain 1.0 less often than the one-process ones.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

from tfperf import store
from tfperf.analyse.judge.scenarios import RatioCache
from tfperf.analyse.records import Measurement, Source
from tfperf.store.result import ResultRecord

RUNNER = "process-bias"


def scenario_topic(snippets: Path, processes: int, cores: int) -> None:
    """The cpu_threads topic, its full profile narrowed to the one scenario, in ``snippets``."""
    snippets.mkdir(parents=True, exist_ok=True)
    for name in ("cpu_threads.py", "_standalone.py"):
        shutil.copy(ROOT / "snippets" / name, snippets / name)
    topic = yaml.safe_load((ROOT / "snippets" / "cpu_threads.yaml").read_text())
    full = topic["profiles"]["full"]
    topic["profiles"] = {"full": {
        "params": {"model": ["mlp"], "batch": [1]},
        "settings": {"threads": ["default", str(cores)], "onednn": ["1", "0"]},
        "budget": {**full["budget"], "processes": processes}, "timeout_s": full["timeout_s"]}}
    (snippets / "cpu_threads.yaml").write_text(yaml.safe_dump(topic, sort_keys=False))


def controls(data: Path, cores: int) -> list[tuple[str, float, float, float]]:
    """(oneDNN setting, ratio, low, high) of threads=cores over the default, per oneDNN setting."""
    doc = store.load(store.results_path(data, RUNNER, "full"))
    source = Source(str(data), RUNNER, "full")
    by = {r["case_id"]: Measurement.of(ResultRecord.from_json(r), source, RUNNER) for r in doc["results"]}
    out = []
    for onednn in ("1", "0"):
        base = by.get(f"cpu_threads/batch=1,model=mlp/onednn={onednn},threads=default/call")
        other = by.get(f"cpu_threads/batch=1,model=mlp/onednn={onednn},threads={cores}/call")
        if base is not None and other is not None and base.ok and other.ok:
            r = RatioCache().speedup(base, other)
            out.append((onednn, r.point, r.low, r.high))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10, help="runs in all, alternating one and two processes")
    p.add_argument("--keep", metavar="DIR", help="keep every run's data folder under DIR")
    args = p.parse_args(argv)
    cores = os.cpu_count() or 1
    tfperf = Path(sys.executable).with_name("tfperf")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tfperf-process-bias-"))
    covered: dict[int, list[bool]] = {1: [], 2: []}
    for run in range(args.runs):
        processes = 1 + run % 2
        snippets, data = work / f"run{run + 1}" / "snippets", work / f"run{run + 1}" / "data"
        scenario_topic(snippets, processes, cores)
        done = subprocess.run([str(tfperf), "run", "--profile", "full", "--topic", "cpu_threads", "--runner", RUNNER,
                               "--snippets", str(snippets), "--data", str(data), "--no-progress"],
                              check=False, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"run {run + 1}: tfperf run failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
            continue
        for onednn, point, low, high in controls(data, cores):
            covered[processes].append(low <= 1.0 <= high)
            print(f"run {run + 1}, {processes} process(es) per group, oneDNN={onednn}: threads={cores} over the "
                  f"default {point:.3f} [{low:.3f}, {high:.3f}]{'' if low <= 1.0 <= high else '  <-- leaves out 1.0'}",
                  flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    share = {k: (sum(v) / len(v) if v else None) for k, v in covered.items()}
    for k, v in covered.items():
        print(f"{k} process(es) per group: {sum(v)} of {len(v)} intervals contain 1.0")
    one, two = share[1], share[2]
    return 1 if one is None or two is None or two < one else 0


if __name__ == "__main__":
    sys.exit(main())
