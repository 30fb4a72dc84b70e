"""String tensors and tf.strings against TensorFlow 2.21's printed answers
(tools/record_string_fixtures.py): each recorded program, among them the string examples of
TF's guide "Tensors", runs on tapeflow and must print what TF printed, or raise TF's error
class with TF's message (the message alone is not compared where noted)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import tapeflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
from record_string_fixtures import run  # noqa: E402

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "strings.json").read_text())
CASES = FIXTURE["cases"]

# Cases whose error message is tapeflow's own (same class, same op, other wording), with why.
MESSAGE_DIFFERS = {
    "regex_replace_bad_pattern": "Python's re words pattern errors, not RE2",
    "regex_full_match_bad": "Python's re words pattern errors, not RE2",
    "sub_strings": "TF lists its kernels' dtypes in registration order",
    "less_strings": "TF lists its kernels' dtypes in registration order",
    "reduce_sum_string": "TF lists its kernels' dtypes in registration order",
    "neg_string": "TF lists its kernels' dtypes in registration order",
    "ones_like_string": "TF's attr errors end in the NodeDef, tapeflow's in [Op:OnesLike]",
}

# What needs a change outside the string files (the file named), with why; strict xfails,
# so each turns into a failure to remove from here once it is fixed.
NEEDS_OTHER_FILES = {
    "add_number": "math_ops: a string Add's dtype error names AddV2, TF's names Add",
    "add_tensor_number": "math_ops: a string Add's dtype error names AddV2, TF's names Add",
    "numpy_unicode_to_int": "TF parses a NumPy str array requested as int32; tapeflow raises",
}


def _head(printed: str) -> str:
    """All but the last line (the error's)."""
    return printed.rstrip("\n").rpartition("\n")[0]


def _error_class(printed: str) -> str:
    last = printed.rstrip("\n").rsplit("\n", 1)[-1]
    return last.split(":", 1)[0] if last.startswith("ERROR ") else last


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason=NEEDS_OTHER_FILES[n])) if n in NEEDS_OTHER_FILES else n
    for n in sorted(CASES)])
def test_prints_what_tensorflow_prints(name):
    case = CASES[name]
    printed = run(tf, np, case["program"])
    if name in MESSAGE_DIFFERS:
        assert _head(printed) == _head(case["printed"])
        assert _error_class(printed) == _error_class(case["printed"])
    else:
        assert printed == case["printed"]
