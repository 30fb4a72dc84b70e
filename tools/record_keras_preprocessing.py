"""Records Keras 3's preprocessing layers (TensorFlow backend) into
tests/keras/fixtures/preprocessing.json and preprocessing.npz.

    TF_CPP_MIN_LOG_LEVEL=3 KERAS_BACKEND=tensorflow /work/tfenv/venv/bin/python \
        tools/record_keras_preprocessing.py

Each case of CASES builds a layer from its text (`L` is keras.layers), calls it on the named
input (twice for random layers: the seed generator moves on) with `training` as given, and
stores the config (JSON), the outputs and the gradient of sum(out * w) w.r.t. a float input
(npz, `<case>/out0`, `<case>/out1`, `<case>/grad`). `adapt` cases call `layer.adapt(data)`
first. `errors` records the class and message of bad constructions. `dataset` cases run the
layer in `tf.data.Dataset.map` on batches of two.
"""

from __future__ import annotations

import json
import os

import numpy as np

rng = np.random.default_rng(19)
INPUTS = {
    "images": rng.uniform(0, 255, (2, 6, 8, 3)).astype(np.float32),
    "image": rng.uniform(0, 1, (5, 7, 2)).astype(np.float32),
    "images_cf": rng.uniform(0, 1, (2, 3, 6, 8)).astype(np.float32),
    "uint8": rng.integers(0, 256, (2, 6, 8, 3)).astype(np.uint8),
    "features": rng.normal(2.0, 3.0, (6, 4)).astype(np.float32),
    "features3d": rng.normal(-1.0, 0.5, (3, 4, 5)).astype(np.float32),
    "tokens": np.array([[0, 1, 1], [3, 2, 0], [2, 2, 2], [1, 3, 0]], np.int32),
    "tokens1d": np.array([3, 0, 1, 1], np.int32),
    "tokens3d": np.array([[[0, 1], [1, 2]], [[3, 3], [0, 2]]], np.int32),
    "weights": np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 1.0], [0.1, 0.2, 0.3],
                         [2.0, 0.0, 1.0]], np.float32),
    "values": np.array([[-1.5, 0.0, 0.2], [0.5, 1.0, 3.0]], np.float32),
}

