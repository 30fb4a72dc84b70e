"""Convolution and pooling (tf.nn.conv1d/conv2d/conv2d_transpose/depthwise_conv2d,
max_pool2d/avg_pool2d): values against a direct NumPy loop and against TensorFlow 2.21, and
gradients against the loop's transposes."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def _pads(size, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + eff - size, 0) // 2


def naive_conv2d(x, w, s, padding, d=1):
    """Pixel-by-pixel convolution, the definition."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, pt = _pads(h, kh, s, d, padding)
    ow, pl = _pads(wd, kw, s, d, padding)
    y = np.zeros((n, oh, ow, o))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for p in range(kh):
                    for q in range(kw):
                        r, cc = i * s + p * d - pt, j * s + q * d - pl
                        if 0 <= r < h and 0 <= cc < wd:
                            y[b, i, j] += x[b, r, cc] @ w[p, q]
    return y


def naive_pool(x, k, s, padding, reduce):
    n, h, wd, c = x.shape
    oh, pt = _pads(h, k, s, 1, padding)
    ow, pl = _pads(wd, k, s, 1, padding)
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = max(i * s - pt, 0), max(j * s - pl, 0)
            win = x[:, r0:i * s - pt + k, c0:j * s - pl + k, :]
            y[:, i, j] = reduce(win, axis=(1, 2))
    return y


RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 7, 6, 3))
W = RNG.standard_normal((3, 2, 3, 4))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), (3, 1), (1, 2)])
def test_conv2d_matches_loop(padding, strides, dilations):
    y = tf.nn.conv2d(tf.constant(X), tf.constant(W), strides, padding, dilations=dilations)
    np.testing.assert_allclose(y.numpy(), naive_conv2d(X, W, strides, padding, dilations),
                               atol=1e-12)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, 2])
def test_conv2d_gradients_are_the_transposes(padding, strides):
    """d<u, conv(x, w)>/dx and /dw, checked with the loop: <u, conv(e_i, w)>."""
    x, w = tf.constant(X), tf.constant(W)
    y_ref = naive_conv2d(X, W, strides, padding)
    u = RNG.standard_normal(y_ref.shape)
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        loss = tf.reduce_sum(tf.nn.conv2d(x, w, strides, padding) * u)
    gx, gw = tape.gradient(loss, [x, w])
    # conv is linear in w: <u, conv(x, e_k)> for each basis filter e_k.
    expected_gw = np.zeros(W.size)
    for k in range(W.size):
        e = np.zeros(W.size)
        e[k] = 1
        expected_gw[k] = (naive_conv2d(X, e.reshape(W.shape), strides, padding) * u).sum()
    np.testing.assert_allclose(gw.numpy().ravel(), expected_gw, atol=1e-10)
    probe = RNG.standard_normal(X.shape)
    np.testing.assert_allclose((gx.numpy() * probe).sum(),
                               (naive_conv2d(probe, W, strides, padding) * u).sum(), rtol=1e-10)


def test_conv2d_matches_tensorflow_float32():
    x = tf.constant(np.arange(32.0, dtype=np.float32).reshape(1, 4, 4, 2))
    w = tf.constant(np.arange(24.0, dtype=np.float32).reshape(2, 2, 2, 3) / 10)
    y = tf.nn.conv2d(x, w, 2, "SAME")
    assert y.dtype == tf.float32 and y.shape == (1, 2, 2, 3)
    expected = [[[[68.4, 72.8, 77.2], [102.0, 109.6, 117.2]],
                 [[202.8, 220.0, 237.2], [236.4, 256.8, 277.2]]]]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)


def test_pooling_matches_tensorflow_same_padding():
    x = tf.constant(np.arange(32.0, dtype=np.float32).reshape(1, 4, 4, 2))
    np.testing.assert_array_equal(tf.nn.max_pool2d(x, 3, 2, "SAME").numpy(),
                                  [[[[20, 21], [22, 23]], [[28, 29], [30, 31]]]])
    # TF averages over the real inputs only, not the padding.
    np.testing.assert_array_equal(tf.nn.avg_pool2d(x, 3, 2, "SAME").numpy(),
                                  [[[[10, 11], [13, 14]], [[22, 23], [25, 26]]]])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("k,s", [(2, 2), (3, 2), (3, 1)])
