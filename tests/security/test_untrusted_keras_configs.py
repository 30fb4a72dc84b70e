"""Keras configs from files someone else wrote (`.keras` archives, `to_json` strings, config
dicts): with the default `safe_mode=True` a config resolves only what Keras 3.15 resolves and
reads no file it names. Each refusal below is Keras 3.15.1's class and text, measured with it."""

from __future__ import annotations

import builtins
import json
import os
import pickle
import shutil
import subprocess
import sys
import zipfile

import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.saving import _code, serialization  # noqa: F401 - imported before `exec` is replaced

# Functions a hostile config names: each is replaced by a recorder while the config loads, so a
# resolution that slipped through would be seen without running the real thing.
_DANGEROUS = [(sys, "exit"), (builtins, "input"), (builtins, "print"), (os, "system"),
              (subprocess, "Popen"), (builtins, "exec"), (builtins, "eval"), (pickle, "loads"),
              (shutil, "rmtree")]


@pytest.fixture
def called(monkeypatch, tmp_path_factory):
    """The names of the dangerous functions that were called (they are recorders here). A
    benign model is saved and loaded first, so that every module a load imports is imported
    before `exec` (which imports run) is replaced."""
    keras.models.load_model(_model_file(tmp_path_factory.mktemp("warm"), lambda config: None))
    keras.layers.StringLookup(vocabulary=["a"])
    calls = []
    for module, name in _DANGEROUS:
        monkeypatch.setattr(module, name, lambda *a, _n=name, **k: calls.append(_n))
    return calls


def _function(module, name):
    return {"module": module, "class_name": "function", "config": name, "registered_name": None}


def _dense_config(activation) -> dict:
    layer = keras.layers.Dense(2, name="dense")
    config = serialization.serialize_keras_object(layer)
    config["config"]["activation"] = activation
    return config


