"""`keras.ops.nn`: Keras 3's neural-network ops.

Each is Keras 3.15's TensorFlow backend written over tapeflow's public ops (the activations
are `keras.activations`' own), so the numbers, dtypes and errors are that backend's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import tapeflow as tf
from tapeflow.keras import activations
from tapeflow.keras import backend as _backend
from tapeflow.keras.ops._dtypes import result_type
from tapeflow.keras.ops._node import keras_op
from tapeflow.keras.ops.core import _convert_to_tensor, shape
from tapeflow.keras.utils import standardize_dtype

# ---------------------------------------------------------------- activations


def _relu(x: Any) -> Any:
    """max(x, 0)."""
    return activations.relu(x)


def _relu6(x: Any) -> Any:
    return activations.relu6(x)


def _sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)); keeps x as the logits the cross-entropies read."""
    return activations.sigmoid(x)


def _sparse_sigmoid(x: Any) -> Any:
    return activations.sparse_sigmoid(x)


def _tanh_shrink(x: Any) -> Any:
    return activations.tanh_shrink(x)


def _softplus(x: Any) -> Any:
    return activations.softplus(x)


def _softsign(x: Any) -> Any:
    return activations.softsign(x)


def _soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    return activations.soft_shrink(x, threshold)


def _sparse_plus(x: Any) -> Any:
    return activations.sparse_plus(x)


def _silu(x: Any) -> Any:
    """x * sigmoid(x) (also `swish`)."""
    return activations.silu(x)


def _squareplus(x: Any, b: float = 4) -> Any:
    return activations.squareplus(x, b)


def _log_sigmoid(x: Any) -> Any:
    return activations.log_sigmoid(x)


def _leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    return activations.leaky_relu(x, negative_slope)


def _hard_sigmoid(x: Any) -> Any:
    x = _convert_to_tensor(x)
    return tf.nn.relu6(x + tf.constant(3.0, x.dtype)) / tf.constant(6.0, x.dtype)


def _hard_silu(x: Any) -> Any:
    x = _convert_to_tensor(x)
    return x * _hard_sigmoid(x)


def _elu(x: Any, alpha: float = 1.0) -> Any:
    return activations.elu(x, alpha)


def _selu(x: Any) -> Any:
    return activations.selu(x)


def _gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit; the tanh approximation by default, as Keras's op."""
    return activations.gelu(_convert_to_tensor(x), approximate=approximate)


def _celu(x: Any, alpha: float = 1.0) -> Any:
    return activations.celu(x, alpha)


def _glu(x: Any, axis: int = -1) -> Any:
    return activations.glu(x, axis)


def _hard_tanh(x: Any) -> Any:
    return activations.hard_tanh(x)


def _hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    return activations.hard_shrink(x, threshold)


def _threshold(x: Any, threshold: float, default_value: float) -> Any:
    return activations.threshold(x, threshold, default_value)


def _sparsemax(x: Any, axis: int = -1) -> Any:
    return activations.sparsemax(x, axis)


