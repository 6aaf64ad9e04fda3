"""CPU tuning knobs: intra-/inter-op threads, OMP_NUM_THREADS, oneDNN on/off and its
instruction-set cap, on a matmul-heavy MLP, a convnet and a recurrent model.

Run it yourself:  python snippets/cpu_threads.py
(runs itself in a few fresh processes, one per configuration, because every knob here
must be set before TensorFlow starts, and prints a table of speedups over TensorFlow's
defaults). To time your own configuration in this process only:

    TF_ENABLE_ONEDNN_OPTS=0 OMP_NUM_THREADS=1 python snippets/cpu_threads.py --here --intra 1

The forward pass is a tf.function, as a server would run it, so the timings are
of TensorFlow's kernels and thread pools, not of Python.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import tensorflow as tf

keras = tf.keras  # Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1


# --8<-- [start:knobs]
def configure_threads(intra: int | None = None, inter: int | None = None) -> None:
    """Must run right after `import tensorflow`, before any op executes.
    None (or 0) leaves TensorFlow's default: one thread per core it may use."""
    if intra:
        tf.config.threading.set_intra_op_parallelism_threads(intra)   # threads inside one op
    if inter:
        tf.config.threading.set_inter_op_parallelism_threads(inter)   # ops running side by side

# The rest are environment variables, read once when TensorFlow loads:
#   TF_ENABLE_ONEDNN_OPTS=0      TensorFlow's own (Eigen) kernels instead of oneDNN's
#   ONEDNN_MAX_CPU_ISA=AVX2      oneDNN may use instructions up to AVX2 only (no AVX-512/AMX)
#   OMP_NUM_THREADS=1            OpenMP threads (oneDNN in the pip wheels uses TensorFlow's
#                                own thread pool, not OpenMP: see the page for what it changes)
# --8<-- [end:knobs]


# --8<-- [start:models]
def build_model(name: str) -> "keras.Model":
    """mlp: 1024 -> 4 x Dense(1024) -> 10, matmul-bound; convnet: three conv/batch-norm/
    pool blocks on 32x32x3 images; rnn: a GRU(256) over 32 steps of 64 features."""
    keras.utils.set_random_seed(0)
    if name == "mlp":
        inputs = keras.Input(shape=(1024,))
        x = inputs
        for _ in range(4):
            x = keras.layers.Dense(1024, activation="relu")(x)
    elif name == "convnet":
        inputs = keras.Input(shape=(32, 32, 3))
        x = inputs
        for filters in (32, 64, 128):
            x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
            x = keras.layers.BatchNormalization()(x)
            x = keras.layers.ReLU()(x)
            x = keras.layers.MaxPooling2D()(x)
        x = keras.layers.GlobalAveragePooling2D()(x)
    elif name == "rnn":
        inputs = keras.Input(shape=(32, 64))
        x = keras.layers.GRU(256)(inputs)
    else:
        raise ValueError(f"unknown model {name!r} (mlp, convnet, rnn)")
    outputs = keras.layers.Dense(10)(x)
    return keras.Model(inputs, outputs)
# --8<-- [end:models]


def setup(params: dict) -> dict:
    model = build_model(params["model"])
    shape = (int(params["batch"]), *model.input_shape[1:])
    x = tf.constant(np.random.default_rng(0).standard_normal(shape, dtype=np.float32))
    forward = tf.function(lambda x: model(x, training=False))
    return {"forward": forward, "x": x}


# --8<-- [start:call]
def call(forward, x):
    return forward(x)  # forward = tf.function(lambda x: model(x, training=False))
# --8<-- [end:call]


# ---- standalone: one fresh process per configuration ----------------------------------

CONFIGS = {  # name -> (environment variables, intra-op threads)
    "TensorFlow defaults": ({}, None),
    "intra-op threads = 1": ({}, 1),
    "oneDNN off (TF_ENABLE_ONEDNN_OPTS=0)": ({"TF_ENABLE_ONEDNN_OPTS": "0"}, None),
    "oneDNN capped at AVX2": ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, None),
}
CASES = [(m, b) for m in ("mlp", "convnet", "rnn") for b in (1, 64)]


def _time_here() -> dict[str, float]:
    from _standalone import time_call

    out = {}
    for model, batch in CASES:
        kwargs = setup({"model": model, "batch": batch})
        out[f"{model} b={batch}"] = time_call(lambda: call(**kwargs), repeat=5, min_time=0.02)[1]
    return out


def _main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--here", action="store_true", help="time this process's configuration only")
    ap.add_argument("--intra", type=int, default=None)
    ap.add_argument("--inter", type=int, default=None)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    configure_threads(args.intra, args.inter)
    if args.here:
        times = _time_here()
        if args.json:
            print("RESULT " + json.dumps(times))
        else:
            for k, v in times.items():
                print(f"  {k:<14} {v * 1e3:9.3f} ms")
        return
    rows: dict[str, dict[str, float]] = {}
    for name, (env, intra) in CONFIGS.items():
        cmd = [sys.executable, os.path.abspath(__file__), "--here", "--json"]
        cmd += ["--intra", str(intra)] if intra else []
        proc = subprocess.run(cmd, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", **env},
                              capture_output=True, text=True)
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            print(f"{name}: failed\n{proc.stderr[-2000:]}")
            continue
        rows[name] = json.loads(line[len("RESULT "):])
    base = rows.get("TensorFlow defaults")
    if not base:
        return
    print(f"\nSpeedup over TensorFlow's defaults ({os.cpu_count()} CPUs; > 1 is faster), tf.function forward")
    width = max(len(n) for n in rows)
    print(f"  {'configuration':<{width}}  " + "  ".join(f"{c:>12}" for c in base))
    for name, times in rows.items():
        print(f"  {name:<{width}}  " + "  ".join(f"{base[c] / times[c]:>11.2f}x" for c in base))
    print(f"  {'(defaults, per call)':<{width}}  " + "  ".join(f"{base[c] * 1e3:>10.3f}ms" for c in base))


if __name__ == "__main__":
    _main()
