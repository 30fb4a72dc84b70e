"""`keras.optimizers.OptimizerMap` and `MultiOptimizer`: different optimizers for different
variables, as Keras 3.15.

An OptimizerMap maps variable paths to optimizers: an exact key first, else the one key that
`re.fullmatch`es the path (several raise), else its default optimizer. A MultiOptimizer takes
an OptimizerMap or any callable `variable -> optimizer`; on `build` it groups the variables by
optimizer and builds each, and `apply` hands each optimizer its variables' gradients. Its
`variables` are its own `iterations` and (unused) learning rate, then each inner optimizer's
variables in the order the optimizers were met (the map's values, then its default, then
those the callable returned), which is the order Keras's `.keras` files store them in.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import numpy as np

from tapeflow.framework.context import init_scope
from tapeflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from tapeflow.keras.optimizers.optimizer import Optimizer


class OptimizerMap(MutableMapping):
    """Variable paths (exact, or regular expressions matched in full) -> optimizers, with a
    default optimizer for the paths no key matches."""

    def __init__(self, default_optimizer: Optimizer,
                 optimizer_map: Optional[dict] = None) -> None:
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError("default_optimizer must be a Keras Optimizer instance. "
                            f"Received: {default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = optimizer_map or {}

    @property
    def default_optimizer(self) -> Optimizer:
        """The optimizer of the paths that no key matches."""
        return self._default_optimizer

    def __getitem__(self, key: str) -> Optimizer:
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        if matching:
            return self._optimizer_map[matching[0]]
        return self.default_optimizer

    def __setitem__(self, key: str, optimizer: Optimizer) -> None:
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. "
                             f"Received: {optimizer}")
        if isinstance(optimizer, LossScaleOptimizer):
            raise ValueError("optimizer cannot be LossScaleOptimizer.")
        if isinstance(optimizer, MultiOptimizer):
            raise ValueError("optimizer cannot be MultiOptimizer.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key: str) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self._optimizer_map)

    def __call__(self, variable: Any) -> Optimizer:
        return self[variable.path]

    def get_config(self) -> dict:
        """The default optimizer and the map, serialized as Keras serializes them."""
        from tapeflow.keras.saving.serialization import serialize_keras_object
        return {"default_optimizer": serialize_keras_object(self._default_optimizer),
                "optimizer_map": serialize_keras_object(self._optimizer_map)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None
                    ) -> "OptimizerMap":
        """The OptimizerMap a `get_config` dict describes."""
        return cls(_deserialized(config["default_optimizer"], custom_objects),
                   _deserialized(config["optimizer_map"], custom_objects))


class MultiOptimizer(Optimizer):
    """Applies each variable's gradient with the optimizer `optimizer_map` gives it (an
    OptimizerMap or a callable `variable -> optimizer`). `loss_scale_factor` is set on every
    inner optimizer; `learning_rate` is theirs, not this one's (reading it raises)."""

    def __init__(self, optimizer_map: Union[OptimizerMap, Callable],
                 loss_scale_factor: Optional[float] = None, name: Optional[str] = None) -> None:
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        self._inner_optimizers: list = []
        met = list(optimizer_map.values()) if hasattr(optimizer_map, "values") else []
        met.append(getattr(optimizer_map, "default_optimizer", None))
        for opt in met:
            if opt is not None and not any(opt is o for o in self._inner_optimizers):
                opt.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(opt)

    def build(self, var_list: Sequence) -> None:
        """Asks the map for each variable's optimizer and builds each optimizer on its own."""
        if self.built:
            return
        chosen = [self._optimizer_map(variable) for variable in var_list]
        for opt, variable in zip(chosen, var_list):   # all checked before anything changes
            _check_inner(opt, variable)
        groups: list = [[] for _ in self._inner_optimizers]
        self._optimizer_index: dict = {}
        for opt, variable in zip(chosen, var_list):
            if not any(opt is o for o in self._inner_optimizers):
                opt.loss_scale_factor = self.loss_scale_factor
                self._inner_optimizers.append(opt)
                groups.append([])
            index = next(i for i, o in enumerate(self._inner_optimizers) if o is opt)
            self._optimizer_index[id(variable)] = index
            groups[index].append(variable)
        for opt, variables in zip(self._inner_optimizers, groups):
            if variables:
                opt.build(variables)
        super().build(var_list)

    @property
    def optimizers(self) -> list:
        """The inner optimizers, in the order they were met."""
        return self._inner_optimizers

    @property
    def variables(self) -> list:
        """`iterations` and the learning rate, then every inner optimizer's variables. Before
        `build`, only its own two (Keras lists the inner optimizers' unbuilt ones too): a
        checkpoint restored then gives them their values and the rest once built."""
        out = self._variables[:]
        if not self.built:
            return out
        for opt in self._inner_optimizers:
            out.extend(opt.variables)
        return out

    @property
    def learning_rate(self) -> Any:
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access "
                             "the learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the "
                             "learning rate on the individual sub-optimizers instead.")

    @property
    def loss_scale_factor(self) -> Optional[float]:
        """The factor losses are scaled by (None: not scaled); setting it sets the inner
        optimizers' too."""
        return getattr(self, "_loss_scale_factor", None)

    @loss_scale_factor.setter
    def loss_scale_factor(self, value: Optional[float]) -> None:
        self._loss_scale_factor = value
        for opt in getattr(self, "_inner_optimizers", ()):
            opt.loss_scale_factor = value

    @property
    def iterations(self) -> Any:
        """The number of `apply` calls."""
        return self._iterations

    def apply(self, grads: Sequence[Any], trainable_variables: Optional[Sequence] = None
              ) -> None:
        """Hands each inner optimizer the gradients of its variables, then counts a step."""
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first.")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
            self._restore_deferred()
        if len(grads) != len(self._trainable_variables_indices):
            raise ValueError("Gradients must match trainable variables one-to-one. Received "
                             f"{len(grads)} gradients and "
                             f"{len(self._trainable_variables_indices)} variables.")
        for opt, (sub_grads, sub_vars) in zip(self._inner_optimizers,
                                              self._split(grads, trainable_variables)):
            if sub_grads:
                opt.apply(sub_grads, sub_vars)
        self._iterations.assign_add(np.int64(1))

    def _split(self, values: Sequence, variables: Sequence) -> list:
        """`(values, variables)` of each inner optimizer, in order."""
        groups: list = [([], []) for _ in self._inner_optimizers]
        for value, variable in zip(values, variables):
            index = self._optimizer_index[id(variable)]
            groups[index][0].append(value)
            groups[index][1].append(variable)
        return groups

    def finalize_variable_values(self, var_list: Sequence) -> None:
        """Each inner optimizer finalizes its own variables (their EMA)."""
        for opt, (variables, _) in zip(self._inner_optimizers, self._split(var_list, var_list)):
            if variables:
                opt.finalize_variable_values(variables)

    def _restore_deferred(self) -> None:
        """A checkpoint's values deferred until the inner optimizers made their slots: set on
        `variables`, all of them (the base class counts its own)."""
        values = getattr(self, "_deferred_values", None)
        if values is None:
            return
        self._deferred_values = None
        if len(values) != len(self.variables):
            raise ValueError(f"The checkpoint holds {len(values)} values for optimizer "
                             f"'{self.name}' but it has {len(self.variables)} variables once "
                             "built: was it saved from a different optimizer or model?")
        with init_scope():   # eagerly, also when fit's traced step builds it (see Optimizer)
            self.set_weights(values)

    def get_weights(self) -> list:
        """The values of `variables` (the inner optimizers' included)."""
        return [np.array(v.numpy()) for v in self.variables]

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns `variables` in order: its own, then each inner optimizer's (one that got no
        variable to update has only its `iterations` and learning rate). Every shape is
        checked before anything is assigned."""
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been built. "
                "Please call `optimizer.build(trainable_variables)` to create the optimizer "
                "weights before calling `set_weights()`.")
        pairs = [(v, np.asarray(w)) for v, w in zip(self.variables, weights)]
        for variable, weight in pairs:
            if tuple(variable.shape) != weight.shape:
                raise ValueError(f"Optimizer variable {variable.name} has shape "
                                 f"{variable.shape} not compatible with provided weight "
                                 f"shape {weight.shape}.")
        for variable, weight in pairs:
            variable.assign(weight.astype(variable.dtype.as_numpy_dtype))

    def get_config(self) -> dict:
        from tapeflow.keras.saving.serialization import serialize_keras_object
        return {"optimizer_map": serialize_keras_object(self._optimizer_map),
                "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None
                    ) -> "MultiOptimizer":
        config = dict(config)
        config["optimizer_map"] = _deserialized(config["optimizer_map"], custom_objects)
        return cls(**config)


def _check_inner(opt: Any, variable: Any) -> None:
    if not isinstance(opt, Optimizer):
        raise ValueError(f"Optimizer for variable {variable} is not an Optimizer instance.")
    if isinstance(opt, LossScaleOptimizer):
        raise ValueError("LossScaleOptimizer cannot be used inside an MultiOptimizer.")
    if isinstance(opt, MultiOptimizer):
        raise ValueError("MultiOptimizer cannot be used inside an MultiOptimizer.")


def _deserialized(config: Any, custom_objects: Optional[dict]) -> Any:
    """`config` deserialized (an object that a caller already deserialized stays as it is)."""
    if isinstance(config, dict):
        from tapeflow.keras.saving.serialization import deserialize_keras_object
        return deserialize_keras_object(config, custom_objects=custom_objects)
    return config


__all__ = ["OptimizerMap", "MultiOptimizer"]