def test_pooling_matches_loop(padding, k, s):
    x = tf.constant(X)
    np.testing.assert_allclose(tf.nn.max_pool2d(x, k, s, padding).numpy(),
                               naive_pool(X, k, s, padding, np.max))
    np.testing.assert_allclose(tf.nn.avg_pool2d(x, k, s, padding).numpy(),
                               naive_pool(X, k, s, padding, np.mean), atol=1e-12)


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = tf.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])  # tie: TF routes to the first
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [0, 1, 0, 0])


def test_max_pool_second_order_is_zero_and_grad_of_grad_exists():
    x = tf.constant(X)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, "VALID") ** 2)
        g = inner.gradient(y, x)
        s = tf.reduce_sum(g * g)
    h = outer.gradient(s, x)
    # d/dx sum((2 m)^2) routed to the argmax positions = 8 m there.
    np.testing.assert_allclose(h.numpy(), 4 * g.numpy(), atol=1e-12)


def test_conv1d_is_conv2d_on_one_row():
    x = RNG.standard_normal((2, 9, 3))
    w = RNG.standard_normal((3, 3, 5))
    y = tf.nn.conv1d(tf.constant(x), tf.constant(w), 2, "SAME")
    expected = naive_conv2d(x[:, None], w[None], 2, "SAME")[:, 0]
    assert y.shape == (2, 5, 5)
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-12)


def test_conv2d_transpose_is_the_input_gradient():
    w = RNG.standard_normal((3, 3, 5, 4))
    x = tf.constant(RNG.standard_normal((2, 8, 6, 5)))
    g = RNG.standard_normal((2, 4, 3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.conv2d(x, w, 2, "SAME") * g)
    expected = tape.gradient(loss, x)
    got = tf.nn.conv2d_transpose(tf.constant(g), tf.constant(w), (2, 8, 6, 5), 2, "SAME")
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-12)


def test_depthwise_conv2d_convolves_each_channel_separately():
    w = RNG.standard_normal((3, 3, 3, 2))
    y = tf.nn.depthwise_conv2d(tf.constant(X), tf.constant(w), [1, 1, 1, 1], "SAME")
    assert y.shape == (2, 7, 6, 6)
    for ch in range(3):
        for m in range(2):
            ref = naive_conv2d(X[..., ch:ch + 1], w[:, :, ch:ch + 1, m:m + 1], 1, "SAME")
            np.testing.assert_allclose(y.numpy()[..., ch * 2 + m], ref[..., 0], atol=1e-12)


