"""`keras.optimizers.Muon`, with Keras 3's update. A 2-D variable whose path matches neither
'embedding' (with exclude_embeddings) nor a pattern of `exclude_layers` takes the Muon step:
  m += g + m * (momentum - 1);  u = g + momentum * m (nesterov) or m
  u = newton_schulz(u);  var -= lr * u * sqrt(max(rows, cols)) * rms_rate  (rms_rate not None)
where newton_schulz (on the wide orientation) scales u to Frobenius norm < 1, then ns_steps
times: A = u @ u.T;  u = a * u + (b * A + (c * A) @ A) @ u   (a, b, c = muon_a, muon_b, muon_c).
Any other variable takes AdamW's step with learning rate lr * adam_lr_ratio. Weight decay is
weight_decay on the Muon variables and adam_weight_decay on the others.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from tapeflow.framework.variables import Variable
from tapeflow.keras.optimizers.gradient_shapes import (GradientShapeRefusal,
                                                       check_gradient_shapes)
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.ops import array_ops, math_ops, reduce_ops


class Muon(Optimizer):
    """The Muon optimizer, with AdamW for the variables it does not suit (see the module's
    docstring); takes the base class's keyword arguments."""

    # Keras 3.15.1 / TF 2.21: the Muon step's `g + m * (momentum - 1)` meets the gradient
    # first; the AdamW step's `g - m` (the base class's refusal) on the other variables.
    _muon_step_refusal = GradientShapeRefusal("AddV2", name_suffix=True)

    def __init__(self, learning_rate: Any = 0.001, adam_beta_1: float = 0.9,
                 adam_beta_2: float = 0.999, adam_weight_decay: Optional[float] = 0.004,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = 0.004,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None,
                 exclude_layers: Optional[list] = None, exclude_embeddings: bool = True,
                 muon_a: float = 3.4445, muon_b: float = -4.7750, muon_c: float = 2.0315,
                 adam_lr_ratio: float = 1, momentum: float = 0.95, ns_steps: int = 5,
                 nesterov: bool = True, rms_rate: Optional[float] = 0.2,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a = muon_a
        self.muon_b = muon_b
        self.muon_c = muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay = adam_weight_decay
        self.rms_rate = rms_rate

    def _should_use_adamw(self, variable: Variable) -> bool:
        """Whether `variable` takes the AdamW step: not 2-D, an embedding, or excluded."""
        if len(variable.shape) != 2:
            return True
        path = getattr(variable, "path", None) or variable.name
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(pattern, path) for pattern in self.exclude_layers)

    def apply(self, grads: Any, trainable_variables: Any = None) -> None:
        """As the base class's, refusing first a gradient the Muon step would fail on."""
        variables = self._trainable_variables if trainable_variables is None \
            else trainable_variables
        if not self.gradient_accumulation_steps:
            pairs = [(g, v) for g, v in zip(grads, variables) if not self._should_use_adamw(v)]
            check_gradient_shapes(self._muon_step_refusal, [g for g, _ in pairs],
                                  [v for _, v in pairs])
        super().apply(grads, trainable_variables)

    def build(self, var_list: list) -> None:
        """Creates, variable by variable, its momentum and (AdamW variables) its velocity."""
        if self.built:
            return
        super().build(var_list)
        self.momentums, self.adam_velocities = [], []
        for variable in var_list:
            self.momentums.append(self.add_variable_from_reference(variable, "momentum"))
            self.adam_velocities.append(
                self.add_variable_from_reference(variable, "velocity")
                if self._should_use_adamw(variable) else None)

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        index = self._get_variable_index(variable)
        m, v = self.momentums[index], self.adam_velocities[index]
        if v is not None:
            self._adamw_update_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, v)
        else:
            self._muon_update_step(gradient, variable, learning_rate, m)

    def _muon_update_step(self, gradient: Any, variable: Variable, lr: Any, m: Variable
                          ) -> None:
        gradient = self._step_inputs(gradient, variable, lr)[1]
        m.assign_add(gradient + m * (self.momentum - 1))
        direction = gradient + self.momentum * m if self.nesterov else m.value()
        update = self.zeropower_via_newtonschulz5(direction, self.ns_steps)
        variable.assign_sub(self.lr_adjust(lr * update))

    def _adamw_update_step(self, gradient: Any, variable: Variable, learning_rate: Any,
                           m: Variable, v: Variable) -> None:
        lr, gradient, squared = self._step_inputs(gradient, variable, learning_rate)
        dtype = variable.dtype
        local_step = math_ops.cast(self.iterations + 1, dtype)
        beta_1_power = math_ops.pow(math_ops.cast(self.adam_beta_1, dtype), local_step)
        beta_2_power = math_ops.pow(math_ops.cast(self.adam_beta_2, dtype), local_step)
        alpha = lr * math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.adam_beta_1))
        v.assign_add((squared - v) * (1 - self.adam_beta_2))
        variable.assign_sub((m * alpha) / (math_ops.sqrt(v) + self.epsilon))

    def lr_adjust(self, x: Any) -> Any:
        """x * sqrt(max(rows, cols)) * rms_rate (Moonlight's scaling); x without rms_rate."""
        if self.rms_rate is None:
            return x
        rows, cols = x.shape[0], x.shape[1]
        scale = math_ops.sqrt(math_ops.cast(max(rows, cols), x.dtype))
        return x * scale * self.rms_rate

    def zeropower_via_newtonschulz5(self, x: Any, steps: int) -> Any:
        """The quintic Newton-Schulz iteration towards the orthogonal factor of `x` (rank >= 2,
        on its last two axes)."""
        shape = tuple(x.shape)
        if len(shape) < 2:
            raise ValueError("Expected gradient or momentum to have at least 2 dimensions. "
                             f"Received: shape={shape}")
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        tall = shape[-2] > shape[-1]
        if tall:
            x = _transpose_last_axes(x)
        norm = math_ops.sqrt(reduce_ops.reduce_sum(x * x, axis=[-2, -1], keepdims=True))
        x = x / (norm + 1e-7)
        for _ in range(steps):
            gram = math_ops.matmul(x, _transpose_last_axes(x))
            poly = b * gram + math_ops.matmul(c * gram, gram)
            x = a * x + math_ops.matmul(poly, x)
        return _transpose_last_axes(x) if tall else x

    def _apply_weight_decay(self, variables: list) -> None:
        """var -= var * decay * lr, decay = adam_weight_decay for AdamW variables and
        weight_decay for Muon variables (None: no decay)."""
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            decay = (self.adam_weight_decay if self._should_use_adamw(variable)
                     else self.weight_decay)
            if decay is None:
                continue
            wd = math_ops.cast(decay, variable.dtype)
            lr = math_ops.cast(self.learning_rate, variable.dtype)
            variable.assign(variable - variable * wd * lr)

    def get_config(self) -> dict:
        return {**super().get_config(), "adam_beta_1": self.adam_beta_1,
                "adam_beta_2": self.adam_beta_2, "epsilon": self.epsilon,
                "exclude_layers": self.exclude_layers, "muon_a": self.muon_a,
                "muon_b": self.muon_b, "muon_c": self.muon_c,
                "adam_lr_ratio": self.adam_lr_ratio, "momentum": self.momentum,
                "ns_steps": self.ns_steps, "nesterov": self.nesterov,
                "exclude_embeddings": self.exclude_embeddings,
                "adam_weight_decay": self.adam_weight_decay, "rms_rate": self.rms_rate}


def _transpose_last_axes(x: Any) -> Any:
    order = list(range(len(x.shape)))
    order[-2], order[-1] = order[-1], order[-2]
    return array_ops.transpose(x, order)


__all__ = ["Muon"]
