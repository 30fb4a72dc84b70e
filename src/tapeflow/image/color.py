"""`tf.image`'s colour-space conversions and colour adjustments, and image dtype conversion."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.errors import FailedPreconditionError
from tapeflow.image._common import _F32, _bind, _no_gradient, _numpy_op

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_gamma", "rgb_to_grayscale",
           "grayscale_to_rgb", "convert_image_dtype", "per_image_standardization",
           "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb",
           "adjust_hue", "adjust_saturation", "adjust_jpeg_quality"]

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
    # TF's count, read as the graph runs where tracing does not know the image's size
    num_pixels = int(np.prod(image.shape.as_list()[-3:])) if \
        image.shape[-3:].is_fully_defined() else tf.reduce_prod(tf.shape(image)[-3:])
    mean = tf.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = tf.math.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    adjusted = tf.maximum(stddev, tf.math.rsqrt(tf.cast(num_pixels, tf.float32)))
    return tf.math.divide(image - mean, adjusted)


# -- colour spaces ------------------------------------------------------------------------------

def _split_rgb(x: np.ndarray, op: str) -> tuple:
    if x.shape[-1:] != (3,):
        raise FailedPreconditionError(f"input must have 3 channels but input only has "
                                      f"{x.shape[-1] if x.ndim else 0} channels. [Op:{op}]")
    return x[..., 0], x[..., 1], x[..., 2]


def _rgb_to_hsv_kernel(x: np.ndarray) -> np.ndarray:
    """TF's RGBToHSV functor, in the input's float dtype."""
    r, g, b = _split_rgb(x, "RGBToHSV")
    t = x.dtype.type
    with np.errstate(all="ignore"):
        v = np.maximum(np.maximum(r, g), b)
        rng = v - np.minimum(np.minimum(r, g), b)
        s = np.where(v > 0, rng / v, t(0))
        norm = (t(1) / rng) * (t(1) / t(6))
        h = np.where(r == v, norm * (g - b), np.where(
            g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)))
        h = np.where(rng > 0, h, t(0))
        h = np.where(h < 0, h + t(1), h)
    return np.stack([h, s, v], -1).astype(x.dtype)


def _hsv_to_rgb_kernel(x: np.ndarray) -> np.ndarray:
    """TF's HSVToRGB functor, in the input's float dtype."""
    h, s, v = _split_rgb(x, "HSVToRGB")
    t = x.dtype.type
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_s = -s + t(1)
    return np.stack([(one_s + s * d) * v for d in (dr, dg, db)], -1).astype(x.dtype)


def _last_is_3(x: ShapedArray, *rest: ShapedArray) -> ShapedArray:
    return ShapedArray(x.shape, x.dtype)


_RGB_TO_HSV = _numpy_op("RGBToHSV", _rgb_to_hsv_kernel, _last_is_3)
_HSV_TO_RGB = _numpy_op("HSVToRGB", _hsv_to_rgb_kernel, _last_is_3)
_HSV_DTYPES = (tf.float16, tf.bfloat16, tf.float32, tf.float64)


def _hsv_input(images: Any, op: str) -> Any:
    images = tf.convert_to_tensor(images)
    if images.dtype not in _HSV_DTYPES:
        raise tf.errors.InvalidArgumentError(
            f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed values: "
            f"half, bfloat16, float, double [Op:{op}]")
    return images


def _reciprocal(x: Any) -> Any:
    return tf.math.divide_no_nan(tf.ones_like(x), x)


def _rgb_to_hsv_grad(rgb: Any, hsv: Any, grad: Any) -> Any:
    """TF's registered RGBToHSV gradient (image_grad.py), term for term: not the exact
    derivative of the hue (its constants are of degrees), but the one TF backpropagates."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    s, v = hsv[..., 1], hsv[..., 2]
    f = lambda c: tf.cast(c, rgb.dtype)  # noqa: E731
    r_big, g_big, b_big = f((r >= b) & (r >= g)), f((g > r) & (g >= b)), f((b > r) & (b > g))
    r_small, g_small, b_small = f((r < b) & (r < g)), f((g <= r) & (g < b)), \
        f((b <= r) & (b <= g))
    r_pos, g_pos, b_pos = f(r > 0), f(g > 0), f(b > 0)
    ds_dr = r_pos * (r_big * (g_small * g + b_small * b) * _reciprocal(tf.square(r))
                     + r_small * -1 * _reciprocal(g_big * g + b_big * b))
    ds_dg = g_pos * (g_big * (r_small * r + b_small * b) * _reciprocal(tf.square(g))
                     + g_small * -1 * _reciprocal(r_big * r + b_big * b))
    ds_db = b_pos * (b_big * (g_small * g + r_small * r) * _reciprocal(tf.square(b))
                     + b_small * -1 * _reciprocal(g_big * g + r_big * r))
    sv = _reciprocal(tf.square(s)) * _reciprocal(tf.square(v))
    dh_dr = (60 * (r_pos * r_big * -1 * (g - b) * sv)
             + 60 * (g_pos * g_big * r_small * (b - g) * _reciprocal(tf.square(r - g)))
             + 60 * (g_pos * g_big * b_small * -1 * _reciprocal(g - b))
             + 60 * (b_pos * b_big * r_small * (b - g) * _reciprocal(tf.square(b - r)))
             + 60 * (b_pos * b_big * g_small * _reciprocal(b - g))) / 360
    dh_dg = (60 * (g_pos * g_big * -1 * (b - r) * sv)
             + 60 * (r_pos * r_big * g_small * (r - b) * _reciprocal(tf.square(r - g)))
             + 60 * (r_pos * r_big * b_small * _reciprocal(r - b))
             + 60 * (b_pos * b_big * g_small * (r - b) * _reciprocal(tf.square(b - g)))
             + 60 * (b_pos * b_big * r_small * -1 * _reciprocal(b - r))) / 360
    dh_db = (60 * (b_pos * b_big * -1 * (r - g) * sv)
             + 60 * (r_pos * r_big * b_small * (g - r) * _reciprocal(tf.square(r - b)))
             + 60 * (r_pos * r_big * g_small * -1 * _reciprocal(r - g))
             + 60 * (g_pos * g_big * b_small * (g - r) * _reciprocal(tf.square(g - b)))
             + 60 * (g_pos * g_big * r_small * _reciprocal(g - r))) / 360
    dv = tf.stack([grad[..., 2] * r_big, grad[..., 2] * g_big, grad[..., 2] * b_big], -1)
    ds = tf.stack([grad[..., 1] * ds_dr, grad[..., 1] * ds_dg, grad[..., 1] * ds_db], -1)
    dh = tf.stack([grad[..., 0] * dh_dr, grad[..., 0] * dh_dg, grad[..., 0] * dh_db], -1)
    return dv + ds + dh


