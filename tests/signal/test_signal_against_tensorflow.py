"""tf.signal and complex numbers against TensorFlow 2.21's answers (fixtures/signal.npz,
recorded by tools/record_signal_fixtures.py from the programs of _signal_cases.py).

Every output must have TF's dtype and shape; values agree within float32 (float64) rounding:
TF uses its own FFT (DUCC), tapeflow SciPy's pocketfft, so last bits differ. The error is
measured against the output's scale (its largest magnitude), as FFT rounding is.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapeflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _signal_cases import CASES  # noqa: E402

FIXTURE = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                               "signal.npz"))
# Relative to the output's scale: a few float32 ulps of a sum of many terms (the mel
# matrix's slopes divide differences of nearby mel values, which costs a little more).
TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-6,
             np.dtype(np.float64): 1e-13, np.dtype(np.complex128): 1e-13}
# The log of the quietest mel bands (1e-5 of the loudest) turns the FFTs' rounding of the
# loudest bins into larger relative differences there.
LOOSER = {"spectrogram/1": 5e-5, "spectrogram/2": 5e-5}


def _expected(name: str) -> list:
    out = []
    while f"{name}/{len(out)}" in FIXTURE.files:
        out.append(FIXTURE[f"{name}/{len(out)}"])
    return out


def relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(expected), initial=0.0)), 1e-30)
    return float(np.max(np.abs(actual - expected), initial=0.0)) / scale


def test_fixture_is_tensorflow_2_21():
    assert str(FIXTURE["tf_version"]).startswith("2.21")


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_tensorflow(name):
    expected = _expected(name)
    assert expected, f"no recorded answer for {name}: run tools/record_signal_fixtures.py"
    out = CASES[name](tf)
    actual = [np.asarray(t) for t in (out if isinstance(out, (list, tuple)) else [out])]
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert (a.dtype, a.shape) == (e.dtype, e.shape), f"{name}/{index}"
        if e.dtype.kind in "fc":
            error = relative_error(a, e)
            tolerance = LOOSER.get(f"{name}/{index}", TOLERANCE[e.dtype])
            assert error <= tolerance, f"{name}/{index}: relative error {error:.2e}"
        else:
            np.testing.assert_array_equal(a, e, err_msg=f"{name}/{index}")
