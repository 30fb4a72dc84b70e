"""`keras.applications.imagenet_utils`: ImageNet preprocessing and class names, and the pieces
every architecture shares (its input, its weights argument, its top, its weights file), as
Keras 3.15 defines them."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.keras import activations, backend, layers
from tapeflow.keras.layers.layer import KerasTensor
from tapeflow.keras.utils import file_utils

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                    "imagenet_class_index.json")
CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"
_class_index: Optional[dict] = None

# Per-channel ImageNet statistics (RGB) of the 'torch' mode, and the BGR means of 'caffe'.
_TORCH_MEAN, _TORCH_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
_CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)


def preprocess_input(x: Any, data_format: Optional[str] = None, mode: str = "caffe") -> Any:
    """Scales a batch of RGB images (values in [0, 255]) as the ImageNet weights expect.

    `mode`: 'caffe' (RGB to BGR, minus each channel's ImageNet mean), 'tf' (to [-1, 1]) or
    'torch' (to [0, 1], then each channel standardized). A NumPy array of a float dtype is
    written over in place, as Keras's; anything else gives a new tensor."""
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         f"Received: mode={mode}")
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         f"`channels_last`. Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_array(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _channel_shape(ndim: int, data_format: str) -> tuple:
    """The shape that broadcasts a 3-vector over the channel axis of an `ndim` image batch."""
    if data_format == "channels_last":
        return (1,) * (ndim - 1) + (3,)
    return (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)


def _channel_axis(ndim: int, data_format: str) -> int:
    return -1 if data_format == "channels_last" else (0 if ndim == 3 else 1)


def _mode_constants(mode: str) -> tuple:
    """(scale the pixels are divided by first, channel means, channel stds) of a mode."""
    if mode == "torch":
        return 255.0, _TORCH_MEAN, _TORCH_STD
    return 1.0, _CAFFE_MEAN_BGR, None


