"""Keras 3's adaptive pooling layers: AdaptiveAverage/MaxPooling1D/2D/3D pool each spatial
axis into `output_size` windows, window i spanning [floor(i * n / out), ceil((i + 1) * n /
out)) of the axis's n steps (PyTorch's windows, which Keras's TensorFlow backend computes with
two fixed-size pools and a gather). The spatial sizes must be known."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, reduce_ops

__all__ = ["AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
           "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"]

_STATIC_SIZE_ERROR = {
    1: "Input length must be statically known for adaptive pooling",
    2: "Input spatial dimensions must be statically known for adaptive pooling",
    3: "Input spatial dimensions must be statically known for adaptive pooling",
}


def _windows(size: int, out: int) -> list:
    """The (start, end) of each of `out` adaptive windows over `size` steps."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _pool_axis(x: Any, axis: int, out: int, reducer: Callable) -> Any:
    """`x` with `axis` pooled by `reducer` into `out` adaptive windows."""
    pooled = []
    for start, end in _windows(x.shape[axis], out):
        window = array_ops.gather(x, list(range(start, end)), axis=axis)
        pooled.append(reducer(window, axis=axis))
    return array_ops.stack(pooled, axis=axis)


class _AdaptivePool(Layer):
    """Keras's BaseAdaptivePooling: `output_size` per spatial axis, either data format."""

    rank = 2
    reducer = staticmethod(reduce_ops.reduce_mean)

    def __init__(self, output_size: Any, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        output_size = self._output_size(output_size)
        super().__init__(**kwargs)
        self.output_size = output_size
        self.data_format = data_format or backend.image_data_format()
        if self.data_format not in {"channels_first", "channels_last"}:
            raise ValueError(f"Invalid data_format: {self.data_format}. Expected "
                             f"'channels_first' or 'channels_last'.")
        self.built = True

    def _output_size(self, output_size: Any) -> tuple:
        """Keras's checks of `output_size` (an int or `rank` ints)."""
        if isinstance(output_size, int):
            return (output_size,) * self.rank
        if isinstance(output_size, (tuple, list)) and len(output_size) == self.rank:
            return tuple(output_size)
        names = {2: "(height, width)", 3: "(depth, height, width)"}[self.rank]
        raise TypeError(f"`output_size` must be an integer or {names} tuple. Received: "
                        f"{output_size} of type {type(output_size)}")

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        offset = 2 if self.data_format == "channels_first" else 1
        spatial = x.shape.as_list()[offset:offset + self.rank]
        if None in spatial:
            raise ValueError(_STATIC_SIZE_ERROR[self.rank])
        for i, out in enumerate(self.output_size):
            x = _pool_axis(x, offset + i, out, type(self).reducer)
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch = input_shape[0]
        if self.data_format == "channels_last":
            return (batch, *self.output_size, input_shape[-1])
        return (batch, input_shape[1], *self.output_size)

    def get_config(self) -> dict:
        return {**super().get_config(), "output_size": self.output_size,
                "data_format": self.data_format}


class _Adaptive1D(_AdaptivePool):
    rank = 1

    def _output_size(self, output_size: Any) -> tuple:
        if isinstance(output_size, int):
            return (output_size,)
        if isinstance(output_size, (tuple, list)):
            if len(output_size) != 1:
                raise ValueError(f"For 1D input, `output_size` tuple must have length 1. "
                                 f"Received: {output_size}")
            return tuple(output_size)
        raise TypeError(f"`output_size` must be an integer or tuple of 1 integer. Received: "
                        f"{output_size} of type {type(output_size)}")


class AdaptiveAveragePooling1D(_Adaptive1D):
    """Averages (batch, steps, channels) inputs over `output_size` adaptive windows."""


class AdaptiveAveragePooling2D(_AdaptivePool):
    """Averages 4-D inputs over `output_size` (height, width) adaptive windows."""
    rank = 2


class AdaptiveAveragePooling3D(_AdaptivePool):
    """Averages 5-D inputs over `output_size` (depth, height, width) adaptive windows."""
    rank = 3


class AdaptiveMaxPooling1D(_Adaptive1D):
    """The maximum of (batch, steps, channels) inputs over `output_size` adaptive windows."""
    reducer = staticmethod(reduce_ops.reduce_max)


class AdaptiveMaxPooling2D(_AdaptivePool):
    """The maximum of 4-D inputs over `output_size` (height, width) adaptive windows."""
    rank = 2
    reducer = staticmethod(reduce_ops.reduce_max)


class AdaptiveMaxPooling3D(_AdaptivePool):
    """The maximum of 5-D inputs over `output_size` (depth, height, width) windows."""
    rank = 3
    reducer = staticmethod(reduce_ops.reduce_max)
