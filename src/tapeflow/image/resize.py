"""`tf.image.resize`: TensorFlow's resize kernels.

The resize kernels are TensorFlow's (ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic
with half-pixel centres, ResizeArea, ScaleAndTranslate for lanczos, gaussian, mitchellcubic
and antialiasing) written as gathers of a few source rows and columns weighted by constant
per-axis weights, computed in float32 in TF's order. Being made of differentiable ops, their
gradients are TF's ResizeBilinearGrad / ResizeNearestNeighborGrad / ResizeBicubicGrad /
ScaleAndTranslateGrad (the transposed gathers); ResizeArea has none in TF and raises here too.
Eagerly (and traced with static sizes) the weights are NumPy constants built from Python ints.
Traced with a tensor size or an unknown height or width, a `ResizeTaps` op builds the same
weights from the sizes when the graph runs, and the gathers read them as inputs.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray
from tapeflow.ops._static import reads_variables
from tapeflow.image._common import (_batched, _bind, _image_hw, _int32, _needs_run_time,
                                    _no_gradient, _numpy_op, _run_time_hw)

__all__ = ["ResizeMethod", "resize"]

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


def _resize_spans(x: Any, size: tuple, in_hw: tuple, kernel: str, antialias: bool) -> Any:
    x = _weighted_sum(x, *_span_taps(size[0], in_hw[0], kernel, antialias), axis=1)
    return _weighted_sum(x, *_span_taps(size[1], in_hw[1], kernel, antialias), axis=2)


_SPAN_KERNELS = {"lanczos3": "lanczos3", "lanczos5": "lanczos5", "gaussian": "gaussian",
                 "mitchellcubic": "mitchellcubic"}
_ANTIALIAS_KERNELS = {"bilinear": "triangle", "bicubic": "keyscubic"}


def _op_name(method: str, antialias: bool) -> str:
    """The TensorFlow op that resizes with `method` (for its error texts)."""
    if method in _SPAN_KERNELS or (antialias and method in _ANTIALIAS_KERNELS):
        return "ScaleAndTranslate"
    return {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor",
            "bicubic": "ResizeBicubic", "area": "ResizeArea"}[method]


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


# -- sizes known only when a traced graph runs ------------------------------------------------

def _taps_kernel(in_size: np.ndarray, *out_size: np.ndarray, size: Optional[int], method: str,
                 antialias: bool) -> tuple:
    """One axis's (index, weights, scale) for `method`, built when the graph runs: index and
    weights (out, taps); scale is ResizeArea's, 1 for the others. Bilinear's weights column is
    the lerp fraction of its (lower, upper) taps."""
    out, n = int(out_size[0]) if out_size else size, int(in_size)
    if out <= 0:
        raise tf.errors.InvalidArgumentError("output dimensions must be positive")
    scale = np.float32(1)
    if method == "bilinear":
        lower, upper, frac = _bilinear_taps(out, n)
        index, weights = np.stack([lower, upper], 1), frac[:, None]
    elif method == "nearest":
        index, weights = _nearest_index(out, n)[:, None], np.ones((out, 1), _F32)
    elif method == "bicubic":
        index, weights = _bicubic_taps(out, n)
    elif method == "area":
        index, weights, scale = _area_taps(out, n)
    else:
        index, weights = _span_taps(out, n, method, antialias)
    return index, weights, np.asarray(scale, _F32)


def _taps_rule(in_size: ShapedArray, *out_size: ShapedArray, size: Optional[int],
               **_: Any) -> tuple:
    return (ShapedArray((size, None), np.dtype(np.int64)),
            ShapedArray((size, None), np.dtype(_F32)), ShapedArray((), np.dtype(_F32)))


_TAPS = _numpy_op("ResizeTaps", _taps_kernel, _taps_rule, multiple_results=True)


def _run_time_taps(out_size: Any, in_size: Any, method: str, antialias: bool) -> list:
    """(index, weights, scale) of one axis from sizes that may be read as the graph runs."""
    static = out_size if isinstance(out_size, int) else None
    inputs = [in_size] if static is not None else [in_size, out_size]
    return _bind(_TAPS, *inputs, size=static, method=method, antialias=antialias)


def _run_time_sum(x: Any, index: Any, weights: Any, axis: int) -> Any:
    """sum_t weights[:, t] * x[index[:, t]] along `axis`, the taps added left to right as the
    static path adds them. The value is a loop with one tap's gather alive at a time (a
    downscale with antialias has hundreds of taps); the gradient is the all-taps gather's."""
    @tf.custom_gradient
    def weighted(v: Any) -> Any:
        def grad(dy: Any) -> Any:
            with tf.GradientTape() as tape:
                tape.watch(v)
                out = _all_taps_sum(v, index, weights, axis)
            return tape.gradient(out, v, output_gradients=dy)
        return _tap_loop(v, index, weights, axis), grad
    return weighted(x)


def _tap_column(weights: Any, axis: int, rank: int) -> Any:
    """Weights shaped (out, taps, 1, ...) to broadcast against a gather along `axis`."""
    for _ in range(rank - axis - 1):
        weights = tf.expand_dims(weights, -1)
    return weights


