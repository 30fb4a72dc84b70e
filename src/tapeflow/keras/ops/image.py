"""`keras.ops.image`: Keras 3's image ops, as its TensorFlow backend computes them (on
tapeflow's `tf.image` and `tf.nn` ops), with Keras's argument checks and error texts.

Images are rank 3 (one image) or rank 4 (a batch), channels last unless `data_format` (or
`keras.config.image_data_format()`) says 'channels_first'."""

from __future__ import annotations

import functools
import itertools
import operator
from typing import Any, Callable, Optional

import numpy as np

import tapeflow as tf
from tapeflow import image as tf_image
from tapeflow.keras import backend
from tapeflow.keras.layers.preprocessing.image import _keras_resize, _saturate_cast
from tapeflow.keras.ops import _dtypes
from tapeflow.keras.ops._node import keras_op

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")
AFFINE_TRANSFORM_INTERPOLATIONS = ("nearest", "bilinear")
AFFINE_TRANSFORM_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
MAP_COORDINATES_FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}
SCALE_AND_TRANSLATE_METHODS = {"linear", "bilinear", "trilinear", "cubic", "bicubic",
                               "tricubic", "lanczos3", "lanczos5"}


# -- shared checks and layout moves ------------------------------------------------------------

def _check_images_rank(images: Any, name: str = "images") -> None:
    if len(images.shape) not in (3, 4):
        raise ValueError(f"Invalid {name} rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received input with shape: "
                         f"{name}.shape={images.shape}")


def _check_choice(value: Any, choices: tuple, name: str) -> None:
    if value not in choices:
        raise ValueError(f"Invalid value for argument `{name}`. Expected of one {choices}. "
                         f"Received: {name}={value}")


def _to_last(images: Any, data_format: str) -> Any:
    if data_format != "channels_first":
        return images
    return tf.transpose(images, (0, 2, 3, 1) if len(images.shape) == 4 else (1, 2, 0))


def _to_first(images: Any, data_format: str) -> Any:
    if data_format != "channels_first":
        return images
    return tf.transpose(images, (0, 3, 1, 2) if len(images.shape) == 4 else (2, 0, 1))


def _batched(images: Any) -> tuple:
    """(a batch, whether it was one image that got a batch axis)."""
    if len(images.shape) == 3:
        return tf.expand_dims(images, 0), True
    return images, False


def _unbatched(images: Any, squeeze: bool) -> Any:
    return tf.squeeze(images, 0) if squeeze else images


def _float_images(images: Any, name: str = "images") -> Any:
    images = tf.convert_to_tensor(images)
    _check_images_rank(images, name)
    if not images.dtype.is_floating:
        raise ValueError("Invalid images dtype: expected float dtype. Received: "
                         f"images.dtype={images.dtype.name}")
    return images


# -- colour ------------------------------------------------------------------------------------

def _rgb_to_grayscale(images: Any, data_format: Optional[str] = None) -> Any:
    """Luma (0.2989 R + 0.5870 G + 0.1140 B) with one channel, in the images' dtype (ints
    truncated); one-channel images come back unchanged."""
    images = tf.convert_to_tensor(images)
    data_format = backend.standardize_data_format(data_format)
    channels_axis = -1 if data_format == "channels_last" else -3
    _check_images_rank(images)
    if images.shape[channels_axis] not in (1, 3):
        raise ValueError("Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received "
                         f"input with shape: images.shape={images.shape}")
    if images.shape[channels_axis] == 1:
        return tf.identity(images)
    original_dtype = images.dtype
    images = tf.cast(images, _dtypes.result_type(images.dtype.name, float))
    weights = tf.constant([0.2989, 0.5870, 0.1140], dtype=images.dtype)
    gray = tf.tensordot(images, weights, axes=(channels_axis, -1))
    return tf.cast(tf.expand_dims(gray, axis=channels_axis), original_dtype)


def _rgb_to_hsv(images: Any, data_format: Optional[str] = None) -> Any:
    """RGB in [0, 1] to hue, saturation, value (float images only)."""
    images = _float_images(images)
    data_format = backend.standardize_data_format(data_format)
    return _to_first(tf_image.rgb_to_hsv(_to_last(images, data_format)), data_format)


