"""Python operators on tensors and variables (`+`, `@`, `[]`, `==`, ...), as TensorFlow's
`_override_operator` attaches them."""

from __future__ import annotations

import weakref
from typing import Any

from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable
from tapeflow.ops import array_ops, math_ops


def _flip(fn):
    return lambda self, other: fn(other, self)


def _eq(self: Any, other: Any) -> Any:
    # TensorFlow: elementwise, but False for None and for values that are no tensor.
    if other is None:
        return False
    try:
        return math_ops.equal(self, other)
    except (TypeError, ValueError):
        if type(other) in (int, float, complex):  # TF: a number of the wrong kind raises
            raise
        return False


def _ne(self: Any, other: Any) -> Any:
    if other is None:
        return True
    try:
        return math_ops.not_equal(self, other)
    except (TypeError, ValueError):
        if type(other) in (int, float, complex):  # TF: a number of the wrong kind raises
            raise
        return True


def _logical_or_bitwise(logical, bitwise):
    def op(x: Any, y: Any) -> Any:
        probe = x if isinstance(x, TensorLike) else y
        return logical(x, y) if probe.dtype.is_bool else bitwise(x, y)
    return op


def _invert(x: Any) -> Any:
    return math_ops.logical_not(x) if x.dtype.is_bool else math_ops.invert(x)


def _iter(self: Any):
    if self._value.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    for i in range(self._value.shape[0]):
        yield array_ops.slice_tensor(self, i)


_and = _logical_or_bitwise(math_ops.logical_and, math_ops.bitwise_and)
_or = _logical_or_bitwise(math_ops.logical_or, math_ops.bitwise_or)
_xor = _logical_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor)

OPERATORS = {
    "__add__": math_ops.add, "__radd__": _flip(math_ops.add),
    "__sub__": math_ops.subtract, "__rsub__": _flip(math_ops.subtract),
    "__mul__": math_ops.multiply, "__rmul__": _flip(math_ops.multiply),
    "__truediv__": math_ops.divide, "__rtruediv__": _flip(math_ops.divide),
    "__floordiv__": math_ops.floordiv, "__rfloordiv__": _flip(math_ops.floordiv),
    "__mod__": math_ops.floormod, "__rmod__": _flip(math_ops.floormod),
    "__pow__": math_ops.pow, "__rpow__": _flip(math_ops.pow),
    "__matmul__": math_ops.matmul, "__rmatmul__": _flip(math_ops.matmul),
    "__neg__": math_ops.negative, "__abs__": math_ops.abs,
    "__lt__": math_ops.less, "__le__": math_ops.less_equal,
    "__gt__": math_ops.greater, "__ge__": math_ops.greater_equal,
    "__eq__": _eq, "__ne__": _ne,
    "__and__": _and, "__rand__": _flip(_and), "__or__": _or, "__ror__": _flip(_or),
    "__xor__": _xor, "__rxor__": _flip(_xor), "__invert__": _invert,
    "__getitem__": array_ops.slice_tensor, "__iter__": _iter,
}

# -- sliced variable assignment: `v[0, 1:].assign(value)` ----------------------------------------

# id(slice tensor) -> (weak reference to it, the variable, the normalized key). Slices of a
# variable are plain Tensors (every fast path stays), remembered here while they live.
_VARIABLE_SLICES: dict = {}


def _variable_getitem(variable: Variable, key: Any) -> Tensor:
    out = array_ops.slice_tensor(variable, key)
    try:
        static_key = array_ops._normalize_index(key, variable._value.shape)
    except (TypeError, ValueError):
        return out  # a dynamic (traced tensor) index: readable, not assignable
    ident = id(out)
    forget = lambda _, i=ident: _VARIABLE_SLICES.pop(i, None)  # noqa: E731
    _VARIABLE_SLICES[ident] = (weakref.ref(out, forget), variable, static_key)
    return out


def _slice_assign(self: Tensor, value: Any, use_locking: Any = None, name: Any = None,
                  read_value: bool = True) -> Variable:
    """`variable[key].assign(value)`: writes `value` (broadcast to the slice) into the
    variable's elements at `key`, with ops, so it works eagerly and traced. Plain tensors have
    no `assign`, as in TensorFlow."""
    entry = _VARIABLE_SLICES.get(id(self))
    if entry is None or entry[0]() is not self:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'assign'")
    _, variable, key = entry
    value = array_ops.broadcast_to(math_ops.cast(value, variable.dtype), self._value.shape)
    shape = variable._value.shape
    placed = array_ops.place_slice(value, shape, key)
    mask = array_ops.place_slice(math_ops.ones_like(value), shape, key)
    return variable.assign(variable * (1 - mask) + placed)


Tensor.assign = _slice_assign

for _cls in (Tensor, Variable):
    for _name, _fn in OPERATORS.items():
        setattr(_cls, _name, _fn)
    # Defining __eq__ would reset __hash__; keep TensorLike's (which raises, as TF's does).
    _cls.__hash__ = _cls.__dict__.get("__hash__") or TensorLike.__hash__
Variable.__getitem__ = _variable_getitem
