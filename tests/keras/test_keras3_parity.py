"""Keras 3 behaviours checked against Keras 3.15 (TF backend); the hard-coded numbers are
Keras's answers, recorded from runs of the same programs in Keras."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def _sigmoid_model():
    m = keras.Sequential([keras.Input((2,)),
                          keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")])
    m.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    return m


X2 = np.array([[1., 1.], [2., 2.]], "float32")
ONES, ZEROS = np.ones((2, 1), "float32"), np.zeros((2, 1), "float32")


def test_train_on_batch_reports_its_own_batch():
    # Keras 3 resets the metrics at each train_on_batch/test_on_batch call.
    m = _sigmoid_model()
    np.testing.assert_allclose(m.train_on_batch(X2, ONES), [0.07253896445035934, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.train_on_batch(X2, ZEROS), [3.075385570526123, 0.0], rtol=1e-6)
    logs = m.train_on_batch(X2, ONES, return_dict=True)
    assert list(logs) == ["accuracy", "loss"]
    np.testing.assert_allclose(logs["loss"], 0.07526902109384537, rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ONES), [0.07508876919746399, 1.0], rtol=1e-6)
    np.testing.assert_allclose(m.test_on_batch(X2, ZEROS), [3.029237985610962, 0.0], rtol=1e-6)
    assert m.test_on_batch(X2, ZEROS, return_dict=True)["accuracy"] == 0.0
    p = m.predict_on_batch(X2)
    assert isinstance(p, np.ndarray) and p.dtype == np.float32 and p.shape == (2, 1)


def test_train_on_batch_class_and_sample_weight_message():
    m = _sigmoid_model()
    with pytest.raises(ValueError, match="Arguments `sample_weight` and `class_weight` cannot"):
        m.train_on_batch(X2, ONES, sample_weight=np.ones(2), class_weight={0: 1.0})
