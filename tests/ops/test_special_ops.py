"""tf.math special functions: values, dtypes and gradients checked against TensorFlow 2.21."""

import numpy as np
import pytest

import tapeflow as tf
from _support import grads


def test_values_match_tensorflow():
    x = tf.constant([0.5, 1.5, 3.0])
    np.testing.assert_allclose(tf.math.lgamma(x).numpy(), [0.5723649, -0.12078224, 0.6931472], rtol=1e-6)
    np.testing.assert_allclose(tf.math.digamma(x).numpy(), [-1.96351, 0.03648997, 0.9227843], rtol=1e-6)
    np.testing.assert_allclose(tf.math.erfc(x).numpy(), [4.7950011e-01, 3.3894852e-02, 2.2090497e-05], rtol=1e-6)
    np.testing.assert_allclose(tf.math.bessel_i0e(x).numpy(), [0.64503527, 0.3674336, 0.24300036], rtol=1e-6)
    np.testing.assert_allclose(tf.math.bessel_i1e(x).numpy(), [0.1564208, 0.21903938, 0.19682671], rtol=1e-6)
    assert tf.math.lgamma(x).dtype == tf.float32


def test_x_times_log_ops_are_zero_where_x_is_zero():
    xlogy = tf.math.xlogy(tf.constant([0., 1., 2.]), tf.constant([0., 2., 3.]))
    np.testing.assert_allclose(xlogy.numpy(), [0., 0.6931472, 2.1972246], rtol=1e-6)
    np.testing.assert_allclose(tf.math.xlog1py(tf.constant([0., 1.]), tf.constant([-1., 1.])).numpy(),
                               [0., 0.693147], rtol=1e-5)
    np.testing.assert_allclose(tf.math.xdivy(tf.constant([0., 1.]), tf.constant([0., 4.])).numpy(), [0., 0.25])


def test_polygamma():
    out = tf.math.polygamma(tf.constant([1., 2.]), tf.constant([1.5, 2.5]))
    np.testing.assert_allclose(out.numpy(), [0.934802, -0.236204], rtol=1e-5)


def test_gradients_match_tensorflow():
    (g,) = grads(lambda x: tf.math.lgamma(x) + tf.math.digamma(x) + tf.math.erfc(x)
                 + tf.math.bessel_i0e(x) + tf.math.bessel_i1e(x), [0.5, 1.5, 3.0])
    np.testing.assert_allclose(g, [1.779668, 0.706336, 1.25197], atol=1e-6)
    gx, gy = grads(lambda x, y: tf.math.xlogy(x, y), [0., 1., 2.], [0., 2., 3.])
    np.testing.assert_allclose(gx, [0., 0.693147, 1.098612], atol=1e-6)
    np.testing.assert_allclose(gy, [0., 0.5, 0.666667], atol=1e-6)


def test_integer_input_is_rejected_with_the_op_name():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Op:Lgamma"):
        tf.math.lgamma(tf.constant([1, 2]))
