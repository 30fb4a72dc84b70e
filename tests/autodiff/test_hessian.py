"""Hessians three ways (nested tapes with jacobian, forward-over-reverse, finite differences),
and the tapeflow additions `tapeflow.autodiff.hessian` / `hessian_vector_product`."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow.autodiff import hessian, hessian_vector_product

N = 100


def f(x):
    # Couples every pair of coordinates, so the Hessian is dense.
    return tf.reduce_sum(tf.sin(x) * tf.reduce_sum(x ** 2)) + tf.reduce_mean(tf.exp(x * 0.1)) ** 2


def f_numpy(x: np.ndarray) -> float:
    return float(np.sum(np.sin(x) * np.sum(x ** 2)) + np.mean(np.exp(x * 0.1)) ** 2)


def _x() -> np.ndarray:
    return np.random.default_rng(0).uniform(-1.0, 1.0, size=N)


def _nested_tapes(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


def _forward_over_reverse(x):
    columns = []
    for i in range(N):
        e = np.zeros(N)
        e[i] = 1.0
        with tf.autodiff.ForwardAccumulator(x, tf.constant(e)) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
        columns.append(acc.jvp(g).numpy())
    return np.stack(columns, axis=1)


def _finite_differences(x: np.ndarray, h: float = 1e-3) -> np.ndarray:
    # Central second differences of f itself (no derivative code involved).
    hess = np.empty((N, N))
    eye = np.eye(N) * h
    f0 = f_numpy(x)
    for i in range(N):
        for j in range(i, N):
            if i == j:
                value = (f_numpy(x + eye[i]) - 2 * f0 + f_numpy(x - eye[i])) / h ** 2
            else:
                value = (f_numpy(x + eye[i] + eye[j]) - f_numpy(x + eye[i] - eye[j])
                         - f_numpy(x - eye[i] + eye[j]) + f_numpy(x - eye[i] - eye[j])) / (4 * h * h)
            hess[i, j] = hess[j, i] = value
    return hess


def test_hessian_of_a_100_dimensional_function_three_ways():
    xv = _x()
    x = tf.constant(xv)
    by_tapes = _nested_tapes(x).numpy()
    by_forward = _forward_over_reverse(x)
    by_differences = _finite_differences(xv)
    assert by_tapes.shape == (N, N)
    np.testing.assert_allclose(by_tapes, by_forward, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(by_tapes, by_differences, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hessian(f, x).numpy(), by_tapes, rtol=1e-12, atol=1e-12)


def test_hessian_vector_product_matches_the_hessian():
    xv = _x()
    v = np.random.default_rng(1).normal(size=N)
    x = tf.constant(xv)
    hv = hessian_vector_product(f, x, tf.constant(v))
    np.testing.assert_allclose(hv.numpy(), hessian(f, x).numpy() @ v, rtol=1e-10, atol=1e-10)


def test_hessian_keeps_float32_and_shapes_of_matrix_inputs():
    x = tf.constant([[1.0, 2.0], [3.0, 0.5]])
    h = hessian(lambda m: tf.reduce_sum(m * m * m), x)
    assert h.shape == (2, 2, 2, 2) and h.dtype == tf.float32
    np.testing.assert_allclose(h.numpy().reshape(4, 4), np.diag(6 * x.numpy().ravel()))


def test_hessian_of_a_linear_function_is_zero():
    x = tf.constant([1.0, 2.0])
    h = hessian(lambda v: tf.reduce_sum(v * 3.0), x)
    assert h.shape == (2, 2) and not h.numpy().any()
    hv = hessian_vector_product(lambda v: tf.reduce_sum(v * 3.0), x, [1.0, 1.0])
    assert hv.shape == (2,) and not hv.numpy().any()


def test_hessian_with_respect_to_a_variable():
    v = tf.Variable([1.0, 2.0])
    h = hessian(lambda w: tf.reduce_sum(w ** 3.0), v)
    np.testing.assert_allclose(h.numpy(), [[6.0, 0.0], [0.0, 12.0]])
