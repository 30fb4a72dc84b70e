"""`keras.optimizers.Adadelta`, with Keras 3's update (rms(x) = sqrt(x + epsilon)):
  acc_g = rho * acc_g + (1 - rho) * g**2
  delta = -(rms(acc_delta) * g / rms(acc_g))
  acc_delta = rho * acc_delta + (1 - rho) * delta**2;  var += lr * delta
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal
from tapeflow.keras.optimizers.optimizer import Optimizer, dense_of
from tapeflow.ops import array_ops, math_ops
from tapeflow.ops.indexed_slices_ops import densify


class Adadelta(Optimizer):
    """Adadelta (defaults: learning_rate=0.001, rho=0.95, epsilon=1e-7)."""

    # Keras 3.15.1 / TF 2.21: the accumulated gradient's `rho * a + (1 - rho) * g**2` first.
    _gradient_refusal = GradientShapeRefusal("AddV2", gradient_first=False, name_suffix=True,
                                             assign_op="AssignVariableOp")

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
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
        self.epsilon = epsilon

    def build(self, var_list: list) -> None:
        """Creates the accumulated squared gradient and squared update slots."""
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)
        rho = self.rho
        index = self._get_variable_index(variable)
        acc_grad = self._accumulated_grads[index]
        acc_delta = self._accumulated_delta_vars[index]
        squares = dense_of(gradient, lambda g: (1 - rho) * math_ops.square(g))
        acc_grad.assign(rho * acc_grad + squares)
        if isinstance(gradient, IndexedSlices):
            self._sparse_update(gradient, variable, lr, acc_grad, acc_delta)
            return
        delta = math_ops.negative(self._rms(acc_delta) * gradient / self._rms(acc_grad))
        acc_delta.assign(rho * acc_delta + (1 - rho) * math_ops.square(delta))
        variable.assign_add(lr * delta)

    def _sparse_update(self, gradient: IndexedSlices, variable: Variable, lr: Any,
                       acc_grad: Variable, acc_delta: Variable) -> None:
        """As Keras 3's TF backend: the update stays sparse, one delta per slice (repeated
        indices each square their own delta, and are added to the variable one by one)."""
        indices, shape = gradient.indices, gradient.dense_shape
        delta = math_ops.negative(array_ops.gather(self._rms(acc_delta), indices)
                                  * gradient.values
                                  / array_ops.gather(self._rms(acc_grad), indices))
        squares = IndexedSlices((1 - self.rho) * math_ops.square(delta), indices, shape)
        acc_delta.assign(self.rho * acc_delta + densify(squares))
        variable.scatter_add(IndexedSlices(lr * delta, indices, shape))

    def _rms(self, x: Any) -> Any:
        return math_ops.sqrt(x + self.epsilon)

    def get_config(self) -> dict:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


__all__ = ["Adadelta"]
