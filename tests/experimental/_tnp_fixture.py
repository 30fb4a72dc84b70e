"""Shared by the tnp fixture tests: evaluating a recorded case under tapeflow and comparing
the answer with TensorFlow 2.21's (recorded by tools/record_tnp_fixtures.py)."""

from __future__ import annotations

import json
import pathlib

import numpy as np

import tapeflow as tf
import tapeflow.experimental.numpy as tnp

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tnp.json").read_text())


def encode(value):
    """The recorder's JSON form of a result (tools/record_tnp_fixtures.py `encode`)."""
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        array = np.asarray(value.numpy())
        return {"dtype": value.dtype.name, "shape": list(array.shape), "value": _values(array)}
    if isinstance(value, (tuple, list)):
        return {"seq": [encode(v) for v in value], "type": type(value).__name__}
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "value": _values(value)}
    if isinstance(value, (bool, np.bool_)):
        return {"py": "bool", "value": bool(value)}
    if isinstance(value, (int, float, np.integer, np.floating)):
        return {"py": type(value).__name__, "value": _values(np.asarray(value))}
    return {"repr": repr(value)}


def _values(array):
    if array.dtype.kind == "c":
        return [_values(array.real), _values(array.imag)]
    if array.dtype.kind == "f":
        return np.where(np.isfinite(array), array, 0).tolist() if np.isfinite(array).all() \
            else [repr(v) for v in array.ravel().tolist()]
    if array.dtype.kind in "SUO":
        return [repr(v) for v in array.ravel().tolist()]
    return array.tolist()


def environment() -> dict:
    env = {"tf": tf, "tnp": tnp, "np": np}
    exec(FIXTURE["prelude"], env)
    return env


def answer(case: str, env: dict) -> dict:
    """tapeflow's answer to a case, as the recorder writes TF's (a fresh seed first)."""
    tf.random.set_seed(1)
    try:
        return encode(eval(case, env))
    except Exception as exc:  # noqa: BLE001 - the class is the answer
        return {"error": type(exc).__name__}


def same(ours, theirs) -> bool:
    """Equal answers: dtypes, shapes, types and error classes exactly; values to float
    precision (NaN and infinities by their text)."""
    if isinstance(theirs, dict) and isinstance(ours, dict):
        if ours.keys() != theirs.keys():
            return False
        return all(same(ours[k], theirs[k]) if k == "value" or isinstance(theirs[k], (dict, list))
                   else ours[k] == theirs[k] for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(
            same(a, b) for a, b in zip(ours, theirs))
    if isinstance(theirs, float) or isinstance(ours, float):
        return bool(np.isclose(ours, theirs, rtol=2e-6, atol=1e-7))
    return ours == theirs