def _over_axes(fn: Any, x: Any, axis: Any) -> Any:
    """`fn(., axis=-1)` over several axes at once (Keras: move them last and flatten them),
    or over the flattened tensor for axis=None."""
    x = _convert_to_tensor(x)
    if axis is None:
        return tf.reshape(fn(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    if not isinstance(axis, tuple):
        return fn(x, axis=axis)
    keep = [v for v in range(x.shape.rank) if v not in axis]
    moved = tf.transpose(x, (*keep, *axis))
    dims = shape(x)
    flat = tf.reshape(moved, [*[dims[v] for v in keep], -1])
    y = tf.reshape(fn(flat, axis=-1), tf.shape(moved))
    order = [*keep, *axis]
    return tf.transpose(y, sorted(range(len(order)), key=order.__getitem__))


def _softmax(x: Any, axis: int = -1) -> Any:
    """exp(x) / sum(exp(x)) over `axis` (an int, a tuple of axes, or None for all);
    keeps x as the logits the cross-entropies read."""
    if isinstance(axis, int) and -len(x.shape) <= axis < len(x.shape) and x.shape[axis] == 1:
        warnings.warn(f"You are using a softmax over axis {axis} of a tensor of shape "
                      f"{x.shape}. This axis has size 1. The softmax operation will always "
                      "return the value 1, which is likely not what you intended. Did you "
                      "mean to use a sigmoid instead?", stacklevel=3)
    x = _convert_to_tensor(x)
    if axis is None or isinstance(axis, tuple):
        out = _over_axes(tf.nn.softmax, x, axis)
        activations._with_logits(out, x)
        return out
    return activations.softmax(x, axis=axis)


def _log_softmax(x: Any, axis: int = -1) -> Any:
    """x - logsumexp(x) over `axis` (an int, a tuple of axes, or None for all)."""
    return _over_axes(tf.nn.log_softmax, x, axis)


# ---------------------------------------------------------------- pooling


def _to_channels_last(x: Any) -> Any:
    rank = x.shape.rank
    if rank not in (3, 4, 5):
        raise ValueError("Pooling inputs's shape must be 3, 4 or 5, corresponding to 1D, 2D "
                         f"and 3D inputs. But received shape: {x.shape}.")
    return tf.transpose(x, (0, *range(2, rank), 1))


def _to_channels_first(x: Any) -> Any:
    rank = x.shape.rank
    return tf.transpose(x, (0, rank - 1, *range(1, rank - 1)))


def _pool(kind: str) -> Any:
    def pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid",
             data_format: Optional[str] = None) -> Any:
        data_format = _backend.standardize_data_format(data_format)
        inputs = _convert_to_tensor(inputs)
        strides = pool_size if strides is None else strides
        if data_format == "channels_first":
            inputs = _to_channels_last(inputs)
        outputs = tf.nn.pool(inputs, _tuple(pool_size, inputs.shape.rank - 2), kind,
                             strides=_tuple(strides, inputs.shape.rank - 2),
                             padding=padding.upper())
        return _to_channels_first(outputs) if data_format == "channels_first" else outputs
    return pool


def _tuple(value: Any, n: int) -> tuple:
    return (value,) * n if isinstance(value, int) else tuple(value)


def _adaptive_windows(size: int, out: int) -> tuple:
    """Keras's two-pool gather: the small and big window and, per output, which pooled
    position (of the small pool, or of the big one after it) holds its window."""
    small = math.ceil(size / out)
    big = small + 1
    starts = [min(math.floor(i * size / out), size - 1) for i in range(out)]
    ends = [min(math.ceil((i + 1) * size / out), size) for i in range(out)]
    small_len = max(1, size - small + 1)
    gather = [s + small_len if e - s == big else s for s, e in zip(starts, ends)]
    return small, big, gather


def _adaptive(kind: str) -> Any:
    def adaptive_pool(inputs: Any, output_size: Any, data_format: Optional[str] = None) -> Any:
        data_format = _backend.standardize_data_format(data_format)
        x = _convert_to_tensor(inputs)
        n = x.shape.rank - 2
        if n not in (1, 2, 3):
            name = "adaptive_average_pool" if kind == "AVG" else "adaptive_max_pool"
            raise ValueError(f"{name} supports 1D, 2D, or 3D inputs only.")
        if data_format == "channels_first":
            x = _to_channels_last(x)
        for axis, out in enumerate(_tuple(output_size, n)):
            size = x.shape[axis + 1]
            if size is None:
                raise ValueError("Input spatial dimensions must be statically known for "
                                 "adaptive pooling")
            small, big, gather = _adaptive_windows(size, out)
            window = [1] * n
            pooled = []
            for w in (small, big):
                window[axis] = w
                pooled.append(tf.nn.pool(x, tuple(window), kind, strides=(1,) * n,
                                         padding="VALID"))
            x = tf.gather(tf.concat(pooled, axis=axis + 1), gather, axis=axis + 1)
        return _to_channels_first(x) if data_format == "channels_first" else x
    return adaptive_pool


# ---------------------------------------------------------------- convolutions


def _channels_last(data_format: str, x: Any, fn: Any) -> Any:
    """fn (a channels-last op) applied to `x` in `data_format`."""
    if data_format == "channels_last":
        return fn(x)
    return _to_channels_first(fn(_to_channels_last(x)))


def _tf_data_format(data_format: str, ndim: int) -> str:
    if ndim not in (3, 4, 5):
        raise ValueError(f"Input rank not supported: {ndim}. Expected values are [3, 4, 5]")
    spatial = {3: "W", 4: "HW", 5: "DHW"}[ndim]
    return f"N{spatial}C" if data_format == "channels_last" else f"NC{spatial}"


def _check_input_channels(inputs: Any, kernel: Any, data_format: str,
                          kernel_axis: int = -2) -> None:
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    kernel_channels = kernel.shape[kernel_axis]
    if (isinstance(channels, int) and isinstance(kernel_channels, int)
            and channels != kernel_channels):
        raise ValueError("The number of input channels must match the kernel's input "
                         f"channels. Received: input channels={channels}, kernel input "
                         f"channels={kernel_channels}, data_format='{data_format}'.")


def _conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid",
          data_format: Optional[str] = None, dilation_rate: Any = 1) -> Any:
    """An N-D convolution (1D, 2D or 3D, `kernel` spatial..., in/groups, out); a kernel for
    fewer input channels is a grouped convolution."""
    data_format = _backend.standardize_data_format(data_format)
    inputs, kernel = _convert_to_tensor(inputs), _convert_to_tensor(kernel)
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    per_group = kernel.shape[-2]
    if channels is not None and per_group is not None and channels % per_group:
        # a kernel for fewer channels is a grouped convolution (Keras runs it through XLA)
        raise ValueError(f"Depth of input ({channels}) is not a multiple of input depth of "
                         f"filter ({per_group})")
    if padding.upper() not in ("SAME", "VALID"):
        raise ValueError("`padding` must be one of 'SAME' or 'VALID'. Received: "
                         f"padding={padding.upper()}")
    _tf_data_format(data_format, inputs.shape.rank)
    result = _channels_last(data_format, inputs, lambda x: tf.nn.convolution(
        x, kernel, strides, padding.upper(), dilations=dilation_rate))
    if (result.shape.is_fully_defined() and math.prod(result.shape.as_list()) == 0
            and math.prod(inputs.shape.as_list()) != 0):
        raise ValueError("The convolution operation resulted in an empty output. Output "
                         f"shape: {result.shape}. This can happen if the input is too small "
                         "for the given kernel size, strides, dilation rate, and padding "
                         "mode. Please check the input shape and convolution parameters.")
    return result


