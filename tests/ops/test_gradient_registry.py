"""Every differentiable primitive against finite differences, first and second order.

Cases come from `tests/ops/gradient_samples/*.py` (see that package's docstring). The test is
parametrized by primitive name, so a failure names the op; a differentiable primitive with no
case fails `test_primitive_has_cases`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.autodiff
import tapeflow.ops
from tapeflow.autodiff.core import REGISTRY
from tapeflow.test import compute_gradient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_samples import load_samples  # noqa: E402

# Primitives checked elsewhere, with the reason.
EXEMPT = {
    "ReadVariableOp": "an identity on a variable's value; tests/autodiff/test_tape*.py check "
                      "gradients through variable reads",
    "RandomGamma": "TF's implicit-reparameterization gradient (RandomGammaGrad), not the "
                   "derivative of the sampler's map at a fixed seed; "
                   "tests/ops/test_random_distributions.py checks it against TF 2.21",
    "StatelessRandomGammaV3": "as RandomGamma",
}

# Central differences with this step are accurate to ~1e-9 in float64 for smooth functions.
DELTA = 1e-6
RTOL = 1e-5
ATOL = 1e-6


def _import_all_ops() -> dict:
    """Imports every module that may define primitives, so REGISTRY is complete.

    Returns the modules that failed to import (name -> error): one broken family fails
    `test_every_op_module_imports` instead of hiding every other family's checks.
    """
    failures = {}
    for package in (tapeflow.ops, tapeflow.autodiff):
        for info in pkgutil.iter_modules(package.__path__):
            name = f"{package.__name__}.{info.name}"
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - reported by a test below
                failures[name] = f"{type(exc).__name__}: {exc}"
    return failures


IMPORT_FAILURES = _import_all_ops()
SAMPLES = load_samples()
DIFFERENTIABLE = sorted(name for name, prim in REGISTRY.items()
                        if prim.differentiable and prim.vjp is not None)
CHECKED = [name for name in DIFFERENTIABLE if name not in EXEMPT]


def _ids(case) -> str:
    return f"{case.primitive}[{case.origin}]"


def test_every_op_module_imports():
    assert not IMPORT_FAILURES, f"op modules that fail to import: {IMPORT_FAILURES}"


def test_every_differentiable_primitive_has_a_case():
    missing = [name for name in CHECKED if name not in SAMPLES]
    assert not missing, (f"differentiable primitives without a gradient sample in "
                         f"tests/ops/gradient_samples/: {', '.join(missing)}")


def test_every_sample_names_a_registered_differentiable_primitive():
    unknown = sorted(name for name in SAMPLES if name not in REGISTRY)
    assert not unknown, f"samples for primitives that are not registered: {unknown}"
    not_differentiable = sorted(name for name in SAMPLES if name in REGISTRY
                                and name not in DIFFERENTIABLE)
    assert not not_differentiable, (f"samples for non-differentiable primitives: "
                                    f"{not_differentiable}")


@pytest.mark.parametrize("name", CHECKED)
def test_primitive_has_cases(name):
    assert SAMPLES.get(name), f"{name} has no case in tests/ops/gradient_samples/"


def _all_cases():
    for name in CHECKED:
        for index, case in enumerate(SAMPLES.get(name, [])):
            yield pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")


def _uses_primitive(case, monkeypatch) -> bool:
    """Runs the case once with the primitive's kernel instrumented to see that it is called."""
    prim = REGISTRY[case.primitive]
    calls = []
    kernel = prim.impl

    def counting(*args, **kwargs):
        calls.append(1)
        return kernel(*args, **kwargs)

    monkeypatch.setattr(prim, "impl", counting)
    with tf.GradientTape() as tape:  # some ops dispatch differently under a tape
        args = [tf.constant(x) for x in case.inputs]
        for a in args:
            tape.watch(a)
        case.f(*args)
    monkeypatch.setattr(prim, "impl", kernel)
    return bool(calls)


def _assert_jacobians_close(theoretical, numerical, case, order: str) -> None:
    rtol = case.options.get("rtol", RTOL)
    atol = case.options.get("atol", ATOL)
    for index, (t, n) in enumerate(zip(theoretical, numerical)):
        np.testing.assert_allclose(
            t, n, rtol=rtol, atol=atol,
            err_msg=f"{order} gradient of {case.primitive} w.r.t. input {index} "
                    f"({case.origin}): tape vs finite differences")


@pytest.mark.parametrize("case", list(_all_cases()))
def test_first_order(case, monkeypatch):
    assert _uses_primitive(case, monkeypatch), (
        f"the case in {case.origin} never runs {case.primitive}")
    for x in case.inputs:
        assert x.dtype == np.float64
    theoretical, numerical = compute_gradient(case.f, list(case.inputs), delta=DELTA)
    _assert_jacobians_close(theoretical, numerical, case, "first-order")


def _first_order_gradient(case, param: int, weights: np.ndarray):
    """x -> d/dx[param] sum(weights * f(x)), taken with its own (inner) tape."""
    def gradient(*args):
        with tf.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            y = case.f(*args)
        g = tape.gradient(y, args[param], output_gradients=tf.constant(weights))
        return tf.zeros_like(args[param]) if g is None else g
    return gradient


@pytest.mark.parametrize("case", list(_all_cases()))
def test_second_order(case):
    if not case.options.get("second_order", True):
        pytest.skip(f"{case.primitive}: second order not defined for this case")
    y = np.asarray(case.f(*[tf.constant(x) for x in case.inputs]))
    # Fixed, uneven output weights so that terms cannot cancel by symmetry.
    weights = np.random.default_rng(0).uniform(0.5, 1.5, size=y.shape)
    for param in range(len(case.inputs)):
        g = _first_order_gradient(case, param, weights)
        theoretical, numerical = compute_gradient(g, list(case.inputs), delta=DELTA)
        _assert_jacobians_close(theoretical, numerical, case,
                                f"second-order (through d/dinput{param})")
