"""Keras 3.15.1's image augmentation layers of keras.layers.preprocessing.image_augment
(AugMix, AutoContrast, CLAHE, CutMix, Equalization, MaxNumBoundingBoxes, MixUp, RandAugment
and the Random* colour and geometry layers): seeded layers give the outputs, dtypes, errors,
configs and config round trips recorded from Keras by tools/record_keras_image_augment.py
(tests/keras/fixtures/image_augment.*), eagerly (batches and single images, training=True
and False), traced with an unknown batch size, in `Dataset.map`, and in models fitted with
`fit` on batches of varying size."""

from __future__ import annotations

import json
import pathlib
import random
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tools.record_keras_image_augment import (CASES, ERROR_CASES, FIT_AUGMIX,  # noqa: E402
                                              FIT_LAYERS, TRACED_KEYS, batches,
                                              construction_error, images, run_boxes,
                                              run_case, run_fit, run_labels_map,
                                              run_traced, run_unknown_size)

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
RECORD = json.loads((FIXTURES / "image_augment.json").read_text())
ARRAYS = np.load(FIXTURES / "image_augment.npz")
BY_NAME = {case[0]: case for case in CASES}
RECORDED_CASES = set(RECORD) - {"construction_errors", "unknown_size_errors"}


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_seeded_layer_gives_keras_outputs_dtypes_and_errors(name):
    _, cls, kwargs, key = BY_NAME[name]
    outputs, notes = run_case(keras, *BY_NAME[name])
    expected = RECORD[name]["notes"]
    assert set(notes) == set(expected)
    for label, note in expected.items():
        if label not in outputs:   # Keras raised: the same class and words
            assert notes[label].split(":")[0] == note.split(":")[0]
            assert "expected float dtype" in notes[label] and "expected float dtype" in note
            continue
        assert notes[label] == note, label
    recorded = {key.split("/")[1] for key in ARRAYS.files if key.split("/")[0] == name and
                not key.split("/")[1].startswith(("traced_", "map_"))}
    assert set(outputs) == recorded   # the images, and the labels of MixUp/CutMix
    for label, out in outputs.items():
        np.testing.assert_allclose(out, ARRAYS[f"{name}/{label}"], rtol=1e-5, atol=1e-4,
                                   err_msg=f"{name} {label}")


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_config_is_keras_and_round_trips(name):
    _, cls, kwargs, key = BY_NAME[name]
    layer = getattr(keras.layers, cls)(**kwargs)
    config = layer.get_config()
    ours = json.loads(json.dumps({k: v for k, v in config.items() if k not in ("dtype", "name")}))
    assert ours == RECORD[name]["config"]
    if RECORD[name]["round_trip"] != "ok":   # as Keras: RandomShear's config holds
        # (-x, x), which its __init__ refuses
        with pytest.raises(TypeError, match="Error when deserializing class"):
            type(layer).from_config(config)
        return
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    if cls == "RandomGrayscale":   # as Keras, its config has no seed: the clone draws others
        assert "seed" not in config
        return
    x = images()[key]
    x = (x[0] if key == "labels" else x).astype(np.float32)
    random.seed(1)   # AugMix chooses with Python's `random`
    theirs = layer(x, training=True).numpy()
    random.seed(1)
    np.testing.assert_array_equal(clone(x, training=True).numpy(), theirs)


TRACED = sorted(name for name, _, _, key in CASES if key in TRACED_KEYS)


@pytest.mark.parametrize("name", TRACED)
def test_traced_with_unknown_batch_and_in_dataset_map_gives_keras_numbers(name):
    _, cls, kwargs, key = BY_NAME[name]
    out = run_traced(tf, keras, cls, kwargs, key)
    assert set(out) == {"traced_3", "traced_1", "map_0", "map_1"}
    assert out["map_0"].shape == (4, 5, 6, 3) and out["map_1"].shape == (2, 5, 6, 3)
    for label, ours in out.items():
        np.testing.assert_allclose(ours, ARRAYS[f"{name}/{label}"], rtol=1e-5, atol=1e-3,
                                   err_msg=f"{name} {label}")