def _depthwise_setup(inputs: Any, kernel: Any, strides: Any, data_format: Optional[str],
                     dilation_rate: Any, what: str) -> tuple:
    data_format = _backend.standardize_data_format(data_format)
    inputs, kernel = _convert_to_tensor(inputs), _convert_to_tensor(kernel)
    n = inputs.shape.rank - 2
    if n > 2:
        raise ValueError(what.format(n=n, rank=inputs.shape.rank))
    _check_input_channels(inputs, kernel, data_format)
    return (data_format, inputs, kernel, n, _tuple(strides, n),
            None if dilation_rate is None else _tuple(dilation_rate, n))


def _same_padding(x: Any, kernel_size: tuple, strides: tuple, dilation_rate: tuple) -> Any:
    """TF's 'SAME' padding of a channels-last input, done by hand (for the strided and
    dilated depthwise conv, which TF runs as a dilated conv then a strided slice)."""
    spatial = tf.shape(x)[1:-1]
    pads = [[0, 0]]
    for i, k in enumerate(kernel_size):
        n, s, d = spatial[i], strides[i], dilation_rate[i]
        total = tf.maximum(((n + s - 1) // s - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append(tf.stack([total // 2, total - total // 2]))
    pads.append([0, 0])
    return tf.pad(x, tf.stack([tf.convert_to_tensor(p) for p in pads]))


def _depthwise_2d(x: Any, kernel: Any, pointwise: Any, strides: tuple, padding: str,
                  dilation_rate: Any) -> Any:
    """A channels-last 2D depthwise (or separable, given `pointwise`) convolution, the
    strided-and-dilated case done as Keras does it."""
    if dilation_rate is not None and any(s > 1 for s in strides) and \
            any(d > 1 for d in dilation_rate):
        if padding == "SAME":
            x = _same_padding(x, tuple(int(k) for k in kernel.shape[:2]), strides,
                              dilation_rate)
        elif padding != "VALID":
            raise ValueError(f"`padding` must be 'valid' or 'same'. Received: padding={padding}")
        out = tf.nn.depthwise_conv2d(x, kernel, (1, 1, 1, 1), "VALID", data_format="NHWC",
                                     dilations=dilation_rate)
        out = out[:, ::strides[0], ::strides[1], :]
        if pointwise is not None:
            out = tf.nn.conv2d(out, pointwise, (1, 1, 1, 1), "VALID", data_format="NHWC")
        return out
    strides = (1, *strides, 1)
    if pointwise is None:
        return tf.nn.depthwise_conv2d(x, kernel, strides, padding, data_format="NHWC",
                                      dilations=dilation_rate)
    return tf.nn.separable_conv2d(x, kernel, pointwise, strides, padding, data_format="NHWC",
                                  dilations=dilation_rate)


def _depthwise_any(inputs: Any, kernel: Any, pointwise: Any, strides: tuple, padding: str,
                   data_format: str, dilation_rate: Any, n: int) -> Any:
    x = _to_channels_last(inputs) if data_format == "channels_first" else inputs
    if n == 1:
        x = tf.expand_dims(x, 1)
        kernel = tf.expand_dims(kernel, 0)
        pointwise = None if pointwise is None else tf.expand_dims(pointwise, 0)
        strides = (1, strides[0])
        dilation_rate = None if dilation_rate is None else (1, dilation_rate[0])
    out = _depthwise_2d(x, kernel, pointwise, strides, padding.upper(), dilation_rate)
    if n == 1:
        out = tf.squeeze(out, [1])
    return _to_channels_first(out) if data_format == "channels_first" else out


def _depthwise_conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid",
                    data_format: Optional[str] = None, dilation_rate: Any = 1) -> Any:
    data_format, inputs, kernel, n, strides, dilation_rate = _depthwise_setup(
        inputs, kernel, strides, data_format, dilation_rate,
        "`inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: {rank}.")
    return _depthwise_any(inputs, kernel, None, strides, padding, data_format,
                          dilation_rate, n)


def _separable_conv(inputs: Any, depthwise_kernel: Any, pointwise_kernel: Any,
                    strides: Any = 1, padding: str = "valid", data_format: Optional[str] = None,
                    dilation_rate: Any = 1) -> Any:
    data_format, inputs, depthwise_kernel, n, strides, dilation_rate = _depthwise_setup(
        inputs, depthwise_kernel, strides, data_format, dilation_rate,
        "`num_spatial_dims` must be 1 or 2. Received: num_spatial_dims={n}.")
    return _depthwise_any(inputs, depthwise_kernel, _convert_to_tensor(pointwise_kernel),
                          strides, padding, data_format, dilation_rate, n)


def _transpose_output_size(size: Any, kernel: int, stride: int, padding: str,
                           output_padding: Optional[int], dilation: int) -> Any:
    """One spatial size of a transposed convolution's output (Keras's rule)."""
    if padding.lower() not in {"valid", "same"}:
        raise ValueError("The `padding` argument must be one of 'valid', 'same'. "
                         f"Received: padding={padding}")
    kernel = (kernel - 1) * dilation + 1
    if padding.lower() == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


def _conv_transpose(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid",
                    output_padding: Any = None, data_format: Optional[str] = None,
                    dilation_rate: Any = 1) -> Any:
    data_format = _backend.standardize_data_format(data_format)
    inputs, kernel = _convert_to_tensor(inputs), _convert_to_tensor(kernel)
    _check_input_channels(inputs, kernel, data_format, kernel_axis=-1)
    n = inputs.shape.rank - 2
    dims = shape(inputs)
    spatial = dims[1:-1] if data_format == "channels_last" else dims[2:]
    paddings = (None,) * n if output_padding is None else _tuple(output_padding, n)
    sizes = [_transpose_output_size(s, k, st, padding, p, d) for s, k, st, p, d in zip(
        spatial, kernel.shape[:-2], _tuple(strides, n), paddings, _tuple(dilation_rate, n))]
    _tf_data_format(data_format, n + 2)
    out_shape = tf.stack([dims[0], *sizes, kernel.shape[-2]])
    return _channels_last(data_format, inputs, lambda x: tf.nn.conv_transpose(
        x, kernel, out_shape, strides, padding=padding.upper(), dilations=dilation_rate))


# ---------------------------------------------------------------- one-hot


def _one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = None,
             sparse: bool = False) -> Any:
    """A one-hot encoding of the int indices `x` along `axis` (a negative index is all
    zeros); float32 unless `dtype`; a SparseTensor if `sparse`."""
    dtype = standardize_dtype(dtype)
    x = _convert_to_tensor(x, dtype="int64")
    if sparse:
        return _sparse_one_hot(x, num_classes, axis, dtype)
    on, off = (True, False) if dtype == "bool" else (None, None)
    return tf.one_hot(x, num_classes, on_value=on, off_value=off, axis=axis, dtype=dtype)


