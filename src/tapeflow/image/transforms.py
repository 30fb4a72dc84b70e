"""`tf.image`'s flips, rotations, crops and pads, and Keras's affine transform
(ImageProjectiveTransformV3, for its augmentation layers)."""

from __future__ import annotations

import math
from typing import Any, Optional


import tapeflow as tf
from tapeflow.image._common import (_F32, _as_f32, _batched, _image_hw, _image_rank,
                                    _int32, _needs_run_time, _require, _run_time_hw,
                                    _zeros_around)
from tapeflow.image.resize import ResizeMethod, resize
from tapeflow.ops._static import is_traced, reads_variables

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


@reads_variables
def rot90(image: Any, k: int = 1, name: Optional[str] = None) -> Any:
    """Rotates counter-clockwise by `k` quarter turns. A traced `k` picks the rotation as the
    graph runs (TF's case: height and width then unknown while tracing)."""
    image = _image_rank(image)
    if is_traced(k):
        turns = tf.convert_to_tensor(k, tf.int32) % 4
        return tf.switch_case(turns, [lambda q=q: _rotated(image, q) for q in range(4)])
    return _rotated(image, int(k) % 4)


def _rotated(image: Any, k: int) -> Any:
    """`image` turned by `k` in 0..3 quarter turns."""
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


@reads_variables
def central_crop(image: Any, central_fraction: float) -> Any:
    """The central `central_fraction` of the height and width (TF's rounding of the start)."""
    image = tf.convert_to_tensor(image)
    if is_traced(central_fraction):   # read when the graph runs, its check an Assert (TF's)
        central_fraction = tf.cast(central_fraction, tf.float64)
        _require(tf.logical_and(central_fraction > 0.0, central_fraction <= 1.0),
                 "central_fraction must be within (0, 1]")
    elif central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    elif central_fraction == 1.0:
        return image
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had "
                         f"rank = {rank}.")
    images = image if rank == 4 else tf.expand_dims(image, 0)
    if _needs_run_time(images, central_fraction):
        out = _central_crop_run_time(images, central_fraction)
        return out if rank == 4 else tf.squeeze(out, 0)
    height, width = _image_hw(images, "tf.image.central_crop")
    top = int((float(height) - float(height) * central_fraction) / 2)
    left = int((float(width) - float(width) * central_fraction) / 2)
    if rank == 3:
        return image[top:height - top, left:width - left, :]
    return image[:, top:height - top, left:width - left, :]


def _central_crop_run_time(images: Any, central_fraction: float) -> Any:
    """central_crop of 4-D `images` whose unknown height or width is read as the graph runs
    (TF's float64 start, truncated)."""
    def start(size: Any) -> Any:
        if isinstance(size, int) and not isinstance(central_fraction, tf.Tensor):
            return int((float(size) - float(size) * central_fraction) / 2)
        size = tf.cast(size, tf.float64)
        return tf.cast((size - size * central_fraction) / 2, tf.int32)

    height, width = _run_time_hw(images)
    top, left = start(height), start(width)
    return _gather_box(images, top, left, height - 2 * top, width - 2 * left)


def _gather_box(images: Any, top: Any, left: Any, rows: Any, cols: Any) -> Any:
    """The `rows` x `cols` box at (`top`, `left`) of 4-D `images`, each a Python int or an
    int32 scalar read as the graph runs (a gather: its index lengths are static where the
    sizes are, and it has the slice's gradient)."""
    out = tf.gather(images, tf.range(rows) + top, axis=1)
    return tf.gather(out, tf.range(cols) + left, axis=2)


@reads_variables
def crop_to_bounding_box(image: Any, offset_height: int, offset_width: int,
                         target_height: int, target_width: int) -> Any:
    """The box of `target_height` x `target_width` at (`offset_height`, `offset_width`).
    Traced with a tensor size or offset (or an unknown height or width), TF's checks run as
    the graph runs and raise InvalidArgumentError."""
    images, unbatched = _batched(image, "crop_to_bounding_box")
    if _needs_run_time(images, offset_height, offset_width, target_height, target_width):
        out = _crop_run_time(images, *(_int32(v) for v in (
            offset_height, offset_width, target_height, target_width)))
        return tf.squeeze(out, 0) if unbatched else out
    height, width = _image_hw(images, "tf.image.crop_to_bounding_box")
    _check_crop(height, width, offset_height, offset_width, target_height, target_width)
    out = images[:, offset_height:offset_height + target_height,
                 offset_width:offset_width + target_width, :]
    return tf.squeeze(out, 0) if unbatched else out


def _crop_run_time(images: Any, offset_height: Any, offset_width: Any, target_height: Any,
                   target_width: Any) -> Any:
    height, width = _run_time_hw(images)
    _check_crop(height, width, offset_height, offset_width, target_height, target_width)
    return _gather_box(images, offset_height, offset_width, target_height, target_width)


