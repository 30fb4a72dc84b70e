"""`keras.optimizers.Adam` and `AdamW`, with Keras 3's update (t = iterations + 1):
  alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
  m += (g - m) * (1 - beta_1);  v += (g**2 - v) * (1 - beta_2)   (amsgrad: v_hat = max(v_hat, v))
  var -= m * alpha / (sqrt(v) + epsilon)
AdamW is Adam with decoupled weight decay `var -= var * weight_decay * lr` before the step.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.context import context, run_kernel
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.fused import python_scalar
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import math_ops
from tapeflow.ops.optimizer_ops import APPLY_ADAM


class Adam(Optimizer):
    """Adam (defaults: learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7)."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False,
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
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list: list) -> None:
        """Creates the momentum and velocity slots (and velocity_hat with amsgrad)."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def _from_legacy_slot_order(self, values: list) -> list:
        """Values of a tapeflow checkpoint written before format v3 (all momentums, then all
        velocities) in today's order, Keras's: each variable's momentum, then its velocity.
        Without this, same-shaped slots would restore into each other without an error."""
        kinds = 3 if self.amsgrad else 2
        head = 2 if isinstance(self._learning_rate, Variable) else 1   # iterations[, lr]
        n = (len(values) - head) // kinds
        if n <= 0 or head + kinds * n != len(values):
            return values          # not Adam's layout: the count check reports it
        m, v, rest = values[head:head + n], values[head + n:head + 2 * n], values[head + 2 * n:]
        return values[:head] + [x for pair in zip(m, v) for x in pair] + rest

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        alpha = self._alpha(lr, variable.dtype)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((squared - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            v_hat.assign(math_ops.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (math_ops.sqrt(v) + self.epsilon))

    def _alpha(self, lr: Any, dtype: Any) -> Any:
        """lr * sqrt(1 - beta_2**t) / (1 - beta_1**t), t = iterations + 1, in `dtype`."""
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1_power = math_ops.pow(math_ops.cast(self.beta_1, dtype), local_step)
        beta_2_power = math_ops.pow(math_ops.cast(self.beta_2, dtype), local_step)
        return lr * math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)

    def _eager_alpha(self, lr: np.ndarray, dtype: np.dtype) -> Optional[Tensor]:
        """`_alpha` as the same NumPy ufuncs on the same 0-d values, without the ops'
        dispatch (once per step eagerly), for Python-float betas; else None."""
        if type(self.beta_1) is not float or type(self.beta_2) is not float:
            return None
        # Silent like the ops: float16 steps past 65504 overflow to inf, as in TensorFlow.
        with np.errstate(all="ignore"):
            local_step = np.add(self._iterations._value, np.int64(1)).astype(dtype)
            one = np.array(1, dtype)
            # cast(beta, dtype) converts the Python float to a float32 tensor first.
            beta_1_power = np.power(np.array(self.beta_1, np.float32).astype(dtype), local_step)
            beta_2_power = np.power(np.array(self.beta_2, np.float32).astype(dtype), local_step)
            alpha = np.true_divide(np.multiply(lr, np.sqrt(np.subtract(one, beta_2_power))),
                                   np.subtract(one, beta_1_power))
        return wrap(np.asarray(alpha))

    def _fused_update(self) -> tuple:
        return APPLY_ADAM, ({"amsgrad": True} if self.amsgrad else {})

    def _fused_slots(self, index: int) -> tuple:
        slots = (self._momentums[index], self._velocities[index])
        return slots + (self._velocity_hats[index],) if self.amsgrad else slots

    def _fused_scalars(self, dtype: Any, learning_rate: Any) -> tuple:
        lr = math_ops.cast(learning_rate, dtype)
        alpha = None
        if context.state.graph is None:
            alpha = run_kernel(self._eager_alpha, lr._value, dtype.as_numpy_dtype)
        if alpha is None:
            alpha = self._alpha(lr, dtype)
        return (alpha, python_scalar(1 - self.beta_1, dtype),
                python_scalar(1 - self.beta_2, dtype), python_scalar(self.epsilon, dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay (default weight_decay=0.004)."""

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, name=name,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")


__all__ = ["Adam", "AdamW"]