def _sparse_one_hot(x: Any, num_classes: int, axis: int, dtype: str) -> Any:
    """Keras's sparse one-hot: one entry per input, in the input's order, at class max(x, 0)
    with value 1 (0 for a negative index), as Keras's TF backend builds it."""
    dims = x.shape.as_list()
    if axis < 0:
        axis = axis + len(dims) + 1
    count = math.prod(dims)
    values = tf.cast(tf.greater_equal(tf.reshape(x, (count,)), 0), dtype)
    positions = tf.meshgrid(*[tf.range(d, dtype="int64") for d in dims], indexing="ij")
    positions.insert(axis, tf.maximum(x, 0))
    indices = tf.concat([tf.reshape(p, (count, 1)) for p in positions], axis=1)
    return tf.SparseTensor(indices, values, dims[:axis] + [num_classes] + dims[axis:])


def multi_hot(inputs: Any, num_classes: Optional[int] = None, axis: int = -1,
              dtype: Any = None, sparse: bool = False, **kwargs: Any) -> Any:
    """1 at every class an input row names, along `axis` (`num_tokens` is the old name of
    `num_classes`)."""
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    return _multi_hot_op(inputs, num_classes, axis, standardize_dtype(dtype), sparse)


def _multi_hot(inputs: Any, num_classes: int, axis: int = -1, dtype: Any = None,
               sparse: bool = False) -> Any:
    x = _convert_to_tensor(inputs)
    reduction_axis = 1 if x.shape.rank > 1 else 0
    if sparse:
        one_hot_dtype = "int8" if dtype == "bool" else dtype
        hot = _one_hot(x, num_classes, axis=axis, dtype=one_hot_dtype, sparse=True)
        out = tf.sparse.reduce_max(hot, axis=reduction_axis, output_is_sparse=True)
        return tf.cast(out, dtype) if dtype == "bool" else out
    dense = _one_hot(x, num_classes, axis=axis, dtype=dtype)
    if dtype == "bool":
        return tf.reduce_any(dense, axis=reduction_axis)
    return tf.reduce_max(dense, axis=reduction_axis)


_multi_hot_op = keras_op("MultiHot", _multi_hot)


# ---------------------------------------------------------------- cross-entropies


def _logits_of(output: Any, from_logits: bool, kind: str, fn_name: str) -> tuple:
    """The logits a Keras softmax/sigmoid kept for `output` (then from_logits holds), as
    Keras's `_keras_logits`."""
    logits = activations.keras_logits(output)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument '
                      f"was produced by a {kind} activation and thus does not represent "
                      "logits. Was this intended?", stacklevel=4)
    return logits, True


def _check_same_shape(target: Any, output: Any) -> None:
    if target.shape.rank != output.shape.rank:
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). "
                         f"Received: target.shape={target.shape}, output.shape={output.shape}")
    for e1, e2 in zip(target.shape, output.shape):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError("Arguments `target` and `output` must have the same shape. "
                             f"Received: target.shape={target.shape}, "
                             f"output.shape={output.shape}")


def _clip_probs(x: Any) -> Any:
    eps = _backend.epsilon()
    return tf.clip_by_value(x, eps, 1.0 - eps)


def _categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                              axis: int = -1) -> Any:
    """-sum(target * log(output)) over `axis` (output renormalized and
    clipped), or softmax cross-entropy of logits; a Keras softmax's output uses its logits."""
    target, out = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    if target.shape.rank < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={target.shape}, output.shape={out.shape}")
    _check_same_shape(target, out)
    out, from_logits = _logits_of(output if activations.keras_logits(output) is not None
                                  else out, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=out, axis=axis)
    out = _clip_probs(out / tf.reduce_sum(out, axis, keepdims=True))
    return -tf.reduce_sum(target * tf.math.log(out), axis)


