#!/usr/bin/env python3
"""tfperf against pyperf on one TensorFlow case, and which of the harness's arrival
patterns pyperf's median matches, in one run of this script.

The case: the predict-vs-call topic's medium MLP (256-1024-1024-1024-10) forward pass in a
tf.function, batch 1 (the topic's own setup and variant functions). The script runs
``--rounds`` rounds (order alternating from one round to the next); in each, pyperf times the
call in fresh processes (`pyperf timeit`, short runs: ``20 / rounds`` processes of 3 values
after a warm-up each, so pyperf's defaults over the whole run), and the harness times it
under each of its arrival patterns: back to back, one request after 10 ms idle, and Poisson
arrivals at 30% and 70% of the back-to-back throughput.

1. Target: tfperf's back-to-back CI half-width (relative to its median) no wider than
   pyperf's, in at most a third of pyperf's wall time (process start, TensorFlow import
   and warm-up included); both CIs of the median are distribution-free, from order
   statistics.
2. Patterns: pyperf's median over each pattern's median request (p50; back to back: the
   median per call), paired by round: the ratio of the medians of every value pooled, with
   a percentile-bootstrap CI that resamples whole rounds (``stats.paired_quantile_ratio``).
   A pattern matches when that CI lies within ±5% of 1 or contains 1 (the same, or not
   told apart from it); the script names the closest that matches, or says none does.

``--quick``: the tiny model, 2 rounds (or ``--rounds``) of 1 pyperf process (16 loops, no calibration) and short
harness blocks, a smoke test of the whole path (its figures mean nothing; the test suite runs one round). The full run takes 6-8 minutes
on a 2-core runner; run it with nothing else on the machine.

Usage: .venv/bin/python scripts/vs_pyperf.py [--rounds N] [--quick] [--json OUT]
(pyperf is in the test extra). Exit 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]

from tfperf import stats, store
from tfperf.analyse import Measurement, analyse
from tfperf.arrival import words
from tfperf.measure.supervise.orchestrate import RunOptions, run

VARIANT = "call_tf_function"
SETUP = ("import sys; sys.path.insert(0, {snippets!r}); "
         "from predict_vs_call import setup_tf_function, call_tf_function; "
         "kw = setup_tf_function({params!r})")
STMT = "call_tf_function(**kw).numpy()"
PATTERNS = ("back_to_back", "idle-10ms", "poisson-0.3", "poisson-0.7")
MATCH = stats.MIN_EFFECT      # a ratio within ±5% of 1 is the same call time
PYPERF_PROCESSES = 20         # pyperf timeit's default, spread over the rounds


class Plan(NamedTuple):
    """What one run measures: the model, the rounds, pyperf's processes a round and the
    harness's budget per pattern (a scenario per pattern in each round); ``loops``: pyperf's
    calls per value, or 0 for its own calibration (a process of its own, TensorFlow and all)."""

    model: str
    rounds: int
    processes: int
    budget: dict[str, float]
    loops: int = 0


FULL = Plan("medium", 4, PYPERF_PROCESSES // 4,
            {"min_samples": 15, "max_samples": 200, "target_rel_ci": 0.01, "budget_s": 3.0, "warmup_s": 0.3,
             "min_sample_s": 0.02})
QUICK = Plan("tiny", 2, 1, {"min_samples": 3, "max_samples": 10, "target_rel_ci": 0.5, "budget_s": 0.2,
                           "warmup_s": 0.05, "min_sample_s": 0.01}, loops=16)


def params(plan: Plan) -> dict[str, Any]:
    return {"model": plan.model, "batch": 1, "input": "numpy"}


def _topic(plan: Plan) -> str:
    return json.dumps({
        "topic": "vspyperf", "snippet": "predict_vs_call.py", "reference": VARIANT, "default": VARIANT,
        "variants": {VARIANT: {"fn": "call_tf_function", "setup": "setup_tf_function"}},
        "profiles": {"full": {
            "params": {k: [v] for k, v in params(plan).items()}, "settings": {"keras": ["3"]},
            "arrivals": [{"pattern": "back_to_back"}, {"pattern": "idle", "gap_s": 0.01, "requests": 30},
                         {"pattern": "poisson", "rate": 0.3}, {"pattern": "poisson", "rate": 0.7}],
            "budget": plan.budget,
        }},
    })


def run_tfperf(work: Path, plan: Plan, round_: int) -> dict[str, Any]:
    """One round of the harness: every pattern's values (back to back: seconds per call of
    each sample; a per-request pattern: each request's latency) and the back-to-back
    scenario's wall time."""
    data = work / f"data-{round_}"
    report = run(RunOptions(profile="full", data_root=data, snippets_dir=work / "snippets", runner="vs-pyperf",
                            progress=False))
    doc = store.load(report.path)
    ds = analyse(data / "results", work / "snippets")
    values: dict[str, list[float]] = {}
    for m in [*ds.current, *ds.arrivals]:
        if _ours(m):
            values[m.arrival_id] = ([x for r in m.latencies for x in r] if m.latencies else list(m.samples))
    wall = sum(float(s["seconds"]) for s in doc["scenarios"] if not any("@" in c for c in s["cases"]))
    return {"values": values, "wall_s": wall}


