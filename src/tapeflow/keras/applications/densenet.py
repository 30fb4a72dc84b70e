"""`keras.applications.densenet`: DenseNet121, DenseNet169 and DenseNet201 (Huang et al.,
2017): dense blocks whose layers each add 32 channels, joined by halving transitions."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
_GROWTH_RATE = 32
_EPSILON = 1.001e-5
# md5 of Keras's weight files: (with the classifier, without it), by blocks per stage.
_HASHES = {
    (6, 12, 24, 16): ("121", "9d60b8095a5708f2dcce2bca79d332c7",
                      "30ee3e1110167f948a6b9946edeeb738"),
    (6, 12, 32, 32): ("169", "d699b8f76981ab1b30698df4c175e90b",
                      "b8c4d4c20dd625c148057b9ff1c1176b"),
    (6, 12, 48, 32): ("201", "1ceb130c1ea1b78c3bf6114dbdfd8807",
                      "c13680b51ded0fb44dff2d8f86ac8bb1"),
}


def _bn(name: str) -> layers.Layer:
    return layers.BatchNormalization(axis=_utils.channel_axis(), epsilon=_EPSILON, name=name)


def dense_block(x: Any, blocks: int, name: str) -> Any:
    """`blocks` conv blocks, each concatenating its new features to its input."""
    for i in range(blocks):
        x = conv_block(x, _GROWTH_RATE, name=f"{name}_block{i + 1}")
    return x


def transition_block(x: Any, reduction: float, name: str) -> Any:
    """Batch norm, ReLU, a 1x1 convolution to `reduction` of the channels, 2x2 average pool."""
    axis = _utils.channel_axis()
    x = layers.Activation("relu", name=f"{name}_relu")(_bn(f"{name}_bn")(x))
    x = layers.Conv2D(int(x.shape[axis] * reduction), 1, use_bias=False,
                      name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def conv_block(x: Any, growth_rate: int, name: str) -> Any:
    """A bottleneck (1x1 to 4x `growth_rate`, then 3x3 to `growth_rate`) concatenated to x."""
    y = layers.Activation("relu", name=f"{name}_0_relu")(_bn(f"{name}_0_bn")(x))
    y = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(y)
    y = layers.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(y))
    y = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(y)
    return layers.Concatenate(axis=_utils.channel_axis(), name=f"{name}_concat")([x, y])


def DenseNet(blocks: Any, include_top: bool = True, weights: Any = "imagenet",  # noqa: N802
             input_tensor: Any = None, input_shape: Any = None, pooling: Optional[str] = None,
             classes: int = 1000, classifier_activation: Any = "softmax",
             name: str = "densenet") -> Any:
    """A DenseNet with `blocks` conv blocks in each of its four dense blocks."""
    if backend.image_data_format() == "channels_first":
        raise ValueError("DenseNet does not support the `channels_first` image data format. "
                         "Switch to `channels_last` by editing your local config file at "
                         "~/.keras/keras.json")
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, 2):
        x = dense_block(x, count, name=f"conv{stage}")
        if stage < 5:
            x = transition_block(x, 0.5, name=f"pool{stage}")
    x = layers.Activation("relu", name="relu")(_bn("bn")(x))
    if include_top:
        x = _utils.dense_top(x, classes, classifier_activation, weights)
    else:
        x = _utils.pooled(x, pooling, "avg_pool", "max_pool")
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(blocks, include_top))


def _imagenet_file(blocks: Any, include_top: bool) -> tuple:
    if tuple(blocks) not in _HASHES:
        raise ValueError("weights_path undefined")
    depth, top_hash, notop_hash = _HASHES[tuple(blocks)]
    suffix = "" if include_top else "_notop"
    file_name = f"densenet{depth}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return file_name, BASE_WEIGHTS_PATH + file_name, top_hash if include_top else notop_hash


def _densenet(blocks: tuple, depth: int) -> Callable:
    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: str = f"densenet{depth}") -> Any:
        return DenseNet(list(blocks), include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation, name=name)
    build.__name__ = build.__qualname__ = f"DenseNet{depth}"
    build.__doc__ = (f"Instantiates the DenseNet{depth} architecture (Keras's layer names and "
                     "ImageNet weights; inputs through `densenet.preprocess_input`).")
    return build


DenseNet121 = _densenet((6, 12, 24, 16), 121)
DenseNet169 = _densenet((6, 12, 32, 32), 169)
DenseNet201 = _densenet((6, 12, 48, 32), 201)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """DenseNet's preprocessing: pixels to [0, 1], then each channel standardized with
    ImageNet's statistics ('torch')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="torch")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "preprocess_input",
           "decode_predictions"]
