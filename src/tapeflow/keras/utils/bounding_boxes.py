"""`keras.utils.bounding_boxes`: converting, clipping, cropping, padding and transforming
bounding boxes, their IoU and CIoU, and anchor deltas, as Keras 3.15 on TensorFlow.

Boxes are a tensor or array of shape `(N, 4)` or `(batch, N, 4)`, or (for `convert_format`
and `clip_to_image_size`) a dict of `boxes` and `labels`. The formats (case-insensitive in
`convert_format`):

- `xyxy` [left, top, right, bottom], `yxyx` [top, left, bottom, right],
- `xywh` [left, top, width, height],
- `center_xywh` [center_x, center_y, width, height], `center_yxhw` [cy, cx, h, w],
- `rel_xyxy`, `rel_yxyx`, `rel_xywh`, `rel_center_xywh`: the same divided by the image's
  width (x values) and height (y values).

Every computation is Keras's composition of ops (`keras.ops` where Keras calls its backend's
ops, tensor operators where Keras uses them), in its order, so values and dtypes are Keras's.
"""

from __future__ import annotations

import math
from typing import Any

from tapeflow.keras import backend
from tapeflow.keras import ops

SUPPORTED_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy",
                     "rel_yxyx", "rel_xywh", "rel_center_xywh")


def _split(boxes: Any) -> list:
    return ops.split(boxes, 4, axis=-1)


def _join(parts: tuple) -> Any:
    return ops.concatenate(list(parts), axis=-1)


# --- format conversion: each format to xyxy and back, on the 4 coordinate columns ----------

def _swap_xy(values: tuple) -> tuple:
    """xyxy <-> yxyx (and xywh <-> yxhw): the x and y values trade places."""
    return values[1], values[0], values[3], values[2]


def _center_to_corners(cx: Any, cy: Any, w: Any, h: Any) -> tuple:
    half_w, half_h = w / 2.0, h / 2.0
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def _corners_to_center(x1: Any, y1: Any, x2: Any, y2: Any) -> tuple:
    return x1 + ((x2 - x1) / 2.0), y1 + ((y2 - y1) / 2.0), x2 - x1, y2 - y1


def _times_size(corners: tuple, height: Any, width: Any) -> tuple:
    x1, y1, x2, y2 = corners
    return x1 * width, y1 * height, x2 * width, y2 * height


# (components, height, width) -> x1, y1, x2, y2
_TO_XYXY: dict = {
    "yxyx": lambda c, h, w: _swap_xy(c),
    "xywh": lambda c, h, w: (c[0], c[1], c[0] + c[2], c[1] + c[3]),
    "center_xywh": lambda c, h, w: _center_to_corners(*c),
    "center_yxhw": lambda c, h, w: _center_to_corners(*_swap_xy(c)),
    "rel_xyxy": lambda c, h, w: _times_size(c, h, w),
    "rel_yxyx": lambda c, h, w: _times_size(_swap_xy(c), h, w),
    "rel_xywh": lambda c, h, w: (c[0] * w, c[1] * h, (c[0] + c[2]) * w, (c[1] + c[3]) * h),
    "rel_center_xywh": lambda c, h, w: _times_size(_center_to_corners(*c), h, w),
}


def _relative(values: tuple, height: Any, width: Any) -> tuple:
    """x values (even places) over the width, y values over the height."""
    return tuple(v / (width if i % 2 == 0 else height) for i, v in enumerate(values))


def _divided(values: tuple, height: Any, width: Any) -> tuple:
    """As `_relative`, with keras.ops.divide (Keras's choice for the rel corner formats)."""
    return tuple(ops.divide(v, width if i % 2 == 0 else height) for i, v in enumerate(values))


# (x1, y1, x2, y2 components, height, width) -> the target format's components
_FROM_XYXY: dict = {
    "yxyx": lambda c, h, w: _swap_xy(c),
    "xywh": lambda c, h, w: (c[0], c[1], c[2] - c[0], c[3] - c[1]),
    "center_xywh": lambda c, h, w: _corners_to_center(*c),
    "center_yxhw": lambda c, h, w: _swap_xy(_corners_to_center(*c)),
    "rel_xyxy": lambda c, h, w: _divided(c, h, w),
    "rel_yxyx": lambda c, h, w: _swap_xy(_divided(c, h, w)),
    "rel_xywh": lambda c, h, w: _relative((c[0], c[1], c[2] - c[0], c[3] - c[1]), h, w),
    "rel_center_xywh": lambda c, h, w: _relative(_corners_to_center(*c), h, w),
}


