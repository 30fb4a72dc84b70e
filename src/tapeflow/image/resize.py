"""`tf.image`: resizing, flips, rotations, crops, pads and colour adjustments, as TensorFlow 2.

The resize kernels are TensorFlow's (ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic
with half-pixel centres, ResizeArea, ScaleAndTranslate for lanczos, gaussian, mitchellcubic
and antialiasing) written as gathers of a few source rows and columns weighted by constant
per-axis weights, computed in float32 in TF's order. Being made of differentiable ops, their
gradients are TF's ResizeBilinearGrad / ResizeNearestNeighborGrad / ResizeBicubicGrad /
ScaleAndTranslateGrad (the transposed gathers); ResizeArea has none in TF and raises here too.
The weights need the image's height and width as Python ints (static shapes under
`tf.function`). `affine_transform` is Keras's ImageProjectiveTransformV3 for its augmentation
layers.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework import dtypes as _dtypes

__all__ = ["ResizeMethod", "resize", "flip_left_right", "flip_up_down", "rot90", "transpose",
           "central_crop", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_with_crop_or_pad", "resize_with_pad", "adjust_brightness",
           "adjust_contrast", "adjust_gamma", "rgb_to_grayscale", "grayscale_to_rgb",
           "convert_image_dtype", "per_image_standardization"]


class ResizeMethod:
    """The `method` names of `tf.image.resize`."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_F32 = np.float32


# -- per-axis sampling weights (NumPy, float32 as TF's kernels) --------------------------------

def _half_pixel(out_size: int, in_size: int, offset: float) -> np.ndarray:
    """(i + 0.5) * in/out - offset for every output index i, in float32 as TF."""
    scale = _F32(in_size) / _F32(out_size)
    return (np.arange(out_size, dtype=_F32) + _F32(0.5)) * scale - _F32(offset)


def _bilinear_taps(out_size: int, in_size: int) -> tuple:
    """TF's CachedInterpolation: lower, upper and lerp of each output index."""
    src = _half_pixel(out_size, in_size, 0.5)
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lower, upper, (src - floor).astype(_F32)


def _nearest_index(out_size: int, in_size: int) -> np.ndarray:
    """ResizeNearestNeighbor's source index: floor((i + 0.5) * in/out), clamped."""
    src = _half_pixel(out_size, in_size, 0.0)
    return np.clip(np.floor(src).astype(np.int64), 0, in_size - 1)


def _keys_table() -> np.ndarray:
    """TF's 1025-entry Keys cubic (a = -0.5) coefficient table of ResizeBicubic."""
    a = -0.5
    x = (np.arange(1025, dtype=_F32) / _F32(1024)).astype(np.float64)
    table = np.empty((1025, 2), _F32)
    table[:, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    table[:, 1] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return table


def _bicubic_taps(out_size: int, in_size: int) -> tuple:
    """ResizeBicubic's four indices and weights per output (half-pixel, Keys cubic, taps
    outside the image dropped and the rest renormalized)."""
    table = _keys_table()
    src = _half_pixel(out_size, in_size, 0.5)
    base = np.floor(src).astype(np.int64)
    offset = np.rint((src - base) * _F32(1024)).astype(np.int64)
    raw = np.stack([table[offset, 1], table[offset, 0], table[1024 - offset, 0],
                    table[1024 - offset, 1]], axis=1)
    want = base[:, None] + np.arange(-1, 3)
    index = np.clip(want, 0, in_size - 1)
    weights = np.where(index == want, raw, _F32(0)).astype(_F32)
    total = weights[:, 0] + weights[:, 1] + weights[:, 2] + weights[:, 3]
    ok = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
    weights = np.where(ok[:, None], weights * (_F32(1) / np.where(ok, total, 1))[:, None],
                       weights)
    return index, weights.astype(_F32)


def _area_taps(out_size: int, in_size: int) -> tuple:
    """ResizeArea's covered source cells and their coverage per output (padded with weight-0
    taps to a common count)."""
    scale = _F32(in_size) / _F32(out_size)
    rows = []
    for i in range(out_size):
        lo, hi = _F32(i) * scale, _F32(i + 1) * scale
        cells = []
        for j in range(int(math.floor(lo)), int(math.ceil(hi))):
            if j < lo:
                w = scale if j + 1 > hi else _F32(j + 1) - lo
            else:
                w = hi - _F32(j) if j + 1 > hi else _F32(1)
            cells.append((min(max(j, 0), in_size - 1), _F32(w)))
        rows.append(cells)
    width = max(len(c) for c in rows)
    index = np.zeros((out_size, width), np.int64)
    weights = np.zeros((out_size, width), _F32)
    for i, cells in enumerate(rows):
        for t, (j, w) in enumerate(cells):
            index[i, t], weights[i, t] = j, w
    return index, weights, scale


def _lanczos(radius: float):
    def kernel(x: np.ndarray) -> np.ndarray:
        pi = 3.14159265359
        x = np.abs(x).astype(np.float64)
        safe = np.where(x <= 1e-3, 1.0, x)
        out = radius * np.sin(pi * safe) * np.sin(pi * safe / radius) / (pi * pi * safe * safe)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, out))
    return kernel, float(radius)


