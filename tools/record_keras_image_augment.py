"""Records what Keras 3.15.1 (TensorFlow backend) gives for the image augmentation layers of
tapeflow.keras.layers.preprocessing.image_augment, into
tests/keras/fixtures/image_augment.npz (outputs) and image_augment.json (configs, dtypes,
errors):

    TF_CPP_MIN_LOG_LEVEL=3 KERAS_BACKEND=tensorflow /tmp/tfenv/bin/python \
        tools/record_keras_image_augment.py

`tests/keras/test_image_augment_layers.py` runs the same program (`run_case`) with tapeflow.
Each case: a seeded layer called on seeded images, in this order: a uint8 batch (training),
a float batch (training), the float batch with training=False, one float image (training),
the float batch again (training: shows whether the training=False call drew numbers);
for channels-last cases also a tf.function of unknown batch size and `Dataset.map`. Then
configs and their round trips, construction errors, MaxNumBoundingBoxes on boxes, and two
seeded `fit` runs of models made of the layers.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any, Optional

import numpy as np

# (case name, layer class, keyword arguments, input images)
CASES = [
    ("auto_contrast", "AutoContrast", {}, "u8"),
    ("auto_contrast_01", "AutoContrast", {"value_range": (0, 1)}, "f01"),
    ("auto_contrast_flat", "AutoContrast", {}, "flat"),
    ("equalization", "Equalization", {}, "u8"),
    ("equalization_bins", "Equalization", {"bins": 16, "value_range": (0, 1)}, "f01"),
    ("equalization_flat", "Equalization", {}, "flat"),
    ("solarization", "Solarization", {"addition_factor": 0.3, "threshold_factor": (0.4, 0.9),
                                      "seed": 3}, "u8"),
    ("solarization_01", "Solarization", {"threshold_factor": 0.5, "value_range": (0, 1),
                                         "seed": 4}, "f01"),
    ("invert", "RandomInvert", {"factor": 0.6, "seed": 5}, "u8"),
    ("invert_01", "RandomInvert", {"value_range": (0, 1), "seed": 6}, "f01"),
    ("grayscale", "RandomGrayscale", {"factor": 0.5, "seed": 7}, "u8"),
    ("grayscale_first", "RandomGrayscale", {"factor": 0.7, "seed": 8,
                                            "data_format": "channels_first"}, "first"),
    ("posterization", "RandomPosterization", {"factor": (2, 7), "seed": 9}, "u8"),
    ("posterization_fixed", "RandomPosterization", {"factor": (3, 3), "seed": 10}, "u8"),
    ("posterization_01", "RandomPosterization", {"factor": 5, "value_range": (0, 1),
                                                 "seed": 11}, "f01"),
    ("mix_up", "MixUp", {"alpha": 0.4, "seed": 12}, "u8"),
    ("mix_up_labels", "MixUp", {"alpha": 0.3, "seed": 20}, "labels"),
    ("cut_mix", "CutMix", {"seed": 21}, "u8"),
    ("cut_mix_factor", "CutMix", {"factor": (0.2, 0.6), "seed": 22}, "f01"),
    ("cut_mix_first", "CutMix", {"factor": 0.5, "seed": 23, "data_format": "channels_first"},
     "first"),
    ("cut_mix_labels", "CutMix", {"seed": 24}, "labels"),
    ("erasing", "RandomErasing", {"seed": 25}, "u8"),
    ("erasing_fill", "RandomErasing", {"factor": 0.7, "scale": (0.1, 0.5), "fill_value": 300,
                                       "seed": 26}, "u8"),
    ("erasing_rgb", "RandomErasing", {"scale": 0.4, "fill_value": (0.1, 0.5, 2.0),
                                      "value_range": (0, 1), "seed": 27}, "f01"),
    ("erasing_first", "RandomErasing", {"factor": 0.9, "seed": 28,
                                        "data_format": "channels_first"}, "first"),
    ("jitter", "RandomColorJitter", {"value_range": (0, 1), "brightness_factor": 0.2,
                                     "contrast_factor": 0.3, "saturation_factor": (0.3, 0.7),
                                     "hue_factor": 0.2, "seed": 29}, "f01"),
    ("jitter_some", "RandomColorJitter", {"contrast_factor": (0.1, 0.5), "hue_factor": 0.3,
                                          "seed": 30}, "u8"),
    ("gaussian_blur", "RandomGaussianBlur", {"factor": 0.8, "seed": 31}, "u8"),
    ("gaussian_blur_5", "RandomGaussianBlur", {"kernel_size": (5, 3), "sigma": (0.2, 0.9),
                                               "seed": 32}, "u8"),
    ("gaussian_blur_first", "RandomGaussianBlur", {"seed": 33,
                                                   "data_format": "channels_first"}, "first"),
    ("shear", "RandomShear", {"x_factor": 0.3, "y_factor": (0.1, 0.4), "seed": 34}, "u8"),
    ("shear_nearest", "RandomShear", {"x_factor": 0.5, "interpolation": "nearest",
                                      "fill_mode": "constant", "fill_value": 9.0, "seed": 35},
     "u8"),
    ("shear_first", "RandomShear", {"y_factor": 0.6, "seed": 36,
                                    "data_format": "channels_first"}, "first"),
    ("perspective", "RandomPerspective", {"seed": 37}, "u8"),
    ("perspective_half", "RandomPerspective", {"factor": 0.6, "scale": 0.4,
                                               "interpolation": "nearest", "fill_value": 3.0,
                                               "seed": 38}, "u8"),
    ("perspective_first", "RandomPerspective", {"scale": 0.8, "seed": 39,
                                                "data_format": "channels_first"}, "first"),
    ("rand_augment", "RandAugment", {"seed": 40}, "u8"),
    ("rand_augment_more", "RandAugment", {"num_ops": 4, "factor": (0.2, 0.8),
                                          "interpolation": "nearest", "seed": 41}, "u8"),
    ("rand_augment_01", "RandAugment", {"value_range": (0, 1), "num_ops": 3, "seed": 42},
     "f01"),
    ("aug_mix", "AugMix", {"seed": 43}, "u8"),
    ("aug_mix_few", "AugMix", {"num_chains": 2, "chain_depth": 4, "factor": 0.6,
                               "alpha": 0.5, "all_ops": False, "seed": 44}, "u8"),
    ("elastic", "RandomElasticTransform", {"seed": 45}, "u8"),
    ("elastic_some", "RandomElasticTransform", {"factor": 0.6, "scale": (0.3, 0.8),
                                                "interpolation": "nearest",
                                                "fill_mode": "constant", "fill_value": 5.0,
                                                "seed": 46}, "u8"),
    ("elastic_first", "RandomElasticTransform", {"scale": 0.5, "seed": 47,
                                                 "data_format": "channels_first"}, "first"),
    ("clahe", "ContrastLimitedAdaptiveHistogramEqualization", {"tile_grid_size": (2, 2)},
     "u8"),
    ("clahe_pad", "ContrastLimitedAdaptiveHistogramEqualization",
     {"clip_limit": 1.5, "tile_grid_size": (2, 4)}, "big"),
    ("clahe_01", "ContrastLimitedAdaptiveHistogramEqualization",
     {"value_range": (0, 1), "clip_limit": 0, "tile_grid_size": (3, 2)}, "f01"),
    ("clahe_first", "ContrastLimitedAdaptiveHistogramEqualization",
     {"tile_grid_size": (3, 3), "data_format": "channels_first"}, "first"),
    ("max_boxes", "MaxNumBoundingBoxes", {"max_number": 2}, "u8"),
    ("saturation", "RandomSaturation", {"factor": (0.2, 0.8), "value_range": (0, 1),
                                        "seed": 13}, "f01"),
    ("saturation_255", "RandomSaturation", {"factor": 0.5, "seed": 14}, "u8"),
    ("hue", "RandomHue", {"factor": 0.4, "seed": 15}, "u8"),
    ("hue_01", "RandomHue", {"factor": (0.1, 0.9), "value_range": (0, 1), "seed": 16}, "f01"),
    ("color_degeneration", "RandomColorDegeneration", {"factor": (0.2, 0.9), "seed": 17},
     "u8"),
    ("sharpness", "RandomSharpness", {"factor": (0.1, 0.9), "seed": 18}, "u8"),
    ("sharpness_first", "RandomSharpness", {"factor": 0.7, "seed": 19,
                                            "data_format": "channels_first"}, "first"),
]


# (layer class, keyword arguments) that Keras refuses when the layer is made
ERROR_CASES = [
    ("AutoContrast", {"value_range": 5}),
    ("Equalization", {"value_range": (1, 2, 3)}),
    ("Solarization", {"addition_factor": 1.5}),
    ("Solarization", {"threshold_factor": (0.1, 0.2, 0.3)}),
    ("Solarization", {"threshold_factor": "a"}),
    ("RandomInvert", {"factor": 2.0}),
    ("RandomGrayscale", {"factor": -0.1}),
    ("RandomPosterization", {"factor": 9}),
    ("RandomPosterization", {"factor": 0}),
    ("CutMix", {"factor": 1.5}),
    ("RandomErasing", {"scale": (0.5, 0.2, 0.1)}),
    ("RandomErasing", {"scale": 2}),
    ("RandomSaturation", {"factor": 2}),
    ("RandomHue", {"factor": -0.5}),
    ("RandomColorDegeneration", {"factor": (2, 3)}),
    ("RandomSharpness", {"factor": 1.5}),
    ("RandomGaussianBlur", {"kernel_size": 4}),
    ("RandomGaussianBlur", {"kernel_size": (3, 4)}),
    ("RandomGaussianBlur", {"kernel_size": (3, 3, 3)}),
    ("RandomGaussianBlur", {"sigma": 2}),
    ("RandomShear", {"x_factor": 1.5}),
    ("RandomShear", {"y_factor": (0.1,)}),
    ("RandomShear", {"fill_mode": "mirror"}),
    ("RandomShear", {"interpolation": "bicubic"}),
    ("RandomPerspective", {"scale": 1.5}),
    ("RandomPerspective", {"interpolation": "bicubic"}),
    ("RandomElasticTransform", {"scale": 2}),
    ("RandomElasticTransform", {"interpolation": "area"}),
    ("RandAugment", {"factor": 2}),
    ("AugMix", {"factor": -1}),
    ("MaxNumBoundingBoxes", {"max_number": 2, "factor": 3}),
]


def construction_error(keras: Any, cls: str, kwargs: dict) -> str:
    """'Class: message' of the error making the layer raises ('ok' if none)."""
    try:
        getattr(keras.layers, cls)(**kwargs)
    except Exception as exc:  # noqa: BLE001 - recorded: the test checks the same text
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def images() -> dict:
    """The seeded inputs: a uint8 batch, a float batch in [0, 1], a batch with constant
    channels, and a channels-first batch."""
    rng = np.random.RandomState(0)
    u8 = rng.randint(0, 256, (3, 5, 6, 3)).astype(np.uint8)
    f01 = rng.uniform(0, 1, (3, 5, 6, 3)).astype(np.float32)
    flat = np.concatenate([np.full((3, 5, 6, 1), 7, np.uint8),
                           rng.randint(0, 256, (3, 5, 6, 2)).astype(np.uint8)], axis=-1)
    first = rng.randint(0, 256, (3, 3, 5, 6)).astype(np.uint8)
    big = rng.randint(0, 256, (2, 13, 11, 3)).astype(np.uint8)
    labels = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 3)]
    return {"u8": u8, "f01": f01, "flat": flat, "first": first, "labels": (u8, labels),
            "big": big}


def _calls(x: np.ndarray) -> list:
    """(label, input, training) of the calls, in order."""
    if isinstance(x, tuple):   # images and one-hot labels, as a dict
        x, labels = x
        as_float = x.astype(np.float32)
        return [("train_u8", {"images": x, "labels": labels}, True),
                ("train_f", {"images": as_float, "labels": labels}, True),
                ("infer_f", {"images": as_float, "labels": labels}, False),
                ("single_f", {"images": as_float[0], "labels": labels[0]}, True)]
    as_float = x.astype(np.float32)
    return [("train_u8", x, True), ("train_f", as_float, True), ("infer_f", as_float, False),
            ("single_f", as_float[0], True), ("again_f", as_float, True)]


def run_case(keras: Any, name: str, cls: str, kwargs: dict, key: str) -> tuple:
    """({label: output array}, {label: dtype or error}) of the case's calls."""
    layer = getattr(keras.layers, cls)(**kwargs)
    random.seed(0)   # AugMix chooses its augmentations with Python's global `random`
    outputs, notes = {}, {}
    for label, x, training in _calls(images()[key]):
        try:
            out = layer(x, training=training)
        except Exception as exc:  # noqa: BLE001 - recorded: the test checks the same class
            notes[label] = f"{type(exc).__name__}: {exc}"
            continue
        if isinstance(out, dict):
            outputs[label + "_labels"] = np.asarray(out["labels"])
            out = out["images"]
        out = np.asarray(out)
        outputs[label] = out
        notes[label] = str(out.dtype)
    return outputs, notes