def _convert_tensor(boxes: Any, source: str, target: str, height: Any, width: Any,
                    dtype: Any) -> Any:
    shape = ops.shape(boxes)
    if shape[-1] != 4:
        raise ValueError("`boxes` must be a tensor with the last dimension of 4. "
                         f"Received: boxes.shape={shape}")
    source, target = source.lower(), target.lower()
    if source not in SUPPORTED_FORMATS or target not in SUPPORTED_FORMATS:
        raise ValueError(f"Invalid source or target format. Supported formats: "
                         f"{SUPPORTED_FORMATS}")
    if (source.startswith("rel_") or target.startswith("rel_")) and (
            width is None or height is None):
        raise ValueError("convert_format() must receive `height` and `width` transforming "
                         "between relative and absolute formats.convert_format() received "
                         f"source=`{source}`, target=`{target}, but height={height} and "
                         f"width={width}.")
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    width = None if width is None else ops.cast(width, dtype)
    height = None if height is None else ops.cast(height, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        # Relative to relative: the size cancels, so convert as the absolute formats.
        source, target = source[4:], target[4:]
    if source != "xyxy":
        boxes = _join(_TO_XYXY[source](_split(boxes), height, width))
    if target == "xyxy":
        return boxes
    return _join(_FROM_XYXY[target](_split(boxes), height, width))


def convert_format(boxes: Any, source: str, target: str, height: Any = None,
                   width: Any = None, dtype: Any = "float32") -> Any:
    """`boxes` (a tensor/array, or a dict whose `boxes` entry is converted in place and the
    dict returned) from format `source` to `target`, cast to `dtype`. The relative formats
    need `height` and `width`; a format outside `SUPPORTED_FORMATS` or a last dimension other
    than 4 raises ValueError."""
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source=source, target=target,
                                        height=height, width=width, dtype=dtype)
        return boxes
    return _convert_tensor(boxes, source, target, height, width, dtype)


# --- clipping, cropping, padding ----------------------------------------------------------

def _corner_area(boxes: Any) -> Any:
    x1, y1, x2, y2 = _split(boxes)
    return (x2 - x1) * (y2 - y1)


def _clip_corners(boxes: Any, low: Any, height: Any, width: Any) -> Any:
    x1, y1, x2, y2 = _split(boxes)
    return _join((ops.clip(x1, low, width), ops.clip(y1, low, height),
                  ops.clip(x2, low, width), ops.clip(y2, low, height)))


def clip_to_image_size(bounding_boxes: dict, height: Any = None, width: Any = None,
                       bounding_box_format: str = "xyxy") -> dict:
    """A copy of the dict `bounding_boxes` with its boxes clipped to the image (`xyxy`: to
    `[0, width] x [0, height]`, which must be given; `rel_xyxy`: to `[0, 1]`), and the label
    of each box left with no area set to -1. Other formats raise NotImplementedError."""
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = bounding_boxes["boxes"]
    labels = bounding_boxes.get("labels", None)
    if width is not None:
        width = ops.cast(width, boxes.dtype)
    if height is not None:
        height = ops.cast(height, boxes.dtype)
    if bounding_box_format == "xyxy":
        boxes = _clip_corners(boxes, 0, height, width)
    else:
        boxes = _clip_corners(boxes, 0.0, 1.0, 1.0)
    if labels is not None:
        areas = ops.squeeze(_corner_area(boxes), axis=-1)
        labels = ops.where(areas > 0, labels, -1)
    result = bounding_boxes.copy()
    result["boxes"] = boxes
    if labels is not None:
        result["labels"] = labels
    return result


def _only_xyxy(bounding_box_format: str) -> None:
    if bounding_box_format != "xyxy":
        raise NotImplementedError


def crop(boxes: Any, top: Any, left: Any, height: Any, width: Any,
         bounding_box_format: str = "xyxy") -> Any:
    """`xyxy` boxes moved by `(-left, -top)` and clipped to `[0, width] x [0, height]` (the
    crop's frame); their dtype is kept."""
    _only_xyxy(bounding_box_format)
    x1, y1, x2, y2 = _split(boxes)
    return _join((ops.clip(x1 - left, 0, width), ops.clip(y1 - top, 0, height),
                  ops.clip(x2 - left, 0, width), ops.clip(y2 - top, 0, height)))


