"""The model inspected in a fresh process (:mod:`.probe_worker`): loaded as the snippet
loads it, its one input read (or taken from ``--input-shape``/``--dtype``), and called at
each batch size advise measures. The parent learns a :class:`ModelSpec`, or the one line
that says why the model cannot be measured (:class:`~.model_file.AdviseError`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model_file import AdviseError, ModelFile

PROBE_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class ModelSpec:
    model: ModelFile
    input_name: str
    shape: tuple[int, ...]          # one sample's, without the batch
    dtype: str
    outputs: tuple[tuple[int, ...], ...]   # each output's shape at batch 1, in the flat order
    int_high: int = 100             # integer inputs are drawn from [0, int_high)
    weights: int = 0                # values in the model's weights
    load_s: float = 0.0
    call_s: dict[str, float] = field(default_factory=dict)   # batch -> the first call's seconds
    import_s: float = 0.0           # importing TensorFlow in a fresh process (0: not known)

    def describe(self) -> str:
        """"one input 'image' of 32x32x3 float32, 2 outputs, 61,322 weights"."""
        dims = "x".join(map(str, self.shape))
        n = len(self.outputs)
        weights = f", {self.weights:,} weights" if self.weights else ""
        return f"one input {self.input_name!r} of {dims} {self.dtype}, {n} output{'s' if n != 1 else ''}{weights}"


def answer(model: ModelFile, stdout: str, stderr: str, returncode: int) -> ModelSpec:
    """The probe's printed answer read, or the error line."""
    line = next((ln for ln in reversed(stdout.splitlines()) if ln.startswith("PROBE ")), None)
    if line is None:
        tail = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
        last = tail[-1][:300] if tail else f"exit status {returncode}"
        raise AdviseError(model.path, f"the process that loads the model ended without an answer ({last})")
    got: dict[str, Any] = json.loads(line[len("PROBE "):])
    if "problem" in got:
        raise AdviseError(model.path, str(got["problem"]))
    inp = got["input"]
    return ModelSpec(model, str(inp["name"]), tuple(int(d) for d in inp["shape"]), str(inp["dtype"]),
                     tuple(tuple(int(d) for d in o) for o in got["outputs"]), int(got.get("int_high", 100)),
                     int(got.get("params", 0)), float(got.get("load_s", 0.0)),
                     {str(k): float(v) for k, v in (got.get("call_s") or {}).items()},
                     float(got.get("import_s", 0.0)))


def probe(model: ModelFile, shape: tuple[int, ...] | None, dtype: str | None, batches: list[int],
          python: str = sys.executable, seed: int = 0, timeout_s: float = PROBE_TIMEOUT_S) -> ModelSpec:
    job = {"path": str(model.path), "kind": model.kind, "shape": list(shape) if shape else None, "dtype": dtype,
           "batches": batches, "seed": seed}
    pkg_root = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": pkg_root + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "TF_CPP_MIN_LOG_LEVEL": "2"}
    try:
        done = subprocess.run([python, "-m", "tfperf.measure.advise.probe_worker"], input=json.dumps(job) + "\n",
                              capture_output=True, text=True, env=env, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise AdviseError(model.path, f"loading and calling the model took more than {timeout_s:g} s") from None
    return answer(model, done.stdout, done.stderr, done.returncode)
