"""`keras.applications.inception_resnet_v2`: Inception-ResNet v2 (Szegedy et al., 2017):
Inception modules whose concatenated branches, projected back by a 1x1 convolution and scaled,
are added to their input ('block35_1' ... 'block8_10'), between reduction modules."""

from __future__ import annotations

import os
from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.layers.layer import Layer

BASE_WEIGHT_URL = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                   "inception_resnet_v2/")
_FILES = {True: ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
                 "e693bd0210a403b3192acc6073ad2e96"),
          False: ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
                  "d19885ff4a710c122648d3b5c3b684e4")}
# Each residual block's branches, each a chain of (filters, kernel) convolutions.
_BRANCHES = {
    "block35": (((32, 1),), ((32, 1), (32, 3)), ((32, 1), (48, 3), (64, 3))),
    "block17": (((192, 1),), ((128, 1), (160, (1, 7)), (192, (7, 1)))),
    "block8": (((192, 1),), ((192, 1), (224, (1, 3)), (256, (3, 1)))),
}
_VALID, _DOWN = (1, "valid"), (2, "valid")


def conv2d_bn(x: Any, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "same",
              activation: Any = "relu", use_bias: bool = False,
              name: Optional[str] = None) -> Any:
    """A convolution, then (without bias) batch norm without scale, then `activation`;
    `name` names the three ('<name>', '<name>_bn', '<name>_ac')."""
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=_utils.channel_axis(), scale=False,
                                      name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def _chain(x: Any, *convs: tuple) -> Any:
    """`conv2d_bn`s in sequence, each (filters, kernel[, strides, padding])."""
    for filters, kernel, *rest in convs:
        strides, padding = rest if rest else (1, "same")
        x = conv2d_bn(x, filters, kernel, strides=strides, padding=padding)
    return x


class CustomScaleLayer(Layer):
    """`inputs[0] + inputs[1] * scale`: a residual added to its shortcut, scaled."""

    def __init__(self, scale: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale}

    def call(self, inputs: Any) -> Any:
        return inputs[0] + inputs[1] * self.scale


def inception_resnet_block(x: Any, scale: float, block_type: str, block_idx: int,
                           activation: Any = "relu") -> Any:
    """One residual Inception block ('block35', 'block17' or 'block8'): its branches,
    concatenated ('<type>_<idx>_mixed'), projected to the input's channels by a 1x1
    convolution with bias ('<type>_<idx>_conv'), scaled by `scale` and added to the input."""
    if block_type not in _BRANCHES:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" or '
                         f'"block8", but got: {block_type}')
    branches = [_chain(x, *convs) for convs in _BRANCHES[block_type]]
    block_name = f"{block_type}_{block_idx}"
    axis = _utils.channel_axis()
    mixed = layers.Concatenate(axis=axis, name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[axis], 1, activation=None, use_bias=True,
                   name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{block_name}_ac")(x)
    return x


def _avg_pool_branch(x: Any, filters: int) -> Any:
    return conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), filters, 1)


def _reduction(x: Any, chains: tuple, name: str) -> Any:
    """Strided convolution chains beside a strided max pool, concatenated."""
    branches = [_chain(x, *convs) for convs in chains]
    branches.append(layers.MaxPooling2D(3, strides=2, padding="valid")(x))
    return layers.Concatenate(axis=_utils.channel_axis(), name=name)(branches)


def _check_arguments(weights: Any, include_top: bool, classes: int) -> None:
    """Keras's checks of `weights` (None, 'imagenet' or an existing file) and of `classes`
    with an ImageNet top, in Inception-ResNet v2's words."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights="imagenet"` with `include_top=True`, `classes` '
                         f"should be 1000. Received classes={classes}")


def InceptionResNetV2(include_top: bool = True, weights: Any = "imagenet",  # noqa: N802
                      input_tensor: Any = None, input_shape: Any = None,
                      pooling: Optional[str] = None, classes: int = 1000,
                      classifier_activation: Any = "softmax",
                      name: str = "inception_resnet_v2") -> Any:
    """Instantiates the Inception-ResNet v2 architecture (Keras's layer names and ImageNet
    weights; inputs through `inception_resnet_v2.preprocess_input`)."""
    _check_arguments(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=299, min_size=75,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    x = _chain(img_input, (32, 3, *_DOWN), (32, 3, *_VALID), (64, 3))
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = _chain(x, (80, 1, *_VALID), (192, 3, *_VALID))
    x = layers.MaxPooling2D(3, strides=2)(x)
    branches = [_chain(x, (96, 1)), _chain(x, (48, 1), (64, 5)),
                _chain(x, (64, 1), (96, 3), (96, 3)), _avg_pool_branch(x, 64)]
    x = layers.Concatenate(axis=_utils.channel_axis(), name="mixed_5b")(branches)
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    x = _reduction(x, (((384, 3, *_DOWN),), ((256, 1), (256, 3), (384, 3, *_DOWN))),
                   "mixed_6a")
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    x = _reduction(x, (((256, 1), (384, 3, *_DOWN)), ((256, 1), (288, 3, *_DOWN)),
                       ((256, 1), (288, 3), (320, 3, *_DOWN))), "mixed_7a")
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling)
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: (
        _FILES[include_top][0], BASE_WEIGHT_URL + _FILES[include_top][0],
        _FILES[include_top][1]))


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Inception-ResNet v2's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["InceptionResNetV2", "preprocess_input", "decode_predictions"]
