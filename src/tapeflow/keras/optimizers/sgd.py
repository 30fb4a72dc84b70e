"""`keras.optimizers.SGD`: gradient descent with optional (Nesterov) momentum.

Keras 3's update, with m the momentum slot:
  momentum == 0:  v -= lr * g
  otherwise:      m = momentum * m - lr * g;  v += m  (nesterov: v += momentum * m - lr * g)
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.ops.indexed_slices_ops import densify
from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops
from tapeflow.ops.optimizer_ops import APPLY_SGD


class SGD(Optimizer):
    """Stochastic gradient descent (defaults: learning_rate=0.01, momentum=0.0)."""

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
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
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables: list) -> None:
        """Creates one momentum slot per variable when momentum is not 0."""
        if self.built:
            return
        super().build(variables)
        self.momentums = []
        if self.momentum != 0:
            self.momentums = self.add_optimizer_variables(variables, "momentum")

    def _gradient_shape_refusal(self) -> GradientShapeRefusal:
        """Keras 3.15.1 / TF 2.21: without momentum `variable.assign_sub(g * lr)` wants the
        variable's shape; with it, `m * momentum - g * lr` meets the gradient first."""
        if self.gradient_accumulation_steps:
            return super()._gradient_shape_refusal()
        if self.momentum == 0:
            return GradientShapeRefusal("AssignSubVariableOp")
        return GradientShapeRefusal("Sub", gradient_first=False, name_suffix=True,
                                    assign_op="AssignVariableOp")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr = math_ops.cast(learning_rate, variable.dtype)
        gradient = densify(math_ops.cast(gradient, variable.dtype))
        if self.momentum == 0:
            variable.assign_sub(gradient * lr)
            return
        m = self.momentums[self._get_variable_index(variable)]
        momentum = math_ops.cast(self.momentum, variable.dtype)
        m.assign(m * momentum - gradient * lr)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * lr)
        else:
            variable.assign_add(m)

    def _fused_update(self) -> tuple:
        if self.momentum == 0:
            return APPLY_SGD, {}
        return APPLY_SGD, {"momentum": True, "nesterov": bool(self.nesterov)}

    def _fused_slots(self, index: int) -> tuple:
        return () if self.momentum == 0 else (self.momentums[index],)

    def _fused_scalars(self, dtype: Any, learning_rate: Any) -> tuple:
        return math_ops.cast(learning_rate, dtype), math_ops.cast(self.momentum, dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


__all__ = ["SGD"]