def test_bad_inputs_raise_tf_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"3 vs 2 \[Op:Conv2D\]"):
        tf.nn.conv2d(tf.ones((1, 5, 5, 3)), tf.ones((3, 3, 2, 4)), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding"):
        tf.nn.conv2d(tf.ones((1, 5, 5, 3)), tf.ones((3, 3, 3, 4)), 1, "FOO")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-dimensional"):
        tf.nn.max_pool2d(tf.ones((5, 5, 3)), 2, 2, "VALID")


@pytest.mark.parametrize("op, op_name", [
    (lambda x: tf.nn.conv2d(x, tf.ones((5, 5, 2, 4)), 1, "VALID"), "Conv2D"),
    (lambda x: tf.nn.conv1d(x[:, 0], tf.ones((5, 2, 4)), 1, "VALID"), "Conv2D"),
    (lambda x: tf.nn.depthwise_conv2d(x, tf.ones((5, 5, 2, 2)), [1, 1, 1, 1], "VALID"),
     "DepthwiseConv2dNative"),
    (lambda x: tf.nn.max_pool2d(x, 5, 1, "VALID"), "MaxPool"),
    (lambda x: tf.nn.avg_pool2d(x, 5, 1, "VALID"), "AvgPool"),
    (lambda x: tf.nn.max_pool1d(x[:, 0], 5, 1, "VALID"), "MaxPool"),
])
def test_valid_window_larger_than_input_raises_like_tensorflow(op, op_name):
    # TF 2.21: (3 - 5 + 1) / 1 = -1 output rows is an error, not an empty output
    with pytest.raises(tf.errors.InvalidArgumentError, match=(
            r"^Computed output size would be negative: -1 \[input_size: 3, "
            r"effective_filter_size: 5, stride: 1\] \[Op:" + op_name + r"\]$")):
        op(tf.ones((2, 3, 3, 2)))


@pytest.mark.parametrize("op", [
    lambda x, w: tf.nn.conv2d(x, w, 3, "VALID"),
    lambda x, w: tf.nn.max_pool2d(x, 5, 3, "VALID") * tf.reduce_sum(w),
    lambda x, w: tf.nn.avg_pool2d(x, 5, 3, "VALID") * tf.reduce_sum(w),
    lambda x, w: tf.nn.conv2d(x[:0], w, 1, "SAME"),
])
def test_empty_outputs_have_zero_gradients(op):
    # (3 - 5 + 3) // 3 = 0 output rows (no error in TF) or a zero batch: the gradients are
    # zeros of the inputs' shapes (TF 2.21's answer for avg_pool and the zero batch).
    x, w = tf.ones((2, 3, 3, 2)), tf.ones((5, 5, 2, 4))
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.reduce_sum(op(x, w))
    dx, dw = tape.gradient(y, [x, w])
    assert dx.shape == (2, 3, 3, 2) and dw.shape == (5, 5, 2, 4)
    assert not dx.numpy().any() and not dw.numpy().any()


def test_filters_with_a_zero_dimension_raise_like_tensorflow():
    # TF 2.21: float32 runs oneDNN, which refuses any zero filter dimension
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^filter must not have zero elements .* \[Op:Conv2D\]$"):
        tf.nn.conv2d(tf.ones((1, 3, 3, 2)), tf.ones((2, 2, 2, 0)), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"zero elements .* \[Op:DepthwiseConv2dNative\]$"):
        tf.nn.depthwise_conv2d(tf.ones((1, 3, 3, 2)), tf.ones((2, 2, 2, 0)), [1] * 4, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^filter depth must be stricly positive, got 0 \[Op:Conv2D\]$"):
        tf.nn.conv2d(tf.ones((1, 3, 3, 0), tf.float64), tf.ones((2, 2, 0, 4), tf.float64), 1,
                     "SAME")


LOWEST = float(np.finfo(np.float32).min)


def _pool_and_grad(pool, values, shape):
    x = tf.constant(np.array(values, np.float32).reshape(shape))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = pool(x)
    return y.numpy().ravel().tolist(), tape.gradient(y, x).numpy().ravel().tolist()


@pytest.mark.parametrize("values, k, padding, want_y, want_g", [
    # TF 2.21: the max skips nan, starts from the lowest float (not -inf); the gradient goes
    # to a window's first input unless a later one is strictly greater (so a leading nan).
    ([np.nan, 1.0, 2.0, 3.0], 2, "VALID", [3.0], [1.0, 0.0, 0.0, 0.0]),
    ([1.0, np.nan, 2.0, 3.0], 2, "SAME", [3.0] * 4, [0.0, 1.0, 0.0, 3.0]),
    ([1.0, 2.0, 3.0, np.nan], 2, "SAME", [3.0, 2.0, 3.0, LOWEST], [0.0, 1.0, 2.0, 1.0]),
    ([-np.inf] * 4, 3, "SAME", [LOWEST] * 4, [4.0, 0.0, 0.0, 0.0]),
    ([1.0, np.inf, 2.0, -np.inf], 2, "SAME", [np.inf, np.inf, 2.0, LOWEST],
     [0.0, 2.0, 1.0, 1.0]),
])
def test_max_pool2d_nan_and_inf_follow_tensorflow(values, k, padding, want_y, want_g):
    y, g = _pool_and_grad(lambda x: tf.nn.max_pool2d(x, k, 1, padding), values, (1, 2, 2, 1))
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(g, want_g)


def test_max_pool1d_and_avg_pool_nan_and_inf_follow_tensorflow():
    y, g = _pool_and_grad(lambda x: tf.nn.max_pool1d(x, 3, 1, "SAME"),
                          [-np.inf, np.nan, -np.inf, 1.0], (1, 4, 1))
    # TF 2.21 for max_pool1d; avg_pool propagates nan and -inf (inf - inf windows are nan)
    np.testing.assert_array_equal(y, [LOWEST, LOWEST, 1.0, 1.0])
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0, 1.0])
    y, _ = _pool_and_grad(lambda x: tf.nn.avg_pool2d(x, 2, 1, "SAME"),
                          [1.0, np.inf, 2.0, -np.inf], (1, 2, 2, 1))
    np.testing.assert_array_equal(y, [np.nan, np.nan, -np.inf, -np.inf])