TRACED_KEYS = ("u8", "f01", "flat")   # the cases run traced: channels-last images of 5 x 6


def batches(key: str) -> np.ndarray:
    """6 float images of 5 x 6 for the traced runs (batches of 4 and 2 in `Dataset.map`), in
    the case's value range (outside it, a cast to uint8 is undefined in TensorFlow)."""
    x = images()[key].astype(np.float32)
    return np.concatenate([x, x[::-1] * 0.5], axis=0)


def run_traced(tf: Any, keras: Any, cls: str, kwargs: dict, key: str) -> dict:
    """The layer in a tf.function of unknown batch size (batches of 3 and 1) and, a fresh
    one, in `Dataset.map` over batches of 4 and 2 (training=True)."""
    x = batches(key)
    layer = getattr(keras.layers, cls)(**kwargs)
    step = tf.function(lambda b: layer(b, training=True),
                       input_signature=[tf.TensorSpec([None, 5, 6, 3], tf.float32)])
    random.seed(3)   # AugMix chooses once, when the function traces
    out = {"traced_3": np.asarray(step(x[:3])), "traced_1": np.asarray(step(x[3:4]))}
    layer = getattr(keras.layers, cls)(**kwargs)
    random.seed(4)
    ds = tf.data.Dataset.from_tensor_slices(x).batch(4).map(lambda b: layer(b, training=True))
    for i, batch in enumerate(ds):
        out[f"map_{i}"] = np.asarray(batch)
    return out


