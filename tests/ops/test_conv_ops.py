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
    # float64: float32 MaxPool aborts on an empty output (oneDNN; see below). TF's float64
    # MaxPoolGrad here returns uninitialised memory (e.g. 5.06e+93); zeros are right.
    lambda x, w: tf.cast(tf.nn.max_pool2d(tf.cast(x, tf.float64), 5, 3, "VALID"),
                         tf.float32) * tf.reduce_sum(w),
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


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_avg_pool_adds_each_window_in_tensorflows_order(dtype):
    # A window of huge values of opposite signs: TF adds tap by tap, row by row, so
    # 0.807 + 0.667 is lost to -1e30 before +1e30 cancels it (TF 2.21's numbers below; a
    # pairwise sum over the window gave -0.123).
    x = np.array([0.807, 0.667, -1e30, 1e30, -1.16, -0.624, 0.129, -0.305, -0.621], dtype)
    want = {"float64": -0.28677777777777774, "float32": -0.2867777943611145}[dtype]
    assert tf.nn.avg_pool2d(tf.constant(x.reshape(1, 3, 3, 1)), 3, 1, "VALID").numpy() \
        .item() == want
    if dtype == "float32":  # TF's CPU AvgPool3D is float32 (and half, bfloat16) only
        got = tf.nn.avg_pool3d(tf.constant(x.reshape(1, 1, 3, 3, 1)), [1, 3, 3], 1, "VALID")
        assert got.numpy().item() == want


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


# -- round-2 differential findings (TF 2.21's answers, printed by the reference install) -------

def test_grouped_conv2d_splits_input_and_output_channels():
    x = np.arange(24.0).reshape(1, 2, 3, 4) / 5
    w = np.arange(16.0).reshape(2, 2, 2, 2) / 7 - 1  # 4 input channels / filter depth 2
    np.testing.assert_allclose(tf.nn.conv2d(x, w, 1, "SAME").numpy().ravel(), [
        6.514285714285713, 8.914285714285715, 6.514285714285714, 9.828571428571427,
        -0.5142857142857145, 0.9142857142857141, -6.114285714285715, -5.142857142857142,
        -7.942857142857143, -6.514285714285714, -7.0, -6.4], rtol=1e-13)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.nn.conv2d(tf.ones([1, 3, 3, 4]), tf.ones([2, 2, 2, 3]), 1, "SAME")
    assert str(info.value) == ("output depth must be evenly divisible by number of groups: "
                               "3 vs 2 [Op:Conv2D]")


def test_int32_convolutions_run_and_int64_is_refused_with_tf_text():
    x = np.arange(10, dtype=np.int32).reshape(1, 5, 2)
    w = np.arange(6, dtype=np.int32).reshape(3, 2, 1)
    y = tf.nn.conv1d(x, w, 1, "VALID")
    assert y.dtype == tf.int32 and y.numpy().ravel().tolist() == [55, 85, 115]
    assert tf.nn.convolution(x, w).numpy().ravel().tolist() == [55, 85, 115]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'T' of int64 is not in the list of allowed values: "
                             "half, bfloat16, float, double, int32"):
        tf.nn.conv1d(x.astype(np.int64), w.astype(np.int64), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="of int32 is not in the list"):
        tf.nn.depthwise_conv2d(tf.ones([1, 3, 3, 2], tf.int32), tf.ones([2, 2, 2, 1], tf.int32),
                               [1, 1, 1, 1], "SAME")


