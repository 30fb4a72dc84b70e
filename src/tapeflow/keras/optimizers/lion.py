"""`keras.optimizers.Lion`, with Keras 3's update:
  var -= lr * sign(m * beta_1 + g * (1 - beta_1));  m = m * beta_2 + g * (1 - beta_2)
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer, dense_of
from tapeflow.ops import math_ops


class Lion(Optimizer):
    """The Lion optimizer (defaults: learning_rate=0.001, beta_1=0.9, beta_2=0.99)."""

    # Keras 3.15.1 / TF 2.21: `m * beta_1 + g * (1 - beta_1)` meets the gradient first.
    _gradient_refusal = GradientShapeRefusal("AddV2", gradient_first=False, name_suffix=True,
                                             assign_op="AssignSubVariableOp")

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99,
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
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the "
                             f"optimizer degenerates to SignSGD. Received: beta_1={beta_1}.")

    def build(self, var_list: list) -> None:
        """Creates the momentum slots."""
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)   # IndexedSlices stay sparse, as in Keras
        beta_1 = math_ops.cast(self.beta_1, dtype)
        beta_2 = math_ops.cast(self.beta_2, dtype)
        m = self._momentums[self._get_variable_index(variable)]
        variable.assign_sub(lr * math_ops.sign(
            m * beta_1 + dense_of(gradient, lambda g: g * (1.0 - beta_1))))
        m.assign(m * beta_2 + dense_of(gradient, lambda g: g * (1.0 - beta_2)))

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}


__all__ = ["Lion"]
