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


# Keras-only constructor arguments: dropped when they hold Keras's default (a feature that is
# off); any other value reaches the constructor, which rejects it.
_KERAS_ONLY_DEFAULTS = {
    "quantization_config": None, "input_axes": None, "output_axes": None, "renorm": False,
    "renorm_clipping": None, "renorm_momentum": 0.99, "sparse": False, "ragged": False,
    "optional": False, "lora_rank": None, "lora_alpha": None,
}


def drop_keras_only(cls: Any, config: Any) -> Any:
    """`config` without the Keras-only arguments that hold their 'off' default and that `cls`
    does not take (Keras 3.15's GlorotUniform has `input_axes=None`, tapeflow's does not)."""
    if not isinstance(config, dict) or not inspect.isclass(cls):
        return config
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return config
    return {k: v for k, v in config.items()
            if not (k in _KERAS_ONLY_DEFAULTS and k not in params
                    and v == _KERAS_ONLY_DEFAULTS[k])}


def deserialize_keras_object(config: dict, objects: Mapping[str, Any], kind: str,
                             custom_objects: Optional[Mapping[str, Any]] = None) -> Any:
    """The object `serialize_keras_object` described: its class is looked up by `class_name`
    in `custom_objects`, then in `objects`; `kind` names the family in the ValueError."""
    cls = {**objects, **(custom_objects or {})}.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Could not interpret {kind} identifier: {config}")
    return cls.from_config(drop_keras_only(cls, config.get("config", {})))


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
