"""`keras.tree`, `keras.random`, `keras.backend`, `keras.config` and `keras.dtype_policies`
against Keras 3.15.1 (TF 2.21): the steps of tools/record_keras_small_namespaces.py run on
tapeflow.keras give the answers recorded from Keras (fixtures/small_namespaces.json), and each
namespace has Keras's names."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

from tapeflow import keras

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import record_keras_small_namespaces as recorder  # noqa: E402

with open(os.path.join(HERE, "fixtures", "small_namespaces.json")) as _f:
    EXPECTED = json.load(_f)
with open(os.path.join(HERE, "fixtures", "keras_api.json")) as _f:
    KERAS_API = json.load(_f)["namespaces"]


@pytest.fixture(scope="module")
def answers() -> dict:
    """The recorder's steps run once on tapeflow.keras (global settings restored after)."""
    from tapeflow.keras import backend
    saved = backend.floatx(), backend.epsilon(), backend.image_data_format()
    try:
        got = recorder.run_steps(keras)
    finally:
        backend.set_floatx(saved[0])
        backend.set_epsilon(saved[1])
        backend.set_image_data_format(saved[2])
    return json.loads(json.dumps(got))   # tuples as JSON writes them


@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_answers_match_keras(answers: dict, step: str) -> None:
    assert answers[step] == EXPECTED[step]


def test_every_step_is_recorded() -> None:
    assert sorted(EXPECTED) == sorted(s for s, _ in recorder.STEPS if s != "run")


QUANTIZED_POLICIES = {"AWQDTypePolicy", "GPTQDTypePolicy", "Int4DTypePolicy",
                      "QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy"}


@pytest.mark.parametrize("namespace", ["tree", "random", "backend", "config", "dtype_policies"])
def test_keras_names_are_there_with_keras_parameters(namespace: str) -> None:
    import inspect
    module = getattr(keras, namespace)
    for name, recorded in KERAS_API[namespace].items():
        if name in QUANTIZED_POLICIES:   # not built: listed in test_keras_api_names.NOT_BUILT
            assert not hasattr(module, name)
            continue
        obj = getattr(module, name)
        if recorded["params"] is not None and recorded["kind"] == "function":
            assert list(inspect.signature(obj).parameters) == recorded["params"], name


def test_dtype_policies_share_mixed_precisions_class() -> None:
    """One policy class: keras.dtype_policies.DTypePolicy is keras.mixed_precision's."""
    assert keras.dtype_policies.DTypePolicy is keras.mixed_precision.DTypePolicy
    assert keras.dtype_policies.FloatDTypePolicy is keras.mixed_precision.FloatDTypePolicy


@pytest.mark.parametrize("make", [
    lambda d: d.get("int8_from_float32"),
    lambda d: d.get({"class_name": "QuantizedDTypePolicy",
                     "config": {"mode": "int8", "source_name": "float32"}}),
])
def test_quantized_policies_refuse(make) -> None:
    """tapeflow has no quantized kernels: a quantized policy is refused, never ignored."""
    with pytest.raises(NotImplementedError, match="no quantized layer kernels"):
        make(keras.dtype_policies)


def test_a_policy_map_does_not_change_the_policies_it_serializes() -> None:
    policy = keras.dtype_policies.DTypePolicy("float16")
    policy_map = keras.dtype_policies.DTypePolicyMap(None, {"dense": policy})
    config = policy_map.get_config()
    assert config["policy_map"]["dense"]["config"] == {"name": None}   # as Keras writes it
    assert policy.name == "float16"   # Keras clears the name in place; tapeflow does not


def test_set_backend_takes_only_tensorflow() -> None:
    keras.config.set_backend("tensorflow")
    for name in ("jax", "torch", "numpy"):
        with pytest.raises(ValueError, match="TensorFlow backend only"):
            keras.config.set_backend(name)
    assert keras.config.backend() == "tensorflow"


def test_random_seed_generator_moves_once_per_draw() -> None:
    g = keras.random.SeedGenerator(7)
    first = keras.random.randint((3,), 0, 100, seed=g).numpy()
    second = keras.random.randint((3,), 0, 100, seed=g).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(g.state.numpy(), [7, 2])


def test_a_refused_draw_leaves_the_generator_alone() -> None:
    g = keras.random.SeedGenerator(7)
    with pytest.raises(ValueError):
        keras.random.randint((3,), 0, 5, dtype="float32", seed=g)
    with pytest.raises(ValueError):
        keras.random.categorical([0.0, 1.0], 2, seed=g)
    np.testing.assert_array_equal(g.state.numpy(), [7, 0])


def test_tree_flattens_deep_structures_without_recursion() -> None:
    deep: list = [1]
    for _ in range(5000):
        deep = [deep]
    assert keras.tree.flatten(deep) == [1]


def test_fit_honours_max_epochs_and_steps() -> None:
    """keras.config's caps limit fit's epochs and steps per epoch, with Keras's warnings."""
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    steps = []
    counter = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: steps.append(b))
    keras.config.set_max_epochs(2)
    keras.config.set_max_steps_per_epoch(3)
    try:
        with pytest.warns(UserWarning, match="Limiting epochs to 2"):
            history = model.fit(np.ones((40, 2)), np.ones((40, 1)), batch_size=4, epochs=5,
                                verbose=0, callbacks=[counter])
    finally:
        keras.config.set_max_epochs(None)
        keras.config.set_max_steps_per_epoch(None)
    assert len(history.history["loss"]) == 2
    assert steps == [0, 1, 2, 0, 1, 2]
