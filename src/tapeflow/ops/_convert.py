"""Operand rules shared by the op wrappers: binary dtype matching and allowed dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.framework.convert import cpp_name, mismatch_error
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable


_PY_SCALARS = (float, int)


def binary_operands(x: Any, y: Any, op_name: str) -> tuple:
    """Converts the operands of a binary op; a Python operand takes the tensor's dtype and
    two tensors of different dtypes raise InvalidArgumentError (no silent promotion)."""
    # Fast paths first: this runs for every arithmetic operator. A variable operand (a
    # layer's weight) is read first, so that it takes the tensor-tensor path.
    if type(x) is not Tensor and isinstance(x, Variable):  # x first: tapes watch in
        x = x.value()                                        # the order of reading
    if type(y) is not Tensor and isinstance(y, Variable):
        y = y.value()
    if type(x) is Tensor:
        if type(y) is Tensor:
            if x._value.dtype is y._value.dtype or x._value.dtype == y._value.dtype:
                return x, y
            raise mismatch_error(op_name, 1, x.dtype, y.dtype)
        if type(y) in _PY_SCALARS and x._value.dtype.kind == "f":
            return x, scalar_constant(y, x._value.dtype)
    elif type(y) is Tensor and type(x) in _PY_SCALARS and y._value.dtype.kind == "f":
        return scalar_constant(x, y._value.dtype), y
    if isinstance(x, TensorLike) and op_name != "AddV2":  # TF's add converts softly
        _check_scalar_fits(y, x)
    elif isinstance(y, TensorLike):
        _check_scalar_fits(x, y)
    if isinstance(x, (TensorLike, IndexedSlices)):  # IndexedSlices densify, as tensors
        x = convert_to_tensor(x)
        y = convert_to_tensor(y) if isinstance(y, TensorLike) else \
            convert_to_tensor(y, dtype_hint=x.dtype)
    else:
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype_hint=y.dtype)
    if x._value.dtype != y._value.dtype:
        raise mismatch_error(op_name, 1, x.dtype, y.dtype)
    return x, y


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
        array = np.array(value, dtype=dtype)
        if value == 0 or value != value or len(_SCALARS) >= _SCALARS_LIMIT:
            return wrap(array)
        array.flags.writeable = False
        tensor = _SCALARS[key] = wrap(array)
    return tensor


def _check_scalar_fits(value: Any, tensor: TensorLike) -> None:
    """TF's TypeError when a Python number cannot take the other operand's dtype (a float
    with an integer tensor, an int with a bool tensor, ...), before any op runs."""
    if type(value) not in (int, float, complex):  # bool fits every dtype, as in TF
        return
    kind = tensor._value.dtype.kind
    allowed = {int: "iufc", float: "fc", complex: "c"}[type(value)]
    if kind not in allowed:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                        f"{cpp_name(tensor.dtype)}")


def require(x: Tensor, allowed: str, op_name: str) -> None:
    """Raises TensorFlow's error when `x`'s dtype kind (NumPy letters, e.g. 'fc') is not
    allowed for the op."""
    if x._value.dtype.kind not in allowed:
        raise _dtypes_error(x, allowed, op_name)


_KIND_NAMES = {"f": "bfloat16, half, float, double", "c": "complex64, complex128",
               "i": "int8, int16, int32, int64", "u": "uint8, uint16, uint32, uint64",
               "b": "bool"}


def _dtypes_error(x: Tensor, allowed: str, op_name: str) -> Exception:
    # TensorFlow lists floats, then integers, then complex types.
    names = ", ".join(_KIND_NAMES[k] for k in "fiucb" if k in allowed)
    return InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                f"allowed values: {names} [Op:{op_name}]")


__all__ = ["convert_to_tensor", "binary_operands", "require"]