def _model_file(tmp_path, edit) -> str:
    """A `.keras` file of a small compiled model whose config.json `edit(config)` rewrote."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_variables)  # saved with its slots, as after fit
    path = str(tmp_path / "model.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    config = json.loads(members["config.json"])
    edit(config)
    members["config.json"] = json.dumps(config).encode()
    hostile = str(tmp_path / "hostile.keras")
    with zipfile.ZipFile(hostile, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return hostile


def _layer_configs(config: dict) -> list:
    return [layer for layer in config["config"]["layers"] if layer["class_name"] == "Dense"]


@pytest.mark.parametrize("module, name", [(m.__name__, n) for m, n in _DANGEROUS])
def test_a_model_file_cannot_name_a_function_of_another_module(tmp_path, called, module, name):
    def edit(config):
        _layer_configs(config)[0]["config"]["activation"] = _function(module, name)
    path = _model_file(tmp_path, edit)
    with pytest.raises(TypeError, match=f"Could not locate function '{name}'. Make sure custom "
                                        "classes and functions are decorated"):
        keras.models.load_model(path)
    assert called == []


@pytest.mark.parametrize("loader", ["deserialize_keras_object", "model_from_json",
                                    "activations.get", "layers.deserialize"])
def test_every_config_entry_point_refuses_other_modules(called, loader):
    hostile = _function("os", "system")
    if loader == "activations.get":
        load = lambda: keras.activations.get(hostile)  # noqa: E731
    elif loader == "model_from_json":
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        config = json.loads(model.to_json())
        _layer_configs(config)[0]["config"]["activation"] = hostile
        load = lambda: keras.models.model_from_json(json.dumps(config))  # noqa: E731
    elif loader == "layers.deserialize":
        load = lambda: keras.layers.deserialize(_dense_config(hostile))  # noqa: E731
    else:
        load = lambda: keras.saving.deserialize_keras_object(hostile)  # noqa: E731
    with pytest.raises(TypeError, match="Could not locate function 'system'"):
        load()
    assert called == []


@pytest.mark.parametrize("module", [5, ["os"], {"a": 1}])
def test_a_module_that_is_not_a_name_is_refused(module):
    with pytest.raises(TypeError, match="Could not locate function 'system'"):
        keras.saving.deserialize_keras_object(
            {"module": module, "class_name": "function", "config": "system"})


def test_a_class_from_an_imported_module_is_not_resolved():
    # subprocess is imported; Keras resolves classes only from its own namespaces
    config = {"module": "subprocess", "class_name": "Popen", "config": {"args": ["true"]},
              "registered_name": None}
    with pytest.raises(TypeError, match="Could not locate class 'Popen'"):
        keras.saving.deserialize_keras_object(config)


@pytest.mark.parametrize("api", ["keras.models.load_model", "keras.utils.get_file",
                                 "keras.saving.load_weights",
                                 "keras.config.enable_unsafe_deserialization"])
def test_keras_non_modeling_functions_are_refused(api):
    module, name = api.rsplit(".", 1)
    with pytest.raises(ValueError, match=f"Cannot deserialize `{api}` because it is not a "
                                         "modeling function. Non-modeling APIs are disallowed"):
        keras.saving.deserialize_keras_object(_function(module, name))
    assert serialization.in_safe_mode()


def test_keras_private_modules_give_only_saveable_classes():
    dense = {"module": "keras.src.layers.core.dense", "class_name": "Dense",
             "config": {"units": 2}, "registered_name": None}
    assert isinstance(keras.saving.deserialize_keras_object(dense), keras.layers.Dense)
    with pytest.raises(ValueError, match="Could not deserialize 'keras.src.saving.saving_api."
                                         "load_model' because it is not a KerasSaveable"):
        keras.saving.deserialize_keras_object(
            _function("keras.src.saving.saving_api", "load_model"))


def test_builtin_functions_resolve_from_keras_namespaces_only():
    # How Keras <= 3.6 wrote built-in functions: module 'builtins', searched in Keras's own
    assert keras.saving.deserialize_keras_object(_function("builtins", "relu")) is \
        keras.activations.relu
    assert keras.saving.deserialize_keras_object(_function("builtins", "mean_squared_error")) \
        is keras.losses.mean_squared_error


def test_registered_and_custom_objects_still_resolve():
    def my_activation(x):
        return x * 2.0
    config = _dense_config(_function("mymodule", "my_activation"))
    layer = keras.saving.deserialize_keras_object(
        config, custom_objects={"my_activation": my_activation})
    assert layer.activation is my_activation


def test_a_builtin_claiming_a_registered_name_is_refused():
    config = {"module": "keras.layers", "class_name": "Dense", "config": {"units": 2},
              "registered_name": "Evil>Dense"}
    with pytest.raises(ValueError, match="`registered_name='Evil>Dense'` was provided in the "
                                         "config, but 'keras.layers.Dense' resolved to a Keras "
                                         "built-in"):
        keras.saving.deserialize_keras_object(config)


@pytest.mark.parametrize("cls", ["StringLookup", "IntegerLookup", "TextVectorization"])
def test_a_vocabulary_path_in_a_config_is_not_read(tmp_path, monkeypatch, cls):
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n1234\n")
    config = {"module": "keras.layers", "class_name": cls,
              "config": {"vocabulary": str(secret)}, "registered_name": None}
    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: opened.append(os.fspath(f)) or
                        real_open(f, *a, **k))
    with pytest.raises((TypeError, ValueError),
                       match="Requested the loading of a vocabulary file outside of the model "
                             "archive. This carries a potential risk"):
        keras.saving.deserialize_keras_object(config)
    assert str(secret) not in opened


def test_a_vocabulary_path_loads_when_the_user_trusts_the_file(tmp_path, monkeypatch):
    vocabulary = tmp_path / "vocabulary.txt"
    vocabulary.write_text("a\nb\n")
    config = {"module": "keras.layers", "class_name": "StringLookup",
              "config": {"vocabulary": str(vocabulary)}, "registered_name": None}
    layer = keras.saving.deserialize_keras_object(config, safe_mode=False)
    assert [str(t) for t in layer.get_vocabulary()] == ["[UNK]", "a", "b"]
    # the program's own argument is not a file's request
    assert keras.layers.StringLookup(vocabulary=str(vocabulary)).vocabulary_size() == 3
    monkeypatch.setattr(serialization, "_UNSAFE_DESERIALIZATION", [False])
    keras.config.enable_unsafe_deserialization()
    assert keras.saving.deserialize_keras_object(config).vocabulary_size() == 3


def test_a_lambda_in_a_model_file_is_refused(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda x: x * 2)])
    path = str(tmp_path / "lambda.keras")
    model.save(path)
    with pytest.raises(ValueError, match="Requested the deserialization of a `Lambda` layer "
                                         "whose `function` is a Python lambda"):
        keras.models.load_model(path)


@pytest.mark.parametrize("field, value, inner", [
    ("dtype", "../../etc/passwd", "Cannot convert '../../etc/passwd' to a mixed precision "
                                  "DTypePolicy."),
    ("name", 5, "Argument `name` must be a string and cannot contain character `/`. Received: "
                "name=5 (of type <class 'int'>)"),
    ("name", "a/b", "Argument `name` must be a string and cannot contain character `/`."),
    ("units", 1e308, "Received an invalid value for `units`, expected a positive integer. "
                     "Received: units=1e+308"),
])
def test_config_values_keras_rejects_are_rejected(field, value, inner):
    config = {"module": "keras.layers", "class_name": "Dense",
              "config": {"units": 2, field: value}, "registered_name": None}
    with pytest.raises(TypeError) as info:
        keras.saving.deserialize_keras_object(config)
    text = str(info.value)
    assert "could not be deserialized properly" in text
    assert "Error when deserializing class 'Dense'" in text and inner in text


@pytest.mark.parametrize("batch_shape, inner", [
    ([None, 1e308], "Cannot convert '[None, 1e+308]' to a shape. Found invalid dimension "
                    "'1e+308' of type '<class 'float'>'."),
    ([None, "3"], "Found invalid dimension '3' of type '<class 'str'>'."),
    ([None, -2], "Negative dimensions are not allowed."),
])
def test_input_shapes_keras_rejects_are_rejected(batch_shape, inner):
    config = {"module": "keras.layers", "class_name": "InputLayer",
              "config": {"batch_shape": batch_shape}, "registered_name": None}
    with pytest.raises(TypeError, match="Error when deserializing class 'InputLayer'") as info:
        keras.saving.deserialize_keras_object(config)
    assert inner in str(info.value)


def test_a_refused_file_leaves_nothing_loaded(tmp_path, called):
    def edit(config):
        _layer_configs(config)[0]["config"]["activation"] = _function("os", "system")
    path = _model_file(tmp_path, edit)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(TypeError):
        keras.models.load_model(path)
    assert sorted(os.listdir(tmp_path)) == before
    model = keras.models.load_model(_model_file(tmp_path, lambda config: None))
    assert model(tf.ones((1, 3))).shape == (1, 2)


def test_a_config_declaring_more_than_the_bound_is_not_inflated(tmp_path, monkeypatch):
    from tapeflow.keras.saving import archive
    path = _model_file(tmp_path, lambda config: config.update(padding=" " * 5000))
    monkeypatch.setattr(archive, "_MAX_CONFIG", 4096)
    with pytest.raises(ValueError, match="Refusing to read 'config.json': it declares [0-9]+ "
                                         "bytes, more than the 4096"):
        keras.models.load_model(path)


@pytest.mark.parametrize("dtype", ["V2000000000", "U500000000", "not-a-dtype"])
def test_a_config_array_cannot_declare_a_wide_dtype(dtype):
    # four JSON zeros with a 2 GB item type would allocate 8 GB
    config = {"class_name": "__numpy__", "config": {"value": [0, 0, 0, 0], "dtype": dtype}}
    with pytest.raises(ValueError, match=f"Invalid dtype: {dtype}"):
        keras.saving.deserialize_keras_object(config)


def test_config_arrays_of_tensor_dtypes_still_load():
    for value, dtype in (([1.5, 2.0], "float32"), ([[1, 2]], "int64"), ([True], "bool")):
        array = keras.saving.deserialize_keras_object(
            {"class_name": "__numpy__", "config": {"value": value, "dtype": dtype}})
        assert array.dtype == dtype and array.tolist() == value
