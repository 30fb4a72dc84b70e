"""tf.nn activations, softmax and cross-entropies: values, dtypes, gradients and errors.

Expected numbers were printed by TensorFlow 2.21 (the reference install) for the same inputs.
float32 results may differ from TensorFlow's in the last unit (its kernels use vectorized
approximations of exp/tanh), hence rtol=1e-6.
"""

import numpy as np
import pytest

import tapeflow as tf

X = [[-2.5, -0.5, 0.0, 0.7, 3.0, 7.0]]
RTOL = 1e-6

# name -> TensorFlow 2.21's output for tf.nn.<name>(tf.constant(X)) (float32)
ACTIVATIONS = {
    "relu": [0.0, 0.0, 0.0, 0.7, 3.0, 7.0],
    "relu6": [0.0, 0.0, 0.0, 0.7, 3.0, 6.0],
    "elu": [-0.917915, -0.39346933, 0.0, 0.7, 3.0, 7.0],
    "selu": [-1.6137857, -0.69175816, 0.0, 0.7354907, 3.152103, 7.354907],
    "leaky_relu": [-0.5, -0.1, 0.0, 0.7, 3.0, 7.0],
    "gelu": [-0.015524164, -0.15426877, 0.0, 0.5306254, 2.9959502, 7.0],
    "silu": [-0.18964544, -0.18877034, 0.0, 0.46773145, 2.8577223, 6.993623],
    "swish": [-0.18964544, -0.18877034, 0.0, 0.46773145, 2.8577223, 6.993623],
    "softmax": [7.3262629e-05, 5.4134167e-04, 8.9252158e-04, 1.7973174e-03, 1.7926773e-02,
                9.7876877e-01],
    "log_softmax": [-9.52146, -7.52146, -7.02146, -6.3214602, -4.02146, -0.02145988],
    "sigmoid": [0.075858176, 0.37754068, 0.5, 0.6681878, 0.95257413, 0.99908894],
    "tanh": [-0.98661435, -0.46211714, 0.0, 0.60436773, 0.9950547, 0.99999833],
    "softplus": [0.078889735, 0.474077, 0.6931472, 1.103186, 3.0485873, 7.0009117],
}

# d/dx sum(tf.nn.<name>(x)) at XG, from TensorFlow 2.21: kinks take TF's one-sided values.
XG = [-1.0, 0.0, 2.0, 6.0, 7.0]
ACTIVATION_GRADS = {
    "relu": [0.0, 0.0, 1.0, 1.0, 1.0],
    "relu6": [0.0, 0.0, 1.0, 0.0, 0.0],
    "elu": [0.36787945, 1.0, 1.0, 1.0, 1.0],
    "selu": [0.64676857, 1.050701, 1.050701, 1.050701, 1.050701],
    "leaky_relu": [0.2, 0.2, 1.0, 1.0, 1.0],
    "gelu": [-0.08331549, 0.5, 1.0852318, 1.0, 1.0],
    "silu": [0.072329484, 0.5, 1.0907842, 1.0123265, 1.0054606],
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values(name):
    y = getattr(tf.nn, name)(tf.constant(X))
    assert y.dtype == tf.float32 and y.shape == (1, 6)
    np.testing.assert_allclose(y.numpy()[0], ACTIVATIONS[name], rtol=RTOL, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ACTIVATION_GRADS))
def test_activation_gradients_at_kinks(name):
    x = tf.constant(XG)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tf.nn, name)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), ACTIVATION_GRADS[name], rtol=RTOL)


def test_activations_keep_float64():
    x = tf.constant([-1.0, 0.5], dtype=tf.float64)
    for name in ACTIVATIONS:
        assert getattr(tf.nn, name)(x).dtype == tf.float64, name


def test_gelu_approximate_and_leaky_alpha():
    x = tf.constant(X)
    np.testing.assert_allclose(  # TF 2.21: tf.nn.gelu(x, approximate=True)
        tf.nn.gelu(x, approximate=True).numpy()[0],
        [-0.015084222, -0.154286, 0.0, 0.53057015, 2.9963627, 7.0], rtol=RTOL)
    np.testing.assert_allclose(tf.nn.leaky_relu(x, 0.1).numpy()[0],
                               [-0.25, -0.05, 0.0, 0.7, 3.0, 7.0], rtol=RTOL)