def test_elastic_transform_of_unknown_batch_warps_all_images_alike_as_keras():
    """Keras's elastic_transform draws one field for a batch of unknown size, and its `where`
    puts the first image's warp in place of every image chosen (measured with Keras 3.15.1:
    the recorded traced outputs above hold it). Seed 47 chooses images 0 and 1."""
    x = batches("u8")[:3]
    out = run_traced(tf, keras, "RandomElasticTransform", {"seed": 47}, "u8")["traced_3"]
    eager = keras.layers.RandomElasticTransform(seed=47)(x, training=True).numpy()
    np.testing.assert_allclose(out[0], eager[0], rtol=1e-5, atol=1e-3)
    assert not np.allclose(eager[0], x[0]) and not np.allclose(eager[1], x[1])
    np.testing.assert_array_equal(out[1], out[0])
    np.testing.assert_array_equal(out[2], x[2])


@pytest.mark.parametrize("prefix,layers,batch_size", [("fit", FIT_LAYERS, 4),
                                                      ("fit_augmix", FIT_AUGMIX, 5)])
def test_model_of_the_layers_fitted_on_unknown_batch_size_gives_keras_numbers(
        prefix, layers, batch_size):
    """Twelve of the layers in one functional model (Input of unknown batch size), fitted on
    batches of 4, 4 and 2; AugMix (its chains picked when the step traces) on whole
    batches: the losses, weights and predictions Keras 3.15.1 gives."""
    out = run_fit(keras, layers, batch_size)
    for label, ours in out.items():
        np.testing.assert_allclose(ours, ARRAYS[f"{prefix}/{label}"], rtol=1e-5, atol=1e-6,
                                   err_msg=label)


def test_mix_up_and_cut_mix_of_labelled_batches_in_dataset_map_give_keras_numbers():
    out = run_labels_map(tf, keras)
    assert set(out) == {key.split("/")[1] for key in ARRAYS.files
                        if key.startswith("labels_map/")}
    for label, ours in out.items():
        np.testing.assert_allclose(ours, ARRAYS[f"labels_map/{label}"], rtol=1e-5, atol=1e-4,
                                   err_msg=label)


def test_run_time_height_and_width_give_keras_numbers_or_keras_refusal():
    """Measured with Keras 3.15.1: RandomPerspective, RandomElasticTransform, CutMix,
    RandomErasing and CLAHE need the height and width while tracing (TypeError); the others
    take any size."""
    outputs, errors = run_unknown_size(tf, keras)
    assert errors == RECORD["unknown_size_errors"]
    assert set(outputs) == {key.split("/")[1] for key in ARRAYS.files
                            if key.startswith("unknown_size/")}
    for cls, ours in outputs.items():
        np.testing.assert_allclose(ours, ARRAYS[f"unknown_size/{cls}"], rtol=1e-5, atol=1e-3,
                                   err_msg=cls)


def test_the_fixture_holds_every_case():
    assert RECORDED_CASES == set(BY_NAME)


@pytest.mark.parametrize("index", range(len(ERROR_CASES)))
def test_bad_arguments_are_refused_with_keras_class_and_text(index):
    cls, kwargs = ERROR_CASES[index]
    assert construction_error(keras, cls, kwargs) == RECORD["construction_errors"][index]


def test_max_num_bounding_boxes_cuts_and_pads_boxes_as_keras():
    out = run_boxes(tf, keras)
    assert set(out) == {key.split("/")[1] for key in ARRAYS.files
                        if key.startswith("max_boxes_dict/")}
    for label, ours in out.items():
        theirs = ARRAYS[f"max_boxes_dict/{label}"]
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, label
        np.testing.assert_array_equal(ours, theirs, err_msg=label)


def test_max_num_bounding_boxes_needs_a_box_format_as_keras():
    layer = keras.layers.MaxNumBoundingBoxes(max_number=2)
    data = {"images": np.zeros((1, 4, 4, 3), np.float32),
            "bounding_boxes": {"boxes": np.zeros((1, 3, 4), np.float32),
                               "labels": np.zeros((1, 3), np.int32)}}
    with pytest.raises(ValueError, match="didn't specify a bounding box format"):
        layer(data)
    assert "fill_value" not in layer.get_config()   # as Keras


def test_clahe_counts_histograms_without_a_one_hot_per_pixel():
    """Keras sums a one-hot of 256 floats a pixel (200 MiB for these 4 x 128 x 128 x 3 uint8
    images); the bincount gives the same counts (the recorded cases above) in a few MiB."""
    import tracemalloc
    x = np.random.RandomState(0).randint(0, 256, (4, 128, 128, 3)).astype(np.uint8)
    layer = keras.layers.ContrastLimitedAdaptiveHistogramEqualization()
    layer(x[:1])
    tracemalloc.start()
    try:
        out = layer(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.dtype == tf.uint8 and tuple(out.shape) == x.shape
    assert peak < 40 * 2**20, peak
