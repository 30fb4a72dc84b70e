"""`tf.image`'s random augmentations: the legacy stateful `random_*` ops (drawn with
`tf.random.uniform(seed=...)` under the global seed, as TF's Python does, so a
`tf.random.set_seed` + op seed gives TF's numbers) and the `stateless_random_*` ops (drawn with
`tf.random.stateless_uniform`)."""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import tapeflow as tf
from tapeflow.ops.control_deps import get_static_value
from tapeflow.image.color import (adjust_brightness, adjust_contrast, adjust_hue,
                                  adjust_jpeg_quality, adjust_saturation)

__all__ = ["random_brightness", "random_contrast", "random_saturation", "random_hue",
           "random_flip_left_right", "random_flip_up_down", "random_crop",
           "random_jpeg_quality", "stateless_random_brightness", "stateless_random_contrast",
           "stateless_random_saturation", "stateless_random_hue",
           "stateless_random_flip_left_right", "stateless_random_flip_up_down",
           "stateless_random_crop", "stateless_random_jpeg_quality"]


def _stateful(seed: Optional[int]) -> Callable:
    return functools.partial(tf.random.uniform, seed=seed)


def _stateless(seed: Any) -> Callable:
    return functools.partial(tf.random.stateless_uniform, seed=seed)


# -- flips ------------------------------------------------------------------------------------

def _random_flip(image: Any, flip_index: int, draw: Callable) -> Any:
    """TF's _random_flip: one draw < 0.5 flips a 3-D image; a 4-D batch draws one number per
    image and blends by its rounding."""
    image = tf.convert_to_tensor(image)
    rank = image.shape.rank
    if rank is not None and rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    if rank == 3:
        flip = draw(shape=[], minval=0, maxval=1.0) < 0.5
        return tf.cond(flip, lambda: tf.reverse(image, [flip_index]), lambda: image)
    if rank == 4:
        batch = tf.shape(image)[0]
        flips = tf.round(tf.reshape(draw(shape=[batch], minval=0, maxval=1.0),
                                    [batch, 1, 1, 1]))
        flips = tf.cast(flips, image.dtype)
        flipped = tf.reverse(image, [flip_index + 1])
        return flips * flipped + (1 - flips) * image
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def random_flip_left_right(image: Any, seed: Optional[int] = None) -> Any:
    """Flips the width axis of each image with probability 1/2 (TF's draws)."""
    return _random_flip(image, 1, _stateful(seed))


def random_flip_up_down(image: Any, seed: Optional[int] = None) -> Any:
    """Flips the height axis of each image with probability 1/2 (TF's draws)."""
    return _random_flip(image, 0, _stateful(seed))


def stateless_random_flip_left_right(image: Any, seed: Any) -> Any:
    """Flips the width axis with probability 1/2, determined by the shape-[2] `seed`."""
    return _random_flip(image, 1, _stateless(seed))


def stateless_random_flip_up_down(image: Any, seed: Any) -> Any:
    """Flips the height axis with probability 1/2, determined by the shape-[2] `seed`."""
    return _random_flip(image, 0, _stateless(seed))


# -- colour -----------------------------------------------------------------------------------

