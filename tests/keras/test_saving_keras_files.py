"""Files written by real Keras 3.15 (tests/keras/fixtures/, made by tools/record_keras_files.py)
load in tapeflow with Keras's predictions, and files tapeflow writes have Keras's HDF5 layout.
The reverse direction (Keras reads tapeflow's files) is tools/check_keras_reads_tapeflow.py."""

import io
import json
import os
import sys
import zipfile

import numpy as np
import pytest

import tapeflow as tf

# The fixture models are the recording script's own code, run here with tapeflow.keras.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from keras_fixture_models import define, hdf5_layout  # noqa: E402

keras = tf.keras
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
NAMES = ("sequential", "functional", "subclassed")


_fixture_models = define(keras)


def models():
    """The fixture script's models, built with tapeflow (fresh automatic names)."""
    keras.backend.clear_session()
    return {name: (model, loss) for name, (model, loss, _) in _fixture_models().items()}


def _io(name):
    return dict(np.load(os.path.join(FIXTURES, f"{name}_io.npz")))


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
def test_tapeflow_files_have_kerashdf5_layout(name, tmp_path):
    expected = json.load(open(os.path.join(FIXTURES, "keras_layout.json")))["files"]
    model, loss = models()[name]
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    data = _io(name)
    model.train_on_batch(data["x"], data["y"])
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        layout = hdf5_layout(io.BytesIO(z.read("model.weights.h5")))
    assert _without_optimizer_name(layout) == \
        _without_optimizer_name(expected[f"{name}.keras"])
    if f"{name}.weights.h5" in expected:
        model.save_weights(tmp_path / "w.weights.h5")
        assert _without_optimizer_name(hdf5_layout(tmp_path / "w.weights.h5")) == \
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
