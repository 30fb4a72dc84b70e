"""`keras.optimizers.LossScaleOptimizer`: dynamic loss scaling for float16 training.

Keras 3's algorithm: `scale_loss` multiplies the loss by `dynamic_scale` (a float32 variable,
`initial_scale` at first). `apply` then checks the gradients: if any is not finite, the step
is skipped, `dynamic_scale` halved and `step_counter` reset; otherwise the gradients are
divided by the scale and applied by the inner optimizer, and after `dynamic_growth_steps`
finite steps in a row the scale doubles (the counter restarting).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.keras.optimizers.gradient_shapes import check_gradient_shapes
from tapeflow.keras.optimizers.optimizer import Optimizer, _nothing
from tapeflow.ops import array_ops, control_flow_ops, math_ops
from tapeflow.ops import reduce_ops

# Accepted from old configs when at their defaults, refused otherwise (Keras 3).
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(Optimizer):
    """Wraps `inner_optimizer` with dynamic loss scaling, as Keras 3.

    Args:
      inner_optimizer: the optimizer that applies the unscaled gradients.
      initial_scale: the first loss scale (2**15).
      dynamic_growth_steps: after this many steps with finite gradients the scale doubles.
      name: the optimizer's name.
    """

    def __init__(self, inner_optimizer: Optimizer, initial_scale: float = 2.0 ** 15,
                 dynamic_growth_steps: int = 2000, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, "
                             "simply set `loss_scale_factor` directly on the "
                             "`inner_optimizer`.")
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set "
                                 f"`{arg}` on the `inner_optimizer`.")
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: "
                             f"`{'`, `'.join(kwargs)}`.")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        # Gradients are unscaled here: the inner optimizer must not divide them again.
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list: Sequence[Any]) -> None:
        """Creates `step_counter` (int64) and `dynamic_scale` (float32), then builds the
        inner optimizer."""
        self.step_counter = self.add_variable((), "zeros", _dtypes.int64, name="step_counter")
        self.dynamic_scale = self.add_variable((), float(self.initial_scale), _dtypes.float32,
                                               name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self) -> list:
        """Its own variables (iteration, learning_rate, step_counter, dynamic_scale), then
        the inner optimizer's, as Keras 3."""
        return self._variables + self.inner_optimizer.variables

    def apply(self, grads: Sequence[Any], trainable_variables: Optional[Sequence] = None) -> None:
        """Applies the unscaled gradients if all are finite, else skips the step; updates the
        scale either way (a cond, so a traced step records both branches)."""
        grads = list(grads)
        if trainable_variables is not None:
            trainable_variables = list(trainable_variables)
            # The inner update's refusal, before this optimizer builds or counts anything.
            check_gradient_shapes(self.inner_optimizer._gradient_shape_refusal(), grads,
                                  trainable_variables)
        if not self.built:
            self.build(trainable_variables if trainable_variables is not None else [])
        finite = self.check_finite(grads)

        def finite_step() -> Any:
            scale = self.dynamic_scale
            unscaled = [g if g is None else g / math_ops.cast(scale, _dtype_of(g))
                        for g in grads]
            self.inner_optimizer.apply(unscaled, trainable_variables)
            grow = math_ops.equal(self.step_counter, self.dynamic_growth_steps - 1)
            control_flow_ops.cond(grow, self._upscale, self._increment)
            return _nothing()

        def skip_step() -> Any:
            self.step_counter.assign(np.int64(0))
            self.dynamic_scale.assign(self.dynamic_scale * 0.5)
            return _nothing()

        control_flow_ops.cond(finite, finite_step, skip_step)

    def _upscale(self) -> Any:
        self.step_counter.assign(np.int64(0))
        self.dynamic_scale.assign(self.dynamic_scale * 2.0)
        return _nothing()

    def _increment(self) -> Any:
        self.step_counter.assign_add(np.int64(1))
        return _nothing()

    def check_finite(self, grads: Sequence[Any]) -> Any:
        """A bool tensor: whether every element of every (non-None) gradient is finite."""
        finite = [reduce_ops.reduce_all(math_ops.is_finite(_values(g)))
                  for g in grads if g is not None]
        if not finite:
            return array_ops.constant(True)
        return reduce_ops.reduce_all(array_ops.stack(finite))

    @property
    def learning_rate(self) -> Any:
        """The inner optimizer's learning rate."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> None:
        if hasattr(self, "inner_optimizer"):
            self.inner_optimizer.learning_rate = learning_rate
        else:  # the base class's __init__ sets its own (unused, as Keras's 0.0)
            Optimizer.learning_rate.fset(self, learning_rate)

    @property
    def iterations(self) -> Any:
        """The inner optimizer's step count."""
        return self.inner_optimizer.iterations

    def scale_loss(self, loss: Any) -> Any:
        """`loss * dynamic_scale` (the initial scale before the first step)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        if self.built:
            scale = math_ops.cast(scale, _dtype_of(loss))
        return loss * scale

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        """The inner optimizer's (EMA overwrite)."""
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> dict:
        """name, the serialized inner optimizer, initial_scale and dynamic_growth_steps."""
        from tapeflow.keras._registry import serialize_keras_object
        return {"name": self.name,
                "inner_optimizer": serialize_keras_object(self.inner_optimizer,
                                                          "keras.optimizers"),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None
                    ) -> "LossScaleOptimizer":
        """The optimizer `get_config()` describes (the inner one deserialized)."""
        from tapeflow.keras import optimizers
        config = dict(config)
        inner = optimizers.deserialize(config.pop("inner_optimizer"), custom_objects)
        return cls(inner, **config)


def _values(gradient: Any) -> Any:
    return getattr(gradient, "values", gradient)  # IndexedSlices: their values


def _dtype_of(x: Any) -> Any:
    return getattr(x, "dtype", _dtypes.float32)


__all__ = ["LossScaleOptimizer"]
