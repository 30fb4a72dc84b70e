"""`keras.optimizers`: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Lion, Ftrl,
Adafactor, Lamb, Muon, ScheduleFreeAdamW, MultiOptimizer (with OptimizerMap), learning rate
schedules, `get`."""

from __future__ import annotations

from typing import Any as _Any

from tapeflow.keras._registry import serialize_keras_object as _serialize_keras_object
from tapeflow.keras.optimizers import schedules
from tapeflow.keras.optimizers.adadelta import Adadelta
from tapeflow.keras.optimizers.adafactor import Adafactor
from tapeflow.keras.optimizers.adagrad import Adagrad
from tapeflow.keras.optimizers.adam import Adam, AdamW
from tapeflow.keras.optimizers.adamax import Adamax
from tapeflow.keras.optimizers.ftrl import Ftrl
from tapeflow.keras.optimizers.lamb import Lamb
from tapeflow.keras.optimizers.lion import Lion
from tapeflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from tapeflow.keras.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from tapeflow.keras.optimizers.muon import Muon
from tapeflow.keras.optimizers.nadam import Nadam
from tapeflow.keras.optimizers.optimizer import Optimizer
from tapeflow.keras.optimizers.rmsprop import RMSprop
from tapeflow.keras.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from tapeflow.keras.optimizers.sgd import SGD

# Keras 3.15's ALL_OBJECTS: the names `get` knows (Lamb is not among them: Keras's
# `get('lamb')` raises; `deserialize` of its config works here).
_BY_NAME = {cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta,
                                                  Adamax, Nadam, Lion, Ftrl, Adafactor, Muon,
                                                  ScheduleFreeAdamW)}


def serialize(optimizer: Optimizer) -> dict:
    """`{'class_name': ..., 'config': ...}` for an optimizer."""
    return _serialize_keras_object(optimizer)


def deserialize(config: dict, custom_objects: _Any = None) -> Optimizer:
    """The optimizer described by `serialize`'s dict (class names are case-insensitive)."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower()) or \
        {"LossScaleOptimizer": LossScaleOptimizer, "Lamb": Lamb,
         "MultiOptimizer": MultiOptimizer, "OptimizerMap": OptimizerMap}.get(name)
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
           "Nadam", "Lion", "Ftrl", "Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW",
           "MultiOptimizer", "OptimizerMap", "LossScaleOptimizer", "schedules", "get", "serialize",
           "deserialize"]

# Keras's namespace holds only the optimizers: the submodules (which importing them binds
# here) stay reachable through sys.modules (`from tapeflow.keras.optimizers.adam import Adam`).
for _name in ("adadelta", "adafactor", "adagrad", "adam", "adamax", "ftrl", "fused", "lamb",
              "lion", "loss_scale_optimizer", "multi_optimizer", "muon", "nadam", "optimizer",
              "rmsprop", "schedule_free_adamw", "sgd", "annotations"):
    globals().pop(_name, None)
del _name
