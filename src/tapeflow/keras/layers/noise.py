"""Noise layers (Keras 3's regularization layers): GaussianNoise, GaussianDropout,
AlphaDropout, SpatialDropout1D/2D. In training they draw from the layer's own seed generator
with Keras's stateless TensorFlow ops (`backend.random_normal`, `random_uniform`,
`dropout`), so after `keras.utils.set_random_seed` they give Keras-on-TensorFlow's numbers; at
inference they are the identity."""

from __future__ import annotations

import math
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.core import Dropout
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops, math_ops

__all__ = ["GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout1D",
           "SpatialDropout2D"]


def _unit_interval(value: float, label: str) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{label}`. Expected a float "
                         f"value between 0 and 1. Received: {label}={value}")


class _Noise(Layer):
    """A layer that, in training, combines its input with normal noise of `mean` and
    `stddev` drawn in its compute dtype; `strength` (stddev or rate) 0 means no noise."""

    _strength_name = ""

    def __init__(self, strength: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _unit_interval(strength, self._strength_name)
        setattr(self, self._strength_name, strength)
        self.seed = seed
        # Keras makes the generator (taking a default seed when none is given) only for noise.
        if strength > 0:
            self.seed_generator = backend.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def _noise(self, inputs: Any, mean: float, stddev: float) -> Any:
        return backend.random_normal(array_ops.shape(inputs), mean, stddev,
                                     self.compute_dtype, self.seed_generator)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), self._strength_name: getattr(self, self._strength_name),
                "seed": self.seed}


class GaussianNoise(_Noise):
    """Adds zero-centred normal noise of standard deviation `stddev` (in [0, 1]) in
    training."""

    _strength_name = "stddev"

    def __init__(self, stddev: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(stddev, seed, **kwargs)

    def call(self, inputs: Any, training: Any = False) -> Any:
        x = convert_to_tensor(inputs)
        if training and self.stddev > 0:
            return x + self._noise(x, 0.0, self.stddev)
        return x


class GaussianDropout(_Noise):
    """Multiplies by one-centred normal noise of standard deviation sqrt(rate / (1 - rate))
    (`rate` in [0, 1], as Dropout's) in training."""

    _strength_name = "rate"

    def __init__(self, rate: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(rate, seed, **kwargs)

    def call(self, inputs: Any, training: Any = False) -> Any:
        x = convert_to_tensor(inputs)
        if training and self.rate > 0:
            return x * self._noise(x, 1.0, math.sqrt(self.rate / (1.0 - self.rate)))
        return x


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalization: in training, dropped inputs take SELU's
    negative saturation value and the result is rescaled to the input's mean and variance
    (Keras 3's formulas)."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _unit_interval(rate, "rate")
        self.rate, self.seed, self.noise_shape = rate, seed, noise_shape
        if rate > 0:
            self.seed_generator = backend.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        x = convert_to_tensor(inputs)
        if not (training and self.rate > 0):
            return x
        shape = list(backend.dynamic_shape(x))
        if self.noise_shape is not None:
            shape = [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        alpha, scale = 1.6732632423543772, 1.0507009873554805
        alpha_p = -alpha * scale
        uniform = backend.random_uniform(tuple(shape), 0.0, 1.0, backend.floatx(),
                                         self.seed_generator)
        kept = math_ops.cast(math_ops.greater_equal(uniform, self.rate), x.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (x * kept + alpha_p * (1 - kept)) + b

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}


class _SpatialDropout(Dropout):
    """Dropout of whole feature maps: one draw per example and channel."""

    _ndim = 0

    def __init__(self, rate: float, seed: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.input_spec = InputSpec(ndim=self._ndim)

    def call(self, inputs: Any, training: Any = False) -> Any:
        x = convert_to_tensor(inputs)
        if training and self.rate > 0:
            return backend.dropout(x, self.rate, self._noise_shape(list(backend.dynamic_shape(x))),
                                   self._seed_generator)
        return x

    def _noise_shape(self, shape: list) -> tuple:
        return (shape[0],) + (1,) * (len(shape) - 2) + (shape[-1],)

    def get_config(self) -> dict:
        """Keras 3's (without `trainable`, the dtype as its name)."""
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype}


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of (batch, steps, channels) inputs in training."""

    _ndim = 3


class SpatialDropout2D(_SpatialDropout):
    """Drops whole channels of 4-D inputs (channels last or first) in training."""

    _ndim = 4

    def __init__(self, rate: float, data_format: Optional[str] = None,
                 seed: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        from tapeflow.keras.backend import standardize_data_format
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = standardize_data_format(data_format)

    def _noise_shape(self, shape: list) -> tuple:
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1)
        return (shape[0], 1, 1, shape[3])

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}
