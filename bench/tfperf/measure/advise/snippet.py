"""Your model, measured by ``tfperf advise``: the snippet every generated topic runs.

``tfperf advise`` copies this file beside the topics it generates, as ``<name>.py``, with
``<name>.json`` next to it: the model's path and kind, its input (name, one sample's shape,
dtype) and the seed of the inputs. Each setup loads the model afresh from that path, as the
guide's setups build theirs, and every variant returns the model's outputs flattened in one
order (``tf.nest.flatten``: a list in the model's order, a dict by its keys), so that each
is checked against the reference variant's.

The probe (``tfperf.measure.advise.probe_worker``) uses the same loading and inputs, so
what it checked is what is measured.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

keras = tf.keras
_Layer: Any = keras.layers.Layer


# -- the model and its input -------------------------------------------------------------------

@cache
def config() -> dict[str, Any]:
    """What ``tfperf advise`` wrote beside this file."""
    with open(Path(__file__).with_suffix(".json"), encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


class SignatureLayer(_Layer):  # type: ignore[misc]
    """A SavedModel's serving signature as a Keras layer (a signature takes keywords only):
    what lets ``predict()`` and a Keras call run on a SavedModel."""

    def __init__(self, path: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = tf.saved_model.load(path)
        self.signature = self.loaded.signatures["serving_default"]
        (self.input_name,) = self.signature.structured_input_signature[1]

    def call(self, x: Any) -> Any:
        return self.signature(**{self.input_name: x})


def saved_model_input(path: str) -> tuple[str, tuple[int | None, ...], str]:
    """A SavedModel's one input: its keyword, shape (batch first) and dtype."""
    loaded = tf.saved_model.load(path)
    if "serving_default" not in loaded.signatures:
        raise ValueError(f"the SavedModel has no serving_default signature (it has: "
                         f"{', '.join(loaded.signatures) or 'none'})")
    args, kwargs = loaded.signatures["serving_default"].structured_input_signature
    specs = {**{f"input_{i}": s for i, s in enumerate(args)}, **kwargs}
    if len(specs) != 1:
        raise ValueError(f"several inputs ({', '.join(sorted(specs))})")
    (name, spec), = specs.items()
    return name, tuple(spec.shape.as_list()), spec.dtype.name


def load_model(path: str, kind: str, shape: tuple[int, ...] | None = None, dtype: str | None = None) -> Any:
    """The model as Keras runs it: a ``.keras`` file loaded without its training
    configuration; a SavedModel's serving signature in a functional model of one input."""
    if kind == "keras":
        return keras.models.load_model(path, compile=False)
    if shape is None or dtype is None:
        _, full, dtype = saved_model_input(path)
        shape = tuple(d or 1 for d in full[1:])
    inputs = keras.Input(shape=shape, dtype=dtype)
    return keras.Model(inputs, SignatureLayer(path)(inputs))


def keras_input(model: Any) -> tuple[str, tuple[int | None, ...], str]:
    """A Keras model's one input: its name, shape (batch first) and dtype."""
    try:
        inputs = list(model.inputs)
    except (AttributeError, ValueError):
        inputs = []
    if not inputs:
        raise LookupError("the model records no input (it was saved before it was built)")
    if len(inputs) != 1:
        raise ValueError(f"several inputs ({', '.join(str(getattr(i, 'name', '?')) for i in inputs)})")
    x = inputs[0]
    return str(getattr(x, "name", "input")), tuple(x.shape), str(getattr(x.dtype, "name", x.dtype))


def int_high(model: Any) -> int:
    """The largest integer an integer input may hold here: below the smallest Embedding's
    vocabulary, so that seeded ids are always valid."""
    sizes = [int(layer.input_dim) for layer in getattr(model, "layers", [])
             if isinstance(layer, keras.layers.Embedding)]
    return max(2, min([*sizes, 100]))


def sample_input(shape: tuple[int, ...], dtype: str, batch: int, seed: int = 0, high: int = 100) -> np.ndarray:
    """A seeded batch: standard normal floats, integers in [0, high), or random booleans."""
    rng = np.random.default_rng(seed)
    full = (batch, *shape)
    if dtype == "bool":
        return rng.random(full) < 0.5
    if np.issubdtype(np.dtype(dtype if dtype != "bfloat16" else "float32"), np.integer):
        return rng.integers(0, high, full).astype(dtype)
    x = rng.standard_normal(full).astype("float32")
    return x if dtype in ("float32", "bfloat16") else x.astype(dtype)


def flat(out: Any) -> list[Any]:
    """The outputs in one order: the model's list, a dict by its keys."""
    return list(tf.nest.flatten(out))


def _model() -> Any:
    c = config()
    return load_model(c["path"], c["kind"], tuple(c["input"]["shape"]), c["input"]["dtype"])


def _input(params: dict[str, Any]) -> np.ndarray:
    c = config()
    return sample_input(tuple(c["input"]["shape"]), c["input"]["dtype"], int(params["batch"]),
                        int(c.get("seed", 0)), int(c.get("int_high", 100)))


def _spec() -> tuple[Any, ...]:
    c = config()
    return (tf.TensorSpec((None, *c["input"]["shape"]), c["input"]["dtype"], name="x"),)


# -- predict() against a call ------------------------------------------------------------------

def setup(params: dict[str, Any]) -> dict[str, Any]:
    return {"model": _model(), "x": _input(params)}


def predict(model: Any, x: Any) -> list[Any]:
    return flat(model.predict(x, verbose=0))


def call(model: Any, x: Any) -> list[Any]:
    return flat(model(x, training=False))