def _sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                     axis: int = -1) -> Any:
    """Categorical cross-entropy of int class labels (last axis only)."""
    rank = len(output.shape)
    if axis != -1 and axis != rank - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits_of(output, from_logits, "Softmax",
                                     "sparse_categorical_crossentropy")
    target = tf.cast(tf.convert_to_tensor(target), "int64")
    output = tf.convert_to_tensor(output)
    if target.shape.rank == output.shape.rank and target.shape[-1] == 1:
        target = tf.squeeze(target, axis=-1)
    if output.shape.rank < 1:
        raise ValueError("Argument `output` must be at least rank 1. Received: "
                         f"output.shape={output.shape}")
    if target.shape.rank != output.shape.rank - 1:
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. "
                         f"Received: target.shape={target.shape}, output.shape={output.shape}")
    for e1, e2 in zip(target.shape, output.shape[:-1]):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError("Arguments `target` and `output` must have the same shape up "
                             f"until the last dimension: target.shape={target.shape}, "
                             f"output.shape={output.shape}")
    if not from_logits:
        output = tf.math.log(_clip_probs(output))
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


def _binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Elementwise binary cross-entropy (output clipped to [eps, 1 - eps]),
    or sigmoid cross-entropy of logits; a Keras sigmoid's output uses its logits."""
    target, out = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    _check_same_shape(target, out)
    out, from_logits = _logits_of(output if activations.keras_logits(output) is not None
                                  else out, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=out)
    out = _clip_probs(out)
    return -(target * tf.math.log(out) + (1 - target) * tf.math.log(1 - out))


# ---------------------------------------------------------------- moments, normalization


def _moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> tuple:
    """Mean and variance over `axes` (float16/bfloat16 computed in float32; `synchronized`
    is the same without a distribution strategy)."""
    x = _convert_to_tensor(x)
    dtype = standardize_dtype(x.dtype)
    low = dtype in ("float16", "bfloat16")
    if low:
        x = tf.cast(x, "float32")
    mean, variance = tf.nn.moments(x, axes, keepdims=keepdims)
    if low:
        limit = 65504.0
        mean = tf.cast(tf.clip_by_value(mean, -limit, limit), dtype)
        variance = tf.cast(tf.clip_by_value(variance, -limit, limit), dtype)
    return mean, variance


def _batch_normalization(x: Any, mean: Any, variance: Any, axis: int, offset: Any = None,
                         scale: Any = None, epsilon: float = 1e-3) -> Any:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics
    laid along `axis`."""
    x = _convert_to_tensor(x)
    if axis != -1:
        dims = [1] * x.shape.rank
        dims[axis] = _convert_to_tensor(mean).shape[0]

        def reshaped(v: Any) -> Any:
            return None if v is None else tf.reshape(v, dims)
        mean, variance, offset, scale = map(reshaped, (mean, variance, offset, scale))
    return tf.nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


def _compute_input(x: Any) -> tuple:
    """x in its compute dtype (at least float32) and its own dtype, for the normalizations."""
    x = _convert_to_tensor(x)
    original = standardize_dtype(x.dtype)
    return _convert_to_tensor(x, dtype=result_type(original, "float32")), original


def _rms_normalization(x: Any, scale: Any = None, axis: int = -1,
                       epsilon: Optional[float] = None) -> Any:
    epsilon = _backend.epsilon() if epsilon is None else epsilon
    x, original = _compute_input(x)
    if isinstance(axis, (tuple, list)):
        axis = sorted(axis)
    if x.shape.rank == 0:
        x = tf.expand_dims(x, 0)
    rrms = tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=axis, keepdims=True) + epsilon)
    outputs = x * rrms
    if scale is not None:
        outputs = outputs * _convert_to_tensor(scale, x.dtype)
    return tf.cast(outputs, original)


def layer_normalization(x: Any, gamma: Any = None, beta: Any = None, axis: int = -1,
                        epsilon: Optional[float] = None, **kwargs: Any) -> Any:
    """(x - mean) / sqrt(variance + epsilon) * gamma + beta over `axis` (`rms_scaling=True`
    is Keras's deprecated variance-only scaling)."""
    rms_scaling = kwargs.pop("rms_scaling", False)
    if rms_scaling:
        warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                      "incorrectly scales the input by the variance, not the root mean "
                      "square. To correctly use RMS Normalization, please use "
                      "`keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` "
                      "instead.", stacklevel=2)
    return _layer_norm_op(x, gamma, beta, axis=axis, epsilon=epsilon, rms_scaling=rms_scaling)


def _layer_normalization(x: Any, gamma: Any = None, beta: Any = None, axis: Any = -1,
                         epsilon: Optional[float] = None, rms_scaling: bool = False) -> Any:
    epsilon = _backend.epsilon() if epsilon is None else epsilon
    x, original = _compute_input(x)
    gamma = None if gamma is None else _convert_to_tensor(gamma, x.dtype)
    beta = None if beta is None else _convert_to_tensor(beta, x.dtype)
    ndims = x.shape.rank
    axis = sorted([axis] if isinstance(axis, int) else axis)
    dims = [1] * ndims
    for dim in axis:
        dims[dim] = x.shape[dim]

    def broadcast(v: Any) -> Any:
        if v is not None and v.shape.rank != ndims and axis != [ndims - 1]:
            return tf.reshape(v, dims)
        return v
    if rms_scaling:
        _, variance = tf.nn.moments(x, axis, keepdims=True)
        outputs = x * tf.math.rsqrt(variance + epsilon)
        if gamma is not None:
            outputs = outputs * broadcast(gamma)
        return tf.cast(outputs, original)
    mean, variance = _moments(x, axis, keepdims=True)
    gamma, beta = broadcast(gamma), broadcast(beta)
    inv = tf.math.rsqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * gamma
    res = -mean * inv
    if beta is not None:
        res = res + beta
    return tf.cast(x * inv + res, original)


