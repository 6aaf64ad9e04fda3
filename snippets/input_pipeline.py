"""Input pipelines with tf.data: the options of TensorFlow's guide "Better performance with
the tf.data API" on a real pipeline over files, feeding the training step of the training
topic's model (snippets/train_step.py: Conv1D, global average pooling, Dense; binary
cross-entropy, Adam with learning rate 1e-4).

Run it yourself:  python snippets/input_pipeline.py
(writes a few hundred small JPEG images into TFRecord files under ~/.cache/tfperf once,
then prints a small table: time per epoch of 8 training steps for every pipeline).

The files: `shards` TFRecord files of serialised tf.train.Example records, each a JPEG
image of (length + 4) x 14 pixels and 3 colours, its index and a label. Decoding parses
the record and decodes the JPEG; augmenting crops it to length x 10, flips it left to right
for some examples, shifts its brightness and scales it; the result, reshaped to
length x 30, is one sequence for the Conv1D model. The crop, the flip and the shift are
pseudo-random but fixed per example (drawn from its index), so every pipeline yields the
same examples and the batches can be checked against the naive pipeline's.

Every variant runs one epoch of `steps` training steps per call (batches of 32) and returns
a fingerprint of the batches it trained on: count, sums and position-weighted sums of the
inputs, sums of the labels, added up over the epoch. The sums do not depend on the order
of the examples, so pipelines that reorder them (interleave) are checked too. The
fingerprint is taken by a last `map` that every pipeline has, on whole batches.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

LEARNING_RATE = 1e-4
BATCH = 32
WIDTH, COLOURS, PAD = 10, 3, 4          # crop width, colours, pixels cropped away (height and width)
CHANNELS = WIDTH * COLOURS              # 30, as in the training topic
AUTOTUNE = tf.data.AUTOTUNE

# The training topic's model sizes (train_step.py SIZES), small and medium.
SIZES = {
    "small": [("conv", 32, 10, 4, "same"), ("gap",), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
    "medium": [("conv", f, 5, 1, "valid") for f in (16, 32, 64, 64, 32, 16)]
    + [("gap",), ("dense", 256, "relu"), ("dense", 128, "relu"), ("dense", 64, "relu"), ("dense", 1, "sigmoid")],
}
# Sequence length (image height after the crop) per data size, as in train_step.py.
DATA = {"small": 35, "medium": 350}
FEATURES = {"image": tf.io.FixedLenFeature([], tf.string),
            "index": tf.io.FixedLenFeature([], tf.int64),
            "label": tf.io.FixedLenFeature([], tf.int64)}
FORMAT = 1                              # bump when the files change


# ---- the files, written once and kept in a cache folder (not in the repository) ----

def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tfperf", "input_pipeline")


def write_files(length: int, examples: int, shards: int, seed: int = 0) -> list:
    """The TFRecord files for `examples` images of (length + PAD) x (WIDTH + PAD): written
    once into a folder named by the sizes, renamed into place when complete (so two
    processes writing at once leave one complete copy)."""
    name = f"v{FORMAT}-len{length}-n{examples}-s{shards}-seed{seed}"
    folder = os.path.join(cache_dir(), name)
    files = [os.path.join(folder, f"shard-{i:02d}-of-{shards:02d}.tfrecord") for i in range(shards)]
    if all(os.path.exists(f) for f in files):
        return files
    tmp = f"{folder}.tmp-{os.getpid()}"
    os.makedirs(tmp, exist_ok=True)
    rng = np.random.RandomState(seed)
    h, w = length + PAD, WIDTH + PAD
    writers = [tf.io.TFRecordWriter(os.path.join(tmp, os.path.basename(f))) for f in files]
    for index in range(examples):
        # Smooth shapes plus noise, so that JPEG has something to compress.
        ramp = np.linspace(0, 1, h)[:, None, None] * rng.uniform(0, 255, (1, 1, COLOURS))
        noise = rng.normal(0, 20, (h, w, COLOURS))
        image = np.clip(ramp + noise + rng.uniform(0, 60), 0, 255).astype("uint8")
        label = int(image.mean() > 100)
        jpeg = tf.io.encode_jpeg(image, quality=90).numpy()
        example = tf.train.Example(features=tf.train.Features(feature={
            "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[jpeg])),
            "index": tf.train.Feature(int64_list=tf.train.Int64List(value=[index])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))
        writers[index % shards].write(example.SerializeToString())
    for writer in writers:
        writer.close()
    try:
        os.rename(tmp, folder)
    except OSError:                     # another process finished first: keep its copy
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
    return files


# --8<-- [start:decode]
def decode(record):
    """One record: parse it, decode its JPEG."""
    f = tf.io.parse_single_example(record, FEATURES)
    return tf.io.decode_jpeg(f["image"], channels=COLOURS), f["index"], f["label"]


def make_augment(length):
    def augment(image, index, label):
        """Crop, flip, brightness and scale, fixed per example by its index."""
        top, left = index * 7 % (PAD + 1), index * 3 % (PAD + 1)
        x = image[top:top + length, left:left + WIDTH, :]
        x = tf.where(index * 5 % 7 < 3, tf.reverse(x, [1]), x)
        x = (tf.cast(x, tf.float32) / 255.0 - 0.5) / 0.25 + tf.cast(index * 11 % 21 - 10, tf.float32) / 100.0
        return tf.reshape(x, [length, CHANNELS]), tf.cast(tf.reshape(label, [1]), tf.float32)
    return augment
# --8<-- [end:decode]


# --8<-- [start:vectorised]
def decode_batch(records):
    """A batch of records: parsed together; JPEG decodes one image at a time (map_fn)."""
    f = tf.io.parse_example(records, FEATURES)
    images = tf.map_fn(lambda s: tf.io.decode_jpeg(s, channels=COLOURS), f["image"],
                       fn_output_signature=tf.uint8)
    return images, f["index"], f["label"]


def make_augment_batch(length):
    def augment_batch(images, index, label):
        """The same crop, flip, brightness and scale as augment(), on a whole batch."""
        top, left = index * 7 % (PAD + 1), index * 3 % (PAD + 1)
        x = tf.gather(images, top[:, None] + tf.range(length, dtype=tf.int64), axis=1, batch_dims=1)
        x = tf.gather(x, left[:, None] + tf.range(WIDTH, dtype=tf.int64), axis=2, batch_dims=1)
        x = tf.where((index * 5 % 7 < 3)[:, None, None, None], tf.reverse(x, [2]), x)
        shift = tf.cast(index * 11 % 21 - 10, tf.float32)[:, None, None] / 100.0
        x = (tf.cast(x, tf.float32) / 255.0 - 0.5) / 0.25 + tf.reshape(shift, [-1, 1, 1, 1])
        return tf.reshape(x, [-1, length, CHANNELS]), tf.cast(tf.reshape(label, [-1, 1]), tf.float32)
    return augment_batch
# --8<-- [end:vectorised]


# ---- the pipelines: each returns batches of (x, y), x of shape (32, length, 30) ----

# --8<-- [start:pipelines]
def naive(files, length):
    return tf.data.TFRecordDataset(files).map(decode).map(make_augment(length)).batch(BATCH)


def prefetch(files, length):
    return naive(files, length).prefetch(AUTOTUNE)


def parallel_map(files, length):
    return (tf.data.TFRecordDataset(files)
            .map(decode, num_parallel_calls=AUTOTUNE)
            .map(make_augment(length), num_parallel_calls=AUTOTUNE)
            .batch(BATCH))


def interleave(files, length):
    return (tf.data.Dataset.from_tensor_slices(files)
            .interleave(tf.data.TFRecordDataset, cycle_length=len(files), num_parallel_calls=AUTOTUNE)
            .map(decode).map(make_augment(length)).batch(BATCH))


def cache(files, length):
    # Decoding runs in the first epoch only; augmenting runs in every epoch.
    return tf.data.TFRecordDataset(files).map(decode).cache().map(make_augment(length)).batch(BATCH)


def vectorised(files, length):
    return tf.data.TFRecordDataset(files).batch(BATCH).map(decode_batch).map(make_augment_batch(length))


def all_together(files, length):
    return (tf.data.Dataset.from_tensor_slices(files)
            .interleave(tf.data.TFRecordDataset, cycle_length=len(files), num_parallel_calls=AUTOTUNE)
            .batch(BATCH)
            .map(decode_batch, num_parallel_calls=AUTOTUNE)
            .cache()
            .map(make_augment_batch(length), num_parallel_calls=AUTOTUNE)
            .prefetch(AUTOTUNE))
# --8<-- [end:pipelines]


PIPELINES = {"naive": naive, "prefetch": prefetch, "parallel_map": parallel_map, "interleave": interleave,
             "cache": cache, "vectorised": vectorised, "all_together": all_together}


def fingerprint_map(total):
    """A last map for every pipeline: adds each batch's fingerprint into `total`."""
    def tap(x, y):
        x64, y64 = tf.cast(x, tf.float64), tf.cast(y, tf.float64)
        rows = tf.cast(tf.range(tf.shape(x)[1]), tf.float64)[None, :, None]
        cols = tf.cast(tf.range(tf.shape(x)[2]), tf.float64)[None, None, :]
        per_example = tf.reduce_mean(x64, axis=[1, 2])
        total.assign_add(tf.stack([tf.cast(tf.shape(x)[0], tf.float64), tf.reduce_sum(x64),
                                   tf.reduce_sum(x64 * x64), tf.reduce_sum(x64 * rows),
                                   tf.reduce_sum(x64 * cols), tf.reduce_sum(y64),
                                   tf.reduce_sum(y64[:, 0] * per_example)]))
        return x, y
    return tap


