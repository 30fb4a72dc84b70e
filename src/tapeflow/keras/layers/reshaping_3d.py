"""Keras 3's volumetric reshaping layers: Cropping3D, ZeroPadding3D and UpSampling3D over
5-D inputs in either data format."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.layers.reshaping import standardize_tuple
from tapeflow.ops import manip_ops

__all__ = ["Cropping3D", "ZeroPadding3D", "UpSampling3D"]

_ENTRIES = ("1st", "2nd", "3rd")


def _triple_pairs(value: Any, name: str, forms: str) -> tuple:
    """Keras's `cropping`/`padding` of the 3-D layers as three (before, after) pairs: an int,
    three ints or three pairs; `forms` ends the error text of any other value."""
    if isinstance(value, int):
        return ((value, value),) * 3
    if hasattr(value, "__len__"):
        if len(value) != 3:
            raise ValueError(f"`{name}` should have 3 elements. Received: {value}.")
        return tuple(standardize_tuple(v, 2, f"{entry} entry of {name}", allow_zero=True)
                     for v, entry in zip(value, _ENTRIES))
    raise ValueError(forms)


def _spatial_offset(data_format: str) -> int:
    return 2 if data_format == "channels_first" else 1


class Cropping3D(Layer):
    """Removes `cropping` ((before, after) per spatial axis, or an int or three ints) from
    the three spatial axes of 5-D inputs."""

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        if isinstance(cropping, int) and cropping < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={cropping}.")
        self.cropping = _triple_pairs(
            cropping, "cropping",
            f"`cropping` should be either an int, a tuple of 3 ints (symmetric_dim1_crop, "
            f"symmetric_dim2_crop, symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints "
            f"((left_dim1_crop, right_dim1_crop), (left_dim2_crop, right_dim2_crop), "
            f"(left_dim3_crop, right_dim2_crop)). Received: {cropping}.")
        self.input_spec = InputSpec(ndim=5)
        self.built = True

    def _check(self, shape: Any, label: str) -> None:
        offset = _spatial_offset(self.data_format)
        for i, crop in enumerate(self.cropping):
            size = tuple(shape)[offset + i]
            if size is not None and size - sum(crop) <= 0:
                raise ValueError(f"Values in `cropping` argument should be smaller than the "
                                 f"corresponding spatial dimension of the input. Received: "
                                 f"{label}={shape}, cropping={self.cropping}")

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        self._check(x.shape, "inputs.shape")
        spatial = tuple(slice(before, -after if after else None)
                        for before, after in self.cropping)
        if self.data_format == "channels_first":
            return x[(slice(None), slice(None)) + spatial]
        return x[(slice(None),) + spatial + (slice(None),)]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        self._check(input_shape, "input_shape")
        shape = list(input_shape)
        offset = _spatial_offset(self.data_format)
        for i, crop in enumerate(self.cropping):
            if shape[offset + i] is not None:
                shape[offset + i] -= sum(crop)
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping,
                "data_format": self.data_format}


class ZeroPadding3D(Layer):
    """Pads the three spatial axes of 5-D inputs with zeros: an int, three ints or three
    (before, after) pairs."""

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.padding = _triple_pairs(
            padding, "padding",
            f"`padding` should be either an int, a tuple of 3 ints (symmetric_dim1_pad, "
            f"symmetric_dim2_pad, symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints "
            f"((left_dim1_pad, right_dim1_pad), (left_dim2_pad, right_dim2_pad), "
            f"(left_dim3_pad, right_dim2_pad)). Received: padding={padding}.")
        self.input_spec = InputSpec(ndim=5)
        self.built = True

    def call(self, inputs: Any) -> Any:
        spatial = [list(p) for p in self.padding]
        pads = [[0, 0], [0, 0]] + spatial if self.data_format == "channels_first" \
            else [[0, 0]] + spatial + [[0, 0]]
        return manip_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        offset = _spatial_offset(self.data_format)
        for i, pad in enumerate(self.padding):
            if shape[offset + i] is not None:
                shape[offset + i] += sum(pad)
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}


class UpSampling3D(Layer):
    """Repeats each voxel `size` = (d, h, w) times along the three spatial axes."""

    def __init__(self, size: Any = (2, 2, 2), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.size = standardize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)
        self.built = True

    def call(self, inputs: Any) -> Any:
        output = convert_to_tensor(inputs)
        offset = _spatial_offset(self.data_format)
        for i, factor in enumerate(self.size):
            output = manip_ops.repeat(output, factor, axis=offset + i)
        return output

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        offset = _spatial_offset(self.data_format)
        for i, factor in enumerate(self.size):
            if shape[offset + i] is not None:
                shape[offset + i] *= factor
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}