def rgb_to_hsv(images: Any, name: Optional[str] = None) -> Any:
    """RGB to HSV (all in [0, 1]) along the last axis of a float tensor, as TF's RGBToHSV; its
    gradient is TF's registered one."""
    images = _hsv_input(images, "RGBToHSV")

    @tf.custom_gradient
    def convert(rgb: Any) -> Any:
        hsv = _bind(_RGB_TO_HSV, rgb)
        return hsv, lambda grad: _rgb_to_hsv_grad(rgb, hsv, grad)
    return convert(images)


def hsv_to_rgb(images: Any, name: Optional[str] = None) -> Any:
    """HSV to RGB along the last axis of a float tensor, as TF's HSVToRGB (no gradient in TF)."""
    return _bind(_HSV_TO_RGB, _hsv_input(images, "HSVToRGB"))


_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _linear_space(images: Any, kernel: list) -> Any:
    images = tf.convert_to_tensor(images)
    if not images.dtype.is_floating:
        raise TypeError(f"Cannot convert {kernel} to EagerTensor of dtype {images.dtype.name}")
    kernel = tf.constant(kernel, dtype=images.dtype)
    return tf.tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


def rgb_to_yiq(images: Any) -> Any:
    """RGB to YIQ: the last axis times TF's 3x3 matrix."""
    return _linear_space(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> Any:
    """YIQ to RGB: the last axis times TF's 3x3 matrix."""
    return _linear_space(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> Any:
    """RGB to YUV: the last axis times TF's 3x3 matrix."""
    return _linear_space(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> Any:
    """YUV to RGB: the last axis times TF's 3x3 matrix."""
    return _linear_space(images, _YUV_TO_RGB)


# -- hue and saturation (TF's per-pixel float32 kernels) ---------------------------------------

def _rgb_to_hv_range(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> tuple:
    """AdjustHue's hue (in [0, 6)), min and max per pixel."""
    rg = r < g
    choose = lambda a, c, d, e, f, h: np.where(  # noqa: E731 - six orderings of r, g, b
        rg, np.where(b < r, a, np.where(b > g, c, d)), np.where(b < g, e, np.where(b > r, f, h)))
    v_max = choose(g, b, g, r, b, r)
    v_mid = choose(r, g, b, g, r, b)
    v_min = choose(b, r, r, b, g, g)
    category = choose(1, 3, 2, 0, 4, 5)
    with np.errstate(all="ignore"):
        ratio = (v_mid - v_min) / (v_max - v_min)
    hue = category.astype(_F32) + np.where(category % 2 == 0, ratio, _F32(1) - ratio)
    return np.where(v_max == v_min, _F32(0), hue).astype(_F32), v_min, v_max


def _hv_range_to_rgb(hue: np.ndarray, v_min: np.ndarray, v_max: np.ndarray) -> np.ndarray:
    category = hue.astype(np.int64)
    ratio = hue - category.astype(_F32)
    ratio = np.where(category % 2 == 0, ratio, _F32(1) - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    table = [(v_max, v_mid, v_min), (v_mid, v_max, v_min), (v_min, v_max, v_mid),
             (v_min, v_mid, v_max), (v_mid, v_min, v_max), (v_max, v_min, v_mid)]
    out = [np.select([category == k for k in range(5)], [row[c] for row in table[:5]],
                     table[5][c]) for c in range(3)]
    return np.stack(out, -1).astype(_F32)


def _wrap(value: np.ndarray, low_closed: bool, period: float) -> np.ndarray:
    """TF's `while (v < 0) v += p; while (v >= p) v -= p` (or `<= 0` when not low_closed)."""
    period = _F32(period)
    while True:
        low = value < 0 if low_closed else value <= 0
        if not low.any():
            break
        value = np.where(low, value + period, value)
    while True:
        high = value >= period
        if not high.any():
            return value
        value = np.where(high, value - period, value)


def _adjust_hue_kernel(x: np.ndarray, delta: np.ndarray) -> np.ndarray:
    r, g, b = _split_rgb(x, "AdjustHue")
    hue, v_min, v_max = _rgb_to_hv_range(r, g, b)
    hue = _wrap(hue + _F32(delta) * _F32(6), True, 6)
    return _hv_range_to_rgb(hue, v_min, v_max)


def _adjust_saturation_kernel(x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    r, g, b = _split_rgb(x, "AdjustSaturation")
    with np.errstate(all="ignore"):
        v = np.maximum(r, np.maximum(g, b))
        rng = v - np.minimum(r, np.minimum(g, b))
        s = np.where(v > 0, rng / v, _F32(0)).astype(_F32)
        norm = _F32(1) / (_F32(6) * rng)
        # `norm * (b - r) + 2.0 / 6.0`: a float product, a double sum, rounded to float.
        h = np.where(r == v, norm * (g - b), np.where(
            g == v, (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
            (norm * (r - g)).astype(np.float64) + 4.0 / 6.0)).astype(_F32)
    h = np.where(rng <= 0, _F32(0), h)
    h = np.where(h < 0, h + _F32(1), h)
    s = np.minimum(_F32(1), np.where(s * _F32(scale) > 0, s * _F32(scale), _F32(0)))
    c = s * v
    m = v - c
    dh = h * _F32(6)
    category = np.trunc(dh).astype(np.int64)
    fmodu = _wrap(dh, False, 2)
    x_ = c * (_F32(1) - np.abs(fmodu - _F32(1)))
    zero = np.zeros_like(c)
    table = [(c, x_, zero), (x_, c, zero), (zero, c, x_), (zero, x_, c), (x_, zero, c),
             (c, zero, x_)]
    out = [np.select([category == k for k in range(6)], [row[i] for row in table], zero) + m
           for i in range(3)]
    return np.stack(out, -1).astype(_F32)


_ADJUST_HUE = _numpy_op("AdjustHue", _adjust_hue_kernel, _last_is_3)
_ADJUST_SATURATION = _numpy_op("AdjustSaturation", _adjust_saturation_kernel, _last_is_3)


def _float32_kernel_input(image: Any, op: str) -> tuple:
    """(float32 image, its dtype): TF's CPU kernel of `op` is float32 only; float16 finds
    none."""
    image = tf.convert_to_tensor(image)
    if image.dtype == tf.float16:
        raise tf.errors.NotFoundError(
            f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_HALF]")
    flt = image if image.dtype == tf.float32 else convert_image_dtype(image, tf.float32)
    return flt, image.dtype


def adjust_hue(image: Any, delta: Any, name: Optional[str] = None) -> Any:
    """Rotates the hue of RGB `image` by `delta` (a fraction of the colour circle, in [-1, 1])
    with TF's float32 AdjustHue kernel (no gradient in TF)."""
    if not isinstance(delta, tf.Tensor) or _is_eager(delta):
        if float(delta) < -1 or float(delta) > 1:
            raise ValueError("delta must be in the interval [-1, 1]")
    flt, dtype = _float32_kernel_input(image, "AdjustHue")
    out = _bind(_ADJUST_HUE, flt, tf.cast(delta, tf.float32))
    return convert_image_dtype(out, dtype)


def adjust_saturation(image: Any, saturation_factor: Any, name: Optional[str] = None) -> Any:
    """Scales the saturation of RGB `image` by `saturation_factor` (clipped to [0, 1]) with
    TF's float32 AdjustSaturation kernel (no gradient in TF)."""
    flt, dtype = _float32_kernel_input(image, "AdjustSaturation")
    out = _bind(_ADJUST_SATURATION, flt, tf.cast(saturation_factor, tf.float32))
    return convert_image_dtype(out, dtype)


def _is_eager(value: Any) -> bool:
    try:
        value.numpy()
    except Exception:  # noqa: BLE001 - a traced tensor
        return False
    return True


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, dct_method: str = "",
                        name: Optional[str] = None) -> Any:
    """TF encodes and decodes a JPEG here; tapeflow has no JPEG codec, so this raises."""
    raise tf.errors.UnimplementedError(
        "tf.image.adjust_jpeg_quality: tapeflow has no JPEG encoder/decoder (TF runs "
        "EncodeJpegVariableQuality and DecodeJpeg); it cannot reproduce TF's JPEG artefacts.")
