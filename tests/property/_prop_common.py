"""Shared pieces of the property tests: hypothesis settings, the gradient cases, drawn
perturbations of their inputs, and the domain guards that reject draws near kinks.

The cases are those of `tests/ops/gradient_samples/` (one or more per differentiable
primitive), so a new primitive is property-tested the moment its gradient sample exists.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Callable, Iterator

import numpy as np
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapeflow.autodiff.core import REGISTRY

_OPS_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ops")
sys.path.insert(0, _OPS_TESTS)
from gradient_samples import load_samples  # noqa: E402
# The same primitives, exemptions and tolerances as the fixed-point registry test; importing
# it also imports every op module, so REGISTRY is complete.
from test_gradient_registry import ATOL, CHECKED, DELTA, RTOL  # noqa: E402,F401

SAMPLES = load_samples()

# `TAPEFLOW_PROPERTY_SCALE=20` multiplies every example budget, for a deeper local search;
# CI runs the default, a fixed, database-free, reproducible run of a few examples per test.
_SCALE = max(1, int(os.environ.get("TAPEFLOW_PROPERTY_SCALE", "1")))


def budget(max_examples: int, **overrides) -> settings:
    """Settings for one property: `max_examples` per parametrized primitive, derandomized."""
    return settings(max_examples=max_examples * _SCALE, deadline=None, derandomize=True,
                    database=None, print_blob=False, **overrides)


# Drawing a factor per element of a 120-element pooling input, then rejecting near ties,
# is legitimately slower and filters more than hypothesis's defaults expect.
TOLERANT = (HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large)


# -- drawn points -------------------------------------------------------------------------------

def scaled(data: st.DataObject, x: np.ndarray, label: str) -> np.ndarray:
    """x times an elementwise factor in [0.8, 1.25]: signs, zeros and orders of magnitude
    stay, so a sample chosen away from 0 (Abs, Relu, Log, Reciprocal) stays away from it."""
    factors = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(0.8, 1.25)),
                        label=label)
    return x * factors


def _renormalized(original: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x rescaled to sum to one along the axis where the original sample does."""
    for axis in range(original.ndim):
        if np.allclose(original.sum(axis=axis), 1.0):
            return x / x.sum(axis=axis, keepdims=True)
    raise AssertionError("sample labels are not a probability distribution along any axis")


# Inputs whose perturbation must keep a structure the op's definition assumes: TF's gradient
# of the softmax cross-entropy w.r.t. the logits is softmax - labels, the true derivative only
# when each row of labels sums to one (TF 2.21 gives softmax - labels for labels summing to
# 0.875 too, and so does tapeflow).
_PROJECTIONS = {"SoftmaxCrossEntropyWithLogits": {0: _renormalized}}


def draw_case(data: st.DataObject, name: str):
    """One of the primitive's sample cases and a perturbed copy of its inputs."""
    cases = SAMPLES[name]
    case = cases[data.draw(st.integers(0, len(cases) - 1), label=f"{name} case")]
    inputs = [scaled(data, x, f"factors for input {i}") for i, x in enumerate(case.inputs)]
    for index, project in _PROJECTIONS.get(name, {}).items():
        inputs[index] = project(case.inputs[index], inputs[index])
    return case, inputs


def directions(data: st.DataObject, shapes: list, label: str, lo: float = 0.1,
               hi: float = 1.0) -> list:
    """One drawn array per shape (tangents, cotangents, output weights), its elements of
    magnitude in [lo, hi] with either sign: never a zero direction, which checks nothing."""
    elements = st.builds(lambda m, negative: -m if negative else m, st.floats(lo, hi),
                         st.booleans())
    return [data.draw(hnp.arrays(np.float64, s, elements=elements), label=f"{label} {i}")
            for i, s in enumerate(shapes)]


# -- domain guards ------------------------------------------------------------------------------
# Each guard sees one application of its primitive (NumPy inputs, attributes, result) and says
# whether the point is safely away from that primitive's kinks, ties and singularities. Central
# differences with step 1e-6 go wrong only within ~1e-6 of a kink, so the margins below are
# generous; they are narrow enough not to hide a wrong rule (each rejects a small fraction).

_MARGIN = 1e-4


def _away_from_zero(args, attrs, out) -> bool:
    return bool(np.all(np.abs(args[0]) > _MARGIN))


def _no_tie(args, attrs, out) -> bool:
    a, b = np.broadcast_arrays(args[0], args[1])
    return bool(np.all(np.abs(a - b) > _MARGIN))


def _not_integral_ratio(args, attrs, out) -> bool:
    ratio = args[0] / args[1]
    return bool(np.all(np.abs(ratio - np.round(ratio)) > _MARGIN))


def _distinct(values: np.ndarray) -> bool:
    flat = np.sort(np.ravel(values))
    return bool(np.all(np.diff(flat) > _MARGIN)) if flat.size > 1 else True


def _all_distinct(args, attrs, out) -> bool:
    """Conservative for pools and segment extrema: no two input values tie at all."""
    return _distinct(args[0])


