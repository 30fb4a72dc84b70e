"""Vectorized jacobians through matmul equal the per-row loop (values and None-ness), and the
batch of cotangents meets a single matrix as one 2-D product (the folded batched rules)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import _autodiff_support as support
from tapeflow.ops.math_ops import _matmul

RNG = np.random.default_rng(0)

# (shape of op(a), shape of op(b)): matrices, one side batched, both batched, broadcasting.
SHAPES = [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
          ((1, 3, 4), (2, 4, 5))]


def _operand(shape, transpose, dtype=np.float32):
    stored = shape[:-2] + ((shape[-1], shape[-2]) if transpose else shape[-2:])
    value = RNG.standard_normal(stored)
    if dtype == np.complex64:
        value = value + 1j * RNG.standard_normal(stored)
    return tf.constant(value.astype(dtype))


def _jacobians(f, sources, batch=False):
    """(vectorized, looped) jacobians of f() with respect to each source."""
    results = []
    for pfor in (True, False):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(sources)
            y = f()
        if batch:
            results.append([tape.batch_jacobian(y, s, experimental_use_pfor=pfor)
                            for s in sources])
        else:
            results.append(tape.jacobian(y, sources, experimental_use_pfor=pfor))
    return results


def _assert_same(vectorized, looped):
    for v, l in zip(vectorized, looped):
        assert (v is None) == (l is None)
        if v is not None:
            assert v.shape == l.shape and v.dtype == l.dtype
            np.testing.assert_allclose(v.numpy(), l.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("transpose_a,transpose_b", list(itertools.product([False, True],
                                                                          repeat=2)))
def test_vectorized_matmul_jacobian_equals_the_loop(shapes, transpose_a, transpose_b):
    a, b = _operand(shapes[0], transpose_a), _operand(shapes[1], transpose_b)

    def f():
        return tf.tanh(tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b))
    _assert_same(*_jacobians(f, [a, b]))


@pytest.mark.parametrize("adjoint_a,adjoint_b", [(True, False), (False, True), (True, True)])
def test_vectorized_jacobian_through_complex_adjoint_equals_the_loop(adjoint_a, adjoint_b):
    a = _operand((3, 4), adjoint_a, np.complex64)
    b = _operand((4, 2), adjoint_b, np.complex64)
    _assert_same(*_jacobians(lambda: tf.matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b),
                             [a, b]))


def test_mlp_jacobian_and_batch_jacobian_equal_the_loop():
    x = _operand((6, 5), False)
    w1, w2 = _operand((5, 7), False), _operand((7, 3), True)

    def f():
        return tf.matmul(tf.tanh(tf.matmul(x, w1)), w2, transpose_b=True)
    _assert_same(*_jacobians(f, [x, w1, w2]))
    _assert_same(*_jacobians(f, [x], batch=True))


def test_unconnected_and_constant_operands():
    a, b, c = _operand((3, 4), False), _operand((4, 2), False), _operand((2, 2), False)
    vectorized, looped = _jacobians(lambda: tf.matmul(a, b), [a, c])
    _assert_same(vectorized, looped)
    assert vectorized[1] is None
    # b is no source: its batched cotangent (the largest array of the pass) is never formed.
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.matmul(a, b)
    seeds = support.identity_seeds(y, 0, 6)
    grads = support.batched_vjp(_matmul, seeds, y, (a, b),
                                {"transpose_a": False, "transpose_b": False}, {id(a)})
    assert grads[1] is None and grads[0].shape == (6, 3, 4)


def test_batch_meets_one_matrix_as_one_product(monkeypatch):
    x, w = _operand((8, 5), False), _operand((5, 3), False)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.matmul(tf.sin(x), w)
    shapes = []
    kernel = _matmul.impl

    def spy(p, q, **attrs):
        shapes.append((p.shape, q.shape))
        return kernel(p, q, **attrs)
    monkeypatch.setattr(_matmul, "impl", spy)
    j = tape.jacobian(y, x)
    assert j.shape == (8, 3, 8, 5)
    assert shapes == [((24 * 8, 3), (5, 3))]   # one (N*m, n) @ (n, k) product
