"""`keras.optimizers.Lamb`, with Keras 3's update (t = iterations + 1): Adam's moments, then
the step scaled by the layer-wise trust ratio ||var|| / ||update||:
  m += (g - m) * (1 - beta_1);  v += (g**2 - v) * (1 - beta_2)
  update = (m / (1 - beta_1**t)) / (sqrt(v / (1 - beta_2**t)) + epsilon)
  ratio = ||var|| / ||update|| if both norms are > 0 else 1
  var -= ratio * lr * update
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops, reduce_ops


class Lamb(Optimizer):
    """The Lamb optimizer (defaults: learning_rate=0.001, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7); takes the base class's keyword arguments (weight decay, clipping, EMA,
    loss scaling, gradient accumulation)."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
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
        """Creates the momentum and velocity slots (each variable's pair in turn)."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        dtype = variable.dtype
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1_power = math_ops.pow(math_ops.cast(self.beta_1, dtype), local_step)
        beta_2_power = math_ops.pow(math_ops.cast(self.beta_2, dtype), local_step)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((squared - v) * (1 - self.beta_2))
        update = (m / (1.0 - beta_1_power)) / (
            math_ops.sqrt(v / (1.0 - beta_2_power)) + self.epsilon)
        variable.assign_sub(_trust_ratio(variable, update) * lr * update)

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}


def _trust_ratio(variable: Any, update: Any) -> Any:
    """||variable|| / ||update||, or 1 where either norm is 0 (a where, as Keras: no branch
    on a value)."""
    w_norm = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(variable)))
    g_norm = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(update)))
    one = math_ops.ones_like(w_norm)
    ratio = math_ops.where(g_norm > 0, w_norm / g_norm, one)
    return math_ops.where(w_norm > 0, ratio, one)


__all__ = ["Lamb"]