def _hsv_to_rgb(images: Any, data_format: Optional[str] = None) -> Any:
    """Hue, saturation, value to RGB (float images only)."""
    images = _float_images(images)
    data_format = backend.standardize_data_format(data_format)
    return _to_first(tf_image.hsv_to_rgb(_to_last(images, data_format)), data_format)


# -- resizing, padding, cropping ---------------------------------------------------------------

def _resize(images: Any, size: Any, interpolation: str = "bilinear", antialias: bool = False,
            crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
            fill_mode: str = "constant", fill_value: float = 0.0,
            data_format: Optional[str] = None) -> Any:
    """Images resized to `size` (height, width) by `tf.image.resize`, after an optional
    central crop or pad to the target's aspect ratio; int images come back rounded and
    saturated to their dtype."""
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers. Received: size={size}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"`size` must have positive height and width. Received: size={size}")
    images = tf.convert_to_tensor(images)
    _check_images_rank(images)
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be "
                         "`True`.")
    data_format = backend.standardize_data_format(data_format)
    _check_choice(interpolation, RESIZE_INTERPOLATIONS, "interpolation")
    if fill_mode != "constant":
        raise ValueError("Invalid value for argument `fill_mode`. Only `'constant'` is "
                         f"supported. Received: fill_mode={fill_mode}")
    resized = _keras_resize(images, tuple(size), interpolation, antialias,
                            crop_to_aspect_ratio, pad_to_aspect_ratio, fill_value, data_format)
    if resized.dtype == images.dtype:
        return resized
    if images.dtype.is_integer:
        return _saturate_cast(tf.round(resized), images.dtype)
    return tf.cast(resized, images.dtype)


def _check_non_negative(**values: Any) -> None:
    for name, value in values.items():
        if value is not None and value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")


def _check_two_of(names: tuple, values: tuple) -> None:
    if list(values).count(None) != 1:
        given = ", ".join(f"{n}={v}" for n, v in zip(names, values))
        raise ValueError(f"Must specify exactly two of {', '.join(names)}. Received: {given}")


def _image_hw(images: Any, data_format: str) -> tuple:
    """Height and width: ints where known, else scalar tensors read as the graph runs."""
    static = images.shape.as_list()
    axes = (-3, -2) if data_format == "channels_last" else (-2, -1)
    dynamic = None if None not in [static[a] for a in axes] else tf.shape(images)
    return tuple(static[a] if static[a] is not None else dynamic[a] for a in axes)


def _pad_images(images: Any, top_padding: Optional[int] = None,
                left_padding: Optional[int] = None, bottom_padding: Optional[int] = None,
                right_padding: Optional[int] = None, target_height: Optional[int] = None,
                target_width: Optional[int] = None, data_format: Optional[str] = None) -> Any:
    """Images padded with zeros: give two of top/bottom/target height and two of
    left/right/target width."""
    data_format = backend.standardize_data_format(data_format)
    images = tf.convert_to_tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received: images.shape={tuple(images.shape)}")
    _check_two_of(("top_padding", "bottom_padding", "target_height"),
                  (top_padding, bottom_padding, target_height))
    _check_two_of(("left_padding", "right_padding", "target_width"),
                  (left_padding, right_padding, target_width))
    _check_non_negative(top_padding=top_padding, bottom_padding=bottom_padding,
                        target_height=target_height, left_padding=left_padding,
                        right_padding=right_padding, target_width=target_width)
    height, width = _image_hw(images, data_format)
    if top_padding is None:
        top_padding = target_height - bottom_padding - height
    if bottom_padding is None:
        bottom_padding = target_height - top_padding - height
    if left_padding is None:
        left_padding = target_width - right_padding - width
    if right_padding is None:
        right_padding = target_width - left_padding - width
    for name, value in (("top_padding", top_padding), ("left_padding", left_padding),
                        ("right_padding", right_padding), ("bottom_padding", bottom_padding)):
        if isinstance(value, int) and value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")
    pad = [[top_padding, bottom_padding], [left_padding, right_padding]]
    pad = pad + [[0, 0]] if data_format == "channels_last" else [[0, 0]] + pad
    if len(images.shape) == 4:
        pad = [[0, 0]] + pad
    return tf.pad(images, pad)


