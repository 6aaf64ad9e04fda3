"""The reader's model, as ``tfperf advise`` first sees it: its path and input options
checked without TensorFlow, then the model inspected in a fresh process.

A model is a Keras v3 file (``.keras``: a zip archive holding ``config.json``) or a
SavedModel directory (holding ``saved_model.pb``). Everything that can be told from the
file system is told at once and in one line (:func:`check_model_path`): a path that does
not exist, a file that is not a model. What needs TensorFlow is the probe's
(:func:`probe`, which runs :mod:`.probe_worker`): the model loaded as the snippet loads it,
its one input read (or taken from ``--input-shape``/``--dtype``), and called at each batch
size advise measures. The parent learns a :class:`ModelSpec`, or the one line that says why
the model cannot be measured (:class:`AdviseError`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ...errors import TfperfError, one_line

Kind = Literal["keras", "saved_model"]
DTYPES = ("float32", "float16", "float64", "bfloat16", "int32", "int64", "uint8", "bool")
MAX_DIM = 1 << 20                  # one dimension of --input-shape
FINGERPRINT_BYTES = 64 << 20       # what the fingerprint reads of a large model


class AdviseError(TfperfError):
    """The model (or an option about it) cannot be measured: ``path: problem``, one line."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path, self.problem = str(path), problem
        super().__init__(one_line(f"{path}: {problem}"))


@dataclass(frozen=True)
class ModelFile:
    path: Path                     # absolute
    kind: Kind
    fingerprint: str               # sha256 of the file (a SavedModel: its saved_model.pb), 16 hex digits

    @property
    def name(self) -> str:
        """A valid topic-and-file name from the model's name: "my_convnet"."""
        stem = self.path.name.removesuffix(".keras") or "model"
        clean = "".join(c if c.isalnum() or c in "_.+-" else "_" for c in stem).lstrip("._+-")
        return (clean or "model")[:40]


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read(FINGERPRINT_BYTES))
    return h.hexdigest()[:16]


def check_model_path(text: str) -> ModelFile:
    """The model at ``text``, or an :class:`AdviseError` saying why it is none."""
    path = Path(text).expanduser()
    if not path.exists():
        raise AdviseError(text, "no such file or directory")
    path = path.resolve()
    if path.is_dir():
        pb = path / "saved_model.pb"
        if pb.is_file():
            return ModelFile(path, "saved_model", _digest(pb))
        if (path / "saved_model.pbtxt").is_file():
            raise AdviseError(text, "a SavedModel in text form (saved_model.pbtxt); save it in binary form")
        raise AdviseError(text, "a directory, but not a SavedModel (no saved_model.pb in it); "
                                "give a .keras file or a SavedModel directory")
    if not path.is_file():
        raise AdviseError(text, "not a regular file or directory")
    if path.suffix in (".h5", ".hdf5"):
        raise AdviseError(text, "a legacy HDF5 model; load it and save it as .keras "
                                "(model.save('model.keras')) or as a SavedModel (model.export(dir))")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        names = set()
    if "config.json" not in names:
        raise AdviseError(text, "not a Keras model file (a .keras file is a zip archive holding config.json); "
                                "give a .keras file or a SavedModel directory")
    return ModelFile(path, "keras", _digest(path))


def parse_shape(text: str) -> tuple[int, ...]:
    """``--input-shape``: one sample's shape, without the batch, as "32,32,3" (or "32x32x3")."""
    inner = text.strip().removeprefix("(").removesuffix(")").strip().removesuffix(",")
    parts = [p.strip() for p in re.split(r"[,x]", inner)]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise AdviseError("--input-shape", f"{text!r} is not a list of whole numbers such as 32,32,3") from None
    if not dims or any(d < 1 or d > MAX_DIM for d in dims):
        raise AdviseError("--input-shape", f"{text!r}: give one sample's shape without the batch, each dimension "
                                           f"from 1 to {MAX_DIM}, e.g. 32,32,3")
    return dims


def check_dtype(text: str) -> str:
    if text not in DTYPES:
        raise AdviseError("--dtype", f"{text!r} is not one of {', '.join(DTYPES)}")
    return text


# -- the probe -------------------------------------------------------------------------------


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
