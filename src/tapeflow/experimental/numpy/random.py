"""`tnp.random`: NumPy's sampling functions on tapeflow's seeded random ops, as TF's
`np_random` (float64 samples; `seed` is `tf.random.set_seed`)."""

from __future__ import annotations

from typing import Any

import numpy as np

import tapeflow as tf
from tapeflow.experimental.numpy import _dtypes
from tapeflow.experimental.numpy._arrays import asarray, isscalar

DEFAULT_RANDN_DTYPE = np.float32


def seed(s: Any) -> None:
    """Sets the global seed (`tf.random.set_seed`)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(
            f"Argument `s` got an invalid value {s}. Only integers are supported.") from None
    tf.random.set_seed(s)


def _size(size: Any) -> tuple:
    if size is None:
        return ()
    return (size,) if isscalar(size) else tuple(size)


def standard_normal(size: Any = None) -> tf.Tensor:
    """Samples of the standard normal distribution (float64)."""
    return tf.random.normal(_size(size), dtype=_dtypes.result_numpy_type(float))


def randn(*args: int) -> tf.Tensor:
    """`standard_normal` of shape `args`."""
    return standard_normal(size=args)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> tf.Tensor:
    """Samples uniform in [low, high) (float64); the shape of the bounds when no size."""
    dtype = _dtypes.result_numpy_type(float)
    low, high = asarray(low, dtype=dtype), asarray(high, dtype=dtype)
    if size is None:
        size = np.broadcast_shapes(tuple(low.shape.as_list()), tuple(high.shape.as_list()))
    return tf.random.uniform(shape=_size(size) if not isinstance(size, tuple) else size,
                             minval=low, maxval=high, dtype=dtype)


def random(size: Any = None) -> tf.Tensor:
    """Samples uniform in [0, 1)."""
    return uniform(0.0, 1.0, size)


def rand(*size: int) -> tf.Tensor:
    """Samples uniform in [0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


def poisson(lam: Any = 1.0, size: Any = None) -> tf.Tensor:
    """Samples of the Poisson distribution (int64)."""
    return tf.random.poisson(shape=_size(size), lam=lam, dtype=tf.int64)


def randint(low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64) -> tf.Tensor:
    """Integers uniform in [low, high) (or [0, low)), int32 or int64."""
    low = int(low)
    if high is None:
        low, high = 0, low
    size = () if size is None else (size,) if isinstance(size, int) else size
    np_dtype = _dtypes.result_numpy_type(dtype)
    if np_dtype not in (np.int32, np.int64):
        raise ValueError(f"Argument `dtype` got an invalid value {dtype}. Only those "
                         f"convertible to {(np.int32, np.int64)} are supported.")
    return tf.random.uniform(shape=size, minval=low, maxval=high, dtype=np_dtype)


__all__ = ["seed", "standard_normal", "randn", "uniform", "random", "rand", "poisson",
           "randint"]
