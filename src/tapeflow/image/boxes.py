"""`tf.image`'s patch and box ops: `extract_patches`, `crop_and_resize`, `extract_glimpse`,
`draw_bounding_boxes` and the non-max suppressions.

`extract_patches` and `crop_and_resize` are gathers weighted by interpolation factors, so their
gradients are TF's (ExtractImagePatches' adjoint; CropAndResizeGradImage and
CropAndResizeGradBoxes, the latter bilinear even for 'nearest', as TF). The suppressions and
`draw_bounding_boxes` are TF's CPU kernels in NumPy (no gradient in TF)."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray
from tapeflow.image._common import (_F32, _as_f32, _bind, _checked, _image_hw, _int32,
                                    _needs_run_time, _numpy_op, _run_time_hw, _zeros_around)
from tapeflow.ops._static import is_traced, reads_variables

__all__ = ["extract_patches", "crop_and_resize", "extract_glimpse", "draw_bounding_boxes",
           "non_max_suppression", "non_max_suppression_with_scores",
           "non_max_suppression_overlaps", "non_max_suppression_padded",
           "combined_non_max_suppression"]


# -- extract_patches --------------------------------------------------------------------------

def _window(size: int, in_size: int, stride: int, rate: int, padding: str) -> tuple:
    """Source indices (out, size) into the padded axis, and its (before, after) padding."""
    effective = size + (size - 1) * (rate - 1)
    if padding == "VALID":
        out = max(0, -(-(in_size - effective + 1) // stride))
        before = after = 0
    else:
        out = -(-in_size // stride)
        total = max((out - 1) * stride + effective - in_size, 0)
        before, after = total // 2, total - total // 2
    index = np.arange(out)[:, None] * stride + np.arange(size)[None, :] * rate
    return index.astype(np.int64), before, after


def _four(values: Any, label: str) -> list:
    values = list(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise tf.errors.InvalidArgumentError(
            f"{label} is only supported across rows and columns (it must be of the form "
            f"[1, rows, cols, 1]), got {values} [Op:ExtractImagePatches]")
    return values


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: Optional[str] = None) -> Any:
    """Patches of `sizes` every `strides` (dilated by `rates`) of NHWC `images`, each flattened
    into the depth axis in (row, col, channel) order, as TF's ExtractImagePatches."""
    images = tf.convert_to_tensor(images)
    if images.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.shape.rank} for "
                         f"'ExtractImagePatches' (input shape {images.shape}).")
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be one of 'SAME', 'VALID', got {padding}")
    (_, kr, kc, _), (_, sr, sc, _), (_, rr, rc, _) = (
        _four(sizes, "ksizes"), _four(strides, "strides"), _four(rates, "rates"))
    if _needs_run_time(images):
        return _patches_run_time(images, (kr, kc), (sr, sc), (rr, rc), padding)
    height, width = _image_hw(images, "tf.image.extract_patches")
    rows, top, bottom = _window(kr, height, sr, rr, padding)
    cols, left, right = _window(kc, width, sc, rc, padding)
    if top or bottom or left or right:
        images = tf.pad(images, [[0, 0], [top, bottom], [left, right], [0, 0]])
    depth = images.shape[-1]
    patches = tf.gather(tf.gather(images, rows, axis=1), cols, axis=3)  # b, or, kr, oc, kc, d
    patches = tf.transpose(patches, [0, 1, 3, 2, 4, 5])
    return tf.reshape(patches, [-1, rows.shape[0], cols.shape[0], kr * kc * depth])


def _window_kernel(in_size: np.ndarray, size: int, stride: int, rate: int,
                   padding: str) -> tuple:
    index, before, after = _window(size, int(in_size), stride, rate, padding)
    return index, np.int32(before), np.int32(after)


_WINDOW = _numpy_op("PatchWindow", _window_kernel, lambda in_size, size, **_: (
    ShapedArray((None, size), np.dtype(np.int64)), ShapedArray((), np.dtype(np.int32)),
    ShapedArray((), np.dtype(np.int32))), multiple_results=True)


def _patches_run_time(images: Any, sizes: tuple, strides: tuple, rates: tuple,
                      padding: str) -> Any:
    """extract_patches with the windows of an unknown height or width built as the graph
    runs (the same gathers as the static path)."""
    (rows, top, bottom), (cols, left, right) = (
        _bind(_WINDOW, n, size=k, stride=s, rate=r, padding=padding)
        for n, k, s, r in zip(_run_time_hw(images), sizes, strides, rates))
    images = _zeros_around(_zeros_around(images, 1, top, bottom), 2, left, right)
    depth = images.shape[-1] if images.shape[-1] is not None else tf.shape(images)[3]
    patches = tf.gather(tf.gather(images, rows, axis=1), cols, axis=3)  # b, or, kr, oc, kc, d
    patches = tf.transpose(patches, [0, 1, 3, 2, 4, 5])
    return tf.reshape(patches, [-1, tf.shape(rows)[0], tf.shape(cols)[0],
                                sizes[0] * sizes[1] * depth])


