"""Python operators on tensors and variables (`+`, `@`, `[]`, `==`, ...), as TensorFlow's
`_override_operator` attaches them."""

from __future__ import annotations

import operator
from typing import Any, Callable, Iterator

import numpy as np

from tapeflow.autodiff.core import Primitive, bind_eager_binary
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable
from tapeflow.ops import array_ops, math_ops
from tapeflow.ops._convert import _F32, _F64, _PY_SCALARS, convert_to_tensor, \
    scalar_constant, scalar_operand


def _reflected(fn):
    """TF's `__r*__` operators: the other operand converts to this one's dtype first (a
    Python value that cannot raises TypeError), so `3 + x` and `[1, 2] * v` work for a
    float x or v where tf.add(3, x) would not."""
    def op(self: Any, other: Any) -> Any:
        if type(other) in _PY_SCALARS and self._value.dtype.kind == "f":
            other = scalar_constant(other, self._value.dtype)  # the common `2.0 * x`
        elif not isinstance(other, TensorLike):
            other = convert_to_tensor(other, dtype=self.dtype)
        return fn(other, self)
    return op


_ndarray = np.ndarray


def _fast(prim: Primitive, kernel: Callable, general: Callable, reflected: bool = False
          ) -> Callable:
    """The operator `general(x, y)` (`general(y, x)` when `reflected`), with a fast path for
    the common eager case: a Tensor (not a variable) of float32 or float64 and another of
    the same dtype or a Python number. There TensorFlow's operand rules reduce to one
    shared constant for the number, so the op is `bind(prim, operands)` with the kernel
    run as Python's operator (see `bind_eager_binary`); anything else, and any failure,
    takes `general`, which raises TensorFlow's errors. The kernel is `prim.impl`'s
    operator only while `prim.impl` is the ufunc it was made with (not, say, instrumented)."""
    ufunc = prim.impl

    def op(x: Any, y: Any) -> Any:
        if type(x) is Tensor and prim.impl is ufunc:
            xv = x._value
            dtype = xv.dtype
            if dtype is _F32 or dtype is _F64:
                if type(y) is Tensor:
                    yv = y._value
                    if yv.dtype is dtype:
                        out = bind_eager_binary(prim, kernel, y, x, yv, xv) if reflected \
                            else bind_eager_binary(prim, kernel, x, y, xv, yv)
                        if out is not None:
                            return out
                elif type(y) is float or type(y) is int:
                    pair = scalar_operand(y, dtype)
                    if pair is not None:
                        # A NumPy scalar meets the number as a scalar, an array as its 0-d
                        # array (which the ufunc takes without converting).
                        c = pair[0]
                        yv = pair[1] if type(xv) is not _ndarray else c._value
                        out = bind_eager_binary(prim, kernel, c, x, yv, xv) if reflected \
                            else bind_eager_binary(prim, kernel, x, c, xv, yv)
                        if out is not None:
                            return out
        return general(x, y)
    op.__wrapped__ = general
    return op


def _shapes_do_not_broadcast(exc: Exception) -> bool:
    # The kernel's error eagerly; the shape rule's while tracing.
    return str(exc).startswith(("Incompatible shapes", "Dimensions must be equal"))


def _eq(self: Any, other: Any) -> Any:
    # TensorFlow: False for None; else elementwise (operands that do not convert raise), and
    # False for shapes that do not broadcast (its Equal with incompatible_shape_error=False).
    if other is None:
        return False
    try:
        return math_ops.equal(self, other)
    except (InvalidArgumentError, ValueError) as exc:
        if not _shapes_do_not_broadcast(exc):
            raise
        return convert_to_tensor(False)


def _ne(self: Any, other: Any) -> Any:
    if other is None:
        return True
    try:
        return math_ops.not_equal(self, other)
    except (InvalidArgumentError, ValueError) as exc:
        if not _shapes_do_not_broadcast(exc):
            raise
        return convert_to_tensor(True)


def _logical_or_bitwise(logical, bitwise, reflected: str = None):
    """`&`, `|`, `^`: logical on bools, bitwise on integers. Given the reflected method's
    name, the forward operator, with TF's fallback (math_ops.operator_error)."""
    def op(x: Any, y: Any) -> Any:
        probe = x if isinstance(x, TensorLike) else y
        try:
            return logical(x, y) if probe.dtype.is_bool else bitwise(x, y)
        except (TypeError, ValueError) as exc:
            if reflected is None:
                raise
            return math_ops.operator_error(exc, x, y, reflected)
    return op


def _invert(x: Any) -> Any:
    return math_ops.logical_not(x) if x.dtype.is_bool else math_ops.invert(x)


def _iter(self: Any) -> Iterator:
    # Not a generator: iter() of a scalar raises at once, as TF's does (matplotlib and
    # np.iterable-style checks rely on it).
    if self._value.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    return (array_ops.slice_tensor(self, i) for i in range(self._value.shape[0]))


_and = _logical_or_bitwise(math_ops.logical_and, math_ops.bitwise_and)
_or = _logical_or_bitwise(math_ops.logical_or, math_ops.bitwise_or)
_xor = _logical_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor)

# The forward operators fall back as TF's binary_op_wrapper (math_ops.operator_error); the
# reflected ones, as TF's, do not (but `*` of bools still multiplies them, as TF's).
OPERATORS = {
    "__add__": _fast(math_ops._add, operator.add, math_ops.add_operator),
    "__radd__": _fast(math_ops._add, operator.add, _reflected(math_ops.add), True),
    "__sub__": _fast(math_ops._sub, operator.sub, math_ops.subtract_operator),
    "__rsub__": _fast(math_ops._sub, operator.sub, _reflected(math_ops.subtract), True),
    "__mul__": _fast(math_ops._mul, operator.mul, math_ops.multiply_operator),
    "__rmul__": _fast(math_ops._mul, operator.mul, _reflected(math_ops.multiply_operator),
                      True),
    "__truediv__": _fast(math_ops._div, operator.truediv, math_ops.divide_operator),
    "__rtruediv__": _fast(math_ops._div, operator.truediv, _reflected(math_ops.divide), True),
    "__floordiv__": math_ops.floordiv_operator,
    "__rfloordiv__": _reflected(math_ops.floordiv),
    "__mod__": math_ops.floormod_operator, "__rmod__": _reflected(math_ops.floormod),
    "__pow__": math_ops.pow_operator, "__rpow__": _reflected(math_ops.pow),
    "__matmul__": math_ops.matmul_operator, "__rmatmul__": _reflected(math_ops.matmul),
    "__neg__": math_ops.negative, "__abs__": math_ops.abs,
    "__lt__": math_ops.less, "__le__": math_ops.less_equal,
    "__gt__": math_ops.greater, "__ge__": math_ops.greater_equal,
    "__eq__": _eq, "__ne__": _ne,
    "__and__": _logical_or_bitwise(math_ops.logical_and, math_ops.bitwise_and, "__rand__"),
    "__rand__": _reflected(_and),
    "__or__": _logical_or_bitwise(math_ops.logical_or, math_ops.bitwise_or, "__ror__"),
    "__ror__": _reflected(_or),
    "__xor__": _logical_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor, "__rxor__"),
    "__rxor__": _reflected(_xor), "__invert__": _invert,
    "__getitem__": array_ops.slice_tensor, "__iter__": _iter,
}

for _cls in (Tensor, Variable):
    for _name, _fn in OPERATORS.items():
        setattr(_cls, _name, _fn)
    # Defining __eq__ would reset __hash__; keep TensorLike's (which raises, as TF's does).
    _cls.__hash__ = _cls.__dict__.get("__hash__") or TensorLike.__hash__
