#!/usr/bin/env python3
"""Do a speedup's intervals cover what differs between worker processes? One cpu_threads
scenario measured again and again in fresh processes, with one and with two processes per
settings group.

The scenario: the cpu_threads topic's MLP at batch 1, back to back, under intra-op threads
= the core count and TensorFlow's default (the topic's control: the two do the same thing),
with oneDNN on and off. Each run is a fresh ``tfperf run`` of that scenario alone, with the
budget of the full profile (or of ``--profile history``, under ``--tf`` a release), into a
temporary data folder, with ``processes`` 1 or 2 in the budget; the runs alternate between
the two. For each run the script prints the control's ratio (threads = cores over the
default) per oneDNN setting and its interval as the pages compute it, and oneDNN off over
on, a finding the pages publish. At the end: how many control intervals contain 1.0 (a 95%
interval should, about 19 times in 20; a process difference the rounds cannot see makes it
miss more often), and how far the runs' oneDNN finding lies apart against how wide its
intervals are (intervals narrower than the run-to-run spread let one run's processes decide
the finding).

The run takes about a minute per run on a 2-core runner; run it with nothing else on the
machine. Usage: .venv/bin/python scripts/process_bias.py [--runs N] [--keep DIR]
[--profile history --tf 2.16.2 --venvs DIR --budget-scale 2]
Exit 1 when the two-process intervals contain 1.0 less often than the one-process ones.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
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


def scenario_topic(snippets: Path, profile: str, processes: int, cores: int) -> None:
    """The cpu_threads topic, its ``profile`` narrowed to the one scenario, in ``snippets``."""
    snippets.mkdir(parents=True, exist_ok=True)
    for name in ("cpu_threads.py", "_standalone.py"):
        shutil.copy(ROOT / "snippets" / name, snippets / name)
    topic = yaml.safe_load((ROOT / "snippets" / "cpu_threads.yaml").read_text())
    own = topic["profiles"][profile]
    topic["profiles"] = {profile: {
        "params": {"model": ["mlp"], "batch": [1]},
        "settings": {"threads": ["default", str(cores)], "onednn": ["1", "0"]},
        "budget": {**own["budget"], "processes": processes}, "timeout_s": own["timeout_s"]}}
    (snippets / "cpu_threads.yaml").write_text(yaml.safe_dump(topic, sort_keys=False))


def ratios(data: Path, profile: str, cores: int) -> list[tuple[str, float, float, float]]:
    """(what, ratio, low, high): threads=cores over the default per oneDNN setting (the
    controls), and oneDNN off over on at the default threads (a finding the pages publish)."""
    doc = store.load(store.results_path(data, RUNNER, profile))
    source = Source(str(data), RUNNER, profile)
    by = {r["case_id"]: Measurement.of(ResultRecord.from_json(r), source, RUNNER) for r in doc["results"]}

    def case(onednn: str, threads: str) -> Measurement | None:
        m = by.get(f"cpu_threads/batch=1,model=mlp/onednn={onednn},threads={threads}/call")
        return m if m is not None and m.ok else None

    pairs = [(f"control, oneDNN={o}", case(o, "default"), case(o, str(cores))) for o in ("1", "0")]
    pairs.append(("oneDNN off over on", case("1", "default"), case("0", "default")))
    out = []
    for what, base, other in pairs:
        if base is not None and other is not None:
            r = RatioCache().speedup(base, other)
            out.append((what, r.point, r.low, r.high))
    return out


def spread(found: list[tuple[float, float, float]]) -> str:
    """How far one finding's runs lie apart, against how wide their intervals are."""
    logs = [math.log(p) for p, _, _ in found]
    middle = math.exp(statistics.median(logs))
    inside = sum(low <= middle <= high for _, low, high in found)
    half = statistics.median((high - low) / 2 / p for p, low, high in found)
    sd = statistics.stdev(logs) if len(logs) > 1 else float("nan")
    return (f"runs {min(p for p, _, _ in found):.3f}-{max(p for p, _, _ in found):.3f}, run-to-run SD "
            f"{sd:.1%}, interval half-width median {half:.1%}, {inside} of {len(found)} intervals "
            f"contain the runs' median {middle:.3f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10, help="runs in all, alternating one and two processes")
    p.add_argument("--keep", metavar="DIR", help="keep every run's data folder under DIR")
    p.add_argument("--profile", choices=("full", "history"), default="full",
                   help="whose budget the scenario gets (default: full)")
    p.add_argument("--tf", metavar="VERSION", help="passed to tfperf run: the TensorFlow release to run under")
    p.add_argument("--venvs", metavar="DIR", help="passed to tfperf run with --tf")
    p.add_argument("--budget-scale", metavar="X", help="passed to tfperf run")
    args = p.parse_args(argv)
    cores = os.cpu_count() or 1
    tfperf = Path(sys.executable).with_name("tfperf")
    passed = [f"--{k.replace('_', '-')}={v}" for k, v in
              (("tf", args.tf), ("venvs", args.venvs), ("budget_scale", args.budget_scale)) if v]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tfperf-process-bias-"))
    covered: dict[int, list[bool]] = {1: [], 2: []}
    found: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
    for run in range(args.runs):
        processes = 1 + run % 2
        snippets, data = work / f"run{run + 1}" / "snippets", work / f"run{run + 1}" / "data"
        scenario_topic(snippets, args.profile, processes, cores)
        done = subprocess.run([str(tfperf), "run", "--profile", args.profile, "--topic", "cpu_threads",
                               "--runner", RUNNER, "--snippets", str(snippets), "--data", str(data),
                               "--no-progress", *passed],
                              check=False, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"run {run + 1}: tfperf run failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
            continue
        for what, point, low, high in ratios(data, args.profile, cores):
            if what.startswith("control"):
                covered[processes].append(low <= 1.0 <= high)
                flag = "" if low <= 1.0 <= high else "  <-- leaves out 1.0"
            else:
                found[processes].append((point, low, high))
                flag = ""
            print(f"run {run + 1}, {processes} process(es) per group, {what}: {point:.3f} [{low:.3f}, {high:.3f}]"
                  f"{flag}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    share = {k: (sum(v) / len(v) if v else None) for k, v in covered.items()}
    for k, v in covered.items():
        print(f"{k} process(es) per group: {sum(v)} of {len(v)} control intervals contain 1.0")
        if found[k]:
            print(f"{k} process(es) per group, oneDNN off over on: {spread(found[k])}")
    one, two = share[1], share[2]
    return 1 if one is None or two is None or two < one else 0


if __name__ == "__main__":
    sys.exit(main())
