"""`keras.optimizers.Adagrad`, with Keras 3's update:
  acc += g**2;  var -= lr * g / sqrt(acc + epsilon)     (acc starts at initial_accumulator_value)
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.fused import python_scalar
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops
from tapeflow.ops.optimizer_ops import APPLY_ADAGRAD


class Adagrad(Optimizer):
    """Adagrad (defaults: learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7)."""

    # Keras 3.15.1 / TF 2.21: `accumulator.assign_add(g**2)` wants the variable's shape.
    _gradient_refusal = GradientShapeRefusal("AssignAddVariableOp")

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None,
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
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list: list) -> None:
        """Creates accumulator slots filled with `initial_accumulator_value`."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=float(self.initial_accumulator_value))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        accumulator = self._accumulators[self._get_variable_index(variable)]
        accumulator.assign_add(squared)
        variable.assign_sub(lr * gradient / math_ops.sqrt(accumulator + self.epsilon))

    def _fused_update(self) -> tuple:
        return APPLY_ADAGRAD, {}

    def _fused_slots(self, index: int) -> tuple:
        return (self._accumulators[index],)

    def _fused_scalars(self, dtype: Any, learning_rate: Any) -> tuple:
        return math_ops.cast(learning_rate, dtype), python_scalar(self.epsilon, dtype)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}


__all__ = ["Adagrad"]