# ---- the model and its training step (train_step.py's, with Keras' own initialisers) ----

def build_model(layers, length):
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
    model.compile(optimizer=keras.optimizers.Adam(LEARNING_RATE), loss="binary_crossentropy")
    return model


# --8<-- [start:loop]
def make_train_step(model):
    loss_fn = tf.keras.losses.BinaryCrossentropy()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


def train_epoch(train_step, dataset, total):
    total.assign(tf.zeros_like(total))
    for x, y in dataset:
        train_step(x, y)
    return total.read_value()


def fit_epoch(model, dataset, total):
    total.assign(tf.zeros_like(total))
    model.fit(dataset, epochs=1, verbose=0)
    return total.read_value()
# --8<-- [end:loop]


def examples(params: dict) -> int:
    return int(params["steps"]) * BATCH


def setup(params: dict, pipeline: str = "naive") -> dict:
    """The files, the model, its training step and the pipeline ending in the fingerprint map."""
    length = DATA[params["data"]]
    files = write_files(length, examples(params), int(params.get("shards", 8)))
    model = build_model(SIZES[params["model"]], length)
    total = tf.Variable(tf.zeros(7, tf.float64), trainable=False)
    dataset = PIPELINES[pipeline](files, length).map(fingerprint_map(total))
    return {"train_step": make_train_step(model), "dataset": dataset, "total": total,
            "model": model, "files": files, "length": length}


