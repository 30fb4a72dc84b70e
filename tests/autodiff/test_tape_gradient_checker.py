"""tf.test.compute_gradient: TensorFlow's Jacobian layout, dtypes and argument checks."""

import numpy as np
import pytest

import tapeflow as tf


def test_scalar_float32_as_tensorflow():
    theoretical, numerical = tf.test.compute_gradient(lambda x: x * x, [1.0])
    assert isinstance(theoretical, tuple) and len(theoretical) == 1
    assert theoretical[0].dtype == np.float32 and theoretical[0].tolist() == [[2.0]]
    assert numerical[0].tolist() == [[2.0]]


def test_matmul_jacobians_layout():
    a, b = np.ones((2, 3)), np.arange(6.0).reshape(3, 2)
    (ja, jb), (na, nb) = tf.test.compute_gradient(lambda x, y: tf.matmul(x, y), [a, b])
    assert ja.shape == (4, 6) and jb.shape == (4, 6)  # [y_size, x_size]
    np.testing.assert_array_equal(ja[0], [0.0, 2.0, 4.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(jb[1], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(ja, na, atol=1e-9)
    np.testing.assert_allclose(jb, nb, atol=1e-9)


def test_transposed_input_is_perturbed_correctly():
    x = np.arange(1.0, 7.0).reshape(3, 2).T  # not C-contiguous
    theoretical, numerical = tf.test.compute_gradient(lambda t: t * t, [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)


def test_wrong_gradient_is_detected():
    @tf.custom_gradient
    def wrong(x):
        return tf.sin(x), lambda dy: dy * tf.sin(x)

    theoretical, numerical = tf.test.compute_gradient(wrong, [np.array([0.5, 1.0])])
    assert not np.allclose(theoretical[0], numerical[0], atol=1e-3)


def test_x_must_be_a_list():
    with pytest.raises(ValueError, match="`x` must be a list or tuple"):
        tf.test.compute_gradient(lambda x: x, 1.0)