# name -> dict(layer=text, input=name, training=bool, adapt=input name or None, calls=n)
CASES = {
    "rescaling": dict(layer="L.Rescaling(1.0 / 255, offset=-0.5)", input="images"),
    "rescaling_uint8": dict(layer="L.Rescaling(2.0)", input="uint8"),
    "rescaling_vector": dict(layer="L.Rescaling([1.0, 0.5, 2.0])", input="images"),
    "normalization_given": dict(layer="L.Normalization(mean=[1.0, 2.0, 3.0, 4.0], "
                                "variance=[1.0, 4.0, 0.25, 2.0])", input="features"),
    "normalization_scalar": dict(layer="L.Normalization(mean=2.0, variance=9.0, axis=None)",
                                 input="features"),
    "normalization_invert": dict(layer="L.Normalization(mean=[1.0, 2.0, 3.0, 4.0], "
                                 "variance=[1.0, 4.0, 0.25, 2.0], invert=True)",
                                 input="features"),
    "normalization_adapt": dict(layer="L.Normalization()", input="features",
                                adapt="features"),
    "normalization_adapt_axis": dict(layer="L.Normalization(axis=(1, 2))",
                                     input="features3d", adapt="features3d"),
    "normalization_adapt_none": dict(layer="L.Normalization(axis=None)", input="features3d",
                                     adapt="features3d"),
    "normalization_adapt_dataset": dict(layer="L.Normalization()", input="features",
                                        adapt="dataset:features"),
    "discretization_bins": dict(layer="L.Discretization(bin_boundaries=[0.0, 0.5, 2.0])",
                                input="values"),
    "discretization_one_hot": dict(layer="L.Discretization(bin_boundaries=[0.0, 0.5, 2.0], "
                                   "output_mode='one_hot')", input="tokens1d_float"),
    "discretization_multi_hot": dict(layer="L.Discretization(bin_boundaries=[0.0, 0.5, 2.0],"
                                     " output_mode='multi_hot')", input="values"),
    "discretization_count": dict(layer="L.Discretization(bin_boundaries=[0.0, 0.5, 2.0], "
                                 "output_mode='count')", input="values"),
    "discretization_adapt": dict(layer="L.Discretization(num_bins=4, epsilon=0.01)",
                                 input="features", adapt="features"),
    "category_multi_hot": dict(layer="L.CategoryEncoding(num_tokens=4)", input="tokens"),
    "category_one_hot": dict(layer="L.CategoryEncoding(num_tokens=4, output_mode='one_hot')",
                             input="tokens1d"),
    "category_count": dict(layer="L.CategoryEncoding(num_tokens=5, output_mode='count')",
                           input="tokens"),
    "category_multi_hot_1d": dict(layer="L.CategoryEncoding(num_tokens=4)",
                                  input="tokens1d"),
    "category_multi_hot_3d": dict(layer="L.CategoryEncoding(num_tokens=4)",
                                  input="tokens3d"),
    "category_count_weights": dict(layer="L.CategoryEncoding(num_tokens=4, "
                                   "output_mode='count')", input="tokens",
                                   count_weights="weights"),
    "resizing_bilinear": dict(layer="L.Resizing(4, 5)", input="images"),
    "resizing_nearest": dict(layer="L.Resizing(9, 5, interpolation='nearest')",
                             input="images"),
    "resizing_bicubic_aa": dict(layer="L.Resizing(3, 4, interpolation='bicubic', "
                                "antialias=True)", input="images"),
    "resizing_area": dict(layer="L.Resizing(3, 4, interpolation='area')", input="images"),
    "resizing_lanczos3": dict(layer="L.Resizing(4, 12, interpolation='lanczos3')",
                              input="images"),
    "resizing_crop": dict(layer="L.Resizing(4, 4, crop_to_aspect_ratio=True)",
                          input="images"),
    "resizing_pad": dict(layer="L.Resizing(4, 4, pad_to_aspect_ratio=True, "
                         "fill_value=7.0)", input="images"),
    "resizing_pad_wide": dict(layer="L.Resizing(2, 6, pad_to_aspect_ratio=True)",
                              input="images"),
    "resizing_uint8": dict(layer="L.Resizing(4, 5)", input="uint8"),
    "resizing_unbatched": dict(layer="L.Resizing(3, 3)", input="image"),
    "resizing_channels_first": dict(layer="L.Resizing(4, 5, data_format='channels_first')",
                                    input="images_cf"),
    "center_crop": dict(layer="L.CenterCrop(4, 5)", input="images"),
    "center_crop_unbatched": dict(layer="L.CenterCrop(3, 3)", input="image"),
    "center_crop_upscale": dict(layer="L.CenterCrop(8, 6)", input="images"),
    "random_flip": dict(layer="L.RandomFlip(seed=3)", input="images", calls=3),
    "random_flip_horizontal": dict(layer="L.RandomFlip('horizontal', seed=11)",
                                   input="images", calls=3),
    "random_flip_vertical_unbatched": dict(layer="L.RandomFlip('vertical', seed=5)",
                                           input="image", calls=3),
    "random_flip_inference": dict(layer="L.RandomFlip(seed=3)", input="images",
                                  training=False),
    "random_rotation": dict(layer="L.RandomRotation(0.2, seed=4)", input="images",
                            calls=2),
    "random_rotation_modes": dict(layer="L.RandomRotation((-0.3, 0.1), fill_mode='constant',"
                                  " interpolation='nearest', fill_value=3.0, seed=8)",
                                  input="images", calls=2),
    "random_rotation_wrap": dict(layer="L.RandomRotation(0.5, fill_mode='wrap', seed=1)",
                                 input="image", calls=2),
    "random_rotation_channels_first": dict(layer="L.RandomRotation(0.1, fill_mode='nearest',"
                                           " data_format='channels_first', seed=2)",
                                           input="images_cf"),
    "random_zoom": dict(layer="L.RandomZoom(0.3, seed=6)", input="images", calls=2),
    "random_zoom_both": dict(layer="L.RandomZoom((-0.4, 0.2), (0.1, 0.5), "
                             "fill_mode='nearest', seed=9)", input="images", calls=2),
    "random_zoom_unbatched": dict(layer="L.RandomZoom(0.5, fill_mode='constant', seed=2)",
                                  input="image"),
    "random_translation": dict(layer="L.RandomTranslation(0.2, 0.3, seed=7)",
                               input="images", calls=2),
    "random_translation_constant": dict(layer="L.RandomTranslation((-0.5, 0.0), 0.4, "
                                        "fill_mode='constant', interpolation='nearest', "
                                        "seed=10)", input="images", calls=2),
    "random_contrast": dict(layer="L.RandomContrast(0.5, seed=12)", input="images",
                            calls=2),
    "random_contrast_range": dict(layer="L.RandomContrast((0.2, 0.9), value_range=(0, 1), "
                                  "seed=13)", input="image", calls=2),
    "random_brightness": dict(layer="L.RandomBrightness(0.2, seed=14)", input="images",
                              calls=2),
    "random_brightness_range": dict(layer="L.RandomBrightness((-0.5, 0.1), "
                                    "value_range=(0, 1), seed=15)", input="image", calls=2),
    "random_crop": dict(layer="L.RandomCrop(4, 5, seed=16)", input="images", calls=3),
    "random_crop_unbatched": dict(layer="L.RandomCrop(3, 3, seed=17)", input="image",
                                  calls=2),
    "random_crop_inference": dict(layer="L.RandomCrop(4, 5, seed=16)", input="images",
                                  training=False),
    "random_crop_larger": dict(layer="L.RandomCrop(8, 6, seed=18)", input="images"),
}
INPUTS["tokens1d_float"] = np.array([-0.5, 0.0, 1.0, 2.5], np.float32)

