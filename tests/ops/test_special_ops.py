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


# -- poles, NaN/inf edges and gradients there (TF 2.21's answers) -------------------------------

def test_digamma_is_nan_at_the_poles():
    out = tf.math.digamma(tf.constant([0., -0., -1., -2., 1., -np.inf])).numpy()
    np.testing.assert_allclose(out, [np.nan] * 4 + [-0.5772157, np.nan], rtol=1e-6)
    assert np.isnan(tf.math.digamma(tf.constant([0., -3.], tf.float64)).numpy()).all()


def test_lgamma_of_minus_infinity_is_plus_infinity():
    out = tf.math.lgamma(tf.constant([-np.inf, np.inf, 0., -1.])).numpy()
    np.testing.assert_array_equal(out, [np.inf] * 4)


def test_lgamma_gradient_is_nan_at_the_poles():
    g = grads(lambda x: tf.math.lgamma(x), [0., -0., -1., -2., 1.])[0]
    np.testing.assert_allclose(g, [np.nan] * 4 + [-0.5772157], rtol=1e-6)


def test_polygamma_elementwise_with_tensorflow_domain():
    out = tf.math.polygamma(tf.constant([1., 1., 1., 0., 2., 1.5, -1.]),
                            tf.constant([0., -1., 2., 0., -2., 1., 1.])).numpy()
    np.testing.assert_allclose(out, [np.inf, np.inf, 0.6449341, np.nan, np.nan, np.nan, np.nan],
                               rtol=1e-6)
    # At a pole: +inf for an odd order, NaN for an even one.
    out = tf.math.polygamma(tf.constant([1., 1., 2., 3., 2., 0., 1., 4.]),
                            tf.constant([-0.5, 0., 0., 0., -1., -1., -2.5, -3.])).numpy()
    np.testing.assert_allclose(out, [8.934802, np.inf, np.nan, np.inf, np.nan, np.nan, 9.539247,
                                     np.nan], rtol=1e-6)
    out = tf.math.polygamma(tf.constant([1., 50.]), tf.constant([1e10, 2.])).numpy()
    np.testing.assert_allclose(out, [9.9999994e-11, -np.inf], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of half .*: float, double"):
        tf.math.polygamma(tf.constant([1.], tf.float16), tf.constant([1.], tf.float16))


def test_xlogy_family_is_zero_where_x_is_zero_even_for_nan_y():
    np.testing.assert_array_equal(
        tf.math.xlogy(tf.constant([0., 0., 1., 0.]), tf.constant([0., np.nan, 0., np.inf])),
        [0., 0., -np.inf, 0.])
    np.testing.assert_array_equal(
        tf.math.xlog1py(tf.constant([0., 0., 1.]), tf.constant([-1., np.nan, -1.])),
        [0., 0., -np.inf])
    out = tf.math.xlogy(tf.constant([0j, 2 + 0j]), tf.constant([np.nan + 0j, 1 + 0j]))
    assert out.dtype == tf.complex128 and out.numpy().tolist() == [0j, 0j]


def test_xdivy_gradient_for_y_is_plus_zero_where_x_is_zero():
    y = tf.constant([0., 0.])
    with tf.GradientTape() as tape:
        tape.watch(y)
        z = tf.math.xdivy(tf.constant([0., 1.]), y)
    gy = tape.gradient(z, y).numpy()
    assert gy.tolist() == [0., -np.inf] and not np.signbit(gy[0])


def test_bessel_i1e_derivatives_at_zero():
    x = tf.constant([0.])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.math.bessel_i1e(x)
        d1 = inner.gradient(y, x)
    assert d1.numpy().tolist() == [0.5]
    assert np.isnan(outer.gradient(d1, x).numpy()).all()  # TF's rule divides by x


@pytest.mark.parametrize("values, dtype", [
    ([1e-310, -1e-310, 2.2e-313, 0.0, 1e-300, 1e-17], np.float64),
    ([1e-40, -1e-40, 0.0, 1e-38], np.float32)])
def test_bessel_i1e_gradient_at_subnormal_inputs_is_one_half(values, dtype):
    # TF 2.21 gives 0.5 for all of these: its kernels read subnormals as 0, where its rule
    # imputes 0.5 (1/x would overflow); normal tiny x go through i0e - i1e (sign + 1/x).
    x = tf.constant(values, dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.bessel_i1e(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 0.5, rtol=1e-15)


@pytest.mark.parametrize("f, gx, gy", [
    (tf.math.xlogy, [0.720932 - 1.604937j, 0.489957 - 1.446919j], [-2.6 + 1.8j, 1.058824 + 0.235294j]),
    (tf.math.xdivy, [0.2 + 1.4j, -0.235294 - 0.941176j], [2.48 + 1.36j, -0.525952 + 0.013841j])])
def test_complex_x_family_gradients_match_tensorflow(f, gx, gy):
    # TF 2.21's rules multiply g by the partial without conjugating it.
    x, y, w = (tf.constant(v, tf.complex128) for v in
               ([1 + 2j, -0.5 + 1j], [0.5 - 1j, 2 + 0.5j], [1.5 - 0.5j, 2j]))
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = tf.reduce_sum(w * f(x, y))
    got_x, got_y = tape.gradient(out, [x, y])
    np.testing.assert_allclose(got_x.numpy(), gx, atol=1e-6)
    np.testing.assert_allclose(got_y.numpy(), gy, atol=1e-6)