# -- crop_and_resize --------------------------------------------------------------------------

def _sample_points(low: Any, high: Any, crop: Any, size: Any) -> Any:
    """CropAndResize's source coordinates along one axis: (boxes, crop) float32. `crop` and
    `size` are Python ints, or int32 scalars read as the graph runs."""
    last = _as_f32(size - 1)
    if isinstance(crop, int):
        if crop > 1:
            scale = (high - low) * last / float(crop - 1)
            return low * last + tf.range(crop, dtype=tf.float32)[None, :] * scale
        return tf.tile(0.5 * (low + high) * last, [1, crop])
    # TF's two cases, chosen as the graph runs (the unused one divides by 1, not 0)
    scale = (high - low) * last / tf.cast(tf.maximum(crop - 1, 1), tf.float32)
    spread = low * last + tf.range(crop, dtype=tf.float32)[None, :] * scale
    centre = tf.broadcast_to(0.5 * (low + high) * last, tf.shape(spread))
    return tf.where(crop > 1, spread, centre)


def _round_half_away(x: Any) -> Any:
    return tf.sign(x) * tf.floor(tf.abs(x) + 0.5)


def _crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop: tuple, method: str,
                     extrapolation_value: float) -> Any:
    height, width = _run_time_hw(image)
    in_y = _sample_points(boxes[:, 0:1], boxes[:, 2:3], crop[0], height)
    in_x = _sample_points(boxes[:, 1:2], boxes[:, 3:4], crop[1], width)
    inside = ((in_y >= 0.0) & (in_y <= _as_f32(height) - 1.0))[:, :, None, None] & \
        ((in_x >= 0.0) & (in_x <= _as_f32(width) - 1.0))[:, None, :, None]
    batch = tf.broadcast_to(tf.reshape(box_indices, [-1, 1, 1]),
                            [tf.shape(boxes)[0], crop[0], crop[1]])

    def clamp(index: Any, size: Any) -> Any:
        return tf.cast(tf.clip_by_value(index, 0.0, _as_f32(size) - 1.0), tf.int32)

    def read(yi: Any, xi: Any) -> Any:
        rows = tf.broadcast_to(clamp(yi, height)[:, :, None], tf.shape(batch))
        cols = tf.broadcast_to(clamp(xi, width)[:, None, :], tf.shape(batch))
        return tf.gather_nd(image, tf.stack([batch, rows, cols], -1))

    if method == "nearest":
        out = read(_round_half_away(in_y), _round_half_away(in_x))
    else:
        top_y, bottom_y = tf.floor(in_y), tf.math.ceil(in_y)
        left_x, right_x = tf.floor(in_x), tf.math.ceil(in_x)
        y_lerp = (in_y - top_y)[:, :, None, None]
        x_lerp = (in_x - left_x)[:, None, :, None]
        top_left, top_right = read(top_y, left_x), read(top_y, right_x)
        bottom_left, bottom_right = read(bottom_y, left_x), read(bottom_y, right_x)
        top = top_left + (top_right - top_left) * x_lerp
        bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
        out = top + (bottom - top) * y_lerp
    return tf.where(inside, out, tf.constant(extrapolation_value, tf.float32))


