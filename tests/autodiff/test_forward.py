"""tf.autodiff.ForwardAccumulator: values and None/zero rules checked against TensorFlow 2.21."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tapeflow as tf

X = [1.0, 2.0, 3.0]
V = [1.0, 0.0, 0.0]


def test_jvp_of_elementwise_chain_and_of_the_primal():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = tf.sin(x) * 2.0
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2 * np.cos(1.0), 0, 0], rtol=1e-6)
    assert acc.jvp(y).dtype == tf.float32
    np.testing.assert_array_equal(acc.jvp(x).numpy(), V)


def test_stop_gradient_integer_and_constant_outputs_have_no_jvp():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        stopped = tf.stop_gradient(tf.sin(x))
        integer = tf.cast(x, tf.int32)
        const = tf.constant(3.0)
    assert acc.jvp(stopped) is None
    assert acc.jvp(integer) is None
    assert acc.jvp(const) is None
    zero = acc.jvp(integer, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.dtype == tf.int32 and zero.numpy().tolist() == [0, 0, 0]
    assert acc.jvp(const, unconnected_gradients="zero").numpy() == 0.0


def test_nested_structures_of_targets():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = tf.square(x)
        c = tf.constant(1.0)
    out = acc.jvp({"a": y, "b": [x, c]})
    assert set(out) == {"a", "b"} and out["b"][1] is None
    np.testing.assert_allclose(out["a"].numpy(), [2.0, 0.0, 0.0])


def test_structured_primals_and_variables():
    var = tf.Variable([1.0, 2.0])
    x = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator({"v": var, "x": x},
                                        {"v": tf.constant([1.0, 1.0]), "x": 2.0}) as acc:
        y = var * var * x
    # d(v^2 x) = 2 v x dv + v^2 dx
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2 * 3 + 2, 4 * 3 + 8])
    np.testing.assert_array_equal(acc.jvp(var).numpy(), [1.0, 1.0])


def test_errors_match_tensorflow():
    x = tf.constant(X)
    with pytest.raises(ValueError, match="was specified as a primal multiple times"):
        tf.autodiff.ForwardAccumulator([x, x], [tf.constant(V), tf.constant(V)])
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1, 2, 3]))
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant(V))
    with acc:
        with pytest.raises(ValueError, match="Accumulator is already recording."):
            acc.__enter__()


def test_nested_accumulators_give_second_derivatives():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as outer:
        with tf.autodiff.ForwardAccumulator(x, v) as inner:
            y = tf.sin(x)
        inner_jvp = inner.jvp(y)
    np.testing.assert_allclose(outer.jvp(inner_jvp).numpy(), [-np.sin(1.0), 0, 0], rtol=1e-6)
    np.testing.assert_allclose(outer.jvp(y).numpy(), [np.cos(1.0), 0, 0], rtol=1e-6)


def test_tensorflow_docstring_power_example():
    primal = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as inner:
            out = primal ** tf.constant(3.5)
    inner_jvp = inner.jvp(out)
    assert inner_jvp.numpy() == pytest.approx(4.4417057, rel=1e-6)
    assert outer.jvp(inner_jvp).numpy() == pytest.approx(10.094786, rel=1e-6)


def test_inner_contexts_do_not_see_an_outer_accumulators_work():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as outer:
        with tf.autodiff.ForwardAccumulator(x, v) as inner:
            y = tf.sin(x)
            outer_jvp = outer.jvp(y)
        assert inner.jvp(outer_jvp) is None
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sin(x)
            j = acc.jvp(y)
        assert tape.gradient(j, x) is None


HVP = [-5.835608, 1.3289154, 1.2618287]  # TensorFlow's values for the function below


def _f(x):
    return tf.reduce_sum(tf.sin(x) * tf.reduce_sum(x ** 2))


def test_forward_over_reverse_hessian_vector_product():
    x, v = tf.constant(X), tf.constant(V)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = _f(x)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(g).numpy(), HVP, rtol=1e-5)


def test_reverse_over_forward():
    x, v = tf.constant(X), tf.constant(V)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = _f(x)
        j = acc.jvp(y)
    np.testing.assert_allclose(tape.gradient(j, x).numpy(), HVP, rtol=1e-5)


def test_tensorflow_docstring_variable_hvp():
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v ** 3.0)
        backward = tape.gradient(y, v)
    np.testing.assert_allclose(backward.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(acc.jvp(backward).numpy(), [6.0, 0.0])


def test_ops_outside_the_context_carry_no_tangent():
    x, v = tf.constant(X), tf.constant(V)
    acc = tf.autodiff.ForwardAccumulator(x, v)
    y = tf.sin(x)
    assert acc.jvp(y) is None
    np.testing.assert_array_equal(acc.jvp(x).numpy(), V)


def test_multiple_result_and_structural_ops():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t = tf.constant([[1.0, -1.0], [0.5, 2.0]])
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        a, b = tf.unstack(x)
        m = tf.matmul(x, x)
        s = tf.reduce_max(tf.transpose(x) * tf.exp(x), axis=1)
    np.testing.assert_array_equal(acc.jvp(a).numpy(), [1.0, -1.0])
    np.testing.assert_array_equal(acc.jvp(b).numpy(), [0.5, 2.0])
    xn, tn = x.numpy(), t.numpy()
    np.testing.assert_allclose(acc.jvp(m).numpy(), tn @ xn + xn @ tn, rtol=1e-6)
    prod = xn.T * np.exp(xn)
    dprod = tn.T * np.exp(xn) + xn.T * np.exp(xn) * tn
    expected = dprod[np.arange(2), prod.argmax(axis=1)]
    np.testing.assert_allclose(acc.jvp(s).numpy(), expected, rtol=1e-6)


def test_custom_gradient_gets_a_forward_rule_from_its_vjp():
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad

    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = cube(x)
    assert acc.jvp(y).numpy() == pytest.approx(12.0)


def test_integer_primal_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        tf.autodiff.ForwardAccumulator(tf.constant([1, 2]), tf.constant([1, 1]))
    assert "must be floating" in caplog.text


def _complex_matrix(rng, shift=0.0):
    return rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)) + shift * np.eye(3)


@pytest.mark.parametrize("op", [tf.linalg.inv, tf.linalg.det], ids=["inv", "det"])
def test_complex_jvp_through_the_double_vjp_is_the_directional_derivative(op):
    # These ops get their JVP from their VJP (no explicit forward rule): for complex inputs
    # the tape's conjugation convention must not leak into the tangent (it gave conj(J t)).
    rng = np.random.default_rng(3)
    a, t = _complex_matrix(rng, 3.0), _complex_matrix(rng)
    x = tf.constant(a)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(t)) as acc:
        y = op(x)
    h = 1e-6  # holomorphic: the central difference along t is J t
    numeric = (op(tf.constant(a + h * t)).numpy() - op(tf.constant(a - h * t)).numpy()) / (2 * h)
    np.testing.assert_allclose(acc.jvp(y).numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_complex_second_order_forward_mode_of_inv():
    rng = np.random.default_rng(4)
    a, t1, t2 = _complex_matrix(rng, 3.0), _complex_matrix(rng), _complex_matrix(rng)
    x = tf.constant(a)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(t2)) as outer:
        with tf.autodiff.ForwardAccumulator(x, tf.constant(t1)) as inner:
            y = tf.linalg.inv(x)
        dy = inner.jvp(y)
    inv = np.linalg.inv(a)
    want = inv @ t2 @ inv @ t1 @ inv + inv @ t1 @ inv @ t2 @ inv
    np.testing.assert_allclose(outer.jvp(dy).numpy(), want, rtol=1e-10, atol=1e-12)
