"""`keras.optimizers`: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Lion, Ftrl,
learning rate schedules, `get`."""

from __future__ import annotations

from typing import Any as _Any

from tapeflow.keras._registry import serialize_keras_object as _serialize_keras_object
from tapeflow.keras.optimizers import schedules
from tapeflow.keras.optimizers.adadelta import Adadelta
from tapeflow.keras.optimizers.adagrad import Adagrad
from tapeflow.keras.optimizers.adam import Adam, AdamW
from tapeflow.keras.optimizers.adamax import Adamax
from tapeflow.keras.optimizers.ftrl import Ftrl
from tapeflow.keras.optimizers.lion import Lion
from tapeflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from tapeflow.keras.optimizers.nadam import Nadam
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.keras.optimizers.rmsprop import RMSprop
from tapeflow.keras.optimizers.sgd import SGD

_BY_NAME = {cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta,
                                                  Adamax, Nadam, Lion, Ftrl)}


def serialize(optimizer: Optimizer) -> dict:
    """`{'class_name': ..., 'config': ...}` for an optimizer."""
    return _serialize_keras_object(optimizer)


def deserialize(config: dict, custom_objects: _Any = None) -> Optimizer:
    """The optimizer described by `serialize`'s dict (class names are case-insensitive)."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower()) or \
        (LossScaleOptimizer if name == "LossScaleOptimizer" else None)
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {name}")
    return cls.from_config(config.get("config", {}))


def get(identifier: _Any) -> _Any:
    """An optimizer from a name ('adam', 'SGD', ...), a config dict, or an instance."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        obj = _BY_NAME[identifier.lower()]()
    else:
        obj = identifier
    if isinstance(obj, Optimizer):
        return obj
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "Nadam", "Lion", "Ftrl", "LossScaleOptimizer", "schedules", "get", "serialize",
           "deserialize"]

# Keras's namespace holds only the optimizers: the submodules (which importing them binds
# here) stay reachable through sys.modules (`from tapeflow.keras.optimizers.adam import Adam`).
for _name in ("adadelta", "adagrad", "adam", "adamax", "ftrl", "fused", "lion",
              "loss_scale_optimizer", "nadam", "optimizer", "rmsprop", "sgd", "annotations"):
    globals().pop(_name, None)
del _name