@reads_variables
def crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop_size: Any,
                    method: str = "bilinear", extrapolation_value: float = 0.0,
                    name: Optional[str] = None) -> Any:
    """Crops the normalized [y1, x1, y2, x2] `boxes` of the images `box_indices` and resizes
    each to `crop_size` (float32 out; samples outside the image are `extrapolation_value`).

    Gradients as TF: the image's (float images only) and the boxes' (always the bilinear
    formula's, also for 'nearest')."""
    image = tf.convert_to_tensor(image)
    boxes = tf.convert_to_tensor(boxes, tf.float32)
    box_indices = tf.convert_to_tensor(box_indices, tf.int32)
    if image.shape.rank != 4:
        raise tf.errors.InvalidArgumentError(
            f"input image must be 4-D{image.shape.as_list()} [Op:CropAndResize]")
    if boxes.shape.rank != 2 or boxes.shape[-1] not in (4, None):
        raise tf.errors.InvalidArgumentError(
            f"boxes must be 2-D[num_boxes, 4]{boxes.shape.as_list()} [Op:CropAndResize]")
    if box_indices.shape.rank != 1 or None not in (box_indices.shape[0], boxes.shape[0]) \
            and box_indices.shape[0] != boxes.shape[0]:
        raise tf.errors.InvalidArgumentError(
            "box_index has incompatible shape [Op:CropAndResize]")
    if boxes.shape[-1] is None:   # known only as the graph runs: checked there
        boxes = tf.ensure_shape(boxes, [None, 4])
    method = str(method)
    if method not in ("bilinear", "nearest"):
        raise tf.errors.InvalidArgumentError(
            f"method must be 'bilinear' or 'nearest', got {method} [Op:CropAndResize]")
    crop = _run_time_crop(crop_size) if _traced_sizes(crop_size) else _static_crop(crop_size)
    indices = box_indices.numpy() if _eager(box_indices) else None
    if indices is not None and image.shape[0] is not None:
        if indices.size and (indices.min() < 0 or indices.max() >= image.shape[0]):
            raise tf.errors.InvalidArgumentError(
                "box_index has values outside [0, batch_size) [Op:CropAndResize]")
    else:   # the batch or the indices known only as the graph runs: checked there
        box_indices = _checked(box_indices, tf.reduce_all(
            (box_indices >= 0) & (box_indices < tf.shape(image)[0])),
            "box_index has values outside [0, batch_size)")
    float_image = image.dtype in (tf.float16, tf.float32, tf.float64)
    source = tf.cast(image, tf.float32) if image.dtype != tf.float32 else image
    if not float_image:
        source = tf.stop_gradient(source)
    if method == "bilinear":
        return _crop_and_resize(source, boxes, box_indices, crop, method, extrapolation_value)

    @tf.custom_gradient
    def nearest(img: Any, bx: Any) -> Any:
        def grad(dy: Any) -> tuple:
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([img, bx])
                near = _crop_and_resize(img, tf.stop_gradient(bx), box_indices, crop,
                                        "nearest", extrapolation_value)
                bilinear = _crop_and_resize(tf.stop_gradient(img), bx, box_indices, crop,
                                            "bilinear", extrapolation_value)
            return (tape.gradient(near, img, output_gradients=dy),
                    tape.gradient(bilinear, bx, output_gradients=dy))
        return _crop_and_resize(img, bx, box_indices, crop, "nearest", extrapolation_value), grad
    return nearest(source, boxes)


def _traced_sizes(size: Any) -> bool:
    """Whether `size` (a tensor, or a list of ints and scalars) is read as the graph runs."""
    return is_traced(size) or (isinstance(size, (list, tuple)) and any(map(is_traced, size)))


def _static_crop(crop_size: Any) -> tuple:
    crop = tuple(int(c) for c in np.asarray(crop_size.numpy() if isinstance(crop_size, tf.Tensor)
                                            else crop_size))
    if len(crop) != 2 or crop[0] <= 0 or crop[1] <= 0:
        raise tf.errors.InvalidArgumentError(
            "crop dimensions must be positive [Op:CropAndResize]")
    return crop


def _pair(size: Any, what: str) -> tuple:
    """A traced size's two int32 scalars (from a tensor or a list)."""
    if isinstance(size, tf.Tensor):
        if size.shape.rank != 1 or size.shape[0] not in (2, None):
            raise ValueError(f"{what} must be a 1-D tensor of 2 elements, got shape {size.shape}")
        size = tf.cast(size, tf.int32)
        return size[0], size[1]
    if len(size) != 2:
        raise ValueError(f"{what} must have 2 elements, got {len(size)}")
    return tuple(tf.convert_to_tensor(_int32(s), tf.int32) for s in size)


def _run_time_crop(crop_size: Any) -> tuple:
    """CropAndResize's crop size read as the graph runs, checked positive there."""
    height, width = _pair(crop_size, "crop_size")
    ok = (height > 0) & (width > 0)
    return tuple(_checked(c, ok, "crop dimensions must be positive") for c in (height, width))


def _eager(value: Any) -> bool:
    try:
        value.numpy()
    except Exception:  # noqa: BLE001 - a traced tensor
        return False
    return True


# -- extract_glimpse --------------------------------------------------------------------------

def _glimpse_kernel(x: np.ndarray, offsets: np.ndarray, size: tuple, centered: bool,
                    normalized: bool, noise: str, fill: Any) -> np.ndarray:
    """Eigen's ExtractGlimpses (version 2): for each image a size[0] x size[1] window whose
    top-left corner is the truncated offset; outside the image the window holds `fill`."""
    batch, height, width, depth = x.shape
    out_h, out_w = size
    out = np.empty((batch, out_h, out_w, depth), x.dtype)
    for i in range(batch):
        y, xo = _F32(offsets[i, 0]), _F32(offsets[i, 1])
        if normalized:
            xo, y = xo * _F32(width), y * _F32(height)
            if centered:
                xo, y = xo / _F32(2) + _F32(width / 2.0), y / _F32(2) + _F32(height / 2.0)
                xo, y = xo - _F32(out_w / 2.0), y - _F32(out_h / 2.0)
        elif centered:
            xo, y = xo + _F32(width / 2.0), y + _F32(height / 2.0)
        top, left = int(y), int(xo)
        out[i] = fill[i]
        rows = np.arange(top, top + out_h)
        cols = np.arange(left, left + out_w)
        ok_r, ok_c = (rows >= 0) & (rows < height), (cols >= 0) & (cols < width)
        out[i][np.ix_(ok_r, ok_c)] = x[i][np.ix_(rows[ok_r], cols[ok_c])]
    return out


