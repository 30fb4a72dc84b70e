"""Keras 3's image augmentation layers beyond flips, rotations, zooms, translations,
contrast, brightness and crops: colour (AutoContrast, Equalization, CLAHE, Solarization,
RandomInvert, RandomGrayscale, RandomPosterization, RandomSaturation, RandomHue,
RandomColorDegeneration, RandomSharpness, RandomColorJitter, RandomGaussianBlur), geometry
(RandomShear, RandomPerspective, RandomElasticTransform), mixing (MixUp, CutMix,
RandomErasing), policies (RandAugment, AugMix) and MaxNumBoundingBoxes. Each draws from its
own SeedGenerator in Keras 3.15.1's order with its TensorFlow-backend ops, so a seeded layer
gives Keras's numbers; the arithmetic (value ranges, dtypes, which draws happen with
`training=False`) is Keras's, quirks included, and noted where it surprises."""

from __future__ import annotations

import random as _python_random
from typing import Any, Optional

import tapeflow as tf
from tapeflow.keras import backend
from tapeflow.keras import ops
from tapeflow.keras import random as keras_random
from tapeflow.keras.layers.preprocessing import image as _image
from tapeflow.keras.layers.preprocessing.image import (BaseImagePreprocessingLayer, _image_shape,
                                                       _saturate_cast, _Seeded)

_VALUE_RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "


def _checked_value_range(value_range: Any) -> list:
    """`value_range` sorted, as Keras keeps it (a list)."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(_VALUE_RANGE_ERROR + f"Received: value_range={value_range}")
    return sorted(value_range)


def _transform_value_range(images: Any, original: Any, target: Any,
                           dtype: str = "float32") -> Any:
    """Keras's `_transform_value_range`: `images` rescaled from `original` to `target` (the
    images untouched, not even cast, where the ranges are equal)."""
    if original[0] == target[0] and original[1] == target[1]:
        return images
    images = tf.cast(images, dtype)
    original_min, original_max = (tf.cast(v, dtype) for v in original)
    target_min, target_max = (tf.cast(v, dtype) for v in target)
    images = (images - original_min) / (original_max - original_min)
    return images * (target_max - target_min) + target_min


def _batch_size(images: Any) -> Any:
    """1 for a single image, else the batch size (an int, or a scalar tensor read when the
    graph runs)."""
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"Expected the input image to be rank 3 or 4. Received: "
                         f"inputs.shape={tuple(images.shape)}")
    return 1 if rank == 3 else _image_shape(images)[0]


def _back_to_input_dtype(results: Any, images: Any) -> Any:
    """Keras's ending of AutoContrast/Solarization: `results` in `images`' dtype, integers
    rounded and saturated."""
    if results.dtype == images.dtype:
        return results
    if images.dtype.is_integer:
        return _saturate_cast(tf.round(results), images.dtype)
    return tf.cast(results, images.dtype)


class _ValueRanged(_Seeded):
    """A seeded colour layer with a `factor` and a sorted `value_range` in its config."""

    def _init_colour(self, factor: Any, value_range: Any, seed: Optional[int]) -> None:
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)
        self._make_generator(seed)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class AutoContrast(BaseImagePreprocessingLayer):
    """Stretches each image's values to fill `value_range` (per channel; with
    `training=False` too, as Keras). A constant channel comes back unchanged."""

    _USE_BASE_FACTOR = False

    def __init__(self, value_range: Any = (0, 255), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_range = _checked_value_range(value_range)

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        original = images
        images = _transform_value_range(images, self.value_range, (0, 255), self.compute_dtype)
        images = tf.cast(images, self.compute_dtype)
        # As Keras, axes (1, 2) whatever the data format.
        low = tf.reduce_min(images, axis=(1, 2), keepdims=True)
        high = tf.reduce_max(images, axis=(1, 2), keepdims=True)
        scale = 255.0 / (high - low)
        results = tf.clip_by_value(images * scale + (-low * scale), 0.0, 255.0)
        results = _transform_value_range(results, (0, 255), self.value_range, self.compute_dtype)
        # a constant channel divided by zero: NaN, replaced by the input
        results = ops.where(tf.math.is_nan(results), original, results)
        return _back_to_input_dtype(results, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range}


class Equalization(BaseImagePreprocessingLayer):
    """Histogram equalization of each channel in `bins` bins. As Keras, one histogram per
    channel over the whole batch; `training=False` returns the input unchanged."""

    def __init__(self, value_range: Any = (0, 255), bins: int = 256,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bins = bins
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            # Keras 3.15.1's Equalization lacks the message its check reaches for
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'_VALUE_RANGE_VALIDATION_ERROR'")
        self.value_range = sorted(value_range)
        self.data_format = backend.standardize_data_format(data_format)

    def _histogram(self, values: Any) -> Any:
        values = tf.cast(values, "float32")
        scaled = (values - tf.constant(0.0)) * (self.bins - 1) / (tf.constant(255.0) - 0.0)
        indices = tf.clip_by_value(tf.cast(scaled, "int32"), 0, self.bins - 1)
        return tf.math.bincount(tf.reshape(indices, [-1]), minlength=self.bins)

    def _equalize_channel(self, channel: Any) -> Any:
        # Keras compares its list value_range with a tuple: always unequal, so it always
        # rescales (by a factor of exactly 1 for (0, 255)).
        channel = _scale_values(channel, self.value_range, (0, 255))
        hist = self._histogram(channel)
        nonzero_bins = tf.math.count_nonzero(hist)
        equalized = ops.where(nonzero_bins <= 1, channel, self._apply(channel, hist))
        return _scale_values(equalized, (0, 255), self.value_range)

    def _apply(self, channel: Any, hist: Any) -> Any:
        cdf = tf.cumsum(hist)
        cdf_min = tf.gather(cdf, tf.where(cdf != 0)[0, 0])
        denominator = cdf[-1] - cdf_min
        denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        # int32 / int32 is float64 in TensorFlow, as in Keras
        lookup = tf.cast((cdf - cdf_min) * 255, "float64") / tf.cast(denominator, "float64")
        lookup = tf.clip_by_value(tf.round(lookup), 0.0, 255.0)
        scaled = (channel / 255.0) * (self.bins - 1)
        indices = tf.cast(tf.clip_by_value(scaled, 0.0, float(self.bins - 1)), "int32")
        return tf.gather(lookup, indices)

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        axis = -3 if self.data_format == "channels_first" else -1
        channels = [self._equalize_channel(tf.gather(images, i, axis=axis))
                    for i in range(images.shape[axis])]
        return tf.cast(tf.stack(channels, axis=axis), self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


def _scale_values(values: Any, source: Any, target: Any) -> Any:
    """Equalization's linear map of `source` onto `target` (Python-number scale and offset)."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return values * scale + (target[0] - source[0] * scale)