def run_boxes(tf: Any, keras: Any) -> dict:
    """MaxNumBoundingBoxes on {"images", "bounding_boxes"}: dense batches cut to 2 and padded
    to 5 (fill -1, then 7), and one image's boxes."""
    rng = np.random.RandomState(5)
    x = rng.uniform(0, 255, (2, 4, 4, 3)).astype(np.float32)
    boxes = rng.uniform(0, 4, (2, 3, 4)).astype(np.float32)
    labels = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    out = {}
    for label, kwargs, data in [
            ("cut", {"max_number": 2}, {"boxes": boxes, "labels": labels}),
            ("pad", {"max_number": 5}, {"boxes": boxes, "labels": labels}),
            ("pad_7", {"max_number": 5, "fill_value": 7}, {"boxes": boxes, "labels": labels})]:
        layer = keras.layers.MaxNumBoundingBoxes(bounding_box_format="xyxy", **kwargs)
        result = layer({"images": x, "bounding_boxes": data})
        out[f"boxes_{label}"] = np.asarray(result["bounding_boxes"]["boxes"])
        out[f"labels_{label}"] = np.asarray(result["bounding_boxes"]["labels"])
        out[f"images_{label}"] = np.asarray(result["images"])
    layer = keras.layers.MaxNumBoundingBoxes(max_number=4, bounding_box_format="xyxy")
    single = layer({"images": x[0], "bounding_boxes": {"boxes": boxes[0], "labels": labels[0]}})
    out["boxes_single"] = np.asarray(single["bounding_boxes"]["boxes"])
    out["labels_single"] = np.asarray(single["bounding_boxes"]["labels"])
    return out