_layer_norm_op = keras_op("LayerNorm", _layer_normalization)


def _matrix_norm_1(x: Any, axis: tuple) -> Any:
    """The 1-norm of the matrices on `axis` (the largest column sum of |x|), kept dims."""
    return tf.reduce_max(tf.reduce_sum(tf.abs(x), axis=axis[0], keepdims=True), axis=axis[1],
                         keepdims=True)


def _p_norm(x: Any, order: int, axis: Any) -> Any:
    """Keras's linalg.norm(x, ord=order, axis=axis, keepdims=True) for an int order >= 1:
    a vector norm over one axis, a matrix norm over two."""
    axes = tuple(range(x.shape.rank)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    if len(axes) == 1:
        return tf.norm(x, ord=order, axis=axes[0], keepdims=True)
    if len(axes) == 2 and order == 1:
        return _matrix_norm_1(x, axes)
    if len(axes) == 2:
        raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={order}")
    raise ValueError(f"Invalid axis values for norm: axis={axis}")


def _normalize(x: Any, axis: Any = -1, order: int = 2, epsilon: Optional[float] = None) -> Any:
    """x divided by its `order`-norm over `axis` (at least `epsilon`)."""
    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = _convert_to_tensor(x)
    if x.shape.rank == 0:
        x = tf.expand_dims(x, 0)
    epsilon = _backend.epsilon() if epsilon is None else epsilon
    if order == 2:
        inv_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inv_norm, 1.0 / epsilon)
    return x / tf.maximum(_p_norm(x, order, axis), epsilon)


