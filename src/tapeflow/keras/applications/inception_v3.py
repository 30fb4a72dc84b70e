"""`keras.applications.inception_v3`: Inception V3 (Szegedy et al., 2016): a stem, then
Inception modules whose parallel branches (1x1, factorized 7x7 and 3x3 convolutions, pooling)
are concatenated ('mixed0' ... 'mixed10')."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"
_FILES = {True: ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5",
                 "9a0d58056eeedaa3f26cb7ebd46da564"),
          False: ("inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
                  "bcbd6486424b2319ff4ef7d526e38f63")}


def _axis() -> int:
    return 1 if backend.image_data_format() == "channels_first" else 3


def conv2d_bn(x: Any, filters: int, num_row: int, num_col: int, padding: str = "same",
              strides: tuple = (1, 1), name: Optional[str] = None) -> Any:
    """Convolution without bias, batch norm without scale, ReLU; `name` names the three
    ('<name>_conv', '<name>_bn', '<name>')."""
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=None if name is None else f"{name}_conv")(x)
    x = layers.BatchNormalization(axis=_axis(), scale=False,
                                  name=None if name is None else f"{name}_bn")(x)
    return layers.Activation("relu", name=name)(x)


def _chain(x: Any, *convs: tuple) -> Any:
    """Convolutions in sequence, each (filters, rows, cols[, strides, padding])."""
    for filters, rows, cols, *rest in convs:
        strides, padding = rest if rest else ((1, 1), "same")
        x = conv2d_bn(x, filters, rows, cols, padding=padding, strides=strides)
    return x


def _pool_branch(x: Any, filters: int) -> Any:
    x = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def _module_a(x: Any, pool_filters: int, name: str) -> Any:
    branches = [_chain(x, (64, 1, 1)), _chain(x, (48, 1, 1), (64, 5, 5)),
                _chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3)), _pool_branch(x, pool_filters)]
    return layers.concatenate(branches, axis=_axis(), name=name)


def _module_c(x: Any, width: int, name: str) -> Any:
    """The factorized 7x7 module, its inner branches `width` wide."""
    branches = [_chain(x, (192, 1, 1)),
                _chain(x, (width, 1, 1), (width, 1, 7), (192, 7, 1)),
                _chain(x, (width, 1, 1), (width, 7, 1), (width, 1, 7), (width, 7, 1),
                       (192, 1, 7)),
                _pool_branch(x, 192)]
    return layers.concatenate(branches, axis=_axis(), name=name)


def _module_e(x: Any, index: int) -> Any:
    """The expanded 3x3 module: each 3x3 split into a 1x3 and a 3x1 side by side."""
    single = conv2d_bn(x, 320, 1, 1)
    wide = conv2d_bn(x, 384, 1, 1)
    wide = layers.concatenate([conv2d_bn(wide, 384, 1, 3), conv2d_bn(wide, 384, 3, 1)],
                              axis=_axis(), name=f"mixed9_{index}")
    deep = _chain(x, (448, 1, 1), (384, 3, 3))
    deep = layers.concatenate([conv2d_bn(deep, 384, 1, 3), conv2d_bn(deep, 384, 3, 1)],
                              axis=_axis())
    return layers.concatenate([single, wide, deep, _pool_branch(x, 192)],
                              axis=_axis(), name=f"mixed{9 + index}")


def InceptionV3(include_top: bool = True, weights: Any = "imagenet",  # noqa: N802
                input_tensor: Any = None, input_shape: Any = None,
                pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = "softmax", name: str = "inception_v3") -> Any:
    """Instantiates the Inception V3 architecture (Keras's layer names and ImageNet weights;
    inputs through `inception_v3.preprocess_input`)."""
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=299, min_size=75,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    valid, down = ((1, 1), "valid"), ((2, 2), "valid")
    x = _chain(img_input, (32, 3, 3, *down), (32, 3, 3, *valid), (64, 3, 3))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _chain(x, (80, 1, 1, *valid), (192, 3, 3, *valid))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _module_a(x, 32, "mixed0")
    x = _module_a(x, 64, "mixed1")
    x = _module_a(x, 64, "mixed2")
    x = layers.concatenate([_chain(x, (384, 3, 3, *down)),
                            _chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3, *down)),
                            layers.MaxPooling2D((3, 3), strides=(2, 2))(x)],
                           axis=_axis(), name="mixed3")
    for index, width in enumerate((128, 160, 160, 192)):
        x = _module_c(x, width, f"mixed{4 + index}")
    x = layers.concatenate([_chain(x, (192, 1, 1), (320, 3, 3, *down)),
                            _chain(x, (192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, *down)),
                            layers.MaxPooling2D((3, 3), strides=(2, 2))(x)],
                           axis=_axis(), name="mixed8")
    x = _module_e(_module_e(x, 0), 1)
    if include_top:
        x = _utils.dense_top(x, classes, classifier_activation, weights)
    else:
        x = _utils.pooled(x, pooling)
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: (
        _FILES[include_top][0], _BASE + _FILES[include_top][0], _FILES[include_top][1]))


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Inception V3's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["InceptionV3", "preprocess_input", "decode_predictions"]
