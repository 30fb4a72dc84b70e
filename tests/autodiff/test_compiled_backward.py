"""Compiled backward passes (tapeflow/function/backward.py) give the walk's numbers.

The second time a record with the same structure is differentiated, its backward pass runs as
a compiled program. For every gradient sample of every differentiable primitive, the
compiled pass at new values (same shapes) must give what the walk gives there: a value baked
into the program at trace time would show as a wrong number here. Every sample must compile
(but those in MAY_WALK), so that the comparison is not of the walk with itself.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff import backprop
from tapeflow.graph import backward

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops"))
from gradient_samples import load_samples  # noqa: E402

SAMPLES = load_samples()
MAY_WALK = {"GatherV2": "the gradient of its params is sparse (IndexedSlices)"}


@pytest.fixture
def fresh_cache(monkeypatch):
    monkeypatch.setattr(backward, "_programs", {})
    monkeypatch.setattr(backward, "_seen", {})
    return backward


def _walk_only(monkeypatch):
    return monkeypatch.setitem(backprop.hooks, "compiled_backprop", None)


def _gradients(f, arrays):
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return [None if g is None else tf.convert_to_tensor(g).numpy()
            for g in tape.gradient(y, xs)]


def _assert_same(got, expected, what):
    assert [g is None for g in got] == [e is None for e in expected], what
    for g, e in zip(got, expected):
        if g is not None:
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=0, err_msg=what)


def _cases():
    for name, cases in sorted(SAMPLES.items()):
        for index, case in enumerate(cases):
            yield pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")


@pytest.mark.parametrize("case", list(_cases()))
def test_compiled_pass_matches_the_walk_at_new_values(case, fresh_cache, monkeypatch):
    first = [np.array(x) for x in case.inputs]
    second = [x * 1.01 for x in first]  # same shapes, other values (away from kinks)
    with monkeypatch.context() as walk_only:
        _walk_only(walk_only)
        expected_first = _gradients(case.f, first)
        try:
            expected_second = _gradients(case.f, second)
        except Exception:  # noqa: BLE001 - outside the op's domain: check at `first` only
            second, expected_second = first, expected_first
    _gradients(case.f, first)       # first sighting: walked
    got_first = _gradients(case.f, first)   # compiled now (where compilable)
    got_second = _gradients(case.f, second)
    _assert_same(got_first, expected_first, f"{case.primitive}: compiled, same values")
    _assert_same(got_second, expected_second, f"{case.primitive}: compiled, new values")
    if case.primitive not in MAY_WALK:
        assert any(e is not backward._WALK for e in fresh_cache._programs.values()), \
            f"{case.primitive}: the backward pass did not compile"


def _mlp_step(variables, x, y):
    w1, b1, w2, b2 = variables
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) + b2 - y))
    return tape.gradient(loss, variables)


def _mlp(seed=0):
    rng = np.random.default_rng(seed)
    variables = [tf.Variable(rng.standard_normal((3, 8)).astype(np.float32)),
                 tf.Variable(np.zeros(8, np.float32)),
                 tf.Variable(rng.standard_normal((8, 1)).astype(np.float32)),
                 tf.Variable(np.zeros(1, np.float32))]
    return variables, rng


def test_a_training_loop_runs_compiled_with_the_walks_numbers(fresh_cache, monkeypatch):
    variables, rng = _mlp()
    batches = [(rng.standard_normal((n, 3)).astype(np.float32),
                rng.standard_normal((n, 1)).astype(np.float32)) for n in (16, 16, 16, 5, 16)]
    for x, y in batches:  # a batch of another size is another structure, never a wrong one
        got = _mlp_step(variables, tf.constant(x), tf.constant(y))
        with monkeypatch.context() as walk_only:
            _walk_only(walk_only)
            expected = _mlp_step(variables, tf.constant(x), tf.constant(y))
        _assert_same([g.numpy() for g in got], [e.numpy() for e in expected], "MLP step")
        for v, g in zip(variables, got):
            v.assign_sub(0.1 * g)
    compiled = [entry for entry in fresh_cache._programs.values() if entry is not backward._WALK]
    assert len(compiled) == 1  # batch 16 compiled; batch 5 was seen once only


def test_custom_gradient_functions_run_on_every_pass(fresh_cache):
    calls = []

    @tf.custom_gradient
    def scaled(x):
        def grad(g):
            calls.append(1)
            return g * 3.0
        return x * 2.0, grad

    x = tf.constant([1.0, 2.0])
    for _ in range(3):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        assert tape.gradient(y, x).numpy().tolist() == [3.0, 3.0]
    assert len(calls) == 3


def test_sparse_gradients_stay_sparse(fresh_cache):
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(table, [0, 2]))
        grad = tape.gradient(loss, table)
        assert isinstance(grad, tf.IndexedSlices)
        assert grad.indices.numpy().tolist() == [0, 2]


def test_higher_order_passes_are_recorded_not_compiled(fresh_cache):
    x = tf.constant(1.5)
    for _ in range(3):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        assert dy.numpy() == pytest.approx(3 * 1.5 ** 2)
        assert outer.gradient(dy, x).numpy() == pytest.approx(6 * 1.5)


def test_the_cache_is_bounded(fresh_cache):
    for n in range(backward.CACHE_SIZE + 10):
        x = tf.constant(np.ones(n + 1))
        for _ in range(2):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(x * x)
            assert tape.gradient(y, x).numpy().tolist() == [2.0] * (n + 1)
    assert len(fresh_cache._programs) <= backward.CACHE_SIZE
    assert len(fresh_cache._seen) <= backward.CACHE_SIZE


def test_a_gradient_folded_to_a_constant_cannot_be_overwritten(fresh_cache):
    x = tf.constant([1.0, 2.0])
    grads = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x + 1.0  # the gradient is the seed itself: a constant of the program
        grads.append(tape.gradient(y, x))
    with pytest.raises(ValueError):  # shared between passes: read-only
        np.asarray(grads[-1])[0] = 100.0
    assert [g.numpy().tolist() for g in grads] == [[1.0, 1.0]] * 3


def test_programs_holding_large_constants_are_not_kept(fresh_cache, monkeypatch):
    monkeypatch.setattr(backward, "CONSTANTS_LIMIT", 100)  # bytes
    x = tf.constant(np.ones(1000))
    for _ in range(3):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x)  # its gradient folds to a constant of 8000 bytes
        assert tape.gradient(y, x).numpy().sum() == 1000
    assert all(entry is backward._WALK for entry in fresh_cache._programs.values())


def test_a_rule_that_cannot_be_traced_runs_in_the_walk(fresh_cache):
    from tapeflow.autodiff.core import Primitive, bind

    def needs_values(g, ans, x):  # reads values in Python: fine eagerly, not in a trace
        return g * float(np.asarray(x).sum())

    prim = Primitive("TestValueReadingRule", lambda x: x * 2.0).defvjp(needs_values)
    try:
        for value in (1.0, 2.0, 3.0):
            x = tf.constant([value, value])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = bind(prim, (x,))
            assert tape.gradient(y, x).numpy().tolist() == [2 * value] * 2
    finally:
        from tapeflow.autodiff.core import REGISTRY
        REGISTRY.pop("TestValueReadingRule", None)
