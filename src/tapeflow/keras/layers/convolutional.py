"""Convolution and pooling layers (channels_last): Conv1D, Conv2D, MaxPooling1D/2D,
AveragePooling1D/2D, GlobalAveragePooling1D/2D, GlobalMaxPooling1D/2D."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, constraints, initializers, regularizers
from tapeflow.keras.layers.core import _weight_config
from tapeflow.keras.layers.input_spec import InputSpec
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
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (channels, self.filters)

    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        self.kernel = self.add_weight(name="kernel", shape=self._kernel_shape(channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=(self._bias_size(channels),),
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: channels})
        self.built = True

    def _bias_size(self, channels: int) -> int:
        return self.filters

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

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding.lower(), "data_format": "channels_last",
                "dilation_rate": self.dilation_rate, "groups": 1,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **_weight_config(self, "kernel"), **_weight_config(self, "bias"),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer)}


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs; kernel `kernel_size + (in_channels, filters)`."""
    rank = 2


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


def _deconv_length(size: Optional[int], kernel: int, padding: str, output_padding: Any,
                   stride: int, dilation: int) -> Optional[int]:
    """Keras's `deconv_output_length`: the spatial size a transposed convolution produces."""
    if size is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return size * stride + (max(kernel - stride, 0) if padding == "VALID" else 0)
    pad = kernel // 2 if padding == "SAME" else 0
    return (size - 1) * stride + kernel - 2 * pad + output_padding


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (the gradient of Conv2D): kernel
    `kernel_size + (filters, in_channels)`; spatial sizes grow by `strides`.

    Args (beyond Conv2D's): output_padding: extra rows/columns on the output's far side,
      each less than its stride (None: the sizes Keras infers).
    """
    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", output_padding: Any = None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides=strides, padding=padding, **kwargs)
        self.output_padding = None if output_padding is None else \
            _tuple(output_padding, self.rank, "output_padding")
        for i, (op, s) in enumerate(zip(self.output_padding or (), self.strides)):
            if op >= s:
                raise ValueError(f"`output_padding` must be strictly less than `strides` for "
                                 f"all dimensions. At dimension {i}, `output_padding` is {op} "
                                 f"but `strides` is {s}. Received: "
                                 f"output_padding={self.output_padding}, "
                                 f"strides={self.strides}")

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (self.filters, channels)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["groups"]
        return {**config, "output_padding": self.output_padding}

    def _convolve(self, x: Any) -> Any:
        shape = x._value.shape
        spatial = tuple(_deconv_length(shape[1 + i], self.kernel_size[i], self.padding,
                                       None if self.output_padding is None
                                       else self.output_padding[i],
                                       self.strides[i], self.dilation_rate[i])
                        for i in range(self.rank))
        return conv_ops.conv2d_transpose(x, self.kernel, (shape[0],) + spatial + (self.filters,),
                                         self.strides, self.padding,
                                         dilations=self.dilation_rate)


class DepthwiseConv2D(_Conv):
    """Depthwise 2-D convolution: each input channel convolved with its own
    `depth_multiplier` filters; kernel `kernel_size + (in_channels, depth_multiplier)`."""
    rank = 2

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(1, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (channels, self.depth_multiplier)

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("filters", "groups"):
            del config[key]
        for kind in ("initializer", "regularizer", "constraint"):
            config[f"depthwise_{kind}"] = config.pop(f"kernel_{kind}")
        return {**config, "depth_multiplier": self.depth_multiplier}

    def _bias_size(self, channels: int) -> int:
        return channels * self.depth_multiplier

    def _convolve(self, x: Any) -> Any:
        return conv_ops.depthwise_conv2d(x, self.kernel, (1,) + self.strides + (1,),
                                         self.padding, dilations=self.dilation_rate)


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
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if self.rank == 1:  # pool a (batch, steps, channels) input as one image row
            y = type(self).reducer(array_ops.expand_dims(x, 1), (1,) + self.pool_size,
                                   (1,) + self.strides, self.padding)
            return array_ops.squeeze(y, axis=1)
        return type(self).reducer(x, self.pool_size, self.strides, self.padding)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size,
                "padding": self.padding.lower(), "strides": self.strides,
                "data_format": "channels_last"}


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
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        axes = tuple(range(1, self.rank + 1))
        return type(self).reducer(convert_to_tensor(inputs), axis=axes, keepdims=self.keepdims)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": "channels_last",
                "keepdims": self.keepdims}


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
Convolution2D, Convolution1D, Convolution2DTranspose = Conv2D, Conv1D, Conv2DTranspose

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "Convolution2DTranspose",
           "MaxPooling1D", "MaxPooling2D", "AveragePooling1D",
           "AveragePooling2D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPool2D", "AvgPool2D", "MaxPool1D",
           "AvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool2D", "Convolution2D", "Convolution1D"]
