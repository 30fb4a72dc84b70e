"""`keras.applications.nasnet`: NASNetMobile and NASNetLarge (Zoph et al., 2018): the
NASNet-A normal and reduction cells found by architecture search, each combining the two
previous cells' outputs through separable convolutions and poolings. Channels-last only."""

from __future__ import annotations

import os
from typing import Any, Optional

from tapeflow.keras import backend, layers
from tapeflow.keras.applications import imagenet_utils as _utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
NASNET_MOBILE_WEIGHT_PATH = f"{BASE_WEIGHTS_PATH}NASNet-mobile.h5"
NASNET_MOBILE_WEIGHT_PATH_NO_TOP = f"{BASE_WEIGHTS_PATH}NASNet-mobile-no-top.h5"
NASNET_LARGE_WEIGHT_PATH = f"{BASE_WEIGHTS_PATH}NASNet-large.h5"
NASNET_LARGE_WEIGHT_PATH_NO_TOP = f"{BASE_WEIGHTS_PATH}NASNet-large-no-top.h5"
# default size -> include_top -> (cached file name, origin, md5)
_FILES = {
    224: {True: ("nasnet_mobile.h5", NASNET_MOBILE_WEIGHT_PATH,
                 "020fb642bf7360b370c678b08e0adf61"),
          False: ("nasnet_mobile_no_top.h5", NASNET_MOBILE_WEIGHT_PATH_NO_TOP,
                  "1ed92395b5b598bdda52abe5c0dbfd63")},
    331: {True: ("nasnet_large.h5", NASNET_LARGE_WEIGHT_PATH,
                 "11577c9a518f0070763c2b964a382f17"),
          False: ("nasnet_large_no_top.h5", NASNET_LARGE_WEIGHT_PATH_NO_TOP,
                  "d81d89dc07e6e56530c4e77faddd61b5")},
}
_CHANNELS = -1   # NASNet is built for channels_last only


def _bn(name: str) -> layers.Layer:
    return layers.BatchNormalization(axis=_CHANNELS, momentum=0.9997, epsilon=1e-3, name=name)


def _conv1x1(filters: int, name: str) -> layers.Layer:
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False,
                         kernel_initializer="he_normal", name=name)


def _relu(x: Any, name: Optional[str] = None) -> Any:
    return layers.Activation("relu", name=name)(x)


