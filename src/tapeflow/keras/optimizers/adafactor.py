"""`keras.optimizers.Adafactor` (Shazeer & Stern, 2018), with Keras 3's update
(t = iterations + 1, G = g**2 + epsilon_1, beta = 1 - t**beta_2_decay):
  rho = min(lr, 1 / sqrt(t))   (with relative_step and a constant learning rate, lr is first
                                 min(lr, 1 / sqrt(t)) too);  alpha = max(epsilon_2, rms(var)) * rho
  variables of rank >= 2 keep factored second moments of their last two axes:
    r = beta * r + (1 - beta) * mean(G, -1);  c = beta * c + (1 - beta) * mean(G, -2)
    v = (r / mean(r, -1))[..., None] * c[..., None, :]
  others:  v = beta * v + (1 - beta) * G
  u = g / sqrt(v);  var -= alpha * u / max(1, rms(u) / clip_threshold)
As Keras, a variable of rank < 2 gets two int32 scalar placeholders for r and c.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import dims_text
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import _known_shape as known_shape
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import array_ops, math_ops, reduce_ops
from tapeflow.ops.indexed_slices_ops import densify


class Adafactor(Optimizer):
    """Adafactor (defaults: learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
    epsilon_2=1e-3, clip_threshold=1.0, relative_step=True); takes the base class's keyword
    arguments."""

    def __init__(self, learning_rate: Any = 0.001, beta_2_decay: float = -0.8,
                 epsilon_1: float = 1e-30, epsilon_2: float = 1e-3, clip_threshold: float = 1.0,
                 relative_step: bool = True, weight_decay: Optional[float] = None,
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
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def apply(self, grads: Any, trainable_variables: Any = None) -> None:
        """As the base class's, refusing first (as Keras 3.15.1 / TF 2.21 fails, but before
        anything changes) a gradient the factored update cannot take."""
        variables = self._trainable_variables if trainable_variables is None \
            else trainable_variables
        if not self.gradient_accumulation_steps:
            for grad, variable in zip(grads, variables):
                self._check_gradient_shape(grad, variable)
        super().apply(grads, trainable_variables)

    def _check_gradient_shape(self, grad: Any, variable: Any) -> None:
        grad_shape, var_shape = known_shape(grad), known_shape(variable)
        if grad_shape is None or var_shape is None:
            return
        label = variable.name.split(":")[0]
        if len(var_shape) < 2:     # v = beta * v + (1 - beta) * G
            slots = [(var_shape, grad_shape, f"{_slot_label(variable)}_velocity")]
        elif len(grad_shape) < 2:
            raise InvalidArgumentError(f"Invalid reduction dimension (-2 for input with "
                                       f"{len(grad_shape)} dimension(s) [Op:Mean] name: ")
        else:                      # r and c: G's means over its last and second last axes
            slots = [(var_shape[:-1], grad_shape[:-1], label),
                     (var_shape[:-2] + var_shape[-1:], grad_shape[:-2] + grad_shape[-1:],
                      label)]
        for slot_shape, update_shape, slot_name in slots:
            try:
                shape = tuple(np.broadcast_shapes(slot_shape, update_shape))
            except ValueError:
                raise InvalidArgumentError(
                    f"Incompatible shapes: {dims_text(slot_shape)} vs. "
                    f"{dims_text(update_shape)} [Op:AddV2] name: ") from None
            if shape != slot_shape:
                raise ValueError(
                    f"Cannot assign value to variable ' {self.name}/{slot_name}:0': Shape "
                    f"mismatch.The variable shape {slot_shape}, and the assigned value shape "
                    f"{shape} are incompatible.")

    def build(self, var_list: list) -> None:
        """Creates, variable by variable, r, c (named as the variable) and its velocity."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for variable in var_list:
            name = variable.name.split(":")[0]
            shape = tuple(variable.shape)
            if len(shape) < 2:
                r_shape = c_shape = ()
                dtype = _dtypes.int32     # Keras's placeholders: Variable(0)
            else:
                r_shape, c_shape = shape[:-1], shape[:-2] + shape[-1:]
                dtype = variable.dtype
            self._r.append(self.add_variable(r_shape, dtype=dtype, name=name))
            self._c.append(self.add_variable(c_shape, dtype=dtype, name=name))
            self._v.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        sparse = math_ops.cast(gradient, variable.dtype)     # IndexedSlices stay so
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        dtype = variable.dtype
        local_step = math_ops.cast(self.iterations + 1, dtype)
        inverse_sqrt_step = 1 / math_ops.sqrt(local_step)
        if self.relative_step and isinstance(self._learning_rate, Variable):
            lr = math_ops.minimum(lr, inverse_sqrt_step)
        rho = math_ops.minimum(lr, inverse_sqrt_step)
        alpha = math_ops.maximum(math_ops.cast(self.epsilon_2, dtype), _rms(variable)) * rho
        regulated = squared + math_ops.cast(self.epsilon_1, dtype)
        beta = 1 - math_ops.pow(local_step, math_ops.cast(self.beta_2_decay, dtype))
        index = self._get_variable_index(variable)
        v = self._v[index]
        if len(variable.shape) >= 2:
            r, c = self._r[index], self._c[index]
            r.assign(beta * r + (1 - beta) * reduce_ops.reduce_mean(regulated, axis=-1))
            c.assign(beta * c + (1 - beta) * reduce_ops.reduce_mean(regulated, axis=-2))
            row = r / reduce_ops.reduce_mean(r, axis=-1, keepdims=True)
            v.assign(array_ops.expand_dims(row, -1) * array_ops.expand_dims(c, -2))
        else:
            v.assign(beta * v + (1 - beta) * regulated)
        if isinstance(sparse, IndexedSlices):
            update = _sparse_update(sparse, math_ops.sqrt(v), self.clip_threshold)
        else:
            u = gradient / math_ops.sqrt(v)
            update = u / math_ops.maximum(math_ops.cast(1.0, dtype),
                                          _rms(u) / self.clip_threshold)
        variable.assign_sub(alpha * update)

    def get_config(self) -> dict:
        return {**super().get_config(), "beta_2_decay": self.beta_2_decay,
                "epsilon_1": self.epsilon_1, "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold, "relative_step": self.relative_step}


def _sparse_update(gradient: IndexedSlices, denominator: Any, clip_threshold: float) -> Any:
    """u / max(1, rms(u) / clip_threshold), u = gradient / denominator, as Keras's TF backend
    computes it for IndexedSlices: each slice divided by its row of `denominator`, rms(u) over
    the slices (a repeated row counted once per slice), the slices then summed by row."""
    values = gradient.values / array_ops.gather(denominator, gradient.indices)
    size = math_ops.cast(reduce_ops.reduce_prod(gradient.dense_shape), values.dtype)
    rms = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(values)) / size)
    clip = math_ops.maximum(math_ops.cast(1.0, values.dtype), rms / clip_threshold)
    return densify(IndexedSlices(values / clip, gradient.indices, gradient.dense_shape))


def _slot_label(variable: Any) -> str:
    # How add_variable_from_reference names a slot: the variable's path, '/' as '_'.
    path = getattr(variable, "path", None) or variable.name
    return path.replace("/", "_").replace(":", "_")


def _rms(x: Any) -> Any:
    """sqrt(mean(x**2)) over all elements."""
    return math_ops.sqrt(reduce_ops.reduce_mean(math_ops.square(x)))


__all__ = ["Adafactor"]
