"""`smart_resize` of `keras.preprocessing.image`: an image resized without distortion."""

from __future__ import annotations

from typing import Any

import numpy as np

_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _crop_box(height: Any, width: Any, size: tuple) -> tuple:
    """(top, left, crop height, crop width) of the largest centred crop with the target's
    aspect ratio: Python float arithmetic for known sizes, float32 ops for traced ones (as
    Keras)."""
    target_h, target_w = size
    if isinstance(height, int) and isinstance(width, int):
        crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
        crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
        return int(float(height - crop_h) / 2), int(float(width - crop_w) / 2), crop_h, crop_w
    from tapeflow.ops import math_ops

    def as_int(value: Any) -> Any:
        return math_ops.cast(value, "int32")

    def as_float(value: Any) -> Any:
        return math_ops.cast(value, "float32")
    crop_h = math_ops.maximum(math_ops.minimum(height, as_int(as_float(width * target_h)
                                                               / target_w)), 1)
    crop_w = math_ops.maximum(math_ops.minimum(width, as_int(as_float(height * target_w)
                                                              / target_h)), 1)
    return (as_int(as_float(height - crop_h) / 2), as_int(as_float(width - crop_w) / 2),
            crop_h, crop_w)


def smart_resize(x: Any, size: Any, interpolation: str = "bilinear",
                 data_format: str = "channels_last", **kwargs: Any) -> Any:
    """An image `(height, width, channels)` or batch `(batch, height, width, channels)`
    (channels first with that `data_format`) resized to `size` without distorting it: the
    largest centred crop of the target's aspect ratio, resized. A NumPy array gives a NumPy
    array; a tensor a tensor."""
    from tapeflow import image as tf_image
    from tapeflow.ops import array_ops
    kwargs.pop("backend_module", None)  # Keras's choice of backend; tapeflow has one
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs)}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = array_ops.convert_to_tensor(x)
    rank = len(img.shape)
    if rank not in (3, 4):
        raise ValueError("Expected an image array with shape `(height, width, channels)`, or "
                         "`(batch_size, height, width, channels)`, but got input with incorrect "
                         f"rank, of shape {img.shape}.")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("Invalid value for argument `interpolation`. Expected of one "
                         f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
    channels_last = data_format == "channels_last"
    if not channels_last:  # resized channels last, as Keras's TF backend does
        img = array_ops.transpose(img, (0, 2, 3, 1) if rank == 4 else (1, 2, 0))
    static = img.shape.as_list()[-3:-1]
    dynamic = array_ops.shape(img)
    height, width = [d if d is not None else dynamic[rank - 3 + i] for i, d in
                     enumerate(static)]
    top, left, crop_h, crop_w = _crop_box(height, width, tuple(size))
    img = img[..., top:top + crop_h, left:left + crop_w, :]
    img = tf_image.resize(img, tuple(size), method=interpolation)
    if not channels_last:
        img = array_ops.transpose(img, (0, 3, 1, 2) if rank == 4 else (2, 0, 1))
    return np.array(img) if isinstance(x, np.ndarray) else img


__all__ = ["smart_resize"]
