"""Training-step styles: TF1-style graph and Session.run, TF2 eager with GradientTape,
the same step in tf.function (with and without XLA), and Keras train_on_batch / fit.

Run it yourself:  python snippets/train_step.py
(prints a small table for the small model on small data; set TF_USE_LEGACY_KERAS=1 to
run the Keras variants under legacy Keras 2, i.e. tf_keras).

The models and data shapes follow the classic 2019 "Why is TF2 much slower than TF1?"
benchmark (Conv1D and Dense layers, binary cross-entropy, Adam with learning rate 1e-4),
scaled down to fit a 2-core CPU: see SIZES and DATA below.

Every variant runs the same `steps` training steps per call on the same batches, from the
same initial weights (drawn with numpy, so the TF1-style graph and the Keras model start
from identical numbers), and returns the mean loss of those steps: what fit() reports as
the epoch's loss. The loss of a step is computed before that step's update.

The graph-mode functions (section "graph") use only APIs that exist in TensorFlow 1.15
as well as 2.x, so a TF 1.15 runner can run them unchanged; this file also stays valid
Python 3.7 (the official TF 1.15 containers). tests/test_tf1_api.py checks both.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

LEARNING_RATE = 1e-4
EPSILON = 1e-7  # Keras' Adam default; TF1's AdamOptimizer defaults to 1e-8, so it is set explicitly
BATCH = 32
CHANNELS = 30

# Layer lists: ("conv", filters, kernel, stride, padding) or ("gap",) or ("dense", units, activation).
# The 2019 models divided by 4 in every conv width and in every kernel and sequence length
# (Dense widths kept; the Dropout layers left out, so every variant computes the same numbers),
# and the 40 repeated 256-filter convolutions of the large model cut to 10.
SIZES = {
    # 2019: Conv1D(128, 40, strides=4, same) - GAP - Dropout - Dense(64) - Dense(1)
    "small": [("conv", 32, 10, 4, "same"), ("gap",), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    # 2019: six Conv1D(f, 20, valid), f = 64, 128, 256, 256, 128, 64 - GAP - Dense 256, 128, 64, 1
    "medium": [("conv", f, 5, 1, "valid") for f in (16, 32, 64, 64, 32, 16)]
    + [("gap",), ("dense", 256, "relu"), ("dense", 128, "relu"), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    # 2019: Conv1D(64, 400, s4), Conv1D(128, 200), 40 x Conv1D(256, 12, same), Conv1D(512, 20, s2),
    # Conv1D(1028, 10, s2), Conv1D(256, 1) - GAP - Dense 256, 128, 64, 1
    "large": [("conv", 16, 100, 4, "valid"), ("conv", 32, 50, 1, "valid")]
    + [("conv", 64, 3, 1, "same")] * 10
    + [("conv", 128, 5, 2, "valid"), ("conv", 257, 3, 2, "valid"), ("conv", 64, 1, 1, "valid"),
       ("gap",), ("dense", 256, "relu"), ("dense", 128, "relu"), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    # The 2019 answer's own models at their sizes (Dropout left out, as above).
    "small_2019": [("conv", 128, 40, 4, "same"), ("gap",), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    "medium_2019": [("conv", f, 20, 1, "valid") for f in (64, 128, 256, 256, 128, 64)]
    + [("gap",), ("dense", 256, "relu"), ("dense", 128, "relu"), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    "large_2019": [("conv", 64, 400, 4, "valid"), ("conv", 128, 200, 1, "valid")]
    + [("conv", 256, 12, 1, "same")] * 40
    + [("conv", 512, 20, 2, "valid"), ("conv", 1028, 10, 2, "valid"), ("conv", 256, 1, 1, "valid"),
       ("gap",), ("dense", 256, "relu"), ("dense", 128, "relu"), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
}
# Sequence length per data size; 2019: 140, 1400 and 14000 time steps of 30 channels, batch 32.
# Small and medium divided by 4 like the kernels; large by 8 (3500 would take ~0.5 s a step here).
# The "_2019" sizes are the answer's own.
DATA = {"small": 35, "medium": 350, "large": 1750,
        "small_2019": 140, "medium_2019": 1400, "large_2019": 14000}


def initial_weights(layers: list, channels: int = CHANNELS, seed: int = 0) -> list:
    """Glorot-uniform kernels and zero biases, drawn with numpy: identical for every variant."""
    rng = np.random.RandomState(seed)
    weights = []
    fan_in = channels
    for layer in layers:
        if layer[0] == "conv":
            _, filters, kernel, _, _ = layer
            limit = np.sqrt(6.0 / (kernel * fan_in + kernel * filters))
            weights.append(rng.uniform(-limit, limit, (kernel, fan_in, filters)).astype("float32"))
            weights.append(np.zeros(filters, "float32"))
            fan_in = filters
        elif layer[0] == "dense":
            units = layer[1]
            limit = np.sqrt(6.0 / (fan_in + units))
            weights.append(rng.uniform(-limit, limit, (fan_in, units)).astype("float32"))
            weights.append(np.zeros(units, "float32"))
            fan_in = units
    return weights


def make_batches(length: int, steps: int, seed: int = 1) -> list:
    """`steps` batches of (x, y): x ~ N(0, 1) of shape (32, length, 30), y in {0, 1}."""
    rng = np.random.RandomState(seed)
    return [(rng.standard_normal((BATCH, length, CHANNELS)).astype("float32"),
             rng.randint(0, 2, (BATCH, 1)).astype("float32")) for _ in range(steps)]


# --8<-- [start:graph]
def build_graph(layers, weights, length):
    """The model, its loss and an Adam update as a TF1 graph, with a Session to run it."""
    graph = tf.Graph()
    with graph.as_default():
        x_in = tf.compat.v1.placeholder(tf.float32, (BATCH, length, CHANNELS))
        y_in = tf.compat.v1.placeholder(tf.float32, (BATCH, 1))
        values = iter(weights)
        h = x_in
        for layer in layers:
            if layer[0] == "conv":
                kernel = tf.compat.v1.Variable(next(values))
                bias = tf.compat.v1.Variable(next(values))
                h = tf.nn.conv1d(h, kernel, layer[3], layer[4].upper()) + bias
            elif layer[0] == "gap":
                h = tf.reduce_mean(h, axis=1)
            else:
                kernel = tf.compat.v1.Variable(next(values))
                bias = tf.compat.v1.Variable(next(values))
                h = tf.matmul(h, kernel) + bias
                if layer[2] == "relu":
                    h = tf.nn.relu(h)
        # The last Dense layer's sigmoid is folded into the loss (the numerically stable form).
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y_in, logits=h))
        optimizer = tf.compat.v1.train.AdamOptimizer(LEARNING_RATE, epsilon=EPSILON)
        train_op = optimizer.minimize(loss)
        init = tf.compat.v1.global_variables_initializer()
    session = tf.compat.v1.Session(graph=graph)
    session.run(init)
    return session, train_op, loss, x_in, y_in


def session_run(session, train_op, loss, x_in, y_in, batches):
    losses = []
    for x, y in batches:
        _, value = session.run([train_op, loss], feed_dict={x_in: x, y_in: y})
        losses.append(value)
    return np.mean(losses)
# --8<-- [end:graph]


def setup_graph(params: dict) -> dict:
    layers, length = SIZES[params["model"]], DATA[params["data"]]
    session, train_op, loss, x_in, y_in = build_graph(layers, initial_weights(layers), length)
    return {"session": session, "train_op": train_op, "loss": loss, "x_in": x_in, "y_in": y_in,
            "batches": make_batches(length, int(params["steps"]))}


# ---- TF2: the same model in Keras (Keras 3, or tf_keras when TF_USE_LEGACY_KERAS=1) ----

def build_model(layers, weights, length):
    keras = tf.keras
    inputs = keras.Input(shape=(length, CHANNELS), batch_size=BATCH)
    h = inputs
    for layer in layers:
        if layer[0] == "conv":
            h = keras.layers.Conv1D(layer[1], layer[2], strides=layer[3], padding=layer[4])(h)
        elif layer[0] == "gap":
            h = keras.layers.GlobalAveragePooling1D()(h)
        else:
            h = keras.layers.Dense(layer[1], activation=layer[2])(h)
    model = keras.Model(inputs, h)
    model.set_weights(weights)
    return model


def setup_keras(params: dict) -> dict:
    """A compiled Keras model and the batches: what train_on_batch and fit use."""
    layers, length = SIZES[params["model"]], DATA[params["data"]]
    model = build_model(layers, initial_weights(layers), length)
    model.compile(optimizer=tf.keras.optimizers.Adam(LEARNING_RATE, epsilon=EPSILON), loss="binary_crossentropy")
    return {"model": model, "batches": make_batches(length, int(params["steps"]))}


# --8<-- [start:eager]
def make_train_step(model, optimizer, loss_fn):
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


def run_steps(train_step, batches):
    return np.mean([float(train_step(x, y)) for x, y in batches])
# --8<-- [end:eager]


def setup_eager(params: dict, wrap=None) -> dict:
    kwargs = setup_keras(params)
    model = kwargs["model"]
    step = make_train_step(model, model.optimizer, tf.keras.losses.BinaryCrossentropy())
    return {"train_step": wrap(step) if wrap else step, "batches": kwargs["batches"]}


# --8<-- [start:function]
def setup_function(params: dict) -> dict:
    return setup_eager(params, wrap=tf.function)


def setup_xla(params: dict) -> dict:
    return setup_eager(params, wrap=lambda step: tf.function(step, jit_compile=True))
# --8<-- [end:function]


# --8<-- [start:keras]
def train_on_batch(model, batches):
    return np.mean([model.train_on_batch(x, y) for x, y in batches])


def fit_numpy(model, x, y):
    history = model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    return history.history["loss"][0]


def fit_dataset(model, dataset):
    return model.fit(dataset, epochs=1, verbose=0).history["loss"][0]
# --8<-- [end:keras]


def setup_fit_numpy(params: dict) -> dict:
    kwargs = setup_keras(params)
    xs, ys = zip(*kwargs["batches"])
    return {"model": kwargs["model"], "x": np.concatenate(xs), "y": np.concatenate(ys)}


# --8<-- [start:dataset]
def make_dataset(x, y):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).prefetch(tf.data.AUTOTUNE)
# --8<-- [end:dataset]


def setup_fit_dataset(params: dict) -> dict:
    kwargs = setup_fit_numpy(params)
    return {"model": kwargs["model"], "dataset": make_dataset(kwargs["x"], kwargs["y"])}


if __name__ == "__main__":
    from _standalone import compare, keras_label

    params = {"model": "small", "data": "small", "steps": 4}
    variants = {
        "TF1 graph, Session.run": (session_run, setup_graph),
        "eager GradientTape": (run_steps, setup_eager),
        "tf.function": (run_steps, setup_function),
        "tf.function(jit_compile=True)": (run_steps, setup_xla),
        "train_on_batch": (train_on_batch, setup_keras),
        "fit(numpy)": (fit_numpy, setup_fit_numpy),
        "fit(tf.data)": (fit_dataset, setup_fit_dataset),
    }
    setups = {name: (lambda s=s: s(params)) for name, (_, s) in variants.items()}
    compare("TensorFlow %s, %s: small model, small data, %d steps per call"
            % (tf.__version__, keras_label(tf.keras), params["steps"]),
            {name: fn for name, (fn, _) in variants.items()}, setups, baseline="fit(numpy)")
