#!/usr/bin/env python3
"""Does the back-to-back tf.function time rise with model copies alive? One process, three
ways, interleaved in rounds.

`tfperf advise` times the predict-vs-call topic's medium MLP (256-1024-1024-1024-10) in a
tf.function at batch 1 at about 1 ms, where the guide publishes about 2.8 ms. The guide's
scenario keeps six copies of the model alive in its worker (one per variant: five Keras
models, one of them compiled, and the tf.function's), about 58 MB, more than a 32 MB L3.
This script measures, with the topic's own functions (``snippets/predict_vs_call.py``):

* one:    one copy alive, calls to its tf.function;
* alive:  six copies alive as in the guide's scenario, calls to the tf.function's only;
* cycled: six copies alive, each wrapped in a tf.function, calls cycling over the six.

Each round measures the three in a shuffled order ("one" first or last; the five other
copies are built before the ways that need them and dropped before "one"); a block is ``--calls`` calls, each
timed alone with its output brought to host memory, and gives its median. The paired ratio
of the blocks' medians (tfperf.stats.paired_ratio) over the rounds says how much slower each
is than "one", with its 95% CI, judged against a 5% band (tfperf.stats.finding).

Usage: .venv/bin/python scripts/advise_cache_ab.py [--size medium] [--rounds 25] [--calls 150]
[--max-seconds 150]. It stops starting rounds at --max-seconds. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from tfperf.stats import FASTER, SAME, SLOWER, finding, median, paired_ratio

ROOT = Path(__file__).resolve().parents[1]
COPIES = 6
MARGIN = 0.05
WAYS = ("one", "alive", "cycled")


def load_snippet(path: Path = ROOT / "snippets" / "predict_vs_call.py") -> ModuleType:
    spec = importlib.util.spec_from_file_location("predict_vs_call", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def others(snip: ModuleType, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The five other copies of the guide's scenario: the Keras models of predict,
    predict_on_batch, call and call_training_false, and the compiled one of predict_compiled."""
    return [snip.setup(params) for _ in range(4)] + [snip.setup_compiled(params)]


def block(fns: list[Callable[[Any], Any]], x: Any, calls: int) -> float:
    """The median seconds of ``calls`` calls, the i-th to fns[i % len(fns)]."""
    times = []
    for i in range(calls):
        t0 = time.perf_counter()
        out = fns[i % len(fns)](x)
        _ = out.numpy()
        times.append(time.perf_counter() - t0)
    return median(times)


def measure(size: str, rounds: int, calls: int, max_seconds: float, seed: int = 0) -> dict[str, list[float]]:
    snip = load_snippet()
    snip.tf.get_logger().setLevel("ERROR")               # six tf.functions of one code trace six times, as meant
    params = {"model": size, "batch": 1, "input": "numpy"}
    main = snip.setup_tf_function(params)
    forward, x = main["forward"], main["x"]
    rest: list[dict[str, Any]] = []
    cycled: list[Callable[[Any], Any]] = []
    forward(x)                                           # traced once, before any round
    rng = random.Random(seed)
    medians: dict[str, list[float]] = {w: [] for w in WAYS}
    start = time.monotonic()
    for r in range(rounds):
        if r >= 3 and time.monotonic() - start > max_seconds:
            print(f"stopped after {r} rounds at --max-seconds {max_seconds:g}", file=sys.stderr)
            break
        order = ["alive", "cycled"]
        rng.shuffle(order)
        order.insert(rng.choice((0, 2)), "one")           # first or last: the extra copies are built once a round
        for way in order:
            if way == "one" and rest:
                rest, cycled = [], []
                gc.collect()
            elif way != "one" and not rest:
                rest = others(snip, params)
                cycled = [forward] + [snip.setup_tf_function(params)["forward"] for _ in range(COPIES - 1)]
                for fn in cycled:
                    fn(x)                                # traced before it is timed
            fns = cycled if way == "cycled" else [forward]
            block(fns, x, max(COPIES, calls // 10))      # warm the caches the way is about to use
            medians[way].append(block(fns, x, calls))
    return medians


def table(medians: dict[str, list[float]]) -> tuple[str, str]:
    """The table and the one-line conclusion."""
    base = medians["one"]
    lines = [f"{'way':<8} {'median per call':>16}  {'time / one (95% CI)':<26} finding ({len(base)} rounds)"]
    verdicts = {}
    for way in WAYS:
        ms = median(medians[way]) * 1e3
        if way == "one":
            lines.append(f"{way:<8} {ms:>13.3f} ms  {'1':<26} baseline")
            continue
        point, low, high = paired_ratio(medians[way], base)     # time(way) / time(one), round by round
        verdicts[way] = finding(low, high, MARGIN)
        word = {FASTER: "slower than one", SLOWER: "faster than one", SAME: "level with one"}.get(
            verdicts[way], "unclear")
        lines.append(f"{way:<8} {ms:>13.3f} ms  {f'{point:.3f} ({low:.3f}-{high:.3f})':<26} {word}")
    v = verdicts["alive"]
    answer = "yes" if v == FASTER else "no" if v in (SAME, SLOWER) else "unclear (run more rounds)"
    cyc = verdicts["cycled"]
    note = ("; calls cycling over six copies are slower" if cyc == FASTER else
            "; calls cycling over six copies are not slower" if cyc in (SAME, SLOWER) else "")
    return "\n".join(lines), f"the back-to-back tf.function time rises with copies alive: {answer}{note}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--size", default="medium", choices=("tiny", "medium", "large"),
                    help="the predict-vs-call model (default medium)")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--calls", type=int, default=150, help="timed calls a block")
    ap.add_argument("--max-seconds", type=float, default=150.0, help="no round starts after this")
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    medians = measure(args.size, args.rounds, args.calls, args.max_seconds)
    text, conclusion = table(medians)
    print(f"{args.size} model, tf.function forward at batch 1, {COPIES} copies, {args.calls} calls a block")
    print(text)
    print(conclusion)
    return 0


if __name__ == "__main__":
    sys.exit(main())
