"""Keras 3's view of a weight: a tapeflow Variable (so tapes watch it) whose `name` is the
short name ('kernel'), with a `path` ('sequential/dense/kernel') and a settable `trainable`.

As Keras 3's TF backend (a KerasVariable wrapping a tf.Variable), Keras's `trainable` flag is
separate from the wrapped variable's: tapes watch the weight automatically when it was created
trainable, whatever `trainable` says later (a frozen layer's kernel still has a gradient when
asked for), while Keras's `trainable_weights` and optimizers follow the flag."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework.context import init_scope
from tapeflow.framework.variables import Variable as _TFVariable
from tapeflow.keras import backend


class Variable(_TFVariable):
    """A layer weight, as `keras.Variable`.

    Args:
      initializer: an initial value or a callable `initializer(shape, dtype)`.
      shape, dtype: required when `initializer` is callable; dtype defaults to floatx.
      trainable: whether optimizers (and tapes) see it.
      name: the short name; the path is the current Keras name scope plus this name.
    """

    def __init__(self, initializer: Any, shape: Any = None, dtype: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        dtype = dtype or backend.floatx()
        if callable(initializer):
            with init_scope():  # initializers run eagerly, even when built inside a trace
                value = initializer(tuple(shape), dtype=dtype)
        else:
            value = initializer
        name = name or "variable"
        super().__init__(value, trainable=trainable, name=name, dtype=dtype)
        self._keras_trainable = bool(trainable)  # `_trainable` (the tape's) stays as created
        scope = backend.current_path()
        self.path = f"{scope}/{name}" if scope else name

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        """Whether Keras trains this weight (settable; freezing a layer clears it)."""
        return self._keras_trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._keras_trainable = bool(value)

    def __repr__(self) -> str:
        return (f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, "
                f"dtype={self.dtype.name}, value={np.asarray(self._value)}>")

    __str__ = __repr__


__all__ = ["Variable"]
