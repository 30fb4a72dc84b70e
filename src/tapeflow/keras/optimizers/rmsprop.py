"""`keras.optimizers.RMSprop`, with Keras 3's update:
  vel = rho * vel + (1 - rho) * g**2      (centered: avg = rho * avg + (1 - rho) * g)
  increment = lr * g / sqrt(vel + eps)    (centered: sqrt(vel - avg**2 + eps))
  momentum > 0: mom = momentum * mom + increment; var -= mom   else var -= increment
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.fused import python_scalar
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops
from tapeflow.ops.optimizer_ops import APPLY_RMSPROP


class RMSprop(Optimizer):
    """RMSprop (defaults: learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7)."""

    # Keras 3.15.1 / TF 2.21: `velocity * rho + (1 - rho) * g**2` meets the gradient first.
    _gradient_refusal = GradientShapeRefusal("AddV2", gradient_first=False, name_suffix=True,
                                             assign_op="AssignVariableOp")

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list: list) -> None:
        """Creates velocity slots, plus momentum and average-gradient slots when used."""
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = []
        if self.momentum > 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._average_gradients = []
        if self.centered:
            self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        index = self._get_variable_index(variable)
        velocity = self._velocities[index]
        rho = self.rho
        velocity.assign(rho * velocity + (1 - rho) * squared)
        if self.centered:
            average = self._average_gradients[index]
            average.assign(rho * average + (1 - rho) * gradient)
            denominator = velocity - math_ops.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * gradient / math_ops.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._momentums[index]
            momentum.assign(self.momentum * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)

    def _fused_update(self) -> tuple:
        return APPLY_RMSPROP, {"momentum": self.momentum > 0, "centered": bool(self.centered)}

    def _fused_slots(self, index: int) -> tuple:
        slots = (self._velocities[index],)
        if self.momentum > 0:
            slots += (self._momentums[index],)
        return slots + (self._average_gradients[index],) if self.centered else slots

    def _fused_scalars(self, dtype: Any, learning_rate: Any) -> tuple:
        return (math_ops.cast(learning_rate, dtype), python_scalar(self.rho, dtype),
                python_scalar(1 - self.rho, dtype), python_scalar(self.momentum, dtype),
                python_scalar(self.epsilon, dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}


__all__ = ["RMSprop"]