def _psnr(x1: Any, x2: Any, max_val: Any) -> Any:
    x1, x2 = _convert_to_tensor(x1), _convert_to_tensor(x2)
    if x1.shape != x2.shape:
        raise ValueError(f"Input shapes {x1.shape} and {x2.shape} must match for PSNR "
                         "calculation. ")
    max_val = _convert_to_tensor(max_val, dtype=x2.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20 * _log10(max_val) - 10 * _log10(mse)


def _log10(x: Any) -> Any:
    return tf.math.log(x) / tf.math.log(tf.constant(10, x.dtype))


def _polar(abs_: Any, angle: Any) -> Any:
    abs_, angle = _convert_to_tensor(abs_), _convert_to_tensor(angle)
    return tf.complex(abs_ * tf.cos(angle), abs_ * tf.sin(angle))


# ---------------------------------------------------------------- attention


def _large_negative(dtype: Any) -> Any:
    value = 65500.0 if standardize_dtype(dtype) == "float16" else 3.38953e38
    return tf.constant(value * -0.7, dtype=dtype)


def _apply_masks(logits: Any, mask: Any, is_causal: bool) -> Any:
    if mask is None and not is_causal:
        return logits
    keep = tf.ones_like(logits, dtype="bool")
    if mask is not None:
        keep = tf.logical_and(keep, _convert_to_tensor(mask, "bool"))
    if is_causal:
        t, s = tf.shape(logits)[2], tf.shape(logits)[3]
        causal = tf.linalg.band_part(tf.ones(tf.stack([t, s]), "bool"), -1, 0)
        keep = tf.logical_and(keep, causal[None, None, :, :])
    return tf.where(keep, logits, _large_negative(logits.dtype))


def _dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None,
                           scale: Any = None, is_causal: bool = False,
                           flash_attention: Optional[bool] = None,
                           attn_logits_soft_cap: Any = None) -> Any:
    """softmax(q k^T * scale + bias, masked) v for [batch, steps, heads, dim]
    inputs (grouped-query heads repeated; `mask` True keeps, `is_causal` hides the future)."""
    if attn_logits_soft_cap is not None:
        raise ValueError("attn_logits_soft_cap is only supported for JAX on TPU. Set "
                         "attn_logits_soft_cap=None when not using JAX on TPU.")
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorflow backend.")
    query, key, value = (_convert_to_tensor(t) for t in (query, key, value))
    if query.shape.rank != 4:
        raise ValueError("`dot_product_attention` only supports 4D inputs. Received: "
                         f"query.shape={query.shape}, key.shape={key.shape}, "
                         f"value.shape={value.shape}.")
    compute_dtype = result_type(query.dtype, key.dtype, value.dtype)
    query, key, value = (tf.cast(t, compute_dtype) for t in (query, key, value))
    q_heads, kv_heads = query.shape[2], key.shape[2]
    if q_heads is not None and kv_heads is not None and q_heads > kv_heads > 1:
        key = tf.repeat(key, repeats=q_heads // kv_heads, axis=2)
        value = tf.repeat(value, repeats=q_heads // kv_heads, axis=2)
    if bias is not None:
        bias = _convert_to_tensor(bias, dtype=compute_dtype)
    if scale is None:
        scale = 1.0 / tf.sqrt(tf.cast(tf.shape(key)[-1], "float32"))
    logits_dtype = result_type(query.dtype, "float32")
    logits = tf.cast(tf.einsum("BTNH,BSNH->BNTS", query, key), logits_dtype)
    logits = logits * tf.cast(scale, logits.dtype)
    if bias is not None:
        logits = logits + tf.cast(bias, logits.dtype)
    logits = _apply_masks(logits, mask, is_causal)
    probs_dtype = result_type(logits.dtype, "float32")
    probs = tf.cast(tf.nn.softmax(tf.cast(logits, probs_dtype), axis=-1), key.dtype)
    return tf.einsum("BNTS,BSNH->BTNH", probs, value)


# ---------------------------------------------------------------- ctc


def _ctc_loss(target: Any, output: Any, target_length: Any, output_length: Any,
              mask_index: int = 0) -> Any:
    """The CTC loss of int `target` [batch, labels] and logits `output` [batch, steps,
    classes] (float64 computed in float32, as Keras)."""
    target = tf.cast(_convert_to_tensor(target), "int32")
    output = _convert_to_tensor(output)
    dtype = result_type(output.dtype, "float32")
    compute_dtype = "float32" if dtype == "float64" else dtype
    loss = tf.nn.ctc_loss(labels=target, logits=tf.cast(output, compute_dtype),
                          label_length=target_length, logit_length=output_length,
                          blank_index=mask_index, logits_time_major=False)
    return tf.cast(loss, dtype)


def _ctc_decode(inputs: Any, sequence_lengths: Any, strategy: str = "greedy",
                beam_width: int = 100, top_paths: int = 1, merge_repeated: bool = True,
                mask_index: int = 0) -> tuple:
    """Greedy or beam-search CTC decoding: (decoded [paths, batch, steps] padded with -1,
    scores)."""
    inputs = _convert_to_tensor(inputs)
    dims = tf.shape(inputs)
    num_samples, num_steps = dims[0], dims[1]
    inputs = tf.transpose(inputs, (1, 0, 2))
    inputs = tf.cast(inputs, result_type(inputs.dtype, "float32"))
    sequence_lengths = _convert_to_tensor(sequence_lengths, dtype="int32")
    if strategy == "greedy":
        decoded, scores = tf.nn.ctc_greedy_decoder(inputs=inputs,
                                                   sequence_length=sequence_lengths,
                                                   merge_repeated=merge_repeated,
                                                   blank_index=mask_index)
    elif strategy == "beam_search":
        if mask_index is not None:
            inputs = tf.concat([inputs[..., :mask_index], inputs[..., mask_index + 1:],
                                inputs[..., mask_index:mask_index + 1]], axis=-1)
        decoded, scores = tf.nn.ctc_beam_search_decoder(inputs=inputs,
                                                        sequence_length=sequence_lengths,
                                                        beam_width=beam_width,
                                                        top_paths=top_paths)
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         "'beam_search'.")
    dense_shape = tf.cast(tf.stack([num_samples, num_steps]), "int64")
    dense = tf.stack([tf.sparse.to_dense(tf.SparseTensor(st.indices, st.values, dense_shape),
                                         default_value=-1) for st in decoded], axis=0)
    dense = tf.cast(dense, "int32")
    if strategy == "beam_search" and mask_index is not None:
        if mask_index < 0:
            mask_index = mask_index + dims[-1]
        dense = tf.where(dense >= mask_index, dense + 1, dense)
    return dense, scores


# ---------------------------------------------------------------- space/depth, fold/unfold


def _check_block_size(block_size: int) -> None:
    if block_size < 2:
        raise ValueError(f"`block_size` must be at least 2. Received: block_size={block_size}")


def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Moves depth into `block_size` x `block_size` spatial blocks."""
    data_format = _backend.standardize_data_format(data_format)
    _check_block_size(block_size)
    return _depth_to_space_op(x, block_size, data_format=data_format)


def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Moves `block_size` x `block_size` spatial blocks into depth."""
    data_format = _backend.standardize_data_format(data_format)
    _check_block_size(block_size)
    return _space_to_depth_op(x, block_size, data_format=data_format)


def _channels_last_op(fn: Any) -> Any:
    def op(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
        x = _convert_to_tensor(x)
        if data_format == "channels_last":
            return fn(x, block_size, data_format="NHWC")
        y = fn(tf.transpose(x, [0, 2, 3, 1]), block_size, data_format="NHWC")
        return tf.transpose(y, [0, 3, 1, 2])
    return op


_depth_to_space_op = keras_op("DepthToSpace", _channels_last_op(tf.nn.depth_to_space))
_space_to_depth_op = keras_op("SpaceToDepth", _channels_last_op(tf.nn.space_to_depth))


def _pair(v: Any) -> tuple:
    return (v, v) if isinstance(v, int) else tuple(v)


def unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    """The sliding blocks of an (N, C, H, W) image as (N, C*kH*kW, L) (torch's unfold)."""
    if len(x.shape) != 4:
        raise ValueError(f"Input must be a 4D tensor. Received: input.shape={x.shape}")
    return _unfold_op(x, kernel_size, dilation, padding, stride)


def _unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
            stride: Any = 1) -> Any:
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    x = _convert_to_tensor(x)
    c = x.shape[1]
    if any(v > 0 for v in p):
        x = tf.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    patches = tf.image.extract_patches(images=tf.transpose(x, [0, 2, 3, 1]),
                                       sizes=[1, k[0], k[1], 1], strides=[1, s[0], s[1], 1],
                                       rates=[1, d[0], d[1], 1], padding="VALID")
    nh, nw = patches.shape[1], patches.shape[2]
    patches = tf.reshape(patches, [-1, nh, nw, k[0], k[1], c])
    patches = tf.transpose(patches, [0, 5, 3, 4, 1, 2])
    return tf.reshape(patches, [-1, c * k[0] * k[1], nh * nw])


def fold(x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Any:
    """Sums (N, C*kH*kW, L) sliding blocks back into an (N, C, H, W) image (torch's fold)."""
    if len(x.shape) != 3:
        raise ValueError(f"Input must be a 3D tensor. Received: input.shape={x.shape}")
    return _fold_op(x, output_size, kernel_size, dilation, padding, stride)


def _fold(x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
          stride: Any = 1) -> Any:
    (kh, kw), (oh, ow) = _pair(kernel_size), _pair(output_size)
    d, p, s = _pair(dilation), _pair(padding), _pair(stride)
    x = _convert_to_tensor(x)
    n, c = tf.shape(x)[0], x.shape[1] // (kh * kw)
    nh = (oh + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1
    nw = (ow + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1
    blocks = tf.transpose(tf.reshape(x, tf.stack([n, c, kh, kw, nh, nw])), [2, 3, 4, 5, 0, 1])
    out = tf.zeros(tf.stack([oh + 2 * p[0], ow + 2 * p[1], n, c]), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            rows, cols = tf.meshgrid(tf.range(nh) * s[0] + i * d[0],
                                     tf.range(nw) * s[1] + j * d[1], indexing="ij")
            out = tf.tensor_scatter_nd_add(out, tf.stack([rows, cols], axis=-1), blocks[i, j])
    out = tf.transpose(out, [2, 3, 0, 1])
    return out[:, :, p[0]:oh + p[0], p[1]:ow + p[1]]


_unfold_op = keras_op("Unfold", _unfold)
_fold_op = keras_op("Fold", _fold)

# ---------------------------------------------------------------- the namespace

adaptive_average_pool = keras_op("AdaptiveAveragePool", _adaptive("AVG"))
adaptive_max_pool = keras_op("AdaptiveMaxPool", _adaptive("MAX"))
average_pool = keras_op("AveragePool", _pool("AVG"))
batch_normalization = keras_op("BatchNorm", _batch_normalization)
binary_crossentropy = keras_op("BinaryCrossentropy", _binary_crossentropy)
categorical_crossentropy = keras_op("CategoricalCrossentropy", _categorical_crossentropy)
celu = keras_op("Celu", _celu)
conv = keras_op("Conv", _conv)
conv_transpose = keras_op("ConvTranspose", _conv_transpose)
ctc_decode = keras_op("CTCDecode", _ctc_decode)
ctc_loss = keras_op("CTCLoss", _ctc_loss)
depthwise_conv = keras_op("DepthwiseConv", _depthwise_conv)
dot_product_attention = keras_op("DotProductAttention", _dot_product_attention)
elu = keras_op("Elu", _elu)
gelu = keras_op("Gelu", _gelu)
glu = keras_op("Glu", _glu)
hard_shrink = keras_op("HardShrink", _hard_shrink)
hard_sigmoid = keras_op("HardSigmoid", _hard_sigmoid)
hard_silu = hard_swish = keras_op("HardSilu", _hard_silu)
hard_tanh = keras_op("HardTanh", _hard_tanh)
leaky_relu = keras_op("LeakyRelu", _leaky_relu)
log_sigmoid = keras_op("LogSigmoid", _log_sigmoid)
log_softmax = keras_op("LogSoftmax", _log_softmax)
max_pool = keras_op("MaxPool", _pool("MAX"))
moments = keras_op("Moments", _moments)
normalize = keras_op("Normalize", _normalize)
one_hot = keras_op("OneHot", _one_hot)
polar = keras_op("Polar", _polar)
psnr = keras_op("PSNR", _psnr)
relu = keras_op("Relu", _relu)
relu6 = keras_op("Relu6", _relu6)
rms_normalization = keras_op("RMSNorm", _rms_normalization)
selu = keras_op("Selu", _selu)
separable_conv = keras_op("SeparableConv", _separable_conv)
sigmoid = keras_op("Sigmoid", _sigmoid)
silu = swish = keras_op("Silu", _silu)
soft_shrink = keras_op("SoftShrink", _soft_shrink)
softmax = keras_op("Softmax", _softmax)
softplus = keras_op("Softplus", _softplus)
softsign = keras_op("Softsign", _softsign)
sparse_categorical_crossentropy = keras_op("SparseCategoricalCrossentropy",
                                           _sparse_categorical_crossentropy)
sparse_plus = keras_op("SparsePlus", _sparse_plus)
sparse_sigmoid = keras_op("SparseSigmoid", _sparse_sigmoid)
sparsemax = keras_op("Sparsemax", _sparsemax)
squareplus = keras_op("Squareplus", _squareplus)
tanh_shrink = keras_op("TanhShrink", _tanh_shrink)
threshold = keras_op("Threshold", _threshold)

__all__ = ["adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
           "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
           "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv",
           "dot_product_attention", "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid",
           "hard_silu", "hard_swish", "hard_tanh", "layer_normalization", "leaky_relu",
           "log_sigmoid", "log_softmax", "max_pool", "moments", "multi_hot", "normalize",
           "one_hot", "polar", "psnr", "relu", "relu6", "rms_normalization", "selu",
           "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign",
           "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
           "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold"]
