"""Records Keras 3's public API (names and parameter names) into
tests/keras/fixtures/keras_api.json, which tests/keras/test_keras_api_names.py compares with
tapeflow.keras (run with a Python that has Keras 3.15 + TensorFlow):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_api.py

Each namespace maps each public name to {"kind": "class" | "function" | "module" | "other",
"params": [parameter names]}: a function's own, a class's `__init__`'s (without `self`);
`params` is null where Python cannot read a signature.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any, Optional

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "keras_api.json")
NAMESPACES = ["ops", "ops.numpy", "ops.nn", "ops.linalg", "ops.image", "datasets",
              "applications", "tree", "random", "backend", "config", "dtype_policies",
              "preprocessing", "layers", "optimizers", "optimizers.schedules", "losses",
              "metrics", "callbacks", "utils", "activations", "initializers", "regularizers",
              "constraints", "saving", "models", "mixed_precision"]


def kind_of(obj: Any) -> str:
    """How the test checks a name: classes and functions by their parameters."""
    if inspect.isclass(obj):
        return "class"
    if inspect.ismodule(obj):
        return "module"
    return "function" if callable(obj) else "other"


def param_names(obj: Any, kind: str) -> Optional[list]:
    """A function's parameter names, a class's `__init__`'s without `self`."""
    if kind not in ("class", "function"):
        return None
    try:
        target = obj.__init__ if kind == "class" else obj
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return None
    return params[1:] if kind == "class" and params[:1] == ["self"] else params


def namespace_api(keras: Any, namespace: str) -> dict:
    """{name: {"kind", "params"}} for `keras.<namespace>`'s public names."""
    module = keras
    for part in namespace.split("."):
        module = getattr(module, part)
    api = {}
    for name in sorted(n for n in dir(module) if not n.startswith("_")):
        obj = getattr(module, name)
        kind = kind_of(obj)
        api[name] = {"kind": kind, "params": param_names(obj, kind)}
    return api


def main() -> None:
    import keras
    api = {"keras_version": keras.__version__,
           "namespaces": {ns: namespace_api(keras, ns) for ns in NAMESPACES}}
    with open(OUT, "w") as f:
        json.dump(api, f, indent=0, sort_keys=True)
        f.write("\n")
    for ns, names in api["namespaces"].items():
        print(f"{ns}: {len(names)} names")


if __name__ == "__main__":
    main()
