"""Records, with real Keras 3, the README's model saved after `fit`: a `Sequential` given no
`Input` (built by its first batch), compiled with Adam, trained one epoch, saved as `.keras`.
Run with a Python that has Keras 3 + TensorFlow; tests/security/test_saved_state_and_api_errors.py
only reads the results:

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_unbuilt_sequential.py

Writes into tests/security/fixtures/:
  keras_unbuilt_sequential.keras   the file Keras wrote (config.json, weights, optimizer slots)
  keras_unbuilt_sequential.npz     x, y; what Keras reads back from the file: `iterations`,
                                   `weights` (w0..), optimizer variables (o0..); and the
                                   weights after one more epoch of `fit` (after0..,
                                   batch_size 16, shuffle=False) from the loaded model
  keras_unbuilt_sequential.json    the Keras version and config.json's Sequential entries
"""

from __future__ import annotations

import json
import os
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "security", "fixtures")
NAME = "keras_unbuilt_sequential"


def data() -> tuple:
    """64 samples of 8 features; the label is the argmax of the first 4 (the README's toy)."""
    x = np.random.default_rng(0).random((64, 8)).astype(np.float32)
    return x, x[:, :4].argmax(axis=1).astype(np.int64)


def model() -> keras.Model:
    """The README's model, smaller: Dense(relu) then Dense logits, no Input."""
    return keras.Sequential([keras.layers.Dense(6, activation="relu"), keras.layers.Dense(4)])


def main() -> None:
    keras.utils.set_random_seed(0)
    os.makedirs(OUT, exist_ok=True)
    x, y = data()
    trained = model()
    trained.compile(optimizer="adam", metrics=["accuracy"],
                    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    trained.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    path = os.path.join(OUT, f"{NAME}.keras")
    trained.save(path)
    loaded = keras.models.load_model(path)
    record = {"x": x, "y": y, "iterations": np.int64(loaded.optimizer.iterations.numpy())}
    record.update({f"w{i}": v.numpy() for i, v in enumerate(loaded.weights)})
    record.update({f"o{i}": np.asarray(v.numpy())
                   for i, v in enumerate(loaded.optimizer.variables)})
    loaded.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    record.update({f"after{i}": v.numpy() for i, v in enumerate(loaded.weights)})
    np.savez(os.path.join(OUT, f"{NAME}.npz"), **record)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    summary = {"keras_version": keras.__version__, "build_config": config.get("build_config"),
               "build_input_shape": config["config"].get("build_input_shape"),
               "first_layer": config["config"]["layers"][0]}
    with open(os.path.join(OUT, f"{NAME}.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