def test_padding_contributes_no_term_so_an_inf_weight_stays_in_its_window():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1) / 4
    w = np.array([[1, 2], [np.inf, -1]], np.float32).reshape(2, 2, 1, 1)
    # TF 2.21 float32 (oneDNN); its float64 Eigen kernel gives nan in the last row (0 * inf
    # with the padding zeros), which tapeflow does not copy
    expected = [np.inf] * 6 + [5.75, 6.5, 2.25]
    assert tf.nn.conv2d(x, w, 1, "SAME").numpy().ravel().tolist() == expected
    assert tf.nn.conv2d(x.astype(np.float64), w.astype(np.float64), 1,
                        "SAME").numpy().ravel().tolist() == expected
    # the filter gradient with an inf cotangent: TF 2.21 float32 [inf, 8.25, 9.75, 7.0]
    a = tf.constant(x)
    b = tf.constant(np.array([[1.0, 2.0], [3.0, -1.0]], np.float32).reshape(2, 2, 1, 1))
    gy = np.ones((1, 3, 3, 1), np.float32)
    gy[0, 2, 2, 0] = np.inf
    with tf.GradientTape() as tape:
        tape.watch(b)
        loss = tf.reduce_sum(tf.nn.conv2d(a, b, 1, "SAME") * gy)
    assert tape.gradient(loss, b).numpy().ravel().tolist() == [np.inf, 8.25, 9.75, 7.0]


def test_depthwise_conv2d_keeps_channels_apart_at_inf():
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 2, 3, 2) / 4
    x[0, 0, 0, 0] = np.inf
    w = np.arange(1, 9, dtype=np.float32).reshape(2, 2, 2, 1) / 8 - 0.5
    # TF 2.21: only channel 0's outputs that read the inf see it (no nan from other channels)
    assert tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME").numpy().ravel().tolist() == [
        -np.inf, 1.625, 0.875, 1.875, -0.125, 0.375, -0.9375, -0.5, -1.1875, -0.625, -1.03125,
        -0.75]


def test_convolution_follows_the_filter_rank_and_checks_dilated_channels_in_python():
    x = np.arange(24.0).reshape(2, 1, 3, 2, 2)  # two batch dimensions
    y = tf.nn.convolution(x, np.ones((2, 2, 2, 1)), padding="SAME")
    assert y.shape == (2, 1, 3, 2, 1)
    assert y.numpy().ravel().tolist() == [28.0, 18.0, 60.0, 34.0, 38.0, 21.0, 124.0, 66.0,
                                          156.0, 82.0, 86.0, 45.0]
    with pytest.raises(ValueError) as info:  # before the dtype check, as TF's Python
        tf.nn.convolution(tf.ones([1, 5, 3, 3], tf.int64), tf.ones([2, 1, 4, 3], tf.int64),
                          strides=1, padding="SAME", dilations=2)
    assert str(info.value) == (
        "The number of input channels is not divisible by the corresponding number of output "
        "filters. Received: input.shape=(1, 5, 3, 3) with 3 channels and "
        "filters.shape=(2, 1, 4, 3) with 4 output filters.")


def test_float32_conv_accumulates_like_a_fused_multiply_add():
    # TF 2.21: inf + 2 * 0.5 + (-1e30 * 1e30) is inf (its kernels fuse the multiply-add; a
    # float32 product -1e60 would overflow to -inf and give nan)
    x = np.array([np.inf, 2.0, -1e30], np.float32).reshape(1, 1, 3, 1)
    w = np.array([1.0, 0.5, 1e30], np.float32).reshape(1, 3, 1, 1)
    assert tf.nn.conv2d(x, w, 1, "VALID").numpy().ravel().tolist() == [np.inf]


def test_dilated_depthwise_conv2d_runs_space_to_batch_as_tensorflow():
    x = np.array([1.5250294032965088, 0.02954764253219833, -0.24058167070672126,
                  -1.485584562225132, -0.25550381664153404, -1.4900795758040792,
                  -0.0356060653422129, 0.6506335934632819, -0.8657017788961735,
                  -0.7314046210786004, -0.38977174959527816,
                  0.39053811906589575]).reshape(1, 2, 3, 2)
    w = np.array([0.8391754780760549, -0.49903316215475546, 0.1678485756965151,
                  -0.23921050057913099, -0.21054575771205644,
                  0.5284075001592671]).reshape(3, 1, 2, 1)
    # strides with dilations: TF strides each space-to-batch phase (shape [1, 2, 1, 2])
    y = tf.nn.depthwise_conv2d(x, w, [1, 3, 3, 1], "SAME", dilations=[2, 2])
    assert y.shape == (1, 2, 1, 2)
    np.testing.assert_allclose(y.numpy().ravel(), [0.2559740132386253, -0.007068106361060384,
                                                   -0.0059764273538474855,
                                                   -0.15563838758595047], rtol=1e-14)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.nn.depthwise_conv2d(np.ones((1, 7, 3, 3)), np.ones((2, 3, 3, 1)), [1, 3, 3, 1],
                               "VALID", dilations=[2, 2])
    assert str(info.value) == "cropped_shape[1]=-1 must be non-negative [Op:BatchToSpaceND]"


