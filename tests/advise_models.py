"""Small models that ``tfperf advise`` did not ship with, saved for its tests (real
TensorFlow; a few seconds each): a convnet, a GRU, a functional model with two outputs,
and the bad ones (several inputs, a dynamic shape, a SavedModel that raises when called).

``python tests/advise_models.py DIR`` saves them all into DIR."""

from __future__ import annotations

import sys
from pathlib import Path


def build(name: str, folder: Path) -> Path:
    """Save the model ``name`` into ``folder``; its path."""
    import numpy as np
    import tensorflow as tf

    keras = tf.keras
    keras.utils.set_random_seed(0)
    if name == "raises":               # a SavedModel whose serving function fails on every input
        class Raises(tf.Module):
            def __init__(self) -> None:
                super().__init__()
                self.w = tf.Variable(np.ones((4, 2), "float32"))

            @tf.function(input_signature=[tf.TensorSpec((None, 4), tf.float32, name="x")])
            def serve(self, x: tf.Tensor) -> dict[str, tf.Tensor]:
                tf.debugging.assert_less(tf.reduce_max(x), -1e9, message="this model refuses every input")
                return {"y": tf.matmul(x, self.w)}

        module = Raises()
        path = folder / "raises_savedmodel"
        tf.saved_model.save(module, str(path), signatures={"serving_default": module.serve})
        return path
    if name == "convnet":
        inputs = keras.Input(shape=(16, 16, 3), name="image")
        x = keras.layers.Conv2D(8, 3, activation="relu")(inputs)
        x = keras.layers.MaxPooling2D()(x)
        x = keras.layers.Conv2D(16, 3, activation="relu")(x)
        x = keras.layers.GlobalAveragePooling2D()(x)
        model = keras.Model(inputs, keras.layers.Dense(5)(x))
    elif name == "gru":
        inputs = keras.Input(shape=(12, 8), name="steps")
        model = keras.Model(inputs, keras.layers.Dense(3)(keras.layers.GRU(16)(inputs)))
    elif name == "two_outputs":
        inputs = keras.Input(shape=(20,), name="features")
        h = keras.layers.Dense(32, activation="relu")(inputs)
        model = keras.Model(inputs, [keras.layers.Dense(4, name="scores")(h), keras.layers.Dense(1, name="value")(h)])
    elif name == "two_inputs":
        a, b = keras.Input(shape=(4,), name="a"), keras.Input(shape=(4,), name="b")
        model = keras.Model([a, b], keras.layers.Dense(2)(keras.layers.Concatenate()([a, b])))
    elif name == "dynamic":
        inputs = keras.Input(shape=(None, 8), name="sequence")
        model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.GRU(8)(inputs)))
    else:
        raise ValueError(f"unknown test model {name!r}")
    path = folder / f"{name}.keras"
    model.save(path)
    return path


def build_savedmodel(folder: Path) -> Path:
    """The convnet exported as a SavedModel (model.export)."""
    import tensorflow as tf

    model = tf.keras.models.load_model(build("convnet", folder))
    path = folder / "convnet_savedmodel"
    model.export(str(path), verbose=False)
    return path


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for n in ("convnet", "gru", "two_outputs", "two_inputs", "dynamic", "raises"):
        print(build(n, out))
    print(build_savedmodel(out))
