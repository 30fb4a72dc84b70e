"""`keras.applications.mobilenet_v2`: MobileNetV2 (Sandler et al., 2018): inverted residual
blocks with linear bottlenecks, widths scaled by `alpha`."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.layers.layer import KerasTensor

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_IMAGENET_ROWS = (96, 128, 160, 192, 224)
_IMAGENET_ALPHAS = (0.35, 0.5, 0.75, 1.0, 1.3, 1.4)
# (filters, stride, expansion) of the 17 inverted residual blocks.
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6),
           (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
           (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))
_BN = {"epsilon": 1e-3, "momentum": 0.999}


def _make_divisible(v: float, divisor: int = 8, min_value: Optional[int] = None) -> int:
    """`v` rounded to a multiple of `divisor`, never more than 10% below it."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def _rows_cols(shape: Any, offset: int = 0) -> tuple:
    if backend.image_data_format() == "channels_first":
        return shape[offset + 1], shape[offset + 2]
    return shape[offset], shape[offset + 1]


def _default_size(input_shape: Any, input_tensor: Any) -> int:
    """224, or the input's rows when square and one of ImageNet's weight sizes."""
    if input_shape is not None:
        rows, cols = _rows_cols(input_shape)
    elif isinstance(input_tensor, KerasTensor):
        rows, cols = _rows_cols(input_tensor.shape, offset=1)
    else:
        return 224
    return rows if rows == cols and rows in _IMAGENET_ROWS else 224


def MobileNetV2(input_shape: Any = None, alpha: float = 1.0, include_top: bool = True,  # noqa: N802
                weights: Any = "imagenet", input_tensor: Any = None,
                pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = "softmax", name: Optional[str] = None) -> Any:
    """Instantiates the MobileNetV2 architecture (Keras's layer names and ImageNet weights;
    inputs through `mobilenet_v2.preprocess_input`)."""
    _utils.check_weights_argument(weights, include_top, classes)
    if input_tensor is not None and not isinstance(input_tensor, KerasTensor):
        raise ValueError(f"input_tensor is not a Keras tensor; Received "
                         f"`input_tensor={input_tensor}`")
    input_shape = _utils.obtain_input_shape(
        input_shape, default_size=_default_size(input_shape, input_tensor), min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        rows = _check_imagenet_arguments(alpha, rows, cols)
    img_input = _utils.image_input(input_tensor, input_shape)
    axis = -1 if backend.image_data_format() == "channels_last" else 1
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = layers.BatchNormalization(axis=axis, name="bn_Conv1", **_BN)(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion=expansion, stride=stride, alpha=alpha,
                                filters=filters, block_id=block_id)
    last_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=axis, name="Conv_1_bn", **_BN)(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = _utils.dense_top(x, classes, classifier_activation, weights, pool_name=None)
    else:
        x = _utils.pooled(x, pooling)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(alpha, rows, include_top))


def _check_imagenet_arguments(alpha: float, rows: Any, cols: Any) -> int:
    if alpha not in _IMAGENET_ALPHAS:
        raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, "
                         "`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                         f"`alpha={alpha}`")
    if rows != cols or rows not in _IMAGENET_ROWS:
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in [96, 128, "
                      "160, 192, 224]. Weights for input shape (224, 224) will be loaded as "
                      "the default.", stacklevel=3)
        return 224
    return rows


def _imagenet_file(alpha: float, rows: int, include_top: bool) -> tuple:
    suffix = "" if include_top else "_no_top"
    file_name = (f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
                 f"{suffix}.h5")
    return file_name, BASE_WEIGHT_PATH + file_name, None


def _inverted_res_block(inputs: Any, expansion: int, stride: int, alpha: float, filters: int,
                        block_id: int) -> Any:
    """Expand with a 1x1 convolution (not in block 0), filter depthwise, project linearly;
    add the input back when the shapes allow."""
    axis = -1 if backend.image_data_format() == "channels_last" else 1
    in_channels = inputs.shape[axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=axis, name=f"{prefix}expand_BN", **_BN)(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=_utils.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{prefix}depthwise_BN", **_BN)(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{prefix}project_BN", **_BN)(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """MobileNetV2's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]
