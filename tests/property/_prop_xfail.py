"""Known tapeflow defects that the property tests found, one entry per (property, primitive).

Each entry marks that primitive's test `xfail(strict=True)` for the expected failure class
only: the suite stays green while the defect stands, fails if the test breaks some other way,
and fails loudly (XPASS) the day the defect is fixed, so the entry is removed.
"""

from __future__ import annotations

import pytest

_DID_NOT_RAISE = pytest.fail.Exception  # what `pytest.raises` throws when nothing is raised

# (property, primitive) -> (the defect with a minimal reproducer, the failure it causes).
KNOWN_DEFECTS: dict = {
    ("tiny_input", "BesselI1e"): (
        "the gradient of tf.math.bessel_i1e at a tiny nonzero x is -inf (1/x overflows in "
        "i0e(x) - i1e(x) (sign(x) + 1/x)): x = tf.constant([1e-310, -1e-310, 2.2e-313], "
        "tf.float64) gives [-inf, -inf, -inf] and float32 1e-40 gives -inf; TF 2.21 gives 0.5 "
        "for every |x| <= eps (its rule imputes 0.5 there, not only at x == 0)",
        AssertionError),
    ("unsupported_dtype", "Digamma"): (
        "tf.math.digamma(tf.constant([1.5, 2.5], tf.float16)) returns a float16 tensor "
        "[0.0365, 0.703]; TF 2.21 has no half kernel and raises InvalidArgumentError "
        "(\"Value for attr 'T' of half is not in the list of allowed values: float, double\"), "
        "as tapeflow already does for Polygamma",
        _DID_NOT_RAISE),
}


def defect_marks(prop: str, name: str) -> list:
    """The strict xfail mark for a known defect of `name` under `prop` (none if no defect)."""
    if (prop, name) not in KNOWN_DEFECTS:
        return []
    reason, raises = KNOWN_DEFECTS[prop, name]
    return [pytest.mark.xfail(strict=True, raises=raises, reason=reason)]


def known_defect(prop: str, name: str):
    """Decorator form of `defect_marks`, for a test of one primitive."""
    def apply(test):
        for mark in defect_marks(prop, name):
            test = mark(test)
        return test
    return apply


def marked(names, prop: str, cases: dict = None) -> list:
    """`names` as pytest params with their known-defect marks; given `cases`, primitives
    without a gradient sample are skipped (tests/ops/test_gradient_registry.py fails for them
    until one is written)."""
    params = []
    for name in names:
        marks = defect_marks(prop, name)
        if cases is not None and not cases.get(name):
            marks.append(pytest.mark.skip(reason=f"{name} has no case in "
                                                 f"tests/ops/gradient_samples/"))
        params.append(pytest.param(name, marks=marks))
    return params
