"""`keras.optimizers.ScheduleFreeAdamW` (Defazio et al., 2024), with Keras 3's update
(t = iterations + 1, lr warmed up as lr * min(t / warmup_steps, 1) when warmup_steps > 0):
  v += (g**2 - v) * (1 - beta_2)
  z -= lr * g / (sqrt(v / (1 - beta_2**t)) + epsilon)        (z: the 'momentum' slot)
  x = (y - (1 - beta_1) * z) / beta_1;  x = (1 - 1/t) * x + z / t
  y = (1 - beta_1) * z + beta_1 * x                           (y: the variable)
The 'momentum' slots start as copies of the variables. Keras's TF backend reads `z` for
recovering x after its update (its `momentum.value` is the variable, read when used), and so
does this.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW (defaults: learning_rate=0.0025, beta_1=0.9, beta_2=0.999,
    epsilon=1e-8, warmup_steps=0); takes the base class's keyword arguments."""

    def __init__(self, learning_rate: Any = 0.0025, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-8, warmup_steps: int = 0,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 use_ema: bool = False,
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
        self.warmup_steps = warmup_steps

    def build(self, var_list: list) -> None:
        """Creates the momentum (started at the variable's value) and velocity slots."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = [], []
        for variable in var_list:
            # The variable's value now, also when `build` runs while a step is traced.
            self._momentums.append(self.add_variable_from_reference(
                variable, "momentum", lambda shape, dtype, v=variable: np.array(v.numpy())))
            self._velocities.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        dtype = variable.dtype
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1 = math_ops.cast(self.beta_1, dtype)
        beta_2 = math_ops.cast(self.beta_2, dtype)
        epsilon = math_ops.cast(self.epsilon, dtype)
        if self.warmup_steps > 0:
            warmup_steps = math_ops.cast(self.warmup_steps, dtype)
            lr = lr * math_ops.minimum(local_step / warmup_steps, 1.0)
        index = self._get_variable_index(variable)
        z, v = self._momentums[index], self._velocities[index]
        bias_correction_2 = 1 - math_ops.pow(beta_2, local_step)
        v.assign_add((squared - v) * (1 - beta_2))
        z.assign_sub((lr * gradient) / (math_ops.sqrt(v / bias_correction_2) + epsilon))
        weight = 1.0 / local_step
        x = (variable - (1 - beta_1) * z) / beta_1
        x = (1 - weight) * x + weight * z
        variable.assign((1 - beta_1) * z + beta_1 * x)

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "warmup_steps": self.warmup_steps}


__all__ = ["ScheduleFreeAdamW"]