@reads_variables
def extract_glimpse(input: Any, size: Any, offsets: Any, centered: bool = True,  # noqa: A002
                    normalized: bool = True, noise: str = "uniform",
                    name: Optional[str] = None) -> Any:
    """Windows of `size` at `offsets` ((y, x) per image) from NHWC `input`, as TF's
    ExtractGlimpseV2. Where a window leaves the image TF fills it with noise from an unseeded
    generator ('uniform': in [min, max] of the image; 'gaussian': the channel's mean and
    deviation, clipped), so TF's values there are not reproducible: tapeflow draws them from
    `tf.random` in the same distributions; with noise='zero' they are zeros, as TF."""
    images = tf.convert_to_tensor(input)
    offsets = tf.cast(offsets, tf.float32)
    if _traced_sizes(size):   # read as the graph runs; the window's shape follows from `fill`'s
        size = tuple(_checked(s, s >= 0, "Expected a non-negative size, got {value}") for s in
                     _pair(size, "size"))
    else:
        size = tuple(int(s) for s in np.asarray(size.numpy() if isinstance(size, tf.Tensor)
                                                else size))
    if noise not in ("uniform", "gaussian", "zero"):
        raise tf.errors.InvalidArgumentError(
            f"noise must be 'uniform', 'gaussian' or 'zero', got {noise} [Op:ExtractGlimpseV2]")
    shape = [tf.shape(images)[0], size[0], size[1], tf.shape(images)[3]]
    flt = tf.cast(images, tf.float32)
    if noise == "zero":
        fill = tf.zeros(shape, images.dtype)
    elif noise == "uniform":
        low = tf.reduce_min(flt, [1, 2, 3], keepdims=True)
        high = tf.reduce_max(flt, [1, 2, 3], keepdims=True)
        fill = tf.cast(low + tf.random.uniform(shape) * (high - low), images.dtype)
    else:
        mean = tf.reduce_mean(flt, [1, 2], keepdims=True)
        sigma = tf.sqrt(tf.reduce_mean(tf.square(flt - mean), [1, 2], keepdims=True))
        fill = tf.clip_by_value(mean + tf.random.normal(shape) * sigma,
                                tf.reduce_min(flt, [1, 2], keepdims=True),
                                tf.reduce_max(flt, [1, 2], keepdims=True))
        fill = tf.cast(fill, images.dtype)
    return _bind(_GLIMPSE, images, offsets, fill, centered=bool(centered),
                 normalized=bool(normalized), noise=noise)


def _glimpse_rule(x: ShapedArray, offsets: ShapedArray, fill: ShapedArray,
                  **_: Any) -> ShapedArray:
    batch = x.shape[0] if x.shape is not None else None
    if batch is None and offsets.shape is not None:
        batch = offsets.shape[0]
    depth = x.shape[3] if x.shape is not None else None
    size = fill.shape[1:3] if fill.shape is not None else (None, None)
    return ShapedArray((batch, size[0], size[1], depth), x.dtype)


# The window's size is `fill`'s (so a size read as the graph runs needs no attribute).
_GLIMPSE = _numpy_op("ExtractGlimpseV2",
                     lambda x, offsets, fill, **attrs: _glimpse_kernel(
                         x, offsets, size=fill.shape[1:3], fill=fill, **attrs),
                     _glimpse_rule)


# -- draw_bounding_boxes ----------------------------------------------------------------------

