"""tapeflow against TensorFlow 2.21's recorded answers for a few thousand random op calls.

fixture.json.gz holds TF 2.21's records (values, dtypes, shapes, error classes, first- and
second-order gradients) for a representative subset of the cases drawn by tools/differential
(re-record with `python -m tools.differential record-fixture`; see tools/differential/README.md).
Each case runs here in tapeflow, in-process, and is compared as tools/differential/compare.py
does. A difference fails the test unless its (op, kind) is in KNOWN_DIFFERENCES; remove an entry
when its difference is fixed (the test warns about entries that no longer occur).
"""

import collections
import faulthandler
import gzip
import json
import os
import sys
import warnings

import numpy as np
import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

from tools.differential import compare, runner  # noqa: E402

# (the variable points the test at a freshly recorded fixture before it replaces this one)
FIXTURE = os.environ.get("TAPEFLOW_DIFFERENTIAL_FIXTURE") or \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture.json.gz")
CASE_LIMIT_S = 60  # a case running longer is a hang: dump the stacks and stop the run

# (op, kind): why tapeflow's answer differs from TF 2.21's. Kinds: see compare.KINDS.
# compare.INFORMATIONAL kinds (TF itself cannot differentiate) are never failures.
# tools/differential/FINDINGS.md groups these by source file, with reproducers.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ('cast', 'wrong_value'):
        "NaN/inf/out-of-range float to an integer dtype: undefined in C++; TF's result "
        "depends on the element's position (SIMD blocks vs tail), tapeflow's is NumPy's",
    ('clip_by_global_norm', 'wrong_error_class'):
        "mixed float32/float64 tensors: TF's TypeError comes from its Python division; "
        "tapeflow raises the op's InvalidArgumentError",
    ('linalg.cholesky', 'wrong_value'):
        "a non-positive-definite matrix: TF's upper triangle is uninitialised memory (0.5, "
        "2e-323); tapeflow's is 0",
    ('linalg.expm', 'none_vs_value_grad'):
        'TF has no gradient for inf/NaN input (its composite fills NaN); tapeflow '
        'differentiates its expm',
    ('linalg.expm', 'wrong_grad2'):
        'float32 second derivative of an ill-conditioned expm: rounding (relative 2e-4 of '
        'values ~1e2)',
    ('linalg.expm', 'wrong_value'):
        "non-finite or overflowing input: TF's Pade result is inf (or a wrong finite value: "
        'mpmath disagrees with TF), tapeflow gives NaN',
    ('linalg.lstsq', 'wrong_value'):
        'an ill-conditioned float32 system: both solve the normal equations; they differ in '
        'rounding (8e-5 relative)',
    ('linalg.matmul', 'wrong_error_class'):
        "bool matmul: TF's TypeError comes from its Python wrapper; tapeflow raises the op's "
        'InvalidArgumentError',
    ('linalg.qr', 'wrong_value'):
        "float16 QR (TF computes in half precision; tapeflow's emulation rounds differently) "
        'or rank-deficient input (another valid factorisation)',
    ('linalg.svd', 'wrong_value'):
        'repeated or zero singular values: another valid choice of singular vectors',
    ('math.bessel_i1e', 'wrong_grad2'):
        "float64 second derivative: TF's rule and tapeflow's differ by 3e-9 relative "
        '(rounding of the recurrence)',
    ('math.erf', 'wrong_value'):
        "TF's float64 erf is NaN at +-inf and |x| >= 1.4e154; the true value is +-1 "
        '(tapeflow)',
    ('math.reciprocal', 'wrong_value'):
        "complex reciprocal of an infinity: TF's vectorised path gives NaN, its scalar path "
        'and the true value 0 (tapeflow)',
    ('nn.conv1d', 'wrong_shape'):
        'an empty or negative output size: TF (oneDNN, float32) returns uninitialised memory '
        "of the input's shape; tapeflow the empty result (TF's float64 kernel agrees)",
    ('nn.conv1d', 'wrong_value'):
        "TF's kernels multiply padding zeros (or inf) by inf and spread NaN; tapeflow sums "
        "the window's own terms (equal to a term-by-term float64 reference)",
    ('nn.conv2d', 'wrong_shape'):
        'an empty or negative output size: TF (oneDNN, float32) returns uninitialised memory '
        "of the input's shape; tapeflow the empty result (TF's float64 kernel agrees)",
    ('nn.conv2d', 'wrong_value'):
        "TF's kernels multiply padding zeros (or inf) by inf and spread NaN; tapeflow sums "
        "the window's own terms (equal to a term-by-term float64 reference)",
    ('nn.conv2d_transpose', 'wrong_error_class'):
        'TF (oneDNN) aborts (AbortedError) where tapeflow raises InvalidArgumentError',
    ('nn.conv2d_transpose', 'wrong_value'):
        "TF's kernels multiply padding zeros (or inf) by inf and spread NaN; tapeflow sums "
        "the window's own terms (equal to a term-by-term float64 reference); float16: TF "
        'accumulates in half precision',
    ('nn.convolution', 'wrong_grad'):
        "terms of ~1e30 cancel: TF's sum comes out 0, tapeflow's 7e13 (both within 1e30 x "
        'eps)',
    ('nn.convolution', 'wrong_shape'):
        'an empty or negative output size: TF (oneDNN, float32) returns uninitialised memory '
        "of the input's shape; tapeflow the empty result (TF's float64 kernel agrees)",
    ('nn.convolution', 'wrong_value'):
        "TF's kernels multiply padding zeros (or inf) by inf and spread NaN; tapeflow sums "
        "the window's own terms (equal to a term-by-term float64 reference)",
    ('nn.depthwise_conv2d', 'rejected_what_tf_accepts'):
        "strides and dilations > 1 together: TF's space-to-batch path returns a value that is "
        'not the convolution (it warns the combination is unsupported); tapeflow raises its '
        'BatchToSpaceND error',
    ('nn.depthwise_conv2d', 'wrong_shape'):
        'an empty or negative output size: TF (oneDNN, float32) returns uninitialised memory '
        "of the input's shape; tapeflow the empty result (TF's float64 kernel agrees)",
    ('nn.depthwise_conv2d', 'wrong_value'):
        "TF's kernels multiply padding zeros (or inf) by inf and spread NaN; tapeflow sums "
        "the window's own terms (equal to a term-by-term float64 reference)",
    ('nn.gelu', 'wrong_grad2'):
        "TF's float64 gelu rounds its constant through float32 (see wrong_value)",
    ('nn.gelu', 'wrong_value'):
        "TF's float64 gelu rounds its constant 1/sqrt(2) through float32 (relative error up "
        'to 4.4e-7 vs mpmath); tapeflow is exact',
    ('nn.l2_normalize', 'rejected_what_tf_accepts'):
        'complex l2_normalize is not implemented in tapeflow (raises)',
    ('nn.softmax_cross_entropy_with_logits', 'wrong_grad2'):
        "TF's second derivative w.r.t. the labels is 0 (its rule treats the fused backprop as "
        "constant in labels); tapeflow's is the true one",
    ('py.and_', 'wrong_error_class'):
        'a negative Python int with an unsigned tensor: TF raises OverflowError, tapeflow '
        'SystemError',
    ('py.floordiv', 'wrong_error_class'):
        'complex floordiv: TF NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('py.getitem', 'wrong_error_class'):
        'a bad slice: TF InvalidArgumentError (StridedSlice), tapeflow ValueError',
    ('py.matmul', 'wrong_value'):
        "complex matmul with infinities: BLAS gives NaN where TF's kernel gives -inf",
    ('py.pow', 'wrong_value'):
        "complex64 square of a 1e30 imaginary part: TF's product overflows to -inf-infj, "
        "NumPy's power keeps 1e31 in one part",
    ('py.truediv', 'wrong_value'):
        "complex division by nan-infj: TF's Annex G rule gives 0, NumPy's NaN",
}


