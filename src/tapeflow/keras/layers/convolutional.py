"""Convolution and pooling layers as Keras 3: Conv1D/2D/3D (grouped), their transposes,
DepthwiseConv1D/2D, SeparableConv1D/2D, Max/AveragePooling1D/2D/3D and the global pools, in
either data format (channels_first runs channels-last between two transposes, as Keras's
TensorFlow backend does on CPU)."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, backend, constraints, initializers, regularizers
from tapeflow.keras.layers.core import _weight_config
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, conv_ops, index_ops, math_ops, reduce_ops


def _tuple(value: Any, rank: int, name: str, allow_zero: bool = False) -> tuple:
    """Keras's `standardize_tuple`: `rank` positive ints (non-negative with `allow_zero`)."""
    value = (value,) * rank if isinstance(value, int) else tuple(int(v) for v in value)
    message = f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}"
    if len(value) != rank:
        raise ValueError(message)
    bad = {v for v in value if v < 0 or (v == 0 and not allow_zero)}
    if bad:
        raise ValueError(f"{message}, including values {bad} that do not satisfy "
                         f"`value {'>= 0' if allow_zero else '> 0'}`")
    return value


def _padding(padding: str) -> str:
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. "
                         f"Received: padding={padding}")
    return padding.upper()


def _to_last(x: Any, data_format: str) -> Any:
    """A channels_first input moved channels-last (the layout the kernels compute in)."""
    if data_format == "channels_last":
        return x
    rank = len(x.shape)
    return array_ops.transpose(x, (0,) + tuple(range(2, rank)) + (1,))


def _to_format(y: Any, data_format: str) -> Any:
    """A channels-last result in the layer's data format."""
    if data_format == "channels_last":
        return y
    rank = len(y.shape)
    return array_ops.transpose(y, (0, rank - 1) + tuple(range(1, rank - 1)))


def _channels(input_shape: Any, data_format: str) -> int:
    return input_shape[-1] if data_format == "channels_last" else input_shape[1]