_COLOR_TABLE = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                         [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                         [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_kernel(images: np.ndarray, boxes: np.ndarray, colors: np.ndarray) -> np.ndarray:
    """TF's DrawBoundingBoxes: each box's outline (one pixel) in its colour, rows and columns
    truncated from box * (size - 1); inverted or outside boxes are skipped."""
    batch, height, width, depth = images.shape
    if depth not in (1, 3, 4):
        raise tf.errors.InvalidArgumentError(
            "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA) "
            "[Op:DrawBoundingBoxesV2]")
    table = (colors if colors.size else _COLOR_TABLE).astype(np.float32).copy()
    if depth == 1:
        table[:, 0] = 1
    canvas = images.copy()
    for b in range(batch):
        for k in range(boxes.shape[1]):
            color = table[k % len(table)][:depth].astype(images.dtype)
            y0, x0, y1, x1 = (int(_F32(v) * _F32(n - 1)) for v, n in zip(
                boxes[b, k], (height, width, height, width)))
            if y0 > y1 or x0 > x1:
                continue
            if y0 >= height or y1 < 0 or x0 >= width or x1 < 0:
                continue
            r0, r1, c0, c1 = max(y0, 0), min(y1, height - 1), max(x0, 0), min(x1, width - 1)
            if y0 >= 0:
                canvas[b, y0, c0:c1 + 1] = color
            if y1 < height:
                canvas[b, y1, c0:c1 + 1] = color
            if x0 >= 0:
                canvas[b, r0:r1 + 1, x0] = color
            if x1 < width:
                canvas[b, r0:r1 + 1, x1] = color
    return canvas


_DRAW = _numpy_op("DrawBoundingBoxesV2", _draw_kernel,
                  lambda images, boxes, colors: ShapedArray(images.shape, images.dtype))


def draw_bounding_boxes(images: Any, boxes: Any, colors: Any, name: Optional[str] = None) -> Any:
    """Draws the outlines of normalized [y1, x1, y2, x2] `boxes` ([batch, num_boxes, 4]) on
    float `images`, box k in colour `colors[k % len(colors)]` (TF's default table if None)."""
    images = tf.convert_to_tensor(images)
    if images.dtype not in (tf.float16, tf.float32):
        raise tf.errors.InvalidArgumentError(
            f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed values: "
            f"float, half [Op:DrawBoundingBoxesV2]")
    boxes = tf.convert_to_tensor(boxes, tf.float32)
    colors = tf.zeros([0, 4]) if colors is None else tf.convert_to_tensor(colors, tf.float32)
    return _bind(_DRAW, images, boxes, colors)


# -- non-max suppression (TF's CPU kernels) ---------------------------------------------------

def _iou(boxes: np.ndarray, i: int, j: int) -> np.float32:
    """TF's IOU of boxes i and j (corners in either order), float32."""
    a, b = boxes[i].astype(_F32), boxes[j].astype(_F32)
    ymin_i, xmin_i = min(a[0], a[2]), min(a[1], a[3])
    ymax_i, xmax_i = max(a[0], a[2]), max(a[1], a[3])
    ymin_j, xmin_j = min(b[0], b[2]), min(b[1], b[3])
    ymax_j, xmax_j = max(b[0], b[2]), max(b[1], b[3])
    area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i)
    area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j)
    if area_i <= 0 or area_j <= 0:
        return _F32(0)
    inter = max(min(ymax_i, ymax_j) - max(ymin_i, ymin_j), _F32(0)) * \
        max(min(xmax_i, xmax_j) - max(xmin_i, xmin_j), _F32(0))
    return _F32(inter / (area_i + area_j - inter))


def _suppress(similarity: Any, scores: np.ndarray, max_output: int, threshold: float,
              score_threshold: float, sigma: float = 0.0) -> tuple:
    """TF's DoNonMaxSuppressionOp: greedy selection by score (ties to the lower index), hard
    suppression above `threshold`, or Gaussian soft suppression with `sigma` > 0 (which then
    ignores `threshold`, as TF 2.21's kernel does)."""
    import heapq
    scores = scores.astype(_F32)
    threshold, score_threshold = _F32(threshold), _F32(score_threshold)
    scale = _F32(-0.5 / sigma) if sigma > 0 else _F32(0)
    soft = sigma > 0
    heap = [(-s, i, i, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)   # (-score, index, index, suppress_begin)
    selected, selected_scores = [], []
    while len(selected) < max_output and heap:
        neg, _, index, begin = heapq.heappop(heap)
        score = original = _F32(-neg)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = _F32(similarity(index, selected[j]))
            weight = _F32(np.exp(scale * sim * sim)) if soft or sim <= threshold else _F32(0)
            score = _F32(score * weight)
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, index, len(selected)))
    return np.array(selected, np.int32), np.array(selected_scores, _F32)


def _nms_kernel(boxes: np.ndarray, scores: np.ndarray, max_output: np.ndarray,
                iou: np.ndarray, score_threshold: np.ndarray, sigma: np.ndarray) -> tuple:
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise tf.errors.InvalidArgumentError(
            f"boxes must be 2-D with shape [num_boxes, 4] (got {list(boxes.shape)}) "
            f"[Op:NonMaxSuppressionV5]")
    if scores.shape != (boxes.shape[0],):
        raise tf.errors.InvalidArgumentError(
            f"scores has incompatible shape {list(scores.shape)} [Op:NonMaxSuppressionV5]")
    if not 0 <= float(iou) <= 1:
        raise tf.errors.InvalidArgumentError("iou_threshold must be in [0, 1] "
                                             "[Op:NonMaxSuppressionV5]")
    if float(sigma) < 0:
        raise tf.errors.InvalidArgumentError("soft_nms_sigma must be non-negative "
                                             "[Op:NonMaxSuppressionV5]")
    index, kept = _suppress(lambda i, j: _iou(boxes, i, j), scores, int(max_output),
                            float(iou), float(score_threshold), float(sigma))
    return index, kept.astype(scores.dtype)


def _overlaps_kernel(overlaps: np.ndarray, scores: np.ndarray, max_output: np.ndarray,
                     threshold: np.ndarray, score_threshold: np.ndarray) -> np.ndarray:
    if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
        raise tf.errors.InvalidArgumentError(
            f"overlaps must be square, got {list(overlaps.shape)} "
            f"[Op:NonMaxSuppressionWithOverlaps]")
    return _suppress(lambda i, j: overlaps[i, j], scores, int(max_output), float(threshold),
                     float(score_threshold))[0]


