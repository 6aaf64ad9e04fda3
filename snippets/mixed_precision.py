"""Mixed precision on a CPU: float32 against Keras' mixed_bfloat16 and mixed_float16
policies, for inference and for one training step, on an MLP, a convnet and a GRU.

Run it yourself:  python snippets/mixed_precision.py
(prints a small table for the three models at a batch of 64, and how far each policy's
logits are from float32's; set TF_ENABLE_ONEDNN_OPTS=0 first to see TensorFlow's own
kernels instead of oneDNN's).

A policy changes the dtype each layer computes in; the weights stay float32. Whether a
16-bit policy is faster depends on the CPU: oneDNN runs bfloat16 matmuls and convolutions
on AMX tiles or AVX-512 BF16 instructions where the CPU has them, and emulates them
(converting to float32 and back) where it does not. The last layer computes in float32,
as the mixed precision guide advises, so the logits and the loss are float32 under every
policy and can be compared with float32's.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

keras = tf.keras  # Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1

CLASSES = 10


# --8<-- [start:models]
def build_model(name: str, policy: str = "float32") -> "keras.Model":
    """The three models of the CPU tuning page (mlp: 1024 -> 4 x Dense(1024); convnet:
    three conv/batch-norm/pool blocks on 32x32x3 images; rnn: a GRU(256) over 32 steps of
    64 features), every layer under `policy`, except the float32 output layer."""
    keras.utils.set_random_seed(0)              # the same weights under every policy
    previous = keras.mixed_precision.global_policy()
    keras.mixed_precision.set_global_policy(policy)
    try:
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
        x = keras.layers.Dense(CLASSES)(x)
        # The guide's advice: the model's output in float32, whatever the policy.
        outputs = keras.layers.Activation("linear", dtype="float32")(x)
        return keras.Model(inputs, outputs)
    finally:
        keras.mixed_precision.set_global_policy(previous)
# --8<-- [end:models]


def make_batch(model: "keras.Model", batch: int) -> tuple:
    """A fixed, seeded batch: inputs ~ N(0, 1) and integer labels."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, *model.input_shape[1:]), dtype=np.float32)
    y = rng.integers(0, CLASSES, batch).astype("int32")
    return tf.constant(x), tf.constant(y)


# --8<-- [start:steps]
def predict_step(model):
    """Inference as a server runs it: the forward pass in a tf.function."""
    return tf.function(lambda x, y: model(x, training=False))


def train_step(model):
    """One training step of fit()'s kind: compile(), then train_on_batch(). Under
    mixed_float16, compile() wraps the optimizer in a LossScaleOptimizer by itself."""
    model.compile(optimizer=keras.optimizers.SGD(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return lambda x, y: model.train_on_batch(x, y)   # returns the step's loss
# --8<-- [end:steps]


def setup_policy(params: dict, policy: str) -> dict:
    model = build_model(params["model"], policy)
    x, y = make_batch(model, int(params["batch"]))
    step = predict_step(model) if params.get("mode", "predict") == "predict" else train_step(model)
    return {"step": step, "x": x, "y": y}


# --8<-- [start:policies]
def setup_float32(params: dict) -> dict:
    return setup_policy(params, "float32")


def setup_bfloat16(params: dict) -> dict:
    return setup_policy(params, "mixed_bfloat16")


def setup_float16(params: dict) -> dict:
    return setup_policy(params, "mixed_float16")
# --8<-- [end:policies]


# --8<-- [start:run]
def run(step, x, y):
    return step(x, y)   # the logits (inference) or the step's loss (training)
# --8<-- [end:run]


if __name__ == "__main__":
    from _standalone import compare, keras_label

    setups = {"float32": setup_float32, "mixed_bfloat16": setup_bfloat16, "mixed_float16": setup_float16}
    for model_name in ("mlp", "convnet", "rnn"):
        for mode in ("predict", "train"):
            params = {"model": model_name, "batch": 64, "mode": mode}
            if mode == "predict":
                ref = np.asarray(run(**setup_float32(params)))
                for name, s in setups.items():
                    out = np.asarray(run(**s(params)))
                    print(f"{model_name} {name}: logits max |diff| from float32 {np.abs(out - ref).max():.4f}, "
                          f"top-1 agreement {np.mean(out.argmax(1) == ref.argmax(1)):.0%}")
            compare(f"TensorFlow {tf.__version__}, {keras_label(keras)}: {model_name}, {mode}, batch of 64",
                    {name: run for name in setups}, {name: (lambda s=s: s(params)) for name, s in setups.items()},
                    baseline="float32")
