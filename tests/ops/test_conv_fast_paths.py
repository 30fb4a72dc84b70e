"""The fast convolution and max-pool kernels: im2col in both copy layouts (few channels and
many), and the tap-by-tap max-pool routing, against direct loops and TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tests.ops.test_conv_ops import naive_conv2d

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("channels", [1, 3, 4, 6])  # below and above the layout switch
@pytest.mark.parametrize("padding,strides,dilations", [("VALID", 1, 1), ("SAME", 2, 1),
                                                       ("SAME", 1, 2)])
def test_conv2d_and_its_gradients_in_both_im2col_layouts(channels, padding, strides,
                                                         dilations):
    x_np = RNG.standard_normal((2, 7, 6, channels)).astype(np.float32)
    w_np = RNG.standard_normal((3, 2, channels, 5)).astype(np.float32)
    x64, w64 = x_np.astype(np.float64), w_np.astype(np.float64)
    y_ref = naive_conv2d(x64, w64, strides, padding, dilations)
    u = RNG.standard_normal(y_ref.shape).astype(np.float32)
    x, w = tf.constant(x_np), tf.constant(w_np)
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.conv2d(x, w, strides, padding, dilations=dilations)
        loss = tf.reduce_sum(y * u)
    gx, gw = tape.gradient(loss, [x, w])
    assert y.dtype == gx.dtype == gw.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), y_ref, rtol=1e-5, atol=1e-5)
    # The gradients in float64 through the same ops are the exact transposes (checked against
    # the loop in test_conv_ops); float32 agrees within rounding.
    x64t, w64t = tf.constant(x64), tf.constant(w64)
    with tf.GradientTape() as tape:
        tape.watch([x64t, w64t])
        loss64 = tf.reduce_sum(tf.nn.conv2d(x64t, w64t, strides, padding,
                                            dilations=dilations) * u.astype(np.float64))
    gx64, gw64 = tape.gradient(loss64, [x64t, w64t])
    np.testing.assert_allclose(gx.numpy(), gx64.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.numpy(), gw64.numpy(), rtol=1e-5, atol=1e-4)
    probe = RNG.standard_normal(x_np.shape)
    np.testing.assert_allclose((gx64.numpy() * probe).sum(),
                               (naive_conv2d(probe, w64, strides, padding, dilations) *
                                u).sum(), rtol=1e-9)


def _pool_grad(values: np.ndarray, ksize, strides, padding, cotangent=None):
    x = tf.constant(values)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, ksize, strides, padding)
    g = None if cotangent is None else tf.constant(cotangent)
    return tape.gradient(y, x, output_gradients=g).numpy()


def test_max_pool_gradient_with_inf_or_nan_cotangent_reaches_the_argmax_only():
    """TF 2.21's answers: other inputs of the window get 0 (not 0 * inf = nan)."""
    x = np.array([1, 3, 2, 0, 5, 4, 4, 5], np.float32).reshape(1, 2, 4, 1)
    for value in (np.inf, np.nan):
        g = np.array([value, 1], np.float32).reshape(1, 1, 2, 1)
        np.testing.assert_array_equal(_pool_grad(x, 2, 2, "VALID", g).ravel(),
                                      [0, 0, 0, 0, value, 0, 0, 1])
        g = np.full((1, 2, 4, 1), value, np.float32)
        np.testing.assert_array_equal(_pool_grad(x, 2, 1, "SAME", g).ravel(),
                                      [0, 0, 0, 0, value, value, 0, value])


def test_max_pool_gradient_of_a_negative_zero_is_positive_zero():
    """TF 2.21 accumulates into zeros: a -0.0 cotangent gives +0.0 at the argmax."""
    x = np.array([1, 3, 2, 0], np.float32).reshape(1, 2, 2, 1)
    g = np.array([-0.0], np.float32).reshape(1, 1, 1, 1)
    assert not np.signbit(_pool_grad(x, 2, 2, "VALID", g)).any()


def _first_max_grad(x, k, s, padding, g):
    """The definition: each window's cotangent added to its first maximum (row-major)."""
    n, h, w, c = x.shape
    pt = pl = 0
    oh, ow = g.shape[1:3]
    if padding == "SAME":
        pt = max((oh - 1) * s + k - h, 0) // 2
        pl = max((ow - 1) * s + k - w, 0) // 2
    out = np.zeros_like(x)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    best, where = None, None
                    for p in range(k):
                        for q in range(k):
                            r, col = i * s + p - pt, j * s + q - pl
                            if 0 <= r < h and 0 <= col < w and \
                                    (best is None or x[b, r, col, ch] > best):
                                best, where = x[b, r, col, ch], (r, col)
                    out[b, where[0], where[1], ch] += g[b, i, j, ch]
    return out


@pytest.mark.parametrize("k,s,padding", [(2, 2, "VALID"), (3, 2, "SAME"), (3, 1, "VALID"),
                                         (2, 3, "SAME")])
