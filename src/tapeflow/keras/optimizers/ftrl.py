"""`keras.optimizers.Ftrl` ("Follow The Regularized Leader"), with Keras 3's update
(p = -learning_rate_power, n the accumulator, z the linear slot):
  l2 = l2_regularization_strength + beta / (2 * lr)
  g_s = g + 2 * l2_shrinkage_regularization_strength * var;  n_new = n + g**2
  z += g_s - (n_new**p - n**p) / lr * var
  var = (clip(z, -l1, l1) - z) / (n_new**p / lr + 2 * l2);  n = n_new
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer, dense_of
from tapeflow.ops.indexed_slices_ops import densify
from tapeflow.ops import math_ops


def _check_not_negative(name: str, value: float, kind: str = "positive or zero") -> None:
    if value < 0.0:
        raise ValueError(f"`{name}` needs to be {kind}. Received: {name}={value}.")


class Ftrl(Optimizer):
    """FTRL-proximal (defaults: learning_rate=0.001, learning_rate_power=-0.5,
    initial_accumulator_value=0.1, no regularization, beta=0.0)."""

    # Keras 3.15.1 / TF 2.21: `accumulator + g**2` meets the gradient first.
    _gradient_refusal = GradientShapeRefusal("AddV2", name_suffix=True)

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
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
        # Keras's checks and messages, in its order.
        _check_not_negative("initial_accumulator_value", initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        _check_not_negative("l1_regularization_strength", l1_regularization_strength)
        _check_not_negative("l2_regularization_strength", l2_regularization_strength)
        _check_not_negative("l2_shrinkage_regularization_strength",
                            l2_shrinkage_regularization_strength)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list: list) -> None:
        """Creates the accumulator (filled with `initial_accumulator_value`) and linear
        slots."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"],
            initializer=[float(self.initial_accumulator_value), "zeros"])

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)   # IndexedSlices stay sparse, as in Keras
        index = self._get_variable_index(variable)
        accum, linear = self._accumulators[index], self._linears[index]
        power = -self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrinkage = 2 * self.l2_shrinkage_regularization_strength
        grad_to_use = densify(gradient) + shrinkage * variable
        new_accum = accum + dense_of(gradient, math_ops.square)
        new_accum_power = math_ops.pow(new_accum, power)
        linear.assign_add(grad_to_use - (new_accum_power - math_ops.pow(accum, power))
                          / lr * variable)
        quadratic = new_accum_power / lr + 2 * l2_reg
        l1 = self.l1_regularization_strength
        linear_clipped = math_ops.minimum(math_ops.maximum(linear, -l1), l1)
        variable.assign((linear_clipped - linear) / quadratic)
        accum.assign(new_accum)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength":
                    self.l2_shrinkage_regularization_strength,
                "beta": self.beta}


__all__ = ["Ftrl"]