def _crop_images(images: Any, top_cropping: Optional[int] = None,
                 left_cropping: Optional[int] = None, bottom_cropping: Optional[int] = None,
                 right_cropping: Optional[int] = None, target_height: Optional[int] = None,
                 target_width: Optional[int] = None, data_format: Optional[str] = None) -> Any:
    """A window of the images: give two of top/bottom cropping and target height, and two
    of left/right cropping and target width."""
    data_format = backend.standardize_data_format(data_format)
    images = tf.convert_to_tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received: images.shape={tuple(images.shape)}")
    _check_two_of(("top_cropping", "bottom_cropping", "target_height"),
                  (top_cropping, bottom_cropping, target_height))
    _check_two_of(("left_cropping", "right_cropping", "target_width"),
                  (left_cropping, right_cropping, target_width))
    _check_non_negative(top_cropping=top_cropping, bottom_cropping=bottom_cropping,
                        target_height=target_height, left_cropping=left_cropping,
                        right_cropping=right_cropping, target_width=target_width)
    height, width = _image_hw(images, data_format)
    if top_cropping is None:
        top_cropping = height - target_height - bottom_cropping
    if target_height is None:
        target_height = height - bottom_cropping - top_cropping
    if left_cropping is None:
        left_cropping = width - target_width - right_cropping
    if target_width is None:
        target_width = width - right_cropping - left_cropping
    for name, value in (("top_cropping", top_cropping), ("target_height", target_height),
                        ("left_cropping", left_cropping), ("target_width", target_width)):
        if isinstance(value, int) and value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")
    start, size = [top_cropping, left_cropping], [target_height, target_width]
    if data_format == "channels_last":
        start, size = start + [0], size + [-1]
    else:
        start, size = [0] + start, [-1] + size
    if len(images.shape) == 4:
        start, size = [0] + start, [-1] + size
    return tf.slice(images, start, size)


# -- geometric transforms ----------------------------------------------------------------------

def _projective(images: Any, transform: Any, interpolation: str, fill_mode: str,
                fill_value: float, data_format: str) -> Any:
    """TF's ImageProjectiveTransformV3 on rank-3 or rank-4 images in either layout."""
    images, squeeze = _batched(images)
    if len(transform.shape) == 1:
        transform = tf.expand_dims(transform, 0)
    images = _to_last(images, data_format)
    out = tf_image.affine_transform(images, tf.cast(transform, tf.float32), interpolation,
                                    fill_mode, fill_value)
    out = tf.ensure_shape(out, images.shape)
    return _unbatched(_to_first(out, data_format), squeeze)


def _affine_transform(images: Any, transform: Any, interpolation: str = "bilinear",
                      fill_mode: str = "constant", fill_value: float = 0,
                      data_format: Optional[str] = None) -> Any:
    """Each output pixel (x, y) samples the image at ((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, for `transform` [a0, a1, a2, b0, b1, b2,
    c0, c1] (one, or one per image)."""
    data_format = backend.standardize_data_format(data_format)
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation")
    _check_choice(fill_mode, AFFINE_TRANSFORM_FILL_MODES, "fill_mode")
    images, transform = tf.convert_to_tensor(images), tf.convert_to_tensor(transform)
    _check_images_rank(images)
    if len(transform.shape) not in (1, 2):
        raise ValueError("Invalid transform rank: expected rank 1 (single transform) or rank 2 "
                         "(batch of transforms). Received input with shape: "
                         f"transform.shape={transform.shape}")
    return _projective(images, transform, interpolation, fill_mode, fill_value, data_format)


def _check_points(points: Any, name: str) -> None:
    if points.shape.rank not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
        raise ValueError(f"Invalid {name} shape: expected (4,2) for a single image or (N,4,2) "
                         f"for a batch. Received shape: {points.shape}")


def _homography(start: Any, end: Any) -> Any:
    """The (batch, 8) projective transform taking each `end` corner to its `start` corner
    (the 8 x 8 system Keras solves)."""
    sx, sy = [start[:, i, 0] for i in range(4)], [start[:, i, 1] for i in range(4)]
    ex, ey = [end[:, i, 0] for i in range(4)], [end[:, i, 1] for i in range(4)]
    zeros, ones = tf.zeros_like(ex[0]), tf.ones_like(ex[0])
    rows = []
    for i in range(4):
        rows.append(tf.stack([ex[i], ey[i], ones, zeros, zeros, zeros, -sx[i] * ex[i],
                              -sx[i] * ey[i]], axis=-1))
        rows.append(tf.stack([zeros, zeros, zeros, ex[i], ey[i], ones, -sy[i] * ex[i],
                              -sy[i] * ey[i]], axis=-1))
    coefficients = tf.stack(rows, axis=1)
    target = tf.expand_dims(tf.stack([v for pair in zip(sx, sy) for v in pair], axis=-1), -1)
    return tf.reshape(tf.linalg.solve(coefficients, target), [-1, 8])


