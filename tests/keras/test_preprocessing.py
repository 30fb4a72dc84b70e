"""Keras 3's preprocessing layers against Keras 3.15 on TensorFlow, recorded by
tools/record_keras_preprocessing.py into tests/keras/fixtures/preprocessing.json/.npz: outputs
(two or three calls of each seeded random layer: the same draws as Keras's SeedGenerator),
gradients w.r.t. the input, configs and from_config round trips, weights, output shapes,
construction errors, and the layers in tf.data's `map`."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import layers as L

HERE = os.path.join(os.path.dirname(__file__), "fixtures")
RECORD = json.load(open(os.path.join(HERE, "preprocessing.json")))
ARRAYS = np.load(os.path.join(HERE, "preprocessing.npz"))
CASES = RECORD["cases"]


def _jsonable(config):
    return json.loads(json.dumps(config, default=str))


def _without_name(config):
    return {k: v for k, v in _jsonable(config).items() if k != "name"}


def _build(case):
    layer = eval(case["layer"], {"L": L})  # noqa: S307 - fixture text
    data = case.get("adapt")
    if data:
        if data.startswith("dataset:"):
            data = tf.data.Dataset.from_tensor_slices(ARRAYS[data[8:]]).batch(4)
        else:
            data = ARRAYS[data]
        layer.adapt(data)
    return layer


def _tolerance(expected):
    return dict(rtol=1e-5, atol=1e-4) if expected.dtype.kind == "f" else dict(rtol=0, atol=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_and_gradients_match_keras(name):
    case = CASES[name]
    layer = _build(case)
    x = tf.constant(ARRAYS[case["input"]])
    kwargs = {}
    if case.get("count_weights"):
        kwargs["count_weights"] = ARRAYS[case["count_weights"]]
    for i in range(case["calls"]):
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = layer(x, training=case["training"], **kwargs)
            loss = None
            if i == 0 and f"{name}/w" in ARRAYS.files:
                loss = tf.reduce_sum(tf.cast(out, tf.float32) * ARRAYS[f"{name}/w"])
        expected = ARRAYS[f"{name}/out{i}"]
        assert out.dtype.as_numpy_dtype == expected.dtype
        assert out.shape.as_list() == list(expected.shape)
        np.testing.assert_allclose(out.numpy(), expected, **_tolerance(expected))
        if loss is not None:
            np.testing.assert_allclose(tape.gradient(loss, x).numpy(),
                                       ARRAYS[f"{name}/grad"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_config_weights_and_shapes_match_keras(name):
    case = CASES[name]
    layer = _build(case)
    layer(tf.constant(ARRAYS[case["input"]]), training=case["training"])
    assert _without_name(layer.get_config()) == _without_name(case["config"])
    clone = type(layer).from_config(layer.get_config())
    assert _jsonable(clone.get_config()) == _jsonable(layer.get_config())
    assert [[w.shape.as_list(), w.dtype.name] for w in layer.weights] == \
        [[shape, dtype] for _, shape, dtype in case["weights"]]
    assert [w.path.split("/")[-1] for w in layer.weights] == \
        [path.split("/")[-1] for path, _, _ in case["weights"]]
    shape = layer.compute_output_shape(ARRAYS[case["input"]].shape)
    assert list(shape) == case["output_shape"]


@pytest.mark.parametrize("name", sorted(RECORD["errors"]))
def test_errors_match_keras(name):
    error = RECORD["errors"][name]
    expected = {"ValueError": ValueError, "NotImplementedError": NotImplementedError,
                "TypeError": TypeError}[error["class"]]
    with pytest.raises(expected) as info:
        eval(error["text"], {"L": L, "np": np})  # noqa: S307 - fixture text
    first = error["message"].split("\n")[-1 if "\x1b" not in error["message"] else 2]
    assert first.replace("\x1b[1m", "").replace("\x1b[0m", "") in str(info.value)


@pytest.mark.parametrize("name", sorted(RECORD["dataset"]))
def test_layers_in_dataset_map_match_keras(name):
    entry = RECORD["dataset"][name]
    layer = eval(entry["layer"], {"L": L})  # noqa: S307 - fixture text
    # A static batch size: tapeflow's stateless random ops need their shape while tracing
    # (an unknown batch is a NotImplementedError naming StatelessRandomUniformV2).
    ds = tf.data.Dataset.from_tensor_slices(ARRAYS["images"]).batch(1, drop_remainder=True)
    ds = ds.map(layer)
    batches = list(ds)
    assert len(batches) == entry["batches"]
    for i, batch in enumerate(batches):
        np.testing.assert_allclose(batch.numpy(), ARRAYS[f"{name}/out{i}"], rtol=1e-5,
                                   atol=1e-4)


def test_layers_in_a_model_fit_and_predict():
    """In a Sequential model: output shapes as Keras's; predict is inference (RandomFlip is
    the identity there), and fit trains through the traced step."""
    model = tf.keras.Sequential([tf.keras.Input((6, 8, 3)), L.Rescaling(1 / 255.0),
                                 L.RandomFlip(seed=1), L.Resizing(4, 4), L.Flatten(),
                                 L.Dense(2)])
    shapes = [[type(layer).__name__, list(layer.output.shape)] for layer in model.layers]
    assert shapes == [[cls, shape] for _, cls, shape in RECORD["model_summary_layers"]]
    x = ARRAYS["images"]
    features = tf.keras.Sequential(model.layers[:3])
    np.testing.assert_allclose(features.predict(x, verbose=0),
                               tf.image.resize(x / 255.0, (4, 4)).numpy(), rtol=1e-5)
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, np.zeros((2, 2), np.float32), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_random_layer_traced_draws_what_it_draws_eagerly():
    """Under tf.function the seed generator's state moves on each call, as eagerly."""
    eager, traced = L.RandomRotation(0.2, seed=4), L.RandomRotation(0.2, seed=4)
    step = tf.function(lambda v: traced(v, training=True))
    x = tf.constant(ARRAYS["images"])
    for i in range(2):
        np.testing.assert_allclose(step(x).numpy(), ARRAYS[f"random_rotation/out{i}"],
                                   rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(eager(x).numpy(), ARRAYS[f"random_rotation/out{i}"],
                                   rtol=1e-5, atol=1e-4)


def test_adapted_normalization_saved_and_loaded(tmp_path):
    """The adapted mean and variance travel in the .keras file and are used after loading."""
    layer = L.Normalization()
    layer.adapt(ARRAYS["features"])
    model = tf.keras.Sequential([tf.keras.Input((4,)), layer])
    path = str(tmp_path / "norm.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(ARRAYS["features"]).numpy(),
                               ARRAYS["normalization_adapt/out0"], rtol=1e-5, atol=1e-4)
