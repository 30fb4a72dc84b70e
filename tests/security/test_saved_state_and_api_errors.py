"""A model's training state survives `save`/`load_model`, and four API mistakes raise Keras's /
TF's class and text while changing nothing.

The README's `Sequential` is given no `Input`: Keras 3 builds it on the first batch by
prepending an InputLayer, saves that layer and the build shape, and a reload is built (and its
optimizer's slots restored) from them. The fixture tests/security/fixtures/
keras_unbuilt_sequential.* was written by Keras 3.15.1 (tools/record_keras_unbuilt_sequential.py).
Every error class and text written here as a literal was measured with TF 2.21 / Keras 3.15.1.
"""

from __future__ import annotations

import json
import os
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapeflow as tf
from tapeflow import keras
from tapeflow.framework.errors import InvalidArgumentError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
KERAS_FILE = os.path.join(FIXTURES, "keras_unbuilt_sequential.keras")


def _fixture() -> dict:
    with np.load(os.path.join(FIXTURES, "keras_unbuilt_sequential.npz")) as record:
        return {name: record[name] for name in record.files}


def _readme_model() -> keras.Model:
    """The README's model (smaller), as tools/record_keras_unbuilt_sequential.py makes it."""
    model = keras.Sequential([keras.layers.Dense(6, activation="relu"), keras.layers.Dense(4)])
    model.compile(optimizer="adam", metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _fit_one_epoch(model: keras.Model, x: np.ndarray, y: np.ndarray) -> None:
    model.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)


def _state(model: keras.Model) -> list:
    """Copies of the weights, then of every optimizer variable (iterations first)."""
    return [np.array(v.numpy()) for v in list(model.weights) + list(model.optimizer.variables)]


def _assert_same_arrays(actual: list, expected: list) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(a, e)


