"""Reductions over empty inputs: the identities TensorFlow 2.21 returns (checked with the
reference install), where NumPy would raise or produce a NaN cast to an integer."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("fn, dtype, expected", [
    (tf.reduce_max, tf.float32, -np.inf),
    (tf.reduce_min, tf.float64, np.inf),
    (tf.reduce_max, tf.int32, np.iinfo(np.int32).min),
    (tf.reduce_min, tf.int64, np.iinfo(np.int64).max),
    (tf.reduce_logsumexp, tf.float32, -np.inf),
    (tf.reduce_mean, tf.int32, 0),
    (tf.reduce_mean, tf.int64, 0),
])
def test_empty_reduction_gives_identity(fn, dtype, expected):
    out = fn(tf.zeros([0], dtype))
    assert out.dtype == dtype and out.shape == ()
    assert out.numpy() == expected


def test_empty_axis_reduction_keeps_other_axes():
    x = tf.zeros([2, 0, 3])
    np.testing.assert_array_equal(tf.reduce_max(x, axis=1).numpy(), np.full((2, 3), -np.inf))
    out = tf.reduce_mean(tf.zeros([2, 0, 3], tf.int32), axis=1, keepdims=True)
    assert out.shape == (2, 1, 3)
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 1, 3), np.int32))


def test_softmax_of_empty_is_empty():
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        out = fn(tf.zeros([2, 0]))
        assert out.shape == (2, 0) and out.dtype == tf.float32


def test_prod_gradient_of_empty_input():
    x = tf.zeros([2, 0, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=[0, 1])
    np.testing.assert_array_equal(y.numpy(), np.ones(3, np.float32))
    grad = tape.gradient(y, x)
    assert grad.shape == (2, 0, 3) and grad.dtype == tf.float32


def test_count_nonzero_matches_tensorflow():
    assert tf.math.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]])).numpy() == 3
    out = tf.math.count_nonzero(tf.constant([[0., 1, 2], [0, 0, 3]]), axis=1, keepdims=True,
                                dtype=tf.int32)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[2], [1]]
    out = tf.math.count_nonzero(tf.constant([[True, False]]), axis=[0, 1], dtype=tf.float32)
    assert out.dtype == tf.float32 and out.numpy() == 1.0
    out = tf.math.count_nonzero(tf.constant([1.0, 0.0]), keepdims=True)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension"):
        tf.math.count_nonzero(tf.constant([[1, 2]]), axis=2)


# -- dtypes, axes, NaN in argmax, gradients at the edges (TF 2.21's answers) --------------------

def test_reduce_sum_refuses_bools():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"of bool .*\[Op:Sum\]"):
        tf.reduce_sum(tf.constant([True, False]))


@pytest.mark.parametrize("axis, text", [
    ([0, 0], r"Axes contains duplicate dimension: 0"), ([0, -2], r"duplicate dimension: 0"),
    (2, r"Invalid reduction dimension \(2 for input with 2"),
])
def test_bad_reduction_axes_raise(axis, text):
    with pytest.raises(tf.errors.InvalidArgumentError, match=text + r".*\[Op:Sum\]"):
        tf.reduce_sum(tf.ones([2, 2]), axis=axis)


@pytest.mark.parametrize("axis", [0, -1])
def test_a_scalar_has_no_axis(axis):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Invalid reduction dimension \({axis} for input with 0 "):
        tf.reduce_max(tf.constant(2.), axis=axis)


def test_a_float_axis_is_a_type_error():
    with pytest.raises(TypeError, match=r"^Cannot convert 0.0 to EagerTensor of dtype int32$"):
        tf.reduce_mean(tf.ones([2]), axis=0.)


def test_argmax_argmin_skip_nan_as_tensorflow():
    nan, inf = np.nan, np.inf
    x = tf.constant([1., nan, 3., nan, -1.])
    assert tf.argmax(x).numpy() == 2 and tf.argmin(x).numpy() == 4
    assert tf.argmax(tf.constant([nan, 1., 2.])).numpy() == 2
    assert tf.argmin(tf.constant([nan, 1., 2.])).numpy() == 1
    assert tf.argmax(tf.constant([nan, nan])).numpy() == 0
    assert tf.argmax(tf.constant([1., inf, nan, inf])).numpy() == 1
    m = tf.constant([[1., nan], [3., 2.], [nan, 5.]])
    assert tf.argmax(m, axis=0).numpy().tolist() == [1, 2]
    assert tf.argmin(m, axis=1).numpy().tolist() == [0, 1, 1]
    # Nothing at or below the dtype's lowest value wins: index 0 then.
    lowest = np.finfo(np.float32).min
    assert tf.argmax(tf.constant([-inf, lowest])).numpy() == 0
    assert tf.argmax(tf.constant([-inf, lowest], tf.float64)).numpy() == 1
    assert tf.argmax(tf.constant([nan, 1., 2.], tf.float16)).numpy() == 2


def test_argmax_dtypes_and_empty_axis():
    assert tf.argmin(tf.constant([True, False, False])).numpy() == 1
    assert tf.argmax(tf.constant([1., 3.]), output_type=tf.int16).dtype == tf.int16
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"'output_type' of uint8 is not in the list of allowed values: "
                             r"int16, uint16, int32, int64"):
        tf.argmax(tf.constant([1., 3.]), output_type=tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Reduction axis 0 is empty in shape \[0\] \[Op:ArgMax\]"):
        tf.argmax(tf.zeros([0]))
    assert tf.argmax(tf.zeros([0, 3]), axis=1).shape == (0,)


def test_reduce_logsumexp_gradient_keeps_float32_precision():
    for big in (1e4, 1e6, -1e6):
        x = tf.constant([big, big - 1, big - 2], tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_logsumexp(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                                   [0.66524094, 0.24472848, 0.09003057], rtol=2e-7)
    x = tf.constant([1000., 999.], tf.float16)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_logsumexp(x)
    g = tape.gradient(y, x)
    assert g.dtype == tf.float16
    np.testing.assert_allclose(g.numpy().astype(np.float32), [0.731, 0.269], atol=1e-3)
    x = tf.constant([np.inf, 1.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_logsumexp(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [np.nan, 0.])


def test_euclidean_norm_gradient_at_zero_is_nan():
    for fn in (lambda x: tf.norm(x), lambda x: tf.math.reduce_euclidean_norm(x),
               lambda x: tf.norm(tf.reshape(x, [1, 3]), ord="fro", axis=[0, 1])):
        x = tf.zeros([3])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        assert np.isnan(tape.gradient(y, x).numpy()).all()
    x = tf.constant([[0., 0.], [3., 4.]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.norm(x, axis=1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[np.nan, np.nan], [0.6, 0.8]])


def test_complex_norms_and_variances():
    n = tf.norm(tf.constant([3 + 4j, 0j]))
    assert n.dtype == tf.complex128 and n.numpy() == 5 + 0j
    assert tf.math.reduce_euclidean_norm(tf.constant([3 + 4j])).numpy() == 5 + 0j
    v = tf.math.reduce_variance(tf.constant([1 + 1j, 2 - 1j]))
    assert v.dtype == tf.float64 and v.numpy() == 1.25
    np.testing.assert_allclose(tf.math.reduce_std(tf.constant([1 + 1j, 2 - 1j])).numpy(),
                               1.118033988749895)


def test_variance_of_integers_is_a_type_error():
    with pytest.raises(TypeError, match=r"^Input must be either real or complex. Received "
                                        r"integer type <dtype: 'int32'>.$"):
        tf.math.reduce_variance(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"Received integer type <dtype: 'uint8'>"):
        tf.math.reduce_std(tf.constant([1, 2], tf.uint8))


def test_count_nonzero_of_strings_counts_non_empty_ones():
    assert tf.math.count_nonzero(tf.constant(["", "a", "b"])).numpy() == 2


def _second_derivative(f, x):
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d1 = inner.gradient(y, x)
    return d1, outer.gradient(d1, x)


def test_reduce_prod_second_derivative_matches_tensorflow():
    d1, d2 = _second_derivative(tf.reduce_prod, np.array([2., 3., 4.], np.float32))
    assert d1.numpy().tolist() == [12., 8., 6.] and d2.numpy().tolist() == [7., 6., 5.]
    # One element, a scalar, an empty tensor: zeros (not None), as in TF.
    for x, zeros in [(np.array([3.], np.float32), [0.]), (np.array(3., np.float32), 0.),
                     (np.array([[3.], [2.]], np.float32), [[0.], [0.]]),
                     (np.zeros([0], np.float32), [])]:
        d1, d2 = _second_derivative(lambda t, x=x: tf.reduce_prod(t, axis=-1 if x.ndim == 2 else None),
                                    x)
        assert d2 is not None and d2.numpy().tolist() == zeros
    d1, d2 = _second_derivative(lambda t: tf.reduce_prod(t, axis=0, keepdims=True),
                                np.array([[0.5, -1.5], [2.0, 3.0]], np.float32))
    assert d1.numpy().tolist() == [[2., 3.], [0.5, -1.5]]
    assert d2.numpy().tolist() == [[1., 1.], [1., 1.]]


@pytest.mark.parametrize("reduce", [tf.math.reduce_logsumexp, tf.math.reduce_prod])
def test_reducing_no_axes_keeps_a_second_derivative(reduce):
    # axis=[] returns x, but TF still runs the op: the second derivative is zeros, not None
    # (TF 2.21: zeros for both, at x = [0.5, -2, 0]; reduce_sum's stays None).
    x = np.array([0.5, -2.0, 3.0], np.float32)
    d1, d2 = _second_derivative(lambda t: reduce(t, axis=[]), x)
    assert reduce(tf.constant(x), axis=[]).numpy().tolist() == x.tolist()
    assert d1.numpy().tolist() == [1.0] * 3 and d2 is not None and d2.numpy().tolist() == [0.0] * 3
    assert _second_derivative(lambda t: tf.reduce_sum(t, axis=[]), x)[1] is None
