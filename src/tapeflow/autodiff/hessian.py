"""Hessians and Hessian-vector products (tapeflow additions; TensorFlow has no such functions).

`hessian` is reverse-over-reverse: a tape records the gradient computation and its vectorized
`jacobian` pushes all n cotangents through one backward pass. `hessian_vector_product` is
forward-over-reverse: a ForwardAccumulator carries `v` through the gradient computation, which
costs about one gradient and never forms the n-by-n matrix.
"""

from __future__ import annotations

from typing import Any, Callable

from tapeflow.autodiff.forward import ForwardAccumulator
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable


def _primal(x: Any) -> Any:
    return x if isinstance(x, (TensorLike, Variable)) else convert_to_tensor(x)


def _gradient(f: Callable, x: Any) -> Any:
    """d f(x) / dx with zeros where f does not depend on x (recorded by any outer context)."""
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, unconnected_gradients=UnconnectedGradients.ZERO)


def hessian(f: Callable[[Any], Any], x: Any) -> Any:
    """The Hessian of a scalar function `f` at `x`: a tensor of shape `x.shape + x.shape`.

    A tapeflow addition. `f` takes one tensor and returns a scalar tensor (a non-scalar
    result is summed, as `tape.gradient` does). Computed reverse-over-reverse with one
    vectorized backward pass for all rows.
    """
    x = _primal(x)
    with GradientTape() as outer:
        outer.watch(x)
        g = _gradient(f, x)
    return outer.jacobian(g, x, unconnected_gradients=UnconnectedGradients.ZERO)


def hessian_vector_product(f: Callable[[Any], Any], x: Any, v: Any) -> Any:
    """H(x) @ v for a scalar function `f`, shaped like `x`, without forming H.

    A tapeflow addition, computed forward-over-reverse: the JVP (along `v`) of the gradient.
    """
    x = _primal(x)
    if not isinstance(v, TensorLike):
        v = convert_to_tensor(v, dtype=x.dtype)
    with ForwardAccumulator(x, v) as accumulator:
        g = _gradient(f, x)
    return accumulator.jvp(g, unconnected_gradients=UnconnectedGradients.ZERO)


__all__ = ["hessian", "hessian_vector_product"]