FIT_LAYERS = [("AutoContrast", {}), ("Solarization", {"addition_factor": 0.2, "seed": 1}),
              ("RandomInvert", {"factor": 0.3, "seed": 2}),
              ("RandomShear", {"x_factor": 0.2, "seed": 3}),
              ("RandomSharpness", {"factor": 0.6, "seed": 4}),
              ("MixUp", {"seed": 5}), ("CutMix", {"seed": 6}),
              ("RandomErasing", {"factor": 0.5, "seed": 7}),
              ("RandomGaussianBlur", {"factor": 0.5, "seed": 8}),
              ("RandomPerspective", {"factor": 0.5, "seed": 9}),
              ("RandAugment", {"seed": 10})]
# AugMix picks its chains (Python's `random`) each time the step traces: Keras traces once
# (batch None), tapeflow once a batch shape, so AugMix is fitted on whole batches only.
FIT_AUGMIX = [("AugMix", {"seed": 11}), ("RandomInvert", {"seed": 12})]
# (not Equalization: Keras 3.15.1's returns its input KerasTensor as its output spec, and a
# functional model of it fails: "is part of a cycle")


def run_fit(keras: Any, layers: Optional[list] = None, batch_size: int = 4) -> dict:
    """A model of the layers (inputs of unknown batch size) fitted for 2 epochs on 10 images
    (in batches of 4, 4 and 2 by default): its losses and weights, and its predictions."""
    keras.utils.set_random_seed(1)
    rng = np.random.RandomState(1)
    x = rng.randint(0, 256, (10, 5, 6, 3)).astype(np.float32)
    y = rng.randint(0, 2, 10).astype(np.int32)
    inputs = keras.Input((5, 6, 3))
    h = inputs
    for cls, kwargs in FIT_LAYERS if layers is None else layers:
        h = getattr(keras.layers, cls)(**kwargs)(h)
    h = keras.layers.Rescaling(1.0 / 255)(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    dense = keras.layers.Dense(2, kernel_initializer=keras.initializers.GlorotUniform(seed=7))
    model = keras.Model(inputs, dense(h))
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=batch_size, epochs=2, verbose=0, shuffle=False)
    return {"fit_loss": np.asarray(history.history["loss"]),
            "fit_kernel": np.asarray(dense.kernel), "fit_bias": np.asarray(dense.bias),
            "fit_predict": np.asarray(model.predict(x, verbose=0))}


