"""predict() vs calling the model: six ways to run a Keras model forward.

Run it yourself:  python snippets/predict_vs_call.py
(prints a small table for the classic 4-2-1 model; set TF_USE_LEGACY_KERAS=1 to run the
same code under legacy Keras 2, i.e. tf_keras).

The tfperf harness times exactly these functions: for every case it calls the setup
function afresh (so each variant gets a model with identical weights), then times the
variant's call, bringing its output to host memory each time.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

keras = tf.keras  # Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1


# --8<-- [start:models]
def build_model(size: str) -> "keras.Model":
    """tiny: the 4-2-1 Dense model of the classic Stack Overflow question;
    medium: a 256-1024-1024-1024-10 MLP; large: a small convnet on 32x32x3 images
    (about 0.1 s or more per call of 1024 images on a 2-core CPU)."""
    if size == "tiny":
        inputs = keras.Input(shape=(4,))
        x = keras.layers.Dense(2, activation="relu")(inputs)
        outputs = keras.layers.Dense(1, activation="sigmoid")(x)
    elif size == "medium":
        inputs = keras.Input(shape=(256,))
        x = inputs
        for _ in range(3):
            x = keras.layers.Dense(1024, activation="relu")(x)
        outputs = keras.layers.Dense(10)(x)
    elif size == "large":
        inputs = keras.Input(shape=(32, 32, 3))
        x = keras.layers.Conv2D(32, 3, activation="relu")(inputs)
        x = keras.layers.Conv2D(64, 3, activation="relu")(x)
        x = keras.layers.MaxPooling2D()(x)
        x = keras.layers.Conv2D(128, 3, activation="relu")(x)
        x = keras.layers.GlobalAveragePooling2D()(x)
        outputs = keras.layers.Dense(10)(x)
    else:
        raise ValueError(f"unknown model size {size!r}")
    model = keras.Model(inputs, outputs)
    set_seeded_weights(model)  # identical weights for every variant, in Keras 3 and 2
    return model


def set_seeded_weights(model: "keras.Model", seed: int = 0) -> None:
    """Every weight drawn with numpy (Keras 3 and tf_keras initialisers draw different
    numbers from the same seed): Glorot-uniform kernels, small biases."""
    rng = np.random.RandomState(seed)
    for layer in model.layers:
        new = []
        for w in layer.get_weights():
            if w.ndim == 1:             # bias
                new.append(rng.normal(0, 0.05, w.shape).astype("float32"))
            else:                       # kernel: (..., fan_in, fan_out)
                receptive = int(np.prod(w.shape[:-2]))
                limit = np.sqrt(6.0 / (receptive * (w.shape[-2] + w.shape[-1])))
                new.append(rng.uniform(-limit, limit, w.shape).astype("float32"))
        if new:
            layer.set_weights(new)
# --8<-- [end:models]


def make_input(model: "keras.Model", batch: int, kind: str) -> object:
    shape = (batch, *model.input_shape[1:])
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    return tf.constant(x) if kind == "tensor" else x


def setup(params: dict) -> dict:
    model = build_model(params["model"])
    return {"model": model, "x": make_input(model, int(params["batch"]), params.get("input", "numpy"))}


# --8<-- [start:compiled]
def setup_compiled(params: dict) -> dict:
    kwargs = setup(params)
    kwargs["model"].compile(optimizer="adam", loss="mse")  # as after training
    return kwargs
# --8<-- [end:compiled]


# --8<-- [start:tf_function]
def setup_tf_function(params: dict) -> dict:
    kwargs = setup(params)
    model = kwargs["model"]

    @tf.function(reduce_retracing=True)
    def forward(x):
        return model(x, training=False)

    return {"forward": forward, "x": kwargs["x"]}
# --8<-- [end:tf_function]


# --8<-- [start:variants]
def predict(model, x):
    return model.predict(x, verbose=0)


def predict_on_batch(model, x):
    return model.predict_on_batch(x)


def call(model, x):
    return model(x)


def call_training_false(model, x):
    return model(x, training=False)


def call_tf_function(forward, x):
    return forward(x)
# --8<-- [end:variants]


if __name__ == "__main__":
    from _standalone import compare, keras_label

    params = {"model": "tiny", "batch": 32, "input": "numpy"}
    variants = {"predict": predict, "predict (compiled)": predict, "predict_on_batch": predict_on_batch,
                "model(x)": call, "model(x, training=False)": call_training_false,
                "tf.function(model)": call_tf_function}
    setups = {name: (lambda: setup(params)) for name in variants}
    setups["predict (compiled)"] = lambda: setup_compiled(params)
    setups["tf.function(model)"] = lambda: setup_tf_function(params)
    compare(f"TensorFlow {tf.__version__}, {keras_label(keras)}: 4-2-1 model, batch of 32 (numpy input)", variants, setups, baseline="predict")
