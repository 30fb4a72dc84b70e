"""tf.nn's 3-D convolution and pooling, conv1d_transpose, separable_conv2d and pool: values
against direct loops, and the errors TF 2.21 raises (its classes and texts, hard-coded)."""

import itertools

import numpy as np
import pytest

import tapeflow as tf

rng = np.random.default_rng(3)
X = rng.standard_normal((2, 4, 5, 6, 3)).astype("float32")
W = rng.standard_normal((2, 3, 2, 3, 4)).astype("float32")


def _conv3d_loop(x, w, strides, pads):
    xp = np.pad(x.astype(np.float64), ((0, 0),) + pads + ((0, 0),))
    k = w.shape[:3]
    out = [(xp.shape[i + 1] - k[i]) // strides[i] + 1 for i in range(3)]
    y = np.zeros((x.shape[0],) + tuple(out) + (w.shape[-1],))
    for d, h, v in itertools.product(*map(range, out)):
        win = xp[:, d * strides[0]:d * strides[0] + k[0], h * strides[1]:h * strides[1] + k[1],
                 v * strides[2]:v * strides[2] + k[2]]
        y[:, d, h, v] = np.einsum("ndhwc,dhwco->no", win, w)
    return y


def test_conv3d_matches_a_direct_loop():
    y = tf.nn.conv3d(X, W, [1, 2, 1, 2, 1], "SAME").numpy()
    # SAME, strides (2, 1, 2): pads (0, 1), (1, 1), (0, 1)
    ref = _conv3d_loop(X, W, (2, 1, 2), ((0, 1), (1, 1), (0, 1)))
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tf.nn.convolution(X, W, strides=[2, 1, 2], padding="SAME"),
                               ref, rtol=1e-4, atol=1e-4)


def test_conv3d_transpose_is_the_input_gradient():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.conv3d(x, W, [1, 2, 2, 2, 1], "SAME")
    g = rng.standard_normal(y.shape).astype("float32")
    expected = tape.gradient(y, x, output_gradients=tf.constant(g))
    got = tf.nn.conv3d_transpose(g, W, X.shape, [1, 2, 2, 2, 1], "SAME")
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_max_pool3d_routes_gradient_to_every_tied_max():
    # TF 2.21: MaxPool3DGrad gives each of the 8 equal inputs the cotangent (2-D: the first).
    x = tf.constant(np.ones((1, 2, 2, 2, 1), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool3d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), np.ones(8))
    # TF 2.21: nan ignored, an all -inf window gives the lowest float32.
    x = np.array([np.nan, 1, 2, np.nan, -np.inf, 0, 5, 3], np.float32).reshape(1, 2, 2, 2, 1)
    np.testing.assert_array_equal(tf.nn.max_pool3d(x, [1, 1, 2, 2, 1], 1, "VALID").numpy()
                                  .ravel(), [2, 5])
    np.testing.assert_array_equal(tf.nn.max_pool3d(np.full((1, 2, 2, 2, 1), -np.inf,
                                                           np.float32), 2, 2, "SAME"),
                                  np.full((1, 1, 1, 1, 1), np.finfo(np.float32).min))


def test_pools_3d_match_direct_reductions():
    y = tf.nn.avg_pool3d(X, 2, 2, "VALID").numpy()
    ref = X[:, :4, :4, :6].reshape(2, 2, 2, 2, 2, 3, 2, 3).mean(axis=(2, 4, 6))
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    y = tf.nn.max_pool(X, 2, 2, "VALID").numpy()  # rank 5: the 3-D pool
    np.testing.assert_array_equal(y, X[:, :4, :4, :6].reshape(2, 2, 2, 2, 2, 3, 2, 3)
                                  .max(axis=(2, 4, 6)))


