#!/usr/bin/env python3
"""tfperf against pyperf on one TensorFlow case, in one run of this script.

The case: the predict-vs-call topic's medium MLP (256-1024-1024-1024-10) forward pass in a
tf.function, batch 1 (the topic's own setup and variant functions). Both tools time the
same call; for each, the script records the wall time of the whole measurement (process
start, TensorFlow import, warm-up included) and the 95% CI of the median of its values,
computed the same way for both (distribution-free, from order statistics).

Target: tfperf's CI half-width (relative to its median) no wider than pyperf's, in at most
a third of pyperf's wall time. pyperf runs with its defaults (`pyperf timeit`: 20
processes x 3 values after a warm-up each); tfperf with the full profile's settings, its
stopping rule asking for a CI half-width of 1%.

Then it says which of the harness's arrival patterns pyperf's median matches best: the
committed results of the same case (``--data``, ``--runner``) back to back and under each
per-request pattern (after an idle gap, Poisson arrivals), pyperf's median against each
one's median request (p50); "no arrival data" when the results have none.

Usage: .venv/bin/python scripts/vs_pyperf.py [--order pyperf-first|tfperf-first] [--json OUT]
[--data DIR] [--runner LABEL] (pyperf is in the test extra). Exit 1 when the target is missed.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from tfperf import stats, store
from tfperf.analyse import Dataset, Measurement, analyse
from tfperf.arrival import words
from tfperf.measure.orchestrate import RunOptions, run

PARAMS = {"model": "medium", "batch": 1, "input": "numpy"}
CASE = ("predict_vs_call", "tf_function", {"keras": "3"})     # the committed results of the same call
SETUP = ("import sys; sys.path.insert(0, {snippets!r}); "
         "from predict_vs_call import setup_tf_function, call_tf_function; "
         "kw = setup_tf_function({params!r})")
STMT = "call_tf_function(**kw).numpy()"


def _topic() -> str:
    return json.dumps({
        "topic": "vspyperf", "snippet": "predict_vs_call.py", "reference": "tf_function",
        "default": "tf_function",
        "variants": {"tf_function": {"fn": "call_tf_function", "setup": "setup_tf_function"}},
        "profiles": {"full": {
            "params": {k: [v] for k, v in PARAMS.items()}, "settings": {"keras": ["3"]},
            "budget": {"min_samples": 15, "max_samples": 200, "target_rel_ci": 0.01, "budget_s": 10.0,
                       "warmup_s": 0.3, "min_sample_s": 0.02},
        }},
    })


def _rel_ci(values: list[float]) -> tuple[float, float]:
    s = stats.summarize(values)
    return s.median, s.rel_ci_halfwidth


def run_tfperf(work: Path) -> dict[str, Any]:
    snippets = work / "snippets"
    (snippets / "vspyperf.yaml").write_text(_topic())
    t0 = time.monotonic()
    report = run(RunOptions(profile="full", data_root=work / "data", snippets_dir=snippets, runner="vs-pyperf",
                            progress=False))
    wall = time.monotonic() - t0
    doc = store.load(report.path)
    r = next(r for r in doc["results"] if r["status"] == "ok")
    median, half = _rel_ci(r["timing"]["samples"])
    return {"wall_s": wall, "median_s": median, "rel_ci": half, "values": len(r["timing"]["samples"]),
            "rounds": doc["scenarios"][0]["rounds"]}


def run_pyperf(work: Path) -> dict[str, Any]:
    out = work / "pyperf.json"
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "0", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pyperf", "timeit", "--quiet", "--inherit-environ",
           "TF_USE_LEGACY_KERAS,TF_CPP_MIN_LOG_LEVEL", "-o", str(out),
           "-s", SETUP.format(snippets=str(work / "snippets"), params=PARAMS), STMT]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    data = json.loads(out.read_text())
    values = [v for run_ in data["benchmarks"][0]["runs"] for v in run_.get("values", [])]
    median, half = _rel_ci(values)
    return {"wall_s": wall, "median_s": median, "rel_ci": half, "values": len(values)}


def pattern_match(pyperf_median: float, ds: Dataset, runner: str, topic: str = CASE[0], variant: str = CASE[1],
                  params: dict[str, Any] | None = None, settings: dict[str, str] | None = None) -> list[str]:
    """Which of the harness's patterns pyperf's median matches best, in lines: the case's
    back-to-back median and each per-request pattern's p50 on ``runner``, as a ratio to
    pyperf's median, the closest named; "no arrival data" when the case has no per-request
    pattern there."""
    params = PARAMS if params is None else params
    settings = CASE[2] if settings is None else settings

    def same(m: Measurement) -> bool:
        return (m.runner == runner and m.topic == topic and m.variant == variant and m.ok
                and all(m.params.get(k) == v for k, v in params.items())
                and all(m.settings.get(k) == v for k, v in settings.items()))
    found: dict[str, float] = {}
    back = [m for m in ds.current if same(m)]
    if back and back[0].median is not None:
        found["back_to_back"] = back[0].median
    for m in ds.arrivals:
        if same(m) and m.latencies:
            found.setdefault(m.arrival, stats.quantile([x for r in m.latencies for x in r], 0.5))
    if not any(k != "back_to_back" for k in found):
        base = (f"; pyperf's median is {pyperf_median / found['back_to_back']:.2f}x the harness's back-to-back "
                "median" if "back_to_back" in found else "")
        return [f"arrival patterns: no arrival data for {topic}/{variant} on {runner}{base}"]
    best = min(found, key=lambda k: abs(math.log(pyperf_median / found[k])))
    lines = [f"pyperf's median ({pyperf_median * 1e3:.3f} ms) against the harness's patterns on {runner}:"]
    lines += [f"  {words(k)}: {v * 1e3:.3f} ms, pyperf {pyperf_median / v:.2f}x" + ("  <- closest" if k == best else "")
              for k, v in found.items()]
    lines.append(f"pyperf's median matches best: {words(best)} ({best})")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--order", choices=("pyperf-first", "tfperf-first"), default="pyperf-first")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--data", default=str(ROOT / "data"), help="committed results to set pyperf's median against")
    ap.add_argument("--runner", default="linux-x86_64-2core-intel-amx", help="the runner of those results")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "snippets").mkdir()
        shutil.copy(ROOT / "snippets" / "predict_vs_call.py", work / "snippets")
        shutil.copy(ROOT / "snippets" / "_standalone.py", work / "snippets")
        order = [run_pyperf, run_tfperf] if args.order == "pyperf-first" else [run_tfperf, run_pyperf]
        got = {fn.__name__.split("_")[1]: fn(work) for fn in order}
    p, t = got["pyperf"], got["tfperf"]
    for name, r in (("pyperf", p), ("tfperf", t)):
        print(f"{name}: median {r['median_s'] * 1e3:.3f} ms, 95% CI of the median ±{r['rel_ci']:.2%} "
              f"({r['values']} values), wall time {r['wall_s']:.1f} s")
    ok = t["rel_ci"] <= p["rel_ci"] and t["wall_s"] <= p["wall_s"] / 3
    print(f"tfperf: CI {t['rel_ci'] / p['rel_ci']:.2f}x pyperf's width in {t['wall_s'] / p['wall_s']:.2f}x its wall "
          f"time (target: <= 1x in <= 0.33x): {'PASS' if ok else 'FAIL'}")
    matched = pattern_match(p["median_s"], analyse(Path(args.data) / "results", ROOT / "snippets"), args.runner)
    print("\n".join(matched))
    if args.json:
        Path(args.json).write_text(json.dumps({"pyperf": p, "tfperf": t, "pass": ok, "patterns": matched}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
