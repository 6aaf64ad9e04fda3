"""Serving a Keras model on CPU: eager call, tf.function, frozen graph, SavedModel,
TFLite (LiteRT, with and without XNNPACK) and ONNX Runtime. Two models (params['model']):
a small convnet, and a grapheme-to-phoneme GRU encoder-decoder of the 2019 post's kind.

Run it yourself:  python snippets/serving_formats.py [convnet|g2p_gru]
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


def set_seeded_weights(model: "keras.Model", seed: int = 0, by_shape: bool = False) -> None:
    """Every weight drawn with numpy, so that Keras 3 and Keras 2 (tf_keras), whose own
    initialisers draw different numbers from the same seed, build the same model:
    Glorot-uniform kernels, small biases, and trained-looking batch-norm statistics (so
    that folding them is not a no-op). by_shape: draw a layer's weights in the order of
    their shapes (unique within each layer), not in the order the layer lists them, which
    for a layer holding other layers may differ between the two Kerases."""
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
        new: list[np.ndarray] = list(weights)
        order = sorted(range(len(weights)), key=lambda i: weights[i].shape) if by_shape else range(len(weights))
        for i in order:
            w = weights[i]
            if w.ndim == 1 or (by_shape and w.shape[0] == 2):   # bias (a GRU's: input and recurrent)
                new[i] = rng.normal(0, 0.05, w.shape).astype("float32")
            else:                       # kernel: (..., fan_in, fan_out)
                receptive = int(np.prod(w.shape[:-2]))
                limit = np.sqrt(6.0 / (receptive * (w.shape[-2] + w.shape[-1])))
                new[i] = rng.uniform(-limit, limit, w.shape).astype("float32")
        layer.set_weights(new)
# --8<-- [end:model]


# --8<-- [start:g2p_model]
# The 2019 post served g2p_en (its frozen file: 1.5 MB); sized to match, not trained.
GRAPHEMES = 29      # <pad>, <unk>, </s> and a-z, as in g2p_en
PHONEMES = 74       # <pad>, <unk>, <s>, </s> and 70 stressed ARPAbet symbols
MAX_LEN = 20        # graphemes in, phonemes out; fixed, so both loops have a fixed length
EMBED, UNITS = 128, 192   # about 400 000 weights: 1.6 MB as float32
START = 2           # <s>, the decoder's first input
# Untrained weights decode to near-ties easily (two logits within float error, so that
# another format's kernels flip a greedy decision and every later step differs): the
# output kernel is scaled up, and the weight seed was chosen so that the smallest
# top-1/top-2 gap (decision_gap) over the requests measured here is far above the output
# check's tolerance. tests/test_topic_serving.py checks it.
G2P_LOGIT_SCALE = 50.0
G2P_WEIGHT_SEED = 7
G2P_REQUEST_SEED = 0


@keras.utils.register_keras_serializable(package="tfperf")
class GreedyDecoder(keras.layers.Layer):
    """A GRU decoder that feeds back its own argmax for a fixed MAX_LEN steps (greedy
    decoding, as g2p_en's predict does) and returns every step's logits. The loop is a
    Python loop, unrolled when traced: no while loop for a converter to translate."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.embed = keras.layers.Embedding(PHONEMES, EMBED, name="phoneme_embedding")
        self.cell = keras.layers.GRUCell(UNITS, name="decoder_cell")
        self.out = keras.layers.Dense(PHONEMES, name="phoneme_logits")

    def build(self, input_shape: Any) -> None:
        self.embed.build((None,))
        self.cell.build((None, EMBED))
        self.out.build((None, UNITS))
        super().build(input_shape)

    def call(self, state: tf.Tensor) -> tf.Tensor:
        token = tf.fill(tf.shape(state)[:1], START)
        steps = []
        for _ in range(MAX_LEN):
            state, _ = self.cell(self.embed(token), [state])
            logits = self.out(state)
            steps.append(logits)
            token = tf.argmax(logits, axis=-1, output_type=tf.int32)
        return tf.stack(steps, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (input_shape[0], MAX_LEN, PHONEMES)


def build_g2p() -> "keras.Model":
    """A grapheme-to-phoneme sequence-to-sequence model of g2p_en's kind: grapheme
    embedding, GRU encoder, greedy GRU decoder. In: grapheme ids [batch, MAX_LEN] int32;
    out: logits [batch, MAX_LEN, PHONEMES]. The encoder is unrolled (unroll=True) like the
    decoder: with its default while loop the TFLite converter rejects the model
    ("'tf.TensorListReserve' op requires element_shape to be static", the batch being
    open) and the frozen graph cannot be imported inside a tf.function ("has inputs from
    different frames"), and the ladder would compare only the TensorFlow formats."""
    inputs = keras.Input(shape=(MAX_LEN,), dtype="int32", name="graphemes")
    x = keras.layers.Embedding(GRAPHEMES, EMBED, name="grapheme_embedding")(inputs)
    state = keras.layers.GRU(UNITS, unroll=True, name="encoder")(x)
    outputs = GreedyDecoder(name="decoder")(state)
    model = keras.Model(inputs, outputs)
    set_seeded_weights(model, seed=G2P_WEIGHT_SEED, by_shape=True)
    head = model.get_layer("decoder").out.kernel
    head.assign(head * G2P_LOGIT_SCALE)
    return model


def decision_gap(logits: np.ndarray) -> float:
    """The smallest gap between the largest and second-largest logit over all decisions."""
    top2 = np.sort(np.asarray(logits, dtype=np.float64), axis=-1)[..., -2:]
    return float((top2[..., 1] - top2[..., 0]).min())
# --8<-- [end:g2p_model]


MODELS = ("convnet", "g2p_gru")


def model_name(params: dict) -> str:
    """The `model` parameter; convnet when absent (the profiles that do not vary it)."""
    name = str(params.get("model", "convnet"))
    if name not in MODELS:
        raise ValueError(f"serving_formats: unknown model {name!r} (params['model']); known: {', '.join(MODELS)}")
    return name


def build(params: dict) -> "keras.Model":
    return build_g2p() if model_name(params) == "g2p_gru" else build_model()


def input_spec(params: dict) -> tf.TensorSpec:
    if model_name(params) == "g2p_gru":
        return tf.TensorSpec((None, MAX_LEN), tf.int32, name="graphemes")
    return tf.TensorSpec((None, *IMAGE), tf.float32, name="image")


def make_request(batch: int, model: str = "convnet") -> np.ndarray:
    if model != "g2p_gru":
        return np.random.default_rng(0).random((batch, *IMAGE), dtype=np.float32)
    rng = np.random.default_rng(G2P_REQUEST_SEED)
    # Words of 3 to MAX_LEN - 1 letters, then </s> (2), then <pad> (0).
    ids = rng.integers(3, GRAPHEMES, (batch, MAX_LEN), dtype=np.int32)
    lengths = rng.integers(3, MAX_LEN, batch)
    for row, n in zip(ids, lengths):
        row[n], row[n + 1:] = 2, 0
    return ids


def _request(params: dict) -> np.ndarray:
    return make_request(int(params["batch"]), model_name(params))


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


def _signature(params: dict) -> tuple[tf.TensorSpec, ...]:
    return (input_spec(params),)


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
    _, convert_s = _timed(lambda: build(params).save(path))
    model, metrics = _loaded(lambda: keras.models.load_model(path), path, convert_s)
    return {"model": model, "x": _request(params), "_metrics": metrics}


def keras_call(model, x):
    return model(x, training=False)
# --8<-- [end:keras]


# --8<-- [start:tf_function]
def setup_tf_function(params: dict) -> dict:
    kwargs = setup_keras(params)
    model = kwargs.pop("model")
    kwargs["forward"] = tf.function(lambda x: model(x, training=False), input_signature=_signature(params))
    return kwargs


def tf_function_call(forward, x):
    return forward(x)
# --8<-- [end:tf_function]


# --8<-- [start:saved_model]
def setup_saved_model(params: dict) -> dict:
    """tf.saved_model.save with an explicit serving signature, then tf.saved_model.load
    (no Keras needed at serving time: this is what TF Serving loads)."""
    model = build(params)
    path = os.path.join(_workdir(), "saved_model")
    serve = tf.function(lambda x: {"logits": model(x, training=False)}, input_signature=_signature(params))
    _, convert_s = _timed(lambda: tf.saved_model.save(model, path, signatures={"serving_default": serve}))
    loaded, metrics = _loaded(lambda: tf.saved_model.load(path), path, convert_s)
    signature = loaded.signatures["serving_default"]
    (name,) = signature.structured_input_signature[1]  # the input's keyword
    # Keep `loaded` referenced: a signature does not keep the object owning its variables alive.
    return {"loaded": loaded, "signature": signature, "name": name, "x": _request(params), "_metrics": metrics}


def saved_model_call(loaded, signature, name, x):
    return signature(**{name: tf.constant(x)})["logits"]
# --8<-- [end:saved_model]


# --8<-- [start:frozen]
def freeze(model: "keras.Model", signature: tuple[tf.TensorSpec, ...], path: str) -> tuple[str, str]:
    """Variables folded into constants (convert_variables_to_constants_v2) and the GraphDef
    written to a .pb file: the TF2 form of the classic frozen_model.pb. Returns the names
    of the input and output tensors."""
    forward = tf.function(lambda x: model(x, training=False), input_signature=signature)
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
    (inp, out), convert_s = _timed(lambda: freeze(build(params), _signature(params), path))
    fn, metrics = _loaded(lambda: load_frozen(path, inp, out), path, convert_s)
    return {"frozen": fn, "x": _request(params), "_metrics": metrics}


def frozen_call(frozen, x):
    return frozen(tf.constant(x))
# --8<-- [end:frozen]


# --8<-- [start:frozen_imported]
def setup_frozen_imported(params: dict) -> dict:
    """The same frozen .pb, loaded the other common way: imported inside a tf.function
    (tf.graph_util.import_graph_def with an input_map) instead of wrap_function + prune."""
    path = os.path.join(_workdir(), "frozen_model.pb")
    (inp, out), convert_s = _timed(lambda: freeze(build(params), _signature(params), path))

    def load() -> Callable[[tf.Tensor], tf.Tensor]:
        graph_def = tf.compat.v1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())

        @tf.function(input_signature=_signature(params))
        def imported(x):
            return tf.graph_util.import_graph_def(graph_def, input_map={inp: x}, return_elements=[out])[0]

        imported.get_concrete_function()  # trace now: part of loading
        return imported

    fn, metrics = _loaded(load, path, convert_s)
    return {"frozen": fn, "x": _request(params), "_metrics": metrics}
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
        inp, out = freeze(build(params), _signature(params), path)
        with open(path, "rb") as f:
            frozen = f.read()
        optimized = TransformGraphWithStringInputs(
            frozen, inp.split(":")[0].encode(), out.split(":")[0].encode(), " ".join(BLOG_TRANSFORMS).encode())
        with open(path, "wb") as f:
            f.write(optimized)
        return inp, out

    (inp, out), convert_s = _timed(transform)
    fn, metrics = _loaded(lambda: load_frozen(path, inp, out), path, convert_s)
    return {"frozen": fn, "x": _request(params), "_metrics": metrics}
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


def _convert_frozen(model: "keras.Model", signature: tuple[tf.TensorSpec, ...], path: str) -> None:
    """From the frozen forward pass rather than from_keras_model: the same graph, but no
    variables left for the converter to freeze, which for Keras 3's batch norm aborts
    the process in TF 2.16 ("LLVM ERROR: Failed to infer result type(s)")."""
    forward = tf.function(lambda x: model(x, training=False), input_signature=signature)
    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    with open(path, "wb") as f, contextlib.redirect_stdout(io.StringIO()):
        f.write(tf.lite.TFLiteConverter.from_concrete_functions([frozen]).convert())


def _setup_tflite(params: dict, xnnpack: bool,
                  convert_to: Callable[["keras.Model", tuple[tf.TensorSpec, ...], str], None] = _convert_frozen) -> dict:
    model = build(params)
    path = os.path.join(_workdir(), "model.tflite")

    def convert() -> None:
        convert_to(model, _signature(params), path)

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
        interpreter.resize_tensor_input(inp, [batch, *input_spec(params).shape[1:]])
        interpreter.allocate_tensors()
        return interpreter

    interpreter, metrics = _loaded(load, path, convert_s)
    return {"interpreter": interpreter, "inp": interpreter.get_input_details()[0]["index"],
            "out": interpreter.get_output_details()[0]["index"], "x": _request(params), "_metrics": metrics}


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
def _convert_concrete_with_trackable(model: "keras.Model", signature: tuple[tf.TensorSpec, ...], path: str) -> None:
    """from_concrete_functions with the model as trackable_obj: the converter freezes the
    variables itself."""
    forward = tf.function(lambda x: model(x, training=False), input_signature=signature)
    converter = tf.lite.TFLiteConverter.from_concrete_functions([forward.get_concrete_function()], model)
    with open(path, "wb") as f, contextlib.redirect_stdout(io.StringIO()):
        f.write(converter.convert())


def _convert_saved_model_signature(model: "keras.Model", signature: tuple[tf.TensorSpec, ...], path: str) -> None:
    """tf.saved_model.save with a serving signature, then from_saved_model."""
    folder = os.path.join(os.path.dirname(path), "saved_model")
    serve = tf.function(lambda x: {"logits": model(x, training=False)}, input_signature=signature)
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

    model = build(params)
    path = os.path.join(_workdir(), "model.onnx")
    forward = tf.function(lambda x: model(x, training=False), input_signature=_signature(params))
    _, convert_s = _timed(lambda: tf2onnx.convert.from_function(
        forward, input_signature=_signature(params), opset=17, output_path=path))
    session, metrics = _loaded(
        lambda: ort.InferenceSession(path, providers=["CPUExecutionProvider"]), path, convert_s)
    return {"session": session, "name": session.get_inputs()[0].name, "x": _request(params),
            "_metrics": metrics}


def setup_onnx_from_keras(params: dict) -> dict:
    """The converter's Keras entry point, tf2onnx.convert.from_keras, which most guides show."""
    import onnxruntime as ort
    import tf2onnx

    model = build(params)
    path = os.path.join(_workdir(), "model.onnx")
    _, convert_s = _timed(lambda: tf2onnx.convert.from_keras(
        model, input_signature=_signature(params), opset=17, output_path=path))
    session, metrics = _loaded(
        lambda: ort.InferenceSession(path, providers=["CPUExecutionProvider"]), path, convert_s)
    return {"session": session, "name": session.get_inputs()[0].name, "x": _request(params),
            "_metrics": metrics}


def onnx_call(session, name, x):
    return session.run(None, {name: x})[0]
# --8<-- [end:onnx]


# The harness's default setup (used when a variant names none).
setup = setup_keras


if __name__ == "__main__":
    import sys

    from _standalone import compare

    params = {"batch": 1, "model": sys.argv[1] if len(sys.argv) > 1 else "convnet"}
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
    title = {"convnet": "small convnet, one 32x32x3 image", "g2p_gru": "g2p-like GRU seq2seq, one word"}
    compare(f"Serving formats, {title[model_name(params)]} per request", variants, setups,
            baseline="Keras model(x)")
