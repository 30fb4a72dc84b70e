"""tf.vectorized_map and tf.recompute_grad, against values from TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_vectorized_map_per_example_function():
    out = tf.vectorized_map(lambda r: tf.reduce_sum(r * r), tf.constant(X))
    assert out.shape == (3,) and out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [5.0, 25.0, 61.0])


def test_vectorized_map_nested_inputs_and_outputs():
    a, b = tf.vectorized_map(lambda e: (e[0] + e[1], e[0] * 2.0),
                             (tf.constant(X), tf.constant([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(a.numpy(), [[2.0, 3.0], [5.0, 6.0], [8.0, 9.0]])
    np.testing.assert_array_equal(b.numpy(), [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]])


def test_vectorized_map_is_differentiable():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.vectorized_map(lambda r: tf.sin(r) * r[0], x)
    expected = [[2.2910707, -0.41614684], [-3.58566, -1.9609308], [0.17997122, 4.8008513]]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_vectorized_map_rejects_mismatched_batches():
    with pytest.raises(ValueError):
        tf.vectorized_map(lambda e: e[0], (tf.constant([1.0, 2.0]), tf.constant([1.0])))


def _block_and_variable():
    v = tf.Variable(np.array([[0.5, -1.0], [2.0, 1.0]]))
    return (lambda h: tf.tanh(tf.matmul(h, v)) * h), v


def test_recompute_grad_gives_the_same_gradients_as_plain_backprop():
    block, v = _block_and_variable()
    x = tf.constant(np.array(X) * 0.3)
    grads = []
    for fn in (block, tf.recompute_grad(block)):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x) ** 2)
        grads.append((y.numpy(), *[g.numpy() for g in tape.gradient(y, [x, v])]))
    for plain, recomputed in zip(*grads):
        np.testing.assert_allclose(recomputed, plain, rtol=1e-12)


def test_recompute_grad_matches_tensorflow_values():
    v = tf.Variable([[0.5, -1.0], [2.0, 1.0]])
    block = tf.recompute_grad(lambda h: tf.tanh(tf.matmul(h, v)) * h)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(block(x) ** 2)
    gx, gv = tape.gradient(y, [x, v])
    assert y.numpy() == pytest.approx(67.48094, rel=1e-6)
    np.testing.assert_allclose(gx.numpy(), [[-0.5592936, 4.8808765], [-4.2352, 14.875405],
                                            [-13.0292, 29.989508]], rtol=1e-5)
    np.testing.assert_allclose(gv.numpy()[:, 1], [148.4104, 184.2336], rtol=1e-5)


def test_recompute_grad_does_not_record_the_inner_forward_pass():
    recorded = []
    x = tf.constant([1.0, 2.0])
    block = tf.recompute_grad(lambda h: tf.sin(h) * tf.cos(h))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = block(x)
        recorded.append(len(tape._nodes))
    assert recorded == [1]  # only the recompute_grad node itself
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(2 * x.numpy()), rtol=1e-6)


def test_recompute_grad_reaches_variables_read_inside_with_an_unwatched_input():
    # TF 2.21: d(z*v*v)/dv = 2*z*v = 12.0 with v=2, z=3; z (a constant, not watched) -> None.
    v = tf.Variable(2.0)
    z = tf.constant(3.0)
    f = tf.recompute_grad(lambda z: z * v * v)
    with tf.GradientTape() as tape:
        y = f(z)
    assert float(y.numpy()) == 12.0
    assert float(tape.gradient(y, v).numpy()) == 12.0


def test_recompute_grad_of_a_dense_layer_on_a_constant_input():
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
    x = tf.constant([[1.0, 2.0]])
    layer(x)
    f = tf.recompute_grad(lambda x: layer(x) ** 2)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(f(x))
    kernel, bias = tape.gradient(y, [layer.kernel, layer.bias])
    # TF 2.21's answers.
    assert kernel.numpy().tolist() == [[6.0, 6.0], [12.0, 12.0]]
    assert bias.numpy().tolist() == [6.0, 6.0]
