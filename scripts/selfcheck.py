#!/usr/bin/env python3
"""Harness self-check: does tfperf measure what it claims to measure?

1. Overhead: the harness times a no-op variant through the whole worker path (setup,
   to_host, calibrated loop); its median per call is the harness's own cost per call.
   Target: <= 1 µs.
2. Agreement: the harness times a real TensorFlow case (the 4-2-1 model called on a
   batch of 32, and the medium MLP on 64), and in the same run a plain
   ``timeit.repeat`` min-of-repeats times the same function in a fresh process with the
   same settings. Target: medians within ±10% of timeit's min.

Usage: python scripts/selfcheck.py [--json OUT]     (exit 1 when a target is missed)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from tfperf import store  # noqa: E402
from tfperf.measure.orchestrate import RunOptions, run  # noqa: E402

TOPIC = textwrap.dedent("""
    topic: selfcheck
    snippet: selfcheck.py
    reference: call
    default: call
    variants:
      noop: {fn: noop, setup: setup_noop}
      call: {fn: call}
    profiles:
      quick:
        params: {model: [tiny, medium], batch: [32, 64]}
        settings: {keras: ["3"]}
        budget: {min_samples: 15, max_samples: 60, target_rel_ci: 0.01, budget_s: 2.0, min_sample_s: 0.02}
    exclude: [{model: tiny, batch: 64}, {model: medium, batch: 32}, {model: medium, variant: noop}]
""")

SNIPPET = textwrap.dedent("""
    from predict_vs_call import setup, call  # the real topic's code


    def setup_noop(params):
        return {}


    def noop():
        return None
""")

TIMEIT = textwrap.dedent("""
    import sys, timeit
    sys.path.insert(0, sys.argv[1])
    from predict_vs_call import setup, call
    kw = setup({"model": sys.argv[2], "batch": int(sys.argv[3])})
    call(**kw).numpy()
    number = 1
    while timeit.timeit(lambda: call(**kw).numpy(), number=number) < 0.02:
        number *= 2
    runs = sorted(t / number for t in timeit.repeat(lambda: call(**kw).numpy(), number=number, repeat=15))
    print(runs[0], runs[len(runs) // 2])
""")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        snippets = Path(tmp, "snippets")
        snippets.mkdir()
        (snippets / "selfcheck.yaml").write_text(TOPIC)
        (snippets / "selfcheck.py").write_text(SNIPPET)
        shutil.copy(ROOT / "snippets" / "predict_vs_call.py", snippets)
        options = RunOptions(profile="quick", data_root=Path(tmp, "data"), snippets_dir=snippets,
                             runner="selfcheck", progress=False)
        report = run(options)
        doc = store.load(report.path)
        results = {r["case_id"]: r for r in doc["results"]}
        figures: dict[str, object] = {}
        ok = True
        noop = next(r for r in results.values() if r["variant"] == "noop")
        overhead = noop["timing"]["summary"]["median"]
        figures["noop_overhead_per_call_us"] = overhead * 1e6
        print(f"no-op case: harness overhead {overhead * 1e9:.0f} ns per call (target <= 1000 ns)")
        ok &= overhead <= 1e-6
        env = {"TF_USE_LEGACY_KERAS": "0", "TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"}
        for r in results.values():
            if r["variant"] != "call":
                continue
            med = r["timing"]["summary"]["median"]
            out = subprocess.run([sys.executable, "-c", TIMEIT, str(snippets), r["params"]["model"],
                                  str(r["params"]["batch"])], capture_output=True, text=True, env=env, check=True)
            best, tmed = (float(v) for v in out.stdout.strip().splitlines()[-1].split())
            hmin = r["timing"]["summary"]["min"]
            diff = med / best - 1.0
            figures[f"{r['params']['model']}_b{r['params']['batch']}"] = {
                "harness_median_us": med * 1e6, "timeit_min_us": best * 1e6, "difference": diff,
                "harness_ci_us": [r["timing"]["summary"]["ci_low"] * 1e6, r["timing"]["summary"]["ci_high"] * 1e6],
                "like_for_like": {"harness_min_us": hmin * 1e6, "timeit_median_us": tmed * 1e6,
                                  "min_vs_min": hmin / best - 1.0, "median_vs_median": med / tmed - 1.0}}
            print(f"{r['params']['model']} model, batch {r['params']['batch']}: harness median {med * 1e6:.1f} µs "
                  f"(95% CI {r['timing']['summary']['ci_low'] * 1e6:.1f}-{r['timing']['summary']['ci_high'] * 1e6:.1f}), "
                  f"timeit min {best * 1e6:.1f} µs, difference {diff:+.1%} (target within ±10%)")
            print(f"    like for like: min {hmin * 1e6:.1f} vs {best * 1e6:.1f} µs ({hmin / best - 1:+.1%}), "
                  f"median {med * 1e6:.1f} vs {tmed * 1e6:.1f} µs ({med / tmed - 1:+.1%}); "
                  "a median above a min is the machine's spread, not the harness's cost")
            ok &= abs(diff) <= 0.10
        for n in doc["noise"]:
            print(f"A/A noise of this run: ratio {n['ratio']:.3f} (CI {n['ci_low']:.3f}-{n['ci_high']:.3f})")
    print("self-check:", "PASS" if ok else "FAIL")
    if args.json:
        Path(args.json).write_text(json.dumps({**figures, "pass": bool(ok)}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
