"""Every differentiable primitive's forward-mode rule against finite differences (float64).

Reuses the cases of `tests/ops/gradient_samples/` (the registry-driven gradient test's), so a
primitive's forward rule is checked the moment its gradient sample exists. The forward rule is
whatever `autodiff.forward.jvp_of` picks (explicit, linear, bilinear, elementwise or derived
from the VJP); the second-order check runs one accumulator inside another.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_samples import load_samples  # noqa: E402
from test_gradient_registry import CHECKED  # noqa: E402  (the same primitives and exemptions)

SAMPLES = load_samples()
DELTA = 1e-6
RTOL = 1e-5
ATOL = 1e-6


def _cases():
    for name in CHECKED:
        for index, case in enumerate(SAMPLES.get(name, [])):
            yield pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")


def _tangents(case) -> list:
    rng = np.random.default_rng(1)
    return [rng.uniform(-1.0, 1.0, size=np.shape(x)) for x in case.inputs]


def _jvp(f, inputs: list, tangents: list):
    primals = [tf.constant(x) for x in inputs]
    with tf.autodiff.ForwardAccumulator(primals, [tf.constant(t) for t in tangents]) as acc:
        y = f(*primals)
    return y, acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _along(f, inputs: list, tangents: list, step: float) -> np.ndarray:
    return np.asarray(f(*[tf.constant(x + step * t) for x, t in zip(inputs, tangents)]))


def _tolerances(case) -> dict:
    return {"rtol": case.options.get("rtol", RTOL), "atol": case.options.get("atol", ATOL)}


def test_every_checked_primitive_has_a_forward_case():
    missing = [name for name in CHECKED if not SAMPLES.get(name)]
    assert not missing, f"primitives whose forward rule is unchecked: {missing}"


@pytest.mark.parametrize("case", list(_cases()))
def test_first_order_jvp(case):
    tangents = _tangents(case)
    y, jvp = _jvp(case.f, case.inputs, tangents)
    assert jvp.shape == y.shape and jvp.dtype == y.dtype
    numerical = (_along(case.f, case.inputs, tangents, DELTA)
                 - _along(case.f, case.inputs, tangents, -DELTA)) / (2 * DELTA)
    np.testing.assert_allclose(np.asarray(jvp), numerical, **_tolerances(case),
                               err_msg=f"JVP of {case.primitive} ({case.origin})")


@pytest.mark.parametrize("case", list(_cases()))
def test_second_order_jvp(case):
    if not case.options.get("second_order", True):
        pytest.skip(f"{case.primitive}: second order not defined for this case")
    tangents = _tangents(case)

    def first(*args):
        return _jvp(case.f, [np.asarray(a) for a in args], tangents)[1]

    primals = [tf.constant(x) for x in case.inputs]
    with tf.autodiff.ForwardAccumulator(primals, [tf.constant(t) for t in tangents]) as outer:
        with tf.autodiff.ForwardAccumulator(primals,
                                            [tf.constant(t) for t in tangents]) as inner:
            y = case.f(*primals)
        inner_jvp = inner.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    second = outer.jvp(inner_jvp, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    numerical = (np.asarray(first(*[x + DELTA * t for x, t in zip(case.inputs, tangents)]))
                 - np.asarray(first(*[x - DELTA * t for x, t in zip(case.inputs, tangents)]))
                 ) / (2 * DELTA)
    np.testing.assert_allclose(np.asarray(second), numerical, **_tolerances(case),
                               err_msg=f"second-order JVP of {case.primitive} ({case.origin})")


def test_registry_is_not_empty():
    assert len(CHECKED) > 20 and all(name in REGISTRY for name in CHECKED)
