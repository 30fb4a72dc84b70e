"""Shared by the tnp fixture tests: evaluating a recorded case under tapeflow and comparing
the answer with TensorFlow 2.21's (recorded by tools/record_tnp_fixtures.py)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

import tapeflow as tf
import tapeflow.experimental.numpy as tnp

# Answers are encoded by the recorder's own `encode`, so both sides write one JSON form.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
from record_tnp_fixtures import encode  # noqa: E402

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tnp.json").read_text())


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
