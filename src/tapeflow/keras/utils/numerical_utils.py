"""`keras.utils.normalize` and `to_categorical`: NumPy in, NumPy out; a tensor in, a tensor
out (as Keras 3)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def _is_tensor(x: Any) -> bool:
    from tapeflow.framework.tensor import Tensor
    return isinstance(x, Tensor)


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """`x` divided by its `order`-norm along `axis` (a zero norm divides by 1). A NumPy array
    gives a NumPy array (its dtype kept, as Keras); anything else a Tensor (keras.ops's
    `normalize`)."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis or -1)
    return _normalize_tensor(x, axis, order)


def _normalize_tensor(x: Any, axis: int, order: int, epsilon: float = 1e-7) -> Any:
    """keras.ops.normalize: L2 as `x * min(rsqrt(sum(x**2)), 1/epsilon)`, other orders as
    `x / max(norm, epsilon)`."""
    from tapeflow.ops import array_ops, linalg_ops, math_ops, reduce_ops
    from tapeflow.ops._convert import convert_to_tensor
    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = convert_to_tensor(x)
    if x.shape.rank == 0:
        x = array_ops.expand_dims(x, 0)
    if order == 2:
        square_sum = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
        return x * math_ops.minimum(math_ops.rsqrt(square_sum), 1.0 / epsilon)
    norm = linalg_ops.norm(x, ord=order, axis=axis, keepdims=True)
    return x / math_ops.maximum(norm, epsilon)

def to_categorical(x: Any, num_classes: Optional[int] = None) -> Any:
    """One-hot rows for integer class labels, the class axis last (a trailing axis of size 1
    is dropped first). NumPy/list input gives float64 NumPy (as Keras 3); a Tensor gives a
    float32 Tensor (`tf.one_hot`)."""
    if _is_tensor(x):
        from tapeflow.ops import array_ops
        if x.shape.rank is not None and x.shape.rank > 1 and x.shape[-1] == 1:
            x = array_ops.reshape(x, x.shape[:-1])
        if num_classes is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             "(<class 'NoneType'>) to a Tensor.")
        return array_ops.one_hot(x, num_classes)
    x = np.array(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1
    out = np.zeros((x.shape[0], num_classes))
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (num_classes,))


__all__ = ["normalize", "to_categorical"]
