"""GradientTape.jacobian / batch_jacobian: shapes, None/zero rules and errors as TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

X = [[1.0, 2.0], [3.0, 4.0]]
EXPECTED = [[[2.0, 4.0], [0.0, 0.0]], [[0.0, 0.0], [6.0, 8.0]]]


def _record():
    x, u = tf.constant(X), tf.constant([5.0, 6.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = tf.reduce_sum(x * x, axis=1)
        n = tf.cast(y, tf.int32)
    return tape, x, u, y, n


def test_jacobian_values_and_unconnected_sources():
    tape, x, u, y, n = _record()
    jx, ju = tape.jacobian(y, [x, u])
    assert jx.shape == (2, 2, 2) and ju is None
    np.testing.assert_array_equal(jx.numpy(), EXPECTED)
    zero = tape.jacobian(y, u, unconnected_gradients="zero")
    assert zero.shape == (2, 2) and not zero.numpy().any()
    looped = tape.jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_array_equal(looped.numpy(), EXPECTED)
    assert tape.jacobian(y, {"a": x})["a"].shape == (2, 2, 2)


def test_jacobian_of_integer_target():
    tape, x, u, y, n = _record()
    assert tape.jacobian(n, x) is None
    zero = tape.jacobian(n, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.shape == (2, 2, 2) and zero.dtype == tf.float32


def test_jacobian_of_the_source_itself_is_the_identity():
    tape, x, *_ = _record()
    j = tape.jacobian(x, x)
    assert j.shape == (2, 2, 2, 2)
    np.testing.assert_array_equal(j.numpy().reshape(4, 4), np.eye(4))


def test_batch_jacobian_values_and_unconnected_is_zeros_of_target_dtype():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.stack([x[:, 0] * x[:, 1], tf.sin(x[:, 0])], axis=1)
    bj = tape.batch_jacobian(y, x)
    expected = [[[2.0, 1.0], [np.cos(1.0), 0.0]], [[4.0, 3.0], [np.cos(3.0), 0.0]]]
    np.testing.assert_allclose(bj.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tape.batch_jacobian(y, x, experimental_use_pfor=False).numpy(),
                               expected, rtol=1e-6)
    other = tf.constant([[5.0], [6.0]])
    unconnected = tape.batch_jacobian(y, other)
    assert unconnected.shape == (2, 2, 1) and not unconnected.numpy().any()


def test_batch_jacobian_errors():
    tape, x, u, y, n = _record()
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        tape.batch_jacobian(y, x)
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        tape.batch_jacobian(tf.reshape(y, (2, 1))[:1], x)


def test_loop_needs_a_persistent_tape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="must be created with persistent=True"):
        tape.jacobian(y, x, experimental_use_pfor=False)


def test_non_persistent_tape_allows_one_jacobian():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])
    with pytest.raises(RuntimeError, match="can only be used to compute one set"):
        tape.jacobian(y, x)


def test_batched_pass_through_layout_ops_and_custom_gradients():
    @tf.custom_gradient
    def double(v):
        return v * 2.0, lambda dy: dy * 2.0

    rng = np.random.default_rng(0)
    a = tf.constant(rng.normal(size=(3, 4)))
    b = tf.constant(rng.normal(size=(4, 2)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        m = tf.matmul(a, b)
        parts = tf.split(tf.concat([m, tf.transpose(a[:2, 1:3], (1, 0))], axis=0), [3, 2], axis=0)
        z = double(tf.reduce_prod(tf.tile(parts[1], [1, 2]), axis=0)) + tf.reduce_mean(parts[0])
    for source in (a, b):
        fast = tape.jacobian(z, source)
        slow = tape.jacobian(z, source, experimental_use_pfor=False)
        np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12)


def test_parallel_iterations_chunks_give_the_same_answer():
    x = tf.constant(np.linspace(0.1, 1.0, 7))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.sin(x)[:, None] * tf.cos(x)[None, :]
    whole = tape.jacobian(y, x)
    chunked = tape.jacobian(y, x, parallel_iterations=3)
    np.testing.assert_array_equal(whole.numpy(), chunked.numpy())
