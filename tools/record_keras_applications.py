"""Records what Keras 3.15 builds for each `keras.applications` architecture, for
tests/keras/applications/test_applications.py. Run with TensorFlow 2.21 + Keras 3.15 installed
(never a dependency of tapeflow):

    python tools/record_keras_applications.py

Writes tests/keras/applications/fixtures/:
- architectures.json: per constructor call (weights=None, a small input), the layers' names
  and class names, the parameter counts and the output shape; and, for one model per family,
  the output on a seeded input with every weight set by `deterministic_weights` (the test
  sets tapeflow's the same way, so no weights are stored).
- mobilenet_legacy.h5: a small MobileNet's weights in Keras's legacy HDF5 layout (the layout
  of the `weights="imagenet"` files), with the model's output on the seeded input.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, os.pardir, "tests", "keras", "applications", "fixtures")
sys.path.insert(0, os.path.dirname(OUT))
from _applications_recipe import (CALLS, FORWARD, deterministic_weights,  # noqa: E402
                                  sample_pixels, seeded_images)


def record_call(keras, name: str, kwargs: dict, forward: bool) -> dict:
    keras.backend.clear_session()   # automatic layer names count from zero for each model
    keras.utils.set_random_seed(0)
    model = getattr(keras.applications, name)(weights=None, **kwargs)
    entry = {
        "layers": [[layer.name, type(layer).__name__] for layer in model.layers],
        "params": int(model.count_params()),
        "trainable": int(sum(np.prod(v.shape) for v in model.trainable_weights)),
        "output_shape": list(model.output_shape),
        "name": model.name,
    }
    if forward:
        weights = [(v.name, tuple(v.shape)) for v in model.weights]
        model.set_weights(deterministic_weights(weights))
        images = seeded_images(kwargs["input_shape"])
        entry["output"] = np.asarray(model(images, training=False)).tolist()
    return entry


def record_legacy_h5(keras) -> dict:
    from keras.src.legacy.saving import legacy_h5_format
    import h5py
    keras.utils.set_random_seed(1)
    model = keras.applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                         input_shape=(32, 32, 3), pooling="avg")
    rng = np.random.default_rng(7)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype("float32") if "variance" in
                       w.name else (rng.standard_normal(w.shape) * 0.1).astype("float32")
                       for w in model.weights])
    with h5py.File(os.path.join(OUT, "mobilenet_legacy.h5"), "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)
    return {"output": np.asarray(model(seeded_images((32, 32, 3)), training=False)).tolist()}


def record_preprocessing(keras) -> dict:
    """Each mode and data format on a NumPy batch and a tensor batch (two code paths)."""
    out = {}
    for mode in ("caffe", "tf", "torch"):
        for data_format in ("channels_last", "channels_first"):
            batch = sample_pixels(data_format)
            as_array = keras.applications.imagenet_utils.preprocess_input(
                batch.copy(), data_format=data_format, mode=mode)
            as_tensor = keras.applications.imagenet_utils.preprocess_input(
                keras.ops.convert_to_tensor(batch), data_format=data_format, mode=mode)
            out[f"{mode}/{data_format}"] = [np.asarray(as_array).tolist(),
                                            np.asarray(as_tensor).tolist()]
    return out


def main() -> None:
    import keras
    record = {"keras_version": keras.__version__, "calls": {}}
    for key, (name, kwargs) in CALLS.items():
        print(key, flush=True)
        record["calls"][key] = record_call(keras, name, kwargs, key in FORWARD)
    record["legacy_h5"] = record_legacy_h5(keras)
    record["preprocess"] = record_preprocessing(keras)
    with open(os.path.join(OUT, "architectures.json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