def pad(boxes: Any, top: Any, left: Any, height: Any = None, width: Any = None,
        bounding_box_format: str = "xyxy") -> Any:
    """`xyxy` boxes moved by `(left, top)`; their dtype is kept (`height`/`width` unused,
    as in Keras)."""
    _only_xyxy(bounding_box_format)
    x1, y1, x2, y2 = _split(boxes)
    return _join((x1 + left, y1 + top, x2 + left, y2 + top))


# --- affine transform ---------------------------------------------------------------------

def _inverse_affine_matrix(center_x: Any, center_y: Any, angle: Any, translate_x: Any,
                           translate_y: Any, scale: Any, shear_x: Any, shear_y: Any,
                           height: Any, width: Any) -> Any:
    """[batch, 3, 3]: the inverse of rotate-scale-shear-translate about the centre (TF's
    `_get_inverse_affine_matrix`), per batch entry of `angle`."""
    batch_size = ops.shape(angle)[0]
    dtype = angle.dtype
    angle, shear_x, shear_y = -angle, -shear_x, -shear_y
    cx = ops.multiply(center_x, (width - 1))
    cy = ops.multiply(center_y, (height - 1))
    rot = ops.multiply(angle, 1.0 / 180.0 * math.pi)
    tx = ops.multiply(-translate_x, (width - 1))
    ty = ops.multiply(-translate_y, (height - 1))
    sx = ops.multiply(shear_x, 1.0 / 180.0 * math.pi)
    sy = ops.multiply(shear_y, 1.0 / 180.0 * math.pi)
    cos_sy, tan_sx = ops.cos(sy), ops.tan(sx)
    rot_minus_sy, cx_plus_tx, cy_plus_ty = rot - sy, cx + tx, cy + ty
    # Rotation and shear without the scale; its determinant is 1, so the inverse is simple.
    a = ops.cos(rot_minus_sy) / cos_sy
    b = a * tan_sx + ops.sin(rot)
    c = -ops.sin(rot_minus_sy) / cos_sy
    d = ops.cos(rot) - c * tan_sx
    a0, a1 = ops.multiply(d, scale), ops.multiply(-b, scale)
    b0, b1 = ops.multiply(-c, scale), ops.multiply(a, scale)
    a2 = cx - a0 * cx_plus_tx - a1 * cy_plus_ty
    b2 = cy - b0 * cx_plus_tx - b1 * cy_plus_ty
    zeros = ops.zeros([batch_size], dtype)
    matrix = ops.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ops.ones([batch_size], dtype)],
                       axis=-1)
    return ops.reshape(matrix, [batch_size, 3, 3])


def affine_transform(boxes: Any, angle: Any, translate_x: Any, translate_y: Any, scale: Any,
                     shear_x: Any, shear_y: Any, height: Any, width: Any,
                     center_x: Any = None, center_y: Any = None,
                     bounding_box_format: str = "xyxy") -> Any:
    """Batched `xyxy` boxes `(batch, N, 4)` through the inverse of the affine transform of an
    image of `height` x `width` (angles and shears in degrees, translations and the centre
    as fractions of the size; each a `(batch,)` tensor): each box becomes the bounding box of
    its four transformed corners."""
    _only_xyxy(bounding_box_format)
    shape = ops.shape(boxes)
    batch_size, n_boxes = shape[0], shape[1]
    matrix = _inverse_affine_matrix(0.5 if center_x is None else center_x,
                                    0.5 if center_y is None else center_y, angle,
                                    translate_x, translate_y, scale, shear_x, shear_y,
                                    height, width)
    boxes = ops.cast(boxes, dtype=matrix.dtype)
    transposed = ops.transpose(matrix[:, :2, :], [0, 2, 1])
    # The corners (x1, y1), (x2, y1), (x2, y2), (x1, y2) in homogeneous coordinates.
    points = ops.stack([boxes[..., i] for i in (0, 1, 2, 1, 2, 3, 0, 3)], axis=-1)
    points = ops.reshape(points, [batch_size, n_boxes, 4, 2])
    points = ops.concatenate([points, ops.ones([batch_size, n_boxes, 4, 1], points.dtype)],
                             axis=-1)
    moved = ops.einsum("bnxy,byz->bnxz", points, transposed)
    return ops.concatenate([ops.amin(moved, axis=2), ops.amax(moved, axis=2)], axis=-1)


# --- anchor deltas ------------------------------------------------------------------------

