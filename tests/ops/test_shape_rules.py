"""Every primitive's shape-and-dtype rule (see `tapeflow.framework.abstract`).

A rule is what tracing trusts for the static shapes of traced values, so it must agree with
the kernel: for every kernel call that the gradient samples make (of the sample's primitive
and of every other primitive the sample runs on the way), the rule applied to the inputs'
shapes and dtypes gives the output's exact shape and dtype; with every input dim unknown it
still runs and gives something compatible. Then each sample, traced by `tf.function` with all
its dims unknown, runs for its inputs and matches eager execution, value and gradient.
"""

from __future__ import annotations

import contextlib
import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray, aval_of
from tapeflow.autodiff.core import REGISTRY

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_samples import load_samples  # noqa: E402
from test_gradient_registry import IMPORT_FAILURES  # noqa: E402, F401 - imports every op module

SAMPLES = load_samples()
CASES = [pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")
         for name, cases in sorted(SAMPLES.items()) for index, case in enumerate(cases)]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_primitive_has_a_shape_rule(name):
    assert REGISTRY[name].shape_rule is not None, (
        f"primitive {name} declares no shape rule (Primitive(..., shape_rule=...))")


@contextlib.contextmanager
def kernel_calls(*prims):
    """Records (primitive, input arrays, attrs, output) for every kernel that runs (of
    `prims`, or of every registered primitive)."""
    calls = []
    saved = {}
    for prim in prims or REGISTRY.values():
        if prim.impl is None:
            continue
        saved[prim] = kernel = prim.impl

        def recording(*args, _prim=prim, _kernel=kernel, **attrs):
            out = _kernel(*args, **attrs)
            calls.append((_prim, args, attrs, out))
            return out
        prim.impl = recording
    try:
        yield calls
    finally:
        for prim, kernel in saved.items():
            prim.impl = kernel


def _outputs(prim, out) -> list:
    return [aval_of(o) for o in out] if prim.multiple_results else [aval_of(out)]


def _rule_outputs(prim, avals, attrs) -> list:
    got = prim.shape_rule(*avals, **attrs)
    return list(got) if prim.multiple_results else [got]


def _compatible(rule: ShapedArray, actual: ShapedArray) -> bool:
    if rule.dtype != actual.dtype:
        return False
    if rule.shape is None:
        return True
    return len(rule.shape) == len(actual.shape) and all(
        d is None or d == n for d, n in zip(rule.shape, actual.shape))


def _run_recorded(case) -> list:
    with kernel_calls() as calls:
        with tf.GradientTape(persistent=True) as tape:
            args = [tf.constant(x) for x in case.inputs]
            for a in args:
                tape.watch(a)
            y = case.f(*args)
        tape.gradient(y, args)
    return calls


# Primitives whose output sizes depend on input VALUES (a mask's count, a run-time slice
# bound, a tensor `k`): on known shapes their rule gives None for those dims, which must fit.
VALUE_DEPENDENT = {"Where", "UniqueWithCounts", "DynamicStridedSlice", "Range",
                   "While", "StatelessWhile",   # a loop's history has its trip count
                   "EagerPyFunc",   # a py_function's outputs are unknown until it runs, as TF
                   "TensorListGetItemPadded"}   # an entry's shape is read from a tensor


@pytest.mark.parametrize("case", CASES)
def test_rules_agree_with_kernels(case):
    calls = _run_recorded(case)
    assert calls
    for prim, args, attrs, out in calls:
        if prim.shape_rule is None:
            continue  # reported by test_every_primitive_has_a_shape_rule
        avals = [aval_of(a) for a in args]
        expected = _outputs(prim, out)
        got = _rule_outputs(prim, avals, attrs)
        if prim.name in VALUE_DEPENDENT:
            assert all(_compatible(r, e) for r, e in zip(got, expected)), (
                f"{prim.name}: the rule on {avals} {attrs} gives {got}, which does not fit "
                f"the kernel's {expected}")
            continue
        assert got == expected, (
            f"{prim.name}: the rule on {avals} {attrs} disagrees with the kernel's {expected}")
        unknown = [ShapedArray((None,) * a.ndim, a.dtype) for a in avals]
        relaxed = _rule_outputs(prim, unknown, attrs)
        assert all(_compatible(r, e) for r, e in zip(relaxed, expected)), (
            f"{prim.name}: with unknown dims the rule gives {relaxed}, which does not fit the "
            f"kernel's {expected}")


def _eager_value_and_grads(case):
    args = [tf.constant(x) for x in case.inputs]
    with tf.GradientTape() as tape:
        for a in args:
            tape.watch(a)
        y = case.f(*args)
    return y.numpy(), [None if g is None else tf.convert_to_tensor(g).numpy()
                       for g in tape.gradient(y, args)]


@pytest.mark.parametrize("case", CASES)
def test_sample_traced_with_unknown_dims(case):
    # Traced once from the signature alone (no example values), then run on the sample: the
    # Python function must run once, and the graph must hold for the sample's sizes.
    runs = []

    def value_and_grads(*args):
        runs.append(1)
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = case.f(*args)
        return y, tape.gradient(y, list(args))

    signature = [tf.TensorSpec([None] * np.ndim(x), tf.float64) for x in case.inputs]
    traced = tf.function(value_and_grads, input_signature=signature)
    traced.get_concrete_function()
    y, grads = traced(*[tf.constant(x) for x in case.inputs])
    want_y, want_grads = _eager_value_and_grads(case)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, want_grads):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(tf.convert_to_tensor(got).numpy(), want,
                                       rtol=1e-12, atol=1e-12)
    assert len(runs) == 1, "the function was traced again for the sample's shapes"
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("case", CASES)
def test_sample_traced_with_unknown_rank_is_right_or_refused(case):
    # Unknown rank does not reach every op yet (wrappers that normalize axes need the rank):
    # such a trace must refuse with an error, never give other numbers than eager.
    def value_and_grads(*args):
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = case.f(*args)
        return y, tape.gradient(y, list(args))

    signature = [tf.TensorSpec(None, tf.float64) for _ in case.inputs]
    args = [tf.constant(x) for x in case.inputs]
    try:
        y, grads = tf.function(value_and_grads, input_signature=signature)(*args)
    except (TypeError, ValueError, NotImplementedError, tf.errors.OpError):
        return
    want_y, want_grads = _eager_value_and_grads(case)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, want_grads):
        if want is not None:
            np.testing.assert_allclose(tf.convert_to_tensor(got).numpy(), want,
                                       rtol=1e-12, atol=1e-12)
