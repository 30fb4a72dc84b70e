"""Files written by real Keras 3.15 (tests/keras/fixtures/, made by tools/record_keras_files.py)
load in tapeflow with Keras's predictions, and files tapeflow writes have Keras's HDF5 layout.
The reverse direction (Keras reads tapeflow's files) is tools/check_keras_reads_tapeflow.py."""

import io
import json
import os
import zipfile

import h5py
import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
NAMES = ("sequential", "functional", "subclassed")


@keras.saving.register_keras_serializable(package="tapeflow_fixtures")
class Scale(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@keras.saving.register_keras_serializable(package="tapeflow_fixtures")
class TwoLayer(keras.Model):
    def __init__(self, units=5, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = keras.layers.Dense(units, activation="relu", name="hidden")
        self.scale = Scale(0.5, name="scale")
        self.out = keras.layers.Dense(2, name="out")

    def call(self, x):
        return self.out(self.scale(self.hidden(x)))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def models():
    """The fixture script's models, built with tapeflow (fresh automatic names)."""
    keras.backend.clear_session()
    seq = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"),
                            keras.layers.BatchNormalization(), keras.layers.Dropout(0.0),
                            keras.layers.Dense(3, activation="softmax")], name="seq")
    inputs = keras.Input((4,), name="x")
    a = keras.layers.Dense(5, activation="relu", name="a")(inputs)
    b = keras.layers.Dense(5, name="b")(inputs)
    c = keras.layers.Concatenate(name="cat")([a, b])
    d = keras.layers.LayerNormalization(name="norm")(c)
    func = keras.Model(inputs, keras.layers.Dense(2, name="y")(d), name="func")
    sub = TwoLayer(name="sub")
    sub(np.zeros((1, 4), "float32"))
    return {"sequential": (seq, "sparse_categorical_crossentropy"),
            "functional": (func, "mse"), "subclassed": (sub, "mse")}


def _io(name):
    return dict(np.load(os.path.join(FIXTURES, f"{name}_io.npz")))


def _layout(source):
    """Group/dataset names, shapes, dtypes and attributes, as the fixture script lists them."""
    entries = {}

    def attrs(obj):
        return {k: (v.decode() if isinstance(v, bytes) else np.asarray(v).tolist())
                for k, v in obj.attrs.items()}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            entries[name] = {"kind": "dataset", "shape": list(obj.shape),
                             "dtype": str(obj.dtype), "attrs": attrs(obj)}
        else:
            entries[name] = {"kind": "group", "attrs": attrs(obj)}
    with h5py.File(source, "r") as f:
        entries["/"] = {"kind": "group", "attrs": attrs(f)}
        f.visititems(visit)
    return entries


def _without_optimizer_name(layout):
    # the optimizer's automatic name ('adam_1') depends on how many were made before
    return {k: v for k, v in layout.items() if k != "optimizer/vars"}


@pytest.mark.parametrize("name", NAMES)
def test_keras_file_loads_with_keras_predictions(name):
    data = _io(name)
    model = keras.models.load_model(os.path.join(FIXTURES, f"{name}.keras"))
    np.testing.assert_allclose(model.predict(data["x"], verbose=0), data["pred"], atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_keras_file_restores_optimizer_so_training_continues_as_in_keras(name):
    data = _io(name)
    model = keras.models.load_model(os.path.join(FIXTURES, f"{name}.keras"))
    assert int(model.optimizer.iterations.numpy()) == 2  # Keras trained two steps
    model.train_on_batch(data["x"], data["y"])
    np.testing.assert_allclose(model.predict(data["x"], verbose=0), data["pred_after"],
                               atol=1e-5)


@pytest.mark.parametrize("name", ["sequential", "functional"])
def test_keras_weights_file_loads_into_tapeflow_model(name):
    data = _io(name)
    model, loss = models()[name]
    model.load_weights(os.path.join(FIXTURES, f"{name}.weights.h5"))
    np.testing.assert_allclose(model.predict(data["x"], verbose=0), data["pred"], atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_tapeflow_files_have_keras_layout(name, tmp_path):
    expected = json.load(open(os.path.join(FIXTURES, "keras_layout.json")))["files"]
    model, loss = models()[name]
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    data = _io(name)
    model.train_on_batch(data["x"], data["y"])
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        layout = _layout(io.BytesIO(z.read("model.weights.h5")))
    assert _without_optimizer_name(layout) == \
        _without_optimizer_name(expected[f"{name}.keras"])
    if f"{name}.weights.h5" in expected:
        model.save_weights(tmp_path / "w.weights.h5")
        assert _without_optimizer_name(_layout(tmp_path / "w.weights.h5")) == \
            _without_optimizer_name(expected[f"{name}.weights.h5"])


def test_tapeflow_config_matches_keras_config_for_sequential():
    with zipfile.ZipFile(os.path.join(FIXTURES, "sequential.keras")) as z:
        expected = json.loads(z.read("config.json"))
    model, _ = models()["sequential"]
    config = json.loads(json.dumps(keras.saving.serialize_keras_object(model)))
    assert config["class_name"] == expected["class_name"] == "Sequential"
    assert [c["class_name"] for c in config["config"]["layers"]] == \
        [c["class_name"] for c in expected["config"]["layers"]]
    assert config["config"]["layers"][0] == expected["config"]["layers"][0]  # InputLayer
    dense, keras_dense = config["config"]["layers"][1], expected["config"]["layers"][1]
    assert dense["build_config"] == keras_dense["build_config"] == {"input_shape": [None, 4]}
    assert dense["config"]["dtype"] == {k: v for k, v in keras_dense["config"]["dtype"].items()
                                        if k != "shared_object_id"}