def _selected_rule(*inputs: ShapedArray) -> tuple:
    return ShapedArray((None,), np.dtype(np.int32)), ShapedArray((None,), inputs[1].dtype)


_NMS = _numpy_op("NonMaxSuppressionV5", _nms_kernel, _selected_rule, multiple_results=True)
_NMS_OVERLAPS = _numpy_op("NonMaxSuppressionWithOverlaps", _overlaps_kernel,
                          lambda *inputs: ShapedArray((None,), np.dtype(np.int32)))


def _nms_inputs(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
                score_threshold: Any, sigma: Any) -> list:
    boxes = tf.convert_to_tensor(boxes)
    if boxes.dtype not in (tf.float16, tf.float32):
        raise tf.errors.InvalidArgumentError(
            f"Value for attr 'T' of {boxes.dtype.name} is not in the list of allowed values: "
            f"half, float [Op:NonMaxSuppressionV5]")
    scores = tf.convert_to_tensor(scores, boxes.dtype)
    return [boxes, scores, tf.convert_to_tensor(max_output_size, tf.int32),
            tf.convert_to_tensor(iou_threshold, boxes.dtype),
            tf.convert_to_tensor(score_threshold, boxes.dtype),
            tf.convert_to_tensor(sigma, boxes.dtype)]


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any,
                        iou_threshold: float = 0.5, score_threshold: float = float("-inf"),
                        name: Optional[str] = None) -> Any:
    """Indices (int32) of at most `max_output_size` boxes chosen greedily by score, dropping
    boxes whose IoU with a chosen one exceeds `iou_threshold`, as TF."""
    return _bind(_NMS, *_nms_inputs(boxes, scores, max_output_size, iou_threshold,
                                    score_threshold, 0.0))[0]


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any,
                                    iou_threshold: float = 0.5,
                                    score_threshold: float = float("-inf"),
                                    soft_nms_sigma: float = 0.0,
                                    name: Optional[str] = None) -> tuple:
    """(indices, scores) of non-max suppression; `soft_nms_sigma` > 0 decays the scores of
    overlapping boxes by exp(-iou^2 / (2 sigma)) (Soft-NMS) instead of dropping them."""
    return tuple(_bind(_NMS, *_nms_inputs(boxes, scores, max_output_size, iou_threshold,
                                          score_threshold, soft_nms_sigma)))


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any,
                                 overlap_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 name: Optional[str] = None) -> Any:
    """Non-max suppression by a given [n, n] overlap matrix instead of IoU."""
    overlaps = tf.convert_to_tensor(overlaps, tf.float32)
    return _bind(_NMS_OVERLAPS, overlaps, tf.convert_to_tensor(scores, tf.float32),
                 tf.convert_to_tensor(max_output_size, tf.int32),
                 tf.convert_to_tensor(overlap_threshold, tf.float32),
                 tf.convert_to_tensor(score_threshold, tf.float32))


# -- non_max_suppression_padded (TF's tiled Python algorithm, in NumPy) -----------------------

def _bbox_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TF's _bbox_overlap: IoU of every box of `a` with every box of `b`, + 1e-8 in the union."""
    ay0, ax0, ay1, ax1 = np.split(a, 4, axis=2)
    by0, bx0, by1, bx1 = (np.transpose(v, [0, 2, 1]) for v in np.split(b, 4, axis=2))
    i_area = np.maximum(np.minimum(ax1, bx1) - np.maximum(ax0, bx0), _F32(0)) * \
        np.maximum(np.minimum(ay1, by1) - np.maximum(ay0, by0), _F32(0))
    a_area = (ay1 - ay0) * (ax1 - ax0)
    b_area = (by1 - by0) * (bx1 - bx0)
    return (i_area / (a_area + b_area - i_area + _F32(1e-8))).astype(_F32)


def _suppression_step(boxes: np.ndarray, threshold: np.float32, output_size: np.ndarray,
                      idx: int, tile: int) -> tuple:
    box_slice = boxes[:, idx * tile:(idx + 1) * tile].copy()
    for inner in range(idx):
        iou = _bbox_overlap(boxes[:, inner * tile:(inner + 1) * tile], box_slice)
        box_slice = np.all(iou < threshold, axis=1).astype(_F32)[..., None] * box_slice
    iou = _bbox_overlap(box_slice, box_slice)
    upper = (np.arange(tile)[None, :] > np.arange(tile)[:, None])[None]
    iou = iou * (upper & (iou >= threshold)).astype(_F32)
    total = iou.sum((1, 2), dtype=_F32)
    while True:
        can = (iou.max(1) < threshold).astype(_F32)[:, :, None]
        after = (np.max(can * iou, 1) < threshold).astype(_F32)[:, :, None] * iou
        new_total = after.sum((1, 2), dtype=_F32)
        again = np.any(total - new_total > threshold)
        iou, total = after, new_total
        if not again:
            break
    suppressed = iou.sum(1, dtype=_F32) > 0
    box_slice = box_slice * (_F32(1) - suppressed.astype(_F32))[..., None]
    boxes = boxes.copy()
    boxes[:, idx * tile:(idx + 1) * tile] = box_slice
    output_size = output_size + np.any(box_slice > 0, 2).sum(1).astype(np.int32)
    return boxes, output_size


