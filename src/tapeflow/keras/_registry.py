"""Serializing Keras objects and finding them by name: the `serialize` / `deserialize` / `get`
trio that `keras.regularizers`, `keras.constraints`, `keras.optimizers`, `keras.initializers`
and `keras.losses` share."""

from __future__ import annotations

import inspect
from typing import Any, Mapping, Optional


def serialize_keras_object(obj: Any, module: Optional[str] = None) -> Any:
    """`{'class_name': ..., 'config': ...}` for an object with `get_config` (None stays None);
    with `module`, Keras 3's full form `{'module', 'class_name', 'config', 'registered_name'}`."""
    if obj is None:
        return None
    if module is None:
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(),
            "registered_name": None}


def deserialize_keras_object(config: dict, objects: Mapping[str, Any], kind: str,
                             custom_objects: Optional[Mapping[str, Any]] = None) -> Any:
    """The object `serialize_keras_object` described: its class is looked up by `class_name`
    in `custom_objects`, then in `objects`; `kind` names the family in the ValueError."""
    cls = {**objects, **(custom_objects or {})}.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Could not interpret {kind} identifier: {config}")
    return cls.from_config(config.get("config", {}))


def get_keras_object(identifier: Any, objects: Mapping[str, Any], kind: str) -> Any:
    """An object from None, a name in `objects`, a config dict or a callable; a class found
    this way is instantiated with no arguments."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize_keras_object(identifier, objects, kind)
    elif isinstance(identifier, str):
        obj = objects.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")