def _perspective_transform(images: Any, start_points: Any, end_points: Any,
                           interpolation: str = "bilinear", fill_value: float = 0,
                           data_format: Optional[str] = None) -> Any:
    """The images warped so that the 4 `start_points` (x, y) land on `end_points`."""
    data_format = backend.standardize_data_format(data_format)
    start = tf.convert_to_tensor(start_points, dtype=tf.float32)
    end = tf.convert_to_tensor(end_points, dtype=tf.float32)
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation")
    images = tf.convert_to_tensor(images)
    _check_images_rank(images)
    _check_points(start, "start_points")
    _check_points(end, "end_points")
    if start.shape != end.shape:
        raise ValueError("start_points and end_points must have the same shape. Received "
                         f"start_points.shape={start.shape}, end_points.shape={end.shape}")
    if len(start.shape) == 2:
        start, end = tf.expand_dims(start, 0), tf.expand_dims(end, 0)
    return _projective(images, _homography(start, end), interpolation, "constant", fill_value,
                       data_format)


def _mirror(coords: Any, size: int, fill_mode: str) -> Any:
    coords = tf.abs(coords)
    mod = tf.math.mod(coords, size * 2)
    under = mod < size
    coords = tf.where(under, mod, size * 2 - mod)
    return tf.where(~under, coords - 1, coords) if fill_mode == "reflect" else coords


def _fixed_coords(coords: Any, size: int, fill_mode: str) -> tuple:
    """(in-range indices, which were inside) for one axis, as Keras's fill modes fold them."""
    if fill_mode == "constant":
        return tf.clip_by_value(coords, 0, size - 1), (coords >= 0) & (coords < size)
    if fill_mode == "nearest":
        coords = tf.clip_by_value(coords, 0, size - 1)
    elif fill_mode in ("mirror", "reflect"):
        coords = _mirror(coords, size, fill_mode)
    else:
        coords = tf.math.mod(coords, size)
    return coords, tf.ones_like(coords, dtype=tf.bool)