def run_labels_map(tf: Any, keras: Any) -> dict:
    """MixUp and CutMix on {"images", "labels"} in `Dataset.map` over batches of 4 and 2."""
    x = batches("u8")
    labels = np.eye(3, dtype=np.float32)[np.arange(6) % 3]
    out = {}
    for cls in ("MixUp", "CutMix"):
        layer = getattr(keras.layers, cls)(seed=50)
        ds = tf.data.Dataset.from_tensor_slices({"images": x, "labels": labels}).batch(4).map(
            lambda d, layer=layer: layer(d, training=True))
        for i, batch in enumerate(ds):
            out[f"{cls}_images_{i}"] = np.asarray(batch["images"])
            out[f"{cls}_labels_{i}"] = np.asarray(batch["labels"])
    return out


UNKNOWN_SIZE = [("RandomPerspective", {"seed": 1}), ("RandomElasticTransform", {"seed": 1}),
                ("CutMix", {"seed": 1}), ("RandomErasing", {"seed": 1}), ("Equalization", {}),
                ("ContrastLimitedAdaptiveHistogramEqualization", {"tile_grid_size": (2, 2)}),
                ("RandomShear", {"x_factor": 0.3, "seed": 1}), ("RandAugment", {"seed": 1}),
                ("RandomGaussianBlur", {"seed": 1}), ("RandomSharpness", {"factor": 0.7,
                                                                       "seed": 1})]