def _keys_cubic(x: np.ndarray) -> np.ndarray:
    x = np.abs(x).astype(_F32)
    far = ((_F32(-0.5) * x + _F32(2.5)) * x - _F32(4)) * x + _F32(2)
    near = ((_F32(1.5) * x - _F32(2.5)) * x) * x + _F32(1)
    return np.where(x >= 2, 0, np.where(x >= 1, far, near))


def _mitchell(x: np.ndarray) -> np.ndarray:
    x = np.abs(x).astype(_F32)
    far = (((_F32(-7 / 18) * x + _F32(2)) * x - _F32(10 / 3)) * x + _F32(16 / 9))
    near = (((_F32(7 / 6) * x - _F32(2)) * x) * x + _F32(8 / 9))
    return np.where(x >= 2, 0, np.where(x >= 1, far, near))


def _gaussian(x: np.ndarray) -> np.ndarray:
    x = np.abs(x).astype(np.float64)
    sigma = 1.5 / 3.0
    return np.where(x >= 1.5, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


_KERNELS = {
    "triangle": (lambda x: np.maximum(_F32(1) - np.abs(x).astype(_F32), 0), 1.0),
    "keyscubic": (_keys_cubic, 2.0),
    "mitchellcubic": (_mitchell, 2.0),
    "gaussian": (_gaussian, 1.5),
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
}


def _span_taps(out_size: int, in_size: int, kernel_type: str, antialias: bool) -> tuple:
    """ScaleAndTranslate's spans (translation 0): for each output the source indices and
    normalized kernel weights."""
    kernel, radius = _KERNELS[kernel_type]
    scale = _F32(out_size) / _F32(in_size)
    inv_scale = _F32(1.0 / float(scale))
    kernel_scale = max(inv_scale, _F32(1)) if antialias else _F32(1)
    span = min(2 * int(math.ceil(radius * kernel_scale)) + 1, in_size)
    index = np.zeros((out_size, span), np.int64)
    weights = np.zeros((out_size, span), _F32)
    for x in range(out_size):
        sample = (_F32(x) + _F32(0.5)) * inv_scale
        if sample < 0 or sample > in_size:
            continue
        start = int(math.ceil(sample - _F32(radius) * kernel_scale - _F32(0.5)))
        end = int(math.floor(sample + _F32(radius) * kernel_scale - _F32(0.5)))
        start = min(max(start, 0), in_size - 1)
        end = min(max(end, 0), in_size - 1) + 1
        src = np.arange(start, end)
        pos = (src.astype(_F32) + _F32(0.5) - sample) * (_F32(1) / kernel_scale)
        w = np.asarray(kernel(pos), _F32)
        total = np.sum(w, dtype=_F32)
        index[x, :end - start] = src
        index[x, end - start:] = start
        if abs(total) >= 1000 * np.finfo(_F32).tiny:
            weights[x, :end - start] = w * (_F32(1) / total)
    return index, weights


# -- applying weights along an axis (tapeflow ops, so differentiable) ---------------------------

def _along(weights: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A weight column shaped to broadcast against a gather along `axis`."""
    return weights.reshape((-1,) + (1,) * (rank - axis - 1))


def _weighted_sum(x: Any, index: np.ndarray, weights: np.ndarray, axis: int) -> Any:
    """sum_t weights[:, t] * x[index[:, t]] along `axis`, added left to right as TF."""
    rank = x.shape.rank
    out = None
    for t in range(index.shape[1]):
        term = tf.gather(x, index[:, t], axis=axis) * _along(weights[:, t], axis, rank)
        out = term if out is None else out + term
    return out


def _lerp(x: Any, lower: np.ndarray, upper: np.ndarray, frac: np.ndarray, axis: int) -> Any:
    a = tf.gather(x, lower, axis=axis)
    b = tf.gather(x, upper, axis=axis)
    return a + (b - a) * _along(frac, axis, x.shape.rank)


def _resize_bilinear(x: Any, size: tuple, in_hw: tuple) -> Any:
    # TF interpolates along the width (top and bottom rows), then along the height.
    x = _lerp(x, *_bilinear_taps(size[1], in_hw[1]), axis=2)
    return _lerp(x, *_bilinear_taps(size[0], in_hw[0]), axis=1)


def _resize_nearest(x: Any, size: tuple, in_hw: tuple) -> Any:
    x = tf.gather(x, _nearest_index(size[0], in_hw[0]), axis=1)
    return tf.gather(x, _nearest_index(size[1], in_hw[1]), axis=2)


def _resize_bicubic(x: Any, size: tuple, in_hw: tuple) -> Any:
    x = _weighted_sum(x, *_bicubic_taps(size[0], in_hw[0]), axis=1)
    return _weighted_sum(x, *_bicubic_taps(size[1], in_hw[1]), axis=2)


def _resize_area(x: Any, size: tuple, in_hw: tuple) -> Any:
    rows, row_w, row_scale = _area_taps(size[0], in_hw[0])
    cols, col_w, col_scale = _area_taps(size[1], in_hw[1])

    out = _weighted_sum(_weighted_sum(x, cols, col_w, axis=2), rows, row_w, axis=1)
    return _no_gradient("ResizeArea", out * _F32(1.0 / float(row_scale * col_scale)))


def _no_gradient(op: str, value: Any) -> Any:
    """`value`, whose gradient raises TF's LookupError (TF registers none for `op`)."""
    @tf.custom_gradient
    def blocked(v: Any) -> Any:
        def grad(*_: Any) -> Any:
            raise LookupError(f"gradient registry has no entry for: {op}")
        return tf.identity(v), grad
    return blocked(value)


def _resize_spans(x: Any, size: tuple, in_hw: tuple, kernel: str, antialias: bool) -> Any:
    x = _weighted_sum(x, *_span_taps(size[0], in_hw[0], kernel, antialias), axis=1)
    return _weighted_sum(x, *_span_taps(size[1], in_hw[1], kernel, antialias), axis=2)


_SPAN_KERNELS = {"lanczos3": "lanczos3", "lanczos5": "lanczos5", "gaussian": "gaussian",
                 "mitchellcubic": "mitchellcubic"}
_ANTIALIAS_KERNELS = {"bilinear": "triangle", "bicubic": "keyscubic"}


def _batched(images: Any, op: str) -> tuple:
    """(4-D images, whether a batch axis was added); TF's rank error otherwise."""
    images = tf.convert_to_tensor(images)
    rank = images.shape.rank
    if rank is None:
        raise ValueError("'images' contains no shape.")
    if rank == 3:
        return tf.expand_dims(images, 0), True
    if rank != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    return images, False


def _static_size(size: Any) -> tuple:
    """`size` as two Python ints (tapeflow's resize weights are built from them)."""
    if isinstance(size, tf.Tensor):
        try:
            size = size.numpy()
        except Exception:  # noqa: BLE001 - a traced size
            raise NotImplementedError("tf.image.resize: tapeflow needs `size` as Python ints "
                                      "or a constant (its weights are built from it), not a "
                                      "traced tensor.") from None
    size = np.asarray(size)
    if size.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if not np.issubdtype(size.dtype, np.integer):
        raise ValueError("'size' must be a 1-D int32 Tensor")
    return int(size[0]), int(size[1])


def _image_hw(images: Any, op: str) -> tuple:
    height, width = images.shape.as_list()[1:3]
    if height is None or width is None:
        raise NotImplementedError(f"{op}: tapeflow needs the images' height and width known "
                                  f"statically (got shape {images.shape}); give the "
                                  f"tf.function an input_signature with them.")
    return height, width


def resize(images: Any, size: Any, method: str = ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: Optional[str] = None) -> Any:
    """Resizes `images` (a [batch,] height, width, channels tensor) to `size`, as
    `tf.image.resize`: float32 out for every method but 'nearest' (which keeps the dtype)."""
    images, unbatched = _batched(images, "resize")
    method = str(method).lower()
    if method not in ("bilinear", "nearest", "bicubic", "area") and method not in _SPAN_KERNELS:
        raise ValueError(f"Resize method is not implemented: {method}")
    height, width = _image_hw(images, "tf.image.resize")
    size = _static_size(size)
    if preserve_aspect_ratio:
        factor = min(_F32(size[0]) / _F32(height), _F32(size[1]) / _F32(width))
        size = (int(np.round(factor * _F32(height))), int(np.round(factor * _F32(width))))
    if method == "nearest":
        out = _resize_nearest(images, size, (height, width))
    else:
        x = images if images.dtype == tf.float32 else tf.cast(images, tf.float32)
        if method in _SPAN_KERNELS or (antialias and method in _ANTIALIAS_KERNELS):
            kernel = _SPAN_KERNELS.get(method) or _ANTIALIAS_KERNELS[method]
            out = _resize_spans(x, size, (height, width), kernel, antialias)
        elif method == "bilinear":
            out = _resize_bilinear(x, size, (height, width))
        elif method == "bicubic":
            out = _resize_bicubic(x, size, (height, width))
        else:
            out = _resize_area(x, size, (height, width))
    return tf.squeeze(out, 0) if unbatched else out


# -- flips, rotations, crops and pads -----------------------------------------------------------

def _image_rank(image: Any) -> Any:
    image = tf.convert_to_tensor(image)
    rank = image.shape.rank
    if rank is not None and rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")
    return image


def flip_left_right(image: Any) -> Any:
    """Reverses the width axis."""
    image = _image_rank(image)
    return tf.reverse(image, [image.shape.rank - 2])


def flip_up_down(image: Any) -> Any:
    """Reverses the height axis."""
    image = _image_rank(image)
    return tf.reverse(image, [image.shape.rank - 3])


def rot90(image: Any, k: int = 1, name: Optional[str] = None) -> Any:
    """Rotates counter-clockwise by `k` quarter turns (`k` a Python int here)."""
    image = _image_rank(image)
    k = int(k) % 4
    h = image.shape.rank - 3
    perm = [0, 2, 1, 3] if image.shape.rank == 4 else [1, 0, 2]
    if k == 1:
        return tf.transpose(tf.reverse(image, [h + 1]), perm)
    if k == 2:
        return tf.reverse(image, [h, h + 1])
    if k == 3:
        return tf.reverse(tf.transpose(image, perm), [h + 1])
    return image


def transpose(image: Any, name: Optional[str] = None) -> Any:
    """Swaps height and width."""
    image = _image_rank(image)
    return tf.transpose(image, [0, 2, 1, 3] if image.shape.rank == 4 else [1, 0, 2])


def central_crop(image: Any, central_fraction: float) -> Any:
    """The central `central_fraction` of the height and width (TF's rounding of the start)."""
    image = tf.convert_to_tensor(image)
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had "
                         f"rank = {rank}.")
    height, width = _image_hw(image if rank == 4 else tf.expand_dims(image, 0),
                              "tf.image.central_crop")
    top = int((float(height) - float(height) * central_fraction) / 2)
    left = int((float(width) - float(width) * central_fraction) / 2)
    if rank == 3:
        return image[top:height - top, left:width - left, :]
    return image[:, top:height - top, left:width - left, :]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def crop_to_bounding_box(image: Any, offset_height: int, offset_width: int,
                         target_height: int, target_width: int) -> Any:
    """The box of `target_height` x `target_width` at (`offset_height`, `offset_width`)."""
    images, unbatched = _batched(image, "crop_to_bounding_box")
    height, width = _image_hw(images, "tf.image.crop_to_bounding_box")
    _check(offset_width >= 0, "offset_width must be >= 0.")
    _check(offset_height >= 0, "offset_height must be >= 0.")
    _check(target_width > 0, "target_width must be > 0.")
    _check(target_height > 0, "target_height must be > 0.")
    _check(width >= target_width + offset_width, "width must be >= target + offset.")
    _check(height >= target_height + offset_height, "height must be >= target + offset.")
    out = images[:, offset_height:offset_height + target_height,
                 offset_width:offset_width + target_width, :]
    return tf.squeeze(out, 0) if unbatched else out


def pad_to_bounding_box(image: Any, offset_height: int, offset_width: int,
                        target_height: int, target_width: int) -> Any:
    """`image` placed at (`offset_height`, `offset_width`) in zeros of the target size."""
    images, unbatched = _batched(image, "pad_to_bounding_box")
    height, width = _image_hw(images, "tf.image.pad_to_bounding_box")
    after_w = target_width - offset_width - width
    after_h = target_height - offset_height - height
    _check(offset_height >= 0, "offset_height must be >= 0")
    _check(offset_width >= 0, "offset_width must be >= 0")
    _check(after_w >= 0, "width must be <= target - offset")
    _check(after_h >= 0, "height must be <= target - offset")
    out = tf.pad(images, [[0, 0], [offset_height, after_h], [offset_width, after_w], [0, 0]])
    return tf.squeeze(out, 0) if unbatched else out


def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Any:
    """Centrally crops and/or zero-pads to the target size."""
    images, unbatched = _batched(image, "resize_image_with_crop_or_pad")
    _check(target_width > 0, "target_width must be > 0.")
    _check(target_height > 0, "target_height must be > 0.")
    height, width = _image_hw(images, "tf.image.resize_with_crop_or_pad")
    width_diff, height_diff = target_width - width, target_height - height
    cropped = crop_to_bounding_box(images, max(-height_diff // 2, 0), max(-width_diff // 2, 0),
                                   min(target_height, height), min(target_width, width))
    out = pad_to_bounding_box(cropped, max(height_diff // 2, 0), max(width_diff // 2, 0),
                              target_height, target_width)
    return tf.squeeze(out, 0) if unbatched else out


def resize_with_pad(image: Any, target_height: int, target_width: int,
                    method: str = ResizeMethod.BILINEAR, antialias: bool = False) -> Any:
    """Resizes keeping the aspect ratio, then zero-pads to the target size."""
    images, unbatched = _batched(image, "resize_image_with_pad")
    height, width = _image_hw(images, "tf.image.resize_with_pad")
    ratio = max(_F32(width) / _F32(target_width), _F32(height) / _F32(target_height))
    new_h, new_w = _F32(height) / ratio, _F32(width) / ratio
    pad_h = max(0, int(math.floor((_F32(target_height) - new_h) / _F32(2))))
    pad_w = max(0, int(math.floor((_F32(target_width) - new_w) / _F32(2))))
    resized = resize(images, [int(math.floor(new_h)), int(math.floor(new_w))], method,
                     antialias=antialias)
    out = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return tf.squeeze(out, 0) if unbatched else out


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


# -- Keras's affine transform (ImageProjectiveTransformV3) -------------------------------------

def _map_coordinate(coord: Any, size: int, fill_mode: str) -> Any:
    """TF's MapCoordinate: folds out-of-image coordinates back in (reflect, wrap), clamps
    them (nearest), or leaves them (constant)."""
    length = tf.constant(float(size))
    if fill_mode == "constant":
        return coord
    if fill_mode != "nearest" and size <= 1:
        return tf.zeros_like(coord)
    if fill_mode == "reflect":
        sz2 = 2.0 * size
        neg = coord + sz2 * tf.cast(tf.cast(-coord / sz2, tf.int64), tf.float32)
        neg = tf.where(neg < -length, neg + sz2, -neg - 1.0)
        pos = coord - sz2 * tf.cast(tf.cast(coord / sz2, tf.int64), tf.float32)
        pos = tf.where(pos >= length, sz2 - pos - 1.0, pos)
        coord = tf.where(coord < 0.0, neg, tf.where(coord > length - 1.0, pos, coord))
    if fill_mode == "wrap":
        sz = float(size - 1)
        neg = coord + length * (tf.cast(tf.cast(-coord / sz, tf.int64), tf.float32) + 1.0)
        pos = coord - length * tf.cast(tf.cast(coord / sz, tf.int64), tf.float32)
        coord = tf.where(coord < 0.0, neg, tf.where(coord > length - 1.0, pos, coord))
    return tf.clip_by_value(coord, 0.0, length - 1.0)


def _round_half_away(x: Any) -> Any:
    """std::round (halves away from zero), not tf.round's halves to even."""
    return tf.sign(x) * tf.floor(tf.abs(x) + 0.5)


def affine_transform(images: Any, transform: Any, interpolation: str = "bilinear",
                     fill_mode: str = "constant", fill_value: float = 0.0) -> Any:
    """TF's ImageProjectiveTransformV3 on NHWC `images` with a (batch, 8) float32
    `transform` [a0, a1, a2, b0, b1, b2, c0, c1]: output pixel (x, y) samples the input at
    ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1.

    Its gradient is TF's: not the exact adjoint but the incoming gradient transformed by the
    inverse transform (fill 0), in `images` only."""
    images = tf.convert_to_tensor(images)
    transform = tf.stop_gradient(tf.cast(transform, tf.float32))

    @tf.custom_gradient
    def project(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            matrices = tf.reshape(tf.concat([transform, tf.ones_like(transform[:, :1])], 1),
                                  [-1, 3, 3])
            flat = tf.cast(tf.reshape(tf.linalg.inv(tf.cast(matrices, tf.float64)), [-1, 9]),
                           tf.float32)
            inverse = (flat / flat[:, 8:9])[:, :8]
            return affine_transform(dy, inverse, interpolation, fill_mode, 0.0)
        return _project(x, transform, interpolation, fill_mode, fill_value), grad
    return project(images)


def _project(images: Any, transform: Any, interpolation: str, fill_mode: str,
             fill_value: float) -> Any:
    height, width = _image_hw(images, "affine_transform")
    t = [tf.reshape(transform[:, i], [-1, 1, 1]) for i in range(8)]
    ys = tf.reshape(tf.range(height, dtype=tf.float32), [1, height, 1])
    xs = tf.reshape(tf.range(width, dtype=tf.float32), [1, 1, width])
    projection = t[6] * xs + t[7] * ys + 1.0
    in_x = (t[0] * xs + t[1] * ys + t[2]) / projection
    in_y = (t[3] * xs + t[4] * ys + t[5]) / projection
    x = _map_coordinate(in_x, width, fill_mode)
    y = _map_coordinate(in_y, height, fill_mode)
    batch = tf.shape(images)[0]
    channels = images.shape[-1]
    flat = tf.reshape(images, [-1, channels])
    base = tf.reshape(tf.range(batch) * (height * width), [-1, 1, 1])
    fill = tf.cast(fill_value, images.dtype)
    zero_k = tf.equal(projection, 0.0)

    def read(yi: Any, xi: Any) -> Any:
        inside = (yi >= 0.0) & (yi < float(height)) & (xi >= 0.0) & (xi < float(width)) \
            & ~zero_k
        yc = tf.cast(tf.clip_by_value(yi, 0.0, height - 1.0), tf.int32)
        xc = tf.cast(tf.clip_by_value(xi, 0.0, width - 1.0), tf.int32)
        values = tf.gather(flat, base + yc * width + xc)
        return tf.where(inside[..., None], values, fill)

    if interpolation == "nearest":
        return read(_round_half_away(y), _round_half_away(x))
    y0, x0 = tf.floor(y), tf.floor(x)
    y1, x1 = y0 + 1.0, x0 + 1.0
    dtype = images.dtype
    wx0, wx1 = tf.cast(x1 - x, dtype)[..., None], tf.cast(x - x0, dtype)[..., None]
    wy0, wy1 = tf.cast(y1 - y, dtype)[..., None], tf.cast(y - y0, dtype)[..., None]
    top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
    bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
    out = wy0 * top + wy1 * bottom
    return tf.where(zero_k[..., None], fill, out)
