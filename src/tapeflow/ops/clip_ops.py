"""Clipping: clip_by_value, clip_by_norm, clip_by_global_norm and global_norm.

All are composites of math ops written exactly as TensorFlow's clip_ops.py writes them, so
the numbers (and which element gets the gradient at a tie) are TensorFlow's.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.framework.dtypes import DType
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.array_ops import stack
from tapeflow.ops.math_ops import cast, identity, maximum, minimum, ones_like, sqrt, where
from tapeflow.ops.reduce_ops import reduce_sum


@tf_export("clip_by_value")
def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any,
                  name: Optional[str] = None) -> Tensor:
    """`t` with values below `clip_value_min` raised to it and values above
    `clip_value_max` lowered to it (the bounds broadcast to `t`, but may not enlarge it)."""
    values = convert_to_tensor(t)
    t_min = minimum(values, _bound(clip_value_max, values.dtype))
    _same_shape(values, t_min)
    t_max = maximum(t_min, _bound(clip_value_min, values.dtype))
    _same_shape(values, t_max)
    return t_max


def _bound(value: Any, dtype: DType) -> Any:
    """A Python clip bound converted as TensorFlow's eager minimum/maximum convert it: to
    the values' dtype, where a Python float never becomes an integer (even 3.0).
    Tensors pass through: a dtype mismatch is then the op's own error."""
    if isinstance(value, TensorLike):
        return value
    if not dtype.is_floating and not dtype.is_complex and _has_float(value):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    return convert_to_tensor(value, dtype=dtype)


def _has_float(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_float(v) for v in value)
    return isinstance(value, float)


def _same_shape(values: Tensor, result: Tensor) -> None:
    if result._value.shape != values._value.shape:
        raise ValueError(f"Shapes {values.shape} and {result.shape} are incompatible")


@tf_export("clip_by_norm")
def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None) -> Tensor:
    """`t * clip_norm / max(l2norm(t), clip_norm)`: rescaled so its L2 norm (over `axes`,
    all axes by default) is at most `clip_norm`; a negative `clip_norm` counts as 0.
    IndexedSlices give IndexedSlices, their values clipped (as TF does)."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    values = convert_to_tensor(t)
    if np.isscalar(clip_norm):
        clip_norm = max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    # sqrt only where the sum is positive: the gradient of sqrt at 0 would be inf.
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    _same_shape(values, intermediate)
    return identity(intermediate / maximum(l2norm, clip_norm))


def _tensor_list(t_list: Any) -> list:
    if isinstance(t_list, (TensorLike, str)) or not isinstance(t_list, Sequence):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    # IndexedSlices count by their values (a repeated index counts twice), as in TF.
    return [None if t is None else convert_to_tensor(
        t.values if isinstance(t, IndexedSlices) else t) for t in t_list]


@tf_export("linalg.global_norm")
def global_norm(t_list: Sequence[Any], name: Optional[str] = None) -> Tensor:
    """sqrt(sum of squares of every element of every tensor in `t_list`); None entries are
    skipped. All tensors must share one dtype."""
    values = [v for v in _tensor_list(t_list) if v is not None]
    for v in values:  # TF sums each with L2Loss, which takes floats only
        if v._value.dtype.kind != "f":
            raise InvalidArgumentError(
                f"Value for attr 'T' of {v.dtype.name} is not in the list of allowed values: "
                f"half, bfloat16, float, double [Op:L2Loss]")
    half_squared_norms = [reduce_sum(v * v) / 2 for v in values]
    half_squared_norm = reduce_sum(stack(half_squared_norms))
    return sqrt(half_squared_norm * 2.0)


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> tuple:
    """Scales every tensor of `t_list` by `clip_norm / max(global_norm, clip_norm)`.

    Returns `(list_clipped, global_norm)`; None entries stay None. With an infinite or NaN
    norm every clipped value is NaN, as in TensorFlow."""
    values = _tensor_list(t_list)
    if use_norm is None:
        use_norm = global_norm(values)
    use_norm = convert_to_tensor(use_norm)
    clip_norm = convert_to_tensor(clip_norm, dtype_hint=use_norm.dtype)
    scale_for_finite = clip_norm * minimum(1.0 / use_norm, 1.0 / clip_norm)
    # (use_norm - use_norm) is 0, or NaN when the norm is not finite: then all become NaN.
    scale = scale_for_finite + (use_norm - use_norm)
    clipped = [None if v is None else identity(v * cast(scale, v.dtype)) for v in values]
    clipped = [IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices)
               else c for c, t in zip(clipped, t_list)]
    return clipped, use_norm


# Top level in TensorFlow; global_norm lives in tf.linalg only.