def test_tensorflow_python_refusals_of_convolution_arguments():
    with pytest.raises(ValueError, match=r"`strides > 1` not supported in conjunction with "
                                         r"`dilation_rate > 1`. Received: strides=\[2 1\] and "
                                         r"dilation_rate=\[2 2\]"):
        tf.nn.convolution(tf.ones([2, 4, 5, 3]), tf.ones([1, 1, 3, 3]), strides=[2, 1],
                          padding="VALID", dilations=2)
    with pytest.raises(TypeError) as info:  # the Conv2D op wrapper wants a string
        tf.nn.conv1d(tf.ones([2, 7, 2]), tf.ones([2, 2, 1]), 1, [[0, 0], [1, 0], [0, 0]])
    assert str(info.value) == "Expected string for argument 'padding' not [[0, 0], [1, 0], [0, 0]]."
    with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
        tf.nn.convolution(tf.ones([2, 4, 5, 3]), tf.ones([1, 1, 3, 3]),
                          padding=[[0, 0], [1, 0], [0, 0], [0, 0]])
    text = ("Current CPU implementations do not yet support dilation rates larger than 1. "
            "[Op:Conv2DBackpropInput]")
    for dtype, padding in ((tf.float64, "VALID"), (tf.float32, [[0, 0]] * 4)):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 1], dtype), tf.ones([2, 2, 1, 1], dtype),
                                   [1, 4, 4, 1], 1, padding, dilations=2)
        assert str(info.value) == text
    # float32 with a string padding runs oneDNN, which supports dilations (TF: shape (1,4,4,1))
    assert tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 1]), [1, 4, 4, 1], 1,
                                  "VALID", dilations=2).shape == (1, 4, 4, 1)


# -- tf.nn.max_pool / avg_pool: the rank picks the pool; MaxPool's dtypes (TF 2.21's answers) --

def test_generic_pools_of_a_rank_3_input_pool_1d():
    x = tf.constant([[[1.0], [3.0], [2.0], [0.0]]])
    assert tf.nn.max_pool(x, 2, 2, "VALID").numpy().tolist() == [[[3.0], [2.0]]]
    assert tf.nn.avg_pool(x, 2, 2, "VALID").numpy().tolist() == [[[2.0], [1.0]]]
    np.testing.assert_allclose(tf.nn.avg_pool(x, 3, [1], "SAME").numpy().ravel(),
                               [2.0, 2.0, 1.6666666269302368, 1.0])
    assert tf.nn.max_pool(x, [1, 2, 1], [1, 1, 1], "VALID").numpy().ravel().tolist() == [
        3.0, 3.0, 2.0]
    assert tf.nn.max_pool(x, 2, 2, "VALID", data_format="NWC").shape == (1, 2, 1)
    assert tf.nn.max_pool(x, 2, 2, [[0, 0], [1, 1], [0, 0]]).numpy().ravel().tolist() == [
        1.0, 3.0, 0.0]
    with pytest.raises(ValueError, match=r"ksize should be of length 1, 1 or 3\. Received: "
                                         r"ksize=\[2, 2\] of length 2"):
        tf.nn.max_pool(x, [2, 2], 1, "VALID")
    for pool in (tf.nn.max_pool, tf.nn.avg_pool):
        with pytest.raises(ValueError, match=r"^`input.shape.rank` must be 3, 4 or 5\. "
                                             r"Received: input.shape=\(2, 3\) of rank 2\.$"):
            pool(tf.ones([2, 3]), 2, 2, "VALID")