def _ours(m: Measurement) -> bool:
    return m.ok and m.variant == VARIANT and not m.case_id.endswith("#aa")


def run_pyperf(work: Path, plan: Plan, round_: int) -> dict[str, Any]:
    """One round of pyperf: ``plan.processes`` fresh processes of its default short runs."""
    out = work / f"pyperf-{round_}.json"
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "0", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pyperf", "timeit", "--quiet", "--processes", str(plan.processes),
           *(["--loops", str(plan.loops)] if plan.loops else []),
           "--inherit-environ", "TF_USE_LEGACY_KERAS,TF_CPP_MIN_LOG_LEVEL", "-o", str(out),
           "-s", SETUP.format(snippets=str(work / "snippets"), params=params(plan)), STMT]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    data = json.loads(out.read_text())
    return {"values": [v for run_ in data["benchmarks"][0]["runs"] for v in run_.get("values", [])], "wall_s": wall}


def target(pyperf: list[list[float]], pyperf_wall: float, back: list[list[float]], tfperf_wall: float
           ) -> tuple[list[str], bool]:
    """The target's lines: both tools' median with its CI over every value pooled, and the
    wall times summed over the rounds."""
    p, t = stats.summarize([x for r in pyperf for x in r]), stats.summarize([x for r in back for x in r])
    lines = [f"{name}: median {s.median * 1e3:.3f} ms, 95% CI of the median ±{s.rel_ci_halfwidth:.2%} "
             f"({s.n} values), wall time {wall:.1f} s"
             for name, s, wall in (("pyperf", p, pyperf_wall), ("tfperf", t, tfperf_wall))]
    ok = t.rel_ci_halfwidth <= p.rel_ci_halfwidth and tfperf_wall <= pyperf_wall / 3
    lines.append(f"tfperf: CI {t.rel_ci_halfwidth / p.rel_ci_halfwidth:.2f}x pyperf's width in "
                 f"{tfperf_wall / pyperf_wall:.2f}x its wall time (target: <= 1x in <= 0.33x): "
                 f"{'PASS' if ok else 'FAIL'}")
    return lines, ok