def _padded_kernel(boxes: np.ndarray, scores: np.ndarray, max_output: np.ndarray,
                   threshold: np.ndarray, score_threshold: np.ndarray, sorted_input: bool,
                   canonicalized: bool, tile: int) -> tuple:
    max_output = int(max_output)
    num_boxes = boxes.shape[-2]
    boxes = boxes.reshape(-1, num_boxes, 4).astype(_F32)
    scores = scores.reshape(-1, num_boxes).astype(_F32)
    batch = boxes.shape[0]
    if float(score_threshold) != float("-inf"):
        mask = (scores > score_threshold).astype(_F32)
        scores, boxes = scores * mask, boxes * mask[..., None]
    if not canonicalized and boxes.size:
        y1, x1, y2, x2 = np.split(boxes, 4, axis=2)
        ymin, ymax = (y1, y2) if y1[0, 0, 0] <= y2[0, 0, 0] else (y2, y1)
        xmin, xmax = (x1, x2) if x1[0, 0, 0] <= x2[0, 0, 0] else (x2, x1)
        boxes = np.concatenate([ymin, xmin, ymax, xmax], 2)
    if not sorted_input:
        order = np.argsort(-scores, axis=1, kind="stable").astype(np.int32)
        scores = np.take_along_axis(scores, order, 1)
        boxes = np.take_along_axis(boxes, order[..., None], 1)
    pad = int(math.ceil(_F32(max(num_boxes, max_output)) / _F32(tile))) * tile - num_boxes
    boxes = np.pad(boxes, [[0, 0], [0, pad], [0, 0]])
    padded = num_boxes + pad
    output_size = np.zeros(batch, np.int32)
    threshold = _F32(threshold)
    idx = 0
    while batch and output_size.min() < max_output and idx < padded // tile:
        boxes, output_size = _suppression_step(boxes, threshold, output_size, idx, tile)
        idx += 1
    num_valid = np.minimum(output_size, max_output).astype(np.int32)
    keyed = np.any(boxes > 0, 2).astype(np.int32) * np.arange(padded, 0, -1)[None]
    top = -np.sort(-keyed, axis=1)[:, :max_output]
    index = np.minimum(padded - top, num_boxes - 1).astype(np.int32)
    if not sorted_input:
        index = np.take_along_axis(order, index, 1)
    index = np.where(np.arange(max_output)[None] < num_valid[:, None], index, 0)
    return index.astype(np.int32), num_valid


_NMS_PADDED = _numpy_op(
    "NonMaxSuppressionPadded", _padded_kernel,
    lambda boxes, *rest, **attrs: (ShapedArray((None, None), np.dtype(np.int32)),
                                   ShapedArray((None,), np.dtype(np.int32))),
    multiple_results=True)


def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: Any,
                               iou_threshold: float = 0.5,
                               score_threshold: float = float("-inf"),
                               pad_to_max_output_size: bool = False,
                               name: Optional[str] = None, sorted_input: bool = False,
                               canonicalized_coordinates: bool = False,
                               tile_size: int = 512) -> tuple:
    """(indices, num_valid): TF's tiled non-max suppression over [..., num_boxes, 4] boxes
    (batched when `pad_to_max_output_size`), its algorithm step for step (boxes at or below
    `score_threshold` and all-zero boxes are never selected; indices past num_valid are 0)."""
    boxes = tf.convert_to_tensor(boxes)
    scores = tf.convert_to_tensor(scores)
    if not pad_to_max_output_size and boxes.shape.rank is not None and boxes.shape.rank > 2:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         f"True for batched input")
    index, num_valid = _bind(_NMS_PADDED, boxes, scores,
                             tf.convert_to_tensor(max_output_size, tf.int32),
                             tf.convert_to_tensor(iou_threshold, tf.float32),
                             tf.convert_to_tensor(score_threshold, tf.float32),
                             sorted_input=bool(sorted_input),
                             canonicalized=bool(canonicalized_coordinates), tile=int(tile_size))
    batch_dims = boxes.shape.as_list()[:-2]
    if None in batch_dims:   # read as the graph runs
        batch_dims = tf.shape(boxes)[:-2]
    num_valid = tf.reshape(num_valid, batch_dims)
    if not pad_to_max_output_size:
        # The first num_valid entries (a mask, which traces: a sliced length does not yet).
        return tf.boolean_mask(index[0], tf.range(tf.shape(index)[1]) < num_valid), num_valid
    return tf.reshape(index, tf.concat([batch_dims, [-1]], 0) if isinstance(
        batch_dims, tf.Tensor) else batch_dims + [-1]), num_valid