def _variance(variance: Any) -> Any:
    if variance is None:
        return None
    variance = ops.convert_to_tensor(variance, "float32")
    if variance.shape[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return variance


def _size(image_shape: Any) -> tuple:
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def encode_box_to_deltas(anchors: Any, boxes: Any, anchor_format: str, box_format: str,
                         encoding_format: str = "center_yxhw", variance: Any = None,
                         image_shape: Any = None) -> Any:
    """The deltas of `boxes` (`(N, 4)` or `(B, N, 4)`) from `anchors` (`(N, 4)`), both taken
    to `encoding_format` (`center_yxhw` or `center_xywh`): the centre offsets over the
    anchor's size, then the logs of the size ratios; divided by `variance` where given."""
    variance = _variance(variance)
    if encoding_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError("`encoding_format` should be one of 'center_xywh' or "
                         f"'center_yxhw', got {encoding_format}")
    height, width = _size(image_shape)
    encoded_anchors = convert_format(anchors, source=anchor_format, target=encoding_format,
                                     height=height, width=width)
    boxes = convert_format(boxes, source=box_format, target=encoding_format, height=height,
                           width=width)
    anchor_dimensions = ops.maximum(encoded_anchors[..., 2:], backend.epsilon())
    box_dimensions = ops.maximum(boxes[..., 2:], backend.epsilon())
    boxes_delta = ops.concatenate(
        [(boxes[..., :2] - encoded_anchors[..., :2]) / anchor_dimensions,
         ops.log(box_dimensions / anchor_dimensions)], axis=-1)
    if variance is not None:
        boxes_delta /= variance
    return boxes_delta


def decode_deltas_to_boxes(anchors: Any, boxes_delta: Any, anchor_format: str,
                           box_format: str, encoded_format: str = "center_yxhw",
                           variance: Any = None, image_shape: Any = None) -> Any:
    """The boxes (in `box_format`) that `boxes_delta` encodes relative to `anchors`, the
    inverse of `encode_box_to_deltas`; dicts of anchors and deltas (one per feature level)
    give a dict of boxes."""
    variance = _variance(variance)
    if encoded_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError("`encoded_format` should be 'center_xywh' or 'center_yxhw', but got "
                         f"'{encoded_format}'.")
    height, width = _size(image_shape)

    def decode_level(anchor: Any, box_delta: Any) -> Any:
        encoded_anchor = convert_format(anchor, source=anchor_format, target=encoded_format,
                                        height=height, width=width)
        if variance is not None:
            box_delta = box_delta * variance
        box = ops.concatenate(
            [box_delta[..., :2] * encoded_anchor[..., 2:] + encoded_anchor[..., :2],
             ops.exp(box_delta[..., 2:]) * encoded_anchor[..., 2:]], axis=-1)
        return convert_format(box, source=encoded_format, target=box_format, height=height,
                              width=width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode_level(anchor, boxes_delta[level])
                for level, anchor in anchors.items()}
    return decode_level(anchors, boxes_delta)


# --- IoU ----------------------------------------------------------------------------------

def _yxyx_area(boxes: Any) -> Any:
    y_min, x_min, y_max, x_max = _split(boxes[..., :4])
    return ops.squeeze((y_max - y_min) * (x_max - x_min), axis=-1)


def _intersection(boxes1: Any, boxes2: Any) -> Any:
    """[N, M] or [batch, N, M]: the intersection areas of yxyx boxes."""
    y_min1, x_min1, y_max1, x_max1 = _split(boxes1[..., :4])
    y_min2, x_min2, y_max2, x_max2 = _split(boxes2[..., :4])
    perm = [1, 0] if len(boxes2.shape) == 2 else [0, 2, 1]
    height = (ops.minimum(y_max1, ops.transpose(y_max2, perm))
              - ops.maximum(y_min1, ops.transpose(y_min2, perm)))
    width = (ops.minimum(x_max1, ops.transpose(x_max2, perm))
             - ops.maximum(x_min1, ops.transpose(x_min2, perm)))
    zero = ops.cast(0, height.dtype)
    return ops.maximum(zero, height) * ops.maximum(zero, width)


def _check_iou_rank(which: str, rank1: int, rank2: int) -> None:
    if (rank1 if which == "boxes1" else rank2) not in [2, 3]:
        raise ValueError(f"compute_iou() expects {which} to be batched, or to be unbatched. "
                         f"Received len(boxes1.shape)={rank1}, len(boxes2.shape)={rank2}. "
                         f"Expected either len({which}.shape)=2 AND or "
                         f"len({which}.shape)=3.")


def compute_iou(boxes1: Any, boxes2: Any, bounding_box_format: str, use_masking: bool = False,
                mask_val: Any = -1, image_shape: Any = None) -> Any:
    """The pairwise IoU table of `boxes1` (`(M, 4)` or `(B, M, 4)`) and `boxes2` (`(N, 4)`
    or `(B, N, 4)`): `(M, N)` or `(B, M, N)`. With `use_masking`, pairs where either box has
    all coordinates negative get `mask_val`. Relative formats need `image_shape`."""
    rank1, rank2 = len(ops.shape(boxes1)), len(ops.shape(boxes2))
    _check_iou_rank("boxes1", rank1, rank2)
    _check_iou_rank("boxes2", rank1, rank2)
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided.Received `image_shape`: "
                         f"{image_shape}")
    height, width = _size(image_shape)
    boxes1 = convert_format(boxes1, source=bounding_box_format, target="yxyx",
                            height=height, width=width)
    boxes2 = convert_format(boxes2, source=bounding_box_format, target="yxyx",
                            height=height, width=width)
    intersect_area = _intersection(boxes1, boxes2)
    area1, area2 = _yxyx_area(boxes1), _yxyx_area(boxes2)
    area1 = ops.expand_dims(area1, axis=-1)
    area2 = ops.expand_dims(area2, axis=1 if len(area2.shape) == 2 else 0)
    union_area = area1 + area2 - intersect_area
    res = ops.divide(intersect_area, union_area + backend.epsilon())
    if not use_masking:
        return res
    perm = [1, 0] if rank1 == 2 else [0, 2, 1]
    mask_val_t = ops.cast(mask_val, res.dtype) * ops.ones_like(res)
    boxes1_mask = ops.less(ops.max(boxes1, axis=-1, keepdims=True), 0.0)
    boxes2_mask = ops.less(ops.max(boxes2, axis=-1, keepdims=True), 0.0)
    background = ops.logical_or(boxes1_mask, ops.transpose(boxes2_mask, perm))
    return ops.where(background, mask_val_t, res)