def _nodes(coordinate: Any, order: int) -> list:
    """[(index, weight)] of the interpolation nodes of one axis (order 0: nearest, 1:
    linear)."""
    if order == 0:
        rounded = coordinate if coordinate.dtype.is_integer else tf.round(coordinate)
        return [(tf.cast(rounded, tf.int32), tf.constant(1, coordinate.dtype))]
    lower = tf.floor(coordinate)
    upper_weight = coordinate - lower
    index = tf.cast(lower, tf.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def _map_coordinates(inputs: Any, coordinates: Any, order: int, fill_mode: str = "constant",
                     fill_value: float = 0) -> Any:
    """`inputs` sampled at `coordinates` (one array of positions per axis of `inputs`) by
    nearest (order 0) or linear (order 1) interpolation, as `scipy.ndimage.map_coordinates`."""
    inputs, coords = tf.convert_to_tensor(inputs), tf.convert_to_tensor(coordinates)
    if coords.shape[0] != len(inputs.shape):
        raise ValueError("First dim of `coordinates` must be the same as the rank of `inputs`. "
                         f"Received inputs with shape: {inputs.shape} and coordinate leading "
                         f"dim of {coords.shape[0]}")
    if len(coords.shape) < 2:
        raise ValueError("Invalid coordinates rank: expected at least rank 2. Received input "
                         f"with shape: {coords.shape}")
    if fill_mode not in MAP_COORDINATES_FILL_MODES:
        # Keras 3.15 names the modes with `set.keys()`, which raises this (measured)
        raise AttributeError("'set' object has no attribute 'keys'")
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    fill_value = tf.convert_to_tensor(fill_value, dtype=inputs.dtype)
    per_axis = [[(*_fixed_coords(index, size, fill_mode), weight)
                 for index, weight in _nodes(coordinate, order)]
                for coordinate, size in zip(tf.unstack(coords, axis=0), inputs.shape)]
    outputs = []
    for items in itertools.product(*per_axis):
        indices, validities, weights = zip(*items)
        gathered = tf.transpose(tf.gather_nd(inputs, tf.transpose(tf.stack(indices))))
        gathered = tf.cast(gathered, weights[0].dtype)
        if fill_mode == "constant":
            valid = tf.reduce_all(validities, axis=0)
            gathered = tf.where(valid, gathered, tf.cast(fill_value, gathered.dtype))
        outputs.append(functools.reduce(operator.mul, weights) * gathered)
    result = functools.reduce(operator.add, outputs)
    if inputs.dtype.is_integer:
        result = tf.round(result)
    return tf.cast(result, inputs.dtype)


def _gaussian_kernel(kernel_size: Any, sigma: Any, channels: Any, dtype: Any) -> Any:
    """Keras's depthwise kernel: the outer product of two normalized 1-D Gaussians."""
    def one_dim(size: Any, s: Any) -> Any:
        x = tf.range(size, dtype=dtype) - (size - 1) / 2
        kernel = tf.exp(-0.5 * (x / s) ** 2)
        return kernel / tf.reduce_sum(kernel)

    sizes = tf.cast(kernel_size, dtype)
    kernel = tf.tensordot(one_dim(sizes[1], sigma[1]), one_dim(sizes[0], sigma[0]), axes=0)
    kernel = tf.reshape(kernel, (kernel_size[0], kernel_size[1], 1, 1))
    return tf.cast(tf.tile(kernel, [1, 1, channels, 1]), dtype)


def _gaussian_blur(images: Any, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0),
                   data_format: Optional[str] = None) -> Any:
    """Each channel convolved ('same' padding) with a Gaussian of `kernel_size` and `sigma`
    (height, width)."""
    images = tf.convert_to_tensor(images)
    dtype = images.dtype
    kernel_size = tf.cast(tf.convert_to_tensor(kernel_size), dtype)
    sigma = tf.cast(tf.convert_to_tensor(sigma), dtype)
    _check_images_rank(images)
    images, squeeze = _batched(images)
    images = _to_last(images, data_format)
    channels = images.shape[-1] if images.shape[-1] is not None else tf.shape(images)[-1]
    sizes = tf.cast(kernel_size, tf.int32)
    kernel = _gaussian_kernel(sizes, sigma, channels, dtype)
    blurred = tf.nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
    return _unbatched(_to_first(blurred, data_format), squeeze)


def _elastic_transform(images: Any, alpha: float = 20.0, sigma: float = 5.0,
                       interpolation: str = "bilinear", fill_mode: str = "reflect",
                       fill_value: float = 0.0, seed: Any = None,
                       data_format: Optional[str] = None) -> Any:
    """The images displaced by a smooth random field (normal noise blurred by a Gaussian of
    `sigma`, scaled by `alpha`), drawn from `seed` as Keras draws it."""
    data_format = backend.standardize_data_format(data_format)
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation")
    _check_choice(fill_mode, AFFINE_TRANSFORM_FILL_MODES, "fill_mode")
    images = tf.convert_to_tensor(images)
    _check_images_rank(images)
    dtype = images.dtype
    alpha = tf.convert_to_tensor(alpha, dtype=dtype)
    sigma = tf.convert_to_tensor(sigma, dtype=dtype)
    kernel = 6 * tf.cast(sigma, tf.int32) | 1
    images, squeeze = _batched(images)
    if data_format == "channels_last":
        batch, height, width, channels = images.shape
        channel_axis = -1
    else:
        batch, channels, height, width = images.shape
        channel_axis = 1
    seed = backend.draw_seed(seed)
    batch = 1 if batch is None else batch

    def field() -> Any:
        noise = tf.random.stateless_normal((batch, height, width), seed=seed, dtype=dtype)
        blurred = _gaussian_blur(tf.expand_dims(noise * sigma, channel_axis), (kernel, kernel),
                                 (sigma, sigma), data_format)
        return tf.squeeze(blurred, channel_axis)

    dx, dy = field(), field()
    x, y = tf.meshgrid(tf.range(width, dtype=dtype), tf.range(height, dtype=dtype),
                       indexing="xy")
    distorted_x, distorted_y = x[None] + alpha * dx, y[None] + alpha * dy
    order = AFFINE_TRANSFORM_INTERPOLATIONS.index(interpolation)

    def channel(b: int, i: int) -> Any:
        plane = images[b, ..., i] if data_format == "channels_last" else images[b, i, ...]
        return _map_coordinates(plane, [distorted_y[b], distorted_x[b]], order=order,
                                fill_mode=fill_mode, fill_value=fill_value)

    out = tf.stack([tf.stack([channel(b, i) for b in range(batch)], axis=0)
                    for i in range(channels)], axis=channel_axis)
    return tf.cast(_unbatched(out, squeeze), dtype)


