"""Every public name of Keras 3.15's namespaces exists in tapeflow.keras with the same
parameter names (a class: its `__init__`'s), except those NOT_BUILT lists with the reason.
The names and parameters were recorded from Keras 3.15.1 by tools/record_keras_api.py into
fixtures/keras_api.json."""

from __future__ import annotations

import importlib
import inspect
import json
import os
from typing import Any, Optional

import pytest

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "keras_api.json")
with open(FIXTURE) as _f:
    KERAS_API = json.load(_f)["namespaces"]

_QUANTIZED = "tapeflow has no quantized layer kernels (int8, float8, int4, GPTQ, AWQ)"

# namespace -> {name: why tapeflow.keras does not have it (or has other parameters)}.
NOT_BUILT: dict = {
    "dtype_policies": {
        "AWQDTypePolicy": _QUANTIZED,
        "GPTQDTypePolicy": _QUANTIZED,
        "Int4DTypePolicy": _QUANTIZED,
        "QuantizedDTypePolicy": _QUANTIZED,
        "QuantizedFloat8DTypePolicy": _QUANTIZED,
    },
    "callbacks": {
        "OrbaxCheckpoint": "needs the orbax library (JAX checkpointing)",
        "RemoteMonitor": "posts to an HTTP server: not built (no network use)",
    },
    "layers": {
        "FlaxLayer": "wraps Flax modules: Keras's JAX backend only",
        "JaxLayer": "wraps JAX functions: Keras's JAX backend only",
        "TFSMLayer": "loads a TensorFlow SavedModel's serving functions: not built",
        "TorchModuleWrapper": "wraps torch modules: Keras's torch backend only",
    },
    "optimizers": {
        "legacy": "Keras 2 optimizers namespace: not built",
    },
    "utils": {
        "legacy": "Keras 2 utils namespace: not built",
    },
}


def tapeflow_namespace(namespace: str) -> Optional[Any]:
    """tapeflow.keras.<namespace>, or None where tapeflow has no such module."""
    module: Any = importlib.import_module("tapeflow.keras")
    for part in namespace.split("."):
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def param_names(obj: Any, kind: str) -> Optional[list]:
    """As tools/record_keras_api.py reads them."""
    try:
        target = obj.__init__ if kind == "class" else obj
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return None
    return params[1:] if kind == "class" and params[:1] == ["self"] else params


def mismatch(module: Optional[Any], name: str, recorded: dict) -> Optional[str]:
    """Why tapeflow's `name` differs from Keras's, or None where it matches."""
    if module is None:
        return "namespace missing"
    if not hasattr(module, name):
        return "missing"
    obj = getattr(module, name)
    if recorded["kind"] in ("class", "function") and recorded["params"] is not None:
        if not callable(obj):
            return f"not callable ({type(obj).__name__})"
        ours = param_names(obj, "class" if inspect.isclass(obj) else "function")
        if ours != recorded["params"]:
            return f"parameters {ours} != Keras's {recorded['params']}"
    return None


def mismatches(namespace: str) -> dict:
    module = tapeflow_namespace(namespace)
    return {name: why for name, recorded in KERAS_API[namespace].items()
            if (why := mismatch(module, name, recorded)) is not None}


@pytest.mark.parametrize("namespace", sorted(KERAS_API))
def test_every_keras_name_is_built_or_listed(namespace: str) -> None:
    unlisted = {name: why for name, why in mismatches(namespace).items()
                if name not in NOT_BUILT.get(namespace, {})}
    assert not unlisted, f"keras.{namespace}: {unlisted}"


@pytest.mark.parametrize("namespace", sorted(NOT_BUILT))
def test_not_built_lists_only_what_is_missing(namespace: str) -> None:
    """An entry goes from NOT_BUILT once tapeflow has the name (with Keras's parameters)."""
    built = set(NOT_BUILT[namespace]) - set(mismatches(namespace))
    assert not built, f"keras.{namespace}: now built, remove from NOT_BUILT: {sorted(built)}"


def test_not_built_names_are_keras_names() -> None:
    unknown = {ns: sorted(set(names) - set(KERAS_API.get(ns, {})))
               for ns, names in NOT_BUILT.items()}
    assert not any(unknown.values()), unknown