def _all_taps_sum(x: Any, index: Any, weights: Any, axis: int) -> Any:
    gathered = tf.gather(x, index, axis=axis)   # the taps on an axis after `axis`
    return tf.reduce_sum(gathered * _tap_column(weights, axis + 1, x.shape.rank + 1),
                         axis=axis + 1)


def _tap_loop(x: Any, index: Any, weights: Any, axis: int) -> Any:
    def term(t: Any) -> Any:
        column = _tap_column(tf.gather(weights, t, axis=1), axis, x.shape.rank)
        return tf.gather(x, tf.gather(index, t, axis=1), axis=axis) * column

    _, out = tf.while_loop(lambda t, acc: t < tf.shape(index)[1],
                           lambda t, acc: (t + 1, acc + term(t)), (tf.constant(1), term(0)))
    return out


def _run_time_axis(x: Any, out_size: Any, in_size: Any, axis: int, method: str,
                   antialias: bool) -> tuple:
    """`x` resampled along `axis` with taps built when the graph runs, and ResizeArea's
    scale of the axis."""
    index, weights, scale = _run_time_taps(out_size, in_size, method, antialias)
    if method == "nearest":
        return tf.gather(x, index[:, 0], axis=axis), scale
    if method == "bilinear":
        a, b = tf.gather(x, index[:, 0], axis=axis), tf.gather(x, index[:, 1], axis=axis)
        frac = weights[:, 0]
        for _ in range(x.shape.rank - axis - 1):
            frac = tf.expand_dims(frac, -1)
        return a + (b - a) * frac, scale
    return _run_time_sum(x, index, weights, axis), scale


def _run_time_size(size: Any, height: Any, width: Any, preserve_aspect_ratio: bool) -> tuple:
    """(new height, new width): Python ints where given so (and not rescaled), else int32
    scalars read when the graph runs."""
    if isinstance(size, tf.Tensor):
        if size.shape.rank != 1 or size.shape[0] not in (2, None):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if not size.dtype.is_integer:
            raise ValueError("'size' must be a 1-D int32 Tensor")
        new = (tf.cast(size[0], tf.int32), tf.cast(size[1], tf.int32))
    else:
        if len(size) != 2:
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        new = tuple(_int32(s) for s in size)
    if not preserve_aspect_ratio:
        return new
    f32 = [tf.cast(v, tf.float32) for v in (*new, height, width)]
    factor = tf.minimum(f32[0] / f32[2], f32[1] / f32[3])
    return tuple(tf.cast(tf.round(factor * f), tf.int32) for f in f32[2:])


def _resize_run_time(images: Any, size: Any, method: str, preserve_aspect_ratio: bool,
                     antialias: bool) -> Any:
    """`resize` of 4-D `images` with its per-axis weights built when the graph runs."""
    height, width = _run_time_hw(images)
    new_h, new_w = _run_time_size(size, height, width, preserve_aspect_ratio)
    if method == "nearest":
        x = images
    else:
        x = images if images.dtype == tf.float32 else tf.cast(images, tf.float32)
        if method in _SPAN_KERNELS or (antialias and method in _ANTIALIAS_KERNELS):
            method = _SPAN_KERNELS.get(method) or _ANTIALIAS_KERNELS[method]
    # The static path's order: bilinear and area along the width first, the others along
    # the height first.
    axes = [(new_w, width, 2), (new_h, height, 1)] if method in ("bilinear", "area") else \
        [(new_h, height, 1), (new_w, width, 2)]
    scales = []
    for out_size, in_size, axis in axes:
        x, scale = _run_time_axis(x, out_size, in_size, axis, method, antialias)
        scales.append(scale)
    if method != "area":
        return x
    inverse = tf.cast(1.0 / tf.cast(scales[0] * scales[1], tf.float64), tf.float32)
    return _no_gradient("ResizeArea", x * inverse)


@reads_variables
def resize(images: Any, size: Any, method: str = ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: Optional[str] = None) -> Any:
    """Resizes `images` (a [batch,] height, width, channels tensor) to `size`, as
    `tf.image.resize`: float32 out for every method but 'nearest' (which keeps the dtype)."""
    images, unbatched = _batched(images, "resize")
    method = str(method).lower()
    if method not in ("bilinear", "nearest", "bicubic", "area") and method not in _SPAN_KERNELS:
        raise ValueError(f"Resize method is not implemented: {method}")
    if _needs_run_time(images, size):
        out = _resize_run_time(images, size, method, preserve_aspect_ratio, antialias)
        return tf.squeeze(out, 0) if unbatched else out
    height, width = _image_hw(images, "tf.image.resize")
    size = _static_size(size)
    if preserve_aspect_ratio:
        factor = min(_F32(size[0]) / _F32(height), _F32(size[1]) / _F32(width))
        size = (int(np.round(factor * _F32(height))), int(np.round(factor * _F32(width))))
    if size[0] <= 0 or size[1] <= 0:
        raise tf.errors.InvalidArgumentError(
            f"output dimensions must be positive [Op:{_op_name(method, antialias)}]")
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
