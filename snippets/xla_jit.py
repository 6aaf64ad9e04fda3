"""tf.function and XLA: a Keras model called eagerly, wrapped in tf.function (jit_compile
None, the default, and False), and compiled with XLA (jit_compile=True).

Run it yourself:  python snippets/xla_jit.py
(prints a small table for MobileNetV3Small on a batch of 8; the models are built with
weights=None, so nothing is downloaded).

As in the classic question this topic revisits, the forward pass is timed with a numpy
input, the model called as model(x). The first call of each wrapper (tracing, and for
jit_compile=True the XLA compilation) is reported apart from the steady state.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

keras = tf.keras  # Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1

IMAGE_SIZE = 96  # the applications default to 224 (EfficientNetV2S: 384); 96 keeps the full grid within ~15 min on 2 cores
QUESTION_SIZE = 384  # EfficientNetV2S as in the question: 384x384, measured at batch 1 only


# --8<-- [start:models]
def build_model(name: str) -> "keras.Model":
    """Random weights (weights=None: no download), the same for every variant. The
    applications return logits (classifier_activation=None), with batch-norm statistics
    taken from a sample (calibrate_batch_norm): with the initial ones (mean 0, variance
    1) a random network's activations shrink layer after layer, to logits of ~1e-10 that
    hardly depend on the input, an output any wrong variant would match."""
    keras.utils.set_random_seed(0)
    shape = (IMAGE_SIZE, IMAGE_SIZE, 3)
    if name == "efficientnetv2s":  # the question's model at the question's size
        return calibrate_batch_norm(keras.applications.EfficientNetV2S(
            weights=None, input_shape=(QUESTION_SIZE, QUESTION_SIZE, 3), classifier_activation=None), samples=2)
    if name == "efficientnetv2b0":
        return calibrate_batch_norm(keras.applications.EfficientNetV2B0(
            weights=None, input_shape=shape, classifier_activation=None))
    if name == "mobilenetv3small":
        return calibrate_batch_norm(keras.applications.MobileNetV3Small(
            weights=None, input_shape=shape, classifier_activation=None))
    if name == "mlp":
        inputs = keras.Input(shape=(256,))
        x = inputs
        for _ in range(3):
            x = keras.layers.Dense(512, activation="relu")(x)
        return keras.Model(inputs, keras.layers.Dense(10)(x))
    raise ValueError(f"unknown model {name!r}")


def calibrate_batch_norm(model: "keras.Model", samples: int = 8) -> "keras.Model":
    """Trained-looking batch-norm statistics: one call in training mode with momentum 0
    sets every layer's moving mean and variance to those of its inputs on a sample batch
    (deterministic: the same for every variant; 2 samples of 384x384 cost 2.5 s here)."""
    layers = [layer for layer in model.layers if isinstance(layer, keras.layers.BatchNormalization)]
    momenta = [layer.momentum for layer in layers]
    for layer in layers:
        layer.momentum = 0.0
    model(make_input(model, samples, seed=2), training=True)
    for layer, momentum in zip(layers, momenta):
        layer.momentum = momentum
    return model
# --8<-- [end:models]


def make_input(model: "keras.Model", batch: int, seed: int = 1) -> np.ndarray:
    """Uniform noise; for the image models pixel values in [0, 255), as the applications
    expect (they rescale inside), so that the images differ after that rescaling."""
    shape = (batch, *model.input_shape[1:])
    x = np.random.default_rng(seed).random(shape, dtype=np.float32)
    return x * np.float32(255.0) if len(shape) == 4 else x


def setup(params: dict) -> dict:
    model = build_model(params["model"])
    return {"model": model, "x": make_input(model, int(params["batch"]))}


# --8<-- [start:wrappers]
def setup_function(params: dict) -> dict:
    kwargs = setup(params)
    return {"model": tf.function(kwargs["model"]), "x": kwargs["x"]}  # jit_compile=None


def setup_function_no_jit(params: dict) -> dict:
    kwargs = setup(params)
    return {"model": tf.function(kwargs["model"], jit_compile=False), "x": kwargs["x"]}


def setup_xla(params: dict) -> dict:
    kwargs = setup(params)
    return {"model": tf.function(kwargs["model"], jit_compile=True), "x": kwargs["x"]}
# --8<-- [end:wrappers]


# --8<-- [start:call]
def call(model, x):
    return model(x)
# --8<-- [end:call]


if __name__ == "__main__":
    from _standalone import compare, keras_label

    params = {"model": "mobilenetv3small", "batch": 8}
    setups = {"eager": setup, "tf.function": setup_function,
              "tf.function(jit_compile=False)": setup_function_no_jit,
              "tf.function(jit_compile=True)": setup_xla}
    compare(f"TensorFlow {tf.__version__}, {keras_label(keras)}: MobileNetV3Small, {IMAGE_SIZE}x{IMAGE_SIZE}, batch of 8 (numpy input)",
            {name: call for name in setups}, {name: (lambda s=s: s(params)) for name, s in setups.items()},
            baseline="eager")