@pytest.mark.parametrize("pool", [lambda x: tf.nn.max_pool2d(tf.reshape(x, (1, 2, 2, 1)), 2,
                                                             1, "VALID"),
                                  lambda x: tf.nn.max_pool1d(tf.reshape(x, (1, 4, 1)), 2, 1,
                                                             "VALID")])
def test_max_pool_second_derivative_is_zeros(pool):
    x = tf.constant([[-1.5, 0.5, 2.0, 7.0]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = pool(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    # TF 2.21: zeros of x's shape and dtype, not None
    assert h is not None and h.dtype == tf.float32 and h.shape == (1, 4)
    np.testing.assert_array_equal(h.numpy(), np.zeros((1, 4)))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_avg_pool_gradient_keeps_float32(padding):
    # The window counts are float64; the gradient must still come back float32, or adding it
    # to another float32 cotangent raises a dtype mismatch mid-backprop.
    x = tf.constant(np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) / 50.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.avg_pool2d(x, ksize=2, strides=2, padding=padding)) \
            + tf.reduce_sum(x)
    g = tape.gradient(y, x)
    assert g.dtype == tf.float32
    # TF 2.21: full windows give 1 + 1/4; SAME's one-element corner window 1 + 1, while VALID
    # drops the last row and column (1 + 0).
    corner = {"SAME": 2.0, "VALID": 1.0}[padding]
    assert g.numpy()[0, 0, 0, 0] == pytest.approx(1.25)
    assert g.numpy()[0, 4, 4, 0] == pytest.approx(corner)


def test_pool1d_matches_tensorflow():
    # Values and gradients from TensorFlow 2.21.
    p = tf.reshape(tf.range(14, dtype=tf.float32) % 5, [2, 7, 1])
    with tf.GradientTape() as tape:
        tape.watch(p)
        a = tf.nn.max_pool1d(p, 3, 2, "SAME")
        b = tf.nn.avg_pool1d(p, [1, 3, 1], [1, 2, 1], "SAME")
        loss = tf.reduce_sum(a) + tf.reduce_sum(b * b)
    assert a.shape == (2, 4, 1)
    assert a.numpy().ravel().tolist() == [1, 3, 4, 1, 3, 4, 2, 3]
    np.testing.assert_allclose(b.numpy().ravel(), [0.5, 2, 7 / 3, 0.5, 2.5, 7 / 3, 1, 2.5],
                               rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, p).numpy().ravel(),
                               [0.5, 2.83333, 1.33333, 3.88889, 2.55556, 2.05556, 1.5, 2.5,
                                5.05556, 2.55556, 2.22222, 0.66667, 4.16667, 3.5], atol=1e-4)
    out = tf.nn.max_pool1d(p, [2], [1], "VALID")
    assert out.shape == (2, 6, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"4 or 5-dimensional \[Op:MaxPool\]"):
        tf.nn.max_pool1d(tf.zeros([2, 3]), 2, 1, "VALID")
    with pytest.raises(ValueError, match="ksize should be of length"):
        tf.nn.avg_pool1d(tf.zeros([1, 3, 1]), [1, 2], 1, "VALID")
