"""Python operators on tensors and variables (`+`, `@`, `[]`, `==`, ...), as TensorFlow's
`_override_operator` attaches them."""

from __future__ import annotations

from typing import Any, Iterator

from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable
from tapeflow.ops import array_ops, math_ops
from tapeflow.ops._convert import _PY_SCALARS, convert_to_tensor, scalar_constant


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
    "__add__": math_ops.add_operator, "__radd__": _reflected(math_ops.add),
    "__sub__": math_ops.subtract_operator, "__rsub__": _reflected(math_ops.subtract),
    "__mul__": math_ops.multiply_operator, "__rmul__": _reflected(math_ops.multiply_operator),
    "__truediv__": math_ops.divide_operator, "__rtruediv__": _reflected(math_ops.divide),
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
