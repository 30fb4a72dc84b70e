"""`keras.optimizers.Nadam`, with Keras 3's update (t = iterations + 1, all in float32):
  u_t = beta_1 * (1 - 0.5 * 0.96**t);  u_t1 = beta_1 * (1 - 0.5 * 0.96**(t + 1))
  u_product *= beta_1 * (1 - 0.5 * 0.96**t)        (once per step, before the variables)
  m += (g - m) * (1 - beta_1);  v += (g**2 - v) * (1 - beta_2)
  m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
  var -= m_hat * lr / (sqrt(v / (1 - beta_2**t)) + epsilon)
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.optimizer import Optimizer, dense_of
from tapeflow.ops.indexed_slices_ops import densify
from tapeflow.ops import math_ops


class Nadam(Optimizer):
    """Adam with Nesterov momentum (defaults: learning_rate=0.001, beta_1=0.9,
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
        """Creates the momentum and velocity slots, then the running product of the
        momentum schedule (one scalar, 'variable', last as in Keras)."""
        if self.built:
            return
        dtype = var_list[0].dtype if var_list else _dtypes.float32
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        self._u_product = self.add_variable((), initializer=1.0, dtype=dtype, name="variable")

    def _backend_update_step(self, grads: list, trainable_variables: list,
                             learning_rate: Any) -> None:
        product = self._u_product
        step = math_ops.cast(self.iterations + 1, product.dtype)
        decay = math_ops.pow(math_ops.cast(0.96, product.dtype), step)
        product.assign(product * self.beta_1 * (1.0 - 0.5 * decay))
        super()._backend_update_step(grads, trainable_variables, learning_rate)

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)   # IndexedSlices stay sparse, as in Keras
        local_step = math_ops.cast(self.iterations + 1, dtype)
        next_step = math_ops.cast(self.iterations + 2, dtype)
        decay = math_ops.cast(0.96, dtype)
        beta_1 = math_ops.cast(self.beta_1, dtype)
        beta_2 = math_ops.cast(self.beta_2, dtype)
        u_t = beta_1 * (1.0 - 0.5 * math_ops.pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * math_ops.pow(decay, next_step))
        u_product_t = math_ops.cast(self._u_product, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = math_ops.pow(beta_2, local_step)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        m.assign_add((densify(gradient) - m) * (1 - beta_1))
        v.assign_add((dense_of(gradient, math_ops.square) - v) * (1 - beta_2))
        m_hat = (u_t_1 * m) / (1 - u_product_t_1) + dense_of(
            gradient, lambda g: ((1 - u_t) * g) / (1 - u_product_t))
        v_hat = v / (1 - beta_2_power)
        variable.assign_sub((m_hat * lr) / (math_ops.sqrt(v_hat) + self.epsilon))

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}


__all__ = ["Nadam"]