def setup_naive(params: dict) -> dict:
    kw = setup(params, "naive")
    return {k: kw[k] for k in ("train_step", "dataset", "total")}


def _setup_loop(pipeline):
    def setup_pipeline(params: dict) -> dict:
        kw = setup(params, pipeline)
        return {k: kw[k] for k in ("train_step", "dataset", "total")}
    setup_pipeline.__name__ = "setup_" + pipeline
    return setup_pipeline


setup_prefetch = _setup_loop("prefetch")
setup_parallel_map = _setup_loop("parallel_map")
setup_interleave = _setup_loop("interleave")
setup_cache = _setup_loop("cache")
setup_vectorised = _setup_loop("vectorised")
setup_all_together = _setup_loop("all_together")


def setup_fit(params: dict) -> dict:
    """model.fit() on the all-together pipeline, one epoch a call."""
    kw = setup(params, "all_together")
    return {"model": kw["model"], "dataset": kw["dataset"], "total": kw["total"]}


# --8<-- [start:memory]
def setup_in_memory(params: dict) -> dict:
    """The bound: the naive pipeline's batches, decoded and augmented once, kept in memory
    as tensors; the dataset only hands them out."""
    kw = setup(params, "naive")
    xs, ys = zip(*naive(kw["files"], kw["length"]))
    batches = tf.data.Dataset.from_tensor_slices((tf.stack(xs), tf.stack(ys)))
    return {"train_step": kw["train_step"], "dataset": batches.map(fingerprint_map(kw["total"])),
            "total": kw["total"]}
# --8<-- [end:memory]


if __name__ == "__main__":
    from _standalone import compare, keras_label

    params = {"model": "small", "data": "small", "steps": 8}
    setups = {"in memory (the bound)": setup_in_memory, "naive": setup_naive, "prefetch": setup_prefetch,
              "parallel map": setup_parallel_map, "interleave": setup_interleave, "cache": setup_cache,
              "batch, then vectorised map": setup_vectorised, "all together": setup_all_together,
              "fit(), all together": setup_fit}
    fns = {name: (fit_epoch if name.startswith("fit") else train_epoch) for name in setups}
    compare(f"TensorFlow {tf.__version__}, {keras_label(tf.keras)}: small model, small data, "
            f"one epoch of {params['steps']} steps per call",
            fns, {name: (lambda s=s: s(params)) for name, s in setups.items()}, baseline="naive")
