"""IndexedSlices gradients of gather/embedding_lookup and their consumers (vs TF 2.21)."""

import numpy as np
import pytest

import tapeflow as tf

X = np.arange(12, dtype=np.float64).reshape(3, 4)


def _grad(f, x=None):
    x = tf.constant(X) if x is None else x
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_gather_gradient_is_indexed_slices_of_variable():
    p = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as tape:
        y = tf.gather(p, tf.constant([[0, 2], [2, 1]]))
        loss = tf.reduce_sum(y * y)
    g = tape.gradient(loss, p)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 2, 1])
    np.testing.assert_array_equal(g.values.numpy(), [[0, 2, 4], [12, 14, 16], [12, 14, 16],
                                                     [6, 8, 10]])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [4, 3])
    assert g.dense_shape.dtype == tf.int32 and g.indices.dtype == tf.int32
    # duplicates add up when densified
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy()[2], [24, 28, 32])


def test_int64_and_scalar_indices():
    g = _grad(lambda x: tf.gather(x, tf.constant([1], tf.int64)))
    assert g.indices.dtype == tf.int64
    g = _grad(lambda x: tf.gather(x, 1))
    assert g.values.shape == (1, 4)
    np.testing.assert_array_equal(g.indices.numpy(), [1])


def test_other_axes_and_batch_dims_are_dense():
    assert type(_grad(lambda x: tf.gather(x, [1, 1], axis=1))) is tf.Tensor
    assert type(_grad(lambda x: tf.gather(x, [[1], [2], [0]], batch_dims=1, axis=1))) \
        is tf.Tensor


def test_embedding_lookup_with_max_norm():
    g = _grad(lambda x: tf.nn.embedding_lookup(x, [[1, 1], [0, 2]], max_norm=1.0))
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [1, 1, 0, 2])
    np.testing.assert_allclose(g.values.numpy()[2],
                               [0.26726124, 0.15272071, 0.03818018, -0.07636035], rtol=1e-6)


def test_aggregation_concatenates_or_densifies():
    g = _grad(lambda x: tf.reduce_sum(tf.gather(x, [1])) + tf.reduce_sum(tf.gather(x, [2, 0])))
    np.testing.assert_array_equal(g.indices.numpy(), [1, 2, 0])  # TF's order
    g = _grad(lambda x: tf.reduce_sum(tf.gather(x, tf.constant([1], tf.int64)))
              + tf.reduce_sum(tf.gather(x, [2])))
    assert g.indices.dtype == tf.int64
    g = _grad(lambda x: tf.reduce_sum(tf.gather(x, [1])) + tf.reduce_sum(x * x))
    assert type(g) is tf.Tensor
    np.testing.assert_array_equal(g.numpy(), 2 * X + [[0], [1], [0]])


def test_second_order_through_gather():
    x = tf.constant(X / 10)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.sin(tf.gather(x, [2, 0, 2])))
        g = inner.gradient(y, x)
        z = tf.reduce_sum(tf.convert_to_tensor(g) ** 2)
    h = outer.gradient(z, x)
    assert isinstance(h, tf.IndexedSlices)
    np.testing.assert_array_equal(h.indices.numpy(), [2, 0, 2])
    np.testing.assert_allclose(h.values.numpy()[1], [-0., -0.19866933, -0.38941834, -0.56464247],
                               rtol=1e-7, atol=1e-12)


def test_jacobian_zero_unconnected_and_forward():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.gather(x, [2, 0, 2])
    jac = tape.jacobian(y, x)
    assert jac.shape == (3, 4, 3, 4)
    assert float(tf.reduce_sum(tape.jacobian(y, x, experimental_use_pfor=False))) == 12.0
    assert float(tf.reduce_sum(jac)) == 12.0
    zero = tape.gradient(y, tf.constant(1.0, tf.float64), unconnected_gradients="zero")
    assert float(zero) == 0.0
    with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
        y = tf.gather(x, [2, 0, 2])
    np.testing.assert_array_equal(acc.jvp(y).numpy(), np.ones((3, 4)))


IDS = np.array([[0, 2, 2], [1, 2, 4]])
INIT = np.arange(18, dtype=np.float32).reshape(6, 3) / 10


def _train(optimizer, dense, steps=3):
    v = tf.Variable(INIT)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            y = tf.gather(v, IDS)
            loss = tf.reduce_sum(tf.sin(y) * y)
        g = tape.gradient(loss, v)
        assert isinstance(g, tf.IndexedSlices)
        optimizer.apply_gradients([(tf.convert_to_tensor(g) if dense else g, v)])
    return v.numpy()


# Keras 3 (TF backend) after 3 steps with IndexedSlices gradients: row 2 (index repeated).
KERAS_ROW2 = {
    "sgd": ([0.04723407, 0.05929625, 0.07375395], lambda: tf.keras.optimizers.SGD(0.1)),
    "adam": ([0.09418626, 0.1893053, 0.28620744], lambda: tf.keras.optimizers.Adam(0.1)),
    "adagrad": ([0.2520788, 0.34071684, 0.4319379], lambda: tf.keras.optimizers.Adagrad(0.1)),
    "rmsprop": ([6.1477884e-04, 3.8166530e-05, 5.3758221e-03],
                lambda: tf.keras.optimizers.RMSprop(0.1)),
    "adam_clipnorm": ([0.0867635, 0.18317193, 0.28127745],
                      lambda: tf.keras.optimizers.Adam(0.1, clipnorm=1.0)),
    "sgd_clipvalue": ([0.14999996, 0.2499999, 0.3499999],
                      lambda: tf.keras.optimizers.SGD(0.1, clipvalue=0.5)),
}


@pytest.mark.parametrize("name", sorted(KERAS_ROW2))
def test_optimizers_apply_slices_as_keras(name):
    expected, make = KERAS_ROW2[name]
    np.testing.assert_allclose(_train(make(), dense=False)[2], expected, rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("make", [lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                  lambda: tf.keras.optimizers.SGD(0.1)])
def test_sgd_sparse_equals_dense(make):
    np.testing.assert_allclose(_train(make(), dense=False), _train(make(), dense=True),
                               rtol=1e-6, atol=1e-7)


def test_adam_untouched_rows_and_dense_rows_agree():
    # Rows never gathered stay put; rows gathered once match the dense gradient's update.
    sparse = _train(tf.keras.optimizers.Adam(0.1), dense=False)
    dense = _train(tf.keras.optimizers.Adam(0.1), dense=True)
    np.testing.assert_array_equal(sparse[[3, 5]], INIT[[3, 5]])
    np.testing.assert_allclose(sparse[[0, 1, 4]], dense[[0, 1, 4]], rtol=1e-6, atol=1e-7)


def test_embedding_model_step_under_tf_function():
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2) / 10)
    opt = tf.keras.optimizers.Adam(0.1)
    eager = tf.Variable(emb.numpy())
    opt_eager = tf.keras.optimizers.Adam(0.1)
    ids = tf.constant([[0, 2, 2], [1, 2, 4]])

    def step(table, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sin(tf.gather(table, ids)))
        optimizer.apply_gradients([(tape.gradient(loss, table), table)])
        return loss

    traced = tf.function(lambda: step(emb, opt))
    for _ in range(3):
        traced()
        step(eager, opt_eager)
    np.testing.assert_allclose(emb.numpy(), eager.numpy(), rtol=1e-6)