# -- scale_and_translate (jax.image's) ---------------------------------------------------------

def _triangle(x: Any) -> Any:
    return tf.maximum(tf.constant(0, dtype=x.dtype), 1 - tf.abs(x))


def _keys_cubic(x: Any) -> Any:
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = tf.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return tf.where(x >= 2.0, tf.zeros_like(x), out)


def _lanczos(radius: float, x: Any) -> Any:
    y = radius * tf.sin(np.pi * x) * tf.sin(np.pi * x / radius)
    safe = tf.where(x != 0, np.pi ** 2 * x ** 2, tf.ones_like(x))
    out = tf.where(x > 1e-3, tf.divide(y, safe), tf.ones_like(x))
    return tf.where(x > radius, tf.zeros_like(x), out)


_KERNELS: dict = {"linear": _triangle, "cubic": _keys_cubic,
                  "lanczos3": functools.partial(_lanczos, 3.0),
                  "lanczos5": functools.partial(_lanczos, 5.0)}


def _weight_matrix(input_size: Any, output_size: int, scale: Any, translation: Any,
                   kernel: Callable, antialias: bool) -> Any:
    """The (input_size, output_size) resampling weights of one axis."""
    dtype = scale.dtype
    inv_scale = 1.0 / scale
    kernel_scale = tf.maximum(inv_scale, 1.0) if antialias else 1.0
    sample = ((tf.range(output_size, dtype=dtype) + 0.5) * inv_scale
              - translation * inv_scale - 0.5)
    x = tf.abs(sample[None, :] - tf.range(input_size, dtype=dtype)[:, None]) / kernel_scale
    weights = kernel(x)
    total = tf.reduce_sum(weights, axis=0, keepdims=True)
    weights = tf.where(tf.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                       tf.divide(weights, tf.where(total != 0, total, tf.ones_like(total))),
                       tf.zeros_like(weights))
    inside = tf.logical_and(sample >= -0.5, sample <= tf.cast(input_size, dtype) - 0.5)
    return tf.where(inside[None, :], weights, tf.zeros_like(weights))


def _scale_and_translate(images: Any, output_shape: Any, scale: Any, translation: Any,
                         spatial_dims: Any, method: str, antialias: bool = True) -> Any:
    """`jax.image.scale_and_translate`: each axis of `spatial_dims` resampled to
    `output_shape`'s size, out[y] sampling in[(y + 0.5 - translation) / scale - 0.5]."""
    if method not in SCALE_AND_TRANSLATE_METHODS:
        raise ValueError("Invalid value for argument `method`. Expected of one "
                         f"{SCALE_AND_TRANSLATE_METHODS}. Received: method={method}")
    method = ("linear" if method in ("linear", "bilinear", "trilinear")
              else "cubic" if method in ("cubic", "bicubic", "tricubic") else method)
    x = tf.convert_to_tensor(images)
    scale, translation = tf.convert_to_tensor(scale), tf.convert_to_tensor(translation)
    dtype = _dtypes.result_type(scale.dtype.name, translation.dtype.name)
    scale, translation = tf.cast(scale, dtype), tf.cast(translation, dtype)
    if len(spatial_dims) == 0:
        return x
    input_shape = tf.shape(x)
    rounding = x.dtype.is_integer
    output = tf.cast(x, tf.float32) if rounding else tf.identity(x)
    rank = len(x.shape)
    for i, d in enumerate(spatial_dims):
        d = d % rank
        w = tf.cast(_weight_matrix(input_shape[d], output_shape[d], scale[i], translation[i],
                                   _KERNELS[method], antialias), output.dtype)
        output = tf.experimental.numpy.moveaxis(tf.tensordot(output, w, axes=(d, 0)), -1, d)
    if rounding:
        # as Keras 3.15 on TF: float32 clipped by int bounds, which TF refuses (measured)
        output = tf.clip_by_value(tf.round(output), tf.reduce_min(x), tf.reduce_max(x))
        output = tf.cast(output, x.dtype)
    return output