def _check_crop(height: Any, width: Any, offset_height: Any, offset_width: Any,
                target_height: Any, target_width: Any) -> None:
    """crop_to_bounding_box's checks, in TF's order and words (see `_require`: Python values
    are checked now, tensors when the graph runs)."""
    _require(offset_width >= 0, "offset_width must be >= 0.")
    _require(offset_height >= 0, "offset_height must be >= 0.")
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    _require(width >= target_width + offset_width, "width must be >= target + offset.")
    _require(height >= target_height + offset_height, "height must be >= target + offset.")


@reads_variables
def pad_to_bounding_box(image: Any, offset_height: int, offset_width: int,
                        target_height: int, target_width: int) -> Any:
    """`image` placed at (`offset_height`, `offset_width`) in zeros of the target size.
    Traced with a tensor size or offset (or an unknown height or width), TF's checks run as
    the graph runs and raise InvalidArgumentError."""
    images, unbatched = _batched(image, "pad_to_bounding_box")
    if _needs_run_time(images, offset_height, offset_width, target_height, target_width):
        out = _pad_run_time(images, *(_int32(v) for v in (
            offset_height, offset_width, target_height, target_width)))
        return tf.squeeze(out, 0) if unbatched else out
    height, width = _image_hw(images, "tf.image.pad_to_bounding_box")
    after_h, after_w = _padding_after(height, width, offset_height, offset_width,
                                      target_height, target_width)
    out = tf.pad(images, [[0, 0], [offset_height, after_h], [offset_width, after_w], [0, 0]])
    return tf.squeeze(out, 0) if unbatched else out


def _padding_after(height: Any, width: Any, offset_height: Any, offset_width: Any,
                   target_height: Any, target_width: Any) -> tuple:
    """pad_to_bounding_box's (bottom, right) paddings, after its checks in TF's order and words
    (see `_require`: Python values are checked now, tensors when the graph runs)."""
    after_w = target_width - offset_width - width
    after_h = target_height - offset_height - height
    _require(offset_height >= 0, "offset_height must be >= 0")
    _require(offset_width >= 0, "offset_width must be >= 0")
    _require(after_w >= 0, "width must be <= target - offset")
    _require(after_h >= 0, "height must be <= target - offset")
    return after_h, after_w


def _pad_run_time(images: Any, offset_height: Any, offset_width: Any, target_height: Any,
                  target_width: Any) -> Any:
    height, width = _run_time_hw(images)
    after_h, after_w = _padding_after(height, width, offset_height, offset_width,
                                      target_height, target_width)
    out = _zeros_around(_zeros_around(images, 1, offset_height, after_h), 2, offset_width,
                        after_w)
    static = [target_height if isinstance(target_height, int) else None,
              target_width if isinstance(target_width, int) else None]
    if static == [None, None]:
        return out
    return tf.ensure_shape(out, [images.shape[0]] + static + [images.shape[3]])


def _max(x: Any, y: Any) -> Any:
    return tf.maximum(x, y) if isinstance(x, tf.Tensor) or isinstance(y, tf.Tensor) \
        else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return tf.minimum(x, y) if isinstance(x, tf.Tensor) or isinstance(y, tf.Tensor) \
        else min(x, y)


@reads_variables
def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Any:
    """Centrally crops and/or zero-pads to the target size."""
    images, unbatched = _batched(image, "resize_image_with_crop_or_pad")
    if _needs_run_time(images, target_height, target_width):
        out = _crop_or_pad_run_time(images, _int32(target_height), _int32(target_width))
        return tf.squeeze(out, 0) if unbatched else out
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    height, width = _image_hw(images, "tf.image.resize_with_crop_or_pad")
    width_diff, height_diff = target_width - width, target_height - height
    cropped = crop_to_bounding_box(images, max(-height_diff // 2, 0), max(-width_diff // 2, 0),
                                   min(target_height, height), min(target_width, width))
    out = pad_to_bounding_box(cropped, max(height_diff // 2, 0), max(width_diff // 2, 0),
                              target_height, target_width)
    return tf.squeeze(out, 0) if unbatched else out


def _crop_or_pad_run_time(images: Any, target_height: Any, target_width: Any) -> Any:
    """TF's resize_with_crop_or_pad with its sizes as ops: its checks first, then the crop's
    and the pad's (which find nothing more to refuse)."""
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    height, width = _run_time_hw(images)
    width_diff, height_diff = target_width - width, target_height - height
    cropped = crop_to_bounding_box(images, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                   _min(target_height, height), _min(target_width, width))
    return pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0),
                               target_height, target_width)


@reads_variables
def resize_with_pad(image: Any, target_height: int, target_width: int,
                    method: str = ResizeMethod.BILINEAR, antialias: bool = False) -> Any:
    """Resizes keeping the aspect ratio, then zero-pads to the target size."""
    images, unbatched = _batched(image, "resize_image_with_pad")
    if _needs_run_time(images, target_height, target_width):
        out = _resize_with_pad_run_time(images, _int32(target_height), _int32(target_width),
                                        method, antialias)
        return tf.squeeze(out, 0) if unbatched else out
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    height, width = _image_hw(images, "tf.image.resize_with_pad")
    ratio = max(_F32(width) / _F32(target_width), _F32(height) / _F32(target_height))
    new_h, new_w = _F32(height) / ratio, _F32(width) / ratio
    pad_h = max(0, int(math.floor((_F32(target_height) - new_h) / _F32(2))))
    pad_w = max(0, int(math.floor((_F32(target_width) - new_w) / _F32(2))))
    resized = resize(images, [int(math.floor(new_h)), int(math.floor(new_w))], method,
                     antialias=antialias)
    out = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return tf.squeeze(out, 0) if unbatched else out


