"""`keras.random`: Keras 3's random functions on TensorFlow, drawing what Keras draws there
(stateless TensorFlow ops on seed pairs; see `backend`'s randomness section)."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.tensor import TensorLike
from tapeflow.keras import backend
from tapeflow.keras.backend import SeedGenerator


def _dtype(dtype: Any) -> Any:
    return dtype or backend.floatx()


def _shape(shape: Any) -> Any:
    """A shape argument as the TF ops take it: a list or tuple (whose items may be scalar
    tensors) as a tuple, a shape tensor as it is (traced, it is read when the graph runs)."""
    return shape if isinstance(shape, TensorLike) else tuple(shape)


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
           seed: Any = None) -> Any:
    """Normal numbers of `mean` and `stddev` (`seed`: an int, a SeedGenerator or None)."""
    return backend.random_normal(_shape(shape), mean, stddev, _dtype(dtype), seed)


def uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None,
            seed: Any = None) -> Any:
    """Uniform numbers in [minval, maxval)."""
    return backend.random_uniform(_shape(shape), minval, maxval, _dtype(dtype), seed)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                     seed: Any = None) -> Any:
    """Normal numbers within two standard deviations of `mean`."""
    return backend.truncated_normal(_shape(shape), mean, stddev, _dtype(dtype), seed)


def dropout(inputs: Any, rate: float, noise_shape: Optional[Any] = None,
            seed: Any = None) -> Any:
    """`inputs` with each element zeroed with probability `rate`, the rest scaled up."""
    return backend.dropout(inputs, rate, noise_shape, seed)


__all__ = ["SeedGenerator", "normal", "uniform", "truncated_normal", "dropout"]
