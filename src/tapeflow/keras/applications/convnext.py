"""`keras.applications.convnext`: ConvNeXt Tiny to XLarge (Liu et al., 2022): a patchify stem,
four stages of 7x7 depthwise blocks with layer norm, inverted MLPs and layer scale, and
downsampling between them. The models normalize their own [0, 255] inputs
(`preprocess_input` does nothing, as Keras's)."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.keras import backend, initializers, layers, ops, random
from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.layers.layer import Layer

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"
# sha256 of Keras's weight files: (with the classifier, without it)
WEIGHTS_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
_DEEP = [3, 3, 27, 3]
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768]},
    "small": {"depths": _DEEP, "projection_dims": [96, 192, 384, 768]},
    "base": {"depths": _DEEP, "projection_dims": [128, 256, 512, 1024]},
    "large": {"depths": _DEEP, "projection_dims": [192, 384, 768, 1536]},
    "xlarge": {"depths": _DEEP, "projection_dims": [256, 512, 1024, 2048]},
}
_EPSILON = 1e-6
_IMAGENET_MEAN = (0.485, 0.456, 0.406)
_IMAGENET_STD = (0.229, 0.224, 0.225)


class StochasticDepth(Layer):
    """Drops a residual branch for whole samples with probability `drop_path_rate` in
    training (scaling the kept ones), the identity otherwise."""

    def __init__(self, drop_path_rate: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x: Any, training: Optional[bool] = None) -> Any:
        if not training:
            return x
        keep = 1 - self.drop_path_rate
        shape = (ops.shape(x)[0],) + (1,) * (len(x.shape) - 1)
        return x / keep * ops.floor(keep + random.uniform(shape, 0, 1))

    def get_config(self) -> dict:
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


class LayerScale(Layer):
    """Multiplies its input by a learned per-channel scale starting at `init_values`."""

    def __init__(self, init_values: float, projection_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, _: Any) -> None:
        self.gamma = self.add_weight(shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values),
                                     trainable=True)

    def call(self, x: Any) -> Any:
        return x * self.gamma

    def get_config(self) -> dict:
        return {**super().get_config(), "init_values": self.init_values,
                "projection_dim": self.projection_dim}


def ConvNeXtBlock(projection_dim: int, drop_path_rate: float = 0.0,  # noqa: N802
                  layer_scale_init_value: Optional[float] = 1e-6,
                  name: Optional[str] = None) -> Callable:
    """A block: 7x7 depthwise convolution, layer norm, a 4x MLP with GELU, layer scale,
    stochastic depth, added to its input."""
    name = name or f"prestem{backend.get_uid('prestem')}"

    def apply(inputs: Any) -> Any:
        x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same",
                          groups=projection_dim, name=f"{name}_depthwise_conv")(inputs)
        x = layers.LayerNormalization(epsilon=_EPSILON, name=f"{name}_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=f"{name}_gelu")(x)
        x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim,
                           name=f"{name}_layer_scale")(x)
        if drop_path_rate:
            last = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
        else:
            last = layers.Activation("linear", name=f"{name}_identity")
        return inputs + last(x)
    return apply


def PreStem(name: Optional[str] = None) -> Callable:  # noqa: N802
    """Normalizes [0, 255] RGB pixels with ImageNet's channel statistics."""
    name = name or f"prestem{backend.get_uid('prestem')}"
    return layers.Normalization(mean=[m * 255 for m in _IMAGENET_MEAN],
                                variance=[(s * 255) ** 2 for s in _IMAGENET_STD],
                                name=f"{name}_prestem_normalization")


def Head(num_classes: int = 1000, classifier_activation: Any = None,  # noqa: N802
         name: Optional[str] = None) -> Callable:
    """Global average pooling, layer norm and the classifier."""
    name = name or str(backend.get_uid("head"))

    def apply(x: Any) -> Any:
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = layers.LayerNormalization(epsilon=_EPSILON, name=f"{name}_head_layernorm")(x)
        return layers.Dense(num_classes, activation=classifier_activation,
                            name=f"{name}_head_dense")(x)
    return apply


def _downsampling(name: str, projection_dims: list) -> list:
    """The stem (4x4 patches) and the three 2x2 downsampling blocks, as Sequentials."""
    from tapeflow.keras.models import Sequential
    stem = Sequential([layers.Conv2D(projection_dims[0], kernel_size=4, strides=4,
                                     name=f"{name}_stem_conv"),
                       layers.LayerNormalization(epsilon=_EPSILON,
                                                 name=f"{name}_stem_layernorm")],
                      name=f"{name}_stem")
    return [stem] + [
        Sequential([layers.LayerNormalization(epsilon=_EPSILON,
                                              name=f"{name}_downsampling_layernorm_{i}"),
                    layers.Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                                  name=f"{name}_downsampling_conv_{i}")],
                   name=f"{name}_downsampling_block_{i}") for i in range(3)]


