"""`keras.applications.resnet`: ResNet50, ResNet101 and ResNet152 (He et al., 2015), and the
residual blocks ResNetV2 shares, with Keras 3.15's layer names, so its ImageNet weights load."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
# md5 of Keras's weight files: (with the classifier, without it)
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
_EPSILON = 1.001e-5


def _bn(name: str) -> layers.Layer:
    return layers.BatchNormalization(axis=_utils.channel_axis(), epsilon=_EPSILON, name=name)


def ResNet(stack_fn: Callable, preact: bool, use_bias: bool, include_top: bool = True,  # noqa: N802
           weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
           pooling: Optional[str] = None, classes: int = 1000,
           classifier_activation: Any = "softmax", name: str = "resnet",
           weights_name: Optional[str] = None) -> Any:
    """A ResNet: the 7x7 stem, `stack_fn`'s residual stages, then the top. `preact` builds
    V2's pre-activation form (batch norm after the stages instead of in the stem)."""
    _utils.check_weights_argument(weights, include_top, classes)
    input_shape = _utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                            data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn("post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = _utils.dense_top(x, classes, classifier_activation, weights)
    else:
        x = _utils.pooled(x, pooling, "avg_pool", "max_pool")
    model = _utils.functional(img_input, input_tensor, x, name)
    if weights == "imagenet" and weights_name not in WEIGHTS_HASHES:
        return model  # Keras loads nothing for an architecture it has no weights for
    return _utils.load_weights(model, weights, lambda: _imagenet_file(weights_name,
                                                                      include_top))


def _imagenet_file(weights_name: str, include_top: bool) -> tuple:
    suffix = "" if include_top else "_notop"
    file_name = f"{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return (file_name, BASE_WEIGHTS_PATH + file_name,
            WEIGHTS_HASHES[weights_name][0 if include_top else 1])


def residual_block_v1(x: Any, filters: int, kernel_size: int = 3, stride: int = 1,
                      conv_shortcut: bool = True, name: Optional[str] = None) -> Any:
    """A bottleneck block (1x1, kxk, 1x1 convolutions, 4x `filters` out) added to its input
    or to a projection of it, then ReLU."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = _bn(f"{name}_3_bn")(layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x))
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x: Any, filters: int, blocks: int, stride1: int = 2,
                             name: Optional[str] = None) -> Any:
    """`blocks` V1 blocks; the first projects its input and strides by `stride1`."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x: Any, filters: int, kernel_size: int = 3, stride: int = 1,
                      conv_shortcut: bool = False, name: Optional[str] = None) -> Any:
    """A pre-activation bottleneck block: batch norm and ReLU first, the stride on the
    3x3 convolution, the shortcut a projection, a 1x1 max pool (when strided) or the input."""
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(_bn(f"{name}_preact_bn")(x))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x: Any, filters: int, blocks: int, stride1: int = 2,
                             name: Optional[str] = None) -> Any:
    """`blocks` V2 blocks: the first projects its input, the last strides by `stride1`."""
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def stages(stack: Callable, blocks: tuple, last_stride: int = 1) -> Callable:
    """The four residual stages conv2..conv5 (64, 128, 256, 512 filters) with `blocks` blocks
    each; V1 strides at the start of conv3..conv5, V2 at the end of conv2..conv4."""
    def stack_fn(x: Any) -> Any:
        for i, (filters, count) in enumerate(zip((64, 128, 256, 512), blocks)):
            if stack is stack_residual_blocks_v1:
                stride = 1 if i == 0 else 2
            else:
                stride = last_stride if i == 3 else 2
            x = stack(x, filters, count, stride1=stride, name=f"conv{i + 2}")
        return x
    return stack_fn


def constructor(blocks: tuple, weights_name: str, display_name: str, preact: bool) -> Callable:
    """The public constructor of one ResNet depth (`preact`: V2's blocks), with Keras's
    signature and default model name."""
    stack = stack_residual_blocks_v2 if preact else stack_residual_blocks_v1
    module = "resnet_v2" if preact else "resnet"

    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: str = weights_name) -> Any:
        return ResNet(stages(stack, blocks), preact=preact, use_bias=True,
                      weights_name=weights_name, name=name, include_top=include_top,
                      weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                      pooling=pooling, classes=classes,
                      classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = display_name
    build.__doc__ = (f"Instantiates the {display_name} architecture (Keras's layer names and "
                     f"ImageNet weights; inputs through `{module}.preprocess_input`).")
    return build


ResNet50 = constructor((3, 4, 6, 3), "resnet50", "ResNet50", preact=False)
ResNet101 = constructor((3, 4, 23, 3), "resnet101", "ResNet101", preact=False)
ResNet152 = constructor((3, 8, 36, 3), "resnet152", "ResNet152", preact=False)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """ResNet's preprocessing: RGB to BGR, minus each channel's ImageNet mean ('caffe')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["ResNet50", "ResNet101", "ResNet152", "preprocess_input", "decode_predictions"]