def test_relu_keeps_integers_and_leaky_relu_casts_them():
    r = tf.nn.relu(tf.constant([-1, 2]))
    assert r.dtype == tf.int32 and r.numpy().tolist() == [0, 2]
    lr = tf.nn.leaky_relu(tf.constant([-1, 2]))
    assert lr.dtype == tf.float32
    np.testing.assert_allclose(lr.numpy(), [-0.2, 2.0], rtol=RTOL)


def test_float_only_activations_reject_integers():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:Elu\]"):
        tf.nn.elu(tf.constant([-1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:Softmax\]"):
        tf.nn.softmax(tf.constant([-1, 2]))
    with pytest.raises(ValueError, match=r"must be a floating point tensor.*int32"):
        tf.nn.gelu(tf.constant([-1, 2]))


def test_softmax_along_other_axis():
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    # TF 2.21: softmax / log_softmax with axis=0
    np.testing.assert_allclose(tf.nn.softmax(x, axis=0).numpy(),
                               [[0.11920291, 0.047425874], [0.880797, 0.95257413]], rtol=RTOL)
    np.testing.assert_allclose(tf.nn.log_softmax(x, axis=0).numpy(),
                               [[-2.126928, -3.0485873], [-0.12692805, -0.04858733]], rtol=RTOL)


def test_softmax_is_stable_for_huge_logits():
    x = tf.constant([1000.0, 0.0, -1000.0])
    np.testing.assert_allclose(tf.nn.softmax(x).numpy(), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(tf.nn.log_softmax(x).numpy(), [0.0, -1000.0, -2000.0])


def test_softmax_bad_axis_and_scalar():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"`dim` must be in the range \[-2, 2\).*Received: dim=2"):
        tf.nn.softmax(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=2)
    with pytest.raises(tf.errors.AbortedError, match=r"Input dims must be.*\[Op:Softmax\]"):
        tf.nn.softmax(tf.constant(1.0))


LOGITS = [[1.0, 2.0, 3.0], [1.0, -1.0, 0.5]]
LABELS = [[0.0, 0.0, 1.0], [0.2, 0.3, 0.5]]


def test_softmax_cross_entropy_values_and_gradients():
    logits, labels = tf.constant(LOGITS), tf.constant(LABELS)
    with tf.GradientTape() as tape:
        tape.watch([logits, labels])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
    d_logits, d_labels = tape.gradient(loss, [logits, labels])
    # All from TF 2.21.
    assert loss.dtype == tf.float32 and loss.shape == (2,)
    np.testing.assert_allclose(loss.numpy(), [0.40760595, 1.404957], rtol=RTOL)
    np.testing.assert_allclose(d_logits.numpy(), [[0.09003057, 0.24472848, -0.33475906],
                                                  [0.374097, -0.22230443, -0.15179259]],
                               rtol=RTOL)
    np.testing.assert_allclose(d_labels.numpy(), [[2.407606, 1.4076059, 0.40760595],
                                                  [0.554957, 2.554957, 1.0549569]], rtol=RTOL)


def test_softmax_cross_entropy_axis_and_label_cast():
    logits, labels = tf.constant(LOGITS), tf.constant(LABELS)
    loss0 = tf.nn.softmax_cross_entropy_with_logits(tf.transpose(labels), tf.transpose(logits),
                                                    axis=0)
    np.testing.assert_allclose(loss0.numpy(), [0.40760595, 1.404957], rtol=RTOL)
    # TF casts the labels to the logits' dtype.
    loss64 = tf.nn.softmax_cross_entropy_with_logits(tf.cast(labels, tf.float64), logits)
    assert loss64.dtype == tf.float32


def test_softmax_cross_entropy_shape_error():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"logits and labels must be broadcastable: logits_size=\[2,3\] "
                             r"labels_size=\[2,2\] \[Op:SoftmaxCrossEntropyWithLogits\]"):
        tf.nn.softmax_cross_entropy_with_logits(tf.constant(LABELS)[:, :2], tf.constant(LOGITS))


def test_sparse_softmax_cross_entropy():
    logits = tf.constant(LOGITS)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([2, 0]), logits)
    # TF 2.21
    np.testing.assert_allclose(loss.numpy(), [0.40760595, 0.554957], rtol=RTOL)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(),
                               [[0.09003057, 0.24472848, -0.33475906],
                                [-0.42590302, 0.07769558, 0.3482074]], rtol=RTOL)


