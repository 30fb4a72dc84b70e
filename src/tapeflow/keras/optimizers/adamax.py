"""`keras.optimizers.Adamax`, with Keras 3's update (t = iterations + 1):
  m += (g - m) * (1 - beta_1);  u = max(beta_2 * u, |g|)
  var -= lr * m / ((1 - beta_1**t) * (u + epsilon))
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.optimizer import Optimizer, dense_of
from tapeflow.ops.indexed_slices_ops import densify
from tapeflow.ops import math_ops


class Adamax(Optimizer):
    """Adam with the infinity norm (defaults: learning_rate=0.001, beta_1=0.9,
    beta_2=0.999, epsilon=1e-7)."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
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
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list: list) -> None:
        """Creates the momentum and (infinity) norm slots."""
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)   # IndexedSlices stay sparse, as in Keras
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1_power = math_ops.pow(math_ops.cast(self.beta_1, dtype), local_step)
        index = self._get_variable_index(variable)
        m, u = self._m[index], self._u[index]
        m.assign_add((densify(gradient) - m) * (1 - self.beta_1))
        u.assign(math_ops.maximum(self.beta_2 * u, dense_of(gradient, math_ops.abs)))
        variable.assign_sub((lr * m) / ((1 - beta_1_power) * (u + self.epsilon)))

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}


__all__ = ["Adamax"]