def pattern_match(pyperf: list[list[float]], patterns: dict[str, list[list[float]]]) -> list[str]:
    """Which of the harness's patterns pyperf's median matches, in lines: for each pattern
    (measured in the same rounds as ``pyperf``, one list of values per round), pyperf's
    median over the pattern's, paired by round, with its CI; a pattern matches when the CI
    is within ±5% of 1 or contains 1. The last line names the closest that matches, or says
    that none does and names the closest."""
    rows: dict[str, tuple[float, float, float]] = {}
    for arrival, rounds in patterns.items():
        if len(rounds) == len(pyperf) and all(rounds):
            rows[arrival] = stats.paired_quantile_ratio(pyperf, rounds, 0.5)
    if not rows:
        return ["arrival patterns: none measured in every round"]
    pooled = stats.median([x for r in pyperf for x in r])
    lines = [f"pyperf's median ({pooled * 1e3:.3f} ms) over each pattern's median, paired in {len(pyperf)} rounds:"]

    def matches(r: tuple[float, float, float]) -> bool:
        return r[1] <= 1.0 <= r[2] or stats.finding(r[1], r[2], MATCH) == stats.SAME
    for arrival, (point, lo, hi) in rows.items():
        median = stats.median([x for r in patterns[arrival] for x in r])
        lines.append(f"  {words(arrival)}: {median * 1e3:.3f} ms, pyperf {point:.2f}x (95% CI {lo:.2f}-{hi:.2f})"
                     + ("  matches" if matches(rows[arrival]) else ""))
    closest = min(rows, key=lambda k: abs(math.log(rows[k][0])))
    matched = [k for k in rows if matches(rows[k])]
    if matched:
        best = min(matched, key=lambda k: abs(math.log(rows[k][0])))
        lines.append(f"pyperf's median matches: {words(best)} ({best})"
                     + (f"; also within the noise: {', '.join(words(k) for k in matched if k != best)}"
                        if len(matched) > 1 else ""))
    else:
        lines.append(f"pyperf's median matches none of the patterns; the closest: {words(closest)} ({closest}), "
                     f"{rows[closest][0]:.2f}x")
    return lines


def measure(plan: Plan) -> dict[str, Any]:
    """The rounds, pyperf first in the even ones: every value of each tool by round."""
    pyperf: list[list[float]] = []
    patterns: dict[str, list[list[float]]] = {a: [] for a in PATTERNS}
    walls = {"pyperf": 0.0, "tfperf": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "snippets").mkdir()
        shutil.copy(ROOT / "snippets" / "predict_vs_call.py", work / "snippets")
        shutil.copy(ROOT / "snippets" / "_standalone.py", work / "snippets")
        (work / "snippets" / "vspyperf.yaml").write_text(_topic(plan))
        for i in range(plan.rounds):
            order = (run_pyperf, run_tfperf) if i % 2 == 0 else (run_tfperf, run_pyperf)
            for fn in order:
                got = fn(work, plan, i)
                name = fn.__name__.split("_")[1]
                walls[name] += got["wall_s"]
                if name == "pyperf":
                    pyperf.append(got["values"])
                else:
                    for a in PATTERNS:
                        patterns[a].append(got["values"].get(a, []))
    return {"pyperf": pyperf, "patterns": patterns, "walls": walls}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=None,
                    help=f"rounds of both tools (default {FULL.rounds}, pyperf: 20 processes in all; --quick: {QUICK.rounds})")
    ap.add_argument("--quick", action="store_true", help="a smoke test: the tiny model, short rounds")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    rounds = args.rounds if args.rounds is not None else (QUICK if args.quick else FULL).rounds
    if not 1 <= rounds <= PYPERF_PROCESSES:
        ap.error(f"--rounds: between 1 and {PYPERF_PROCESSES}, got {rounds}")
    plan = (QUICK._replace(rounds=rounds) if args.quick
            else Plan(FULL.model, rounds, max(1, PYPERF_PROCESSES // rounds), FULL.budget))
    got = measure(plan)
    lines, ok = target(got["pyperf"], got["walls"]["pyperf"], got["patterns"]["back_to_back"],
                       got["walls"]["tfperf"])
    lines += pattern_match(got["pyperf"], got["patterns"])
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps({**got, "pass": ok, "lines": lines}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