def _factor_0_1(factor: Any, name: str, message: str) -> tuple:
    """Solarization's (lower, upper): a number f is (0, f)."""
    def check(value: float) -> None:
        if value > 1.0 or value < 0:
            raise ValueError(message + f"Received: input_number={value}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message + f"Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        check(factor)
        return 0, factor
    raise ValueError(message + f"Received: {name}={factor}")


class Solarization(_Seeded):
    """Adds a random `addition_factor` x 255 and inverts the values above a random
    `threshold_factor` x 255 (on the images mapped to [0, 255]); as Keras, the draws are
    uniform in [lower, upper x 255]."""

    _USE_BASE_FACTOR = False
    _MESSAGE = ("The `addition_factor` and `threshold_factor` arguments should be a number (or "
                "a list of two numbers) in the range [0, 1]. ")

    def __init__(self, addition_factor: Any = 0.0, threshold_factor: Any = 0.0,
                 value_range: Any = (0, 255), seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._make_generator(seed)
        self.addition_factor = _factor_0_1(addition_factor, "addition_factor", self._MESSAGE)
        self.threshold_factor = _factor_0_1(threshold_factor, "threshold_factor",
                                            self._MESSAGE)
        self.value_range = _checked_value_range(value_range)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        shape = (1, 1, 1) if images.shape.rank == 3 else (_batch_size(images), 1, 1, 1)
        additions = self._uniform(shape, self.addition_factor[0],
                                  self.addition_factor[1] * 255, self.compute_dtype)
        thresholds = self._uniform(shape, self.threshold_factor[0],
                                   self.threshold_factor[1] * 255, self.compute_dtype)
        return additions, thresholds

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        additions, thresholds = transformation
        results = _transform_value_range(images, self.value_range, (0, 255), self.compute_dtype)
        results = tf.clip_by_value(results + additions, 0, 255)
        results = tf.where(results < thresholds, results, 255 - results)
        results = _transform_value_range(results, (0, 255), self.value_range, self.compute_dtype)
        return _back_to_input_dtype(results, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "addition_factor": self.addition_factor,
                "threshold_factor": self.threshold_factor}


class RandomInvert(_Seeded):
    """Replaces an image x by value_range[1] - x with a random probability in `factor`."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, value_range: Any = (0, 255),
                 seed: Optional[int] = None, data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range   # as Keras: neither checked nor sorted
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch = _batch_size(images)
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        threshold = self._uniform((batch,), 0, 1)
        return threshold < probability

    def transform_images(self, images: Any, apply: Any, training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        return ops.where(tf.reshape(apply, [-1, 1, 1, 1]), self.value_range[1] - images, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class RandomGrayscale(_Seeded):
    """Turns each image into grayscale (its luma in every channel) with probability
    `factor`; the images keep their dtype. As Keras it draws with `training=False` too, and
    its config has no `seed`."""

    def __init__(self, factor: float = 0.5, data_format: Optional[str] = None,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor
        self.data_format = backend.standardize_data_format(data_format)
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        batch = 1 if images.shape.rank != 4 else _image_shape(images)[0]
        drawn = self._uniform((batch,), 0, 1)
        return tf.reshape(drawn < self.factor, [-1, 1, 1, 1])

    def transform_images(self, images: Any, apply: Any, training: bool = True) -> Any:
        if not training:
            return images
        gray = ops.image.rgb_to_grayscale(images, data_format=self.data_format)
        return ops.where(apply, gray, images)

    def get_config(self) -> dict:
        return {**BaseImagePreprocessingLayer.get_config(self), "factor": self.factor}


class RandomPosterization(_Seeded):
    """Keeps a random number of bits in [factor_lower, factor_upper) of each uint8 value
    (the images mapped to [0, 255] and truncated to integers). As Keras it draws with
    `training=False` too (where it returns the input unchanged)."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (1, 8)
    _MAX_FACTOR = 8

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: Optional[str] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        batch = _batch_size(images)
        if self.factor[0] != self.factor[1]:
            bits = keras_random.randint((batch,), self.factor[0], self.factor[1],
                                        dtype="uint8", seed=self.generator)
        else:
            bits = tf.ones((batch,), dtype="uint8") * self.factor[0]
        return self._MAX_FACTOR - bits

    def transform_images(self, images: Any, shift: Any, training: bool = True) -> Any:
        if not training:
            return images
        shift = tf.reshape(shift, [-1, 1, 1, 1])
        images = _transform_value_range(images, self.value_range, (0, 255), self.compute_dtype)
        images = tf.cast(images, "uint8")
        images = ops.left_shift(ops.right_shift(images, shift), shift)
        images = tf.cast(images, self.compute_dtype)
        return _transform_value_range(images, (0, 255), self.value_range, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


def _beta(batch: Any, alpha: Any, generator: Any, dtype: Optional[str] = None) -> Any:
    """`keras.random.beta((batch,), alpha, alpha)` on TensorFlow, for a batch size known only
    when the graph runs too: gammas X (the drawn seed) and Y (that seed + 12) with a scalar
    alpha, which draws the same numbers as Keras's alpha broadcast to (batch,)."""
    dtype = dtype or backend.floatx()
    seed = backend.draw_seed(generator)
    shape = tf.reshape(batch, [1]) if tf.is_tensor(batch) else [batch]
    alpha = tf.cast(alpha, dtype)
    gamma_a = tf.random.stateless_gamma(shape, seed=seed, alpha=alpha, dtype=dtype)
    gamma_b = tf.random.stateless_gamma(shape, seed=seed + 12, alpha=alpha, dtype=dtype)
    return gamma_a / (gamma_a + gamma_b)


class _Mixing(_Seeded):
    """MixUp and CutMix: they also take {"images": ..., "labels": ...} and mix the labels by
    each image's weight (Keras's `transform_labels`)."""

    def call(self, data: Any, training: Any = True) -> Any:
        if not isinstance(data, dict):
            return super().call(data, training=training)
        images = tf.convert_to_tensor(data["images"])
        transformation = self.get_random_transformation(images, training=training)
        out = dict(data)
        if self._is_batched(images):
            out["images"] = self.transform_images(images, transformation, training=training)
            if "labels" in data:
                out["labels"] = self.transform_labels(tf.convert_to_tensor(data["labels"]),
                                                      transformation, training=training)
            return out
        image = self.transform_images(tf.expand_dims(images, 0), transformation,
                                      training=training)
        out["images"] = tf.squeeze(image, 0)
        if "labels" in data:
            labels = tf.expand_dims(tf.convert_to_tensor(data["labels"]), 0)
            out["labels"] = tf.squeeze(self.transform_labels(labels, transformation,
                                                             training=training), 0)
        return out

    def transform_labels(self, labels: Any, transformation: Any, training: bool = True) -> Any:
        """`labels` mixed as the images: w x labels + (1 - w) x the permuted labels."""
        if not training or transformation is None:
            return labels
        weight, order = transformation[0], transformation[1]
        weight = tf.reshape(weight, [-1, 1])
        return weight * labels + (1.0 - weight) * tf.gather(labels, order, axis=0)


class MixUp(_Mixing):
    """Mixes each image with another of the batch (a random permutation) by a weight drawn
    from Beta(`alpha`, `alpha`). As Keras it draws with `training=False` too."""

    def __init__(self, alpha: float = 0.2, data_format: Optional[str] = None,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        batch = 1 if images.shape.rank == 3 else _image_shape(images)[0]
        order = keras_random.shuffle(tf.range(0, batch, dtype="int64"), seed=self.generator)
        return _beta(batch, self.alpha, self.generator), order

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        if not training:
            return images
        weight, order = transformation
        images = tf.cast(images, self.compute_dtype)
        weight = tf.cast(tf.reshape(weight, [-1, 1, 1, 1]), self.compute_dtype)
        mixed = tf.cast(tf.gather(images, order, axis=0), self.compute_dtype)
        return weight * images + (1.0 - weight) * mixed

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class RandomSaturation(_ValueRanged):
    """Scales each image's HSV saturation by f / (1 - f + epsilon), f uniform in `factor`.
    The images go to HSV as they are (Keras expects [0, 1] floats; the saturation is
    clipped to `value_range`). As Keras it draws with `training=False` too."""

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: Optional[str] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._init_colour(factor, value_range, seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        factor = self._uniform((_batch_size(images),), self.factor[0], self.factor[1])
        return factor / (1 - factor + backend.epsilon())

    def transform_images(self, images: Any, factor: Any, training: bool = True) -> Any:
        if not training:
            return images
        factor = tf.reshape(tf.cast(factor, self.compute_dtype), [-1, 1, 1])
        hsv = ops.image.rgb_to_hsv(images, data_format=self.data_format)
        axis = 1 if self.data_format == "channels_first" else -1
        h, s, v = (tf.gather(hsv, i, axis=axis) for i in range(3))
        s = tf.clip_by_value(s * factor, self.value_range[0], self.value_range[1])
        return ops.image.hsv_to_rgb(tf.stack([h, s, v], axis=axis),
                                    data_format=self.data_format)


class RandomHue(_Seeded):
    """Shifts each image's hue by +-f / 2, f uniform in `factor` (the sign a fair coin). As
    Keras it draws with `training=False` too."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: Optional[str] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range   # as Keras: neither checked nor sorted
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        batch = _batch_size(images)
        invert = self._uniform((batch,), 0.0, 1.0)
        invert = tf.where(invert > 0.5, -tf.ones_like(invert), tf.ones_like(invert))
        factor = self._uniform((batch,), self.factor[0], self.factor[1])
        return invert * factor * 0.5

    def transform_images(self, images: Any, factor: Any, training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        images = _transform_value_range(images, self.value_range, (0, 1))
        factor = tf.reshape(tf.cast(factor, images.dtype), [-1, 1, 1])
        hsv = ops.image.rgb_to_hsv(images, data_format=self.data_format)
        axis = 1 if self.data_format == "channels_first" else -1
        h, s, v = (tf.gather(hsv, i, axis=axis) for i in range(3))
        h = h + factor
        h = tf.where(h > 1.0, h - 1.0, h)
        h = tf.where(h < 0.0, h + 1.0, h)
        rgb = ops.image.hsv_to_rgb(tf.stack([h, s, v], axis=axis), data_format=self.data_format)
        rgb = _transform_value_range(tf.clip_by_value(rgb, 0, 1), (0, 1), self.value_range)
        return tf.cast(rgb, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class RandomColorDegeneration(_ValueRanged):
    """Blends each image towards its grayscale by a factor uniform in `factor`, clipped to
    `value_range`. As Keras it draws with `training=False` too."""

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: Optional[str] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._init_colour(factor, value_range, seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        return self._uniform((_batch_size(images), 1, 1, 1), self.factor[0], self.factor[1])

    def transform_images(self, images: Any, factor: Any, training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        factor = tf.cast(factor, self.compute_dtype)
        gray = ops.image.rgb_to_grayscale(images, data_format=self.data_format)
        images = images + factor * (gray - images)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])


class RandomSharpness(_ValueRanged):
    """Blends each image with a 3x3 smoothing of itself by 1 - 2f, f uniform in `factor`
    (sharper for f > 1/2), clipped to `value_range`. As Keras it draws with
    `training=False` too."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: Optional[str] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._init_colour(factor, value_range, seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        return self._uniform((_batch_size(images),), self.factor[0], self.factor[1])

    def transform_images(self, images: Any, factor: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        if self.data_format == "channels_first":
            images = ops.swapaxes(images, -3, -1)
        sharpness = tf.reshape(tf.cast(factor * 2, self.compute_dtype), [-1, 1, 1, 1])
        channels = _image_shape(images)[-1]
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = tf.constant([[a, a, a], [a, b, a], [a, a, a]], dtype=self.compute_dtype)
        kernel = tf.tile(tf.reshape(kernel, (3, 3, 1, 1)), [1, 1, channels, 1])
        smoothed = tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")
        images = images + (1.0 - sharpness) * (tf.cast(smoothed, self.compute_dtype) - images)
        images = tf.clip_by_value(images, self.value_range[0], self.value_range[1])
        if self.data_format == "channels_first":
            images = ops.swapaxes(images, -3, -1)
        return images


def _crop_bounds(batch: Any, length: Any, ratio: Any, generator: Any, dtype: str) -> tuple:
    """CutMix/RandomErasing's box along one axis: a length ratio x `length` at a uniform
    start in [0, length - that)."""
    crop = tf.cast(ratio * _float(length, ratio.dtype), dtype)
    start = backend.random_uniform((batch,), 0, 1, dtype, generator) * (
        _float(length, dtype) - crop)
    return start, start + crop


def _float(size: Any, dtype: Any) -> Any:
    """An image size (an int, or a scalar tensor read at run time) in a float dtype."""
    return tf.cast(size, dtype) if tf.is_tensor(size) else tf.constant(float(size), dtype)


def _box_masks(height: Any, width: Any, box: tuple, data_format: str, dtype: str) -> Any:
    """(batch, h, w, 1) (or channels first) masks of the pixels inside each image's box
    [x0, x1) x [y0, y1) (Keras's `_generate_batch_mask`, before its repeat on channels:
    `where` broadcasts the same values)."""
    grid_y, grid_x = tf.meshgrid(tf.range(height, dtype=dtype), tf.range(width, dtype=dtype),
                                 indexing="ij")
    expand = (lambda g: g[None, :, :, None]) if data_format == "channels_last" else \
        (lambda g: g[None, None, :, :])
    grid_x, grid_y = expand(grid_x), expand(grid_y)
    x0, x1, y0, y1 = (tf.reshape(v, [-1, 1, 1, 1]) for v in box)
    return (grid_x >= x0) & (grid_x < x1) & (grid_y >= y0) & (grid_y < y1)


def _hw(images: Any, data_format: str) -> tuple:
    shape = _image_shape(images)
    return (shape[-2], shape[-1]) if data_format == "channels_first" else (shape[-3], shape[-2])


class CutMix(_Mixing):
    """Pastes a random box of another image of the batch (a random permutation) into each
    image; the box's area is 1 - w, w drawn from Beta(a, a), a uniform in `factor`. Labels
    (given as {"images", "labels"}) are mixed by the pasted area. A single image, or
    `training=False`, is returned cast to the compute dtype."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training or images.shape.rank == 3:
            return None
        dtype = self.compute_dtype
        batch = _batch_size(images)
        height, width = _hw(images, self.data_format)
        alpha = self._uniform((), self.factor[0], self.factor[1], dtype) + 1e-6
        ratio = tf.sqrt(1.0 - _beta(batch, alpha, self.generator, dtype))
        x0, x1 = _crop_bounds(batch, width, ratio, self.generator, dtype)
        y0, y1 = _crop_bounds(batch, height, ratio, self.generator, dtype)
        masks = _box_masks(height, width, (x0, x1, y0, y1), self.data_format, dtype)
        weight = 1.0 - (x1 - x0) * (y1 - y0) / (_float(width, dtype) * _float(height, dtype))
        order = keras_random.shuffle(tf.range(0, batch, dtype="int32"), seed=self.generator)
        return weight, order, masks

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        _, order, masks = transformation
        return ops.where(masks, tf.gather(images, order, axis=0), images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}


class RandomErasing(_Seeded):
    """Fills a random box of each image (its area a fraction in `scale` along each side
    squared) with `fill_value` (or Gaussian noise x value_range[1]) clipped to
    `value_range`, with a probability drawn in `factor`."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _FILL_MESSAGE = "The `fill_value` argument should be a number (or a list of three numbers) "

    def __init__(self, factor: Any = 1.0, scale: Any = (0.02, 0.33), fill_value: Any = None,
                 value_range: Any = (0, 255), seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = _named_range(scale, "scale", self._FACTOR_BOUNDS)
        self.fill_value = fill_value
        self.value_range = value_range   # as Keras: neither checked nor sorted
        self._make_generator(seed)

    def _fill(self, images: Any, shape: Any) -> Any:
        dtype = self.compute_dtype
        if self.fill_value is None:
            fill = backend.random_normal(shape, 0.0, 1.0, dtype, self.generator) * \
                self.value_range[1]
        elif isinstance(self.fill_value, (tuple, list)):
            if len(self.fill_value) != 3:
                raise ValueError(self._FILL_MESSAGE)
            fill = tf.zeros_like(images, dtype=dtype) + tf.constant(self.fill_value, dtype)
        elif isinstance(self.fill_value, (int, float)):
            fill = tf.ones(shape, dtype=dtype) * self.fill_value
        else:
            raise ValueError(self._FILL_MESSAGE)
        return tf.clip_by_value(fill, self.value_range[0], self.value_range[1])

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        dtype = self.compute_dtype
        batch = _batch_size(images)
        height, width = _hw(images, self.data_format)
        sides = tf.sqrt(self._uniform((batch, 2), self.scale[0], self.scale[1], dtype))
        x0, x1 = _crop_bounds(batch, width, sides[:, 0], self.generator, dtype)
        y0, y1 = _crop_bounds(batch, height, sides[:, 1], self.generator, dtype)
        masks = _box_masks(height, width, (x0, x1, y0, y1), self.data_format, dtype)
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        shape = tuple(_image_shape(images))
        return apply, masks, self._fill(images, shape)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        apply, masks, fill = transformation
        erased = ops.where(masks, fill, images)
        return ops.where(tf.reshape(apply, [-1, 1, 1, 1]), erased, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "fill_value": self.fill_value, "value_range": self.value_range}


def _drawing_from(generator: Any, *layers: Any) -> None:
    """Makes `layers` draw from `generator`: Keras's composite layers pass their own
    generator to their sub-layers' draws (each sub-layer keeps the generator it made, as
    Keras, but never draws from it)."""
    for layer in layers:
        if layer is not None:
            layer.generator = generator


class RandomColorJitter(_Seeded):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn (those whose
    factor is given), each drawing from this layer's generator."""

    def __init__(self, value_range: Any = (0, 255), brightness_factor: Any = None,
                 contrast_factor: Any = None, saturation_factor: Any = None,
                 hue_factor: Any = None, seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        self._make_generator(seed)
        self._steps = []
        for factor, cls in ((brightness_factor, _image.RandomBrightness),
                            (contrast_factor, _image.RandomContrast),
                            (saturation_factor, RandomSaturation), (hue_factor, RandomHue)):
            if factor is not None:
                self._steps.append(cls(factor=factor, value_range=value_range, seed=seed))
        _drawing_from(self.generator, *self._steps)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        for step in self._steps:
            drawn = step.get_random_transformation(images, training=True)
            images = step.transform_images(images, drawn, training=True)
        return tf.cast(images, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor}


def _named_range(factor: Any, name: str, bounds: tuple) -> tuple:
    """Keras's `_set_factor_by_name` (RandomErasing's `scale`, RandomGaussianBlur's
    `sigma`): the base layer's factor rule, with the argument's name in the error."""
    low, high = bounds
    message = (f"The `{name}` argument should be a number (or a list of two numbers) in the "
               f"range [{low}, {high}]. Received: factor={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > high or factor[1] < low:
            raise ValueError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        if factor < low or factor > high:
            raise ValueError(message)
        return max(-abs(factor), low), abs(factor)
    raise ValueError(message)


def _kernel_size(size: Any) -> tuple:
    message = f"kernel_size must be an odd number. Received: kernel_size={size}"
    if isinstance(size, (tuple, list)):
        if len(size) != 2:
            raise ValueError(f"The `kernel_size` argument should be a number (or a list of two "
                             f"numbers) Received: kernel_size={size}")
        if size[0] % 2 == 0 or size[1] % 2 == 0:
            raise ValueError(message)
        return size[0], size[1]
    if isinstance(size, (int, float)):
        if size % 2 == 0:
            raise ValueError(message)
        return size, size
    raise ValueError(message)


class RandomGaussianBlur(_Seeded):
    """Blurs each image, with a probability drawn in `factor`, by a Gaussian of
    `kernel_size` whose (height, width) sigmas are drawn in `sigma` (one pair for the whole
    batch, as Keras); clipped to `value_range`."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, kernel_size: Any = 3, sigma: Any = 1.0,
                 value_range: Any = (0, 255), data_format: Optional[str] = None,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.kernel_size = _kernel_size(kernel_size)
        self.sigma = _named_range(sigma, "sigma", self._FACTOR_BOUNDS)
        self.value_range = value_range   # as Keras: neither checked nor sorted
        self._make_generator(seed)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch = _batch_size(images)
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        sigma = self._uniform((2,), self.sigma[0], self.sigma[1], self.compute_dtype) + 1e-6
        return apply, sigma

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        apply, sigma = transformation
        blurred = ops.image.gaussian_blur(images, kernel_size=self.kernel_size, sigma=sigma,
                                          data_format=self.data_format)
        images = ops.where(tf.reshape(apply, [-1, 1, 1, 1]), blurred, images)
        images = tf.clip_by_value(images, self.value_range[0], self.value_range[1])
        return tf.cast(images, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "kernel_size": self.kernel_size,
                "sigma": self.sigma, "value_range": self.value_range}


class RandomShear(_Seeded):
    """Shears each image by factors drawn in `x_factor` and `y_factor` (one random sign for
    both), through Keras's affine transform."""

    _USE_BASE_FACTOR = False
    _MESSAGE = ("The `factor` argument should be a number (or a list of two numbers) in the "
                "range [0, 1.0]. ")

    def __init__(self, x_factor: Any = 0.0, y_factor: Any = 0.0,
                 interpolation: str = "bilinear", fill_mode: str = "reflect",
                 fill_value: float = 0.0, data_format: Optional[str] = None,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.x_factor = self._factor(x_factor, "x_factor")
        self.y_factor = self._factor(y_factor, "y_factor")
        _image._check_fill(fill_mode, interpolation)
        self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, \
            interpolation
        self._make_generator(seed)

    def _factor(self, factor: Any, name: str) -> tuple:
        """(lower, upper), a number f being (-f, f), each bound in [0, 1] (so a config's
        (-f, f) is refused again, as Keras)."""
        def check(value: float) -> None:
            if value > 1.0 or value < 0.0:
                raise ValueError(self._MESSAGE + f"Received: input_number={value}")
        return _image._factor_range(factor, name, self._MESSAGE, check)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch = 1 if images.shape.rank == 3 else _image_shape(images)[0]
        dtype = self.compute_dtype
        invert = self._uniform((batch, 1), 0, 1, dtype)
        invert = tf.where(invert > 0.5, -tf.ones_like(invert), tf.ones_like(invert))
        shear_y = self._uniform((batch, 1), self.y_factor[0], self.y_factor[1], dtype)
        shear_x = self._uniform((batch, 1), self.x_factor[0], self.x_factor[1], dtype)
        return tf.cast(tf.concat([shear_x, shear_y], axis=1), dtype) * invert

    def _transform(self, images: Any, shear: Any) -> Any:
        if shear is None:
            return images
        ones, zeros = tf.ones_like(shear[:, 0]), tf.zeros_like(shear[:, 0])
        matrix = tf.stack([ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros],
                          axis=1)
        return ops.image.affine_transform(images, matrix, interpolation=self.interpolation,
                                          fill_mode=self.fill_mode,
                                          fill_value=self.fill_value,
                                          data_format=self.data_format)

    def get_config(self) -> dict:
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor,
                "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                "fill_value": self.fill_value, "data_format": self.data_format}


class RandomPerspective(_Seeded):
    """Moves each image's corners by random fractions (up to `scale` / 2) of its size and
    warps it accordingly, with a probability drawn in `factor`. As Keras, it needs the
    height and width known while tracing."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, scale: float = 1.0, interpolation: str = "bilinear",
                 fill_value: float = 0.0, seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale, self.fill_value, self.interpolation = scale, fill_value, interpolation
        self._make_generator(seed)
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. "
                             f"Received: scale={scale}")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      f"one ('nearest', 'bilinear').")

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        batch = 1 if images.shape.rank == 3 else _image_shape(images)[0]
        h_axis, w_axis = (-2, -1) if self.data_format == "channels_first" else (-3, -2)
        height, width = images.shape[h_axis], images.shape[w_axis]
        if height is None or width is None:
            # Keras builds its corner points from the static sizes: a None there fails
            raise TypeError(f"RandomPerspective needs the images' height and width known "
                            f"while tracing. Received: images.shape={tuple(images.shape)}")
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        moves = self._uniform((batch, 4, 2), -0.5 * self.scale, 0.5 * self.scale,
                              self.compute_dtype)
        corners = tf.constant([[[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1],
                                [width - 1, height - 1]]], dtype=self.compute_dtype)
        start = tf.repeat(corners, tf.reshape(batch, [1]) if tf.is_tensor(batch) else batch,
                          axis=0)
        return apply, start, start + start * moves

    def _transform(self, images: Any, transformation: Any) -> Any:
        if transformation is None:
            return images
        apply, start, end = transformation
        warped = ops.image.perspective_transform(images, start, end,
                                                 interpolation=self.interpolation,
                                                 fill_value=self.fill_value,
                                                 data_format=self.data_format)
        return ops.where(tf.reshape(apply, [-1, 1, 1, 1]), warped, images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


def _augmenters(owner: Any, names: list, data_format: Optional[str], kwargs: dict) -> dict:
    """RandAugment/AugMix's sub-layers by Keras's names, made as Keras makes them (seeded
    with the owner's seed, the factor its own), drawing from the owner's generator."""
    factor, value_range, seed = owner.factor, owner.value_range, owner.seed
    interpolation = owner.interpolation
    common = {"data_format": data_format, **kwargs}
    makers = {
        "random_shear": lambda: RandomShear(x_factor=factor, y_factor=factor,
                                            interpolation=interpolation, seed=seed, **common),
        "random_translation": lambda: _image.RandomTranslation(
            height_factor=factor, width_factor=factor, interpolation=interpolation, seed=seed,
            **common),
        "random_rotation": lambda: _image.RandomRotation(
            factor=factor, interpolation=interpolation, seed=seed, **common),
        "random_brightness": lambda: _image.RandomBrightness(
            factor=factor, value_range=value_range, seed=seed, **common),
        "random_color_degeneration": lambda: RandomColorDegeneration(
            factor=factor, value_range=value_range, seed=seed, **common),
        "random_contrast": lambda: _image.RandomContrast(
            factor=factor, value_range=value_range, seed=seed, **common),
        "random_sharpness": lambda: RandomSharpness(factor=factor, value_range=value_range,
                                                    seed=seed, **common),
        "solarization": lambda: Solarization(addition_factor=factor, threshold_factor=factor,
                                             value_range=value_range, seed=seed, **common),
        "random_posterization": lambda: RandomPosterization(
            factor=max(1, int(8 * factor[1])), value_range=value_range, seed=seed, **common),
        "auto_contrast": lambda: AutoContrast(value_range=value_range, **common),
        "equalization": lambda: Equalization(value_range=value_range, **common),
    }
    order = ["random_shear", "random_translation", "random_rotation", "random_brightness",
             "random_color_degeneration", "random_contrast", "random_sharpness",
             "solarization", "random_posterization", "auto_contrast", "equalization"]
    layers = {name: makers[name]() for name in order if name in names}
    _drawing_from(owner.generator, *(layer for layer in layers.values()
                                     if hasattr(layer, "generator")))
    return {name: layers[name] for name in names}


class RandAugment(_Seeded):
    """`num_ops` times, one of eleven augmentations chosen at random for the whole batch
    (shear, translation, rotation, brightness, colour degeneration, contrast, sharpness,
    posterization, solarization, auto-contrast, equalization) of strength `factor`. As
    Keras, every augmentation draws its numbers and is computed on every step; `where`
    keeps the chosen one."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _AUGMENT_LAYERS = ["random_shear", "random_translation", "random_rotation",
                       "random_brightness", "random_color_degeneration", "random_contrast",
                       "random_sharpness", "random_posterization", "solarization",
                       "auto_contrast", "equalization"]

    def __init__(self, value_range: Any = (0, 255), num_ops: int = 2, factor: Any = 0.5,
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.value_range, self.num_ops = value_range, num_ops
        self._set_factor(factor)
        self.interpolation = interpolation
        self._make_generator(seed)
        self._augmenters = _augmenters(self, self._AUGMENT_LAYERS, data_format, kwargs)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        chosen = keras_random.randint((self.num_ops,), 0, len(self._AUGMENT_LAYERS),
                                      seed=self.generator)
        drawn = [layer.get_random_transformation(images, training=True)
                 for layer in self._augmenters.values()]
        return chosen, drawn

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        chosen, drawn = transformation
        for i in range(self.num_ops):
            for index, (layer, value) in enumerate(zip(self._augmenters.values(), drawn)):
                images = ops.where(chosen[i] == index, layer.transform_images(images, value),
                                   images)
        return tf.cast(images, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_ops": self.num_ops, "factor": self.factor,
                "interpolation": self.interpolation}


class AugMix(_Seeded):
    """`num_chains` chains of up to `chain_depth` random augmentations, mixed by Dirichlet
    weights and blended with the input by a Beta(`alpha`, `alpha`) weight. As Keras, each
    chain's augmentations are chosen with Python's global `random` (once per trace in a
    graph), and the whole batch takes the same ones."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _ALL = ["random_shear", "random_translation", "random_rotation", "random_posterization",
            "solarization", "auto_contrast", "equalization", "random_brightness",
            "random_color_degeneration", "random_contrast", "random_sharpness"]

    def __init__(self, value_range: Any = (0, 255), num_chains: int = 3, chain_depth: int = 3,
                 factor: Any = 0.3, alpha: float = 1.0, all_ops: bool = True,
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.value_range, self.num_chains, self.chain_depth = value_range, num_chains, \
            chain_depth
        self._set_factor(factor)
        self.alpha, self.all_ops, self.interpolation = alpha, all_ops, interpolation
        self._make_generator(seed)
        self._names = self._ALL if all_ops else self._ALL[:7]
        self._augmenters = _augmenters(self, self._names, data_format, kwargs)

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training:
            return None
        gammas = keras_random.gamma([self.num_chains], self.alpha, seed=self.generator)
        chain_weights = gammas / tf.reduce_sum(gammas, axis=-1, keepdims=True)
        weight = keras_random.beta((), self.alpha, self.alpha, seed=self.generator)
        chains = []
        for _ in range(self.num_chains):
            chain = []
            for _ in range(self.chain_depth):
                name = _python_random.choice(self._names + [None])
                if name is not None:
                    layer = self._augmenters[name]
                    chain.append((layer, layer.get_random_transformation(images)))
            chains.append(chain)
        return chain_weights, weight, chains

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        chain_weights, weight, chains = transformation
        chain_weights = tf.cast(chain_weights, self.compute_dtype)
        weight = tf.cast(weight, self.compute_dtype)
        mixed = tf.zeros_like(images)
        for index, chain in enumerate(chains):
            chained = images
            for layer, drawn in chain:
                chained = layer.transform_images(chained, drawn)
            mixed += chained * chain_weights[index]
        images = weight * images + (1 - weight) * mixed
        images = tf.clip_by_value(images, self.value_range[0], self.value_range[1])
        return tf.cast(images, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_chains": self.num_chains, "chain_depth": self.chain_depth,
                "factor": self.factor, "alpha": self.alpha, "all_ops": self.all_ops,
                "interpolation": self.interpolation}


class RandomElasticTransform(_Seeded):
    """Displaces each image's pixels by a smooth random field (Keras's `elastic_transform`,
    drawn from this layer's generator when the images are transformed), with a probability
    drawn in `factor`; the field's strength is drawn in `scale` for the whole batch. Clipped
    to `value_range`."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}

    def __init__(self, factor: Any = 1.0, scale: Any = 1.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0,
                 value_range: Any = (0, 255), seed: Optional[int] = None,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = _named_range(scale, "scale", self._FACTOR_BOUNDS)
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, \
            fill_value
        self.value_range = value_range   # as Keras: neither checked nor sorted
        self._make_generator(seed)
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      f"one ('nearest', 'bilinear').")
        if fill_mode not in self._FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                      f"{self._FILL_MODES}.")

    def get_random_transformation(self, images: Any, training: bool = True) -> Any:
        if not training or self.scale[1] == 0 or self.factor[1] == 0:
            return None
        batch = _batch_size(images)
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        apply = self._uniform((batch,), 0.0, 1.0) < probability
        distortion = self._uniform((), self.scale[0], self.scale[1], self.compute_dtype)
        return apply, distortion

    def _transform(self, images: Any, transformation: Any) -> Any:
        if transformation is None:
            return images
        apply, distortion = transformation
        h_axis, w_axis = _image._hw_axes(self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        alpha = max(height, width) * (0.1 * distortion)
        sigma = min(height, width) * (0.05 * distortion)
        warped = ops.image.elastic_transform(images, alpha=alpha, sigma=sigma,
                                             interpolation=self.interpolation,
                                             fill_mode=self.fill_mode,
                                             fill_value=self.fill_value, seed=self.generator,
                                             data_format=self.data_format)
        images = ops.where(tf.reshape(apply, [-1, 1, 1, 1]), warped, images)
        images = tf.clip_by_value(images, self.value_range[0], self.value_range[1])
        return tf.cast(images, self.compute_dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "value_range": self.value_range}


class ContrastLimitedAdaptiveHistogramEqualization(BaseImagePreprocessingLayer):
    """CLAHE: each channel equalized by the histograms of a `tile_grid_size` grid of tiles
    (clipped at `clip_limit` x the mean count, the excess spread evenly), bilinearly
    interpolated between tiles; the image symmetric-padded to whole tiles. As Keras it
    transforms with `training=False` too, and returns the input's dtype."""

    def __init__(self, value_range: Any = (0, 255), clip_limit: float = 4.0,
                 tile_grid_size: Any = (8, 8), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_range = value_range
        self.clip_limit = clip_limit
        self.tile_grid_size = tile_grid_size
        self.data_format = backend.standardize_data_format(data_format)

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        images = _image._to_last(images, self.data_format)
        original_dtype = images.dtype
        images = _transform_value_range(images, self.value_range, (0, 255), "float32")
        images = self._clahe(tf.cast(images, "float32"))
        images = _transform_value_range(images, (0, 255), self.value_range, "float32")
        return _image._to_first(tf.cast(images, original_dtype), self.data_format)

    def _clahe(self, images: Any) -> Any:
        batch, height, width, channels = _image_shape(images)
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = (height + grid_h - 1) // grid_h, (width + grid_w - 1) // grid_w
        padded = _symmetric_pad(images, tile_h * grid_h - height, tile_w * grid_w - width)
        cdf = self._tile_cdfs(padded, batch, channels, (grid_h, grid_w), (tile_h, tile_w))
        # (batch, grid_h + 2, grid_w + 2, channels, 256): the border tiles repeated
        cdf = tf.concat([cdf[:, 0:1], cdf, cdf[:, -1:]], axis=1)
        cdf = tf.concat([cdf[:, :, 0:1], cdf, cdf[:, :, -1:]], axis=2)
        y0, y1, wy = _tile_weights(tile_h * grid_h, tile_h, grid_h)
        x0, x1, wx = _tile_weights(tile_w * grid_w, tile_w, grid_w)
        stride_x = 256 * channels
        stride_y = stride_x * (grid_w + 2)
        stride_b = stride_y * (grid_h + 2)
        flat = tf.reshape(cdf, [-1])
        pixels = tf.cast(tf.clip_by_value(padded, 0.0, 255.0), "int32")
        base = tf.range(batch, dtype="int32")[:, None, None, None] * stride_b + \
            tf.range(channels, dtype="int32")[None, None, None, :] * 256 + pixels

        def corner(y: Any, x: Any) -> Any:
            return tf.gather(flat, base + y[None, :, None, None] * stride_y +
                             x[None, None, :, None] * stride_x)

        wx, wy = wx[None, None, :, None], wy[None, :, None, None]
        top = corner(y0, x0) * (1.0 - wx) + corner(y0, x1) * wx
        bottom = corner(y1, x0) * (1.0 - wx) + corner(y1, x1) * wx
        result = top * (1.0 - wy) + bottom * wy
        return result[:, :height, :width, :]

    def _tile_cdfs(self, padded: Any, batch: Any, channels: Any, grid: tuple,
                   tile: tuple) -> Any:
        """Each tile's normalized, clipped cumulative histogram (Keras's float32 numbers;
        the counts by bincount rather than a one-hot sum, which holds 256 floats a pixel)."""
        (grid_h, grid_w), (tile_h, tile_w) = grid, tile
        tiled = tf.reshape(padded, (batch, grid_h, tile_h, grid_w, tile_w, channels))
        tiled = tf.transpose(tiled, (0, 1, 3, 5, 2, 4))
        values = tf.clip_by_value(tf.cast(tiled, "int32"), 0, 255)
        tiles = batch * grid_h * grid_w * channels
        offsets = tf.reshape(tf.range(tiles, dtype="int32") * 256,
                             (batch, grid_h, grid_w, channels, 1, 1))
        counts = tf.math.bincount(tf.reshape(values + offsets, [-1]), minlength=tiles * 256,
                                  maxlength=tiles * 256)
        hists = tf.cast(tf.reshape(counts, (batch, grid_h, grid_w, channels, 256)), "float32")
        if self.clip_limit > 0:
            limit = tf.cast(self.clip_limit * (tile_h * tile_w) / 256.0, hists.dtype)
            clipped = tf.clip_by_value(hists, 0.0, limit)
            hists = clipped + tf.reduce_sum(hists - clipped, axis=-1, keepdims=True) / 256.0
        cdf = tf.cumsum(hists, axis=-1)
        cdf_min = tf.reduce_min(cdf, axis=-1, keepdims=True)
        denominator = tf.cast(tile_h * tile_w, cdf.dtype) - cdf_min
        denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        return tf.clip_by_value((cdf - cdf_min) * 255.0 / denominator, 0.0, 255.0)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "clip_limit": self.clip_limit, "tile_grid_size": self.tile_grid_size,
                "data_format": self.data_format}


def _symmetric_pad(images: Any, pad_h: Any, pad_w: Any) -> Any:
    """Channels-last images padded at the bottom and right by mirroring (edge included)."""
    if isinstance(pad_h, int) and isinstance(pad_w, int) and pad_h == 0 and pad_w == 0:
        return images
    return tf.pad(images, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]], mode="SYMMETRIC")


def _tile_weights(size: Any, tile: Any, grid: int) -> tuple:
    """For each row (or column) of the padded image: the indices of the two tile centres
    around it in the border-extended grid, and its weight towards the second."""
    position = (tf.range(size, dtype="float32") - (_float(tile, "float32") / 2.0)) / \
        _float(tile, "float32") + 1.0
    low = tf.floor(position)
    weight = position - low
    low_index = tf.cast(tf.clip_by_value(low, 0.0, float(grid + 1)), "int32")
    high_index = tf.cast(tf.clip_by_value(low + 1.0, 0.0, float(grid + 1)), "int32")
    return low_index, high_index, weight


class MaxNumBoundingBoxes(BaseImagePreprocessingLayer):
    """Pads (with `fill_value`) or truncates the `bounding_boxes` of
    {"images": ..., "bounding_boxes": {"boxes": ..., "labels": ...}} to `max_number` boxes
    an image; images pass unchanged. As Keras, its config leaves out `fill_value`."""

    def __init__(self, max_number: int, fill_value: int = -1, **kwargs: Any) -> None:
        # Keras's base layer takes `bounding_box_format` (needed for boxes)
        self.bounding_box_format = kwargs.pop("bounding_box_format", None)
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def transform_images(self, images: Any, transformation: Any = None,
                         training: bool = True) -> Any:
        return images

    def call(self, data: Any, training: Any = True) -> Any:
        if not isinstance(data, dict):
            return super().call(data, training=training)
        images = tf.convert_to_tensor(data["images"])
        batched = self._is_batched(images)
        out = dict(data, images=images)
        if "bounding_boxes" in data:
            if not self.bounding_box_format:
                raise ValueError(
                    "You passed an input with a 'bounding_boxes' key, but you didn't specify a "
                    "bounding box format. Pass a `bounding_box_format` argument to your "
                    f"{type(self).__name__} layer, e.g. `bounding_box_format='xyxy'`.")
            boxes = _dense_boxes(data["bounding_boxes"])
            if not batched:
                boxes = {key: tf.expand_dims(value, 0) for key, value in boxes.items()}
            boxes = self.transform_bounding_boxes(boxes)
            if not batched:
                boxes = {key: tf.squeeze(value, 0) for key, value in boxes.items()}
            out["bounding_boxes"] = boxes
        return out

    def transform_bounding_boxes(self, bounding_boxes: dict, transformation: Any = None,
                                 training: bool = True) -> dict:
        """The boxes (batch, n, 4) and labels (batch, n) cut or padded to `max_number`."""
        boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
        shape = _image_shape(boxes)
        batch, count = shape[0], shape[1]
        pad = tf.maximum(self.max_number - count, 0)
        boxes = tf.pad(boxes[:, :self.max_number, ...], [[0, 0], [0, pad], [0, 0]],
                       constant_values=tf.cast(self.fill_value, boxes.dtype))
        labels = tf.pad(labels[:, :self.max_number], [[0, 0], [0, pad]],
                        constant_values=tf.cast(self.fill_value, labels.dtype))
        return {**bounding_boxes, "boxes": tf.reshape(boxes, [batch, self.max_number, 4]),
                "labels": tf.reshape(labels, [batch, self.max_number])}

    def get_config(self) -> dict:
        config = {**super().get_config(), "max_number": self.max_number}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


def _dense_boxes(bounding_boxes: Any) -> dict:
    """Keras's densify_bounding_boxes for dense boxes: the boxes as float32. (Ragged boxes
    do not reach here: tapeflow's Layer call takes no ragged inputs.)"""
    if not isinstance(bounding_boxes, dict) or "labels" not in bounding_boxes or \
            "boxes" not in bounding_boxes:
        raise ValueError("Expected `bounding_boxes` agurment to be a dict with keys 'boxes' and "
                         f"'labels'. Received: bounding_boxes={bounding_boxes}")
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    return {**bounding_boxes, "boxes": tf.cast(tf.convert_to_tensor(boxes), "float32"),
            "labels": tf.convert_to_tensor(labels)}
