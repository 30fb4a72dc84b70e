"""`tnp.experimental_enable_numpy_behavior()`: NumPy methods, indexing and promotion on
tensors, as TF's `np_config.enable_numpy_behavior`.

Nothing here runs until it is called: it then sets attributes on the tensor classes (as TF
does on its own), so the ops path costs nothing while NumPy behaviour is off. Operators then
promote their operands with NumPy's rules before the op: `int32 + 1.5` is float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tapeflow as tf
from tapeflow.experimental.numpy import _arrays, _dtypes, _math
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable
from tapeflow.ops import operators as _operators

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor")
_COMPARISONS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")
_saved: dict = {}  # (class, name) -> the attribute before enabling (absent: None)


def _promoted(x: Any, y: Any) -> tuple:
    """x and y cast/converted to NumPy's result type of the two (TF's maybe_promote_tensors)."""
    dtype = _dtypes.result_numpy_type(x, y)  # a list's elements count one by one, as TF's
    return _arrays._array_internal(x, dtype), _arrays._array_internal(y, dtype)


def _promoting(fn: Any, reflected: bool = False) -> Any:
    def op(self: Any, other: Any) -> Any:
        if other is None or not _is_operand(other):
            return fn(self, other)
        if reflected:  # fn(self, other) computes other <op> self
            other, self = _promoted(other, self)
        else:
            self, other = _promoted(self, other)
        return fn(self, other)
    op.__name__ = getattr(fn, "__name__", "op")
    return op


def _is_operand(x: Any) -> bool:
    return isinstance(x, (TensorLike, int, float, complex, bool, np.ndarray, np.generic,
                          list, tuple))


# --- indexing ------------------------------------------------------------------------------

def _is_basic(k: Any) -> bool:
    if k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)):
        return not isinstance(k, (bool, np.bool_))
    return isinstance(k, TensorLike) and k.shape.rank == 0 and k.dtype.is_integer


def _getitem(self: Any, key: Any) -> Any:
    """NumPy's indexing: integer and boolean arrays as well as TF's basic slices."""
    items = key if isinstance(key, tuple) else (key,)
    if all(_is_basic(k) for k in items):
        return _saved[(Tensor, "__getitem__")](self, key)
    from tapeflow.graph.ir import SymbolicTensor
    if not isinstance(self, SymbolicTensor) or self.shape.is_fully_defined():
        if not any(isinstance(k, SymbolicTensor) for k in items):
            return _gather_by_table(self, items)
    return _gather_symbolic(self, items)


def _index_value(k: Any) -> Any:
    if isinstance(k, TensorLike):
        return k.numpy()
    if isinstance(k, (list, tuple)):
        return np.asarray([_index_value(v) for v in k])
    return k


def _gather_by_table(t: Any, items: tuple) -> tf.Tensor:
    # The indices are known now: NumPy indexes a table of flat positions; one gather
    # (differentiable) reads them.
    shape = t.shape.as_list()
    positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        chosen = positions[tuple(_index_value(k) for k in items)]
    except IndexError as exc:
        raise tf.errors.InvalidArgumentError(None, None, f"{exc} (indexing a tensor of shape "
                                             f"{shape})") from None
    flat = tf.reshape(t, [-1])
    return tf.reshape(tf.gather(flat, tf.constant(np.ravel(chosen))), list(np.shape(chosen)))


def _gather_symbolic(t: Any, items: tuple) -> tf.Tensor:
    # Inside a trace with index tensors: one integer index array (the other items full
    # slices) gathers; one boolean mask over the leading axes masks.
    advanced = [i for i, k in enumerate(items) if not _is_basic(k)]
    rest = [k for i, k in enumerate(items) if i not in advanced]
    if len(advanced) == 1 and all(isinstance(k, slice) and k == slice(None) for k in rest):
        axis, index = advanced[0], _arrays.asarray(items[advanced[0]])
        if index.dtype == tf.bool:
            if axis == 0:
                return tf.boolean_mask(t, index)
        elif index.dtype.is_integer:
            n = tf.cast(tf.shape(t)[axis], index.dtype)
            return tf.gather(t, tf.where(index < 0, index + n, index), axis=axis)
    raise TypeError(f"Indexing a traced tensor of shape {t.shape} with {items!r}: only one "
                    "integer or boolean index tensor (the other indices `:`) is supported "
                    "while tracing.")


# --- methods -------------------------------------------------------------------------------

def _size(self: Any) -> Any:
    if not self.shape.is_fully_defined():
        return None
    return np.prod(self.shape.as_list())


def _tolist(self: Any) -> Any:
    from tapeflow.graph.ir import SymbolicTensor
    if isinstance(self, SymbolicTensor):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self._value.tolist()


_METHODS = {
    "T": property(lambda self: _arrays.transpose(self)),
    "ndim": property(lambda self: self.shape.rank),
    "size": property(_size),
    "__pos__": lambda self: self,
    "tolist": _tolist,
    "transpose": _arrays.transpose,
    "flatten": _arrays.flatten,
    "reshape": _arrays._reshape_method,
    "ravel": _arrays.ravel,
    "clip": _math.clip,
    "astype": tf.cast,
    "__round__": _math.around,
    "max": _math.amax,
    "mean": _math.mean,
    "min": _math.amin,
    "data": property(lambda self: self),
}


def _set(cls: type, name: str, value: Any) -> None:
    _saved.setdefault((cls, name), cls.__dict__.get(name))
    setattr(cls, name, value)


def enable_numpy_behavior(prefer_float32: bool = False,
                          dtype_conversion_mode: str = "legacy") -> None:
    """Gives tensors NumPy's methods (`.T`, `.reshape`, `.astype`, ...), NumPy indexing
    and NumPy's type promotion in operators; `prefer_float32` reads Python floats as float32.

    Args:
      prefer_float32: infer float32 (not NumPy's float64) for Python floats.
      dtype_conversion_mode: TF's promotion mode; only "legacy" (NumPy's rules) is supported.
    """
    if dtype_conversion_mode != "legacy":
        raise NotImplementedError(
            f"dtype_conversion_mode={dtype_conversion_mode!r}: only 'legacy' (NumPy's "
            "promotion) is supported.")
    _dtypes.set_prefer_float32(prefer_float32)
    if _saved:
        return
    for name, value in _METHODS.items():
        _set(Tensor, name, value)
    _set(Tensor, "__getitem__", _getitem)
    for cls in (Tensor, Variable):
        for op in _BINARY:
            for name, reflected in ((f"__{op}__", False), (f"__r{op}__", True)):
                _set(cls, name, _promoting(_operators.OPERATORS[name], reflected))
        for name in _COMPARISONS:
            _set(cls, name, _promoting(_operators.OPERATORS[name]))


def _disable_numpy_behavior() -> None:
    """Restores the tensor classes as before `enable_numpy_behavior` (for tests)."""
    for (cls, name), value in _saved.items():
        if value is None:
            delattr(cls, name)
        else:
            setattr(cls, name, value)
    _saved.clear()
    _dtypes.set_prefer_float32(False)
