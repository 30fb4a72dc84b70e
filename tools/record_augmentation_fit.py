"""Records what Keras 3 (TensorFlow backend) gives for a small seeded program that trains a
model with the image augmentation layers on batches of varying size and images of two sizes,
into tests/keras/fixtures/augmentation_fit.json:

    TF_CPP_MIN_LOG_LEVEL=3 KERAS_BACKEND=tensorflow /tmp/tfenv/bin/python \
        tools/record_augmentation_fit.py

`tests/keras/test_augmentation_traced.py` runs the same program (`run_fit`, `run_map`,
`run_traced`, here) with tapeflow and compares. The program: a functional model over images
of any height and width (RandomFlip, RandomRotation, RandomZoom, RandomTranslation,
RandomContrast, RandomBrightness, Resizing, CenterCrop, pooling and a Dense layer), fitted
on 10 images of 8x8 (batches of 4, 4 and a last partial batch of 2) and then on 7 images of
12x10 (4 and 3); its history, weights and predictions, and the augmentation applied in
`Dataset.map` over batches of 3 (of both sizes) and in a `tf.function` with an
input_signature of unknown batch, height and width.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np


def data() -> dict:
    """The program's inputs (NumPy, seeded)."""
    rng = np.random.RandomState(0)
    return {"x1": rng.uniform(0, 255, (10, 8, 8, 3)).astype(np.float32),
            "y1": rng.randint(0, 2, 10).astype(np.int32),
            "x2": rng.uniform(0, 255, (7, 12, 10, 3)).astype(np.float32),
            "y2": rng.randint(0, 2, 7).astype(np.int32)}


def augmenter(keras: Any, seed: int) -> Any:
    """The augmentation layers, seeded, in a Sequential."""
    layers = keras.layers
    return keras.Sequential([
        layers.RandomFlip(seed=seed),
        layers.RandomRotation(0.1, seed=seed + 1),
        layers.RandomZoom(0.2, seed=seed + 2),
        layers.RandomTranslation(0.1, 0.2, seed=seed + 3),
        layers.RandomContrast(0.3, seed=seed + 4),
        layers.RandomBrightness(0.2, seed=seed + 5),
    ])


def run_fit(tf: Any, keras: Any) -> dict:
    """The fits: history, weights and predictions."""
    keras.utils.set_random_seed(1)
    d = data()
    inputs = keras.Input((None, None, 3))
    h = augmenter(keras, 10)(inputs)
    h = keras.layers.Resizing(6, 6)(h)
    h = keras.layers.CenterCrop(4, 4)(h)
    h = keras.layers.Rescaling(1.0 / 255)(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    outputs = keras.layers.Dense(2, kernel_initializer=keras.initializers.GlorotUniform(seed=7))(h)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.SGD(0.5),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    first = model.fit(d["x1"], d["y1"], batch_size=4, epochs=2, shuffle=False, verbose=0)
    second = model.fit(d["x2"], d["y2"], batch_size=4, epochs=2, shuffle=False, verbose=0)
    return {"history1": first.history, "history2": second.history,
            "weights": [w.tolist() for w in model.get_weights()],
            "predict": model.predict(d["x1"][:3], verbose=0).tolist()}


def run_map(tf: Any, keras: Any) -> dict:
    """The augmentation in Dataset.map over batches of 3 (a last partial batch), both sizes."""
    keras.utils.set_random_seed(2)
    d = data()
    mapped = augmenter(keras, 20)
    out = {}
    for key in ("x1", "x2"):
        ds = tf.data.Dataset.from_tensor_slices(d[key]).batch(3).map(
            lambda x: mapped(x, training=True))
        out[f"map_{key}"] = [np.asarray(b).tolist() for b in ds]
    return out


def run_traced(tf: Any, keras: Any) -> dict:
    """The augmentation in a tf.function whose input_signature leaves batch, height and width
    unknown: its static output shape and two calls."""
    keras.utils.set_random_seed(3)
    d = data()
    traced = augmenter(keras, 30)
    step = tf.function(lambda x: traced(x, training=True),
                       input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
    return {"traced_shape": [None if s is None else int(s) for s in
                             step.get_concrete_function().structured_outputs.shape],
            "traced_x1": np.asarray(step(d["x1"][:3])).tolist(),
            "traced_x2": np.asarray(step(d["x2"][:2])).tolist()}


def run(tf: Any, keras: Any) -> dict:
    """The program, for TensorFlow + Keras 3 or for tapeflow (`tf`, `keras`)."""
    return {**run_fit(tf, keras), **run_map(tf, keras), **run_traced(tf, keras)}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def main() -> None:
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    out = _plain(run(tf, keras))
    out["versions"] = {"tensorflow": tf.__version__, "keras": keras.__version__}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                        "augmentation_fit.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