def _unique_extremum(args, attrs, out) -> bool:
    """Max/Min reductions: in every reduced group, the best two values differ."""
    x, axis = np.asarray(args[0]), attrs.get("axis")
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    if x.size == 0 or not axes:
        return True
    groups = np.moveaxis(x, axes, tuple(range(-len(axes), 0))).reshape(
        -1, int(np.prod([x.shape[a] for a in axes])))
    ordered = np.sort(groups, axis=-1)
    return bool(groups.shape[-1] < 2 or np.all(np.abs(ordered[:, -1] - ordered[:, -2]) > _MARGIN)
                and np.all(np.abs(ordered[:, 1] - ordered[:, 0]) > _MARGIN))


def _well_conditioned(args, attrs, out) -> bool:
    return bool(np.all(np.linalg.cond(args[0]) < 1e4))


def _triangle_well_conditioned(args, attrs, out) -> bool:
    t = np.tril(args[0]) if attrs["lower"] else np.triu(args[0])
    return bool(np.all(np.linalg.cond(t) < 1e4))


def _gaps(values: np.ndarray) -> bool:
    """Distinct (eigen or singular) values in every matrix of a batch, all nonzero."""
    ordered = np.sort(values, axis=-1)
    return bool(np.all(np.abs(ordered) > 1e-3) and np.all(np.diff(ordered, axis=-1) > 1e-3))


def _svd_gaps(args, attrs, out) -> bool:
    return _gaps(out[0] if isinstance(out, tuple) else out)


def _eig_gaps(args, attrs, out) -> bool:
    e = out[0]
    ordered = np.sort(e, axis=-1)
    return bool(np.all(np.diff(ordered, axis=-1) > 1e-3))


def _full_rank_r(args, attrs, out) -> bool:
    r = out[1]
    return bool(np.all(np.abs(np.diagonal(r, axis1=-2, axis2=-1)) > 1e-3))


def _inside(lo: float, hi: float) -> Callable:
    def guard(args, attrs, out) -> bool:
        return bool(np.all((args[0] > lo) & (args[0] < hi)))
    return guard


def _tan_guard(args, attrs, out) -> bool:
    return bool(np.all(np.abs(np.cos(args[0])) > 0.1))


GUARDS = {
    # Kinks and ties: the derivative jumps.
    "Abs": _away_from_zero, "Sign": _away_from_zero, "Relu": _away_from_zero,
    "BesselI0e": _away_from_zero,  # exp(-|x|) I0(x): its slope jumps from +1 to -1 at 0
    # TF 2.21's gradient of I1 at 0 is 1 (its formula's limit is taken wrongly), not 0.5:
    # tapeflow gives TF's; finite differences give the true slope.
    "BesselI1": _away_from_zero,
    "Maximum": _no_tie, "Minimum": _no_tie, "FloorMod": _not_integral_ratio,
    # TF defines d/dx xlogy(x, y) as 0 at x = 0 (not log y), and likewise for xdivy, xlog1py.
    "Xlogy": _away_from_zero, "Xdivy": _away_from_zero, "Xlog1py": _away_from_zero,
    "Max": _unique_extremum, "Min": _unique_extremum,
    "UnsortedSegmentMax": _all_distinct, "UnsortedSegmentMin": _all_distinct,
    "MaxPool": _all_distinct, "MaxPoolGrad": _all_distinct, "MaxPoolGradGrad": _all_distinct,
    # Singularities: a factor of 1.25 takes the samples' [-0.8, 0.8] to +-1, [1.2, 3] below 1.
    "Asin": _inside(-0.95, 0.95), "Acos": _inside(-0.95, 0.95),
    "Atanh": _inside(-0.95, 0.95), "Acosh": _inside(1.05, np.inf), "Tan": _tan_guard,
    # Decompositions: the derivative has 1 / (gap between eigen/singular values).
    "Svd": _svd_gaps, "SelfAdjointEigV2": _eig_gaps, "Qr": _full_rank_r,
    "MatrixInverse": _well_conditioned, "MatrixSolve": _well_conditioned,
    "MatrixDeterminant": _well_conditioned, "LogMatrixDeterminant": _well_conditioned,
    "MatrixTriangularSolve": _triangle_well_conditioned,
}


@contextlib.contextmanager
def watching(names) -> Iterator[list]:
    """Records every application of the named primitives as (name, args, attrs, result)."""
    seen: list = []
    originals = {name: REGISTRY[name].impl for name in names}

    def wrapped(name: str, kernel: Callable) -> Callable:
        def run(*args, **attrs):
            out = kernel(*args, **attrs)
            seen.append((name, args, attrs, out))
            return out
        return run

    for name, kernel in originals.items():
        REGISTRY[name].impl = wrapped(name, kernel)
    try:
        yield seen
    finally:
        for name, kernel in originals.items():
            REGISTRY[name].impl = kernel


def in_domain(run: Callable[[], object]) -> bool:
    """Runs `run()` once and says whether every guarded primitive it applied was in domain."""
    with watching(GUARDS) as seen:
        run()
    return all(GUARDS[name](args, attrs, out) for name, args, attrs, out in seen)


def assume_in_domain(run: Callable[[], object]) -> None:
    """Rejects the draw (hypothesis `assume`) unless `run()` stays away from every kink."""
    assume(in_domain(run))


def runs_primitive(name: str, run: Callable[[], object]) -> bool:
    """Whether `run()` applies the primitive `name` (so a table entry tests what it names)."""
    with watching([name]) as seen:
        run()
    return bool(seen)
