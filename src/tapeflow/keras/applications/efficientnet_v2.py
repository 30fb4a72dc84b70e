"""`keras.applications.efficientnet_v2`: EfficientNetV2B0 to B3, S, M and L (Tan & Le, 2021):
fused MBConv blocks (one full convolution in place of expansion and depthwise) in the early
stages, MBConv blocks with squeeze-and-excitation after. The models rescale their own inputs
(`preprocess_input` does nothing, as Keras's)."""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.applications.efficientnet import (CONV_KERNEL_INITIALIZER,
                                                      DENSE_KERNEL_INITIALIZER, _squeeze_excite)

BASE_WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                     "efficientnet_v2/")
# md5 of Keras's weight files: (with the classifier, without it)
WEIGHTS_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "-s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "-m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "-l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}
# Each variant's stages: (repeats, filters in, filters out, expansion, SE ratio, stride, fused);
# every kernel is 3x3. B0..B3 share B0's stages (scaled by their coefficients).
_B_STAGES = ((1, 32, 16, 1, 0, 1, True), (2, 16, 32, 4, 0, 2, True),
             (2, 32, 48, 4, 0, 2, True), (3, 48, 96, 4, 0.25, 2, False),
             (5, 96, 112, 6, 0.25, 1, False), (8, 112, 192, 6, 0.25, 2, False))
_STAGES = {
    "efficientnetv2-s": ((2, 24, 24, 1, 0, 1, True), (4, 24, 48, 4, 0, 2, True),
                         (4, 48, 64, 4, 0, 2, True), (6, 64, 128, 4, 0.25, 2, False),
                         (9, 128, 160, 6, 0.25, 1, False), (15, 160, 256, 6, 0.25, 2, False)),
    "efficientnetv2-m": ((3, 24, 24, 1, 0, 1, True), (5, 24, 48, 4, 0, 2, True),
                         (5, 48, 80, 4, 0, 2, True), (7, 80, 160, 4, 0.25, 2, False),
                         (14, 160, 176, 6, 0.25, 1, False), (18, 176, 304, 6, 0.25, 2, False),
                         (5, 304, 512, 6, 0.25, 1, False)),
    "efficientnetv2-l": ((4, 32, 32, 1, 0, 1, True), (7, 32, 64, 4, 0, 2, True),
                         (7, 64, 96, 4, 0, 2, True), (10, 96, 192, 4, 0.25, 2, False),
                         (19, 192, 224, 6, 0.25, 1, False), (25, 224, 384, 6, 0.25, 2, False),
                         (7, 384, 640, 6, 0.25, 1, False)),
    **{f"efficientnetv2-b{i}": _B_STAGES for i in range(4)},
}
DEFAULT_BLOCKS_ARGS = {
    name: [{"kernel_size": 3, "num_repeat": r, "input_filters": fi, "output_filters": fo,
            "expand_ratio": e, "se_ratio": se, "strides": s, "conv_type": int(fused)}
           for r, fi, fo, e, se, s, fused in stages]
    for name, stages in _STAGES.items()}
# The ImageNet statistics the B variants normalize with (V1's preprocessing).
_MEAN_RGB = [0.485, 0.456, 0.406]
_VARIANCE_RGB = [0.229**2, 0.224**2, 0.225**2]


