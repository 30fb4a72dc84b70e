"""Operand rules shared by the op wrappers: binary dtype matching and allowed dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.framework.convert import mismatch_error, quiet_array
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.dtypes import kind_of
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable


_PY_SCALARS = (float, int)
# Ops whose TensorFlow wrapper converts in Python: the first operand on its own, the
# second with the first's dtype as a hint only (tf.add, tf.matmul, tf.divide).
_HINTED = frozenset({"AddV2", "MatMul", "RealDiv", "DivNoNan"})
# Of those, the ones whose wrapper checks dtypes itself and raises TypeError.
_PY_CHECKED = frozenset({"RealDiv", "DivNoNan"})


def binary_operands(x: Any, y: Any, op_name: str) -> tuple:
    """Converts the operands of a binary op as TensorFlow's op wrappers do: a tensor (or
    variable) operand fixes the dtype, else the first operand converts on its own, and the
    other converts to that dtype (a Python value that cannot raises TypeError, a NumPy
    value is cast); two tensors of different dtypes raise InvalidArgumentError."""
    # Fast paths first: this runs for every arithmetic operator. A variable operand (a
    # layer's weight) is read first, so that it takes the tensor-tensor path.
    if type(x) is not Tensor and isinstance(x, Variable):  # x first: tapes watch in
        x = x.value()                                        # the order of reading
    if type(y) is not Tensor and isinstance(y, Variable):
        if type(x) is not Tensor and isinstance(x, _FALLBACK_FIRST) and \
                not isinstance(x, float) and op_name not in _HINTED:
            return _fallback_operands(x, y)
        y = y.value()
    if type(x) is Tensor:
        if type(y) is Tensor:
            if x._value.dtype is y._value.dtype or x._value.dtype == y._value.dtype:
                return x, y
            raise _mismatch(op_name, x, y)
        if type(y) in _PY_SCALARS and x._value.dtype.kind == "f":
            return x, scalar_constant(y, x._value.dtype)
    elif type(y) is Tensor and type(x) in _PY_SCALARS and y._value.dtype.kind == "f" \
            and op_name != "AddV2":  # tf.add converts a first Python operand on its own
        return scalar_constant(x, y._value.dtype), y
    return _convert_operands(x, y, op_name)


def _convert_operands(x: Any, y: Any, op_name: str) -> tuple:
    if type(x) is IndexedSlices:  # densified, as tensors
        x = convert_to_tensor(x)
    if type(y) is IndexedSlices:
        y = convert_to_tensor(y)
    if op_name in _HINTED and not (op_name in _PY_CHECKED and isinstance(y, TensorLike)
                                   and not isinstance(x, TensorLike)):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    elif isinstance(x, TensorLike) or not isinstance(y, TensorLike):
        x = convert_to_tensor(x)
        y = _converted_like(y, x)
    else:
        y = convert_to_tensor(y)
        x = _converted_like(x, y)
    if x._value.dtype != y._value.dtype:
        raise _mismatch(op_name, x, y)
    return x, y


def _converted_like(value: Any, other: Tensor) -> Tensor:
    """`value` as a tensor of `other`'s dtype (tensors keep theirs, to fail the match)."""
    if isinstance(value, TensorLike):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype=other.dtype)


# First operands that send TF's op wrappers down their slow path, where a variable second
# operand does not fix the dtype: lists and NumPy scalars (np.float64 is a float).
_FALLBACK_FIRST = (list, tuple, np.generic)


def _fallback_operands(x: Any, variable: Variable) -> tuple:
    """TF's slow path: `x` converts on its own and the variable must have its dtype."""
    x = convert_to_tensor(x)
    return x, convert_to_tensor(variable, dtype=x.dtype)


def _mismatch(op_name: str, x: Tensor, y: Tensor) -> Exception:
    """TensorFlow's error for operands of different dtypes: the kernel's, or the TypeError
    of the Python wrappers that check dtypes (tf.divide, `/`, tf.math.divide_no_nan)."""
    if op_name in _PY_CHECKED:
        return TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != "
                         f"{y.dtype!r}.")
    return mismatch_error(op_name, 1, x.dtype, y.dtype)


