"""Keras's image augmentation layers traced with run-time sizes: in `fit`'s step with a last
partial batch, in `Dataset.map` over batches, in a tf.function whose input_signature leaves
batch, height and width unknown. The seeded program of tools/record_augmentation_fit.py
gives Keras 3.15.1's numbers (tests/keras/fixtures/augmentation_fit.json); the layer-by-layer
tests compare traced calls with eager ones, and Keras's traced behaviour (measured) where it
differs from its eager one."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tools.record_augmentation_fit import run_fit, run_map, run_traced  # noqa: E402

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "augmentation_fit.json").read_text())
ANY_IMAGES = [tf.TensorSpec([None, None, None, 3], tf.float32)]
ANY_BATCH = [tf.TensorSpec([None, 7, 9, 3], tf.float32)]


def _images(*shape, seed=0):
    return np.random.RandomState(seed).uniform(0, 255, shape).astype(np.float32)


def test_fit_on_partial_batches_and_two_image_sizes_prints_what_keras_prints():
    out = run_fit(tf, keras)
    for key in ("history1", "history2"):
        assert out[key].keys() == FIXTURE[key].keys()
        np.testing.assert_allclose(out[key]["loss"], FIXTURE[key]["loss"], rtol=1e-5)
        np.testing.assert_array_equal(out[key]["accuracy"], FIXTURE[key]["accuracy"])
    for ours, theirs in zip(out["weights"], FIXTURE["weights"], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["predict"], FIXTURE["predict"], rtol=1e-5, atol=1e-6)


def test_dataset_map_over_batches_gives_keras_numbers():
    out = run_map(tf, keras)
    for key in ("map_x1", "map_x2"):
        assert len(out[key]) == len(FIXTURE[key])   # batches of 3, the last partial
        for ours, theirs in zip(out[key], FIXTURE[key]):
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-3)


def test_traced_with_unknown_batch_height_and_width_gives_keras_numbers():
    out = run_traced(tf, keras)
    assert out["traced_shape"] == FIXTURE["traced_shape"] == [None, None, None, 3]
    for key in ("traced_x1", "traced_x2"):
        np.testing.assert_allclose(out[key], FIXTURE[key], rtol=1e-5, atol=1e-3)


def _layers(seed=0):
    layers = keras.layers
    return {
        "flip": layers.RandomFlip(seed=seed + 1),
        "rotation": layers.RandomRotation(0.2, seed=seed + 2),
        "zoom": layers.RandomZoom(0.2, 0.1, seed=seed + 3),
        "translation": layers.RandomTranslation(0.2, 0.1, seed=seed + 4),
        "contrast": layers.RandomContrast(0.3, seed=seed + 5),
        "brightness": layers.RandomBrightness(0.2, seed=seed + 6),
        "crop": layers.RandomCrop(4, 5, seed=seed + 7),
        "resizing": layers.Resizing(5, 4),
        "resizing_crop": layers.Resizing(4, 6, crop_to_aspect_ratio=True),
        "resizing_pad": layers.Resizing(4, 6, pad_to_aspect_ratio=True),
        "center_crop": layers.CenterCrop(4, 6),
        "center_crop_larger": layers.CenterCrop(8, 10),
    }


# Every layer but RandomCrop (which needs them static, as Keras's) takes any height and width.
ANY_SIZE = ("flip", "rotation", "zoom", "translation", "contrast", "brightness", "resizing",
            "resizing_crop", "resizing_pad", "center_crop")


def _traced_against_eager(name, signature, shapes):
    eager, traced = _layers()[name], _layers()[name]
    step = tf.function(lambda x: traced(x, training=True), input_signature=signature)
    for i, shape in enumerate(shapes):
        x = _images(*shape, seed=i)
        np.testing.assert_allclose(step(x).numpy(), eager(x, training=True).numpy(),
                                   rtol=1e-6, atol=1e-4)
    return step


@pytest.mark.parametrize("name", sorted(_layers()))
def test_layer_traced_with_unknown_batch_equals_eager(name):
    step = _traced_against_eager(name, ANY_BATCH, [(3, 7, 9, 3), (1, 7, 9, 3), (4, 7, 9, 3)])
    static = step.get_concrete_function().structured_outputs.shape.as_list()
    assert static[0] is None and static[-1] == 3


@pytest.mark.parametrize("name", ANY_SIZE)
def test_layer_traced_with_unknown_height_and_width_equals_eager(name):
    step = _traced_against_eager(name, ANY_IMAGES, [(3, 7, 9, 3), (2, 10, 8, 3)])
    static = step.get_concrete_function().structured_outputs.shape.as_list()
    # Measured with Keras 3.15.1: Resizing gives (None, h, w, 3), the others all None.
    expected = {"resizing": [None, 5, 4, 3], "resizing_crop": [None, 4, 6, 3],
                "resizing_pad": [None, 4, 6, 3]}.get(name, [None, None, None, 3])
    assert static == expected


def test_center_crop_of_a_smaller_image_of_run_time_size_crops_as_keras():
    """Keras crops (does not resize) an image whose size is known only when the graph runs,
    even where it is smaller than the target: measured with Keras 3.15.1, CenterCrop(8, 10) of
    a 7x9 image traced gives its last pixel, (3, 1, 1, 3), where eagerly it gives (3, 8, 10, 3)."""
    x = np.arange(3 * 7 * 9 * 3, dtype=np.float32).reshape(3, 7, 9, 3)
    layer = keras.layers.CenterCrop(8, 10)
    out = tf.function(lambda a: layer(a), input_signature=ANY_IMAGES)(x).numpy()
    assert out.shape == (3, 1, 1, 3) and out[0, 0, 0, 0] == 186.0
    assert tuple(layer(x).shape) == (3, 8, 10, 3)


def test_random_crop_of_run_time_height_and_width_is_refused_as_keras():
    # Measured with Keras 3.15.1: OperatorNotAllowedInGraphError, "Using a symbolic
    # `tf.Tensor` as a Python `bool` is not allowed".
    layer = keras.layers.RandomCrop(4, 5, seed=1)
    step = tf.function(lambda a: layer(a, training=True), input_signature=ANY_IMAGES)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                       match="symbolic `tf.Tensor` as a Python `bool`"):
        step(_images(2, 7, 9, 3))


def test_fit_with_augmentation_trains_on_a_last_partial_batch_of_images():
    """The user's program (the ConvMixer example's shape): augmentation in Dataset.map over
    batches and inside the model, fit over a dataset whose last batch is partial."""
    keras.utils.set_random_seed(4)
    augment = keras.Sequential([keras.layers.RandomFlip(seed=1),
                                keras.layers.RandomRotation(0.1, seed=2)])
    x, y = _images(10, 8, 8, 3), np.arange(10) % 2
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).map(
        lambda images, labels: (augment(images, training=True), labels))
    model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.RandomZoom(0.1, seed=3),
                              keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(ds, epochs=2, shuffle=False, verbose=0).history
    assert len(history["loss"]) == 2 and np.isfinite(history["loss"]).all()
