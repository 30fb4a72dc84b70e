"""tf.keras.config: Keras 3.15's global settings as tapeflow honours them (the fuzz factor
and the image data format against Keras's recorded answers: test_keras_behaviour.py)."""

import pytest

import tapeflow as tf


def test_defaults_are_kerass():
    config = tf.keras.config
    assert (config.backend(), config.epsilon(), config.image_data_format()) == (
        "tensorflow", 1e-7, "channels_last")


def test_floatx_sets_the_dtype_of_new_weights():
    try:
        tf.keras.config.set_floatx("float64")
        assert tf.keras.config.floatx() == "float64"
        assert tf.keras.layers.Dense(2)(tf.ones((1, 2), tf.float64)).dtype == tf.float64
        with pytest.raises(ValueError, match="Unknown `floatx` value: foo"):
            tf.keras.config.set_floatx("foo")
        assert tf.keras.config.floatx() == "float64"   # unchanged by the refused call
    finally:
        tf.keras.config.set_floatx("float32")


def test_dtype_policy_is_the_mixed_precision_global_policy():
    try:
        tf.keras.config.set_dtype_policy("mixed_float16")
        assert repr(tf.keras.config.dtype_policy()) == '<DTypePolicy "mixed_float16">'
        assert tf.keras.mixed_precision.global_policy().name == "mixed_float16"
    finally:
        tf.keras.config.set_dtype_policy("float32")


def test_interactive_logging_switch():
    assert tf.keras.config.is_interactive_logging_enabled()
    try:
        tf.keras.config.disable_interactive_logging()
        assert not tf.keras.config.is_interactive_logging_enabled()
    finally:
        tf.keras.config.enable_interactive_logging()


def test_summary_goes_to_the_log_while_interactive_logging_is_off(capsys, caplog):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    try:
        tf.keras.config.disable_interactive_logging()
        with caplog.at_level("INFO", logger="absl"):
            model.summary()
    finally:
        tf.keras.config.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    assert "Total params: 8" in caplog.text
    model.summary()
    assert "Total params: 8" in capsys.readouterr().out
