"""Reshaping layers as Keras 3 defines them: Permute, RepeatVector, Identity,
UpSampling1D/2D (nearest, and bilinear as TensorFlow's half-pixel resize), ZeroPadding1D/2D
and Cropping1D/2D."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, linalg_ops, manip_ops

__all__ = ["Permute", "RepeatVector", "Identity", "UpSampling1D", "UpSampling2D",
           "ZeroPadding1D", "ZeroPadding2D", "Cropping1D", "Cropping2D"]


def standardize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple:
    """`value` (an int or n ints) as a tuple of n ints, with Keras's ValueErrors."""
    error = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(error) from None
        if len(values) != n:
            raise ValueError(error)
        for v in values:
            try:
                int(v)
            except (ValueError, TypeError):
                raise ValueError(f"{error}including element {v} of type {type(v)}") from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        raise ValueError(f"{error}, including values {bad} that do not satisfy "
                         f"`value {'>= 0' if allow_zero else '> 0'}`")
    return values


def _positive_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Expected an integer value for `{name}`, got {type(value)}.")
    if value <= 0:
        raise ValueError(f"Argument `{name}` should be a positive integer. Received: "
                         f"{name}={value}")
    return value


class Identity(Layer):
    """Returns its input unchanged (masks pass through)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class Permute(Layer):
    """Permutes the non-batch axes: `dims` is a permutation of 1..rank-1."""

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set "
                             f"of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return array_ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features)."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = _positive_int(n, "n")
        self.input_spec = InputSpec(ndim=2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return manip_ops.repeat(array_ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}


class UpSampling1D(Layer):
    """Repeats each step `size` times along the time axis."""

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = _positive_int(size, "size")
        self.input_spec = InputSpec(ndim=3)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return manip_ops.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: Any) -> list:
        steps = None if input_shape[1] is None else self.size * input_shape[1]
        return [input_shape[0], steps, input_shape[2]]

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}


_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


class UpSampling2D(Layer):
    """Scales rows and columns by `size`: 'nearest' repeats pixels; 'bilinear' is
    TensorFlow's `tf.image.resize` (half-pixel centres, no antialias), written as two
    products with fixed interpolation matrices so it differentiates."""

    def __init__(self, size: Any = (2, 2), data_format: Optional[str] = None,
                 interpolation: str = "nearest", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.size = standardize_tuple(size, 2, "size")
        self.interpolation = interpolation.lower()
        self.input_spec = InputSpec(ndim=4)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, (0, 2, 3, 1))
        if self.interpolation == "nearest":
            x = manip_ops.repeat(manip_ops.repeat(x, self.size[0], axis=1), self.size[1],
                                 axis=2)
        elif self.interpolation == "bilinear":
            height, width = x.shape.as_list()[1:3]
            rows = _bilinear_matrix(height, height * self.size[0], x.dtype.as_numpy_dtype)
            cols = _bilinear_matrix(width, width * self.size[1], x.dtype.as_numpy_dtype)
            x = linalg_ops.einsum("oh,bhwc->bowc", rows, x)
            x = linalg_ops.einsum("pw,bowc->bopc", cols, x)
        elif self.interpolation in _RESIZE_INTERPOLATIONS:
            raise NotImplementedError(f"UpSampling2D: interpolation='{self.interpolation}' is "
                                      f"not supported by tapeflow (only 'nearest' and "
                                      f"'bilinear').")
        else:
            raise ValueError(f"Invalid value for argument `interpolation`. Expected of one "
                             f"{_RESIZE_INTERPOLATIONS}. Received: "
                             f"interpolation={self.interpolation}")
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, (0, 3, 1, 2))
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple:
        first = self.data_format == "channels_first"
        h, w = (2, 3) if first else (1, 2)
        height = None if input_shape[h] is None else self.size[0] * input_shape[h]
        width = None if input_shape[w] is None else self.size[1] * input_shape[w]
        if first:
            return (input_shape[0], input_shape[1], height, width)
        return (input_shape[0], height, width, input_shape[3])

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}


def _bilinear_matrix(in_size: int, out_size: int, dtype: Any) -> np.ndarray:
    """The (out, in) matrix of TensorFlow's half-pixel bilinear resize along one axis:
    source = (i + 0.5) * in / out - 0.5, between floor (clamped at 0) and ceil (clamped at
    the end), weighted by the fraction."""
    scale = in_size / out_size
    src = (np.arange(out_size) + 0.5) * scale - 0.5
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(int)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(int)
    frac = src - floor
    matrix = np.zeros((out_size, in_size), np.float64)
    rows = np.arange(out_size)
    np.add.at(matrix, (rows, lower), 1.0 - frac)
    np.add.at(matrix, (rows, upper), frac)
    return matrix.astype(dtype)


class ZeroPadding1D(Layer):
    """Pads the time axis with zeros: `padding` is an int or (left, right)."""

    def __init__(self, padding: Any = 1, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.padding = standardize_tuple(padding, 2, "padding", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)
        self.built = True

    def call(self, inputs: Any) -> Any:
        pads = [[0, 0], [0, 0], list(self.padding)] if self.data_format == "channels_first" \
            else [[0, 0], list(self.padding), [0, 0]]
        return manip_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        axis = 2 if self.data_format == "channels_first" else 1
        if shape[axis] is not None:
            shape[axis] += sum(self.padding)
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}


def _pairs(value: Any, name: str) -> tuple:
    """ZeroPadding2D's `padding` / Cropping2D's `cropping` as ((top, bottom), (left, right))."""
    if isinstance(value, int):
        if name == "cropping" and value < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={value}.")
        return ((value, value), (value, value))
    if hasattr(value, "__len__"):
        if len(value) != 2:
            raise ValueError(f"`{name}` should have two elements. Received: {name}={value}.")
        return (standardize_tuple(value[0], 2, f"1st entry of {name}", allow_zero=True),
                standardize_tuple(value[1], 2, f"2nd entry of {name}", allow_zero=True))
    raise ValueError(f"`{name}` should be either an int, a tuple of 2 ints "
                     f"(symmetric_height_crop, symmetric_width_crop), or a tuple of 2 tuples "
                     f"of 2 ints ((top_crop, bottom_crop), (left_crop, right_crop)). "
                     f"Received: {name}={value}.")


class ZeroPadding2D(Layer):
    """Pads rows and columns with zeros: an int, (rows, cols) or ((top, bottom), (left,
    right))."""

    def __init__(self, padding: Any = (1, 1), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.padding = _pairs(padding, "padding")
        self.input_spec = InputSpec(ndim=4)
        self.built = True

    def call(self, inputs: Any) -> Any:
        spatial = [list(p) for p in self.padding]
        pads = [[0, 0], [0, 0]] + spatial if self.data_format == "channels_first" \
            else [[0, 0]] + spatial + [[0, 0]]
        return manip_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        offset = 2 if self.data_format == "channels_first" else 1
        for i in range(2):
            if shape[offset + i] is not None:
                shape[offset + i] += sum(self.padding[i])
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}


class Cropping1D(Layer):
    """Removes `cropping` = (start, end) steps from the time axis."""

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = standardize_tuple(cropping, 2, "cropping", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if sum(self.cropping) >= x.shape.as_list()[1]:
            raise ValueError(f"`cropping` parameter of `Cropping1D` layer must be smaller "
                             f"than the input length. Received: inputs.shape={x.shape}, "
                             f"cropping={self.cropping}")
        start, end = self.cropping
        return x[:, start:, :] if end == 0 else x[:, start:-end, :]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        length = input_shape[1]
        if length is not None:
            length -= sum(self.cropping)
            if length <= 0:
                raise ValueError(f"`cropping` parameter of `Cropping1D` layer must be smaller "
                                 f"than the input length. Received: "
                                 f"input_shape={input_shape}, cropping={self.cropping}")
        return (input_shape[0], length, input_shape[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Removes rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.cropping = _pairs(cropping, "cropping")
        self.input_spec = InputSpec(ndim=4)
        self.built = True

    def _check(self, shape: Any, label: str) -> None:
        h, w = (2, 3) if self.data_format == "channels_first" else (1, 2)
        dims = tuple(shape)
        if (dims[h] is not None and sum(self.cropping[0]) >= dims[h]) or \
                (dims[w] is not None and sum(self.cropping[1]) >= dims[w]):
            raise ValueError(f"Values in `cropping` argument should be smaller than the "
                             f"corresponding spatial dimension of the input. Received: "
                             f"{label}={shape}, cropping={self.cropping}")

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        self._check(x.shape, "inputs.shape")
        (top, bottom), (left, right) = self.cropping
        rows = slice(top, -bottom if bottom else None)
        cols = slice(left, -right if right else None)
        if self.data_format == "channels_first":
            return x[:, :, rows, cols]
        return x[:, rows, cols, :]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        self._check(input_shape, "input_shape")
        shape = list(input_shape)
        offset = 2 if self.data_format == "channels_first" else 1
        for i in range(2):
            if shape[offset + i] is not None:
                shape[offset + i] -= sum(self.cropping[i])
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping,
                "data_format": self.data_format}


