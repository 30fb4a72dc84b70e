"""Keras 3's image preprocessing layers: Resizing, CenterCrop, and the augmentations
RandomFlip, RandomRotation, RandomZoom, RandomTranslation, RandomContrast, RandomBrightness
and RandomCrop. The random ones draw from their own SeedGenerator with Keras's stateless
TensorFlow ops, so a seeded layer gives Keras-on-TensorFlow's numbers; rotation, zoom and
translation go through Keras's affine transform (`tapeflow.image.affine_transform`, TF's
ImageProjectiveTransformV3). Images are (batch,) height, width, channels (or channels first)."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow import image as tf_image
from tapeflow.keras import backend
from tapeflow.keras.layers.layer import Layer

_F32 = np.float32


def _to_last(images: Any, data_format: str) -> Any:
    if data_format != "channels_first":
        return images
    return tf.transpose(images, (0, 2, 3, 1) if images.shape.rank == 4 else (1, 2, 0))


def _to_first(images: Any, data_format: str) -> Any:
    if data_format != "channels_first":
        return images
    return tf.transpose(images, (0, 3, 1, 2) if images.shape.rank == 4 else (2, 0, 1))


def _hw_axes(data_format: str) -> tuple:
    return (-2, -1) if data_format == "channels_first" else (-3, -2)


def _image_shape(images: Any) -> tuple:
    """Keras's `ops.shape` on TensorFlow: the static dims as ints, the others (unknown while
    tracing: a batch of any size, images of any size) as scalar tensors read when the graph
    runs."""
    static = images.shape.as_list()
    if None not in static:
        return tuple(static)
    dynamic = tf.shape(images)
    return tuple(dynamic[i] if d is None else d for i, d in enumerate(static))


def _float32(size: Any) -> Any:
    """A size (an int, or a scalar tensor read when the graph runs) as a float32 tensor: the
    same number either way."""
    return tf.constant(float(size)) if isinstance(size, int) else tf.cast(size, "float32")


class BaseImagePreprocessingLayer(Layer):
    """Keras's base: a `factor` range checked against `_FACTOR_BOUNDS`, `data_format`, and a
    `call(data, training=True)` that casts to the compute dtype and transforms batches or
    single images."""

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS = (-1, 1)
    _allow_non_tensor_positional_args = True

    def __init__(self, factor: Any = None, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise ValueError(f"Layer {type(self).__name__} does not take a `factor` argument. "
                             f"Received: factor={factor}")
        self.built = True

    def _set_factor(self, factor: Any) -> None:
        low, high = self._FACTOR_BOUNDS
        message = (f"The `factor` argument should be a number (or a list of two numbers) in "
                   f"the range [{low}, {high}]. Received: factor={factor}")
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > high or factor[1] < low:
                raise ValueError(message)
            lower, upper = sorted(factor)
        elif isinstance(factor, (int, float)):
            if factor < low or factor > high:
                raise ValueError(message)
            factor = abs(factor)
            lower, upper = max(-factor, low), factor
        else:
            raise ValueError(message)
        self.factor = (lower, upper)

    def _is_batched(self, images: Any) -> bool:
        rank = images.shape.rank
        if rank not in (3, 4):
            raise ValueError(f"Expected image tensor to have rank 3 (single image) or 4 (batch "
                             f"of images). Received: data.shape={tuple(images.shape)}")
        return rank == 4

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        """The random draw for this call (None where the layer draws nothing)."""
        return None

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The batch of images transformed (Keras's default: cast, then `_transform`)."""
        images = tf.cast(images, self.compute_dtype)
        if training:
            images = self._transform(images, transformation)
        return images

    def _transform(self, images: Any, transformation: Any) -> Any:
        raise NotImplementedError

    def call(self, data: Any, training: Any = True) -> Any:
        images = tf.convert_to_tensor(data)
        transformation = self.get_random_transformation(images, training=training)
        if self._is_batched(images):
            return self.transform_images(images, transformation, training=training)
        out = self.transform_images(tf.expand_dims(images, 0), transformation,
                                    training=training)
        return tf.squeeze(out, 0)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


def _saturate_cast(x: Any, dtype: Any) -> Any:
    info = np.iinfo(tf.as_dtype(dtype).as_numpy_dtype)
    return tf.cast(tf.clip_by_value(x, float(info.min), float(info.max)), dtype)


