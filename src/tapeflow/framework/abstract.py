"""Abstract values and shape-and-dtype rules: what a primitive's output looks like, known from
its inputs' shapes and dtypes alone (JAX's `abstract_eval`, TensorFlow's shape functions).

A `ShapedArray` is a shape and a dtype. A dimension may be unknown (None) and so may the rank
(`shape is None`), as in `tf.TensorShape`. Every primitive declares a rule
`rule(*avals, **attrs) -> ShapedArray` (a tuple for multiple results); tracing uses it to give
each traced value its static shape, so a `tf.function` traced with `None` dims holds for every
size. A rule raises ValueError where TensorFlow's shape inference rejects the inputs.

The rules most primitives share are here: same shape as the input, NumPy broadcasting, and
"shape not known until run time".
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

Dims = Optional[tuple]   # a tuple of int-or-None dims, or None for an unknown rank


class ShapedArray:
    """A value known by its static shape and dtype only.

    Args:
      shape: a tuple of dims (ints, or None where unknown), or None for an unknown rank.
      dtype: a NumPy dtype.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Dims, dtype: Any) -> None:
        self.shape = None if shape is None else tuple(
            None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self) -> Optional[int]:
        """The rank, or None when unknown."""
        return None if self.shape is None else len(self.shape)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dim are known."""
        return self.shape is not None and None not in self.shape

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        dims = "<unknown>" if self.shape is None else \
            "(" + ", ".join("?" if d is None else str(d) for d in self.shape) + ")"
        return f"ShapedArray{dims}:{self.dtype.name}"


def aval_of(value: Any) -> ShapedArray:
    """The abstract value of a concrete array (or anything NumPy can take as one), or of an
    `AbstractArray`."""
    if type(value) is AbstractArray:
        return ShapedArray(value.shape, value.dtype)
    value = np.asarray(value)
    return ShapedArray(value.shape, value.dtype)


class AbstractValueError(TypeError):
    """Code asked a traced tensor for a value (or a dim) that is known only at run time."""


class AbstractArray:
    """What a traced tensor holds in place of a value when the trace does not know it: its
    static `shape` (None dims where unknown) and `dtype`, and nothing else.

    Op wrappers read `x._value.dtype` and `x._value.shape` for static checks; those work, with
    None for unknown dims. Anything that needs the value itself (`np.asarray`, arithmetic,
    `.size` with unknown dims) raises AbstractValueError instead of guessing, so an op that
    would bake a trace-time value into the graph fails loudly.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Dims, dtype: Any) -> None:
        self.shape = shape
        self.dtype = np.dtype(dtype)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dim are known."""
        return self.shape is not None and None not in self.shape

    def _unknown(self, what: str) -> AbstractValueError:
        return AbstractValueError(
            f"{what} of a traced tensor of shape {dims_text(self.shape)} and dtype "
            f"{self.dtype.name} is known only when the graph runs")

    @property
    def ndim(self) -> int:
        if self.shape is None:
            raise self._unknown("The rank")
        return len(self.shape)

    @property
    def size(self) -> int:
        if self.shape is None or None in self.shape:
            raise self._unknown("The size")
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise self._unknown("The length")
        return self.shape[0]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise self._unknown("The value")

    def __bool__(self) -> bool:
        raise self._unknown("The truth value")

    def __getitem__(self, key: Any) -> Any:
        raise self._unknown("An element")

    def __iter__(self) -> Any:
        raise self._unknown("The elements")

    def __repr__(self) -> str:
        return f"AbstractArray({dims_text(self.shape)}, {self.dtype.name})"


def has_static_shape(value: Any) -> bool:
    """Whether a tensor's value (`t._value`: an array, or a traced AbstractArray) has a shape
    known now, so derivative rules may bake it into attributes."""
    return type(value) is not AbstractArray or value.is_fully_defined()


def dims_text(shape: Dims) -> str:
    """A static shape as TensorFlow writes it in errors: `[2,?]`, `<unknown>`."""
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def shape_error(op_name: str, avals: Sequence[ShapedArray], text: str) -> ValueError:
    """TensorFlow's shape-function error: `text`, the node and every input's static shape."""
    shapes = ", ".join(dims_text(a.shape) for a in avals)
    return ValueError(f"{text} for '{{{{node {op_name}}}}} = {op_name}' with input shapes: "
                      f"{shapes}.")


def broadcast_dims(*shapes: Dims) -> Dims:
    """NumPy broadcasting over static shapes with unknown dims, as TensorFlow's
    BroadcastBinaryOpShapeFn: an unknown dim against 1 or another unknown stays unknown,
    against a known n > 1 it becomes n. Raises ValueError for shapes that cannot broadcast."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError("Incompatible shapes: " + " vs. ".join(dims_text(s) for s in shapes))
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def same_as_input(x: ShapedArray, *rest: Any, **attrs: Any) -> ShapedArray:
    """The rule of ops whose output has their first input's shape and dtype."""
    return ShapedArray(x.shape, x.dtype)


def same_shape(dtype: Any) -> Callable:
    """The rule of ops whose output has the first input's shape and a fixed dtype (a
    callable `dtype(input dtype)`, or a dtype)."""
    pick = dtype if callable(dtype) and not isinstance(dtype, type) else (lambda _: dtype)

    def rule(x: ShapedArray, *rest: Any, **attrs: Any) -> ShapedArray:
        return ShapedArray(x.shape, pick(x.dtype))
    return rule


def broadcasting(*inputs: ShapedArray, **attrs: Any) -> ShapedArray:
    """The rule of elementwise ops over broadcast inputs: the broadcast shape, the first
    input's dtype."""
    return ShapedArray(broadcast_dims(*(x.shape for x in inputs)), inputs[0].dtype)


__all__ = ["ShapedArray", "AbstractArray", "AbstractValueError", "aval_of", "has_static_shape",
           "dims_text", "shape_error", "broadcast_dims", "same_as_input", "same_shape",
           "broadcasting"]
