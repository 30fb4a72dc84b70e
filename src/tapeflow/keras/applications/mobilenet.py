"""`keras.applications.mobilenet`: MobileNet (Howard et al., 2017): depthwise separable
convolutions, thinned by `alpha`."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_IMAGENET_ROWS = (128, 160, 192, 224)
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}
# Pointwise filters and stride of the 13 depthwise separable blocks.
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))


def _rows_cols(input_shape: tuple) -> tuple:
    if backend.image_data_format() == "channels_first":
        return input_shape[1], input_shape[2]
    return input_shape[0], input_shape[1]


def MobileNet(input_shape: Any = None, alpha: float = 1.0, depth_multiplier: int = 1,  # noqa: N802
              dropout: float = 1e-3, include_top: bool = True, weights: Any = "imagenet",
              input_tensor: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: Optional[str] = None) -> Any:
    """Instantiates the MobileNet architecture (Keras's layer names and ImageNet weights;
    inputs through `mobilenet.preprocess_input`)."""
    _utils.check_weights_argument(weights, include_top, classes)
    default_size = 224
    if input_shape is not None:
        rows, cols = _rows_cols(input_shape)
        if rows == cols and rows in _IMAGENET_ROWS:
            default_size = rows
    input_shape = _utils.obtain_input_shape(input_shape, default_size=default_size,
                                            min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        rows = _check_imagenet_arguments(alpha, depth_multiplier, rows, cols)
    img_input = _utils.image_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    for block_id, (filters, stride) in enumerate(_BLOCKS, 1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier,
                                  strides=(stride, stride), block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling)
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(alpha, rows, include_top))


def _check_imagenet_arguments(alpha: float, depth_multiplier: int, rows: Any, cols: Any) -> int:
    """Keras's checks for ImageNet weights; the rows whose weights load."""
    if depth_multiplier != 1:
        raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  "
                         f"Received depth_multiplier={depth_multiplier}")
    if alpha not in _ALPHA_TEXT:
        raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, "
                         f"`0.50`, `0.75` or `1.0` only.  Received alpha={alpha}")
    if rows != cols or rows not in _IMAGENET_ROWS:
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in [128, "
                      "160, 192, 224]. Weights for input shape (224, 224) will be loaded as "
                      "the default.", stacklevel=3)
        return 224
    return rows


def _imagenet_file(alpha: float, rows: int, include_top: bool) -> tuple:
    suffix = "" if include_top else "_no_top"
    file_name = f"mobilenet_{_ALPHA_TEXT[alpha]}_{rows}_tf{suffix}.h5"
    return file_name, BASE_WEIGHT_PATH + file_name, None


def _channel_axis() -> int:
    return 1 if backend.image_data_format() == "channels_first" else -1


def _conv_block(inputs: Any, filters: int, alpha: float, kernel: tuple = (3, 3),
                strides: tuple = (1, 1)) -> Any:
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False,
                      strides=strides, name="conv1")(inputs)
    x = layers.BatchNormalization(axis=_channel_axis(), name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs: Any, pointwise_conv_filters: int, alpha: float,
                          depth_multiplier: int = 1, strides: tuple = (1, 1),
                          block_id: int = 1) -> Any:
    """A 3x3 depthwise convolution and a 1x1 pointwise one, each with batch norm and ReLU6;
    strided blocks pad bottom-right first and convolve 'valid'."""
    x = inputs
    if strides != (1, 1):
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides,
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=_channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(pointwise_conv_filters * alpha), (1, 1), padding="same",
                      use_bias=False, strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=_channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """MobileNet's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["MobileNet", "preprocess_input", "decode_predictions"]