def _preprocess_array(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    scale, mean, std = _mode_constants(mode)
    if mode == "torch":
        x /= scale
    else:
        x = np.flip(x, axis=_channel_axis(x.ndim, data_format))
    shape = _channel_shape(x.ndim, data_format)
    x -= np.reshape(np.asarray(mean, x.dtype), shape)
    if std is not None:
        x /= np.reshape(np.asarray(std, x.dtype), shape)
    return x


def _preprocess_tensor(x: Any, data_format: str, mode: str) -> Any:
    from tapeflow.keras import ops
    x = ops.convert_to_tensor(x) if not isinstance(x, KerasTensor) else x
    if mode == "tf":
        return x / 127.5 - 1.0
    scale, mean, std = _mode_constants(mode)
    ndim = len(x.shape)
    if mode == "torch":
        x = x / scale
    else:
        axis = _channel_axis(ndim, data_format)
        x = ops.flip(x, axis=axis)
    shape = _channel_shape(ndim, data_format)
    x = x - ops.reshape(ops.convert_to_tensor(np.asarray(mean), dtype=x.dtype), shape)
    if std is not None:
        x = x / ops.reshape(ops.convert_to_tensor(np.asarray(std), dtype=x.dtype), shape)
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """The `top` (class id, class name, score) of each row of ImageNet predictions, best
    first; the class names come from Keras's `imagenet_class_index.json` (downloaded into
    the cache once, its hash checked)."""
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Received array with shape: {preds.shape}")
    index = _imagenet_class_index()
    results = []
    for row in np.asarray(preds):
        best = row.argsort()[-top:][::-1]
        result = [(*index[str(i)], row[i]) for i in best]
        result.sort(key=lambda entry: entry[2], reverse=True)
        results.append(result)
    return results


def _imagenet_class_index() -> dict:
    global _class_index
    if _class_index is None:
        path = file_utils.get_file("imagenet_class_index.json", CLASS_INDEX_PATH,
                                   cache_subdir="models", file_hash=CLASS_INDEX_MD5)
        with open(path, encoding="utf-8") as f:
            _class_index = json.load(f)
    return _class_index


def obtain_input_shape(input_shape: Any, default_size: int, min_size: int, data_format: str,
                       require_flatten: bool, weights: Any = None) -> tuple:
    """The input shape an architecture is built for, checked as Keras checks it: 3 channels
    for ImageNet weights, at least `min_size` pixels each way, static with a flat top."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.",
                          stacklevel=3)
        default = ((channels, default_size, default_size) if channels_first
                   else (default_size, default_size, channels))
    else:
        default = (3, default_size, default_size) if channels_first \
            else (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default}.  "
                             f"Received: input_shape={input_shape}")
        return default
    if input_shape:
        _check_given_shape(tuple(input_shape), min_size, channels_first, weights)
    elif require_flatten:
        input_shape = default
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static "
                         f"`input_shape`. Received: input_shape={input_shape}")
    return tuple(input_shape)


def _check_given_shape(shape: tuple, min_size: int, channels_first: bool, weights: Any) -> None:
    if len(shape) != 3:
        raise ValueError("`input_shape` must be a tuple of three integers.")
    channels, rows, cols = (shape if channels_first else (shape[2], shape[0], shape[1]))
    if channels != 3 and weights == "imagenet":
        raise ValueError(f"The input must have 3 channels; Received `input_shape={shape}`")
    if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
        raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                         f"input_shape={shape}")


def correct_pad(inputs: Any, kernel_size: Any) -> tuple:
    """The zero padding before a strided 'valid' convolution that lines it up as TF's
    'same' (one pixel less before on an even side)."""
    first = 2 if backend.image_data_format() == "channels_first" else 1
    size = inputs.shape[first:first + 2]
    kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel[0] // 2, kernel[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def validate_activation(classifier_activation: Any, weights: Any) -> None:
    """Pretrained weights allow only a softmax top or none (logits)."""
    if weights is None:
        return
    activation = activations.get(classifier_activation)
    if activation not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         "with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")


# -- what every architecture shares ---------------------------------------------------------------

def check_weights_argument(weights: Any, include_top: bool, classes: int) -> None:
    """Keras's checks of `weights` (None, 'imagenet' or an existing file) and of `classes`
    with an ImageNet top."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), 'imagenet' (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded.  Received: weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` "
                         f"should be 1000.  Received classes={classes}")


def image_input(input_tensor: Any, input_shape: tuple) -> KerasTensor:
    """The model's image input: `input_tensor` when it is a KerasTensor, else a new Input."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if isinstance(input_tensor, KerasTensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def channel_axis() -> int:
    """The channel axis of a 4-D image batch in the configured data format."""
    return 3 if backend.image_data_format() == "channels_last" else 1


def pooled(x: Any, pooling: Optional[str], avg_name: Optional[str] = None,
           max_name: Optional[str] = None) -> Any:
    """A headless model's output: its features, or their global average or maximum."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def dense_top(x: Any, classes: int, classifier_activation: Any, weights: Any,
              pool_name: Optional[str] = "avg_pool") -> Any:
    """The usual classifier: global average pooling and a Dense 'predictions' layer (the
    activation checked against pretrained weights)."""
    x = layers.GlobalAveragePooling2D(name=pool_name)(x)
    validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)


def functional(img_input: Any, input_tensor: Any, outputs: Any, name: str) -> Any:
    """The architecture as a Functional model, from the source inputs of `input_tensor`
    when one was given."""
    from tapeflow.keras.models import Functional
    from tapeflow.keras.utils import get_source_inputs
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    return Functional(inputs, outputs, name=name)


def load_weights(model: Any, weights: Any, imagenet_file: Callable[[], tuple]) -> Any:
    """Loads ImageNet weights (`imagenet_file()` gives (file name, origin URL, md5 or None):
    read from Keras's cache, downloaded there when missing) or a weights file's."""
    if weights == "imagenet":
        file_name, origin, file_hash = imagenet_file()
        path = file_utils.get_file(file_name, origin, cache_subdir="models",
                                   file_hash=file_hash)
        model.load_weights(path)
    elif weights is not None:
        model.load_weights(weights)
    return model


__all__ = ["preprocess_input", "decode_predictions"]