def _resize_with_pad_run_time(images: Any, target_height: Any, target_width: Any, method: str,
                              antialias: bool) -> Any:
    """TF's _resize_image_with_pad_common, its float32 arithmetic as ops."""
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    height, width = (tf.cast(d, tf.float32) for d in _run_time_hw(images))
    f_target_h, f_target_w = tf.cast(target_height, tf.float32), tf.cast(target_width, tf.float32)
    ratio = tf.maximum(width / f_target_w, height / f_target_h)
    new_h, new_w = height / ratio, width / ratio
    pad_h = tf.maximum(0, tf.cast(tf.floor((f_target_h - new_h) / 2), tf.int32))
    pad_w = tf.maximum(0, tf.cast(tf.floor((f_target_w - new_w) / 2), tf.int32))
    resized = resize(images, [tf.cast(tf.floor(new_h), tf.int32),
                              tf.cast(tf.floor(new_w), tf.int32)], method, antialias=antialias)
    return pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)


# -- Keras's affine transform (ImageProjectiveTransformV3) -------------------------------------

def _map_coordinate(coord: Any, size: Any, fill_mode: str) -> Any:
    """TF's MapCoordinate: folds out-of-image coordinates back in (reflect, wrap), clamps
    them (nearest), or leaves them (constant). `size` is a Python int, or an int32 scalar
    read as the graph runs."""
    length = tf.constant(float(size)) if isinstance(size, int) else tf.cast(size, tf.float32)
    if fill_mode == "constant":
        return coord
    if fill_mode == "nearest":
        return tf.clip_by_value(coord, 0.0, length - 1.0)
    if isinstance(size, int):
        if size <= 1:
            return tf.zeros_like(coord)
        return tf.clip_by_value(_fold(coord, length, fill_mode), 0.0, length - 1.0)
    # the size-1 case chosen as the graph runs (the other divides by zero there, unused)
    folded = tf.clip_by_value(_fold(coord, length, fill_mode), 0.0, length - 1.0)
    return tf.where(size <= 1, tf.zeros_like(coord), folded)


def _fold(coord: Any, length: Any, fill_mode: str) -> Any:
    """Coordinates outside [0, length) reflected or wrapped back in (float32 as TF)."""
    if fill_mode == "reflect":
        sz2 = 2.0 * length
        neg = coord + sz2 * tf.cast(tf.cast(-coord / sz2, tf.int64), tf.float32)
        neg = tf.where(neg < -length, neg + sz2, -neg - 1.0)
        pos = coord - sz2 * tf.cast(tf.cast(coord / sz2, tf.int64), tf.float32)
        pos = tf.where(pos >= length, sz2 - pos - 1.0, pos)
        return tf.where(coord < 0.0, neg, tf.where(coord > length - 1.0, pos, coord))
    if fill_mode != "wrap":
        return coord
    sz = length - 1.0
    neg = coord + length * (tf.cast(tf.cast(-coord / sz, tf.int64), tf.float32) + 1.0)
    pos = coord - length * tf.cast(tf.cast(coord / sz, tf.int64), tf.float32)
    return tf.where(coord < 0.0, neg, tf.where(coord > length - 1.0, pos, coord))


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
    height, width = _run_time_hw(images)   # ints, or read as the graph runs
    t = [tf.reshape(transform[:, i], [-1, 1, 1]) for i in range(8)]
    ys = tf.reshape(tf.range(height, dtype=tf.float32), [1, height, 1])
    xs = tf.reshape(tf.range(width, dtype=tf.float32), [1, 1, width])
    projection = t[6] * xs + t[7] * ys + 1.0
    in_x = (t[0] * xs + t[1] * ys + t[2]) / projection
    in_y = (t[3] * xs + t[4] * ys + t[5]) / projection
    x = _map_coordinate(in_x, width, fill_mode)
    y = _map_coordinate(in_y, height, fill_mode)
    batch = tf.shape(images)[0]
    channels = images.shape[-1] if images.shape[-1] is not None else tf.shape(images)[3]
    flat = tf.reshape(images, [-1, channels])
    base = tf.reshape(tf.range(batch) * (height * width), [-1, 1, 1])
    fill = tf.cast(fill_value, images.dtype)
    zero_k = tf.equal(projection, 0.0)

    def read(yi: Any, xi: Any) -> Any:
        inside = (yi >= 0.0) & (yi < _as_f32(height)) & (xi >= 0.0) & (xi < _as_f32(width)) \
            & ~zero_k
        yc = tf.cast(tf.clip_by_value(yi, 0.0, _as_f32(height) - 1.0), tf.int32)
        xc = tf.cast(tf.clip_by_value(xi, 0.0, _as_f32(width) - 1.0), tf.int32)
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
