"""tf.saved_model: TensorFlow's names; save and load refuse clearly and touch no file (TF
2.21's constants and load error text)."""

import os

import pytest

import tapeflow as tf


def test_constants_are_tensorflows():
    sm = tf.saved_model
    assert (sm.SERVING, sm.TRAINING, sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY) == (
        "serve", "train", "serving_default")
    assert (sm.SAVED_MODEL_FILENAME_PB, sm.VARIABLES_DIRECTORY, sm.ASSETS_DIRECTORY) == (
        "saved_model.pb", "variables", "assets")
    assert sm.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert sm.SAVED_MODEL_SCHEMA_VERSION == 1


def test_save_refuses_and_writes_nothing(tmp_path):
    module = tf.Module()
    module.v = tf.Variable(1.0)
    target = tmp_path / "export"
    with pytest.raises(tf.errors.UnimplementedError, match="SavedModel format"):
        tf.saved_model.save(module, str(target))
    assert not target.exists()


def test_load_of_a_missing_directory_is_tensorflows_oserror(tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(str(tmp_path / "none"))
    assert not tf.saved_model.contains_saved_model(str(tmp_path))


def test_load_of_a_tensorflow_saved_model_refuses(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"")
    assert tf.saved_model.contains_saved_model(tmp_path)
    with pytest.raises(tf.errors.UnimplementedError, match="GraphDefs"):
        tf.saved_model.load(os.fspath(tmp_path))
