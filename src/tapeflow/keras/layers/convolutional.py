"""Convolution and pooling layers (channels_last): Conv1D, Conv2D, MaxPooling1D/2D,
AveragePooling1D/2D, GlobalAveragePooling1D/2D, GlobalMaxPooling1D/2D."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, initializers
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, conv_ops, reduce_ops


def _tuple(value: Any, rank: int, name: str) -> tuple:
    if isinstance(value, int):
        return (value,) * rank
    value = tuple(int(v) for v in value)
    if len(value) != rank:
        raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. "
                         f"Received {name}={value}")
    return value


def _padding(padding: str) -> str:
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. "
                         f"Received: padding={padding}")
    return padding.upper()


def _channels_last(data_format: Optional[str]) -> None:
    if data_format not in (None, "channels_last"):
        raise ValueError(f"Only data_format='channels_last' is supported; received "
                         f"{data_format!r}")


class _Conv(Layer):
    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        _channels_last(data_format)
        if groups != 1:
            raise ValueError("Grouped convolutions (groups != 1) are not supported.")
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = _padding(padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        self.kernel = self.add_weight(name="kernel",
                                      shape=self.kernel_size + (channels, self.filters),
                                      initializer=self.kernel_initializer)
        self.bias = self.add_weight(name="bias", shape=(self.filters,),
                                    initializer=self.bias_initializer) if self.use_bias else None
        self.built = True

    def _convolve(self, x: Any) -> Any:
        if self.rank == 1:
            return conv_ops.conv1d(x, self.kernel, self.strides[0], self.padding,
                                   dilations=self.dilation_rate[0])
        return conv_ops.conv2d(x, self.kernel, self.strides, self.padding,
                               dilations=self.dilation_rate)

    def call(self, inputs: Any) -> Any:
        y = self._convolve(convert_to_tensor(inputs))
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs; kernel `kernel_size + (in_channels, filters)`."""
    rank = 2


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


class _Pool(Layer):
    rank = 2
    reducer = staticmethod(conv_ops.max_pool2d)

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        _channels_last(data_format)
        self.pool_size = _tuple(pool_size, self.rank, "pool_size")
        self.strides = self.pool_size if strides is None else _tuple(strides, self.rank,
                                                                     "strides")
        self.padding = _padding(padding)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if self.rank == 1:  # pool a (batch, steps, channels) input as one image row
            y = type(self).reducer(array_ops.expand_dims(x, 1), (1,) + self.pool_size,
                                   (1,) + self.strides, self.padding)
            return array_ops.squeeze(y, axis=1)
        return type(self).reducer(x, self.pool_size, self.strides, self.padding)


class MaxPooling2D(_Pool):
    """Max over `pool_size` windows (default 2x2, strides = pool_size)."""
    reducer = staticmethod(conv_ops.max_pool2d)


class AveragePooling2D(_Pool):
    """Mean over `pool_size` windows (default 2x2, strides = pool_size)."""
    reducer = staticmethod(conv_ops.avg_pool2d)


class MaxPooling1D(_Pool):
    rank = 1
    reducer = staticmethod(conv_ops.max_pool2d)


class AveragePooling1D(_Pool):
    rank = 1
    reducer = staticmethod(conv_ops.avg_pool2d)


class _GlobalPool(Layer):
    rank = 2
    reducer = staticmethod(reduce_ops.reduce_mean)

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _channels_last(data_format)
        self.keepdims = keepdims
        self.built = True

    def call(self, inputs: Any) -> Any:
        axes = tuple(range(1, self.rank + 1))
        return type(self).reducer(convert_to_tensor(inputs), axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPool):
    """Mean over the spatial axes: (batch, H, W, C) -> (batch, C)."""


class GlobalMaxPooling2D(_GlobalPool):
    reducer = staticmethod(reduce_ops.reduce_max)


class GlobalAveragePooling1D(_GlobalPool):
    rank = 1


class GlobalMaxPooling1D(_GlobalPool):
    rank = 1
    reducer = staticmethod(reduce_ops.reduce_max)


MaxPool2D, AvgPool2D, MaxPool1D, AvgPool1D = (MaxPooling2D, AveragePooling2D, MaxPooling1D,
                                              AveragePooling1D)
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
Convolution2D, Convolution1D = Conv2D, Conv1D

__all__ = ["Conv1D", "Conv2D", "MaxPooling1D", "MaxPooling2D", "AveragePooling1D",
           "AveragePooling2D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPool2D", "AvgPool2D", "MaxPool1D",
           "AvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool2D", "Convolution2D", "Convolution1D"]
