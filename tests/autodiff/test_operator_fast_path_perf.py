"""The arithmetic operators' eager fast path (ops/operators._fast) gives the general path's
bits, dtypes, errors and gradients; it runs Python's operators on NumPy values, which on
NumPy scalars skip the ufunc's conversions (the scalar chain's main cost)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.tensor import Tensor
from tapeflow.ops import math_ops, operators

OPS = [("__add__", operator.add), ("__sub__", operator.sub), ("__mul__", operator.mul),
       ("__truediv__", operator.truediv)]
GENERAL = {"__add__": math_ops.add_operator, "__sub__": math_ops.subtract_operator,
           "__mul__": math_ops.multiply_operator, "__truediv__": math_ops.divide_operator}


def _values(dtype):
    rng = np.random.default_rng(0)
    scalar = tf.sin(tf.constant(np.asarray(0.7, dtype)))  # a NumPy scalar value
    assert not isinstance(scalar._value, np.ndarray)
    return [scalar, tf.constant(np.asarray(1.3, dtype)),
            tf.constant(rng.standard_normal((3, 4)).astype(dtype)),
            tf.constant(rng.standard_normal((4,)).astype(dtype))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,py_op", OPS)
def test_fast_path_gives_the_general_paths_bits(dtype, name, py_op, monkeypatch):
    values = _values(dtype)
    others = values + [1.01, 3, -2.5e-3]
    got = [(py_op(x, y), py_op(y, x)) for x in values for y in others]
    for cls_name in (name, "__r" + name[2:]):
        monkeypatch.setattr(Tensor, cls_name, operators.OPERATORS[cls_name].__wrapped__)
    expected = [(py_op(x, y), py_op(y, x)) for x in values for y in others]
    for pair, reference in zip(got, expected):
        for g, e in zip(pair, reference):
            assert type(g) is Tensor and g.dtype == e.dtype == tf.as_dtype(dtype)
            assert g._value.tobytes() == np.asarray(e._value).tobytes()


def test_fast_path_skips_the_general_operator(monkeypatch):
    """Fails where a float tensor's `*` converts its operands the general way."""
    calls = []
    general = math_ops.binary_operands
    monkeypatch.setattr(math_ops, "binary_operands",
                        lambda *a: calls.append(a) or general(*a))
    x = tf.sin(tf.constant(0.5))
    y = 2.0 * (x * x * 2.0 - x) / x + 1
    assert calls == [] and y.dtype == tf.float32
    tf.constant([1, 2]) * 2  # integers take the general path
    assert len(calls) == 1


def test_errors_are_tensorflows():
    a, b = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        a * b
    with pytest.raises(tf.errors.InvalidArgumentError):
        a + tf.constant([1.0, 2.0], tf.float64)
    with pytest.raises(TypeError):  # TF: a float tensor meets a string
        a * "x"
    assert (tf.constant([1, 2]) * 2).dtype == tf.int32  # integers: the general path
    big = tf.constant(3e38) * 10.0  # overflow is silent, as TF's kernels
    assert np.isinf(big.numpy())


def test_gradients_and_traces_see_the_fast_path():
    x = tf.Variable(0.5)

    def chain():
        y = x
        for _ in range(3):
            y = tf.sin(y) * 1.01 + y * y * 0.1 - 2.0 / (y + 3.0)
        return y

    with tf.GradientTape() as tape:
        y = chain()
    eager = tape.gradient(y, x)

    @tf.function
    def traced():
        with tf.GradientTape() as tape:
            y = chain()
        return tape.gradient(y, x)

    np.testing.assert_allclose(traced().numpy(), eager.numpy(), rtol=1e-6)
    with tf.GradientTape() as tape:  # the walk (first sighting) and the compiled pass agree
        y = chain()
    assert tape.gradient(y, x).numpy().tobytes() == eager.numpy().tobytes()


def test_forward_accumulators_see_the_fast_path():
    x = tf.constant(0.5)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = tf.sin(x) * x + 2.0
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.cos(0.5) * 0.5 + np.sin(0.5),
                               rtol=1e-6)
