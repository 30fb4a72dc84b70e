"""Writes checkpoints with real TensorFlow 2.21 / Keras 3.15 into tests/train/fixtures/tf/ and
records what TF reads back from them (tests/train/fixtures/tf/expected.json):

    TF_CPP_MIN_LOG_LEVEL=3 KERAS_BACKEND=tensorflow /tmp/tfenv/bin/python \
        tools/record_tf_checkpoints.py

`tests/train/test_tf_checkpoints.py` restores each into the same objects built with tapeflow
(`build_*` here take the `tf` and `keras` modules, so both libraries run the same code) and
compares values, `list_variables`, the reader's maps and the assertion messages:

- module/: `Checkpoint(model=Net())` saved once: a tf.Module with a submodule, a list and a
  dict of variables (names with '.' and '/' to escape), of float32/float64/int32/bool/string.
- keras/: a Sequential (Input, Dense 'd1', Dense) and its Adam after 3 training steps, saved
  with `Checkpoint(model=, optimizer=)`; also the next step's weights (a restored model and
  optimizer must train on to them) and the predictions of the saved model.
- nested/: a Checkpoint holding a Checkpoint and a variable.
- deferred: the values TF gives when a model is restored before it is built and first built
  inside a tf.function (the issue's [[2.]]).
- layer_keys: `list_variables` of checkpoints of models made of many Keras layer kinds
  (`keras_models`), pinning Keras 3's attribute names (`_kernel`, `_functional/_operations`).
- messages: the class and text of TF's errors for mismatched, missing and damaged
  checkpoints (`message_cases`, run by the test with tapeflow; the directory as '<dir>').
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "train", "fixtures", "tf")
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.0, 1.0, 1.0], [-2.0, 0.5, 0.3]],
             np.float32)
Y = np.array([[1.0], [-1.0], [0.5], [2.0]], np.float32)


def build_module(tf: Any) -> Any:
    """A tf.Module with nested state, its values set."""
    class Dense(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
            self.b = tf.Variable([0.5, -0.5])

    class Net(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.dense_1 = Dense()
            self.vs = [tf.Variable(7), tf.Variable([1.5, 2.5], dtype=tf.float64)]
            self.table = {"flag": tf.Variable(True), "odd.name/x": tf.Variable("text")}

    return Net()


def build_keras(keras: Any) -> tuple:
    """The Sequential model (deterministic initial weights) and its Adam."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d1"),
                              keras.layers.Dense(1)])
    for i, v in enumerate(model.weights):
        v.assign(np.linspace(-1, 1, int(np.prod(v.shape)), dtype=np.float32)
                 .reshape(v.shape) * (i + 1) * 0.3)
    return model, keras.optimizers.Adam(0.05)


def train_step(tf: Any, model: Any, optimizer: Any) -> None:
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(X) - Y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))


def keras_models(keras: Any) -> dict:
    """Models of many Keras layer kinds, built (their checkpoint keys are what is compared)."""
    layers = keras.layers
    stacks = {
        "recurrent": ((4, 6), [layers.Conv1D(3, 2), layers.BatchNormalization(),
                               layers.LSTM(5, return_sequences=True), layers.GRU(2),
                               layers.Dense(1)]),
        "image": ((8, 8, 3), [layers.Conv2D(2, 3), layers.DepthwiseConv2D(2),
                              layers.SeparableConv2D(2, 2), layers.Conv2DTranspose(2, 2),
                              layers.GroupNormalization(2), layers.Flatten(), layers.Dense(3)]),
        "sequence": ((5, 4), [layers.Conv1DTranspose(2, 2),
                              layers.SimpleRNN(3, return_sequences=True),
                              layers.TimeDistributed(layers.Dense(2)),
                              layers.LayerNormalization(), layers.GRU(2)]),
        "volume": ((4, 4, 4, 1), [layers.Conv3D(2, 2), layers.Conv3DTranspose(1, 2),
                                  layers.GlobalAveragePooling3D(), layers.Dense(2),
                                  layers.PReLU()]),
    }
    models = {name: keras.Sequential([keras.Input(shape)] + stack)
              for name, (shape, stack) in stacks.items()}
    tokens = keras.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 4)(tokens)
    attended = layers.MultiHeadAttention(2, 3)(embedded, embedded)
    out = layers.Bidirectional(layers.SimpleRNN(2))(layers.LayerNormalization()(attended))
    models["attention"] = keras.Model(tokens, out)
    return models


def layer_keys(tf: Any, keras: Any, directory: str) -> dict:
    """{model name: [[key, shape], ...]} of each of `keras_models` saved in `directory`."""
    out = {}
    for name, model in keras_models(keras).items():
        path = tf.train.Checkpoint(model=model).write(os.path.join(directory, name))
        out[name] = [[k, s] for k, s in tf.train.list_variables(path)]
    return out


