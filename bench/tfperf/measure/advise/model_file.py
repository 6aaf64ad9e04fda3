"""The model path and the input options of ``tfperf advise``, checked without TensorFlow.

A model is a Keras v3 file (``.keras``: a zip archive holding ``config.json``) or a
SavedModel directory (holding ``saved_model.pb``). Everything that can be told from the
file system is told here, at once and in one line: a path that does not exist, a file that
is not a model. What needs TensorFlow (the input signature, a call) is the probe's
(:mod:`.probe`).
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
