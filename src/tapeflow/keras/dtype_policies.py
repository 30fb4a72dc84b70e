"""`keras.dtype_policies`: Keras 3's dtype policies. `DTypePolicy` and `FloatDTypePolicy` are
`keras.mixed_precision`'s (one class); `DTypePolicyMap` gives the layers under a path
pattern their own policy; `get`, `serialize` and `deserialize` convert them.

The quantized policies (int8, float8, int4, GPTQ, AWQ) need quantized layer kernels, which
tapeflow does not have: their classes are not built, and a name or config asking for one
raises NotImplementedError rather than giving a layer that silently computes in float.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, Iterator, Optional

from tapeflow.keras import mixed_precision
from tapeflow.keras.mixed_precision import DTypePolicy, FloatDTypePolicy

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
_QUANTIZED_CLASSES = ("QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy", "Int4DTypePolicy",
                      "GPTQDTypePolicy", "AWQDTypePolicy")


def _no_quantization(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"{name}: tapeflow has no quantized layer kernels (Keras's int8, float8, int4, GPTQ "
        "and AWQ modes), so it cannot honour a quantized dtype policy.")


class DTypePolicyMap(DTypePolicy, MutableMapping):
    """Policies by layer path: a key is a path ('decoder/dense') or a regular expression
    matched against the whole path; a path no key matches gets `default_policy` (None: the
    global policy when read)."""

    def __init__(self, default_policy: Any = None, policy_map: Optional[dict] = None) -> None:
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError("If specified, `policy_map` must be a dict. Received: "
                            f"policy_map={policy_map} of type {type(policy_map)}")
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = policy_map or {}

    @property
    def name(self) -> str:
        """'map_' and the default policy's name."""
        return f"map_{self.default_policy.name}"

    @property
    def default_policy(self) -> DTypePolicy:
        """The policy of paths no key matches."""
        return get(self._default_policy)

    @property
    def variable_dtype(self) -> str:
        return self.default_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self.default_policy.compute_dtype

    @property
    def quantization_mode(self) -> Any:
        return self.default_policy.quantization_mode

    def __getitem__(self, key: str) -> DTypePolicy:
        if key in self._policy_map:
            return self._policy_map[key]
        matching = [pattern for pattern in self._policy_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Path '{key}' matches multiple dtype policy specification keys: "
                             f"{matching}. Please make sure each path only matches at most one "
                             "dtype policy specification key in the DTypePolicyMap.")
        return self._policy_map[matching[0]] if matching else self.default_policy

    def __setitem__(self, key: str, policy: Any) -> None:
        if key in self._policy_map:
            raise ValueError(f"{key} already exist in the DTypePolicyMap with value "
                             f"{self._policy_map[key]}. Please make sure to not use duplicated "
                             "keys.")
        try:
            policy = get(policy)
        except Exception:
            raise ValueError("Cannot interpret the assigned value by `keras.dtype_policies.get`. "
                             f"Received: {policy} of type {type(policy)}") from None
        self._policy_map[key] = policy

    def __delitem__(self, key: str) -> None:
        self._policy_map.pop(key)

    def __contains__(self, key: object) -> bool:
        return key in self._policy_map

    def __len__(self) -> int:
        return len(self._policy_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self._policy_map)

    def __eq__(self, other: Any) -> bool:
        return self is other

    __hash__ = object.__hash__

    def get_config(self) -> dict:
        """Keras's config; with no default policy the entries are written without names, so
        that they take the global policy where loaded (as Keras)."""
        deferred = self._default_policy_arg is None
        return {"default_policy": self._default_policy_arg,
                "policy_map": {key: _serialized(policy, drop_name=deferred)
                               for key, policy in self._policy_map.items()}}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "DTypePolicyMap":
        """The map `get_config()` describes."""
        config = dict(config)
        config["policy_map"] = {key: deserialize(value, custom_objects)
                                for key, value in (config.get("policy_map") or {}).items()}
        return cls(**config)

    def __repr__(self) -> str:
        mapping = [(k, v.name) for k, v in self._policy_map.items()]
        return (f"<DTypePolicyMap at {hex(id(self))} default_policy="
                f"{self._default_policy.name}, mapping={mapping}>")


ALL_OBJECTS_DICT = {cls.__name__: cls for cls in (DTypePolicy, FloatDTypePolicy,
                                                   DTypePolicyMap)}


def _serialized(policy: DTypePolicy, drop_name: bool = False) -> dict:
    module = "keras.dtype_policies" if isinstance(policy, DTypePolicyMap) else "keras"
    config = policy.get_config()
    if drop_name and "name" in config:
        config = {**config, "name": None}
    return {"module": module, "class_name": type(policy).__name__, "config": config,
            "registered_name": None}


def serialize(dtype_policy: Any) -> Any:
    """A policy as Keras writes it ({'module', 'class_name', 'config', 'registered_name'});
    other objects as `keras.saving.serialize_keras_object` writes them."""
    if isinstance(dtype_policy, DTypePolicy):
        return _serialized(dtype_policy)
    from tapeflow.keras.saving.serialization import serialize_keras_object
    return serialize_keras_object(dtype_policy)


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> Any:
    """The policy a `serialize` config describes (a class of this module, or of
    `custom_objects`); a plain string comes back as it is, as Keras."""
    if not isinstance(config, dict):
        return config
    class_name = config.get("class_name")
    cls = (custom_objects or {}).get(class_name) or ALL_OBJECTS_DICT.get(class_name)
    if cls is None and class_name in _QUANTIZED_CLASSES:
        raise _no_quantization(class_name)
    if cls is None:
        from tapeflow.keras.saving.serialization import deserialize_keras_object
        return deserialize_keras_object(config, custom_objects)
    inner = config.get("config", {})
    if cls is DTypePolicyMap:
        return cls.from_config(inner, custom_objects)
    return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)


def get(identifier: Any) -> DTypePolicy:
    """A policy from None (the global one), a policy, its serialized dict, a name
    ('mixed_float16', 'float32', ...) or a dtype."""
    if identifier is None:
        return mixed_precision.global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.startswith(QUANTIZATION_MODES):
            raise _no_quantization(f"dtype policy '{identifier}'")
        return DTypePolicy(identifier)
    from tapeflow.keras.backend import standardize_dtype
    try:
        return DTypePolicy(standardize_dtype(identifier))
    except Exception:
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an instance "
                         f"of DTypePolicy. Received: dtype={identifier}") from None


__all__ = ["DTypePolicy", "DTypePolicyMap", "FloatDTypePolicy", "deserialize", "get",
           "serialize"]