def _load_quietly(path: str) -> keras.Model:
    """`load_model`, any warning (such as 'Skipping variable loading for optimizer') an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return keras.models.load_model(path)


@pytest.fixture
def saved_after_fit(tmp_path) -> tuple:
    """(the README model trained one epoch, the path it was saved to)."""
    keras.backend.clear_session()    # automatic names as in a fresh process, as Keras's file
    record = _fixture()
    model = _readme_model()
    _fit_one_epoch(model, record["x"], record["y"])
    path = str(tmp_path / "m.keras")
    model.save(path)
    return model, path


# -- the README model's state survives save / load -------------------------------------------

def test_readme_model_reloads_with_its_optimizer_state(saved_after_fit):
    model, path = saved_after_fit
    loaded = _load_quietly(path)
    assert int(loaded.optimizer.iterations.numpy()) == 4 == int(model.optimizer.iterations.numpy())
    assert len(loaded.optimizer.variables) == len(model.optimizer.variables) == 10
    _assert_same_arrays(_state(loaded), _state(model))


def test_fit_continues_after_the_reload_as_without_it(saved_after_fit):
    model, path = saved_after_fit
    loaded = _load_quietly(path)
    record = _fixture()
    _fit_one_epoch(model, record["x"], record["y"])
    _fit_one_epoch(loaded, record["x"], record["y"])
    _assert_same_arrays(_state(loaded), _state(model))


def test_config_has_keras_build_config_and_input_layer(saved_after_fit):
    _, path = saved_after_fit
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    with open(os.path.join(FIXTURES, "keras_unbuilt_sequential.json")) as f:
        written_by_keras = json.load(f)
    assert config["build_config"] == written_by_keras["build_config"] == {"input_shape": [16, 8]}
    assert config["config"]["build_input_shape"] == written_by_keras["build_input_shape"]
    assert config["config"]["layers"][0] == written_by_keras["first_layer"]
    assert [layer["class_name"] for layer in config["config"]["layers"]] == \
        ["InputLayer", "Dense", "Dense"]


def test_model_built_by_its_first_call_saves_its_input_layer():
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(2)])
    model(np.zeros((3, 5), np.float32))
    config = model.get_config()
    assert config["layers"][0]["config"]["batch_shape"] == [3, 5]
    assert config["build_input_shape"] == [3, 5]
    assert model.get_build_config() == {"input_shape": [3, 5]}
    assert [layer.name for layer in model.layers] == ["dense"]   # InputLayer not listed


def test_failed_first_build_leaves_no_input_shape_behind():
    # Keras 3.15.1 keeps the InputLayer of a failed first build, so every later call fails
    # ("has already been configured to use input shape (2, 5)"); tapeflow forgets it.
    model = keras.Sequential([keras.layers.Conv2D(2, 3)])
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=2"):
        model(np.zeros((2, 5), np.float32))
    assert not model.built and model.get_build_config() is None
    assert model(np.zeros((1, 5, 5, 1), np.float32)).shape == (1, 3, 3, 2)


def test_file_written_by_keras_loads_with_its_optimizer_state():
    record = _fixture()
    loaded = _load_quietly(KERAS_FILE)
    assert int(loaded.optimizer.iterations.numpy()) == int(record["iterations"]) == 4
    weights = [record[f"w{i}"] for i in range(4)]
    slots = [record[f"o{i}"] for i in range(10)]
    _assert_same_arrays(_state(loaded), weights + slots)
    _fit_one_epoch(loaded, record["x"], record["y"])
    for i, variable in enumerate(loaded.weights):   # Keras's float32 kernels round differently
        np.testing.assert_allclose(variable.numpy(), record[f"after{i}"], rtol=1e-5, atol=1e-6)


# -- apply_gradients with a gradient of the wrong shape --------------------------------------

# (optimizer, gradient shape for a (2, 3) variable, TF's InvalidArgumentError text)
_WRONG_SHAPES = [
    (lambda: keras.optimizers.Adam(), (3, 2),
     "Incompatible shapes: [3,2] vs. [2,3] [Op:Sub]"),
    (lambda: keras.optimizers.Adam(), (1, 2, 3),
     "Cannot update variable with shape [2,3] using a Tensor with shape [1,2,3], shapes must "
     "be equal. [Op:AssignAddVariableOp] name: "),
    (lambda: keras.optimizers.SGD(), (3,),
     "Cannot update variable with shape [2,3] using a Tensor with shape [3], shapes must be "
     "equal. [Op:AssignSubVariableOp] name: "),
    (lambda: keras.optimizers.SGD(momentum=0.9), (3, 2),
     "Incompatible shapes: [2,3] vs. [3,2] [Op:Sub] name: "),
    (lambda: keras.optimizers.SGD(weight_decay=0.1), (3, 2),
     "Cannot update variable with shape [2,3] using a Tensor with shape [3,2], shapes must be "
     "equal. [Op:AssignSubVariableOp] name: "),
    (lambda: keras.optimizers.RMSprop(), (3, 2),
     "Incompatible shapes: [2,3] vs. [3,2] [Op:AddV2] name: "),
    (lambda: keras.optimizers.Adagrad(), (2, 3, 1),
     "Cannot update variable with shape [2,3] using a Tensor with shape [2,3,1], shapes must "
     "be equal. [Op:AssignAddVariableOp] name: "),
    (lambda: keras.optimizers.Adadelta(), (3, 2),
     "Incompatible shapes: [2,3] vs. [3,2] [Op:AddV2] name: "),
    (lambda: keras.optimizers.Ftrl(), (3, 2),
     "Incompatible shapes: [3,2] vs. [2,3] [Op:AddV2] name: "),
    (lambda: keras.optimizers.Lion(), (3, 2),
     "Incompatible shapes: [2,3] vs. [3,2] [Op:AddV2] name: "),
    (lambda: keras.optimizers.Nadam(), (2, 3, 1),
     "Incompatible shapes: [2,3,1] vs. [2,3] [Op:Sub]"),
    (lambda: keras.optimizers.Adam(gradient_accumulation_steps=2), (3, 2),
     "Incompatible shapes: [2,3] vs. [3,2] [Op:AddV2] name: "),
    (lambda: keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam()), (3, 2),
     "Incompatible shapes: [3,2] vs. [2,3] [Op:Sub]"),
]


def _optimizer_state(optimizer, variables: list) -> list:
    return [np.array(v.numpy()) for v in list(variables) + list(optimizer.variables)]


@pytest.mark.parametrize("make, shape, text", _WRONG_SHAPES)
def test_gradient_of_wrong_shape_is_refused_before_anything_changes(make, shape, text):
    optimizer = make()
    good = tf.Variable(np.ones((4,), np.float32))
    target = tf.Variable(np.ones((2, 3), np.float32))
    optimizer.apply_gradients([(tf.ones((4,)), good), (tf.ones((2, 3)), target)])
    before = _optimizer_state(optimizer, [good, target])
    # The first pair is fine: Keras updates `good` before the second pair's op fails.
    with pytest.raises(InvalidArgumentError) as raised:
        optimizer.apply_gradients([(tf.ones((4,)), good), (tf.ones(shape), target)])
    assert str(raised.value) == text
    _assert_same_arrays(_optimizer_state(optimizer, [good, target]), before)


def test_wrong_shape_on_the_first_call_builds_no_slots():
    optimizer = keras.optimizers.Adam()
    variable = tf.Variable(np.ones((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[3,2\] vs. \[2,3\]"):
        optimizer.apply_gradients([(tf.ones((3, 2)), variable)])
    assert not optimizer.built and len(optimizer.variables) == 2
    assert int(optimizer.iterations.numpy()) == 0
    np.testing.assert_array_equal(variable.numpy(), np.ones((2, 3)))


def test_gradient_broadcasting_to_its_variable_is_applied_as_tf_does():
    # TF 2.21 / Keras 3.15.1's Adam applies a (3,) gradient to a (2, 3) variable row by row.
    broadcast, full = (tf.Variable(np.ones((2, 3), np.float32)) for _ in range(2))
    keras.optimizers.Adam().apply_gradients([(tf.ones((3,)), broadcast)])
    keras.optimizers.Adam().apply_gradients([(tf.ones((2, 3)), full)])
    np.testing.assert_array_equal(broadcast.numpy(), full.numpy())


_SHAPES = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=300, deadline=None)
@given(grad_shape=_SHAPES, var_shape=_SHAPES, plain_sgd=st.booleans())
def test_any_gradient_shape_is_applied_as_tf_does_or_refused_unchanged(grad_shape, var_shape,
                                                                       plain_sgd):
    # TF 2.21 / Keras 3.15.1: Adam applies a gradient that broadcasts to its variable's shape;
    # plain SGD's assign_sub wants the shape itself.
    optimizer = keras.optimizers.SGD() if plain_sgd else keras.optimizers.Adam()
    variable = tf.Variable(np.ones(var_shape, np.float32))
    try:
        fits = np.broadcast_shapes(grad_shape, var_shape) == var_shape
    except ValueError:
        fits = False
    if plain_sgd:
        fits = grad_shape == var_shape
    if fits:
        optimizer.apply_gradients([(tf.ones(grad_shape), variable)])
        assert int(optimizer.iterations.numpy()) == 1 and variable.shape == var_shape
        return
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes|Cannot update variable"):
        optimizer.apply_gradients([(tf.ones(grad_shape), variable)])
    assert int(optimizer.iterations.numpy()) == 0 and not optimizer.built
    np.testing.assert_array_equal(variable.numpy(), np.ones(var_shape))


# -- predict (fit, evaluate) on string input --------------------------------------------------

@pytest.mark.parametrize("x, text", [
    (np.array([["a", "b"]]), "Invalid dtype: str32"),
    (np.array([["hello", "b"]]), "Invalid dtype: str160"),
    (np.array([[b"a", b"b"]]), "Invalid dtype: bytes8"),
    (np.array([["a", "b"]], dtype=object), "Invalid dtype: object"),
    (np.array([["1", "2"]]), "Invalid dtype: str32"),
])
def test_predict_on_strings_raises_keras_value_error_and_builds_nothing(x, text):
    model = keras.Sequential([keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss="mse")
    with pytest.raises(ValueError) as raised:
        model.predict(x, verbose=0)
    assert str(raised.value) == text
    assert not model.built and model.weights == []


def test_fit_and_evaluate_on_strings_change_nothing():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss="mse")
    before = _state(model)
    strings, targets = np.array([["a", "b"]] * 4), np.zeros((4, 3), np.float32)
    for run in (lambda: model.fit(strings, targets, verbose=0),
                lambda: model.fit(np.zeros((4, 2)), targets, sample_weight=np.array(["a"] * 4),
                                  verbose=0),
                lambda: model.evaluate(strings, targets, verbose=0),
                lambda: model.predict(strings, verbose=0)):
        with pytest.raises(ValueError, match="^Invalid dtype: str32$"):
            run()
    assert not model.optimizer.built
    _assert_same_arrays(_state(model), before)


# -- compile(loss="msee"): Keras raises at the first fit / evaluate ----------------------------

class _Recorder(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list = []

    def on_train_begin(self, logs=None) -> None:
        self.calls.append("on_train_begin")

    def on_test_begin(self, logs=None) -> None:
        self.calls.append("on_test_begin")


@pytest.mark.parametrize("loss", ["msee", ["msee"], 5])
def test_unknown_loss_raises_at_fit_and_evaluate_not_at_compile(loss):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss=loss)      # Keras 3.15.1 accepts it here
    before = _state(model)
    x, y = np.ones((4, 2), np.float32), np.ones((4, 3), np.float32)
    text = f"Could not interpret loss identifier: {'msee' if loss != 5 else 5}"
    recorder = _Recorder()
    for run in (lambda: model.fit(x, y, verbose=0, callbacks=[recorder]),
                lambda: model.evaluate(x, y, verbose=0, callbacks=[recorder]),
                lambda: model.train_on_batch(x, y), lambda: model.test_on_batch(x, y),
                lambda: model.compute_loss(x, y, model(x))):
        with pytest.raises(ValueError) as raised:
            run()
        assert str(raised.value) == text
    assert recorder.calls == []      # no callback ran (Keras runs on_train_begin first)
    assert not model.optimizer.built and int(model.optimizer.iterations.numpy()) == 0
    _assert_same_arrays(_state(model), before)
    assert model.predict(x, verbose=0).shape == (4, 3)   # predict needs no loss


def test_recompiling_with_a_known_loss_trains():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss="msee")
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 2)), np.ones((4, 3)), verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 1