def _check_arguments(weights: Any, include_top: bool, classes: int, input_shape: Any) -> None:
    """Keras's checks, in NASNet's words: channels_last, `weights` (None, 'imagenet' or an
    existing file), `classes` with an ImageNet top, a static shape for ImageNet weights."""
    if backend.image_data_format() == "channels_first":
        raise ValueError("NASNet does not support the `channels_first` image data format. "
                         "Switch to `channels_last` by editing your local config file at "
                         "~/.keras/keras.json")
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, '
                         "`classes` should be 1000")
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` "
                         "weights, the input_shape argument must be static (no None entries). "
                         f"Got: `input_shape={input_shape}`.")


def NASNet(input_shape: Any = None, penultimate_filters: int = 4032,  # noqa: N802
           num_blocks: int = 6, stem_block_filters: int = 96, skip_reduction: bool = True,
           filter_multiplier: int = 2, include_top: bool = True, weights: Any = "imagenet",
           input_tensor: Any = None, pooling: Optional[str] = None, classes: int = 1000,
           default_size: Optional[int] = None, classifier_activation: Any = "softmax",
           name: str = "NASNet") -> Any:
    """A NASNet-A: a strided stem, two reduction cells, then three runs of `num_blocks`
    normal cells with a reduction cell between runs; `penultimate_filters` sets the widths
    (the last run has `penultimate_filters` / 6 per branch). `skip_reduction` feeds each run
    the input of the reduction cell before it, not its output."""
    _check_arguments(weights, include_top, classes, input_shape)
    default_size = 331 if default_size is None else default_size
    input_shape = _utils.obtain_input_shape(input_shape, default_size=default_size,
                                            min_size=32, data_format=backend.image_data_format(),
                                            require_flatten=include_top, weights=weights)
    img_input = _utils.image_input(input_tensor, input_shape)
    if penultimate_filters % (24 * (filter_multiplier**2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of "
                         "24 * (`filter_multiplier` ** 2). "
                         f"Current value: {penultimate_filters}")
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                      use_bias=False, name="stem_conv1", kernel_initializer="he_normal")(
                          img_input)
    x = _bn("stem_bn1")(x)
    x, p = _reduction_a_cell(x, None, filters // (filter_multiplier**2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for run in range(3):
        run_filters = filters * filter_multiplier**run
        if run:
            x, p_reduced = _reduction_a_cell(x, p, run_filters,
                                             block_id=f"reduce_{run * num_blocks}")
            p = p if skip_reduction else p_reduced
        first = run * num_blocks + (1 if run else 0)   # after 'reduce_<n>' comes '<n + 1>'
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, run_filters, block_id=f"{first + i}")
    x = _relu(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        _utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _utils.pooled(x, pooling)
    model = _utils.functional(img_input, input_tensor, x, name)
    return _utils.load_weights(model, weights, lambda: _imagenet_file(default_size,
                                                                      include_top))


def _imagenet_file(default_size: int, include_top: bool) -> tuple:
    if default_size not in _FILES:
        raise ValueError("ImageNet weights can only be loaded with NASNetLarge or "
                         "NASNetMobile")
    return _FILES[default_size][include_top]


def NASNetMobile(input_shape: Any = None, include_top: bool = True,  # noqa: N802
                 weights: Any = "imagenet", input_tensor: Any = None,
                 pooling: Optional[str] = None, classes: int = 1000,
                 classifier_activation: Any = "softmax", name: str = "nasnet_mobile") -> Any:
    """Instantiates NASNet-A Mobile (4 @ 1056; Keras's layer names and ImageNet weights for
    224x224 inputs; inputs through `nasnet.preprocess_input`). Without the top, the input
    shape defaults to (224, 224, 3)."""
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32,
                  skip_reduction=False, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=224, classifier_activation=classifier_activation, name=name)


def NASNetLarge(input_shape: Any = None, include_top: bool = True,  # noqa: N802
                weights: Any = "imagenet", input_tensor: Any = None,
                pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = "softmax", name: str = "nasnet_large") -> Any:
    """Instantiates NASNet-A Large (6 @ 4032; Keras's layer names and ImageNet weights for
    331x331 inputs; inputs through `nasnet.preprocess_input`)."""
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
                  skip_reduction=True, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=331, classifier_activation=classifier_activation, name=name)


def _separable_conv_block(ip: Any, filters: int, kernel_size: tuple = (3, 3),
                          strides: tuple = (1, 1), block_id: Optional[str] = None) -> Any:
    """ReLU, separable convolution (strided after Keras's 'same' padding), batch norm, twice
    ('separable_conv_{1,2}_<block_id>'); only the first strides."""
    x = _relu(ip)
    padding = "same"
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=_utils.correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               name=f"separable_conv_1_{block_id}", padding=padding,
                               use_bias=False)(x)
    x = _relu(_bn(f"separable_conv_1_bn_{block_id}")(x))
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                               padding="same", use_bias=False)(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p: Any, ip: Any, filters: int, block_id: Optional[str] = None) -> Any:
    """The previous cell's output `p` matched to this cell's input `ip`: halved in size
    (two 1x1 convolutions on the pixel grid and on it shifted by one, concatenated) when
    `ip` is smaller, projected when its channels differ from `filters`; `ip` when None."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = _relu(p, name=f"adjust_relu_1_{block_id}")
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(filters // 2, f"adjust_conv_1_{block_id}")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(filters // 2, f"adjust_conv_2_{block_id}")(p2)
        p = layers.concatenate([p1, p2], axis=_CHANNELS)
        return _bn(f"adjust_bn_{block_id}")(p)
    if p.shape[_CHANNELS] != filters:
        p = _conv1x1(filters, f"adjust_conv_projection_{block_id}")(_relu(p))
        return _bn(f"adjust_bn_{block_id}")(p)
    return p


def _avg_pool_3x3(name: str, strides: tuple = (1, 1), padding: str = "same") -> layers.Layer:
    return layers.AveragePooling2D((3, 3), strides=strides, padding=padding, name=name)


def _normal_a_cell(ip: Any, p: Any, filters: int, block_id: Optional[str] = None) -> tuple:
    """A NASNet-A normal cell: (its output, `ip` for the next cell's `p`)."""
    p = _adjust_block(p, ip, filters, block_id)
    h = _bn(f"normal_bn_1_{block_id}")(_conv1x1(filters, f"normal_conv_1_{block_id}")(
        _relu(ip)))
    x1 = layers.add([_separable_conv_block(h, filters, (5, 5),
                                           block_id=f"normal_left1_{block_id}"),
                     _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")],
                    name=f"normal_add_1_{block_id}")
    x2 = layers.add([_separable_conv_block(p, filters, (5, 5),
                                           block_id=f"normal_left2_{block_id}"),
                     _separable_conv_block(p, filters, (3, 3),
                                           block_id=f"normal_right2_{block_id}")],
                    name=f"normal_add_2_{block_id}")
    x3 = layers.add([_avg_pool_3x3(f"normal_left3_{block_id}")(h), p],
                    name=f"normal_add_3_{block_id}")
    x4 = layers.add([_avg_pool_3x3(f"normal_left4_{block_id}")(p),
                     _avg_pool_3x3(f"normal_right4_{block_id}")(p)],
                    name=f"normal_add_4_{block_id}")
    x5 = layers.add([_separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}"),
                     h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=_CHANNELS,
                           name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip: Any, p: Any, filters: int, block_id: Optional[str] = None) -> tuple:
    """A NASNet-A reduction cell (half the size): (its output, `ip` for the next cell)."""
    p = _adjust_block(p, ip, filters, block_id)
    h = _bn(f"reduction_bn_1_{block_id}")(_conv1x1(filters, f"reduction_conv_1_{block_id}")(
        _relu(ip)))
    h3 = layers.ZeroPadding2D(padding=_utils.correct_pad(h, 3),
                              name=f"reduction_pad_1_{block_id}")(h)
    down = (2, 2)
    x1 = layers.add([_separable_conv_block(h, filters, (5, 5), down,
                                           block_id=f"reduction_left1_{block_id}"),
                     _separable_conv_block(p, filters, (7, 7), down,
                                           block_id=f"reduction_right1_{block_id}")],
                    name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=down, padding="valid",
                               name=f"reduction_left2_{block_id}")(h3)
    x2 = layers.add([x2_1, _separable_conv_block(p, filters, (7, 7), down,
                                                 block_id=f"reduction_right2_{block_id}")],
                    name=f"reduction_add_2_{block_id}")
    x3_1 = _avg_pool_3x3(f"reduction_left3_{block_id}", down, "valid")(h3)
    x3 = layers.add([x3_1, _separable_conv_block(p, filters, (5, 5), down,
                                                 block_id=f"reduction_right3_{block_id}")],
                    name=f"reduction_add3_{block_id}")
    x4 = layers.add([x2, _avg_pool_3x3(f"reduction_left4_{block_id}")(x1)])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=down, padding="valid",
                               name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=_CHANNELS,
                           name=f"reduction_concat_{block_id}")
    return x, ip


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """NASNet's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["NASNetMobile", "NASNetLarge", "preprocess_input", "decode_predictions"]
