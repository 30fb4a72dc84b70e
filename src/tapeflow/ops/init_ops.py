"""TensorFlow 2's initializers of the top level (`tf.zeros_initializer`,
`tf.ones_initializer`, `tf.constant_initializer`, `tf.random_normal_initializer`,
`tf.random_uniform_initializer`; TF's init_ops_v2): objects called with a shape and dtype.
With a seed the random ones draw TF's stateless numbers for the seed pair [seed, 0] (the
same numbers on every call), without one the global random stream's."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor

_PARTITION_KWARGS = ("partition_shape", "partition_offset")


def _check_kwargs(kwargs: dict) -> None:
    for key in kwargs:
        if key not in _PARTITION_KWARGS:
            raise TypeError(f"Keyword argument should be one of {list(_PARTITION_KWARGS)}. "
                            f"Received: {key}")
    if kwargs.get("partition_shape") is not None:
        raise NotImplementedError("tapeflow's initializers do not take partition_shape")


class Initializer:
    """Base class: `__call__(shape, dtype=None, **kwargs) -> Tensor`, and a config."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        raise NotImplementedError("Initializer subclasses must implement `__call__()`.")

    def get_config(self) -> dict:
        """The arguments that rebuild this initializer."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Initializer":
        """The initializer of `get_config()`'s dict."""
        config.pop("dtype", None)
        return cls(**config)


def _numeric_or_bool(dtype: Any) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype == _dtypes.string:
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received "
                         f"{dtype}.")
    return dtype


@tf_export("zeros_initializer")
class Zeros(Initializer):
    """Fills with zeros."""

    def __call__(self, shape: Any, dtype: Any = _dtypes.float32, **kwargs: Any) -> Tensor:
        from tapeflow.ops.array_ops import zeros
        _check_kwargs(kwargs)
        return zeros(shape, _numeric_or_bool(dtype))


@tf_export("ones_initializer")
class Ones(Initializer):
    """Fills with ones."""

    def __call__(self, shape: Any, dtype: Any = _dtypes.float32, **kwargs: Any) -> Tensor:
        from tapeflow.ops.array_ops import ones
        _check_kwargs(kwargs)
        return ones(shape, _numeric_or_bool(dtype))


@tf_export("constant_initializer")
class Constant(Initializer):
    """Fills with `value`: a scalar (repeated), or a list/array with as many elements as the
    shape (reshaped to it), as `tf.constant(value, dtype, shape)`."""

    def __init__(self, value: Any = 0) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {_type_name(value)}. Expected "
                            f"Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        from tapeflow.ops.array_ops import constant
        _check_kwargs(kwargs)
        return constant(self.value, dtype=None if dtype is None else _dtypes.as_dtype(dtype),
                        shape=_static_shape(shape))

    def get_config(self) -> dict:
        """{'value': value}."""
        return {"value": self.value}


def _type_name(value: Any) -> str:
    return "EagerTensor" if isinstance(value, Tensor) else type(value).__name__


def _static_shape(shape: Any) -> Any:
    return shape.numpy().tolist() if isinstance(shape, Tensor) else shape


def _floating(dtype: Any, what: str = "floating point") -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or what != "floating point" and dtype.is_integer):
        raise ValueError(f"Argument `dtype` is expected to be {what}. Received: {dtype}.")
    return dtype


@tf_export("random_normal_initializer")
class RandomNormal(Initializer):
    """Normal numbers of `mean` and `stddev`; with `seed`, TF's stateless draws for the seed
    [seed, 0] (the same on every call), without, the global random stream's."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05,
                 seed: Optional[int] = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: Any = _dtypes.float32, **kwargs: Any) -> Tensor:
        _check_kwargs(kwargs)
        dtype = _floating(dtype)
        if self.seed is None:
            from tapeflow.ops.random_ops import normal
            return normal(shape, self.mean, self.stddev, dtype)
        from tapeflow.ops.stateless_random_ops import stateless_normal
        return stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dtype)

    def get_config(self) -> dict:
        """{'mean', 'stddev', 'seed'}."""
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@tf_export("random_uniform_initializer")
class RandomUniform(Initializer):
    """Uniform numbers in [minval, maxval) (floats or integers); with `seed`, TF's stateless
    draws for the seed [seed, 0], without, the global random stream's."""

    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05,
                 seed: Optional[int] = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = _dtypes.float32, **kwargs: Any) -> Tensor:
        _check_kwargs(kwargs)
        dtype = _floating(dtype, "floating point or integer")
        if self.seed is None:
            from tapeflow.ops.random_ops import uniform
            return uniform(shape, self.minval, self.maxval, dtype)
        from tapeflow.ops.stateless_random_ops import stateless_uniform
        return stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dtype)

    def get_config(self) -> dict:
        """{'minval', 'maxval', 'seed'}."""
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}