def _keras_resize(images: Any, size: tuple, interpolation: str, antialias: bool,
                  crop_to_aspect_ratio: bool, pad_to_aspect_ratio: bool, fill_value: float,
                  data_format: str) -> Any:
    """Keras's TF backend `image.resize`: an optional central crop or symmetric pad to the
    target aspect ratio (float32 arithmetic as Keras), then `tf.image.resize`."""
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be "
                         "`True`.")
    images = _to_last(images, data_format)
    height, width = images.shape.as_list()[-3:-1]
    target_h, target_w = size
    if (crop_to_aspect_ratio or pad_to_aspect_ratio) and (height is None or width is None):
        images = _to_aspect_ratio_traced(images, size, crop_to_aspect_ratio, fill_value)
    elif crop_to_aspect_ratio:
        crop_h = max(min(height, int(_F32(width * target_h) / _F32(target_w))), 1)
        crop_w = max(min(width, int(_F32(height * target_w) / _F32(target_h))), 1)
        top, left = int(_F32(height - crop_h) / 2), int(_F32(width - crop_w) / 2)
        images = images[..., top:top + crop_h, left:left + crop_w, :]
    elif pad_to_aspect_ratio:
        pad_h = max(height, int(_F32(width * target_h) / _F32(target_w)))
        pad_w = max(width, int(_F32(height * target_w) / _F32(target_h)))
        top, left = int(_F32(pad_h - height) / 2), int(_F32(pad_w - width) / 2)
        paddings = [[top, top], [left, left], [0, 0]]
        if images.shape.rank == 4:
            paddings = [[0, 0]] + paddings
        images = tf.pad(images, paddings, constant_values=tf.cast(fill_value, images.dtype))
    out = tf_image.resize(images, size, method=interpolation, antialias=antialias)
    return _to_first(out, data_format)


def _to_aspect_ratio_traced(images: Any, size: tuple, crop: bool, fill_value: float) -> Any:
    """Keras's TF backend crop (`crop`) or pad to the aspect ratio of `size`, for channels-last
    images whose height or width is known only when the graph runs (its tensor arithmetic)."""
    shape = tf.shape(images)
    height, width = shape[-3], shape[-2]
    target_h, target_w = size
    box_h = tf.cast(tf.cast(width * target_h, "float32") / target_w, "int32")
    box_w = tf.cast(tf.cast(height * target_w, "float32") / target_h, "int32")
    if crop:
        crop_h = tf.maximum(tf.minimum(height, box_h), 1)
        crop_w = tf.maximum(tf.minimum(width, box_w), 1)
        top = tf.cast(tf.cast(height - crop_h, "float32") / 2, "int32")
        left = tf.cast(tf.cast(width - crop_w, "float32") / 2, "int32")
        return images[..., top:top + crop_h, left:left + crop_w, :]
    top = tf.cast(tf.cast(tf.maximum(height, box_h) - height, "float32") / 2, "int32")
    left = tf.cast(tf.cast(tf.maximum(width, box_w) - width, "float32") / 2, "int32")
    lead = (shape[0],) if images.shape.rank == 4 else ()
    channels, axis = shape[-1], images.shape.rank - 3

    def band(rows: Any, cols: Any) -> Any:
        return tf.ones(lead + (rows, cols, channels), dtype=images.dtype) * fill_value

    padded = tf.cond(top > 0, lambda: tf.concat([band(top, width), images, band(top, width)],
                                                 axis=axis), lambda: images)
    return tf.cond(left > 0, lambda: tf.concat([band(height, left), padded, band(height, left)],
                                               axis=axis + 1), lambda: padded)


_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


class _OutputSized:
    """For layers whose output images are `height` x `width`: their output shape."""

    def compute_output_shape(self, input_shape: Any) -> Any:
        """`input_shape` with its height and width replaced by the layer's."""
        shape = list(input_shape)
        h, w = _hw_axes(self.data_format)
        shape[h], shape[w] = self.height, self.width
        return tuple(shape)


