"""VGG16 and VGG19 (Simonyan & Zisserman, 2014): five blocks of 3x3 convolutions and max
pooling, then two 4096-wide dense layers; one builder for both depths."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/"
# Filters of each block; convolutions per block for each depth.
_BLOCK_FILTERS = (64, 128, 256, 512, 512)
_CONVS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
# md5 of Keras's weight files: (with the classifier, without it)
_HASHES = {16: ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"),
           19: ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")}


def vgg(depth: int) -> Callable:
    """The constructor of VGG`depth`, with Keras's signature."""
    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: str = f"vgg{depth}") -> Any:
        _utils.check_weights_argument(weights, include_top, classes)
        input_shape = _utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                data_format=backend.image_data_format(),
                                                require_flatten=include_top, weights=weights)
        img_input = _utils.image_input(input_tensor, input_shape)
        x = img_input
        for block, (filters, convs) in enumerate(zip(_BLOCK_FILTERS, _CONVS[depth]), 1):
            for conv in range(1, convs + 1):
                x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                                  name=f"block{block}_conv{conv}")(x)
            x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
        if include_top:
            x = layers.Flatten(name="flatten")(x)
            x = layers.Dense(4096, activation="relu", name="fc1")(x)
            x = layers.Dense(4096, activation="relu", name="fc2")(x)
            _utils.validate_activation(classifier_activation, weights)
            x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
        else:
            x = _utils.pooled(x, pooling)
        model = _utils.functional(img_input, input_tensor, x, name)
        return _utils.load_weights(model, weights, lambda: _imagenet_file(depth, include_top))
    build.__name__ = build.__qualname__ = f"VGG{depth}"
    build.__doc__ = (f"Instantiates the VGG{depth} architecture (Keras's layer names and "
                     f"ImageNet weights; inputs through `vgg{depth}.preprocess_input`).")
    return build


def _imagenet_file(depth: int, include_top: bool) -> tuple:
    suffix = "" if include_top else "_notop"
    file_name = f"vgg{depth}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return (file_name, f"{_BASE}vgg{depth}/{file_name}",
            _HASHES[depth][0 if include_top else 1])


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """VGG's preprocessing: RGB to BGR, minus each channel's ImageNet mean ('caffe')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)