def ConvNeXt(depths: list, projection_dims: list, drop_path_rate: float = 0.0,  # noqa: N802
             layer_scale_init_value: float = 1e-6, default_size: int = 224,
             name: str = "convnext", include_preprocessing: bool = True,
             include_top: bool = True, weights: Any = None, input_tensor: Any = None,
             input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
             classifier_activation: Any = "softmax", weights_name: Optional[str] = None) -> Any:
    """A ConvNeXt with `depths` blocks per stage of `projection_dims` channels."""
    from tapeflow.keras.models import Functional
    from tapeflow.keras.utils import get_source_inputs
    if backend.image_data_format() == "channels_first":
        raise ValueError("ConvNeXt does not support the `channels_first` image data format. "
                         "Switch to `channels_last` by editing your local config file at "
                         "~/.keras/keras.json")
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    inputs = get_source_inputs(input_tensor)[0] if input_tensor is not None else img_input
    x = input_tensor if input_tensor is not None else img_input
    if include_preprocessing and input_shape[-1] == 3:
        x = PreStem(name=name)(x)
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    for i, downsample in enumerate(_downsampling(name, projection_dims)):
        x = downsample(x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(projection_dim=projection_dims[i],
                              drop_path_rate=rates[sum(depths[:i]) + j],
                              layer_scale_init_value=layer_scale_init_value,
                              name=f"{name}_stage_{i}_block_{j}")(x)
    if include_top:
        _utils.validate_activation(classifier_activation, weights)
        x = Head(num_classes=classes, classifier_activation=classifier_activation, name=name)(x)
    else:
        x = layers.LayerNormalization(epsilon=_EPSILON)(_utils.pooled(x, pooling))
    model = Functional(inputs=inputs, outputs=x, name=name)
    if weights == "imagenet":
        _check_imagenet_variant(weights_name, depths, projection_dims, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(name, weights_name,
                                                                      include_top))


def _check_imagenet_variant(weights_name: str, depths: list, projection_dims: list,
                            name: str) -> None:
    variant = weights_name.split("convnext_")[-1]
    expected = MODEL_CONFIGS[variant]
    if depths != expected["depths"] or projection_dims != expected["projection_dims"]:
        raise ValueError(f"Architecture configuration does not match {weights_name} variant. "
                         "When using pre-trained weights, the model architecture must match "
                         "the pre-trained configuration exactly. Expected depths: "
                         f"{expected['depths']}, got: {depths}. Expected projection_dims: "
                         f"{expected['projection_dims']}, got: {projection_dims}.")
    if weights_name not in name:
        raise ValueError(f'Model name "{name}" does not match weights variant '
                         f'"{weights_name}". When using imagenet weights, model name must '
                         f'contain the weights variant (e.g., "convnext_{variant}").')


def _imagenet_file(name: str, weights_name: str, include_top: bool) -> tuple:
    file_name = name + (".h5" if include_top else "_notop.h5")
    return (file_name, BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1])


def _convnext(variant: str) -> Callable:
    config = MODEL_CONFIGS[variant]

    def build(include_top: bool = True, include_preprocessing: bool = True,
              weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
              pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: str = f"convnext_{variant}") -> Any:
        return ConvNeXt(weights_name=f"convnext_{variant}", depths=config["depths"],
                        projection_dims=config["projection_dims"], drop_path_rate=0.0,
                        layer_scale_init_value=1e-6, default_size=224, name=name,
                        include_top=include_top, include_preprocessing=include_preprocessing,
                        weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                        pooling=pooling, classes=classes,
                        classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = f"ConvNeXt{variant.capitalize()}".replace(
        "Xlarge", "XLarge")
    build.__doc__ = (f"Instantiates the {build.__name__} architecture (Keras's layer names "
                     "and ImageNet weights; it normalizes its [0, 255] inputs itself).")
    return build


ConvNeXtTiny = _convnext("tiny")
ConvNeXtSmall = _convnext("small")
ConvNeXtBase = _convnext("base")
ConvNeXtLarge = _convnext("large")
ConvNeXtXLarge = _convnext("xlarge")


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Returns `x` unchanged: ConvNeXt models normalize their own inputs."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge",
           "preprocess_input", "decode_predictions"]