def _check_delta(max_delta: float, hue: bool = False) -> None:
    if hue and max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_range(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image: Any, max_delta: float, seed: Optional[int] = None) -> Any:
    """`adjust_brightness` by a delta drawn uniformly from [-max_delta, max_delta)."""
    _check_delta(max_delta)
    return adjust_brightness(image, tf.random.uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_brightness(image: Any, max_delta: float, seed: Any) -> Any:
    """`adjust_brightness` by a delta from [-max_delta, max_delta) determined by `seed`."""
    _check_delta(max_delta)
    return adjust_brightness(image, tf.random.stateless_uniform(
        shape=[], minval=-max_delta, maxval=max_delta, seed=seed))


def random_contrast(image: Any, lower: float, upper: float, seed: Optional[int] = None) -> Any:
    """`adjust_contrast` by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, tf.random.uniform([], lower, upper, seed=seed))


def stateless_random_contrast(image: Any, lower: float, upper: float, seed: Any) -> Any:
    """`adjust_contrast` by a factor from [lower, upper) determined by `seed`."""
    _check_range(lower, upper)
    return adjust_contrast(image, tf.random.stateless_uniform(
        shape=[], minval=lower, maxval=upper, seed=seed))


def random_saturation(image: Any, lower: float, upper: float,
                      seed: Optional[int] = None) -> Any:
    """`adjust_saturation` by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, tf.random.uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image: Any, lower: float, upper: float,
                                seed: Any = None) -> Any:
    """`adjust_saturation` by a factor from [lower, upper) determined by `seed`."""
    _check_range(lower, upper)
    return adjust_saturation(image, tf.random.stateless_uniform(
        shape=[], minval=lower, maxval=upper, seed=seed))


def random_hue(image: Any, max_delta: float, seed: Optional[int] = None) -> Any:
    """`adjust_hue` by a delta drawn uniformly from [-max_delta, max_delta) (max_delta <= 0.5)."""
    _check_delta(max_delta, hue=True)
    return adjust_hue(image, tf.random.uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_hue(image: Any, max_delta: float, seed: Any) -> Any:
    """`adjust_hue` by a delta from [-max_delta, max_delta) determined by `seed`."""
    _check_delta(max_delta, hue=True)
    return adjust_hue(image, tf.random.stateless_uniform(
        shape=[], minval=-max_delta, maxval=max_delta, seed=seed))


def _check_jpeg_range(low: int, high: int) -> None:
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                        seed: Optional[int] = None) -> Any:
    """TF re-encodes as JPEG at a random quality; tapeflow has no JPEG codec (raises
    UnimplementedError after TF's argument checks)."""
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    return adjust_jpeg_quality(image, min_jpeg_quality)


def stateless_random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                                  seed: Any) -> Any:
    """As `random_jpeg_quality` (raises UnimplementedError: no JPEG codec)."""
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    return adjust_jpeg_quality(image, min_jpeg_quality)


# -- crops ------------------------------------------------------------------------------------

def _random_crop(value: Any, size: Any, draw: Callable) -> Any:
    value = tf.convert_to_tensor(value)
    size = tf.convert_to_tensor(size, dtype=tf.int32)
    shape = tf.shape(value)
    if size.shape.rank != 1 or size.shape[0] != value.shape.rank:
        raise ValueError(f"Shape must be rank {value.shape.rank} ... `size` must have one entry "
                         f"per dimension of `value` (got size of shape {size.shape} for value of "
                         f"shape {value.shape}).")
    static_size = get_static_value(size)
    if value.shape.is_fully_defined() and static_size is not None:
        if not all(d >= s for d, s in zip(value.shape.as_list(), static_size)):
            raise tf.errors.InvalidArgumentError(
                f"assertion failed: [Need value.shape >= size, got ] "
                f"[{' '.join(str(d) for d in value.shape.as_list())}] "
                f"[{' '.join(str(int(s)) for s in static_size)}]")
    else:
        tf.debugging.assert_greater_equal(shape, size,
                                          message="Need value.shape >= size, got ")
    limit = shape - size + 1
    offset = draw(tf.shape(shape), dtype=tf.int32, maxval=tf.int32.max) % limit
    return tf.slice(value, offset, size)


def random_crop(value: Any, size: Any, seed: Optional[int] = None,
                name: Optional[str] = None) -> Any:
    """A `size` slice of `value` at an offset drawn as TF's (uniform int32 modulo the room)."""
    return _random_crop(value, size, _stateful(seed))


def stateless_random_crop(value: Any, size: Any, seed: Any, name: Optional[str] = None) -> Any:
    """A `size` slice of `value` at an offset determined by `seed`."""
    return _random_crop(value, size, _stateless(seed))