# -- combined_non_max_suppression -------------------------------------------------------------

def _iou_above(boxes: np.ndarray, i: int, j: int, threshold: np.float32) -> bool:
    return bool(_iou(boxes, i, j) > threshold)


def _combined_kernel(boxes: np.ndarray, scores: np.ndarray, per_class: np.ndarray,
                     total: np.ndarray, iou: np.ndarray, score_threshold: np.ndarray,
                     pad_per_class: bool, clip_boxes: bool, size: Optional[int] = None
                     ) -> tuple:
    """TF's CombinedNonMaxSuppression: hard NMS per class, then the best `total` of all
    classes per image by score, boxes clipped to [0, 1], zero-padded."""
    batch, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    if q not in (1, num_classes):
        raise tf.errors.InvalidArgumentError(
            f"third dimension of boxes must be either 1 or {num_classes} "
            f"[Op:CombinedNonMaxSuppression]")
    per_class, total = int(per_class), int(total)
    iou, score_threshold = _F32(iou), _F32(score_threshold)
    size = min(per_class * num_classes, total) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), _F32)
    out_scores = np.zeros((batch, size), _F32)
    out_classes = np.zeros((batch, size), _F32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        results = []
        for c in range(num_classes):
            class_boxes = boxes[b, :, c if q > 1 else 0].astype(_F32)
            class_scores = scores[b, :, c].astype(_F32)
            order = sorted((i for i in range(num_boxes) if class_scores[i] > score_threshold),
                           key=lambda i: -class_scores[i])
            selected: list = []
            for i in order:
                if len(selected) >= per_class:
                    break
                if not any(_iou_above(class_boxes, i, j, iou) for j in reversed(selected)):
                    selected.append(i)
            results += [(class_scores[i], c, class_boxes[i]) for i in selected]
        results.sort(key=lambda r: -r[0])
        count = min(len(results), size)
        valid[b] = count
        for k, (score, c, box) in enumerate(results[:count]):
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k], out_classes[b, k] = score, c
    return out_boxes, out_scores, out_classes, valid


def _combined_rule(boxes: ShapedArray, scores: ShapedArray, per_class: ShapedArray,
                   total: ShapedArray, *rest: ShapedArray, pad_per_class: bool,
                   clip_boxes: bool, size: Optional[int] = None) -> tuple:
    """The batch from boxes; the detections' count where tracing knows it (`size`)."""
    batch = None if boxes.shape is None else boxes.shape[0]
    f32 = np.dtype(np.float32)
    return (ShapedArray((batch, size, 4), f32), ShapedArray((batch, size), f32),
            ShapedArray((batch, size), f32), ShapedArray((batch,), np.dtype(np.int32)))


def _combined_size(scores: Any, per_class: Any, total: Any, pad_per_class: bool
                   ) -> Optional[int]:
    """How many detections per image the op gives, where tracing knows it (TF's shape
    function): max_total_size, or with pad_per_class the smaller of it and per_class times
    the classes."""
    known = [None if isinstance(v, tf.Tensor) else int(v) for v in (per_class, total)]
    if not pad_per_class:
        return known[1]
    classes = scores.shape[2]
    if None in known or classes is None:
        return None
    return min(known[0] * classes, known[1])


_COMBINED = _numpy_op("CombinedNonMaxSuppression", _combined_kernel, _combined_rule,
                      multiple_results=True)


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any,
                                 max_total_size: Any, iou_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: Optional[str] = None) -> tuple:
    """(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections): greedy NMS per class of
    [batch, num_boxes, q, 4] boxes and [batch, num_boxes, num_classes] scores, then the best
    `max_total_size` per image, as TF's CombinedNonMaxSuppression (equal scores may come in
    another order than TF's unstable sort gives)."""
    boxes = tf.convert_to_tensor(boxes, tf.float32)
    scores = tf.convert_to_tensor(scores, tf.float32)
    if boxes.shape.rank != 4 or scores.shape.rank != 3:
        raise tf.errors.InvalidArgumentError(
            f"boxes must be 4-D and scores 3-D, got shapes {boxes.shape} and {scores.shape} "
            f"[Op:CombinedNonMaxSuppression]")
    return tuple(_bind(_COMBINED, boxes, scores,
                       tf.convert_to_tensor(max_output_size_per_class, tf.int32),
                       tf.convert_to_tensor(max_total_size, tf.int32),
                       tf.convert_to_tensor(iou_threshold, tf.float32),
                       tf.convert_to_tensor(score_threshold, tf.float32),
                       pad_per_class=bool(pad_per_class), clip_boxes=bool(clip_boxes),
                       size=_combined_size(scores, max_output_size_per_class, max_total_size,
                                           bool(pad_per_class))))
