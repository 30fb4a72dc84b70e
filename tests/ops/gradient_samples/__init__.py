"""Gradient-check cases for every differentiable primitive, one file per op family.

Each module here (`math.py`, `reduce.py`, `array.py`, `nn.py`, ...) defines

    SAMPLES: dict[str, list[tuple[Callable, list[np.ndarray]]]]

mapping a primitive's TensorFlow name (its key in `tapeflow.autodiff.core.REGISTRY`) to cases.
A case is `(f, inputs)`: `f` takes float64 tensors (positionally) and returns one tensor that
depends on the primitive; `inputs` are the float64 NumPy arrays to check at, chosen away from
kinks, ties and singularities. A case may carry a third item, a dict of options:
`{"second_order": False}` (say why in a comment) or tolerances `{"rtol": ..., "atol": ...}`.

`tests/ops/test_gradient_registry.py` loads every module here with `load_samples()` and checks
first and second derivatives against finite differences.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Callable, NamedTuple

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))


class Case(NamedTuple):
    """One gradient check: `f(*inputs)` exercises `primitive`; `origin` is the sample file."""

    primitive: str
    f: Callable
    inputs: list
    options: dict
    origin: str


def _load_module(filename: str):
    name = f"_gradient_samples_{filename[:-3]}"
    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_samples() -> dict:
    """primitive name -> list of `Case`, merged over every sample module in this folder."""
    cases: dict = {}
    for filename in sorted(os.listdir(_HERE)):
        if not filename.endswith(".py") or filename.startswith("_"):
            continue
        module = _load_module(filename)
        samples = getattr(module, "SAMPLES", None)
        if not isinstance(samples, dict):
            raise TypeError(f"gradient_samples/{filename} must define SAMPLES as a dict")
        for primitive, entries in samples.items():
            for entry in entries:
                f, inputs, *rest = entry
                options = dict(rest[0]) if rest else {}
                inputs = [np.asarray(x, dtype=np.float64) for x in inputs]
                cases.setdefault(primitive, []).append(
                    Case(primitive, f, inputs, options, filename))
    return cases