def run_unknown_size(tf: Any, keras: Any) -> tuple:
    """Each UNKNOWN_SIZE layer in a tf.function of unknown batch, height and width: its
    output ({class: array}) or the class of the error tracing raises ({class: name})."""
    x = batches("u8")[:2]
    outputs, errors = {}, {}
    for cls, kwargs in UNKNOWN_SIZE:
        layer = getattr(keras.layers, cls)(**kwargs)
        step = tf.function(lambda b, layer=layer: layer(b, training=True),
                           input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
        try:
            outputs[cls] = np.asarray(step(x))
        except Exception as exc:  # noqa: BLE001 - recorded: the test checks the same class
            errors[cls] = type(exc).__name__
    return outputs, errors


def config_of(keras: Any, cls: str, kwargs: dict) -> dict:
    """The layer's get_config, without its dtype policy (spelt differently)."""
    config = getattr(keras.layers, cls)(**kwargs).get_config()
    config.pop("dtype", None)
    config.pop("name", None)
    return json.loads(json.dumps(config))


def round_trip(keras: Any, cls: str, kwargs: dict) -> str:
    """'ok', or the error class, of from_config(get_config()) (some of Keras's configs hold
    a factor their own __init__ refuses)."""
    layer_class = getattr(keras.layers, cls)
    try:
        layer_class.from_config(layer_class(**kwargs).get_config())
    except Exception as exc:  # noqa: BLE001 - recorded: the test checks the same class
        return type(exc).__name__
    return "ok"


def main() -> None:
    import keras
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.path.join(here, "..", "tests", "keras", "fixtures")
    arrays, record = {}, {}
    import tensorflow as tf
    for name, cls, kwargs, key in CASES:
        outputs, notes = run_case(keras, name, cls, kwargs, key)
        if key in TRACED_KEYS:
            outputs.update(run_traced(tf, keras, cls, kwargs, key))
        for label, out in outputs.items():
            arrays[f"{name}/{label}"] = out
        record[name] = {"class_name": cls, "notes": notes, "config": config_of(keras, cls, kwargs),
                        "round_trip": round_trip(keras, cls, kwargs)}
    for label, out in run_fit(keras).items():
        arrays[f"fit/{label}"] = out
    for label, out in run_fit(keras, FIT_AUGMIX, batch_size=5).items():
        arrays[f"fit_augmix/{label}"] = out
    for label, out in run_labels_map(tf, keras).items():
        arrays[f"labels_map/{label}"] = out
    unknown, record["unknown_size_errors"] = run_unknown_size(tf, keras)
    for label, out in unknown.items():
        arrays[f"unknown_size/{label}"] = out
    for label, out in run_boxes(tf, keras).items():
        arrays[f"max_boxes_dict/{label}"] = out
    record["construction_errors"] = [construction_error(keras, cls, kwargs)
                                     for cls, kwargs in ERROR_CASES]
    np.savez_compressed(os.path.join(target, "image_augment.npz"), **arrays)
    with open(os.path.join(target, "image_augment.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
