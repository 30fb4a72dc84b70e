"""keras.applications against Keras 3.15 (recorded by tools/record_keras_applications.py):
each architecture's layers, names, parameter counts and output shape; its outputs on seeded
weights (set the same way in both, so no weights are stored); Keras 2 HDF5 weight files (the
ImageNet files' layout) written by real Keras; preprocessing and decoding."""

from __future__ import annotations

import json
import os
import sys
import urllib.request

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import applications

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _applications_recipe import (CALLS, FORWARD, deterministic_weights,  # noqa: E402
                                  sample_pixels, seeded_images)

with open(os.path.join(HERE, "fixtures", "architectures.json")) as _f:
    RECORD = json.load(_f)
LEGACY_H5 = os.path.join(HERE, "fixtures", "mobilenet_legacy.h5")
BUILT = [key for key, (name, _) in CALLS.items() if hasattr(applications, name)]


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to download")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(urllib.request, "urlretrieve", refuse)


def _build(key: str):
    name, kwargs = CALLS[key]
    keras.backend.clear_session()   # automatic layer names count from zero, as recorded
    return getattr(applications, name)(weights=None, **kwargs)


@pytest.mark.parametrize("key", BUILT)
def test_architecture_as_keras(key):
    """Layers, names, parameter counts, output shape; for one or two models per family (the
    FORWARD calls) also the outputs on seeded weights and images."""
    model, expected = _build(key), RECORD["calls"][key]
    assert [[layer.name, type(layer).__name__] for layer in model.layers] == expected["layers"]
    assert model.count_params() == expected["params"]
    assert sum(int(np.prod(v.shape)) for v in model.trainable_weights) == expected["trainable"]
    assert list(model.output_shape) == expected["output_shape"]
    assert model.name == expected["name"]
    if key in FORWARD:
        model.set_weights(deterministic_weights([(v.name, tuple(v.shape))
                                                 for v in model.weights]))
        images = seeded_images(CALLS[key][1]["input_shape"])
        np.testing.assert_allclose(np.asarray(model(images, training=False)),
                                   expected["output"], rtol=1e-4, atol=2e-5)


def _small_mobilenet(**kwargs):
    return applications.MobileNet(alpha=0.25, include_top=False, input_shape=(32, 32, 3),
                                  pooling="avg", **kwargs)


def test_weights_file_written_by_keras_loads():
    expected = RECORD["legacy_h5"]["output"]
    images = seeded_images((32, 32, 3))
    model = _small_mobilenet(weights=LEGACY_H5)
    np.testing.assert_allclose(np.asarray(model(images, training=False)), expected,
                               rtol=1e-5, atol=1e-6)
    by_name = _small_mobilenet(weights=None)
    by_name.load_weights(LEGACY_H5, by_name=True)
    np.testing.assert_allclose(np.asarray(by_name(images, training=False)), expected,
                               rtol=1e-5, atol=1e-6)


def test_weights_file_of_another_model_changes_nothing():
    model = applications.MobileNet(alpha=0.5, include_top=False, input_shape=(32, 32, 3),
                                   weights=None)
    before = [np.array(w) for w in model.get_weights()]
    with pytest.raises(ValueError, match="Shape mismatch in layer #0 .named conv1."):
        model.load_weights(LEGACY_H5)
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


def test_imagenet_weights_read_from_keras_cache(tmp_path, monkeypatch):
    """weights="imagenet" reads Keras's file name from $KERAS_HOME/models (the download is
    refused by the fixture, so the cached file is what loads)."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    os.makedirs(tmp_path / "models")
    cached = tmp_path / "models" / "mobilenet_2_5_224_tf_no_top.h5"
    cached.write_bytes(open(LEGACY_H5, "rb").read())
    with pytest.warns(UserWarning, match="Weights for input shape .224, 224. will be loaded"):
        model = _small_mobilenet(weights="imagenet")
    np.testing.assert_allclose(np.asarray(model(seeded_images((32, 32, 3)), training=False)),
                               RECORD["legacy_h5"]["output"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(RECORD["preprocess"]))
def test_preprocess_input_as_keras(case):
    mode, data_format = case.split("/")
    as_array, as_tensor = RECORD["preprocess"][case]
    batch = sample_pixels(data_format)
    got = applications.imagenet_utils.preprocess_input(batch.copy(), data_format=data_format,
                                                       mode=mode)
    np.testing.assert_allclose(got, as_array, rtol=1e-6)
    got = applications.imagenet_utils.preprocess_input(tf.constant(batch),
                                                       data_format=data_format, mode=mode)
    np.testing.assert_allclose(np.asarray(got), as_tensor, rtol=1e-6)


def test_family_preprocessing_modes():
    pixels = sample_pixels("channels_last")
    for module, mode in [(applications.resnet, "caffe"), (applications.vgg16, "caffe"),
                         (applications.resnet_v2, "tf"), (applications.mobilenet_v2, "tf"),
                         (applications.densenet, "torch")]:
        expected = RECORD["preprocess"][f"{mode}/channels_last"][0]
        np.testing.assert_allclose(module.preprocess_input(pixels.copy()), expected, rtol=1e-6)


def test_decode_predictions_reads_cached_class_index(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(applications.imagenet_utils, "_class_index", None)
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    os.makedirs(tmp_path / "models")
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    monkeypatch.setattr(applications.imagenet_utils, "CLASS_INDEX_MD5", None)
    preds = np.zeros((2, 1000), "float32")
    preds[0, [3, 7, 5]] = [0.5, 0.3, 0.2]
    preds[1, 999] = 1.0
    top = applications.resnet50.decode_predictions(preds, top=2)
    assert [entry[:2] for entry in top[0]] == [("n00000003", "class_3"), ("n00000007", "class_7")]
    assert top[1][0][:2] == ("n00000999", "class_999") and top[1][0][2] == 1.0
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\)"):
        applications.imagenet_utils.decode_predictions(np.zeros((2, 10)))


@pytest.mark.parametrize("call, error", [
    (lambda: applications.ResNet50(weights="nowhere.h5"), "The `weights` argument should be"),
    (lambda: applications.VGG16(weights="imagenet", classes=10), "`classes` should be 1000"),
    (lambda: applications.ResNet50(weights=None, input_shape=(16, 16, 3), include_top=False),
     "Input size must be at least 32x32"),
    (lambda: applications.DenseNet121(weights=None, input_shape=(None, None, 3)),
     "you should specify a static `input_shape`"),
    (lambda: applications.MobileNet(weights="imagenet", alpha=0.3), "alpha can be one of"),
    (lambda: applications.ResNet50(weights="imagenet", classifier_activation="relu"),
     "Only `None` and `softmax` activations are allowed"),
])
def test_bad_arguments_as_keras(call, error):
    with pytest.raises(ValueError, match=error):
        call()


def test_headless_model_on_any_image_size():
    model = applications.ResNet50V2(weights=None, include_top=False, pooling="avg")
    assert model.input_shape == (None, None, None, 3)
    assert model(np.zeros((1, 40, 56, 3), "float32")).shape == (1, 2048)
