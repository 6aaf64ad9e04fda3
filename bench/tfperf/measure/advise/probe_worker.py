"""``python -m tfperf.measure.advise.probe_worker``: load the reader's model in a fresh
process, read its one input, and call it once at each batch size advise will measure.

Reads a JSON job on stdin (written by ``model.probe``) and prints one line ``PROBE {...}``: the input
(name, one sample's shape, dtype), the outputs' shapes and the time of each step, or
``{"problem": ...}``: what went wrong, in words, for the parent's one error line. Imports
TensorFlow (a worker, like ``tfperf.measure.worker.serve``); the parent never does.
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any

NOISE = ("Exception encountered when calling", "Graph execution error", "Detected at node", "<stack traces",
         "Arguments received by", "•")


def _why(exc: BaseException) -> str:
    """The exception in one line: its type and the first line of its message that says
    something (Keras wraps a layer's error in lines about where it was called)."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in str(exc).splitlines()]
    useful = [ln for ln in lines if ln and not ln.startswith(NOISE)]
    text = (useful or [ln for ln in lines if ln] or [""])[0]
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _shape_text(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def probe(job: dict[str, Any]) -> dict[str, Any]:
    """What the parent needs to know of the model, or ``{"problem": ...}``."""
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    t_import = time.perf_counter()
    from . import snippet
    import_s = time.perf_counter() - t_import

    path, kind = str(job["path"]), str(job["kind"])
    given_shape = tuple(job["shape"]) if job.get("shape") else None
    given_dtype = job.get("dtype")
    t0 = time.perf_counter()
    try:
        if kind == "saved_model":
            name, full, dtype = snippet.saved_model_input(path)
        model = snippet.load_model(path, kind, None if kind == "keras" else tuple(
            given_shape or (d or 1 for d in full[1:])), given_dtype or (None if kind == "keras" else dtype))
    except (ValueError, KeyError) as exc:
        if kind == "saved_model" and "input" in str(exc):
            return {"problem": f"a model with {exc}: tfperf advise measures models of one input"}
        return {"problem": f"loading it as a {'Keras model' if kind == 'keras' else 'SavedModel'} raised {_why(exc)}"}
    except Exception as exc:  # noqa: BLE001 - any failure to load is the reader's one line
        return {"problem": f"loading it as a {'Keras model' if kind == 'keras' else 'SavedModel'} raised {_why(exc)}"}
    load_s = time.perf_counter() - t0
    if kind == "keras":
        try:
            name, full, dtype = snippet.keras_input(model)
        except LookupError as exc:
            if given_shape is None:
                return {"problem": f"{exc}: give one sample's shape with --input-shape (and --dtype if not float32)"}
            name, full, dtype = "input", (None, *given_shape), "float32"
        except ValueError as exc:
            return {"problem": f"a model with {exc}: tfperf advise measures models of one input"}
    sample = tuple(full[1:])
    if given_shape is not None:
        if len(given_shape) != len(sample) or any(d is not None and d != g for d, g in zip(sample, given_shape)):
            return {"problem": f"--input-shape {','.join(map(str, given_shape))} does not fit the model's input "
                               f"{name!r} of shape {_shape_text(full)} (one sample's shape, without the batch)"}
        sample = given_shape
    fixed = tuple(int(d) for d in sample if d is not None)
    if any(d is None for d in sample):
        return {"problem": f"its input {name!r} has shape {_shape_text(full)}: a dimension besides the batch is not "
                           "fixed, so no input can be made for it; give one sample's shape with --input-shape, e.g. "
                           f"--input-shape {','.join(str(d or 32) for d in sample)}"}
    dtype = str(given_dtype or dtype)
    high = snippet.int_high(model)
    outputs: list[list[int]] = []
    call_s: dict[str, float] = {}
    for batch in sorted({1, *map(int, job.get("batches") or [])}):
        x = snippet.sample_input(fixed, dtype, batch, int(job.get("seed", 0)), high)
        t1 = time.perf_counter()
        try:
            out = [o.numpy() if hasattr(o, "numpy") else o for o in snippet.flat(model(x, training=False))]
        except Exception as exc:  # noqa: BLE001 - a model that raises is the reader's one line
            return {"problem": f"calling the model on a batch of {batch} of shape {_shape_text((batch, *sample))} "
                               f"{dtype} raised {_why(exc)}"}
        call_s[str(batch)] = time.perf_counter() - t1
        if batch == 1:
            outputs = [list(getattr(o, "shape", ())) for o in out]
    if not outputs:
        return {"problem": "calling the model returned no output"}
    return {"input": {"name": str(name), "shape": list(fixed), "dtype": dtype}, "int_high": high,
            "outputs": outputs, "load_s": load_s, "call_s": call_s, "import_s": import_s,
            "params": int(model.count_params()) if hasattr(model, "count_params") else 0}


def main() -> int:
    job = json.loads(sys.stdin.readline() or "{}")
    try:
        answer = probe(job)
    except Exception as exc:  # noqa: BLE001 - never a traceback for the reader
        answer = {"problem": f"inspecting the model raised {_why(exc)}"}
    sys.stdout.write("PROBE " + json.dumps(answer, default=str) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
