"""`keras.optimizers.schedules`: learning rates that change with the optimizer's step.

A schedule is called with the optimizer's `iterations` (an int64 Variable or tensor) and
returns a scalar tensor; the formulas are Keras 3's (keras/src/optimizers/schedules).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.ops import math_ops


class LearningRateSchedule:
    """The base class of learning rate schedules: subclasses define `__call__(step)`."""

    def __call__(self, step: Any) -> Tensor:
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override "
            f"`__call__(self, step)`.")

    def get_config(self) -> dict:
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override `get_config()` "
            "in order to be serializable.")

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)


def _check_steps(name: str, steps: Any) -> None:
    if steps <= 0:
        raise ValueError(f"Argument `{name}` must be > 0. Received: {name}={steps}")


class _StepDecay(LearningRateSchedule):
    """What ExponentialDecay and InverseTimeDecay share: their arguments and the decay
    progress `step / decay_steps` (floored when `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool, name: str) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step: Any) -> tuple:
        """(the initial rate as a tensor, the decay rate and the progress, in its dtype)."""
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        p = math_ops.cast(step, dtype) / math_ops.cast(self.decay_steps, dtype)
        if self.staircase:
            p = math_ops.floor(p)
        return initial, math_ops.cast(self.decay_rate, dtype), p

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (the exponent floored when
    `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str = "ExponentialDecay") -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step: Any) -> Tensor:
        initial, rate, p = self._progress(step)
        return initial * math_ops.pow(rate, p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to step `boundaries[0]` (inclusive), `values[1]` up to `boundaries[1]`,
    ..., `values[-1]` after the last boundary."""

    def __init__(self, boundaries: list, values: list,
                 name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                f"values={values} of length {len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Tensor:
        values = [convert_to_tensor(v) for v in self.values]
        step = convert_to_tensor(step)
        lr = values[-1]
        # From the last interval back, so the first boundary the step is within wins.
        for boundary, value in zip(reversed(self.boundaries), reversed(values[:-1])):
            within = math_ops.cast(step, "float64") <= float(boundary)
            lr = math_ops.where(within, value, lr)
        return lr

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(_StepDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (the ratio floored when
    `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str = "InverseTimeDecay") -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step: Any) -> Tensor:
        initial, rate, p = self._progress(step)
        return initial / (1.0 + rate * p)


class CosineDecay(LearningRateSchedule):
    """Cosine decay from `initial_learning_rate` to `alpha * initial_learning_rate` over
    `decay_steps`, after an optional linear warmup to `warmup_target` over `warmup_steps`."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: str = "CosineDecay", warmup_target: Optional[float] = None,
                 warmup_steps: int = 0) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        _check_steps("decay_steps", decay_steps)

    def _decay(self, step: Tensor, decay_steps: Tensor, decay_from: Tensor) -> Tensor:
        fraction = step / decay_steps
        cosine = 0.5 * (1.0 + math_ops.cos(math.pi * fraction))
        return decay_from * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> Tensor:
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        decay_steps = math_ops.cast(self.decay_steps, dtype)
        step = math_ops.cast(step, dtype)
        if self.warmup_target is None:
            return self._decay(math_ops.minimum(step, decay_steps), decay_steps, initial)
        target = math_ops.cast(self.warmup_target, dtype)
        warmup_steps = math_ops.cast(self.warmup_steps, dtype)
        step = math_ops.minimum(step, decay_steps + warmup_steps)
        # A Python branch on the step value: schedules are evaluated eagerly per step.
        if bool(step < warmup_steps):
            return (target - initial) * (step / warmup_steps) + initial
        return self._decay(step - warmup_steps, decay_steps, target)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "InverseTimeDecay", "CosineDecay"]
