"""tf.experimental.numpy differentiates through tf.GradientTape (checked against central
differences, first and second order) and traces in tf.function with its eager answers."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.experimental.numpy as tnp
from tapeflow.experimental.numpy import _behavior

X = np.array([[0.3, -0.7, 1.2], [0.9, 0.4, -1.1]])
W = np.array([[0.5, 0.1], [-0.2, 0.8], [0.3, -0.6]])

# Each maps one float64 (2, 3) tensor to a tensor; the loss is its weighted sum.
FUNCTIONS = {
    "sin": tnp.sin, "exp": tnp.exp, "tanh": tnp.tanh, "square": tnp.square,
    "sqrt": lambda x: tnp.sqrt(tnp.abs(x) + 1), "log": lambda x: tnp.log(x * x + 1),
    "cbrt": lambda x: tnp.cbrt(x + 3), "sinc": tnp.sinc, "exp2": tnp.exp2,
    "hypot": lambda x: tnp.hypot(x, 2.0), "arctan2": lambda x: tnp.arctan2(x, 1.5),
    "logaddexp": lambda x: tnp.logaddexp(x, 0.5), "logaddexp2": lambda x: tnp.logaddexp2(x, x),
    "power": lambda x: tnp.power(x, 3), "true_divide": lambda x: tnp.true_divide(x, x * x + 1),
    "clip": lambda x: tnp.clip(x, -0.5, 0.8), "maximum": lambda x: tnp.maximum(x, 0.35),
    "where": lambda x: tnp.where(x > 0, x * x, -x),
    "sum": lambda x: tnp.sum(x * x, axis=1), "mean": lambda x: tnp.mean(x ** 2, 0),
    "prod": lambda x: tnp.prod(x, 1), "var": lambda x: tnp.var(x, 1),
    "var_ddof": lambda x: tnp.var(x, 1, ddof=1), "std": lambda x: tnp.std(x, 0),
    "amax": lambda x: tnp.amax(x, 1), "ptp": lambda x: tnp.ptp(x, 1),
    "average": lambda x: tnp.average(x, 1, weights=[1., 2., 3.]),
    "cumsum": lambda x: tnp.cumsum(x, 1), "cumprod": lambda x: tnp.cumprod(x),
    "diff": lambda x: tnp.diff(x * x, 1, 1), "nansum": lambda x: tnp.nansum(x * x),
    "matmul": lambda x: tnp.matmul(x, W), "dot": lambda x: tnp.dot(x, W[:, 0]),
    "tensordot": lambda x: tnp.tensordot(x, x, [[1], [1]]), "inner": lambda x: tnp.inner(x, x),
    "outer": lambda x: tnp.outer(x, x[0]), "kron": lambda x: tnp.kron(x, W),
    "vdot": lambda x: tnp.vdot(x, x), "cross": lambda x: tnp.cross(x, x[::-1]),
    "einsum": lambda x: tnp.einsum("ij,jk->ik", x, W), "trace": lambda x: tnp.trace(x * x),
    "diagonal": lambda x: tnp.diagonal(x, 1), "tril": tnp.tril, "triu": lambda x: tnp.triu(x, 1),
    "reshape": lambda x: tnp.reshape(x, [3, 2], order="F") ** 2, "transpose": tnp.transpose,
    "moveaxis": lambda x: tnp.moveaxis(x, 0, 1), "flip": tnp.flip, "rot90": tnp.rot90,
    "roll": lambda x: tnp.roll(x, 1), "repeat": lambda x: tnp.repeat(x, [1, 2], 0),
    "tile": lambda x: tnp.tile(x, 2), "pad": lambda x: tnp.pad(x, [[1, 0], [0, 1]], "reflect"),
    "concatenate": lambda x: tnp.concatenate([x, x * x], 1), "stack": lambda x: tnp.stack([x, x]),
    "hstack": lambda x: tnp.hstack([x, x]), "append": lambda x: tnp.append(x, x),
    "split": lambda x: tnp.split(x, [1], 1)[1], "take": lambda x: tnp.take(x, [4, 0, 4]),
    "take_along_axis": lambda x: tnp.take_along_axis(x, tnp.argsort(x, 1), 1),
    "compress": lambda x: tnp.compress([True, False, True], x, 1),
    "select": lambda x: tnp.select([x > 0.5, x < 0], [x, x * x], 1.0),
    "polyval": lambda x: tnp.polyval([1.0, -2.0, 0.5], x), "sort": lambda x: tnp.sort(x),
    "broadcast_to": lambda x: tnp.broadcast_to(x[0], [2, 3]) * x,
    "atleast_3d": lambda x: tnp.atleast_3d(x), "vander": lambda x: tnp.vander(x[0]),
    "asarray_pack": lambda x: tnp.asarray([x[0], x[1] * 2]),
    "full_like": lambda x: tnp.full_like(x, 2.0) * x, "diag": lambda x: tnp.diag(x[0], 1),
    "real_angle": lambda x: tnp.add(tnp.real(x), tnp.angle(x)),
}


def _loss(fn, x):
    y = fn(x)
    weights = tf.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape))
    return tf.reduce_sum(tf.cast(y, tf.float64) * weights)


def _numeric_gradient(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (_loss(fn, tf.constant(up)).numpy() - _loss(fn, tf.constant(down)).numpy()) \
            / (2 * eps)
    return grad


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradient_matches_central_differences(name):
    fn, x = FUNCTIONS[name], tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = _loss(fn, x)
    grad = tape.gradient(loss, x)
    assert grad is not None and grad.dtype == tf.float64
    np.testing.assert_allclose(grad.numpy(), _numeric_gradient(fn, X), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sin", "logaddexp", "var", "var_ddof", "cbrt", "prod", "power", "sinc", "hypot"])
def test_second_order(name):
    fn, x = FUNCTIONS[name], tf.constant(X)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = _loss(fn, x)
        g = inner.gradient(loss, x)
        gsum = tf.reduce_sum(g * g)
    hv = outer.gradient(gsum, x)

    def grad_sq(v):
        v = tf.constant(v)
        with tf.GradientTape() as t:
            t.watch(v)
            loss = _loss(fn, v)
        return tf.reduce_sum(t.gradient(loss, v) ** 2).numpy()
    eps, numeric = 1e-5, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        up, down = X.copy(), X.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (grad_sq(up) - grad_sq(down)) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), numeric, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_traced_matches_eager(name):
    fn = FUNCTIONS[name]
    traced = tf.function(lambda x: fn(x))
    eager, graph = fn(tf.constant(X)), traced(tf.constant(X))
    assert graph.dtype == eager.dtype and graph.shape == eager.shape
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12)


def test_gradient_through_traced_function():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tnp.sum(tnp.square(tnp.matmul(x, W)))
        return tape.gradient(loss, x)
    x = tf.constant(X)
    np.testing.assert_allclose(grad(x).numpy(), 2 * (X @ W) @ W.T, rtol=1e-12)


def test_variables_flow_through_tnp():
    v = tf.Variable(X)
    with tf.GradientTape() as tape:
        loss = tnp.sum(tnp.exp(v))
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), np.exp(X), rtol=1e-12)


def test_forward_mode():
    x = tf.constant(X)
    with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
        y = tnp.sum(tnp.sin(x) * tnp.cbrt(x + 3))
    expected = np.sum(np.cos(X) * np.cbrt(X + 3) + np.sin(X) / (3 * np.cbrt(X + 3) ** 2))
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-10)


class TestNumpyIndexingTraced:
    def teardown_method(self):
        _behavior._disable_numpy_behavior()

    def test_integer_and_boolean_index_tensors_inside_tf_function(self):
        tnp.experimental_enable_numpy_behavior()
        x = tf.constant(X)

        @tf.function
        def pick(x, idx, mask):
            return x[:, idx], x[mask], x[[1, 0]]
        cols, rows, swapped = pick(x, tf.constant([2, -3]), tf.constant([False, True]))
        np.testing.assert_array_equal(cols.numpy(), X[:, [2, -3]])
        np.testing.assert_array_equal(rows.numpy(), X[[False, True]])
        np.testing.assert_array_equal(swapped.numpy(), X[[1, 0]])

    def test_gradient_of_advanced_indexing(self):
        tnp.experimental_enable_numpy_behavior()
        x = tf.constant(X)
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tnp.sum(x[[0, 0, 1], [1, 1, 2]] * tf.constant([1., 2., 3.], tf.float64))
        expected = np.zeros_like(X)
        expected[0, 1], expected[1, 2] = 3.0, 3.0
        np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), expected)

    def test_unsupported_traced_index_is_a_clear_type_error(self):
        tnp.experimental_enable_numpy_behavior()

        @tf.function
        def pick(x, i, j):
            return x[i, j]
        with pytest.raises(TypeError, match="while tracing"):
            pick(tf.constant(X), tf.constant([0, 1]), tf.constant([1, 2]))