# -- filters, patches, quality -----------------------------------------------------------------

def _sobel_edges(images: Any, data_format: Optional[str] = None) -> Any:
    """(dy, dx) Sobel gradients of each channel, stacked on a new last axis (batches only)."""
    data_format = backend.standardize_data_format(data_format)
    images = tf.convert_to_tensor(images)
    if data_format == "channels_first":
        images = tf.transpose(images, (0, 2, 3, 1))
    edges = tf_image.sobel_edges(images)
    if data_format == "channels_first":
        edges = tf.transpose(edges, (0, 3, 1, 2, 4))
    return edges


def _identity_conv(images: Any, size: tuple, strides: Any, dilation_rate: Any, padding: str,
                   data_format: str) -> Any:
    """Keras's patch extraction: a convolution whose kernel copies each patch into the
    channels (patch pixels outer, input channels inner)."""
    spatial = len(size)
    images = tf.convert_to_tensor(images)
    channels = images.shape[-1] if data_format == "channels_last" else images.shape[-1 - spatial]
    out_dim = int(np.prod(size)) * channels
    kernel = tf.reshape(tf.eye(out_dim, dtype=images.dtype), (*size, channels, out_dim))
    squeeze = len(images.shape) == spatial + 1
    if squeeze:
        images = tf.expand_dims(images, 0)
    if data_format == "channels_first":
        images = tf.experimental.numpy.moveaxis(images, 1, -1)
    conv = tf.nn.conv2d if spatial == 2 else tf.nn.conv3d
    strides = [strides] * spatial if isinstance(strides, int) else list(strides)
    dilations = ([dilation_rate] * spatial if isinstance(dilation_rate, int)
                 else list(dilation_rate))
    patches = conv(images, kernel, [1, *strides, 1], padding.upper(),
                   dilations=[1, *dilations, 1])
    if patches.shape.is_fully_defined() and patches.shape.num_elements() == 0 \
            and images.shape.num_elements() != 0:
        raise ValueError("The convolution operation resulted in an empty output. Output "
                         f"shape: {patches.shape}. This can happen if the input is too small "
                         "for the given kernel size, strides, dilation rate, and padding mode. "
                         "Please check the input shape and convolution parameters.")
    if data_format == "channels_first":
        patches = tf.experimental.numpy.moveaxis(patches, -1, 1)
    return tf.squeeze(patches, 0) if squeeze else patches


def _extract_patches(images: Any, size: Any, strides: Any = None, dilation_rate: Any = 1,
                     padding: str = "valid", data_format: Optional[str] = None) -> Any:
    """Each `size` (height, width) patch flattened into the channels axis; a 3-tuple `size`
    takes volumes (as `extract_patches_3d`)."""
    if not isinstance(size, int):
        if not isinstance(size, (tuple, list)):
            raise TypeError("Invalid `size` argument. Expected an int or a tuple. Received: "
                            f"size={size} of type {type(size).__name__}")
        if len(size) not in (2, 3):
            raise ValueError("Invalid `size` argument. Expected a tuple of length 2 or 3. "
                             f"Received: size={size} with length {len(size)}")
        if len(size) == 3:
            return _extract_patches_3d(images, size, strides, dilation_rate, padding,
                                       data_format)
    patch = (size, size) if isinstance(size, int) else tuple(size)
    return _identity_conv(images, patch, strides or size, dilation_rate, padding,
                          backend.standardize_data_format(data_format))


def _extract_patches_3d(volumes: Any, size: Any, strides: Any = None, dilation_rate: Any = 1,
                        padding: str = "valid", data_format: Optional[str] = None) -> Any:
    """Each `size` (depth, height, width) patch of the volumes flattened into channels."""
    patch = (size,) * 3 if isinstance(size, int) else tuple(size)
    if len(patch) != 3:
        raise TypeError("Invalid `size` argument. Expected an int or a tuple of length 3. "
                        f"Received: size={size}")
    strides = patch if strides is None else strides
    strides = (strides,) * 3 if isinstance(strides, int) else strides
    if len(strides) != 3:
        raise ValueError(f"Invalid `strides` argument. Got: {strides}")
    return _identity_conv(volumes, patch, strides, dilation_rate, padding,
                          backend.standardize_data_format(data_format))


