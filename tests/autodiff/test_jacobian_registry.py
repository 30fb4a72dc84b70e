"""Every differentiable primitive's VJP under the vectorized jacobian (a leading batch axis on
the cotangent) against the one-backward-pass-per-row jacobian, and against finite differences.

Uses the cases of `tests/ops/gradient_samples/`. A primitive whose rule does not accept a batch
axis and declares neither `batch_safe` nor a batched rule (`defbatch`) runs row by row; this
checks that the declared ones really are batch-safe, first and second order.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapeflow as tf

_OPS_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ops")
sys.path.insert(0, _OPS_TESTS)
from gradient_samples import load_samples  # noqa: E402
from test_gradient_registry import CHECKED  # noqa: E402

SAMPLES = load_samples()


def _cases():
    for name in CHECKED:
        for index, case in enumerate(SAMPLES.get(name, [])):
            yield pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")


def _jacobians(f, args: list, **kwargs) -> list:
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(args)
        y = f(*args)
    return tape.jacobian(y, args, unconnected_gradients=tf.UnconnectedGradients.ZERO, **kwargs)


@pytest.mark.parametrize("case", list(_cases()))
def test_vectorized_jacobian_matches_row_by_row(case):
    args = [tf.constant(x) for x in case.inputs]
    batched = _jacobians(case.f, args)
    looped = _jacobians(case.f, args, experimental_use_pfor=False)
    chunked = _jacobians(case.f, args, parallel_iterations=2)
    for b, lo, c in zip(batched, looped, chunked):
        assert b.shape == lo.shape
        np.testing.assert_allclose(np.asarray(b), np.asarray(lo), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(np.asarray(c), np.asarray(lo), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", list(_cases()))
def test_vectorized_jacobian_of_gradient(case):
    """Second order: the batched pass runs through the ops of a recorded backward pass."""
    if not case.options.get("second_order", True):
        pytest.skip(f"{case.primitive}: second order not defined for this case")
    args = [tf.constant(x) for x in case.inputs]
    weights = tf.constant(np.random.default_rng(0).uniform(
        0.5, 1.5, size=np.shape(np.asarray(case.f(*args)))))

    def gradient(*xs):
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = case.f(*xs)
        grads = inner.gradient(y, xs[0], output_gradients=weights)
        return tf.zeros_like(xs[0]) if grads is None else grads

    batched = _jacobians(gradient, args)
    looped = _jacobians(gradient, args, experimental_use_pfor=False)
    for b, lo in zip(batched, looped):
        np.testing.assert_allclose(np.asarray(b), np.asarray(lo), rtol=1e-9, atol=1e-11)