ERRORS = {
    "normalization_mean_only": "L.Normalization(mean=1.0)",
    "normalization_shapes": "L.Normalization(mean=[1.0, 2.0], variance=[1.0])",
    "discretization_none": "L.Discretization()",
    "discretization_both": "L.Discretization(bin_boundaries=[1.0], num_bins=3)",
    "discretization_mode": "L.Discretization(bin_boundaries=[1.0], output_mode='tf_idf')",
    "category_no_tokens": "L.CategoryEncoding()",
    "category_mode": "L.CategoryEncoding(num_tokens=3, output_mode='int')",
    "rotation_factor": "L.RandomRotation(1.5)",
    "rotation_fill": "L.RandomRotation(0.1, fill_mode='mirror')",
    "zoom_factor": "L.RandomZoom(-1.0)",
    "translation_factor": "L.RandomTranslation(1.5, 0.1)",
    "contrast_factor": "L.RandomContrast(1.5)",
    "brightness_range": "L.RandomBrightness(0.1, value_range=5)",
    "resizing_both": "L.Resizing(3, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)"
                     "(np.zeros((1, 4, 4, 1), 'float32'))",
}

DATASET = {
    "dataset_random_flip": "L.RandomFlip(seed=3)",
    "dataset_random_rotation": "L.RandomRotation(0.2, seed=4)",
    "dataset_resizing": "L.Resizing(3, 4)",
    "dataset_rescaling": "L.Rescaling(0.5)",
}


def _call(layer, x, training, count_weights=None):
    import tensorflow as tf
    kwargs = {} if count_weights is None else {"count_weights": count_weights}
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, training=training, **kwargs)
    return x, out, tape


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    from keras import layers as L
    arrays = dict(INPUTS)
    record = {"keras_version": keras.__version__, "cases": {}, "errors": {}, "dataset": {}}
    for name, spec in CASES.items():
        layer = eval(spec["layer"], {"L": L})  # noqa: S307 - our own case text
        if spec.get("adapt"):
            data = spec["adapt"]
            if data.startswith("dataset:"):
                data = tf.data.Dataset.from_tensor_slices(INPUTS[data[8:]]).batch(4)
            else:
                data = INPUTS[data]
            layer.adapt(data)
        training = spec.get("training", True)
        entry = {"layer": spec["layer"], "input": spec["input"], "training": training,
                 "adapt": spec.get("adapt"), "calls": spec.get("calls", 1),
                 "count_weights": spec.get("count_weights")}
        weights = INPUTS[spec["count_weights"]] if spec.get("count_weights") else None
        for i in range(entry["calls"]):
            x, out, tape = _call(layer, INPUTS[spec["input"]], training, weights)
            arrays[f"{name}/out{i}"] = out.numpy()
            if i == 0 and x.dtype.is_floating and out.dtype.is_floating:
                w = rng.uniform(-1, 1, out.shape).astype(np.float32)
                try:
                    with tape:
                        loss = tf.reduce_sum(tf.cast(out, tf.float32) * w)
                    grad = tape.gradient(loss, x)
                except LookupError as exc:
                    entry["grad_error"] = str(exc)
                    grad = None
                if grad is not None:
                    arrays[f"{name}/w"] = w
                    arrays[f"{name}/grad"] = grad.numpy()
        entry["config"] = layer.get_config()
        entry["weights"] = [[v.path, list(v.shape), str(v.dtype)] for v in layer.weights]
        entry["output_shape"] = list(layer.compute_output_shape(INPUTS[spec["input"]].shape))
        record["cases"][name] = entry
    for name, text in ERRORS.items():
        try:
            eval(text, {"L": L, "np": np})  # noqa: S307
        except Exception as exc:  # noqa: BLE001 - recorded
            record["errors"][name] = {"text": text, "class": type(exc).__name__,
                                      "message": str(exc)}
        else:
            record["errors"][name] = {"text": text, "class": None, "message": None}
    for name, text in DATASET.items():
        layer = eval(text, {"L": L})  # noqa: S307
        ds = tf.data.Dataset.from_tensor_slices(INPUTS["images"][:, :, :, :]).batch(1)
        ds = ds.map(layer)
        for i, batch in enumerate(ds):
            arrays[f"{name}/out{i}"] = batch.numpy()
        record["dataset"][name] = {"layer": text, "batches": i + 1}
    model = keras.Sequential([keras.Input((6, 8, 3)), L.Rescaling(1 / 255.0),
                              L.RandomFlip(seed=1), L.Resizing(4, 4), L.Flatten(),
                              L.Dense(2)])
    record["model_summary_layers"] = [[lyr.name, lyr.__class__.__name__,
                                       list(lyr.output.shape)] for lyr in model.layers]
    here = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")
    with open(os.path.join(here, "preprocessing.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True, default=str)
    np.savez_compressed(os.path.join(here, "preprocessing.npz"), **arrays)
    print(f"wrote {len(record['cases'])} cases, {len(arrays)} arrays")


if __name__ == "__main__":
    main()
