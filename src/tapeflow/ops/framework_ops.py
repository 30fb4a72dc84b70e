"""Small framework-level names of TensorFlow's top level: `tf.get_logger`,
`tf.inside_function`, `tf.is_symbolic_tensor`, `tf.no_gradient`, `tf.grad_pass_through`,
`tf.AggregationMethod`, `tf.timestamp`."""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import numpy as np

from tapeflow.autodiff.core import REGISTRY, Primitive, bind
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor


@tf_export("get_logger")
def get_logger() -> Any:
    """The `logging.Logger` named 'tensorflow', as TF's."""
    import logging  # not at package import: tapeflow's own loggers load it when needed
    return logging.getLogger("tensorflow")


@tf_export("inside_function")
def inside_function() -> bool:
    """Whether a tf.function is being traced here (False in `tf.init_scope`)."""
    return context.graph is not None


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor: Any) -> bool:
    """Whether `tensor` is a traced (graph) tensor, not an eager one nor a variable."""
    return isinstance(tensor, Tensor) and hasattr(tensor, "_graph")


@tf_export("no_gradient")
def no_gradient(op_type: str) -> None:
    """Declares the op type `op_type` as having no gradient. tapeflow's own ops declare their
    rules where they are defined, so registering one of them again is TF's KeyError; another
    name has nothing to attach to and is accepted, as TF accepts it."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in REGISTRY:
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous "
                       f"registration was in tapeflow)")


@tf_export("grad_pass_through")
def grad_pass_through(f: Callable) -> Callable:
    """`f` with its gradient replaced by the identity: the cotangent of its output goes to
    its inputs unchanged (e.g. a straight-through estimator of `tf.round`); variables `f`
    reads get no gradient."""
    from tapeflow.autodiff.custom_gradient import custom_gradient

    @custom_gradient
    def _grad_pass_through_op(*args: Any, **kwargs: Any) -> tuple:
        def grad(*dys: Any, **grad_kwargs: Any) -> Any:
            variables = grad_kwargs.get("variables")
            if variables is not None:
                return dys, [None] * len(variables)
            return dys
        return f(*args, **kwargs), grad
    return functools.wraps(f)(_grad_pass_through_op)


@tf_export("AggregationMethod")
class AggregationMethod:
    """How `tf.gradients` combines several gradients of one tensor (tapeflow always sums
    them as ADD_N; the others name TF's experimental variants)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


# Stateful: a traced graph reads the clock each time it runs, not once while tracing.
_timestamp = Primitive("Timestamp", lambda: np.array(time.time(), np.float64),
                       differentiable=False, stateful=True,
                       shape_rule=lambda: ShapedArray((), np.dtype(np.float64)))


@tf_export("timestamp")
def timestamp(name: Any = None) -> Tensor:
    """The time now, in seconds since the Unix epoch, as a float64 scalar."""
    return bind(_timestamp, ())
