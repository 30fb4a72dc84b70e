"""`tf.image`'s flips, rotations, crops and pads, and Keras's affine transform
(ImageProjectiveTransformV3, for its augmentation layers)."""

from __future__ import annotations

import math
from typing import Any, Optional


import tapeflow as tf
from tapeflow.image._common import _F32, _batched, _check, _image_hw, _image_rank
from tapeflow.image.resize import ResizeMethod, resize

__all__ = ["flip_left_right", "flip_up_down", "rot90", "transpose", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
           "resize_with_pad"]

# -- flips, rotations, crops and pads -----------------------------------------------------------

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