def round_filters(filters: float, width_coefficient: float, min_depth: Optional[int],
                  depth_divisor: int) -> int:
    """`filters` scaled by the width coefficient, rounded to a multiple of `depth_divisor`
    (at least `min_depth`)."""
    filters *= width_coefficient
    minimum = min_depth or depth_divisor
    return int(max(minimum, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats: int, depth_coefficient: float) -> int:
    """`repeats` scaled by the depth coefficient, rounded up."""
    return int(math.ceil(depth_coefficient * repeats))


def _bn(name: str, momentum: float) -> layers.Layer:
    return layers.BatchNormalization(axis=_utils.channel_axis(), momentum=momentum, name=name)


def _conv(filters: int, kernel_size: int, strides: int, name: str) -> layers.Layer:
    return layers.Conv2D(filters, kernel_size, strides=strides, padding="same", use_bias=False,
                         kernel_initializer=CONV_KERNEL_INITIALIZER, name=name)


def _residual(x: Any, inputs: Any, drop_rate: float, name: str) -> Any:
    """`inputs` added back, through a per-sample dropout of rate `drop_rate` when not zero."""
    if drop_rate:
        x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
    return layers.add([x, inputs], name=f"{name}add")


def MBConvBlock(input_filters: int, output_filters: int, expand_ratio: int = 1,  # noqa: N802
                kernel_size: int = 3, strides: int = 1, se_ratio: float = 0.0,
                bn_momentum: float = 0.9, activation: Any = "swish",
                survival_probability: float = 0.8, name: Optional[str] = None) -> Callable:
    """An inverted residual block (1x1 expansion, depthwise convolution, squeeze-and-
    excitation, 1x1 projection; the input added back when the shape allows) as a function
    of its input. `survival_probability` is, as in Keras, the residual's dropout rate."""
    name = name if name is not None else backend.get_uid("block0")   # Keras: 1, 2, ...

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = _conv(filters, 1, 1, f"{name}expand_conv")(x)
            x = layers.Activation(activation, name=f"{name}expand_activation")(
                _bn(f"{name}expand_bn", bn_momentum)(x))
        x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding="same",
                                   use_bias=False, depthwise_initializer=CONV_KERNEL_INITIALIZER,
                                   name=f"{name}dwconv2")(x)
        x = layers.Activation(activation, name=f"{name}activation")(
            _bn(f"{name}bn", bn_momentum)(x))
        if 0 < se_ratio <= 1:
            x = _squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation,
                                name)
        x = _bn(f"{name}project_bn", bn_momentum)(_conv(output_filters, 1, 1,
                                                        f"{name}project_conv")(x))
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x
    return apply


def FusedMBConvBlock(input_filters: int, output_filters: int, expand_ratio: int = 1,  # noqa: N802
                     kernel_size: int = 3, strides: int = 1, se_ratio: float = 0.0,
                     bn_momentum: float = 0.9, activation: Any = "swish",
                     survival_probability: float = 0.8, name: Optional[str] = None) -> Callable:
    """The fused block: one full kxk convolution does the expansion and the stride (then a
    1x1 projection); without expansion the projection is that kxk convolution, activated."""
    name = name if name is not None else backend.get_uid("block0")   # Keras: 1, 2, ...

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = _conv(filters, kernel_size, strides, f"{name}expand_conv")(x)
            x = layers.Activation(activation, name=f"{name}expand_activation")(
                _bn(f"{name}expand_bn", bn_momentum)(x))
        if 0 < se_ratio <= 1:
            x = _squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation,
                                name)
        fused = expand_ratio == 1
        x = _conv(output_filters, kernel_size if fused else 1, strides if fused else 1,
                  f"{name}project_conv")(x)
        x = _bn(f"{name}project_bn", bn_momentum)(x)
        if fused:
            x = layers.Activation(activation, name=f"{name}project_activation")(x)
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x
    return apply