def test_pool_dilated_and_conv1d_transpose_and_separable():
    x = rng.standard_normal((1, 5, 5, 1)).astype("float32")
    y = tf.nn.pool(x, [2, 2], "AVG", padding="VALID", dilations=[2, 2]).numpy()
    ref = (x[:, :3, :3] + x[:, 2:, :3] + x[:, :3, 2:] + x[:, 2:, 2:]) / 4
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    g, w = rng.standard_normal((2, 5, 4)).astype("float32"), rng.standard_normal(
        (3, 3, 4)).astype("float32")
    y = tf.nn.conv1d_transpose(g, w, [2, 10, 3], 2, "SAME")
    ref = tf.nn.conv2d_transpose(g[:, None], w[None], [2, 1, 10, 3], [1, 2], "SAME")[:, 0]
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6)
    x = rng.standard_normal((2, 6, 7, 3)).astype("float32")
    dw, pw = rng.standard_normal((3, 3, 3, 2)).astype("float32"), rng.standard_normal(
        (1, 1, 6, 5)).astype("float32")
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME")
    ref = tf.nn.conv2d(tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME"), pw, 1, "VALID")
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6)


# TF 2.21's errors (class, start of the message).
ERRORS = [
    (lambda: tf.nn.conv3d(X, W, 2, "SAME"), TypeError,
     "Expected list for 'strides' argument to 'conv3d' Op, not 2."),
    (lambda: tf.nn.conv3d(X.astype("int32"), W.astype("int32"), [1] * 5, "SAME"),
     tf.errors.InvalidArgumentError, "Value for attr 'T' of int32 is not in the list of "
                                     "allowed values: half, bfloat16, float, double"),
    (lambda: tf.nn.conv3d(X[..., :2], W, [1] * 5, "SAME"), tf.errors.InvalidArgumentError,
     "input and filter must have the same depth: 2 vs 3"),
    (lambda: tf.nn.conv3d(X, W, [2, 1, 1, 1, 1], "VALID"), tf.errors.UnimplementedError,
     "Current implementation does not yet support strides in the batch and depth dimensions."),
    (lambda: tf.nn.conv3d(X.astype("float64"), W.astype("float64"), [1] * 5, "SAME",
                          dilations=[1, 2, 1, 1, 1]), tf.errors.InvalidArgumentError,
     "CPU implementation of Conv3D currently only supports dilated rates of 1."),
    (lambda: tf.nn.conv3d(X, W, [1] * 5, [[0, 0]] * 5), TypeError,
     "Expected string for argument 'padding'"),
    (lambda: tf.nn.max_pool3d(X, [2, 2], 2, "SAME"), ValueError,
     "ksize should be of length 1, 3 or 5. Received: ksize=[2, 2] of length 2"),
    (lambda: tf.nn.max_pool3d(X, [2, 2, 2, 2, 1], 2, "SAME"), tf.errors.UnimplementedError,
     "Pooling is not yet supported on the batch dimension."),
    (lambda: tf.nn.max_pool3d(X.astype("float64"), 2, 2, "SAME"),
     tf.errors.InvalidArgumentError, "Value for attr 'T' of double is not in the list of "
                                     "allowed values: half, bfloat16, float"),
    (lambda: tf.nn.avg_pool3d(X.astype("float64"), 2, 2, "SAME"), tf.errors.NotFoundError,
     "Could not find device for node: {{node AvgPool3D}}"),
    (lambda: tf.nn.conv3d_transpose(rng.standard_normal((2, 4, 5, 6, 4)), W.astype("float64"),
                                    [2, 4, 5, 6, 3], 1, "SAME", dilations=2),
     tf.errors.InvalidArgumentError, "Current CPU implementation does not yet support "
                                     "dilation rates larger than 1."),
    (lambda: tf.nn.pool(X[:, 0], [2, 2], "MIN", padding="SAME"), ValueError,
     "2-D MIN pooling is not supported."),
    (lambda: tf.nn.pool(X[:, 0], [2, 2], "AVG", padding="SAME", dilations=[2, 2]), ValueError,
     "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1."),
    (lambda: tf.nn.pool(X[:, 0], [2, 2], "MAX", strides=[3, 1]), ValueError,
     "`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
     "implementations."),
    (lambda: tf.nn.separable_conv2d(X[:, 0], np.ones((3, 3, 3, 2), "f"), np.ones((2, 1, 6, 5),
                                                                                   "f"),
                                    [1, 1, 1, 1], "SAME"), ValueError,
     "Dimensions 2 and 1 are not compatible"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_tensorflow(index):
    f, cls, message = ERRORS[index]
    with pytest.raises(cls) as info:
        f()
    assert str(info.value).startswith(message) or message in str(info.value)
