"""Property: forward mode agrees with reverse mode. For y = f(x) and drawn directions u (one per
input) and w (on the output), the JVP along u contracted with w equals the VJP of w contracted
with u:  <w, J u> = <J^T w, u>.

Every differentiable primitive gets a JVP (its own rule, or one derived by
`autodiff.forward.jvp_of`), so this runs for all of them, at drawn points around their gradient
samples; and, for the elementwise binary primitives, at drawn broadcastable shapes (their
forward rule is the VJP rule applied to the tangents, so broadcasting is where it can slip).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY

from _prop_common import CHECKED, SAMPLES, TOLERANT, assume_in_domain, budget, directions, \
    draw_case
from _prop_ops import BINARY, NO_GRADIENT, array
from _prop_xfail import marked

# Both sides are exact linear algebra on the same rules: they differ by rounding only.
RTOL = 1e-9


def _jvp(f, primals: list, tangents: list):
    with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
        y = f(*primals)
    return y, acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _vjp(f, primals: list, cotangent):
    with tf.GradientTape() as tape:
        tape.watch(primals)
        y = f(*primals)
    return tape.gradient(y, primals, output_gradients=cotangent,
                         unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _assert_adjoint(f, inputs: list, tangents: list, cotangent: np.ndarray, what: str) -> None:
    primals = [tf.constant(x) for x in inputs]
    y, jvp = _jvp(f, primals, [tf.constant(t) for t in tangents])
    assert jvp.shape == y.shape and jvp.dtype == y.dtype, (
        f"{what}: JVP {jvp.shape} {jvp.dtype.name} for output {y.shape} {y.dtype.name}")
    vjps = _vjp(f, [tf.constant(x) for x in inputs], tf.constant(cotangent))
    forward_terms = cotangent * np.asarray(jvp)
    reverse_terms = [np.asarray(tf.convert_to_tensor(v)) * t for v, t in zip(vjps, tangents)]
    forward, reverse = forward_terms.sum(), sum(r.sum() for r in reverse_terms)
    scale = np.abs(forward_terms).sum() + sum(np.abs(r).sum() for r in reverse_terms)
    assert abs(forward - reverse) <= RTOL * scale + 1e-12, (
        f"{what}: <w, JVP(u)> = {forward!r} but <VJP(w), u> = {reverse!r}")


@pytest.mark.parametrize("name", marked(CHECKED, "jvp_vjp", SAMPLES))
@budget(6, suppress_health_check=TOLERANT)
@given(data=st.data())
def test_jvp_is_the_adjoint_of_the_vjp(name, data):
    case, inputs = draw_case(data, name)
    assume_in_domain(lambda: case.f(*[tf.constant(x) for x in inputs]))
    tangents = directions(data, [x.shape for x in inputs], "tangent")
    y = np.asarray(case.f(*[tf.constant(x) for x in inputs]))
    [cotangent] = directions(data, [y.shape], "cotangent")
    _assert_adjoint(case.f, inputs, tangents, cotangent, f"{name} ({case.origin})")


DIFFERENTIABLE_BINARY = sorted(name for name in BINARY if REGISTRY[name].differentiable)


@pytest.mark.parametrize("name", marked(DIFFERENTIABLE_BINARY, "jvp_vjp_broadcast"))
@budget(8)
@given(data=st.data())
def test_broadcasting_jvp_is_the_adjoint_of_the_vjp(name, data):
    op = BINARY[name]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                         min_side=0, max_side=3),
                       label="shapes").input_shapes
    inputs = [data.draw(array(kind, shape), label=f"input {i}")
              for i, (kind, shape) in enumerate(zip(op.kinds, shapes))]
    assume_in_domain(lambda: op.fn(*[tf.constant(x) for x in inputs]))
    tangents = directions(data, shapes, "tangent")
    for index in range(2):
        if (name, index) in NO_GRADIENT:  # no derivative w.r.t. this input, in either mode
            tangents[index] = np.zeros_like(tangents[index])
    [cotangent] = directions(data, [np.broadcast_shapes(*shapes)], "cotangent")
    _assert_adjoint(op.fn, inputs, tangents, cotangent, f"{name}{tuple(shapes)}")
