"""The few ops the backward pass itself needs (seeds, sums, reshapes), in one place."""

from __future__ import annotations

import numpy as np

from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.array_ops import reshape, stack, zeros
from tapeflow.ops.math_ops import add, ones_like, zeros_like
from tapeflow.ops.reduce_ops import reduce_sum


def unbroadcast(g: Tensor, shape: tuple) -> Tensor:
    """Sums a cotangent back to an input's `shape`, undoing NumPy broadcasting."""
    g_shape = g._value.shape
    lead = len(g_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g_shape[lead + i] != 1)
    if axes:
        g = reduce_sum(g, axis=axes, keepdims=False)
    return reshape(g, shape)


def one_hot_seed(target: Tensor, index: int) -> Tensor:
    """A cotangent for `target` that is 1 at flat position `index` and 0 elsewhere."""
    seed = np.zeros(target._value.size, target._value.dtype)
    seed[index] = 1
    return wrap(seed.reshape(target._value.shape))


def batch_one_hot_seed(target: Tensor, index: int) -> Tensor:
    """1 at flat position `index` of every example (axis 0) of `target`, 0 elsewhere."""
    batch = target._value.shape[0]
    seed = np.zeros((batch, target._value.size // max(batch, 1)), target._value.dtype)
    seed[:, index] = 1
    return wrap(seed.reshape(target._value.shape))


__all__ = ["unbroadcast", "one_hot_seed", "batch_one_hot_seed", "add", "convert_to_tensor",
           "ones_like", "zeros_like", "zeros", "stack", "reshape"]
