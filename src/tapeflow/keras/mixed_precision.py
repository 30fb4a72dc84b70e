"""`keras.mixed_precision`: dtype policies, the global policy and `LossScaleOptimizer`.

A policy names a compute dtype and a variable dtype: "mixed_float16" computes in float16 with
float32 weights, "mixed_bfloat16" in bfloat16; any float dtype name ("float32") is both. As
Keras 3, a layer whose two dtypes differ reads its weights cast to the compute dtype while its
`call` runs (the `AutocastScope`); the weights themselves, their gradients and the optimizer's
updates stay in the variable dtype.
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework import dtypes as _dtypes
from tapeflow.keras import backend
from tapeflow.keras.variables import Variable
from tapeflow.ops import math_ops

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
# Keras's standardize_dtype names: what a plain (non-mixed) policy may be called.
_DTYPE_NAMES = frozenset(("float16", "bfloat16", "float32", "float64", "uint8", "uint16",
                          "uint32", "uint64", "int8", "int16", "int32", "int64", "bool",
                          "complex64", "complex128", "string"))


class DTypePolicy:
    """A layer's dtype policy, as `keras.DTypePolicy` (alias `keras.mixed_precision.Policy`).

    Args:
      name: "mixed_float16", "mixed_bfloat16" or a dtype name ("float32"); None is the global
        policy's name.
    """

    def __init__(self, name: Optional[str] = None) -> None:
        if name is None:
            name = global_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)
        self._quantization_mode = None

    @property
    def name(self) -> str:
        """The policy's name."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layers compute in (and output)."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype layers create their weights in."""
        return self._variable_dtype

    @property
    def quantization_mode(self) -> None:
        """None: tapeflow has no quantized policies."""
        return self._quantization_mode

    def get_config(self) -> dict:
        """`{'name': ...}`, as Keras."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict) -> "DTypePolicy":
        """The policy `get_config()` describes."""
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other: Any) -> bool:
        return type(other) in (DTypePolicy, FloatDTypePolicy) and self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's alias of `DTypePolicy`."""


Policy = DTypePolicy


def _parse_name(name: Any) -> tuple:
    if not isinstance(name, str):
        raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: "
                        f"name={name} (of type {type(name)})")
    if name in _MIXED:
        return _MIXED[name]
    dtype = _standardize(name)
    if dtype is None:
        raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid "
                         "policies include 'mixed_float16', 'mixed_bfloat16', and the name of "
                         "any float dtype such as 'float32'.")
    return dtype, dtype


def _standardize(name: str) -> Optional[str]:
    """Keras's standardize_dtype on a name: 'float' and 'int' read as floatx and int32."""
    name = {"float": backend.floatx(), "int": "int32", "double": "float64",
            "half": "float16"}.get(name, name)
    return name if name in _DTYPE_NAMES else None


_GLOBAL: list = [None]


def set_global_policy(policy: Any) -> None:
    """Sets the policy layers take when given no `dtype` (`keras.config.set_dtype_policy`);
    a name or a DTypePolicy."""
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy "
                             f"(such as 'mixed_float16') or a `DTypePolicy` instance. "
                             f"Received: policy={policy} (of type {type(policy)})")
        policy = DTypePolicy(policy)
    _GLOBAL[0] = policy


set_dtype_policy = set_global_policy


def global_policy() -> DTypePolicy:
    """The global policy (`DTypePolicy(floatx())` until one is set)."""
    if _GLOBAL[0] is None:
        _GLOBAL[0] = DTypePolicy(backend.floatx())
    return _GLOBAL[0]


dtype_policy = global_policy


def get(identifier: Any) -> DTypePolicy:
    """A layer's policy from its `dtype` argument: None (the global policy), a name, a
    tf.DType, a DTypePolicy or its serialized dict (Keras's `dtype_policies.get`)."""
    if identifier is None:
        return global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return DTypePolicy(identifier.get("config", {}).get("name", identifier.get("name")))
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(_dtypes.as_dtype(identifier).name)
    except TypeError:
        raise ValueError(f"Cannot interpret `dtype` argument. Expected a string or an instance "
                         f"of DTypePolicy. Received: dtype={identifier}") from None


# -- autocasting ---------------------------------------------------------------------------------
# The compute dtype the running layer reads its weights in (None: as stored), Keras's
# autocast scope; set by Layer.__call__ around `call` when the layer's dtypes differ.
_AUTOCAST: list = [None]


class AutocastScope:
    """Within it, `AutocastVariable`s of a float dtype read as `dtype` (None: uncast)."""

    def __init__(self, dtype: Optional[str]) -> None:
        self.dtype = dtype

    def __enter__(self) -> "AutocastScope":
        self._outer = _AUTOCAST[0]
        _AUTOCAST[0] = self.dtype
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _AUTOCAST[0] = self._outer


def get_autocast_dtype() -> Optional[str]:
    """The compute dtype variables are read in now, or None."""
    return _AUTOCAST[0]


class AutocastVariable(Variable):
    """A float weight of a mixed-precision layer: reads inside an AutocastScope come back cast
    to the scope's dtype (a Cast op, so gradients flow back to the float32 weight); everything
    else (assignments, `numpy()`, the optimizer, saving) sees the stored dtype. Only layers
    whose policy mixes dtypes make these, so other weights' reads pay nothing."""

    def value(self) -> Any:
        read = super().value()
        dtype = _AUTOCAST[0]
        if dtype is None or dtype == read.dtype.name:
            return read
        return math_ops.cast(read, dtype)

    read_value = value


def __getattr__(name: str) -> Any:
    if name == "LossScaleOptimizer":  # the optimizers load on first use, as keras.optimizers
        from tapeflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
        return LossScaleOptimizer
    raise AttributeError(f"module 'tapeflow.keras.mixed_precision' has no attribute {name!r}")


__all__ = ["DTypePolicy", "Policy", "FloatDTypePolicy", "set_global_policy", "global_policy",  # noqa: F822 - LossScaleOptimizer comes from __getattr__
           "set_dtype_policy", "dtype_policy", "LossScaleOptimizer"]