def _ssim_kernel(size: int, sigma: float, dtype: str) -> Any:
    x = tf.range(size, dtype=dtype) - (size - 1) / 2.0
    gauss = tf.exp(-(x ** 2) / (2.0 * sigma ** 2))
    gauss = gauss / tf.reduce_sum(gauss)
    return tf.reshape(tf.tensordot(gauss, gauss, axes=0), (size, size, 1, 1))


def _ssim(image1: Any, image2: Any, max_val: float = 1.0, filter_size: int = 11,
          filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03,
          data_format: Optional[str] = None) -> Any:
    """The structural similarity of each pair of images (mean over pixels and channels of
    the Gaussian-windowed SSIM map, 'valid' windows), in image1's dtype."""
    data_format = backend.standardize_data_format(data_format)
    image1, image2 = tf.convert_to_tensor(image1), tf.convert_to_tensor(image2)
    original_dtype = image1.dtype
    compute_dtype = _dtypes.result_type(image1.dtype.name, float)
    image1, image2 = tf.cast(image1, compute_dtype), tf.cast(image2, compute_dtype)
    _check_images_rank(image1, "image1")
    _check_images_rank(image2, "image2")
    image1, squeeze = _batched(image1)
    image2, _ = _batched(image2)
    if data_format == "channels_first":
        image1 = tf.experimental.numpy.moveaxis(image1, 1, -1)
        image2 = tf.experimental.numpy.moveaxis(image2, 1, -1)
    batch, height, width, channels = (d if d is not None else tf.shape(image1)[i]
                                      for i, d in enumerate(image1.shape.as_list()))
    kernel = _ssim_kernel(filter_size, filter_sigma, compute_dtype)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2

    def per_channel(images: Any) -> Any:
        return tf.reshape(tf.transpose(images, (0, 3, 1, 2)), [-1, height, width, 1])

    def window_mean(x: Any) -> Any:
        return tf.nn.conv2d(x, kernel, [1, 1, 1, 1], "VALID")

    x1, x2 = per_channel(image1), per_channel(image2)
    mu1, mu2 = window_mean(x1), window_mean(x2)
    mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma1_sq = window_mean(x1 * x1) - mu1_sq
    sigma2_sq = window_mean(x2 * x2) - mu2_sq
    sigma12 = window_mean(x1 * x2) - mu1_mu2
    numerator = (2.0 * mu1_mu2 + c1) * (2.0 * sigma12 + c2)
    denominator = (mu1_sq + mu2_sq + c1) * (sigma1_sq + sigma2_sq + c2)
    per_image = tf.reshape(tf.reduce_mean(numerator / denominator, axis=[1, 2, 3]),
                           [batch, channels])
    result = tf.reduce_mean(per_image, axis=-1)
    return tf.cast(tf.squeeze(result, 0) if squeeze else result, original_dtype)


affine_transform = keras_op("AffineTransform", _affine_transform)
crop_images = keras_op("CropImages", _crop_images)
elastic_transform = keras_op("ElasticTransform", _elastic_transform)
extract_patches = keras_op("ExtractPatches", _extract_patches)
extract_patches_3d = keras_op("ExtractPatches3D", _extract_patches_3d)
gaussian_blur = keras_op("GaussianBlur", _gaussian_blur)
hsv_to_rgb = keras_op("HSVToRGB", _hsv_to_rgb)
map_coordinates = keras_op("MapCoordinates", _map_coordinates)
pad_images = keras_op("PadImages", _pad_images)
perspective_transform = keras_op("PerspectiveTransform", _perspective_transform)
resize = keras_op("Resize", _resize)
rgb_to_grayscale = keras_op("RGBToGrayscale", _rgb_to_grayscale)
rgb_to_hsv = keras_op("RGBToHSV", _rgb_to_hsv)
scale_and_translate = keras_op("ScaleAndTranslate", _scale_and_translate)
sobel_edges = keras_op("SobelEdges", _sobel_edges)
ssim = keras_op("SSIM", _ssim)

__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
           "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates",
           "pad_images", "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
           "scale_and_translate", "sobel_edges", "ssim"]
