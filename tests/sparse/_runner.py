"""Runs a snippet (cases.py) or the guide file with `tf` bound, returning what it printed
(an exception ends it, recorded as `ERROR <class name>`). Shared by the recorder
(TensorFlow) and the tests (tapeflow)."""

import contextlib
import io
import os
import re
import runpy
import tempfile

import numpy as np


def run_case(tf, setup: str, code: str) -> str:
    """The text `setup + code` prints, run from a real file (AutoGraph reads its source)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "case.py")
        with open(path, "w") as f:
            f.write(setup + "\n" + code + "\n")
        return run_guide(tf, path)


def run_guide(tf, path: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            runpy.run_path(path, init_globals={"tf": tf})
        except Exception as exc:  # noqa: BLE001 - recorded and compared
            print(f"ERROR {type(exc).__name__}")
    return buffer.getvalue()


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")


def assert_prints(got: str, expected: str, approx: bool) -> None:
    """`got` is TF's `expected` text: exactly, or with `approx` its numbers within a
    relative 1e-6 (float32's last place) and the rest the same up to spaces."""
    if not approx:
        assert got == expected
        return
    assert _NUMBER.sub("#", got).replace(" ", "") == _NUMBER.sub("#", expected).replace(" ", "")
    np.testing.assert_allclose([float(x) for x in _NUMBER.findall(got)],
                               [float(x) for x in _NUMBER.findall(expected)], rtol=1e-6)