class _Conv(Layer):
    """Keras's BaseConv: the argument checks, the kernel and bias, and the call (convolve,
    add the bias, activate) channels-last."""
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
        self.filters = None if filters is None else int(filters)
        self.groups = int(groups)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = _padding(padding)
        self.data_format = backend.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)
        self._check_arguments()

    def _check_arguments(self) -> None:
        """Keras's BaseConv constructor checks (ValueError)."""
        if self.filters is not None and self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={self.filters}.")
        if self.groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. "
                             f"Received: groups={self.groups}.")
        if self.filters is not None and self.filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number "
                             f"of groups. Received: groups={self.groups}, "
                             f"filters={self.filters}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received "
                             f"kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received "
                             f"strides={self.strides}")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (channels // self.groups, self.filters)

    def build(self, input_shape: Any) -> None:
        channels = _channels(input_shape, self.data_format)
        axis = -1 if self.data_format == "channels_last" else 1
        if channels % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input "
                             f"has {channels} channels (full input shape is "
                             f"{tuple(input_shape)}).")
        self._check_output_size(tuple(input_shape), channels)
        self._add_kernels(channels)
        self.bias = self.add_weight(name="bias", shape=(self._bias_size(channels),),
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        self.built = True

    def _check_output_size(self, input_shape: tuple, channels: int) -> None:
        """Keras's `compute_conv_output_shape` check when the layer builds."""
        spatial = input_shape[1:-1] if self.data_format == "channels_last" else input_shape[2:]
        if self.padding != "VALID":
            return
        for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate):
            if size is not None and (size - d * (k - 1) - 1) // s + 1 <= 0:
                dilation = "[" + " ".join(str(v) for v in self.dilation_rate) + "]"
                raise ValueError(f"Computed output size would be zero or negative. Received "
                                 f"`inputs shape={input_shape}`, `kernel shape="
                                 f"{self.kernel_size + (channels, self.filters)}`, "
                                 f"`dilation_rate={dilation}`, `strides={self.strides}`, "
                                 f"`padding=valid`.")

    def _add_kernels(self, channels: int) -> None:
        self.kernel = self.add_weight(name="kernel", shape=self._kernel_shape(channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)

    def _bias_size(self, channels: int) -> int:
        return self.filters

    def _convolve(self, x: Any) -> Any:
        """The convolution of channels-last `x` (grouped and 3-D as Keras's XLA path)."""
        y = conv_ops.conv_nd(x, self.kernel, self.strides, self.padding, self.dilation_rate)
        if 0 in y.shape and 0 not in x.shape:
            raise ValueError(f"The convolution operation resulted in an empty output. Output "
                             f"shape: {y.shape}. This can happen if the input is too small "
                             f"for the given kernel size, strides, dilation rate, and padding "
                             f"mode. Please check the input shape and convolution parameters.")
        return y

    def call(self, inputs: Any) -> Any:
        y = self._convolve(_to_last(convert_to_tensor(inputs), self.data_format))
        if self.bias is not None:
            y = y + self.bias
        return self.activation(_to_format(y, self.data_format))

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding.lower(), "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "groups": self.groups,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **_weight_config(self, "kernel"), **_weight_config(self, "bias"),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer)}


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs; kernel `kernel_size + (in_channels, filters)`."""
    rank = 2


class Conv3D(_Conv):
    """3-D convolution over (batch, D, H, W, channels) inputs."""
    rank = 3


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


class _ConvTranspose(_Conv):
    """Transposed convolution (the gradient of a convolution): kernel
    `kernel_size + (filters, in_channels)`; spatial sizes grow by `strides`.

    Args (beyond the convolution's): output_padding: extra steps on the output's far side,
      each less than its stride (None: the sizes Keras infers).
    """

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", output_padding: Any = None,
                 data_format: Optional[str] = None, dilation_rate: Any = 1,
                 activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        kwargs.pop("groups", None)   # a config of an older Keras may carry groups=1
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
        self.output_padding = None if output_padding is None else \
            _tuple(output_padding, self.rank, "output_padding", allow_zero=True)
        for i, (op, s) in enumerate(zip(self.output_padding or (), self.strides)):
            if op >= s:
                raise ValueError(f"`output_padding` must be strictly less than `strides` for "
                                 f"all dimensions. At dimension {i}, `output_padding` is {op} "
                                 f"but `strides` is {s}. Received: "
                                 f"output_padding={self.output_padding}, "
                                 f"strides={self.strides}")

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (self.filters, channels)

    def _check_output_size(self, input_shape: tuple, channels: int) -> None:
        """A transposed convolution's output only grows."""

    def get_config(self) -> dict:
        config = super().get_config()
        del config["groups"]
        return {**config, "output_padding": self.output_padding}

    def _convolve(self, x: Any) -> Any:
        shape = x.shape
        spatial = tuple(_deconv_length(shape[1 + i], self.kernel_size[i], self.padding,
                                       None if self.output_padding is None
                                       else self.output_padding[i],
                                       self.strides[i], self.dilation_rate[i])
                        for i in range(self.rank))
        out_shape: Any = (shape[0],) + spatial + (self.filters,)
        if shape[0] is None and None not in spatial:   # the batch size as the graph runs
            out_shape = array_ops.stack([array_ops.shape(x)[0], *spatial, self.filters])
        op = {1: conv_ops.conv1d_transpose, 2: conv_ops.conv2d_transpose,
              3: conv_ops.conv3d_transpose}[self.rank]
        strides, dilations = self.strides, self.dilation_rate
        if self.rank == 1:
            strides, dilations = strides[0], dilations[0]
        y = op(x, self.kernel, out_shape, strides, self.padding, dilations=dilations)
        if not isinstance(out_shape, tuple):   # the sizes the trace knows, as Keras's shape
            y = index_ops.ensure_shape(y, (None,) + spatial + (self.filters,))
        return y


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution over NHWC inputs."""
    rank = 2


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution over (batch, D, H, W, channels) inputs. (Keras 3 puts
    `data_format` before `output_padding` here, unlike the 1-D and 2-D layers.)"""
    rank = 3

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 output_padding: Any = None, dilation_rate: Any = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)


def _same_padded(x: Any, kernel_size: tuple, strides: tuple, dilations: tuple) -> Any:
    """x padded as SAME pads it (the extra step after), so a VALID convolution gives SAME's
    windows: Keras's `_pad_same_spatial_channels_last`."""
    pads = [[0, 0]]
    for size, k, s, d in zip(x.shape[1:-1], kernel_size, strides, dilations):
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        pads.append([total // 2, total - total // 2])
    return conv_ops.pad(x, pads + [[0, 0]])


def _depthwise(x: Any, kernel: Any, strides: tuple, padding: str, dilations: tuple,
               pointwise: Any = None) -> Any:
    """Keras's depthwise (and, with `pointwise`, separable) convolution of channels-last `x`
    in 1 or 2 spatial dims; strides > 1 with dilations > 1 run the dilated convolution at
    stride 1 and keep every stride-th output, as Keras's TensorFlow backend."""
    one_d = len(x.shape) == 3
    if one_d:
        x, kernel = array_ops.expand_dims(x, 1), array_ops.expand_dims(kernel, 0)
        pointwise = None if pointwise is None else array_ops.expand_dims(pointwise, 0)
        strides, dilations = (1,) + tuple(strides), (1,) + tuple(dilations)
    if max(strides) > 1 and max(dilations) > 1:
        if padding == "SAME":
            x = _same_padded(x, tuple(kernel.shape[:2]), strides, dilations)
        y = conv_ops.depthwise_conv2d(x, kernel, (1, 1, 1, 1), "VALID", dilations=dilations)
        y = y[:, ::strides[0], ::strides[1], :]
        if pointwise is not None:
            y = conv_ops.conv2d(y, pointwise, (1, 1, 1, 1), "VALID")
    elif pointwise is not None:
        y = conv_ops.separable_conv2d(x, kernel, pointwise, (1,) + tuple(strides) + (1,),
                                      padding, dilations=dilations)
    else:
        y = conv_ops.depthwise_conv2d(x, kernel, (1,) + tuple(strides) + (1,), padding,
                                      dilations=dilations)
    return array_ops.squeeze(y, axis=1) if one_d else y


_DEPTHWISE_KEYS = ("initializer", "regularizer", "constraint")


class _DepthwiseConv(_Conv):
    """Depthwise convolution: each input channel convolved with its own `depth_multiplier`
    filters; kernel `kernel_size + (in_channels, depth_multiplier)`."""

    def __init__(self, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        self.depth_multiplier = int(depth_multiplier)
        super().__init__(None, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)

    def _check_arguments(self) -> None:
        """Keras's BaseDepthwiseConv checks (strides > 1 may meet dilations > 1)."""
        if self.depth_multiplier <= 0:
            raise ValueError(f"Invalid value for argument `depth_multiplier`. Expected a "
                             f"strictly positive value. Received "
                             f"depth_multiplier={self.depth_multiplier}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received "
                             f"kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received "
                             f"strides={self.strides}")

    def _kernel_shape(self, channels: int) -> tuple:
        return self.kernel_size + (channels, self.depth_multiplier)

    def _check_output_size(self, input_shape: tuple, channels: int) -> None:
        """Keras checks a depthwise convolution's sizes as it runs (the call's error)."""

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("filters", "groups"):
            del config[key]
        for kind in _DEPTHWISE_KEYS:
            config[f"depthwise_{kind}"] = config.pop(f"kernel_{kind}")
        return {**config, "depth_multiplier": self.depth_multiplier}

    def _bias_size(self, channels: int) -> int:
        return channels * self.depth_multiplier

    def _convolve(self, x: Any) -> Any:
        return _depthwise(x, self.kernel, self.strides, self.padding, self.dilation_rate)


class DepthwiseConv1D(_DepthwiseConv):
    """Depthwise 1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


class DepthwiseConv2D(_DepthwiseConv):
    """Depthwise 2-D convolution over NHWC inputs."""
    rank = 2


class _SeparableConv(_DepthwiseConv):
    """A depthwise convolution (`depthwise_kernel` `kernel_size + (C, depth_multiplier)`)
    followed by a pointwise one (`pointwise_kernel` `(1, ...) + (C * depth_multiplier,
    filters)`), then the bias (`filters`)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                 use_bias: bool = True, depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.filters = int(filters)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def _add_kernels(self, channels: int) -> None:
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)

    def _bias_size(self, channels: int) -> int:
        return self.filters

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters,
                **_weight_config(self, "pointwise")}

    def _convolve(self, x: Any) -> Any:
        return _depthwise(x, self.depthwise_kernel, self.strides, self.padding,
                          self.dilation_rate, pointwise=self.pointwise_kernel)


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution over (batch, steps, channels) inputs."""
    rank = 1


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution over NHWC inputs."""
    rank = 2


_REQUIRED = object()  # Keras's average pools take no default pool_size


class _Pool(Layer):
    rank = 2
    reducer = staticmethod(conv_ops.max_pool2d)

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if pool_size is _REQUIRED:
            raise TypeError(f"{type(self).__name__}.__init__() missing 1 required positional "
                            f"argument: 'pool_size'")
        super().__init__(name=name, **kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.pool_size = _tuple(pool_size, self.rank, "pool_size")
        self.strides = self.pool_size if strides is None else _tuple(strides, self.rank,
                                                                     "strides")
        self.padding = _padding(padding)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = _to_last(convert_to_tensor(inputs), self.data_format)
        if self.rank == 1:  # pool a (batch, steps, channels) input as one image row
            y = type(self).reducer(array_ops.expand_dims(x, 1), (1,) + self.pool_size,
                                   (1,) + self.strides, self.padding)
            y = array_ops.squeeze(y, axis=1)
        else:
            y = type(self).reducer(x, self.pool_size, self.strides, self.padding)
        return _to_format(y, self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size,
                "padding": self.padding.lower(), "strides": self.strides,
                "data_format": self.data_format}


class MaxPooling2D(_Pool):
    """Max over `pool_size` windows (default 2x2, strides = pool_size)."""
    reducer = staticmethod(conv_ops.max_pool2d)


class _AveragePool(_Pool):
    """Keras's average pools take no default `pool_size`."""

    def __init__(self, pool_size: Any = _REQUIRED, strides: Any = None,
                 padding: str = "valid", data_format: Optional[str] = None,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling2D(_AveragePool):
    """Mean over `pool_size` windows (strides = pool_size by default)."""
    reducer = staticmethod(conv_ops.avg_pool2d)


class MaxPooling1D(_Pool):
    rank = 1
    reducer = staticmethod(conv_ops.max_pool2d)


class AveragePooling1D(_AveragePool):
    rank = 1
    reducer = staticmethod(conv_ops.avg_pool2d)


class MaxPooling3D(_Pool):
    """Max over `pool_size` windows of (batch, D, H, W, channels) inputs (default 2x2x2)."""
    rank = 3
    reducer = staticmethod(conv_ops.max_pool3d)


class AveragePooling3D(_AveragePool):
    """Mean over `pool_size` windows of (batch, D, H, W, channels) inputs."""
    rank = 3
    reducer = staticmethod(conv_ops.avg_pool3d)


class _GlobalPool(Layer):
    rank = 2
    reducer = staticmethod(reduce_ops.reduce_mean)

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        first = 2 if self.data_format == "channels_first" else 1
        axes = tuple(range(first, first + self.rank))
        return type(self).reducer(convert_to_tensor(inputs), axis=axes, keepdims=self.keepdims)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class GlobalAveragePooling2D(_GlobalPool):
    """Mean over the spatial axes: (batch, H, W, C) -> (batch, C)."""


class GlobalMaxPooling2D(_GlobalPool):
    reducer = staticmethod(reduce_ops.reduce_max)


class GlobalAveragePooling1D(_GlobalPool):
    """Mean over the steps; with a Keras mask, over the unmasked steps only (Keras 3)."""
    rank = 1

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return super().call(inputs)
        x = convert_to_tensor(inputs)
        first = self.data_format == "channels_first"
        kept = math_ops.cast(array_ops.expand_dims(mask, 1 if first else 2), "bool")
        x = math_ops.where(kept, x, math_ops.zeros_like(x))
        axis = 2 if first else 1
        return reduce_ops.reduce_sum(x, axis=axis, keepdims=self.keepdims) / \
            reduce_ops.reduce_sum(math_ops.cast(kept, x.dtype), axis=axis,
                                  keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return None


class GlobalMaxPooling1D(_GlobalPool):
    rank = 1
    reducer = staticmethod(reduce_ops.reduce_max)


class GlobalAveragePooling3D(_GlobalPool):
    """Mean over the spatial axes: (batch, D, H, W, C) -> (batch, C)."""
    rank = 3


class GlobalMaxPooling3D(_GlobalPool):
    """Max over the spatial axes: (batch, D, H, W, C) -> (batch, C)."""
    rank = 3
    reducer = staticmethod(reduce_ops.reduce_max)


MaxPool2D, AvgPool2D, MaxPool1D, AvgPool1D = (MaxPooling2D, AveragePooling2D, MaxPooling1D,
                                              AveragePooling1D)
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
Convolution2D, Convolution1D, Convolution2DTranspose = Conv2D, Conv1D, Conv2DTranspose
Convolution3D, Convolution1DTranspose, Convolution3DTranspose = (Conv3D, Conv1DTranspose,
                                                                 Conv3DTranspose)
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D",
           "SeparableConv2D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
           "AveragePooling1D", "AveragePooling2D", "AveragePooling3D",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D", "MaxPool1D",
           "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
           "GlobalMaxPool3D", "Convolution1D", "Convolution2D", "Convolution3D",
           "Convolution1DTranspose", "Convolution2DTranspose", "Convolution3DTranspose",
           "SeparableConvolution1D", "SeparableConvolution2D"]