class Resizing(_OutputSized, BaseImagePreprocessingLayer):
    """Resizes images to `height` x `width` (integer images come back rounded and
    saturated in their dtype)."""

    _USE_BASE_FACTOR = False

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
                 fill_mode: str = "constant", fill_value: float = 0.0, antialias: bool = False,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height, self.width = height, width
        self.interpolation = interpolation
        self.data_format = backend.standardize_data_format(data_format)
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.antialias = bool(antialias)

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        if self.interpolation not in _RESIZE_INTERPOLATIONS:
            raise ValueError(f"Invalid value for argument `interpolation`. Expected of one "
                             f"{_RESIZE_INTERPOLATIONS}. Received: "
                             f"interpolation={self.interpolation}")
        if self.fill_mode != "constant":
            raise ValueError(f"Invalid value for argument `fill_mode`. Only `'constant'` is "
                             f"supported. Received: fill_mode={self.fill_mode}")
        resized = _keras_resize(images, (self.height, self.width), self.interpolation,
                                self.antialias, self.crop_to_aspect_ratio,
                                self.pad_to_aspect_ratio, self.fill_value, self.data_format)
        if resized.dtype == images.dtype:
            return resized
        if images.dtype.is_integer:
            return _saturate_cast(tf.round(resized), images.dtype)
        return tf.cast(resized, images.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias,
                "data_format": self.data_format}


class CenterCrop(_OutputSized, BaseImagePreprocessingLayer):
    """The central `height` x `width` crop; an image smaller than that is cropped to the
    target aspect ratio and resized (Keras's smart_resize)."""

    _USE_BASE_FACTOR = False

    def __init__(self, height: int, width: int, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = height, width

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        h_axis, w_axis = _hw_axes(self.data_format)
        shape = _image_shape(images)
        h_diff, w_diff = shape[h_axis] - self.height, shape[w_axis] - self.width
        # As Keras: a size known only when the graph runs is cropped (not resized) whatever
        # its value, so a smaller image gives a smaller crop there, and not eagerly.
        if (not isinstance(h_diff, int) or h_diff >= 0) and \
                (not isinstance(w_diff, int) or w_diff >= 0):
            top, left = h_diff // 2, w_diff // 2
            if self.data_format == "channels_first":
                return images[:, :, top:top + self.height, left:left + self.width]
            return images[:, top:top + self.height, left:left + self.width, :]
        return _keras_resize(images, (self.height, self.width), "bilinear", False, True, False,
                             0.0, self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "data_format": self.data_format}


class _Seeded(BaseImagePreprocessingLayer):
    """A layer drawing from its own SeedGenerator (`self.generator`), as Keras's."""

    def _make_generator(self, seed: Optional[int]) -> None:
        self.seed = seed
        self.generator = backend.SeedGenerator(seed)

    def _uniform(self, shape: Any, minval: float, maxval: float,
                 dtype: Optional[str] = None) -> Any:
        return backend.random_uniform(tuple(shape), minval, maxval,
                                      dtype or backend.floatx(), self.generator)

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}


class RandomFlip(_Seeded):
    """Flips each image with probability 1/2 ('horizontal', 'vertical', or both: one draw
    flips both axes together, as Keras)."""

    _USE_BASE_FACTOR = False

    def __init__(self, mode: str = "horizontal_and_vertical", seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._make_generator(seed)
        self.mode = mode

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        shape = (1, 1, 1) if images.shape.rank == 3 else (tf.shape(images)[0], 1, 1, 1)
        return self._uniform(shape, 0.0, 1.0) <= 0.5

    def _transform(self, images: Any, flips: Any) -> Any:
        if flips is None:
            return images
        if flips.shape.rank == 3:
            flips = tf.expand_dims(flips, 0)
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [w_axis]), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [h_axis]), images)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode}


_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_AFFINE_INTERPOLATIONS = ("nearest", "bilinear")


def _check_fill(fill_mode: str, interpolation: str) -> None:
    if fill_mode not in _FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                  f"{_FILL_MODES}.")
    if interpolation not in _AFFINE_INTERPOLATIONS:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                  f"{_AFFINE_INTERPOLATIONS}.")


