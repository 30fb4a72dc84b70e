"""`tf.Tensor`: an immutable value with a dtype and a shape, backed by a NumPy array.

The operators (`+`, `@`, indexing, comparisons, ...) are attached by `tapeflow.ops`, which owns
the primitives; this module holds only what needs no op.

A tensor never shares a buffer the caller can write: a caller's array is copied where it enters
(`convert_to_tensor`), and NumPy receives read-only views (`np.asarray(t)`) or copies
(`t.numpy()`), as in TensorFlow. Ops wrap their kernels' fresh arrays without a copy (`wrap`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor_shape import TensorShape


def numpy_text(value: Any, is_repr: bool = False) -> str:
    """The array text TensorFlow prints inside `tf.Tensor(...)` and `<tf.Tensor ...>`
    (TensorFlow's `ops.numpy_text`: a scalar's repr is its Python value's repr)."""
    if np.ndim(value) == 0:
        value = np.asarray(value)[()]
        if is_repr and not isinstance(value, bytes):
            text = repr(value.item() if isinstance(value, np.generic) else value)
        else:
            text = repr(value) if isinstance(value, bytes) else str(value)
    else:
        text = repr(value) if is_repr else str(value)
        if is_repr and value.dtype.kind == "V":  # ml_dtypes >= 0.7 writes dtype(bfloat16)
            text = text.replace("dtype=dtype(bfloat16)", "dtype=bfloat16")
    return "\n" + text if "\n" in text else text


class TensorLike:
    """What tensors and variables share: the value-backed read-only protocol."""

    __slots__ = ()
    _value: Any
    # Let NumPy defer to our reflected operators (`np_array * tensor` -> Tensor).
    __array_priority__ = 100

    @property
    def dtype(self) -> _dtypes.DType:
        """The `DType` of the elements."""
        return _dtypes.from_numpy(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        """The static `TensorShape` of the value."""
        return TensorShape(self._value.shape)

    def get_shape(self) -> TensorShape:
        """The `TensorShape` of the value (alias of `shape`)."""
        return self.shape

    @property
    def ndim(self) -> int:
        """The rank (number of dimensions) as a Python int."""
        return self._value.ndim

    @property
    def device(self) -> str:
        """The name of the device holding the value (always the local CPU)."""
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def numpy(self) -> Any:
        """The value as NumPy: a NumPy scalar for rank 0, else a copy of the array."""
        value = self._value
        return value[()] if value.ndim == 0 else value.copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The value for NumPy (`np.asarray(t)`); see `_handed_out`."""
        return self._handed_out(dtype, copy)

    def _handed_out(self, dtype: Any, copy: Any) -> np.ndarray:
        """What NumPy receives: a read-only view, as TensorFlow's (a tensor never changes, and
        its array may be shared with other tensors and variables); a new, writable array
        where a `dtype` conversion or a `copy` is asked for."""
        value = np.asarray(self._value)  # a kernel may have returned a NumPy scalar
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        if copy:
            return np.array(value, copy=True)
        return read_only_view(value)

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def _scalar(self, kind: str) -> Any:
        if self._value.size != 1:
            raise TypeError(f"Only single-element tensors can be converted to Python {kind}s; "
                            f"got shape {self.shape}.")
        return self._value.reshape(())[()]

    def __bool__(self) -> bool:
        if self._value.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self._value)

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if not self.dtype.is_integer or self._value.ndim != 0:
            raise TypeError(f"Only integer scalar tensors can be used as an index; got "
                            f"{self.dtype.name} with shape {self.shape}.")
        return int(self._value)

    def __format__(self, format_spec: str) -> str:
        # As TensorFlow: the NumPy value's format (so f"{t}" of a vector is "[2.5]").
        return format(self._value[()] if self._value.ndim == 0 else self._value, format_spec)

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> "Reference":
        """A hashable reference to this object, for use as a dict key or set member."""
        return Reference(self)

    experimental_ref = ref

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self


class Tensor(TensorLike):
    """An immutable multi-dimensional value, as `tf.Tensor` in eager mode."""

    __slots__ = ("_value", "__weakref__")

    def __init__(self, value: Any) -> None:
        # Users should call tf.constant / tf.convert_to_tensor. A copy: the caller keeps
        # its array and may write into it (ops wrap the arrays their kernels made: `wrap`).
        self._value = np.array(value, copy=True)

    def __str__(self) -> str:
        return (f"tf.Tensor({numpy_text(self._value)}, shape={self.shape}, "
                f"dtype={self.dtype.name})")

    def __repr__(self) -> str:
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value, is_repr=True)}>")

    def __reduce__(self):
        return Tensor, (self._value,)


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array` (cheap: no data is copied), to hand out a value that
    others share without letting the receiver write into it."""
    view = array.view()
    view.flags.writeable = False
    return view


def wrap(value: Any) -> Tensor:
    """A Tensor over a NumPy value, without copying or converting it (the op path): only for
    arrays nothing outside tapeflow can write into (a kernel's fresh output, another
    tensor's value); a caller's array enters through `convert_to_tensor`, which copies it."""
    t = object.__new__(Tensor)
    t._value = value
    return t


class Reference:
    """A hashable handle comparing by identity, returned by `Tensor.ref()`."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def deref(self) -> Any:
        return self._obj

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Reference) and other._obj is self._obj

    def __hash__(self) -> int:
        return id(self._obj)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._obj!r}>"


__all__ = ["Tensor", "TensorLike", "Reference", "wrap", "read_only_view", "numpy_text"]
