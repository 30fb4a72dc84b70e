"""Property: every differentiable primitive's gradient matches finite differences at points
drawn around its sample cases (tests/ops/gradient_samples/), first order for all, second order
(the gradient of a gradient) for every case that allows it; and every differentiable
elementwise primitive's, at values drawn from its whole domain and broadcastable shapes.

Points are the samples' inputs times drawn elementwise factors in [0.8, 1.25]; draws that land
near a kink, tie or singularity of a primitive the case runs are rejected by `GUARDS`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY
from tapeflow.test import compute_gradient

from _prop_common import (ATOL, CHECKED, DELTA, RTOL, SAMPLES, TOLERANT, assume_in_domain,
                          budget, directions, draw_case)
from _prop_ops import BINARY, NO_GRADIENT, TERNARY, UNARY, array
from _prop_xfail import known_defect, marked

SECOND_ORDER = [name for name in CHECKED
                if any(case.options.get("second_order", True) for case in SAMPLES.get(name, ()))]


def _assert_close(theoretical, numerical, case, what: str) -> None:
    rtol = case.options.get("rtol", RTOL)
    atol = case.options.get("atol", ATOL)
    for index, (t, n) in enumerate(zip(theoretical, numerical)):
        np.testing.assert_allclose(
            t, n, rtol=rtol, atol=atol,
            err_msg=f"{what} of {case.primitive} w.r.t. input {index} ({case.origin}): "
                    f"tape vs finite differences")


def _call(f, inputs):
    return lambda: f(*[tf.constant(x) for x in inputs])


@pytest.mark.parametrize("name", marked(CHECKED, "first_order", SAMPLES))
@budget(6, suppress_health_check=TOLERANT)
@given(data=st.data())
def test_first_order_gradient_matches_finite_differences(name, data):
    case, inputs = draw_case(data, name)
    assume_in_domain(_call(case.f, inputs))
    theoretical, numerical = compute_gradient(case.f, inputs, delta=DELTA)
    _assert_close(theoretical, numerical, case, "first-order gradient")


def _gradient_of(f, param: int, weights: np.ndarray):
    """x -> d/dx[param] sum(weights * f(x)), with its own (inner) tape."""
    def gradient(*args):
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = f(*args)
        g = tape.gradient(y, args[param], output_gradients=tf.constant(weights))
        return tf.zeros_like(args[param]) if g is None else g
    return gradient


@pytest.mark.parametrize("name", marked(SECOND_ORDER, "second_order", SAMPLES))
@budget(2, suppress_health_check=TOLERANT)
@given(data=st.data())
def test_second_order_gradient_matches_finite_differences(name, data):
    case, inputs = draw_case(data, name)
    if not case.options.get("second_order", True):
        return  # this case's second derivative is not defined (see its sample file)
    y = np.asarray(case.f(*[tf.constant(x) for x in inputs]))
    # Uneven weights, so that terms cannot cancel by symmetry.
    [weights] = directions(data, [y.shape], "output weights", 0.5, 1.5)
    param = data.draw(st.integers(0, len(inputs) - 1), label="differentiated input")
    gradient = _gradient_of(case.f, param, weights)
    assume_in_domain(_call(gradient, inputs))  # the backward pass's ops are guarded too
    theoretical, numerical = compute_gradient(gradient, inputs, delta=DELTA)
    _assert_close(theoretical, numerical, case, f"second-order gradient (through input {param})")


ELEMENTWISE = {name: op for name, op in {**UNARY, **BINARY, **TERNARY}.items()
               if REGISTRY[name].differentiable}


@pytest.mark.parametrize("name", marked(sorted(ELEMENTWISE), "elementwise_first_order"))
@budget(8, suppress_health_check=TOLERANT)
@given(data=st.data())
def test_elementwise_gradient_matches_finite_differences(name, data):
    op = ELEMENTWISE[name]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=len(op.kinds), min_dims=0, max_dims=2, min_side=1, max_side=3),
        label="shapes").input_shapes
    inputs = [data.draw(array(kind, shape), label=f"input {i}")
              for i, (kind, shape) in enumerate(zip(op.kinds, shapes))]
    assume_in_domain(lambda: op.fn(*[tf.constant(x) for x in inputs]))
    # Only float inputs are differentiated (SelectV2's condition stays a constant).
    wrt = [i for i, x in enumerate(inputs) if x.dtype.kind == "f" and (name, i) not in NO_GRADIENT]

    def f(*args):
        full = [tf.constant(x) for x in inputs]
        for i, a in zip(wrt, args):
            full[i] = a
        return op.fn(*full)

    theoretical, numerical = compute_gradient(f, [inputs[i] for i in wrt], delta=DELTA)
    for i, t, n in zip(wrt, theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=RTOL, atol=ATOL,
                                   err_msg=f"gradient of {name}{tuple(shapes)} w.r.t. input {i}")


@known_defect("tiny_input", "BesselI1e")
@budget(6)
@example(x=2.2250738585e-313)  # where 1/x overflows: found by a deep run of the test above
@given(x=st.floats(-1e-300, 1e-300))
def test_bessel_i1e_gradient_at_tiny_inputs_is_the_limit_at_zero(x):
    """d/dx i1e(x) -> 1/2 as x -> 0; TF 2.21 gives 0.5 at every |x| <= eps (its rule divides
    by x only above eps): at 0, 1e-17, 1e-310, 2.2e-313."""
    x = tf.constant(x, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.bessel_i1e(x)
    assert float(tape.gradient(y, x)) == pytest.approx(0.5, rel=1e-12)