class _Affine(_Seeded):
    """A layer warping images by a per-image affine transform (Keras's affine_transform)."""

    def _init_affine(self, fill_mode: str, interpolation: str, fill_value: float,
                     seed: Optional[int]) -> None:
        _check_fill(fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, \
            fill_value
        self._make_generator(seed)

    def _size(self, images: Any) -> tuple:
        """(batch, height, width) of `images`, batched or not: ints, or scalar tensors where
        only the run knows them."""
        h_axis, w_axis = _hw_axes(self.data_format)
        shape = _image_shape(images)
        return shape[0] if images.shape.rank == 4 else 1, shape[h_axis], shape[w_axis]

    def _transform(self, images: Any, transform: Any) -> Any:
        if transform is None:
            return images
        out = tf_image.affine_transform(_to_last(images, self.data_format), transform,
                                        self.interpolation, self.fill_mode, self.fill_value)
        return _to_first(out, self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "interpolation": self.interpolation}


class RandomRotation(_Affine):
    """Rotates each image by a random angle of `factor` x 360 degrees about its centre."""

    def __init__(self, factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 fill_value: float = 0.0, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self._init_affine(fill_mode, interpolation, fill_value, seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch, height, width = self._size(images)
        angle = self._uniform((batch,), self.factor[0] * 360.0, self.factor[1] * 360.0)
        return _rotation_matrix(angle, height, width)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}


def _rotation_matrix(angle: Any, height: Any, width: Any) -> Any:
    """Keras's _compute_affine_matrix for a rotation about (0.5, 0.5) of the image (no
    translation, scale 1, no shear), in its float32 order of operations."""
    angle = angle * tf.constant(math.pi / 180.0)
    zeros = tf.zeros_like(angle)
    cx = 0.5 * (_float32(width) - 1)
    cy = 0.5 * (_float32(height) - 1)
    cos, sin = tf.cos(angle), tf.sin(angle)
    shear_x = shear_y = tf.tan(zeros * tf.constant(math.pi / 180.0))
    scale = tf.ones_like(angle)
    a0 = scale * (cos + shear_x * sin)
    a1 = scale * (-sin + shear_x * cos)
    a2 = zeros + cx - cx * a0 - cy * a1
    b0 = scale * (shear_y * cos + sin)
    b1 = scale * (shear_y * -sin + cos)
    b2 = zeros + cy - cx * b0 - cy * b1
    return tf.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)


def _factor_range(factor: Any, name: str, message: str, check: Any) -> tuple:
    """RandomZoom/RandomTranslation's (lower, upper) of a factor."""
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message + f"Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        check(factor)
        return -abs(factor), abs(factor)
    raise ValueError(message + f"Received: {name}={factor}")


class RandomZoom(_Affine):
    """Zooms each image by a random factor in 1 + `height_factor` (and `width_factor`, or
    the same draw) about its centre."""

    _USE_BASE_FACTOR = False
    _MESSAGE = ("The `height_factor` and `width_factor` arguments should be a number (or a "
                "list of two numbers) in the range (-1.0, 1.0]. ")

    def __init__(self, height_factor: Any, width_factor: Any = None,
                 fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: Optional[int] = None, fill_value: float = 0.0,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_range(
            height_factor, "height_factor", self._MESSAGE, self._check)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_range(
                width_factor, "width_factor", self._MESSAGE, self._check)
        self._init_affine(fill_mode, interpolation, fill_value, seed)
        self.data_format = backend.standardize_data_format(data_format)

    def _check(self, value: float) -> None:
        if value > 1.0 or value <= -1.0:
            raise ValueError(self._MESSAGE + f"Received: input_number={value}")

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch, height, width = self._size(images)
        height_zoom = self._uniform((batch, 1), 1.0 + self.height_lower,
                                    1.0 + self.height_upper)
        width_zoom = height_zoom if self.width_factor is None else self._uniform(
            (batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper)
        zooms = tf.concat([width_zoom, height_zoom], axis=1)
        x_offset = ((_float32(width) - 1.0) / 2.0) * (1.0 - zooms[:, 0:1])
        y_offset = ((_float32(height) - 1.0) / 2.0) * (1.0 - zooms[:, 1:])
        zeros = tf.zeros_like(x_offset)
        return tf.concat([zooms[:, 0:1], zeros, x_offset, zeros, zooms[:, 1:], y_offset, zeros,
                          zeros], axis=1)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor, "data_format": self.data_format}


class RandomTranslation(_Affine):
    """Shifts each image by random fractions `height_factor` / `width_factor` of its size."""

    _USE_BASE_FACTOR = False
    _MESSAGE = ("The `factor` argument should be a number (or a list of two numbers) in the "
                "range [-1.0, 1.0]. ")

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 fill_value: float = 0.0, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _factor_range(
            height_factor, "height_factor", self._MESSAGE, self._check)
        self.width_lower, self.width_upper = _factor_range(
            width_factor, "width_factor", self._MESSAGE, self._check)
        self._init_affine(fill_mode, interpolation, fill_value, seed)

    def _check(self, value: float) -> None:
        if value > 1.0 or value < -1.0:
            raise ValueError(self._MESSAGE + f"Received: input_number={value}")

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch, height, width = self._size(images)
        dy = self._uniform((batch, 1), self.height_lower, self.height_upper) * _float32(height)
        dx = self._uniform((batch, 1), self.width_lower, self.width_upper) * _float32(width)
        ones, zeros = tf.ones_like(dx), tf.zeros_like(dx)
        return tf.concat([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor, "data_format": self.data_format}


class RandomContrast(_Seeded):
    """(x - mean) * f + mean per image, f uniform in [1 - lower, 1 + upper], clipped to
    `value_range`."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        shape = (1, 1, 1) if images.shape.rank == 3 else (tf.shape(images)[0], 1, 1, 1)
        if not training:
            return tf.zeros(shape)
        return self._uniform(shape, 1.0 - self.factor[0], 1.0 + self.factor[1],
                             self.compute_dtype)

    def transform_images(self, images: Any, factor: Any, training: bool = True) -> Any:
        if not training:
            return images
        if factor.shape.rank == 3:
            factor = tf.expand_dims(factor, 0)
        h_axis, w_axis = _hw_axes(self.data_format)
        mean = tf.reduce_mean(images, axis=h_axis, keepdims=True)
        mean = tf.reduce_mean(mean, axis=w_axis, keepdims=True)
        out = (images - mean) * factor + mean
        return tf.clip_by_value(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomBrightness(_Seeded):
    """Adds a random delta of `factor` x the value range's width per image, clipped to
    `value_range`."""

    _MESSAGE = "The `value_range` argument should be a list of two numbers. "

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(factor=factor, **kwargs)
        self._make_generator(seed)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(self._MESSAGE + f"Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        shape = (1, 1, 1) if images.shape.rank == 3 else (tf.shape(images)[0], 1, 1, 1)
        if not training:
            return tf.zeros(shape)
        delta = self._uniform(shape, self.factor[0], self.factor[1])
        return delta * (self.value_range[1] - self.value_range[0])

    def transform_images(self, images: Any, delta: Any, training: bool = True) -> Any:
        if not training:
            return images
        if delta.shape.rank == 3:
            delta = tf.expand_dims(delta, 0)
        images = images + tf.cast(delta, images.dtype)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomCrop(_OutputSized, _Seeded):
    """A random `height` x `width` crop in training (the image returned unchanged at
    inference, as Keras 3); an image not larger than the crop is centre-cropped to the aspect
    ratio and resized."""

    def __init__(self, height: int, width: int, seed: Optional[int] = None,
                 data_format: Optional[str] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self.height, self.width = height, width
        self.generator = backend.SeedGenerator(seed)
        self.seed = seed if seed is not None else backend.make_default_seed()
        self.data_format = backend.standardize_data_format(data_format)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        h_axis, w_axis = _hw_axes(self.data_format)
        shape = _image_shape(images)
        height, width = shape[h_axis], shape[w_axis]
        # As Keras 3.15.1 (measured in tf.function, Dataset.map and fit): a height or width
        # known only when the graph runs reaches this Python `if` in training
        # (OperatorNotAllowedInGraphError) and the float() below at inference (TypeError).
        if training and height > self.height and width > self.width:
            top = tf.cast(self._uniform((), 0, float(height - self.height + 1)), "int32")
            left = tf.cast(self._uniform((), 0, float(width - self.width + 1)), "int32")
            return top, left
        crop_h = max(min(height, int(float(width * self.height) / self.width)), 1)
        crop_w = max(min(width, int(float(height * self.width) / self.height)), 1)
        return int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        top, left = transformation
        if self.data_format == "channels_last":
            images = images[:, top:top + self.height, left:left + self.width, :]
        else:
            images = images[:, :, top:top + self.height, left:left + self.width]
        h_axis, w_axis = _hw_axes(self.data_format)
        if images.shape[h_axis] != self.height or images.shape[w_axis] != self.width:
            # a size unknown while tracing is resized too (to the same size, as Keras)
            images = tf.cast(_keras_resize(images, (self.height, self.width), "bilinear",
                                           False, False, False, 0.0, self.data_format),
                             self.compute_dtype)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "data_format": self.data_format}