def setup_function(params: dict[str, Any]) -> dict[str, Any]:
    model = _model()
    return {"forward": tf.function(lambda x: flat(model(x, training=False))), "x": _input(params)}


def setup_xla(params: dict[str, Any]) -> dict[str, Any]:
    model = _model()
    return {"forward": tf.function(lambda x: flat(model(x, training=False)), jit_compile=True), "x": _input(params)}


def forward_call(forward: Any, x: Any) -> Any:
    return forward(x)


# -- serving formats ---------------------------------------------------------------------------

_TEMP_DIRS: list[str] = []


def _workdir() -> str:
    path = tempfile.mkdtemp(prefix="tfperf-advise-")
    _TEMP_DIRS.append(path)
    return path


@atexit.register
def _cleanup() -> None:
    for path in _TEMP_DIRS:
        shutil.rmtree(path, ignore_errors=True)


def _size(path: str) -> float:
    if os.path.isfile(path):
        return float(os.path.getsize(path))
    return float(sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs))


def _timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _serving_fn(model: Any) -> Any:
    """The forward pass with a fixed input signature and named outputs, in the flat order."""
    return tf.function(lambda x: {f"output_{i:03d}": y for i, y in enumerate(flat(model(x, training=False)))},
                       input_signature=_spec())


def setup_saved_model(params: dict[str, Any]) -> dict[str, Any]:
    """The SavedModel's serving signature: the reader's own directory as it is, or the
    ``.keras`` model exported with one (what TF Serving loads)."""
    c = config()
    if c["kind"] == "saved_model":
        path, convert_s = c["path"], 0.0
    else:
        path = os.path.join(_workdir(), "saved_model")
        model = _model()
        _, convert_s = _timed(lambda: tf.saved_model.save(model, path, signatures={"serving_default": _serving_fn(model)}))
    loaded, load_s = _timed(lambda: tf.saved_model.load(path))
    signature = loaded.signatures["serving_default"]
    (name,) = signature.structured_input_signature[1]
    return {"loaded": loaded, "signature": signature, "name": name, "x": _input(params),
            "_metrics": {"convert_s": convert_s, "load_s": load_s, "file_bytes": _size(path)}}


def saved_model_call(loaded: Any, signature: Any, name: str, x: Any) -> list[Any]:
    return flat(signature(**{name: tf.constant(x)}))


def _tflite_file(model: Any, path: str) -> None:
    """From the frozen forward pass (variables folded into constants), as the guide converts."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    forward = tf.function(lambda x: flat(model(x, training=False)), input_signature=_spec())
    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    with contextlib.redirect_stdout(io.StringIO()):
        data = tf.lite.TFLiteConverter.from_concrete_functions([frozen]).convert()
    with open(path, "wb") as fh:
        fh.write(data)


def _lite() -> Any:
    try:
        from ai_edge_litert import interpreter as litert  # type: ignore[import-untyped]
        return litert
    except ImportError:
        return tf.lite


def _setup_tflite(params: dict[str, Any], xnnpack: bool) -> dict[str, Any]:
    path = os.path.join(_workdir(), "model.tflite")
    model = _model()
    _, convert_s = _timed(lambda: _tflite_file(model, path))
    lite = _lite()
    kind = lite.experimental.OpResolverType if hasattr(lite, "experimental") else lite.OpResolverType

    def load() -> Any:
        interpreter = lite.Interpreter(model_path=path, experimental_op_resolver_type=kind.AUTO if xnnpack
                                       else kind.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        inp = interpreter.get_input_details()[0]["index"]
        interpreter.resize_tensor_input(inp, [int(params["batch"]), *config()["input"]["shape"]])
        interpreter.allocate_tensors()
        return interpreter

    interpreter, load_s = _timed(load)
    outs = [d["index"] for d in interpreter.get_output_details()]
    return {"interpreter": interpreter, "inp": interpreter.get_input_details()[0]["index"], "outs": outs,
            "x": _input(params), "_metrics": {"convert_s": convert_s, "load_s": load_s, "file_bytes": _size(path)}}


def setup_tflite(params: dict[str, Any]) -> dict[str, Any]:
    return _setup_tflite(params, xnnpack=True)


def setup_tflite_plain(params: dict[str, Any]) -> dict[str, Any]:
    return _setup_tflite(params, xnnpack=False)


def tflite_call(interpreter: Any, inp: int, outs: list[int], x: Any) -> list[Any]:
    interpreter.set_tensor(inp, x)
    interpreter.invoke()
    return [interpreter.get_tensor(i) for i in outs]


def setup_onnx(params: dict[str, Any]) -> dict[str, Any]:
    """tf2onnx from the forward pass, then an ONNX Runtime session on CPU."""
    import onnxruntime as ort  # type: ignore[import-untyped]
    import tf2onnx  # type: ignore[import-untyped]

    model = _model()
    path = os.path.join(_workdir(), "model.onnx")
    forward = tf.function(lambda x: flat(model(x, training=False)), input_signature=_spec())
    with contextlib.redirect_stdout(io.StringIO()):
        _, convert_s = _timed(lambda: tf2onnx.convert.from_function(forward, input_signature=_spec(), opset=17,
                                                                     output_path=path))
    session, load_s = _timed(lambda: ort.InferenceSession(path, providers=["CPUExecutionProvider"]))
    return {"session": session, "name": session.get_inputs()[0].name, "x": _input(params),
            "_metrics": {"convert_s": convert_s, "load_s": load_s, "file_bytes": _size(path)}}


def onnx_call(session: Any, name: str, x: Any) -> list[Any]:
    return list(session.run(None, {name: x}))
