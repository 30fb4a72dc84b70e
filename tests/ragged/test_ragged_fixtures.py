"""Ragged tensors against TensorFlow 2.21's printed answers (tools/record_ragged_fixtures.py):
each recorded program, among them the examples of TF's guide "Ragged tensors" that need no
strings, runs on tapeflow and must print what TF printed (or raise the same error class)."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "ragged.json").read_text())
CASES = FIXTURE["cases"]


def _printed(program: str) -> str:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(program, {"tf": tf, "np": np})  # noqa: S102 - the recorded programs
        return out.getvalue()
    except Exception as exc:  # noqa: BLE001 - compared with TF's recorded error class
        return out.getvalue() + f"ERROR {type(exc).__name__}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_prints_what_tensorflow_prints(name):
    case = CASES[name]
    assert _printed(case["program"]) == case["printed"]
