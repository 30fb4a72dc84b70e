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
    ('argsort', 'wrong_error_class'):
        'invalid argument: tapeflow raises ValueError, TF InvalidArgumentError',
    ('linalg.band_part', 'wrong_error_class'):
        'invalid argument: tapeflow raises ValueError, TF InvalidArgumentError',
    ('linalg.cholesky', 'accepted_what_tf_rejects'):
        'float16/complex/uint8: TF has no kernel (NotFoundError); tapeflow computes it',
    ('linalg.cholesky', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.cholesky', 'wrong_value'):
        'cholesky of a non-positive-definite matrix: TF returns garbage/NaN',
    ('linalg.cholesky_solve', 'accepted_what_tf_rejects'):
        'float16/complex/uint8: TF has no kernel (NotFoundError); tapeflow computes it',
    ('linalg.cholesky_solve', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.det', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.det', 'wrong_grad'):
        'det gradient of a singular or non-finite matrix',
    ('linalg.det', 'wrong_value'):
        'det of a non-finite matrix: -inf where TF NaN',
    ('linalg.eigh', 'rejected_what_tf_accepts'):
        'eigh raises on non-finite input; TF returns NaN',
    ('linalg.eigh', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.eigh', 'wrong_grad2'):
        'eigh second gradient near-degenerate eigenvalues (float32)',
    ('linalg.eigvalsh', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.expm', 'accepted_what_tf_rejects'):
        'TF rejects float16 expm (no MatrixSolve kernel)',
    ('linalg.expm', 'none_vs_value_grad'):
        'TF has no expm gradient (None); tapeflow returns one',
    ('linalg.expm', 'wrong_value'):
        'expm NaN where TF is finite (non-finite or huge input)',
    ('linalg.inv', 'rejected_what_tf_accepts'):
        'tapeflow rejects float16 inv; TF computes it',
    ('linalg.logdet', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.lstsq', 'wrong_error_class'):
        'lstsq with a rank-1 input: TF raises IndexError',
    ('linalg.matmul', 'accepted_what_tf_rejects'):
        'uint8 matmul: TF has no kernel',
    ('linalg.matvec', 'accepted_what_tf_rejects'):
        'uint8 matvec: TF has no kernel',
    ('linalg.matvec', 'wrong_value'):
        'matvec with inf * 0: NaN where TF -inf',
    ('linalg.norm', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.pinv', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.qr', 'rejected_what_tf_accepts'):
        'tapeflow rejects float16 qr; TF computes it',
    ('linalg.qr', 'wrong_value'):
        'qr of rank-deficient input: a different (valid) factorisation',
    ('linalg.set_diag', 'wrong_error_class'):
        'invalid argument: tapeflow raises ValueError, TF InvalidArgumentError',
    ('linalg.slogdet', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.solve', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.svd', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('linalg.svd', 'wrong_grad'):
        'svd gradient of a rank-deficient matrix',
    ('linalg.svd', 'wrong_value'):
        'svd of a rank-deficient matrix: different singular vectors',
    ('linalg.triangular_solve', 'accepted_what_tf_rejects'):
        'float16/complex/uint8: TF has no kernel (NotFoundError); tapeflow computes it',
    ('linalg.triangular_solve', 'wrong_error_class'):
        'float16 linalg: TF raises NotFoundError (no kernel), tapeflow InvalidArgumentError',
    ('math.cumprod', 'wrong_grad'):
        "cumprod's gradient is NaN at an exact 0 input where TF's is finite",
    ('math.cumulative_logsumexp', 'wrong_value'):
        'cumulative_logsumexp with -inf/NaN entries',
    ('math.erf', 'wrong_value'):
        "TF's float64 erf(-inf) is NaN; tapeflow gives -1",
    ('math.in_top_k', 'accepted_what_tf_rejects'):
        "TF's in_top_k takes float32 predictions only",
    ('math.log', 'wrong_value'):
        'complex log at 0 / infinities',
    ('math.reciprocal', 'wrong_value'):
        'complex reciprocal of inf/NaN',
    ('math.reduce_logsumexp', 'none_vs_value_grad'):
        'second gradient None where TF has a value (inputs with -inf)',
    ('math.reduce_prod', 'wrong_grad2'):
        "reduce_prod's second gradient is NaN at exact zeros where TF's is finite",
    ('math.rsqrt', 'wrong_value'):
        'complex rsqrt of inf/NaN',
    ('math.segment_min', 'wrong_value'):
        "a segment of all +inf gives the dtype's max instead of inf",
    ('math.top_k', 'wrong_value'):
        'top_k with NaN: different order',
    ('math.unsorted_segment_max', 'rejected_what_tf_accepts'):
        'out-of-range segment ids raise; TF drops them',
    ('math.unsorted_segment_min', 'rejected_what_tf_accepts'):
        'out-of-range segment ids raise; TF drops them',
    ('math.unsorted_segment_sum', 'rejected_what_tf_accepts'):
        'out-of-range segment ids raise; TF drops them',
    ('nn.conv1d', 'rejected_what_tf_accepts'):
        'int32 conv1d: tapeflow rejects',
    ('nn.conv1d', 'wrong_shape'):
        'filter larger than input with VALID: empty output; TF(oneDNN) returns garbage',
    ('nn.conv1d', 'wrong_value'):
        'non-finite inputs spread NaN to other positions',
    ('nn.conv2d', 'wrong_shape'):
        'filter larger than input with VALID: empty output; TF(oneDNN) returns garbage',
    ('nn.conv2d', 'wrong_value'):
        'non-finite inputs spread NaN to other positions',
    ('nn.conv2d_transpose', 'wrong_value'):
        'float16 conv2d_transpose rounds differently (accumulates in float16)',
    ('nn.convolution', 'rejected_what_tf_accepts'):
        'filter larger than input: tapeflow raises, TF(oneDNN) returns garbage',
    ('nn.convolution', 'wrong_error_class'):
        'invalid argument: tapeflow raises InvalidArgumentError, TF ValueError',
    ('nn.convolution', 'wrong_shape'):
        'filter larger than input with VALID: empty output; TF(oneDNN) returns garbage',
    ('nn.convolution', 'wrong_value'):
        'non-finite inputs spread NaN to other positions',
    ('nn.depthwise_conv2d', 'wrong_grad'):
        'non-finite inputs spread NaN into the gradient',
    ('nn.depthwise_conv2d', 'wrong_shape'):
        'filter larger than input with VALID: empty output; TF(oneDNN) returns garbage',
    ('nn.depthwise_conv2d', 'wrong_value'):
        'non-finite inputs spread NaN to other channels/positions (inf * 0 in a dense product)',
    ('nn.elu', 'wrong_grad2'):
        "TF's elu second derivative comes from the output (0 at tiny negatives)",
    ('nn.elu', 'wrong_value'):
        "TF's elu(tiny negative) is 0 (exp(x)-1); tapeflow uses expm1",
    ('nn.gelu', 'wrong_grad2'):
        "follows TF's imprecise float64 gelu",
    ('nn.gelu', 'wrong_value'):
        "TF's float64 erf-based gelu is accurate to ~1e-7 only; tapeflow is exact",
    ('nn.l2_normalize', 'wrong_grad2'):
        'second gradient NaN/different at a zero-norm input',
    ('nn.leaky_relu', 'wrong_value'):
        'TF keeps alpha as a float32 attr (0.2 -> 0.20000000298) even for float64',
    ('nn.max_pool1d', 'accepted_what_tf_rejects'):
        'TF (oneDNN) aborts on some empty pools',
    ('nn.max_pool1d', 'rejected_what_tf_accepts'):
        "int16 max_pool: tapeflow rejects (TF message, but TF's ... )",
    ('nn.max_pool2d', 'accepted_what_tf_rejects'):
        'TF (oneDNN) aborts on some empty pools',
    ('nn.max_pool2d', 'rejected_what_tf_accepts'):
        'int16 max_pool: tapeflow rejects',
    ('nn.moments', 'wrong_value'):
        'complex variance uses x*x, TF uses |x - mean|^2 (real)',
    ('nn.selu', 'wrong_grad'):
        "TF derives selu's gradient from the output: at tiny negative x (output 0) it uses scale",
    ('nn.softmax_cross_entropy_with_logits', 'accepted_what_tf_rejects'):
        'scalar logits: TF rejects',
    ('nn.softmax_cross_entropy_with_logits', 'wrong_grad2'):
        "TF's second derivative ignores the labels path (TF says 0; tapeflow's -v is the true one)",
    ('repeat', 'rejected_what_tf_accepts'):
        'float repeats raise a NumPy TypeError',
    ('reverse', 'rejected_what_tf_accepts'):
        'reverse of a scalar with axis [0]',
    ('scatter_nd', 'accepted_what_tf_rejects'):
        "no check that updates' shape fits indices and shape",
    ('searchsorted', 'accepted_what_tf_rejects'):
        'TF has no complex searchsorted kernel',
    ('searchsorted', 'rejected_what_tf_accepts'):
        'searchsorted with 0 values fails on a reshape',
    ('sort', 'wrong_error_class'):
        'invalid argument: tapeflow raises ValueError, TF InvalidArgumentError',
    ('split', 'accepted_what_tf_rejects'):
        'accepts size_splits TF rejects (one output of a smaller size)',
    ('tensor_scatter_nd_add', 'accepted_what_tf_rejects'):
        "no check that indices'/updates' shapes fit the tensor",
    ('tensor_scatter_nd_update', 'accepted_what_tf_rejects'):
        "no check that indices'/updates' shapes fit the tensor",
    ('tensordot', 'accepted_what_tf_rejects'):
        'tensordot of int16: TF rejects',
    ('truncatediv', 'wrong_error_class'):
        'incompatible shapes: tapeflow raises InternalError, TF InvalidArgumentError',
    ('truncatemod', 'wrong_error_class'):
        'incompatible shapes: tapeflow raises InternalError, TF InvalidArgumentError',
    ('unique', 'accepted_what_tf_rejects'):
        'complex unique: TF has no kernel',
    ('unique_with_counts', 'accepted_what_tf_rejects'):
        'complex unique: TF has no kernel',
    ('where', 'accepted_what_tf_rejects'):
        'one-argument where on a scalar: TF rejects rank 0',
}


# Ops whose specs were added after the fixture was recorded: re-recording covers them (then
# empty this set; the test warns about entries the fixture already covers).
AWAITING_FIXTURE = {
    "constant", "convert_to_tensor", "ensure_shape", "histogram_fixed_width", "math.conj",
    "math.real", "nn.avg_pool", "nn.max_pool", "shape_n", "strided_slice",
    *("py." + n for n in ("abs", "add", "and_", "eq", "floordiv", "ge", "getitem", "gt", "invert",
                          "le", "lt", "matmul", "mod", "mul", "ne", "neg", "or_", "pos", "pow",
                          "sub", "truediv", "xor")),
}


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
                      f"{sorted(AWAITING_FIXTURE & recorded)}")


def test_no_unknown_difference(outcome):
    _, diffs = outcome
    unknown = [d for d in diffs if (d["op"], d["kind"]) not in KNOWN_DIFFERENCES]
    seen = {(d["op"], d["kind"]) for d in diffs}
    stale = sorted(k for k in KNOWN_DIFFERENCES if k not in seen and k[1] != "hang")
    if stale:
        warnings.warn(f"KNOWN_DIFFERENCES entries that no longer occur (remove them): {stale}")
    by = collections.Counter((d["op"], d["kind"]) for d in unknown)
    assert not unknown, (f"{len(unknown)} cases differ from TF 2.21 in {len(by)} (op, kind) "
                         f"pairs:\n" + "\n".join(_reproducer(d) for d in unknown))
