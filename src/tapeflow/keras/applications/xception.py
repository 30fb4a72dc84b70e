"""`keras.applications.xception`: Xception (Chollet, 2017): depthwise separable convolutions
with residual connections, in an entry flow, eight middle blocks and an exit flow."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"
_FILES = {True: ("xception_weights_tf_dim_ordering_tf_kernels.h5",
                 "0a58e3b7378bc2990ea3b43d5981f1f6"),
          False: ("xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
                  "b0042744bf5b25fce3cb969f33bebb97")}


def _bn(name: Optional[str] = None) -> layers.Layer:
    return layers.BatchNormalization(axis=1 if backend.image_data_format() ==
                                     "channels_first" else -1, name=name)


def _sepconv_bn(x: Any, filters: int, name: str) -> Any:
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _bn(f"{name}_bn")(x)


def _relu(name: str) -> layers.Layer:
    return layers.Activation("relu", name=name)


def _downsampling_block(x: Any, block: int, filters: tuple, first_relu: bool) -> Any:
    """Two separable convolutions and a strided max pool, added to a strided 1x1
    projection of the input."""
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same",
                             use_bias=False)(x)
    residual = _bn()(residual)
    if first_relu:
        x = _relu(f"block{block}_sepconv1_act")(x)
    x = _sepconv_bn(x, filters[0], f"block{block}_sepconv1")
    x = _relu(f"block{block}_sepconv2_act")(x)
    x = _sepconv_bn(x, filters[1], f"block{block}_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return layers.add([x, residual])


def _middle_block(x: Any, block: int) -> Any:
    residual = x
    for conv in (1, 2, 3):
        x = _relu(f"block{block}_sepconv{conv}_act")(x)
        x = _sepconv_bn(x, 728, f"block{block}_sepconv{conv}")
    return layers.add([x, residual])


def Xception(include_top: bool = True, weights: Any = "imagenet",  # noqa: N802
             input_tensor: Any = None, input_shape: Any = None, pooling: Optional[str] = None,
             classes: int = 1000, classifier_activation: Any = "softmax",
             name: str = "xception") -> Any:
    """Instantiates the Xception architecture (Keras's layer names and ImageNet weights;
    inputs through `xception.preprocess_input`)."""
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=299, min_size=71,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = _relu("block1_conv1_act")(_bn("block1_conv1_bn")(x))
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = _relu("block1_conv2_act")(_bn("block1_conv2_bn")(x))
    for block, filters in ((2, (128, 128)), (3, (256, 256)), (4, (728, 728))):
        x = _downsampling_block(x, block, filters, first_relu=block > 2)
    for block in range(5, 13):
        x = _middle_block(x, block)
    x = _downsampling_block(x, 13, (728, 1024), first_relu=True)
    x = _sepconv_bn(x, 1536, "block14_sepconv1")
    x = _relu("block14_sepconv1_act")(x)
    x = _sepconv_bn(x, 2048, "block14_sepconv2")
    x = _relu("block14_sepconv2_act")(x)
    if include_top:
        x = _utils.dense_top(x, classes, classifier_activation, weights)
    else:
        x = _utils.pooled(x, pooling)
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: (
        _FILES[include_top][0], _BASE + _FILES[include_top][0], _FILES[include_top][1]))


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Xception's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["Xception", "preprocess_input", "decode_predictions"]