def _check_arguments(weights: Any, include_top: bool, classes: int) -> None:
    """Keras's checks of `weights` (None, 'imagenet' or an existing file) and of `classes`
    with an ImageNet top, in EfficientNetV2's words."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded.Received: weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights="imagenet"` with `include_top` as true, '
                         "`classes` should be 1000")


def _preprocessing(x: Any, variant: str, channels: Any) -> Any:
    """The B variants standardize RGB images with ImageNet's statistics (as V1); the others,
    and B inputs of other channel counts, scale [0, 255] to [-1, 1]."""
    if variant.split("-")[-1].startswith("b") and channels == 3:
        x = layers.Rescaling(scale=1.0 / 255)(x)
        return layers.Normalization(mean=_MEAN_RGB, variance=_VARIANCE_RGB,
                                    axis=_utils.channel_axis())(x)
    return layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)


def EfficientNetV2(width_coefficient: float, depth_coefficient: float,  # noqa: N802
                   default_size: int, dropout_rate: float = 0.2,
                   drop_connect_rate: float = 0.2, depth_divisor: int = 8, min_depth: int = 8,
                   bn_momentum: float = 0.9, activation: Any = "swish",
                   blocks_args: Any = "default", name: str = "efficientnetv2",
                   include_top: bool = True, weights: Any = "imagenet",
                   input_tensor: Any = None, input_shape: Any = None,
                   pooling: Optional[str] = None, classes: int = 1000,
                   classifier_activation: Any = "softmax", include_preprocessing: bool = True,
                   weights_name: Optional[str] = None) -> Any:
    """An EfficientNetV2 of the given width and depth coefficients; `blocks_args` 'default'
    takes the stages of the variant `weights_name` names ('b0'..'b3', '-s', '-m', '-l'), or
    without one, of the variant `name` names ('efficientnetv2-s')."""
    variant = _variant(name, weights_name)
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[variant]
    _check_arguments(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    axis = _utils.channel_axis()
    x = img_input
    if include_preprocessing:
        x = _preprocessing(x, variant, input_shape[axis - 1])

    def width(filters: int) -> int:
        return round_filters(filters, width_coefficient, min_depth, depth_divisor)
    x = _conv(width(blocks_args[0]["input_filters"]), 3, 2, "stem_conv")(x)
    x = layers.Activation(activation, name="stem_activation")(_bn("stem_bn", bn_momentum)(x))
    x = _stages(x, blocks_args, width, depth_coefficient, bn_momentum, activation,
                drop_connect_rate)
    x = _conv(width(1280), 1, 1, "top_conv")(x)
    x = layers.Activation(activation, name="top_activation")(_bn("top_bn", bn_momentum)(x))
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, bias_initializer="zeros",
                         name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling, "avg_pool", "max_pool")
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights,
                               lambda: _imagenet_file(name, weights_name, include_top))


def _variant(name: str, weights_name: Optional[str]) -> str:
    """The variant's DEFAULT_BLOCKS_ARGS key ('efficientnetv2-b0' for 'b0'); the model's name
    without a weights name. (Keras always takes the name, so that a custom `name` raises
    KeyError there; here the variant decides.)"""
    if weights_name is None:
        return name
    return "efficientnetv2-" + weights_name.lstrip("-")


def _stages(x: Any, blocks_args: list, width: Callable, depth_coefficient: float,
            bn_momentum: float, activation: Any, drop_connect_rate: float) -> Any:
    """The stages; block j of stage i is named 'block{i}{a, b, ...}_'. The residual dropout
    grows linearly with the block's index over the unscaled number of blocks (as Keras)."""
    total = float(sum(args["num_repeat"] for args in blocks_args))
    index = 0
    for i, args in enumerate(blocks_args):
        if args["num_repeat"] <= 0:
            raise ValueError("The number of repeats in `EfficientNetV2` must be > 0. "
                             f"Received: num_repeat={args['num_repeat']}")
        args = dict(args, input_filters=width(args["input_filters"]),
                    output_filters=width(args["output_filters"]))
        block = FusedMBConvBlock if args.pop("conv_type") else MBConvBlock
        for j in range(round_repeats(args.pop("num_repeat"), depth_coefficient)):
            if j > 0:
                args.update(strides=1, input_filters=args["output_filters"])
            x = block(activation=activation, bn_momentum=bn_momentum,
                      survival_probability=drop_connect_rate * index / total,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)(x)
            index += 1
    return x


def _imagenet_file(name: str, weights_name: Optional[str], include_top: bool) -> tuple:
    file_name = name + (".h5" if include_top else "_notop.h5")
    return (file_name, BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1])


# (width, depth, resolution) of each variant, by its weights name
_SCALES = {"b0": (1.0, 1.0, 224), "b1": (1.0, 1.1, 240), "b2": (1.1, 1.2, 260),
           "b3": (1.2, 1.4, 300), "-s": (1.0, 1.0, 384), "-m": (1.0, 1.0, 480),
           "-l": (1.0, 1.0, 480)}


def _efficientnet_v2(variant: str) -> Callable:
    width, depth, size = _SCALES[variant]
    suffix = variant.lstrip("-")

    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", include_preprocessing: bool = True,
              name: str = f"efficientnetv2-{suffix}") -> Any:
        return EfficientNetV2(width, depth, size, name=name, include_top=include_top,
                              weights=weights, input_tensor=input_tensor,
                              input_shape=input_shape, pooling=pooling, classes=classes,
                              classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing,
                              weights_name=variant)
    build.__name__ = build.__qualname__ = f"EfficientNetV2{suffix.upper()}"
    build.__doc__ = (f"Instantiates the {build.__name__} architecture (Keras's layer names "
                     "and ImageNet weights; it rescales its inputs from [0, 255] itself, "
                     "unless `include_preprocessing=False`: then inputs are in [-1, 1]).")
    return build


EfficientNetV2B0 = _efficientnet_v2("b0")
EfficientNetV2B1 = _efficientnet_v2("b1")
EfficientNetV2B2 = _efficientnet_v2("b2")
EfficientNetV2B3 = _efficientnet_v2("b3")
EfficientNetV2S = _efficientnet_v2("-s")
EfficientNetV2M = _efficientnet_v2("-m")
EfficientNetV2L = _efficientnet_v2("-l")


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Returns `x` unchanged: EfficientNetV2 models preprocess their own inputs (Keras keeps
    this function for compatibility)."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
           "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L", "preprocess_input",
           "decode_predictions"]