_SCALARS: dict = {}  # (type, value, dtype) -> a read-only constant tensor
_SCALARS_LIMIT = 512


def scalar_constant(value: Any, dtype: np.dtype) -> Tensor:
    """A Python number as a constant tensor of the floating `dtype`, made once per value:
    training code multiplies by the same learning rate and constants on every step, and a
    new 0-d array costs about as much as the small op it feeds. Shared arrays are read-only;
    zeros (0.0 and -0.0 are equal keys) and NaN are made each time."""
    key = (type(value), value, dtype)
    tensor = _SCALARS.get(key)
    if tensor is None:
        array = quiet_array(value, dtype)
        if value == 0 or value != value or len(_SCALARS) >= _SCALARS_LIMIT:
            return wrap(array)
        array.flags.writeable = False
        tensor = _SCALARS[key] = wrap(array)
    return tensor


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
# value -> (constant tensor, its NumPy scalar), per dtype: the operators' fast path.
_OPERANDS: dict = {_F32: {}, _F64: {}}


def scalar_operand(value: Any, dtype: np.dtype) -> Any:
    """For a Python number operand of a float32 or float64 tensor: `(scalar_constant(value,
    dtype), the same value as a NumPy scalar)`, or None where no shared constant is made
    (zeros, NaN, a full cache; the caller takes the general path). The NumPy scalar lets an
    op on a NumPy scalar skip the ufunc's conversions; the tensor is what tapes record."""
    table = _OPERANDS[dtype]
    pair = table.get(value)
    if pair is None:
        try:
            tensor = scalar_constant(value, dtype)
        except (OverflowError, ValueError, TypeError):
            return None  # the general path raises TensorFlow's error
        if tensor._value.flags.writeable:  # not shared: made each time
            return None
        # int and float keys that compare equal are the same number, so the same constant.
        pair = table[value] = (tensor, tensor._value[()])
    return pair


def require(x: Tensor, allowed: str, op_name: str) -> None:
    """Raises TensorFlow's error when `x`'s dtype kind (NumPy letters, e.g. 'fc') is not
    allowed for the op; bfloat16 (ml_dtypes' kind 'V') counts as 'f'. Callers may test the
    kind first and call this only on a miss: it is the rare path."""
    if kind_of(x._value.dtype) not in allowed:
        raise _dtypes_error(x, allowed, op_name)


def convert_input(value: Any, allowed: str) -> Tensor:
    """An op's input as a tensor; for a bool input (`allowed` "b"), a Python or NumPy value
    converts to bool, as TF converts it to the input's declared type (TypeError where it
    cannot), while a tensor keeps its dtype for the op's check."""
    if allowed == "b" and not isinstance(value, TensorLike):
        return convert_to_tensor(value, dtype=_dtypes.bool)
    return convert_to_tensor(value)


def is_bfloat16(dtype: np.dtype) -> bool:
    """Whether a NumPy dtype is ml_dtypes' bfloat16 (kind 'V', so no kind test finds it)."""
    return dtype.kind == "V" and dtype.name == "bfloat16"


_KIND_NAMES = {"f": "bfloat16, half, float, double", "c": "complex64, complex128",
               "i": "int8, int16, int32, int64", "u": "uint8, uint16, uint32, uint64",
               "b": "bool"}


def _dtypes_error(x: Tensor, allowed: str, op_name: str) -> Exception:
    if allowed == "b":  # a bool input (LogicalNot, Any, All): no dtype attribute to name
        return mismatch_error(op_name, 0, _dtypes.bool, x.dtype, fixed=True)
    # TensorFlow lists floats, then integers, then complex types.
    names = ", ".join(_KIND_NAMES[k] for k in "fiucb" if k in allowed)
    return InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                f"allowed values: {names} [Op:{op_name}]")


__all__ = ["convert_to_tensor", "convert_input", "binary_operands", "require", "is_bfloat16"]
