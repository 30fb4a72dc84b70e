"""`keras.applications.mobilenet_v3`: MobileNetV3Small and MobileNetV3Large (Howard et al.,
2019): inverted residual blocks with squeeze-and-excitation and hard-swish. The models rescale
their own inputs (`preprocess_input` does nothing, as Keras's)."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.applications.mobilenet_v2 import _make_divisible as _depth
from tapeflow.keras.layers.layer import KerasTensor

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
# md5 of Keras's weight files: (with the classifier, without it)
WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "cde8136e733e811080d9fcd8a252f7e4"),
}
_BN = {"epsilon": 1e-3, "momentum": 0.999}
# The blocks: (expansion, filters, kernel or None for the model's, stride, with SE,
# activation: 'relu' or None for the model's).
_SMALL = ((1, 16, 3, 2, True, "relu"), (72 / 16, 24, 3, 2, False, "relu"),
          (88 / 24, 24, 3, 1, False, "relu"), (4, 40, None, 2, True, None),
          (6, 40, None, 1, True, None), (6, 40, None, 1, True, None),
          (3, 48, None, 1, True, None), (3, 48, None, 1, True, None),
          (6, 96, None, 2, True, None), (6, 96, None, 1, True, None),
          (6, 96, None, 1, True, None))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, None, 2, True, "relu"),
          (3, 40, None, 1, True, "relu"), (3, 40, None, 1, True, "relu"),
          (6, 80, 3, 2, False, None), (2.5, 80, 3, 1, False, None),
          (2.3, 80, 3, 1, False, None), (2.3, 80, 3, 1, False, None),
          (6, 112, 3, 1, True, None), (6, 112, 3, 1, True, None),
          (6, 160, None, 2, True, None), (6, 160, None, 1, True, None),
          (6, 160, None, 1, True, None))


def relu(x: Any) -> Any:
    return layers.ReLU()(x)


def hard_sigmoid(x: Any) -> Any:
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x: Any) -> Any:
    return layers.Activation("hard_swish")(x)


def _channel_axis() -> int:
    return 1 if backend.image_data_format() == "channels_first" else -1


def _input_shape(input_shape: Any, input_tensor: Any) -> tuple:
    """The input shape: given, or read from a KerasTensor input, or of any size."""
    channels_first = backend.image_data_format() == "channels_first"
    if input_tensor is not None and not isinstance(input_tensor, KerasTensor):
        raise ValueError("input_tensor specified: ", input_tensor, "is not a keras tensor")
    if input_shape is not None:
        if input_tensor is not None:
            axis, given = (1, input_shape[1]) if channels_first else (2, input_shape[1])
            if input_tensor.shape[axis] != given:
                raise ValueError(f"input_shape[1] must equal input_tensor.shape[{axis}].  "
                                 f"Received input_shape={input_shape}, "
                                 f"input_tensor.shape={input_tensor.shape}")
        return tuple(input_shape)
    if input_tensor is not None:
        rows, cols = input_tensor.shape[2:4] if channels_first else input_tensor.shape[1:3]
        return (3, cols, rows) if channels_first else (cols, rows, 3)
    return (3, None, None) if channels_first else (None, None, 3)


def MobileNetV3(stack_fn: Callable, last_point_ch: int, input_shape: Any = None,  # noqa: N802
                alpha: float = 1.0, model_type: str = "large", minimalistic: bool = False,
                include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                classes: int = 1000, pooling: Optional[str] = None, dropout_rate: float = 0.2,
                classifier_activation: Any = "softmax", include_preprocessing: bool = True,
                name: Optional[str] = None) -> Any:
    """A MobileNetV3 whose blocks `stack_fn(x, kernel, activation, se_ratio)` builds."""
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _input_shape(input_shape, input_tensor)
    rows, cols = (input_shape[1:3] if backend.image_data_format() == "channels_first"
                  else input_shape[0:2])
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError("Input size must be at least 32x32; Received "
                         f"`input_shape={input_shape}`")
    if weights == "imagenet":
        _check_imagenet_arguments(alpha, minimalistic, rows, cols)
    img_input = _utils.image_input(input_tensor, input_shape)
    kernel, activation, se_ratio = (3, relu, None) if minimalistic else (5, hard_swish, 0.25)
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="conv")(x)
    x = activation(layers.BatchNormalization(axis=_channel_axis(), name="conv_bn", **_BN)(x))
    x = stack_fn(x, kernel, activation, se_ratio)
    last_conv_ch = _depth(x.shape[_channel_axis()] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="conv_1")(x)
    x = activation(layers.BatchNormalization(axis=_channel_axis(), name="conv_1_bn", **_BN)(x))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling, "avg_pool", "max_pool")
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(
        model_type, minimalistic, alpha, include_top))


def _check_imagenet_arguments(alpha: float, minimalistic: bool, rows: Any, cols: Any) -> None:
    if (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0):
        raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, "
                         "`1.0` for non minimalistic or `1.0` for minimalistic only.")
    if rows != cols or rows != 224:
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not 224. Weights "
                      "for input shape (224, 224) will be loaded as the default.", stacklevel=4)


def _imagenet_file(model_type: str, minimalistic: bool, alpha: float,
                   include_top: bool) -> tuple:
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    suffix = "" if include_top else "_no_top_v2"
    file_name = f"weights_mobilenet_v3_{model_name}{suffix}.h5"
    return (file_name, BASE_WEIGHT_PATH + file_name,
            WEIGHTS_HASHES[model_name][0 if include_top else 1])


def _se_block(inputs: Any, filters: int, se_ratio: float, prefix: str) -> Any:
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, hard_sigmoid(x)])


def _inverted_res_block(x: Any, expansion: float, filters: int, kernel_size: int, stride: int,
                        se_ratio: Optional[float], activation: Callable, block_id: int) -> Any:
    axis = _channel_axis()
    shortcut, infilters = x, x.shape[axis]
    prefix = "expanded_conv_"
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same",
                          use_bias=False, name=f"{prefix}expand")(x)
        x = activation(layers.BatchNormalization(axis=axis, name=f"{prefix}expand_bn",
                                                 **_BN)(x))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=_utils.correct_pad(x, kernel_size),
                                 name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{prefix}depthwise")(x)
    x = activation(layers.BatchNormalization(axis=axis, name=f"{prefix}depthwise_bn", **_BN)(x))
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=axis, name=f"{prefix}project_bn", **_BN)(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _stack(blocks: tuple, alpha: float) -> Callable:
    def stack_fn(x: Any, kernel: int, activation: Callable, se_ratio: Optional[float]) -> Any:
        for block_id, (expansion, filters, size, stride, se, act) in enumerate(blocks):
            x = _inverted_res_block(x, expansion, _depth(filters * alpha), size or kernel,
                                    stride, se_ratio if se else None,
                                    relu if act == "relu" else activation, block_id)
        return x
    return stack_fn


def _mobilenet_v3(model_type: str, blocks: tuple, last_point_ch: int) -> Callable:
    model_name = f"MobileNetV3{model_type.capitalize()}"

    def build(input_shape: Any = None, alpha: float = 1.0, minimalistic: bool = False,
              include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              classes: int = 1000, pooling: Optional[str] = None, dropout_rate: float = 0.2,
              classifier_activation: Any = "softmax", include_preprocessing: bool = True,
              name: str = model_name) -> Any:
        return MobileNetV3(_stack(blocks, alpha), last_point_ch, input_shape, alpha,
                           model_type, minimalistic, include_top, weights, input_tensor,
                           classes, pooling, dropout_rate, classifier_activation,
                           include_preprocessing, name=name)
    build.__name__ = build.__qualname__ = model_name
    build.__doc__ = (f"Instantiates the {model_name} architecture (Keras's layer names and "
                     "ImageNet weights; it rescales its inputs from [0, 255] itself).")
    return build


MobileNetV3Small = _mobilenet_v3("small", _SMALL, 1024)
MobileNetV3Large = _mobilenet_v3("large", _LARGE, 1280)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Returns `x` unchanged: MobileNetV3 models rescale their own inputs."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["preprocess_input", "decode_predictions"]