def test_max_pool_gradient_routes_to_the_first_maximum_with_ties(k, s, padding):
    x = RNG.integers(0, 3, (2, 7, 6, 3)).astype(np.float32)  # many ties
    y = tf.nn.max_pool2d(tf.constant(x), k, s, padding)
    g = RNG.standard_normal(y.shape).astype(np.float32)
    got = _pool_grad(x, k, s, padding, g)
    # Overlapping windows add into one input in another order than the loop: float32 ulps.
    np.testing.assert_allclose(got, _first_max_grad(x, k, s, padding, g), rtol=1e-6,
                               atol=1e-6)
    # MaxPoolGradGrad gathers at the same positions: <c, grad(g)> == <grad_grad(c), g>.
    c = RNG.standard_normal(x.shape).astype(np.float32)
    xt, gt = tf.constant(x), tf.constant(g)
    with tf.GradientTape() as outer:
        outer.watch(gt)
        with tf.GradientTape() as inner:
            inner.watch(xt)
            out = tf.nn.max_pool2d(xt, k, s, padding)
        grad = inner.gradient(out, xt, output_gradients=gt)
        s_val = tf.reduce_sum(grad * c)
    gg = outer.gradient(s_val, gt).numpy()
    np.testing.assert_allclose((gg * g).sum(), (got * c).sum(), rtol=1e-5)


def test_max_pool_of_integers_with_padding_keeps_the_least_value_out():
    x = np.array([[-5, -7], [-9, -6]], np.int32).reshape(1, 2, 2, 1)
    y = tf.nn.max_pool2d(tf.constant(x), 2, 1, "SAME").numpy().ravel()
    np.testing.assert_array_equal(y, [-5, -6, -6, -6])


def test_tiled_max_pool_gradient_with_nan_inf_and_odd_sizes_follows_tensorflow():
    """Windows that tile the input (ksize == strides): TF 2.21's answers. A leading nan keeps
    the gradient, a later one never takes it; the row and column past the last window get
    zeros; an all -inf window routes to its first input; 0 and -0.0 tie (the first wins)."""
    x = np.array([[np.nan, 1, 5, np.nan, 7], [2, 3, 4, 6, 8], [9, 9, 9, 9, 9]],
                 np.float32).reshape(1, 3, 5, 1)
    g = np.array([10, 20], np.float32).reshape(1, 1, 2, 1)
    np.testing.assert_array_equal(tf.nn.max_pool2d(tf.constant(x), 2, 2, "VALID").numpy()
                                  .ravel(), [3, 6])
    np.testing.assert_array_equal(_pool_grad(x, 2, 2, "VALID", g).reshape(3, 5),
                                  [[10, 0, 0, 0, 0], [0, 0, 0, 20, 0], [0, 0, 0, 0, 0]])
    x = np.array([[-np.inf, -np.inf, 0, 0], [-np.inf, -np.inf, 0, -0.0]],
                 np.float32).reshape(1, 2, 4, 1)
    got = _pool_grad(x, 2, 2, "SAME", g).reshape(2, 4)
    np.testing.assert_array_equal(got, [[10, 0, 20, 0], [0, 0, 0, 0]])
    assert not np.signbit(got).any()


@pytest.mark.parametrize("k,s,padding,shape", [(2, 2, "VALID", (3, 9, 8, 4)),
                                               (3, 3, "VALID", (2, 8, 10, 3)),
                                               (2, 2, "SAME", (2, 6, 4, 5)),
                                               ((2, 3), (2, 3), "VALID", (2, 7, 9, 2))])
def test_tiled_max_pool_gradient_matches_the_overlapping_path(k, s, padding, shape):
    """The tiled kernel against the general one (routing by first maximum, many ties), in
    float32 and float64, with the second-order transpose."""
    from tapeflow.ops import conv_ops
    x = RNG.integers(-1, 2, shape).astype(np.float32)
    k2, s2 = conv_ops._pair(k, "ksize", "MaxPool"), conv_ops._pair(s, "strides", "MaxPool")
    out_hw, pads = conv_ops._geometry(shape[1:3], k2, s2, (1, 1), padding, "MaxPool")
    g = RNG.standard_normal((shape[0],) + out_hw + (shape[3],)).astype(np.float32)
    want = _first_max_grad_general(x, g, k2, s2, pads, out_hw)
    for dtype in (np.float32, np.float64):
        got = _pool_grad(x.astype(dtype), k, s, padding, g.astype(dtype))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want.astype(dtype))


def _first_max_grad_general(x, g, ksize, strides, pads, out_hw):
    """The general (padded-buffer) kernel's routing, for comparison."""
    from tapeflow.ops import conv_ops
    padded = (x.shape[0], x.shape[1] + sum(pads[0]), x.shape[2] + sum(pads[1]), x.shape[3])
    out = np.zeros(padded, g.dtype)
    for i, j, hit in conv_ops._first_max_masks(x, ksize, strides, pads, out_hw):
        conv_ops._tap_view(out, i, j, out_hw, strides)[...] += np.where(hit, g, 0)
    (t, b), (l, r) = pads
    return out[:, t:out.shape[1] - b, l:out.shape[2] - r, :]
