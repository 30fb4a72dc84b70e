"""`tf.image`'s colour-space conversions and colour adjustments, and image dtype conversion."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework import dtypes as _dtypes
from tapeflow.image._common import _no_gradient

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_gamma", "rgb_to_grayscale",
           "grayscale_to_rgb", "convert_image_dtype", "per_image_standardization"]

# -- colour and dtype ---------------------------------------------------------------------------

def _saturate_cast(value: Any, dtype: Any) -> Any:
    """TF's saturate_cast: clamps to the target's range before casting."""
    dtype = _dtypes.as_dtype(dtype)
    value = tf.convert_to_tensor(value)
    if value.dtype.is_floating and dtype.is_integer:
        low, high = np.asarray(dtype.min, value.dtype.as_numpy_dtype), \
            np.asarray(dtype.max, value.dtype.as_numpy_dtype)
        if float(low) < dtype.min:
            low = np.nextafter(low, np.asarray(np.inf, low.dtype))
        if float(high) > dtype.max:
            high = np.nextafter(high, np.asarray(-np.inf, high.dtype))
        value = tf.clip_by_value(value, low, high)
    elif value.dtype.is_integer and dtype.is_integer:
        if value.dtype.min < dtype.min or value.dtype.max > dtype.max:
            value = tf.clip_by_value(value, max(value.dtype.min, dtype.min),
                                     min(value.dtype.max, dtype.max))
    return tf.cast(value, dtype)


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: Optional[str] = None) -> Any:
    """Converts between image dtypes, scaling integers to [0, 1] floats and back (TF's)."""
    image = tf.convert_to_tensor(image)
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return tf.identity(image)
    if image.dtype.is_integer and dtype.is_integer:
        scale_in, scale_out = image.dtype.max, dtype.max
        if scale_in > scale_out:
            scaled = tf.math.floordiv(image, tf.cast((scale_in + 1) // (scale_out + 1),
                                                     image.dtype))
            return _saturate_cast(scaled, dtype) if saturate else tf.cast(scaled, dtype)
        cast = _saturate_cast(image, dtype) if saturate else tf.cast(image, dtype)
        return cast * tf.cast((scale_out + 1) // (scale_in + 1), dtype)
    if image.dtype.is_floating and dtype.is_floating:
        return tf.cast(image, dtype)
    if image.dtype.is_integer:
        return tf.cast(image, dtype) * tf.cast(1.0 / image.dtype.max, dtype)
    scaled = image * tf.cast(dtype.max + 0.5, image.dtype)
    return _saturate_cast(scaled, dtype) if saturate else tf.cast(scaled, dtype)


def _as_float(image: Any) -> tuple:
    image = tf.convert_to_tensor(image)
    if image.dtype in (tf.float16, tf.float32):
        return image, image.dtype
    return convert_image_dtype(image, tf.float32), image.dtype


def adjust_brightness(image: Any, delta: Any) -> Any:
    """`image + delta` (in [0, 1] floats for integer images, saturated back)."""
    flt, dtype = _as_float(image)
    return convert_image_dtype(flt + tf.cast(delta, flt.dtype), dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """(x - mean) * factor + mean, the mean per image and channel over height and width."""
    flt, dtype = _as_float(images)
    if flt.shape.rank is not None and flt.shape.rank < 3:
        raise tf.errors.InvalidArgumentError(
            f"input must be at least 3-D, got shape{flt.shape.as_list()} [Op:AdjustContrastv2]")
    mean = tf.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    factor = tf.cast(contrast_factor, flt.dtype)
    return convert_image_dtype(_no_gradient("AdjustContrastv2", (flt - mean) * factor + mean),
                               dtype, saturate=True)


def adjust_gamma(image: Any, gamma: float = 1, gain: float = 1) -> Any:
    """gain * image ** gamma (in [0, 1] floats for integer images)."""
    flt, dtype = _as_float(image)
    if not isinstance(gamma, tf.Tensor) and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    return convert_image_dtype(gain * flt ** gamma, dtype, saturate=True)


def rgb_to_grayscale(images: Any, name: Optional[str] = None) -> Any:
    """Luma (0.2989 R + 0.5870 G + 0.1140 B) with a channel axis of 1, in the input dtype."""
    images = tf.convert_to_tensor(images)
    flt = convert_image_dtype(images, tf.float32)
    gray = tf.tensordot(flt, tf.constant([0.2989, 0.5870, 0.1140]), [[-1], [-1]])
    return convert_image_dtype(tf.expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images: Any, name: Optional[str] = None) -> Any:
    """The one channel repeated three times."""
    images = tf.convert_to_tensor(images)
    if images.shape.rank is not None and (images.shape.rank < 2 or images.shape[-1] != 1):
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return tf.tile(images, [1] * (images.shape.rank - 1) + [3])


def per_image_standardization(image: Any) -> Any:
    """(x - mean) / max(stddev, 1/sqrt(pixels)) per image, in float32."""
    image = tf.convert_to_tensor(image)
    if image.shape.rank is not None and image.shape.rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    image = tf.cast(image, tf.float32)
    num_pixels = int(np.prod(image.shape.as_list()[-3:]))
    mean = tf.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = tf.math.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    adjusted = tf.maximum(stddev, tf.math.rsqrt(tf.cast(num_pixels, tf.float32)))
    return tf.math.divide(image - mean, adjusted)
