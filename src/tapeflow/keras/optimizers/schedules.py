"""`keras.optimizers.schedules`: learning rates that change with the optimizer's step.

A schedule is called with the optimizer's `iterations` (an int64 Variable or tensor) and
returns a scalar tensor; the formulas are Keras 3's (keras/src/optimizers/schedules).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

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
        # Keras's cond as a select of both values: the step may be traced (a step of `fit`).
        warmup = (target - initial) * (step / warmup_steps) + initial
        return math_ops.where(step < warmup_steps, warmup,
                              self._decay(step - warmup_steps, decay_steps, target))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class PolynomialDecay(LearningRateSchedule):
    """`(initial - end) * (1 - step / decay_steps) ** power + end`: the step held at
    `decay_steps`, or with `cycle`, `decay_steps` multiplied by ceil(step / decay_steps)
    (1 at step 0) so that the decay restarts."""

    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: str = "PolynomialDecay") -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step: Any) -> Tensor:
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        end = math_ops.cast(self.end_learning_rate, dtype)
        power = math_ops.cast(self.power, dtype)
        step = math_ops.cast(step, dtype)
        decay_steps = math_ops.cast(self.decay_steps, dtype)
        if self.cycle:
            multiplier = math_ops.where(math_ops.equal(step, 0), math_ops.ones_like(step),
                                        math_ops.ceil(step / self.decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = math_ops.minimum(step, decay_steps)
        p = step / decay_steps
        return (initial - end) * math_ops.pow(1 - p, power) + end

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): the i-th period lasts
    `first_decay_steps * t_mul**i` steps and starts from `initial_learning_rate * m_mul**i`,
    decaying to `alpha` times that."""

    def __init__(self, initial_learning_rate: float, first_decay_steps: int,
                 t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0,
                 name: str = "SGDRDecay") -> None:
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name
        _check_steps("first_decay_steps", first_decay_steps)

    def __call__(self, step: Any) -> Tensor:
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        alpha = math_ops.cast(self.alpha, dtype)
        t_mul = math_ops.cast(self._t_mul, dtype)
        m_mul = math_ops.cast(self._m_mul, dtype)
        fraction = math_ops.cast(step, dtype) / math_ops.cast(self.first_decay_steps, dtype)
        # Keras's cond on t_mul == 1, decided here from the constant (in the schedule's dtype).
        if np.asarray(self._t_mul, dtype.as_numpy_dtype) == 1:
            i_restart = math_ops.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = math_ops.floor(
                math_ops.log(1.0 - fraction * (1.0 - t_mul)) / math_ops.log(t_mul))
            sum_r = (1.0 - math_ops.pow(t_mul, i_restart)) / (1.0 - t_mul)
            fraction = (fraction - sum_r) / math_ops.pow(t_mul, i_restart)
        cosine = 0.5 * math_ops.pow(m_mul, i_restart) * (
            1.0 + math_ops.cos(math_ops.cast(math.pi, dtype) * fraction))
        return initial * ((1 - alpha) * cosine + alpha)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """Keras 3's config dict of a schedule: `{'module', 'class_name', 'config',
    'registered_name'}`."""
    from tapeflow.keras.saving import serialization
    return serialization.serialize_keras_object(learning_rate_schedule)


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> LearningRateSchedule:
    """The schedule `serialize`'s dict describes (a 'class_name' of this module, the registry's
    or `custom_objects`'); an unknown name raises ValueError (Keras returns the name)."""
    if isinstance(config, dict) and "module" not in config:
        cls = {**_SCHEDULES, **(custom_objects or {})}.get(config.get("class_name"))
        if cls is None:
            raise ValueError(f"Could not interpret decay identifier: {config}")
        return cls.from_config(config.get("config") or {})
    from tapeflow.keras.saving import serialization
    return serialization.deserialize_keras_object(config, custom_objects=custom_objects)


_SCHEDULES = {cls.__name__: cls for cls in (
    ExponentialDecay, PiecewiseConstantDecay, InverseTimeDecay, CosineDecay, PolynomialDecay,
    CosineDecayRestarts)}

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "InverseTimeDecay", "CosineDecay", "PolynomialDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]
