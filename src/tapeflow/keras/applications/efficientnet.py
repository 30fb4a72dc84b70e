"""`keras.applications.efficientnet`: EfficientNetB0 to B7 (Tan & Le, 2019): MBConv blocks with
squeeze-and-excitation, scaled in width, depth and resolution. The models rescale and
normalize their own inputs (`preprocess_input` does nothing, as Keras's)."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
# md5 of Keras's weight files: (with the classifier, without it)
WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# The seven stages of B0: (kernel, repeats, filters in, filters out, expansion, stride).
_STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
           (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
           (3, 1, 192, 320, 6, 1))
DEFAULT_BLOCKS_ARGS = [
    {"kernel_size": k, "repeats": r, "filters_in": fi, "filters_out": fo, "expand_ratio": e,
     "id_skip": True, "strides": s, "se_ratio": 0.25} for k, r, fi, fo, e, s in _STAGES]
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def _round_filters(filters: float, width: float, divisor: int) -> int:
    """`filters` scaled by `width`, rounded to a multiple of `divisor`, at most 10% down."""
    filters *= width
    rounded = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    return int(rounded + divisor if rounded < 0.9 * filters else rounded)


def EfficientNet(width_coefficient: float, depth_coefficient: float,  # noqa: N802
                 default_size: int, dropout_rate: float = 0.2,
                 drop_connect_rate: float = 0.2, depth_divisor: int = 8,
                 activation: Any = "swish", blocks_args: Any = "default",
                 name: str = "efficientnet", include_top: bool = True,
                 weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
                 pooling: Optional[str] = None, classes: int = 1000,
                 classifier_activation: Any = "softmax",
                 weights_name: Optional[str] = None) -> Any:
    """An EfficientNet of the given width and depth multipliers."""
    blocks_args = DEFAULT_BLOCKS_ARGS if blocks_args == "default" else blocks_args
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    axis = _utils.channel_axis()
    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=axis)(x)
    if weights == "imagenet":
        # Keras's ImageNet weights hold variances where the layer expects them squared.
        x = layers.Rescaling([1.0 / math.sqrt(std) for std in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(_round_filters(32, width_coefficient, depth_divisor), 3, strides=2,
                      padding="valid", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    x = _stages(x, blocks_args, width_coefficient, depth_coefficient, depth_divisor,
                activation, drop_connect_rate)
    x = layers.Conv2D(_round_filters(1280, width_coefficient, depth_divisor), 1,
                      padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling, "avg_pool", "max_pool")
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights,
                               lambda: _imagenet_file(name, weights_name, include_top))


def _stages(x: Any, blocks_args: list, width: float, depth: float, divisor: int,
            activation: Any, drop_connect_rate: float) -> Any:
    """The MBConv stages; block j of stage i is named 'block{i}{a, b, ...}_', and the drop
    rate grows linearly over all blocks."""
    def repeats(n: int) -> int:
        return int(math.ceil(depth * n))
    total = float(sum(repeats(args["repeats"]) for args in blocks_args))
    index = 0
    for i, args in enumerate(blocks_args):
        if args["repeats"] <= 0:
            raise ValueError("The number of repeats in `EfficientNet` must be > 0. Received: "
                             f"repeats={args['repeats']}")
        args = dict(args, filters_in=_round_filters(args["filters_in"], width, divisor),
                    filters_out=_round_filters(args["filters_out"], width, divisor))
        for j in range(repeats(args.pop("repeats"))):
            if j > 0:
                args.update(strides=1, filters_in=args["filters_out"])
            x = block(x, activation, drop_connect_rate * index / total,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)
            index += 1
    return x


def block(inputs: Any, activation: Any = "swish", drop_rate: float = 0.0, name: str = "",
          filters_in: int = 32, filters_out: int = 16, kernel_size: int = 3, strides: int = 1,
          expand_ratio: int = 1, se_ratio: float = 0.0, id_skip: bool = True) -> Any:
    """An inverted residual block: expansion, depthwise convolution, squeeze-and-excitation,
    projection, and (same shape) the input added back through a per-sample dropout."""
    axis = _utils.channel_axis()
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER,
                          name=f"{name}expand_conv")(x)
        x = layers.BatchNormalization(axis=axis, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    padding = "same"
    if strides == 2:
        x = layers.ZeroPadding2D(padding=_utils.correct_pad(x, kernel_size),
                                 name=f"{name}dwconv_pad")(x)
        padding = "valid"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=padding, use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER,
                      name=f"{name}project_conv")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def _squeeze_excite(x: Any, filters: int, filters_se: int, activation: Any, name: str) -> Any:
    """Channel weights from the pooled features, multiplied back into them."""
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    shape = (1, 1, filters) if _utils.channel_axis() == 3 else (filters, 1, 1)
    se = layers.Reshape(shape, name=f"{name}se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_expand")(se)
    return layers.multiply([x, se], name=f"{name}se_excite")


def _imagenet_file(name: str, weights_name: Optional[str], include_top: bool) -> tuple:
    file_name = name + (".h5" if include_top else "_notop.h5")
    return (file_name, BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1])


# (width, depth, resolution, dropout) of B0..B7
_SCALES = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
           "b3": (1.2, 1.4, 300, 0.3), "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
           "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}


def _efficientnet(variant: str) -> Callable:
    width, depth, size, dropout = _SCALES[variant]

    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax",
              name: str = f"efficientnet{variant}") -> Any:
        return EfficientNet(width, depth, size, dropout, name=name, include_top=include_top,
                            weights=weights, input_tensor=input_tensor,
                            input_shape=input_shape, pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, weights_name=variant)
    build.__name__ = build.__qualname__ = f"EfficientNet{variant.upper()}"
    build.__doc__ = (f"Instantiates the {build.__name__} architecture (Keras's layer names "
                     "and ImageNet weights; it rescales its inputs from [0, 255] itself).")
    return build


EfficientNetB0 = _efficientnet("b0")
EfficientNetB1 = _efficientnet("b1")
EfficientNetB2 = _efficientnet("b2")
EfficientNetB3 = _efficientnet("b3")
EfficientNetB4 = _efficientnet("b4")
EfficientNetB5 = _efficientnet("b5")
EfficientNetB6 = _efficientnet("b6")
EfficientNetB7 = _efficientnet("b7")


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Returns `x` unchanged: EfficientNet models preprocess their own inputs (Keras keeps
    this function for compatibility)."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = [f"EfficientNetB{i}" for i in range(8)] + ["preprocess_input", "decode_predictions"]