def test_avg_pool_takes_no_explicit_padding():
    for pool, x, pads in ((tf.nn.avg_pool2d, tf.ones([1, 4, 4, 1]), [[0, 0], [1, 1], [1, 1], [0, 0]]),
                          (tf.nn.avg_pool1d, tf.ones([1, 4, 1]), [[0, 0], [1, 1], [0, 0]])):
        with pytest.raises(TypeError, match=r"^Expected string for argument 'padding' not "):
            pool(x, 2, 2, pads)


def test_float32_max_pool_with_an_empty_output_aborts_as_onednn():
    x = tf.constant([[[[0.88], [-1.17], [1.06], [2.26], [-0.62], [-1.51]]]])
    with pytest.raises(tf.errors.AbortedError, match="could not create a descriptor for a "
                                                      "pooling forward propagation primitive"):
        tf.nn.max_pool(x, [2, 2], 3, "VALID")
    with pytest.raises(tf.errors.AbortedError):
        tf.nn.max_pool(tf.constant([[[np.inf, 1.74]], [[-0.02, -0.91]]]), 2, [3], "VALID")
    # Other dtypes, AvgPool and empty inputs give the empty result.
    assert tf.nn.max_pool(tf.cast(x, tf.float64), [2, 2], 3, "VALID").shape == (1, 0, 2, 1)
    assert tf.nn.max_pool(tf.cast(x, tf.float16), [2, 2], 3, "VALID").shape == (1, 0, 2, 1)
    assert tf.nn.avg_pool(x, [2, 2], 3, "VALID").shape == (1, 0, 2, 1)
    assert tf.nn.max_pool2d(tf.ones([0, 1, 6, 1]), 2, 3, "VALID").shape == (0, 0, 2, 1)
    assert tf.nn.max_pool2d(tf.ones([1, 0, 6, 1]), 2, 3, "SAME").shape == (1, 0, 2, 1)
    # oneDNN refuses only where its truncating size formula gives 1 (in - k > -stride).
    for shape, k, s in (([1, 1, 6, 2], [2, 2], 3), ([1, 1, 4, 1], 2, 2),
                        ([1, 6, 1, 1], [2, 2], 3), ([1, 1, 6, 1], [2, 1], 3)):
        with pytest.raises(tf.errors.AbortedError):
            tf.nn.max_pool2d(tf.ones(shape), k, s, "VALID")
    for shape, k, s, out in (([2, 1, 2, 2], 2, 1, (2, 0, 1, 2)),
                             ([1, 1, 3, 2], [3, 1], [2, 3], (1, 0, 1, 2)),
                             ([1, 1, 3, 1], [2, 2], [1, 3], (1, 0, 1, 1)),
                             ([1, 1, 4, 1], 2, 1, (1, 0, 3, 1))):
        assert tf.nn.max_pool2d(tf.ones(shape), k, s, "VALID").shape == out


@pytest.mark.parametrize("dtype", [tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16])
def test_max_pool_of_integers(dtype):
    x = tf.cast(tf.reshape(tf.range(8), [1, 2, 4, 1]), dtype)
    y = tf.nn.max_pool2d(x, 2, 2, "SAME")
    assert y.dtype == dtype and y.numpy().ravel().tolist() == [5, 7]
    assert tf.nn.max_pool(tf.reshape(x, [1, 8, 1]), 2, 2, "VALID").numpy().ravel().tolist() \
        == [1, 3, 5, 7]
    if dtype.is_unsigned:
        return
    # SAME padding never wins: it is the dtype's least value.
    y = tf.nn.max_pool2d(-x, 3, 2, "SAME")
    assert y.numpy().ravel().tolist() == [0, -2]


@pytest.mark.parametrize("dtype", [tf.uint32, tf.uint64, tf.bool, tf.complex64])
def test_max_pool_refuses_other_dtypes(dtype):
    with pytest.raises(tf.errors.InvalidArgumentError, match=(
            f"^Value for attr 'T' of {dtype.name} is not in the list of allowed values: half, "
            f"bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8")):
        tf.nn.max_pool2d(tf.ones([1, 2, 2, 1], dtype), 1, 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="of int32 is not in the list"):
        tf.nn.avg_pool(tf.ones([1, 2, 1], tf.int32), 1, 1, "VALID")
