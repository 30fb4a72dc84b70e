"""Noise layers (Keras 3's regularization layers): GaussianNoise and GaussianDropout. In
training they draw a normal per input from the layer's own seed generator, with Keras's
stateless TensorFlow op (`backend.random_normal`), so after `keras.utils.set_random_seed`
they give Keras-on-TensorFlow's numbers; at inference they are the identity."""

from __future__ import annotations

import math
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import array_ops

__all__ = ["GaussianNoise", "GaussianDropout"]


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