def compute_ciou(boxes1: Any, boxes2: Any, bounding_box_format: str,
                 image_shape: Any = None) -> Any:
    """The Complete IoU of matching boxes (`(..., 4)` each, broadcast): IoU less the squared
    centre distance over the squared enclosing diagonal and the aspect-ratio term `v * alpha`.
    Relative formats raise ValueError (as in Keras, even with `image_shape`)."""
    if "rel" in bounding_box_format:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided.Received `image_shape`: "
                         f"{image_shape}")
    height, width = _size(image_shape)
    boxes1 = convert_format(boxes1, source=bounding_box_format, target="xyxy", height=height,
                            width=width)
    boxes2 = convert_format(boxes2, source=bounding_box_format, target="xyxy", height=height,
                            width=width)
    eps = backend.epsilon()
    x_min1, y_min1, x_max1, y_max1 = _split(boxes1[..., :4])
    x_min2, y_min2, x_max2, y_max2 = _split(boxes2[..., :4])
    width_1, height_1 = x_max1 - x_min1, y_max1 - y_min1 + eps
    width_2, height_2 = x_max2 - x_min2, y_max2 - y_min2 + eps
    intersection_area = (
        ops.maximum(ops.minimum(x_max1, x_max2) - ops.maximum(x_min1, x_min2), 0)
        * ops.maximum(ops.minimum(y_max1, y_max2) - ops.maximum(y_min1, y_min2), 0))
    union_area = width_1 * height_1 + width_2 * height_2 - intersection_area + eps
    iou = ops.squeeze(ops.divide(intersection_area, union_area + eps), axis=-1)
    convex_width = ops.maximum(x_max1, x_max2) - ops.minimum(x_min1, x_min2)
    convex_height = ops.maximum(y_max1, y_max2) - ops.minimum(y_min1, y_min2)
    convex_diagonal_squared = ops.squeeze(convex_width**2 + convex_height**2 + eps, axis=-1)
    centers_distance_squared = ops.squeeze(
        ((x_min1 + x_max1) / 2 - (x_min2 + x_max2) / 2) ** 2
        + ((y_min1 + y_max1) / 2 - (y_min2 + y_max2) / 2) ** 2, axis=-1)
    v = ops.squeeze((4 / math.pi**2) * ops.power(
        (ops.arctan(width_2 / height_2) - ops.arctan(width_1 / height_1)), 2), axis=-1)
    alpha = v / (v - iou + (1 + eps))
    return iou - (centers_distance_squared / convex_diagonal_squared + v * alpha)


__all__ = ["affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]
