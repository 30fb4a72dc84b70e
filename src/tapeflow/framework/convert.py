"""Turning Python and NumPy values into tensors with TensorFlow's dtype rules.

Python floats become float32, Python ints int32 (int64 when they do not fit), bools bool;
NumPy arrays keep their dtype. A `dtype_hint` (what a binary op gives a Python operand) is used
when the value fits it losslessly, and ignored otherwise.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike, wrap

_INT32 = np.iinfo(np.int32)
_conversion_functions: list = []  # (type, fn) pairs from register_tensor_conversion_function


def register_tensor_conversion_function(base_type: Any, conversion_func: Any,
                                        priority: int = 100) -> None:
    """Lets objects of `base_type` be passed wherever a tensor is expected."""
    _conversion_functions.append((base_type, conversion_func))


def _leaves(value: Any):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _python_default_dtype(value: Any) -> np.dtype:
    """TensorFlow's inferred dtype for a Python scalar or nested list."""
    kinds = set()
    big = False
    for leaf in _leaves(value):
        if isinstance(leaf, (bool, np.bool_)):
            kinds.add("b")
        elif isinstance(leaf, (np.generic, np.ndarray)):
            kinds.add(np.asarray(leaf).dtype.kind if np.asarray(leaf).dtype.kind != "f" else "F")
        elif isinstance(leaf, numbers.Integral):
            kinds.add("i")
            big = big or not (_INT32.min <= int(leaf) <= _INT32.max)
        elif isinstance(leaf, numbers.Real):
            kinds.add("f")
        elif isinstance(leaf, numbers.Complex):
            kinds.add("c")
        elif isinstance(leaf, (str, bytes)):
            kinds.add("S")
        elif isinstance(leaf, TensorLike):
            kinds.add("T")
        else:
            raise ValueError(f"{_UNSUPPORTED} ({leaf!r}) with an unsupported type "
                             f"({type(leaf)}) to a Tensor.")
    if "S" in kinds:
        return np.dtype(object)
    if "c" in kinds:
        return np.dtype(np.complex128)
    if "f" in kinds or "F" in kinds:
        return np.dtype(np.float32)
    if "i" in kinds:
        return np.dtype(np.int64 if big else np.int32)
    if kinds <= {"b"} and kinds:
        return np.dtype(np.bool_)
    return np.dtype(np.float32)  # empty list: TensorFlow gives float32


_FLOAT32 = np.dtype(np.float32)

# TensorFlow's ValueError for a value of a type it cannot convert; it passes through the
# non-rectangular-sequence handler below unchanged.
_UNSUPPORTED = "Attempt to convert a value"


def _fits(array: np.ndarray, target: np.dtype, native: bool) -> bool:
    """Whether a value may convert to `target` (TensorFlow's rule): NumPy values cast
    between any numeric types; Python values only where no meaning is lost in kind (a
    Python float never becomes an integer, nor a number a bool)."""
    src, dst = array.dtype.kind, target.kind
    if src == dst or array.size == 0:
        return True
    if not native:
        return src in "biufc" and dst in "biufc"
    if dst in "fc":
        return src in "biuf" or (src == "c" and dst == "c")
    if dst in "iu":
        return src in "biu"
    return False


def _as_array(value: Any, dtype: Optional[np.dtype]) -> np.ndarray:
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
    else:
        if any(isinstance(leaf, TensorLike) for leaf in _leaves(value)):
            # A list holding tensors: pack their values (tf.constant([t1, t2]) works in TF).
            value = _unpack_tensors(value)
        array = np.asarray(value, dtype=_python_default_dtype(value))
        if array.dtype == object:
            # TensorFlow strings are bytes: str values are stored UTF-8 encoded.
            array = np.vectorize(_as_bytes, otypes=[object])(array) if array.size else array
    if dtype is not None and array.dtype != dtype:
        native = not isinstance(value, (np.ndarray, np.generic))
        if not _fits(array, dtype, native):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                            f"{_dtypes.from_numpy(dtype).name}")
        if native and dtype.kind == "f":
            # From the Python value itself: tf.constant(0.1, tf.float64) is the float64
            # nearest 0.1, not a widened float32.
            array = np.asarray(value, dtype=dtype)
        else:
            # NumPy's cast wraps out-of-range integers, as TensorFlow's does.
            array = array.astype(dtype)
    return array


def _as_bytes(item: Any) -> Any:
    return item.encode("utf-8") if isinstance(item, str) else item


def _unpack_tensors(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_unpack_tensors(v) for v in value]
    return np.asarray(value._value) if isinstance(value, TensorLike) else value


def constant_value(value: Any, dtype: Any = None, dtype_hint: Any = None) -> Tensor:
    """A Tensor from a Python or NumPy value (not a Tensor or Variable)."""
    for base_type, func in _conversion_functions:
        if isinstance(value, base_type):
            return func(value, dtype=dtype)
    if type(value) is float and dtype_hint is None:  # the commonest value: a Python float
        target = _FLOAT32 if dtype is None else _dtypes.as_dtype(dtype)._np
        if target.kind == "f":
            return wrap(np.array(value, dtype=target))  # from the Python value, as _as_array
    if hasattr(value, "__tf_tensor__"):
        return value.__tf_tensor__(dtype, None)
    target = None if dtype is None else _dtypes.as_dtype(dtype)._np
    if target is None and dtype_hint is not None:
        hint = _dtypes.as_dtype(dtype_hint)._np
        try:
            return wrap(_as_array(value, hint))
        except (TypeError, ValueError):
            pass
    try:
        return wrap(_as_array(value, target))
    except ValueError as exc:
        if str(exc).startswith(_UNSUPPORTED):
            raise
        # Ragged nested lists and the like.
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


def check_dtype(tensor: Tensor, dtype: Any) -> Tensor:
    """Raises as TensorFlow does when a tensor is asked to be of another dtype."""
    if dtype is not None and tensor.dtype != _dtypes.as_dtype(dtype):
        raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for "
                         f"Tensor with dtype {tensor.dtype.name}: {tensor!r}")
    return tensor


def cpp_name(dtype: _dtypes.DType) -> str:
    """The dtype's name as TensorFlow's C++ kernels write it in errors (`float`, `double`)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                             dtype.name)


def mismatch_error(op_name: str, index: int, expected: _dtypes.DType,
                   got: _dtypes.DType) -> InvalidArgumentError:
    """TensorFlow's error when the operands of an op disagree in dtype."""
    kind = cpp_name
    return InvalidArgumentError(
        f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
        f"{kind(expected)} tensor but is a {kind(got)} tensor [Op:{op_name}]")


__all__ = ["constant_value", "check_dtype", "mismatch_error", "cpp_name", "register_tensor_conversion_function"]
