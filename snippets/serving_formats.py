"""Serving one Keras model on CPU: eager call, tf.function, frozen graph, SavedModel,
TFLite (LiteRT, with and without XNNPACK) and ONNX Runtime.

Run it yourself:  python snippets/serving_formats.py
(prints a small table; the TFLite rows need `ai-edge-litert` or TensorFlow's own
tf.lite, the ONNX rows need `tf2onnx` and `onnxruntime`, and are skipped without them).

Every setup builds the same model from a fixed seed, writes it in its format to a fresh
temporary folder, loads it back the way a server would, and reports the load time and
file size. Each variant takes the request as a numpy array and returns the answer as a
numpy array or tensor, so the timings compare like with like.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
import time
from typing import Any, Callable

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

keras = tf.keras  # Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1

IMAGE = (32, 32, 3)
CLASSES = 10


# --8<-- [start:model]
def build_model() -> "keras.Model":
    """A small image classifier with batch normalisation (what the old Graph Transform
    tool's fold_batch_norms was for): about 60 MFLOP per 32x32x3 image."""
    inputs = keras.Input(shape=IMAGE, name="image")
    x = inputs
    for filters in (32, 64, 128):
        x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(CLASSES, name="logits")(x)
    model = keras.Model(inputs, outputs)
    set_seeded_weights(model)
    return model


def set_seeded_weights(model: "keras.Model", seed: int = 0) -> None:
    """Every weight drawn with numpy, so that Keras 3 and Keras 2 (tf_keras), whose own
    initialisers draw different numbers from the same seed, build the same model:
    Glorot-uniform kernels, small biases, and trained-looking batch-norm statistics (so
    that folding them is not a no-op)."""
    rng = np.random.RandomState(seed)
    for layer in model.layers:
        weights = layer.get_weights()
        if not weights:
            continue
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = (w.shape for w in weights)
            layer.set_weights([rng.uniform(0.5, 1.5, gamma).astype("float32"),
                               rng.normal(0, 0.1, beta).astype("float32"),
                               rng.normal(0, 0.1, mean).astype("float32"),
                               rng.uniform(0.5, 2.0, var).astype("float32")])
            continue
        new = []
        for w in weights:
            if w.ndim == 1:             # bias
                new.append(rng.normal(0, 0.05, w.shape).astype("float32"))
            else:                       # kernel: (..., fan_in, fan_out)
                receptive = int(np.prod(w.shape[:-2]))
                limit = np.sqrt(6.0 / (receptive * (w.shape[-2] + w.shape[-1])))
                new.append(rng.uniform(-limit, limit, w.shape).astype("float32"))
        layer.set_weights(new)
# --8<-- [end:model]


def make_request(batch: int) -> np.ndarray:
    return np.random.default_rng(0).random((batch, *IMAGE), dtype=np.float32)


_TEMP_DIRS: list[str] = []


def _workdir() -> str:
    """A fresh folder for one format's files, removed when the process exits."""
    path = tempfile.mkdtemp(prefix="tfperf-serving-")
    _TEMP_DIRS.append(path)
    return path


@atexit.register
def _cleanup() -> None:
    for path in _TEMP_DIRS:
        shutil.rmtree(path, ignore_errors=True)


def _size(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def _signature() -> tuple[tf.TensorSpec, ...]:
    return (tf.TensorSpec((None, *IMAGE), tf.float32, name="image"),)


def _loaded(load: Callable[[], Any], path: str, convert_s: float) -> tuple[Any, dict[str, float]]:
    t0 = time.perf_counter()
    obj = load()
    load_s = time.perf_counter() - t0
    return obj, {"convert_s": convert_s, "load_s": load_s, "file_bytes": float(_size(path))}


def _timed(save: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = save()
    return out, time.perf_counter() - t0


# --8<-- [start:keras]
def setup_keras(params: dict) -> dict:
    """The Keras model itself, saved as .keras and loaded back."""
    path = os.path.join(_workdir(), "model.keras")
    _, convert_s = _timed(lambda: build_model().save(path))
    model, metrics = _loaded(lambda: keras.models.load_model(path), path, convert_s)
    return {"model": model, "x": make_request(int(params["batch"])), "_metrics": metrics}


def keras_call(model, x):
    return model(x, training=False)
# --8<-- [end:keras]


# --8<-- [start:tf_function]
def setup_tf_function(params: dict) -> dict:
    kwargs = setup_keras(params)
    model = kwargs.pop("model")
    kwargs["forward"] = tf.function(lambda x: model(x, training=False), input_signature=_signature())
    return kwargs


def tf_function_call(forward, x):
    return forward(x)
# --8<-- [end:tf_function]


# --8<-- [start:saved_model]
def setup_saved_model(params: dict) -> dict:
    """tf.saved_model.save with an explicit serving signature, then tf.saved_model.load
    (no Keras needed at serving time: this is what TF Serving loads)."""
    model = build_model()
    path = os.path.join(_workdir(), "saved_model")
    serve = tf.function(lambda image: {"logits": model(image, training=False)}, input_signature=_signature())
    _, convert_s = _timed(lambda: tf.saved_model.save(model, path, signatures={"serving_default": serve}))
    loaded, metrics = _loaded(lambda: tf.saved_model.load(path), path, convert_s)
    # Keep `loaded` referenced: a signature does not keep the object owning its variables alive.
    return {"loaded": loaded, "signature": loaded.signatures["serving_default"],
            "x": make_request(int(params["batch"])), "_metrics": metrics}


def saved_model_call(loaded, signature, x):
    return signature(image=tf.constant(x))["logits"]
# --8<-- [end:saved_model]


# --8<-- [start:frozen]
def freeze(model: "keras.Model", path: str) -> tuple[str, str]:
    """Variables folded into constants (convert_variables_to_constants_v2) and the GraphDef
    written to a .pb file: the TF2 form of the classic frozen_model.pb. Returns the names
    of the input and output tensors."""
    forward = tf.function(lambda image: model(image, training=False), input_signature=_signature())
    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    return frozen.inputs[0].name, frozen.outputs[0].name


def load_frozen(path: str, input_name: str, output_name: str) -> Callable[[tf.Tensor], tf.Tensor]:
    """Import a frozen GraphDef and prune it to a function from input to output."""
    graph_def = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    wrapped = tf.compat.v1.wrap_function(lambda: tf.compat.v1.import_graph_def(graph_def, name=""), [])
    return wrapped.prune(wrapped.graph.as_graph_element(input_name), wrapped.graph.as_graph_element(output_name))


def setup_frozen(params: dict) -> dict:
    path = os.path.join(_workdir(), "frozen_model.pb")
    (inp, out), convert_s = _timed(lambda: freeze(build_model(), path))
    fn, metrics = _loaded(lambda: load_frozen(path, inp, out), path, convert_s)
    return {"frozen": fn, "x": make_request(int(params["batch"])), "_metrics": metrics}


def frozen_call(frozen, x):
    return frozen(tf.constant(x))
# --8<-- [end:frozen]


# --8<-- [start:frozen_imported]
def setup_frozen_imported(params: dict) -> dict:
    """The same frozen .pb, loaded the other common way: imported inside a tf.function
    (tf.graph_util.import_graph_def with an input_map) instead of wrap_function + prune."""
    path = os.path.join(_workdir(), "frozen_model.pb")
    (inp, out), convert_s = _timed(lambda: freeze(build_model(), path))

    def load() -> Callable[[tf.Tensor], tf.Tensor]:
        graph_def = tf.compat.v1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())

        @tf.function(input_signature=_signature())
        def imported(image):
            return tf.graph_util.import_graph_def(graph_def, input_map={inp: image}, return_elements=[out])[0]

        imported.get_concrete_function()  # trace now: part of loading
        return imported

    fn, metrics = _loaded(load, path, convert_s)
    return {"frozen": fn, "x": make_request(int(params["batch"])), "_metrics": metrics}
# --8<-- [end:frozen_imported]


# --8<-- [start:graph_transforms]
BLOG_TRANSFORMS = ["strip_unused_nodes", "remove_nodes(op=CheckNumerics)", "merge_duplicate_nodes",
                   "fold_constants", "fold_batch_norms", "fold_old_batch_norms"]


def setup_graph_transforms(params: dict) -> dict:
    """The frozen graph rewritten by the Graph Transform tool with the 2019 post's list of
    transforms. Its Python package (tensorflow.tools.graph_transforms) is gone from the
    wheels; the C++ tool is still reachable through a private module, used here."""
    from tensorflow.python.util._pywrap_transform_graph import TransformGraphWithStringInputs

    path = os.path.join(_workdir(), "optimized_model.pb")

    def transform() -> tuple[str, str]:
        inp, out = freeze(build_model(), path)
        with open(path, "rb") as f:
            frozen = f.read()
        optimized = TransformGraphWithStringInputs(
            frozen, inp.split(":")[0].encode(), out.split(":")[0].encode(), " ".join(BLOG_TRANSFORMS).encode())
        with open(path, "wb") as f:
            f.write(optimized)
        return inp, out

    (inp, out), convert_s = _timed(transform)
    fn, metrics = _loaded(lambda: load_frozen(path, inp, out), path, convert_s)
    return {"frozen": fn, "x": make_request(int(params["batch"])), "_metrics": metrics}
# --8<-- [end:graph_transforms]


# --8<-- [start:tflite]
def _interpreter_class() -> Any:
    """LiteRT's interpreter (pip install ai-edge-litert); TensorFlow's tf.lite.Interpreter,
    deprecated in its favour, when LiteRT is not installed."""
    try:
        from ai_edge_litert import interpreter as litert
        return litert
    except ImportError:
        return tf.lite


def _convert_frozen(model: "keras.Model", path: str) -> None:
    """From the frozen forward pass rather than from_keras_model: the same graph, but no
    variables left for the converter to freeze, which for Keras 3's batch norm aborts
    the process in TF 2.16 ("LLVM ERROR: Failed to infer result type(s)")."""
    forward = tf.function(lambda image: model(image, training=False), input_signature=_signature())
    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    with open(path, "wb") as f, contextlib.redirect_stdout(io.StringIO()):
        f.write(tf.lite.TFLiteConverter.from_concrete_functions([frozen]).convert())


def _setup_tflite(params: dict, xnnpack: bool,
                  convert_to: Callable[["keras.Model", str], None] = _convert_frozen) -> dict:
    model = build_model()
    path = os.path.join(_workdir(), "model.tflite")

    def convert() -> None:
        convert_to(model, path)

    _, convert_s = _timed(convert)
    batch = int(params["batch"])
    lite = _interpreter_class()

    def load() -> Any:
        # XNNPACK is applied by default; BUILTIN_WITHOUT_DEFAULT_DELEGATES runs the plain
        # TFLite kernels instead.
        kind = (lite.experimental.OpResolverType if hasattr(lite, "experimental") else lite.OpResolverType)
        resolver = kind.AUTO if xnnpack else kind.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        interpreter = lite.Interpreter(model_path=path, experimental_op_resolver_type=resolver)
        inp = interpreter.get_input_details()[0]["index"]
        interpreter.resize_tensor_input(inp, [batch, *IMAGE])
        interpreter.allocate_tensors()
        return interpreter

    interpreter, metrics = _loaded(load, path, convert_s)
    return {"interpreter": interpreter, "inp": interpreter.get_input_details()[0]["index"],
            "out": interpreter.get_output_details()[0]["index"], "x": make_request(batch), "_metrics": metrics}


def setup_tflite(params: dict) -> dict:
    return _setup_tflite(params, xnnpack=True)


def setup_tflite_plain(params: dict) -> dict:
    return _setup_tflite(params, xnnpack=False)


def tflite_call(interpreter, inp, out, x):
    interpreter.set_tensor(inp, x)
    interpreter.invoke()
    return interpreter.get_tensor(out)  # a copy: safe to keep after the next invoke()
# --8<-- [end:tflite]


# --8<-- [start:tflite_traps]
# Two conversion paths that guides show and that have been reported to give a wrong
# answer silently for Keras 3 models (NaN, or a constant): measured so that the output
# check shows what they give today. Never a reference or a default.
def _convert_concrete_with_trackable(model: "keras.Model", path: str) -> None:
    """from_concrete_functions with the model as trackable_obj: the converter freezes the
    variables itself."""
    forward = tf.function(lambda image: model(image, training=False), input_signature=_signature())
    converter = tf.lite.TFLiteConverter.from_concrete_functions([forward.get_concrete_function()], model)
    with open(path, "wb") as f, contextlib.redirect_stdout(io.StringIO()):
        f.write(converter.convert())


def _convert_saved_model_signature(model: "keras.Model", path: str) -> None:
    """tf.saved_model.save with a serving signature, then from_saved_model."""
    folder = os.path.join(os.path.dirname(path), "saved_model")
    serve = tf.function(lambda image: {"logits": model(image, training=False)}, input_signature=_signature())
    tf.saved_model.save(model, folder, signatures={"serving_default": serve})
    with open(path, "wb") as f, contextlib.redirect_stdout(io.StringIO()):
        f.write(tf.lite.TFLiteConverter.from_saved_model(folder).convert())


def setup_tflite_trap_concrete(params: dict) -> dict:
    return _setup_tflite(params, xnnpack=True, convert_to=_convert_concrete_with_trackable)


def setup_tflite_trap_saved_model(params: dict) -> dict:
    return _setup_tflite(params, xnnpack=True, convert_to=_convert_saved_model_signature)
# --8<-- [end:tflite_traps]


# --8<-- [start:onnx]
def setup_onnx(params: dict) -> dict:
    """tf2onnx from a tf.function of the model, then an ONNX Runtime session on CPU."""
    import onnxruntime as ort
    import tf2onnx

    model = build_model()
    path = os.path.join(_workdir(), "model.onnx")
    forward = tf.function(lambda image: model(image, training=False), input_signature=_signature())
    _, convert_s = _timed(lambda: tf2onnx.convert.from_function(
        forward, input_signature=_signature(), opset=17, output_path=path))
    session, metrics = _loaded(
        lambda: ort.InferenceSession(path, providers=["CPUExecutionProvider"]), path, convert_s)
    return {"session": session, "name": session.get_inputs()[0].name, "x": make_request(int(params["batch"])),
            "_metrics": metrics}


def setup_onnx_from_keras(params: dict) -> dict:
    """The converter's Keras entry point, tf2onnx.convert.from_keras, which most guides show."""
    import onnxruntime as ort
    import tf2onnx

    model = build_model()
    path = os.path.join(_workdir(), "model.onnx")
    _, convert_s = _timed(lambda: tf2onnx.convert.from_keras(
        model, input_signature=_signature(), opset=17, output_path=path))
    session, metrics = _loaded(
        lambda: ort.InferenceSession(path, providers=["CPUExecutionProvider"]), path, convert_s)
    return {"session": session, "name": session.get_inputs()[0].name, "x": make_request(int(params["batch"])),
            "_metrics": metrics}


def onnx_call(session, name, x):
    return session.run(None, {name: x})[0]
# --8<-- [end:onnx]


# The harness's default setup (used when a variant names none).
setup = setup_keras


if __name__ == "__main__":
    from _standalone import compare

    params = {"batch": 1}
    rows: dict[str, tuple[Callable[..., Any], Callable[[dict], dict]]] = {
        "Keras model(x)": (keras_call, setup_keras),
        "tf.function": (tf_function_call, setup_tf_function),
        "frozen graph": (frozen_call, setup_frozen),
        "frozen, in tf.function": (frozen_call, setup_frozen_imported),
        "Graph Transform tool": (frozen_call, setup_graph_transforms),
        "SavedModel signature": (saved_model_call, setup_saved_model),
        "TFLite (XNNPACK)": (tflite_call, setup_tflite),
        "TFLite (no XNNPACK)": (tflite_call, setup_tflite_plain),
        "TFLite trap: concrete fn + model": (tflite_call, setup_tflite_trap_concrete),
        "TFLite trap: from_saved_model": (tflite_call, setup_tflite_trap_saved_model),
        "ONNX Runtime": (onnx_call, setup_onnx),
    }
    variants: dict[str, Callable[..., Any]] = {}
    setups: dict[str, Callable[[], dict]] = {}
    for name, (fn, make) in rows.items():
        try:
            kwargs = make(params)
        except ImportError as exc:
            print(f"skipping {name}: {exc}")
            continue
        kwargs.pop("_metrics", None)
        variants[name] = fn
        setups[name] = (lambda kw=kwargs: kw)
    compare("Serving formats, small convnet, one 32x32x3 image per request", variants, setups,
            baseline="Keras model(x)")
