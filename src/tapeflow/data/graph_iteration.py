"""A `for` over a dataset inside `tf.function`: TensorFlow's loop, run as the graph runs.

AutoGraph turns `for x in dataset` in a traced function into a loop over the dataset's
elements at run time: the body is traced once and runs per element on every call, and each
call makes a fresh pass (a new iterator, so a reshuffling shuffle reshuffles). Here that loop
is a `tf.while_loop` around three stateful primitives: `AnonymousIteratorV3` opens a pass and
gives its handle, `IteratorGetNextAsOptional` gives a has-value flag and the next element (or
zeros of the element's shape at the end), and `DeleteIterator` drops a pass the loop left early
(`break`, `return`).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.autograph import operators
from tapeflow.data import structure
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.function import TensorSpec
from tapeflow.ops import math_ops

_OPEN: dict = {}                 # handle -> the pass's element generator
_LOCK = threading.Lock()
_HANDLES = itertools.count(1)
_END = object()


def _leaf_specs(dataset: Any) -> list:
    specs = structure.flatten(dataset.element_spec)
    for spec in specs:
        if not isinstance(spec, TensorSpec):
            raise NotImplementedError(
                f"tapeflow cannot loop inside tf.function over a dataset whose elements hold "
                f"{type(spec).__name__}s (nested datasets, as window gives); iterate over it "
                f"outside tf.function.")
    return specs


def _open_kernel(dataset: Any) -> np.ndarray:
    if context.graph is not None:       # tracing: no pass is opened
        return np.asarray(0, np.int64)
    with _LOCK:
        handle = next(_HANDLES)
        _OPEN[handle] = dataset._elements()
    return np.asarray(handle, np.int64)


def _next_kernel(handle: np.ndarray, specs: tuple) -> list:
    elements = None if context.graph is not None else _OPEN.get(int(handle))
    element = _END if elements is None else next(elements, _END)
    if element is _END:
        with _LOCK:
            _OPEN.pop(int(handle), None)
        # (Tracing, too, ends here: the loop's example run stops at once.)
        return [np.asarray(False)] + [
            np.zeros([d or 0 for d in spec.shape.as_list()], spec.dtype._np) for spec in specs]
    leaves = structure.flatten(element)
    return [np.asarray(True)] + [np.asarray(leaf, spec.dtype._np)
                                 for leaf, spec in zip(leaves, specs)]


def _next_shapes(handle: ShapedArray, specs: tuple) -> list:
    return [ShapedArray((), np.bool_)] + [
        ShapedArray(tuple(spec.shape.as_list()) if spec.shape.rank is not None else None,
                    spec.dtype._np) for spec in specs]


def _delete_kernel(handle: np.ndarray, done: np.ndarray) -> np.ndarray:
    with _LOCK:
        _OPEN.pop(int(handle), None)
    return np.asarray(0, np.int64)


_STATEFUL = {"differentiable": False, "stateful": True}
_OPEN_ITERATOR = Primitive("AnonymousIteratorV3", _open_kernel,
                           shape_rule=lambda dataset: ShapedArray((), np.int64), **_STATEFUL)
_GET_NEXT = Primitive("IteratorGetNextAsOptional", _next_kernel, multiple_results=True,
                      shape_rule=_next_shapes, **_STATEFUL)
_DELETE_ITERATOR = Primitive("DeleteIterator", _delete_kernel,
                             shape_rule=lambda handle, done: ShapedArray((), np.int64),
                             **_STATEFUL)


def graph_for(dataset: Any, extra_test: Optional[Callable], body: Callable, state: tuple,
              names: Sequence[str], options: dict) -> tuple:
    """AutoGraph's `for` over `dataset` while a function is traced: `state = body(element,
    *state)` per element (while `extra_test(*state)`), as a loop that runs with the graph."""
    specs = tuple(_leaf_specs(dataset))
    handle = bind(_OPEN_ITERATOR, (), {"dataset": dataset})
    first = bind(_GET_NEXT, (handle,), {"specs": specs})
    width = len(first)

    def loop_test(has_value: Any, *rest: Any) -> Any:
        if extra_test is None:
            return has_value
        return math_ops.logical_and(has_value, operators._as_bool(extra_test(*rest[width - 1:])))

    def loop_body(has_value: Any, *rest: Any) -> tuple:
        element = structure.pack(dataset.element_spec, list(rest[:width - 1]))
        new_state = body(element, *rest[width - 1:])
        return (*bind(_GET_NEXT, (handle,), {"specs": specs}), *new_state)

    element_names = tuple(f"<element {i}>" for i in range(width - 1))
    entry, all_names = (*first, *state), ("<has value>", *element_names, *names)
    try:
        final = operators._graph_loop(loop_test, loop_body, entry, all_names, options)
    except ValueError as exc:
        if "after one iteration" not in str(exc):
            raise
        # TF runs the loop as a dataset reduce, which weakens the state's shapes until an
        # iteration keeps them: do the same, then trace the loop with those invariants.
        relaxed = _relaxed_invariants(loop_body, entry, options)
        final = operators._graph_loop(loop_test, loop_body, entry, all_names, relaxed)
    bind(_DELETE_ITERATOR, (handle, final[0]))
    return tuple(final[width:])


def _relaxed_invariants(loop_body: Callable, entry: tuple, options: dict) -> dict:
    """`options` with shape invariants for the loop's tensors whose shapes an iteration
    changes: the most specific shapes both before and after every iteration satisfy."""
    shapes = [v.shape if isinstance(v, Tensor) else None for v in entry]
    for _ in range(8):
        out = operators._trial_iteration(loop_body, list(entry), shapes)
        if out is None:
            break
        weaker = [_common_shape(s, o) for s, o in zip(shapes, out)]
        if weaker == shapes:
            break
        shapes = weaker
    invariants = [(v, s) for v, s in zip(entry, shapes)
                  if isinstance(v, Tensor) and s is not None and s != v.shape]
    return {**options, "shape_invariants": [*options.get("shape_invariants", ()), *invariants]}


def _common_shape(shape: Any, value: Any) -> Any:
    if shape is None or not isinstance(value, Tensor):
        return shape
    if shape.rank is None or value.shape.rank != shape.rank:
        return TensorShape(None)
    return TensorShape([a if a == b else None
                        for a, b in zip(shape.as_list(), value.shape.as_list())])


__all__ = ["graph_for"]