def message_cases(tf: Any, directory: str) -> dict:
    """{case: [error class name, message]} of what TF raises (or 'no error') in each case."""
    a, b = tf.Variable([1.0, 2.0]), tf.Variable(3.0)
    path = tf.train.Checkpoint(a=a, b=b).save(os.path.join(directory, "c"))
    os.makedirs(os.path.join(directory, "empty"))
    with open(os.path.join(directory, "junk.index"), "wb") as f:
        f.write(b"x" * 100)
    with open(os.path.join(directory, "short.index"), "wb") as f:
        f.write(b"x" * 10)

    def partial() -> Any:
        return tf.train.Checkpoint(a=tf.Variable([0.0, 0.0])).restore(path)

    def extra() -> Any:
        return tf.train.Checkpoint(a=tf.Variable([0.0, 0.0]), b=tf.Variable(0.0),
                                   c=tf.Variable(1)).restore(path)

    def corrupt() -> Any:
        data = os.path.join(directory, "d.data-00000-of-00001")
        tf.train.Checkpoint(a=tf.Variable([1.0, 2.0])).write(os.path.join(directory, "d"))
        with open(data, "rb") as f:
            blob = bytearray(f.read())
        blob[0] ^= 1
        with open(data, "wb") as f:
            f.write(bytes(blob))
        return tf.train.Checkpoint(a=tf.Variable([0.0, 0.0])).restore(
            os.path.join(directory, "d"))

    cases = {
        "unresolved": lambda: partial().assert_consumed(),
        "unbound": lambda: extra().assert_existing_objects_matched(),
        "shape": lambda: tf.train.Checkpoint(a=tf.Variable([0.0, 0.0, 1.0])).restore(path),
        "dtype": lambda: tf.train.Checkpoint(a=tf.Variable([0, 0])).restore(path),
        "not_trackable": lambda: tf.train.Checkpoint(a=1),
        "missing": lambda: tf.train.Checkpoint(a=a).restore(os.path.join(directory, "no")),
        "list_missing": lambda: tf.train.list_variables(os.path.join(directory, "no")),
        "list_empty_dir": lambda: tf.train.list_variables(os.path.join(directory, "empty")),
        "nothing_restored": lambda: tf.train.Checkpoint(a=a).restore(None).assert_consumed(),
        "bad_magic": lambda: tf.train.Checkpoint(a=a).restore(os.path.join(directory, "junk")),
        "too_short": lambda: tf.train.Checkpoint(a=a).restore(os.path.join(directory, "short")),
        "data_checksum": corrupt,
    }
    out = {}
    for name, case in cases.items():
        try:
            case()
            out[name] = ["", "no error"]
        except Exception as e:  # noqa: BLE001 - recording whatever TF raises
            out[name] = [type(e).__name__, str(e).replace(directory, "<dir>")]
    return out


def _plain(value: Any) -> Any:
    value = np.asarray(value)
    if value.dtype == object or value.dtype.kind == "S":
        return [v.decode() if isinstance(v, bytes) else v for v in value.reshape(-1)]
    return value.tolist()


def _reader_record(tf: Any, path: str) -> dict:
    reader = tf.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    return {"list_variables": [[k, s] for k, s in tf.train.list_variables(path)],
            "dtypes": {k: d.name for k, d in sorted(dtypes.items())},
            "values": {k: _plain(reader.get_tensor(k)) for k in sorted(dtypes)
                       if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}}


def main() -> None:
    import tensorflow as tf
    import keras
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    expected: dict = {}

    module_path = tf.train.Checkpoint(model=build_module(tf)).save(
        os.path.join(OUT, "module", "ckpt"))
    expected["module"] = _reader_record(tf, module_path)

    model, optimizer = build_keras(keras)
    for _ in range(3):
        train_step(tf, model, optimizer)
    keras_path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(
        os.path.join(OUT, "keras", "ckpt"))
    record = _reader_record(tf, keras_path)
    record["predictions"] = model(X).numpy().tolist()
    record["optimizer_variables"] = [v.numpy().tolist() for v in optimizer.variables]
    train_step(tf, model, optimizer)
    record["weights_after_next_step"] = [v.numpy().tolist() for v in model.weights]
    # Restored into an unbuilt model: what assert_consumed says before the build.
    fresh = keras.Sequential([keras.layers.Dense(2, name="d1"), keras.layers.Dense(1)])
    status = tf.train.Checkpoint(model=fresh).restore(keras_path)
    try:
        status.assert_consumed()
    except AssertionError as e:
        record["unbuilt_assert_consumed"] = str(e).splitlines()[0]
    expected["keras"] = record

    inner = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0]))
    outer = tf.train.Checkpoint(inner=inner, w=tf.Variable(4.0, dtype=tf.float64))
    nested_path = outer.save(os.path.join(OUT, "nested", "ckpt"))
    expected["nested"] = _reader_record(tf, nested_path)

    # The case: restored into a model first built inside a tf.function.
    saved = keras.Sequential([keras.layers.Dense(1, kernel_initializer="ones",
                                                 bias_initializer="ones")])
    saved(np.ones((1, 1), np.float32))
    tmp = os.path.join(OUT, "_deferred_tmp")
    deferred_path = tf.train.Checkpoint(model=saved).save(os.path.join(tmp, "c"))
    later = keras.Sequential([keras.layers.Dense(1)])
    tf.train.Checkpoint(model=later).restore(deferred_path)
    expected["deferred"] = {"in_function": tf.function(lambda x: later(x))(
        tf.constant([[1.0]])).numpy().tolist()}
    shutil.rmtree(tmp)

    keys = os.path.join(OUT, "_keys_tmp")
    expected["layer_keys"] = layer_keys(tf, keras, keys)
    shutil.rmtree(keys)

    messages = os.path.join(OUT, "_messages_tmp")
    os.makedirs(messages)
    expected["messages"] = message_cases(tf, messages)
    shutil.rmtree(messages)

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