def test_sparse_softmax_cross_entropy_errors():
    logits = tf.constant(LOGITS)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Received a label value of 5 which is outside the valid range of "
                             r"\[0, 3\)\.  Label values: 5 0 "
                             r"\[Op:SparseSoftmaxCrossEntropyWithLogits\]"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([5, 0]), logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([-1, 0]), logits)
    with pytest.raises(ValueError, match=r"labels.shape=\(3,\) and logits.shape=\(2, 3\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1, 0, 1]), logits)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"attr 'Tlabels' of float is not in the list"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1.0, 0.0]), logits)


def test_sigmoid_cross_entropy():
    loss = tf.nn.sigmoid_cross_entropy_with_logits(tf.constant(LABELS), tf.constant(LOGITS))
    # TF 2.21
    np.testing.assert_allclose(loss.numpy(), [[1.3132617, 2.126928, 0.048587352],
                                              [1.1132617, 0.6132617, 0.724077]], rtol=RTOL)
    big = tf.nn.sigmoid_cross_entropy_with_logits(tf.constant([1.0, 0.0]),
                                                  tf.constant([-200.0, 200.0]))
    np.testing.assert_allclose(big.numpy(), [200.0, 200.0])  # no overflow
    with pytest.raises(ValueError, match=r"must have the same shape, received \(\(2, 3\) vs "
                                         r"\(2, 2\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(tf.constant(LABELS)[:, :2], tf.constant(LOGITS))


def test_second_derivative_of_softmax_cross_entropy():
    logits = tf.constant([0.5, -1.0, 2.0], dtype=tf.float64)
    labels = tf.constant([0.0, 1.0, 0.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(logits)
        with tf.GradientTape() as inner:
            inner.watch(logits)
            loss = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
        g = inner.gradient(loss, logits)
    hessian_diag = outer.gradient(g, logits)  # sum over rows of diag(p) - p p^T
    np.testing.assert_allclose(hessian_diag.numpy(), np.zeros(3), atol=1e-12)


def test_nn_reexports_math_activations():
    assert tf.nn.sigmoid is tf.math.sigmoid and tf.nn.tanh is tf.math.tanh
    assert tf.nn.softplus is tf.math.softplus


# -- issue 5: normalization, dropout, embeddings -------------------------------------------------

X2 = [[-2.0, 0.5, 3.0], [1.0, -0.2, 4.0]]


def test_softsign_l2_loss_log_sigmoid():
    x = tf.constant(X2)
    np.testing.assert_allclose(tf.nn.softsign(x).numpy(),  # TF 2.21
                               [[-0.6666667, 0.33333334, 0.75], [0.5, -0.16666666, 0.8]],
                               rtol=RTOL)
    np.testing.assert_allclose(tf.nn.l2_loss(x).numpy(), 15.145, rtol=RTOL)
    from tapeflow.ops.nn_ops import log_sigmoid
    np.testing.assert_allclose(log_sigmoid(tf.constant([-100.0, 0.0, 100.0])).numpy(),
                               [-100.0, -0.6931472, 0.0], rtol=RTOL, atol=1e-30)


def test_bias_add():
    x = tf.constant(X2)
    np.testing.assert_array_equal(tf.nn.bias_add(x, [1.0, 2.0, 3.0]).numpy(),
                                  np.float32([[-1.0, 2.5, 6.0], [2.0, 1.8, 7.0]]))
    nchw = tf.nn.bias_add(tf.zeros([1, 2, 2, 2]), [1.0, 2.0], data_format="NCHW")
    np.testing.assert_array_equal(nchw.numpy()[0, :, 0, 0], [1.0, 2.0])
    np.testing.assert_array_equal(nchw.numpy()[0, 1], np.full((2, 2), 2.0))


@pytest.mark.parametrize("call, message", [
    (lambda x: tf.nn.bias_add(x, [1.0, 2.0]), "Must provide as many biases as the last "
     "dimension of the input tensor: [2] vs. [2,3] [Op:BiasAdd]"),
    (lambda x: tf.nn.bias_add(x, [1.0, 2.0], data_format="NCHW"), "Must provide as many "
     "biases as the last dimension of the input tensor: [2] vs. [2,3] [Op:BiasAdd]"),
    (lambda x: tf.nn.bias_add(x, [[1.0, 2.0, 3.0]]), "Biases must be 1D: [1,3] [Op:BiasAdd]"),
    (lambda x: tf.nn.bias_add(tf.constant([1.0]), [1.0]),
     "Input tensor must be at least 2D: [1] [Op:BiasAdd]"),
])
def test_bias_add_errors(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call(tf.constant(X2))
    assert str(info.value) == message


def test_moments_and_batch_normalization():
    x = tf.constant(X2)
    mean, variance = tf.nn.moments(x, axes=[0])
    np.testing.assert_allclose(mean.numpy(), [-0.5, 0.15, 3.5], rtol=RTOL)  # TF 2.21
    np.testing.assert_allclose(variance.numpy(), [2.25, 0.1225, 0.25], rtol=RTOL)
    m, v = tf.nn.moments(x, axes=[0, 1], keepdims=True)
    assert m.shape == (1, 1) and v.shape == (1, 1)
    np.testing.assert_allclose([m.numpy()[0, 0], v.numpy()[0, 0]], [1.0500001, 3.9458332],
                               rtol=RTOL)
    y = tf.nn.batch_normalization(x, mean, variance, tf.constant([0.1, 0.2, 0.3]),
                                  tf.constant([1.0, 2.0, 3.0]), 1e-3)
    np.testing.assert_allclose(y.numpy(), [[-0.8997779, 2.1918864, -2.6940193],  # TF 2.21
                                           [1.0997778, -1.7918864, 3.2940178]], rtol=1e-5)
    y = tf.nn.batch_normalization(x, mean, variance, None, None, 1e-3)
    np.testing.assert_allclose(y.numpy(), [[-0.99977785, 0.9959432, -0.99800634],
                                           [0.99977785, -0.9959432, 0.99800587]], rtol=1e-5)


def test_moments_variance_gradient_treats_the_mean_as_constant():
    x = tf.constant(X2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _, variance = tf.nn.moments(x, [0])
        s = tf.reduce_sum(variance * tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(tape.gradient(s, x).numpy(),  # TF 2.21
                               [[-1.5, 0.7, -1.5], [1.5, -0.70000005, 1.5]], rtol=RTOL)


def test_l2_normalize():
    x = tf.constant(X2)
    np.testing.assert_allclose(tf.nn.l2_normalize(x, axis=1).numpy(),  # TF 2.21
                               [[-0.54944223, 0.13736056, 0.8241633],
                                [0.24225079, -0.04845016, 0.96900314]], rtol=RTOL)
    np.testing.assert_allclose(tf.nn.l2_normalize(x).numpy(),
                               [[-0.36339617, 0.09084904, 0.54509425],
                                [0.18169808, -0.03633962, 0.72679234]], rtol=RTOL)
    np.testing.assert_array_equal(tf.nn.l2_normalize(tf.zeros([2])).numpy(), [0.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.l2_normalize(x, 1) * tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),  # TF 2.21
                               [[0.6064598, 0.46650755, 0.3265553],
                                [0.06312168, 0.5203274, 0.01023591]], rtol=1e-6)


def test_dropout():
    tf.random.set_seed(0)
    x = tf.ones([50, 40])
    y = tf.nn.dropout(x, 0.25).numpy()
    assert set(np.unique(y).tolist()) == {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.05
    shared = tf.nn.dropout(x, 0.5, noise_shape=[50, 1]).numpy()
    assert all(len(set(row.tolist())) == 1 for row in shared)  # one decision per row
    assert tf.nn.dropout(x, 0.0) is x
    tensor_rate = tf.nn.dropout(x, tf.constant(0.5)).numpy()
    assert set(np.unique(tensor_rate).tolist()) <= {0.0, 2.0}
    tf.random.set_seed(4)
    a = tf.nn.dropout(x, 0.5, seed=1).numpy()
    tf.random.set_seed(4)
    np.testing.assert_array_equal(tf.nn.dropout(x, 0.5, seed=1).numpy(), a)


def test_dropout_gradient_is_the_mask():
    v = tf.Variable(tf.ones([200]))
    with tf.GradientTape() as tape:
        y = tf.nn.dropout(v, 0.2)
        total = tf.reduce_sum(y)
    g = tape.gradient(total, v).numpy()
    np.testing.assert_array_equal(g, y.numpy())  # x = 1, so the output is the mask * scale


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the "
                                         r"range \[0, 1\). Received: rate=1.0"):
        tf.nn.dropout(tf.constant(X2), 1.0)
    with pytest.raises(ValueError, match=r"`x.dtype` must be a floating point tensor as `x` "
                                         r"will be scaled. Received: x_dtype=<dtype: 'int32'>"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)


def test_embedding_lookup():
    x = tf.constant(X2)
    np.testing.assert_array_equal(tf.nn.embedding_lookup(x, [1, 0, 1]).numpy(),
                                  np.float32([X2[1], X2[0], X2[1]]))
    clipped = tf.nn.embedding_lookup(x, [[1], [0]], max_norm=2.0)
    assert clipped.shape == (2, 1, 3)
    np.testing.assert_allclose(clipped.numpy()[:, 0], [[0.48450157, -0.09690031, 1.9380063],
                                                       [-1.0988845, 0.27472112, 1.6483268]],
                               rtol=RTOL)  # TF 2.21
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.embedding_lookup(x, [1, 1, 0]))
    grad = tape.gradient(y, x)  # IndexedSlices, as in TF
    np.testing.assert_array_equal(tf.convert_to_tensor(grad).numpy(), [[1, 1, 1], [2, 2, 2]])


# -- nan / inf and second-order behaviour (TF 2.21's answers, printed by the reference install)

SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, 6.0, -100.0]


def test_relu6_and_leaky_relu_at_nan_and_inf():
    x = tf.constant(SPECIAL)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r6, lr = tf.nn.relu6(x), tf.nn.leaky_relu(x)
    # TF 2.21: relu6(nan) is nan (not 6); both gradients are 0 there; leaky_relu's is alpha
    np.testing.assert_array_equal(r6.numpy(), [np.nan, 6.0, 0.0, 0.0, 6.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(r6, x).numpy(), [0.0] * 6)
    np.testing.assert_array_equal(lr.numpy(), [np.nan, np.inf, -np.inf, 0.0, 6.0, -20.0])
    np.testing.assert_allclose(tape.gradient(lr, x).numpy(), [0.2, 1.0, 0.2, 0.2, 1.0, 0.2])


def test_softsign_gradient_at_infinity_is_zero():
    x = tf.constant(SPECIAL)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.softsign(x)
    # TF 2.21: softsign(+-inf) = inf / inf = nan, but its gradient g / (1 + |x|)^2 is 0
    np.testing.assert_array_equal(y.numpy()[:3], [np.nan] * 3)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               [np.nan, 0.0, 0.0, 1.0, 0.020408163, 9.80296e-05], rtol=1e-6)


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu"])
def test_second_derivative_of_piecewise_linear_activations_is_zeros(name):
    x = tf.constant([[-1.5, 0.5, 2.0, 7.0]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = getattr(tf.nn, name)(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    # TF 2.21: zeros of x's shape and dtype (the grad ops' rules give the features zeros)
    assert h is not None and h.dtype == tf.float32 and h.shape == (1, 4)
    np.testing.assert_array_equal(h.numpy(), np.zeros((1, 4)))


def test_float32_softmax_rows_with_nan_or_inf_follow_tensorflow():
    inf, nan = np.inf, np.nan
    rows = [[1.0, inf, 2.0], [inf, inf, 0.0], [-inf, 0.0, 1.0], [-inf, -inf, -inf],
            [nan, 1.0, 2.0]]
    # TF 2.21 float32 (its oneDNN kernel): only the nan / inf - inf entries are nan
    np.testing.assert_allclose(
        tf.nn.softmax(tf.constant(rows)).numpy(),
        [[0.0, nan, 0.0], [nan, nan, 0.0], [0.0, 0.26894143, 0.7310585], [nan, nan, nan],
         [nan, 0.0, 0.0]], rtol=1e-6)
    # float64 rows with a nan or inf are all nan (TF 2.21's Eigen kernel), as log_softmax's
    f64 = tf.nn.softmax(tf.constant(rows, dtype=tf.float64)).numpy()
    assert np.isnan(f64[[0, 1, 3, 4]]).all()
    assert np.isnan(tf.nn.log_softmax(tf.constant(rows)).numpy()[[0, 1, 3, 4]]).all()


def test_softmax_rank_errors_match_tensorflow():
    # TF 2.21: float32 Softmax (oneDNN) takes ranks 1..5 (AbortedError); the other kernels
    # raise InvalidArgumentError for a scalar; log_softmax takes any rank >= 1.
    with pytest.raises(tf.errors.AbortedError,
                       match=r"^Input dims must be <= 5 and >=1 \[Op:Softmax\]$"):
        tf.nn.softmax(tf.zeros((1,) * 6))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^logits must have >= 1 dimension, got \[\] \[Op:LogSoftmax\]$"):
        tf.nn.log_softmax(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^logits must have >= 1 dimension, got \[\] \[Op:Softmax\]$"):
        tf.nn.softmax(tf.constant(1.0, dtype=tf.float64))
    assert tf.nn.log_softmax(tf.zeros((1,) * 6)).shape == (1,) * 6
    assert tf.nn.softmax(tf.zeros((1,) * 6, dtype=tf.float64)).shape == (1,) * 6


# -- round-2 differential findings (TF 2.21's answers, printed by the reference install) -------

def _value_grad_grad2(f, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d = inner.gradient(y, x)
    return y.numpy().tolist(), d.numpy().tolist(), outer.gradient(d, x).numpy().tolist()


def test_leaky_relu_alpha_is_a_float32_attr_even_for_float64():
    x = tf.constant([-1.0, 2.0], tf.float64)
    assert _value_grad_grad2(tf.nn.leaky_relu, x) == (
        [-0.20000000298023224, 2.0], [0.20000000298023224, 1.0], [0.0, 0.0])
    assert tf.nn.leaky_relu(tf.constant([-3.0], tf.float64), alpha=0.3).numpy().tolist() == \
        [-0.9000000357627869]


def test_elu_is_exp_minus_one_and_its_grad_reads_the_output():
    # elu(-1e-30) = exp(x) - 1 = 0 (not expm1's -1e-30); the output 0 takes the x >= 0 branch
    x64 = tf.constant([-1e-30, -1e-20, -0.5, 2.0], tf.float64)
    assert _value_grad_grad2(tf.nn.elu, x64) == (
        [0.0, 0.0, -0.3934693402873666, 2.0], [1.0, 1.0, 0.6065306597126334, 1.0],
        [0.0, 0.0, 0.6065306597126334, 0.0])
    x32 = tf.constant([-1e-10, -0.5, 2.0], tf.float32)
    assert _value_grad_grad2(tf.nn.elu, x32) == (
        [0.0, -0.39346933364868164, 2.0], [1.0, 0.6065306663513184, 1.0],
        [0.0, 0.6065306663513184, 0.0])


def test_selu_grad_reads_the_output():
    x32 = tf.constant([-1e-9, -0.5, 2.0], tf.float32)
    assert _value_grad_grad2(tf.nn.selu, x32) == (
        [0.0, -0.6917581558227539, 2.1014020442962646],
        [1.0507010221481323, 1.0663411617279053, 1.0507010221481323],
        [0.0, 1.0663411617279053, 0.0])
    x64 = tf.constant([-1e-30, -0.5, 2.0], tf.float64)
    assert _value_grad_grad2(tf.nn.selu, x64) == (
        [0.0, -0.6917581878028713, 2.101401974710961],
        [1.0507009873554805, 1.0663411530445055, 1.0507009873554805],
        [0.0, 1.0663411530445055, 0.0])


def test_moments_of_complex_input_has_the_real_variance():
    x = tf.constant([[1 + 1j, 2 - 1j], [0.5j, 3]], tf.complex64)
    mean, variance = tf.nn.moments(x, [0])
    assert mean.numpy().tolist() == [0.5 + 0.75j, 2.5 - 0.5j]
    assert variance.numpy().tolist() == [0.3125 + 0j, 0.5 + 0j]
    assert tf.nn.moments(tf.constant([1 + 1j, 2 - 1j], tf.complex64), [0])[1].numpy() == 1.25


@pytest.mark.parametrize("axis, shape, text", [
    (-2, (3, 1), "Requires start <= limit when delta > 0: 0/-2 [Op:Range]"),
    (-3, (2, 3, 1), "Requires start <= limit when delta > 0: 0/-3 [Op:Range]"),
    (3, (2, 3, 4), "Requires start <= limit when delta > 0: 4/3 [Op:Range]"),
    (-1, (), "Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when "
             "input.dim_size(0) == 0 [Op:Slice]"),
])
def test_softmax_cross_entropy_rejects_what_tensorflow_rejects(axis, shape, text):
    # TF moves an axis other than -1 last with range(axis): any other negative axis fails
    x = tf.constant(np.ones(shape, np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.nn.softmax_cross_entropy_with_logits(x, x, axis=axis)
    assert str(info.value) == text


def test_softmax_cross_entropy_kernel_formula_at_minus_inf_and_empty_classes():
    # TF's kernel sums labels * (log(sum(exp)) - shifted): 0 * inf is nan; no classes give +0
    loss = tf.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[-np.inf, 1.0]])
    assert np.isnan(loss.numpy()).all()
    empty = tf.nn.softmax_cross_entropy_with_logits(np.zeros((2, 0), np.float32),
                                                    np.zeros((2, 0), np.float32))
    assert empty.numpy().tolist() == [0.0, 0.0] and not np.signbit(empty.numpy()).any()


def test_softmax_cross_entropy_labels_flatten_and_broadcast_as_tensorflow():
    np.testing.assert_allclose(tf.nn.softmax_cross_entropy_with_logits(
        [0.25, 0.75], [[1.0, 2.0], [3.0, 5.0]]).numpy(),
        [0.5632616281509399, 0.6269280910491943], rtol=RTOL)
    labels = tf.constant(np.arange(12.0).reshape(6, 2) / 12, tf.float32)
    logits = tf.constant(np.arange(12.0).reshape(2, 3, 2), tf.float32)
    np.testing.assert_allclose(
        tf.nn.softmax_cross_entropy_with_logits(labels, logits).numpy(),
        [[0.026105139404535294, 0.29719236493110657, 0.5682795643806458],
         [0.8393667936325073, 1.1104540824890137, 1.3815412521362305]], rtol=RTOL)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits_size=\[6,4\] "
                                                             r"labels_size=\[3,1\]"):
        tf.nn.softmax_cross_entropy_with_logits(np.ones((1, 3, 1), np.float32),
                                                np.ones((2, 3, 4), np.float32))


def test_sparse_cross_entropy_needs_a_class():
    # TF 2.21: logits with an empty class axis raise; a rank mismatch is checked first.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits shape \[3,0\]"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant([0, 1, 2]), logits=tf.zeros([3, 0]))
    with pytest.raises(ValueError):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.zeros([0], tf.int32), logits=tf.zeros([0]))