# Ops whose specs were added after the fixture was recorded: re-recording covers them (then
# empty this set; the test warns about entries the fixture already covers).
AWAITING_FIXTURE: set = set()


def _recorded_with_kwargs_bug(ref: dict) -> bool:
    """Records made before the runner decoded kwargs one by one: a `dtype=` keyword was taken
    for a dtype record and TF 'raised' the runner's own TypeError. No reference: skipped."""
    return "error" in ref and "attribute name must be string, not 'dict'" in ref["error"][1]


@pytest.fixture(scope="module")
def outcome():
    """Run every fixture case in tapeflow; return (records, differences)."""
    import tapeflow
    with gzip.open(FIXTURE, "rt") as f:
        records = [r for r in json.load(f)["records"] if not _recorded_with_kwargs_bug(r)]
    diffs = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for ref in records:
            if (ref["op"], "hang") in KNOWN_DIFFERENCES:
                continue  # a known hang would stop the whole run
            faulthandler.dump_traceback_later(CASE_LIMIT_S, exit=True)
            try:
                got = runner.run_case(tapeflow, ref["case"])
            finally:
                faulthandler.cancel_dump_traceback_later()
            res = compare.classify(ref, got)
            if res and res[0] not in compare.INFORMATIONAL:
                diffs.append({"id": ref["id"], "op": ref["op"], "kind": res[0], "detail": res[1],
                              "case": ref["case"]})
    return records, diffs


def _reproducer(d: dict) -> str:
    c = d["case"]
    kwargs = {k: compare.describe(v) for k, v in c["kwargs"].items()}
    return (f"#{d['id']} {d['op']} {d['kind']}: {d['detail'][:200]}\n"
            f"    tf.{c['op']}(*{compare.describe(c['args'])}, **{kwargs})")


def test_fixture_covers_every_op(outcome):
    from tools.differential.specs import SPECS
    records, _ = outcome
    recorded = {r["op"] for r in records}
    missing = {s.op for s in SPECS} - recorded - AWAITING_FIXTURE
    assert not missing, f"re-record the fixture: no cases for {sorted(missing)}"
    if AWAITING_FIXTURE & recorded:
        warnings.warn(f"AWAITING_FIXTURE entries the fixture covers (remove them): "
                      f"{sorted(AWAITING_FIXTURE & recorded)}", stacklevel=2)


def test_no_unknown_difference(outcome):
    _, diffs = outcome
    unknown = [d for d in diffs if (d["op"], d["kind"]) not in KNOWN_DIFFERENCES]
    seen = {(d["op"], d["kind"]) for d in diffs}
    stale = sorted(k for k in KNOWN_DIFFERENCES if k not in seen and k[1] != "hang")
    if stale:
        warnings.warn(f"KNOWN_DIFFERENCES entries that no longer occur (remove them): {stale}",
                      stacklevel=2)
    by = collections.Counter((d["op"], d["kind"]) for d in unknown)
    assert not unknown, (f"{len(unknown)} cases differ from TF 2.21 in {len(by)} (op, kind) "
                         f"pairs:\n" + "\n".join(_reproducer(d) for d in unknown))
