"""Fused optimizer updates inside compiled `tf.function` programs (graph/compiler.py,
ops/optimizer_ops.variable_update): large variables are updated in their own arrays (and the
dying gradient's buffer serves as a temporary), bitwise as the op-by-op path; a value someone
else holds is never overwritten; a trace keeps no second copy of the optimizer's state."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff import core
from tapeflow.keras import optimizers
from tapeflow.ops.optimizer_ops import APPLY_ADAM, APPLY_SGD

CONFIGS = {
    "adam": lambda: optimizers.Adam(0.01),
    "adam_amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda: optimizers.AdamW(0.01, weight_decay=0.05),
    "sgd": lambda: optimizers.SGD(0.1),
    "sgd_momentum": lambda: optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "rmsprop_centered_momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: optimizers.Adagrad(0.1),
}
SHAPE = (160, 128)   # above the compiler's in-place threshold (16384 elements)


def _setup(make, fused, dtype="float32"):
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=SHAPE).astype(dtype) * 0.1)
    b = tf.Variable(rng.normal(size=SHAPE[1:]).astype(dtype))
    x = tf.constant(rng.normal(size=(8, SHAPE[0])).astype(dtype))
    opt = make()
    opt._fused_updates = fused

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.tanh(x @ w + b)))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss
    return step, w, b, opt


def _state(w, b, opt):
    return [w.numpy(), b.numpy()] + [v.numpy() for v in opt.variables]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_compiled_update_is_bitwise_the_op_by_op_step(name, dtype):
    results = []
    for fused in (False, True):
        step, w, b, opt = _setup(CONFIGS[name], fused, dtype)
        for _ in range(4):
            step()
        results.append(_state(w, b, opt))
    for want, got in zip(*results):
        assert want.dtype == got.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_large_variables_are_updated_in_their_own_arrays(name):
    step, w, b, opt = _setup(CONFIGS[name], True)
    step()   # the trace (and the slots' creation)
    # AdamW's decay (op by op, before the update) assigns the variable a new array first.
    big = [w] * (name != "adamw") + [v for v in opt.variables if v.shape == SHAPE]
    before = [id(v._value) for v in big]
    step()
    assert [id(v._value) for v in big] == before


def test_a_value_read_before_the_call_keeps_its_value():
    step, w, b, opt = _setup(CONFIGS["adam"], True)
    step()
    held = w.value()            # a tensor sharing the variable's array
    kept = held.numpy().copy()
    step()
    np.testing.assert_array_equal(held.numpy(), kept)
    assert not np.array_equal(w.numpy(), kept)


def test_a_read_between_update_and_assignment_sees_the_old_value():
    # Recorded by hand: the update's result is assigned only after another read of the
    # variable, which must still see the value before the update.
    rng = np.random.default_rng(1)
    v = tf.Variable(rng.normal(size=SHAPE).astype("float32"))
    g = tf.constant(rng.normal(size=SHAPE).astype("float32"))
    lr, mu = (tf.constant(np.float32(c)) for c in (0.5, 0.0))

    @tf.function
    def f():
        (new,) = core.bind(APPLY_SGD, [v.value(), g, lr, mu], {})
        old = v.value() + 0.0
        v.assign(new)
        return old
    start = v.numpy().copy()
    np.testing.assert_array_equal(f().numpy(), start)
    np.testing.assert_array_equal(v.numpy(), start - g.numpy() * np.float32(0.5))


def test_the_trace_keeps_no_copy_of_the_updated_state(monkeypatch):
    calls = []
    kernel = APPLY_ADAM.impl
    monkeypatch.setattr(APPLY_ADAM, "impl", lambda *a, **k: calls.append(1) or kernel(*a, **k))
    step, w, b, opt = _setup(CONFIGS["adam"], True)
    concrete = step.get_concrete_function()
    graph = concrete.graph
    updates = [n for n in graph.nodes if n.op is APPLY_ADAM]
    assert len(updates) == 2
    # The trace ran no update (its results would be a second copy of the state, held to the
    # end of the trace); their shapes are known all the same, and no new value is kept.
    assert not calls
    assert all(graph.values[v].shape.is_fully_defined() for n in updates for v in n.outputs)
    assert not graph._var_examples


def test_a_function_returning_the_updated_variable():
    # The update's outputs are abstract while tracing: what reads the variable after it
    # gets its new value when the program runs.
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=SHAPE).astype("float32") * 0.1)
    x = tf.constant(rng.normal(size=(8, SHAPE[0])).astype("float32"))
    opt = optimizers.Adam(0.01)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(x @ w))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return w.read_value() * 1.0, tf.reduce_sum(w)
    start = w.numpy().copy()
    new, total = step()
    np.testing.assert_array_equal(new.numpy(), w.numpy())
    assert not np.array_equal(w.numpy(), start)
    np.testing.assert_allclose(total.numpy(), w.numpy().sum(), rtol=1e-5)


def _small_setup(fused):
    rng = np.random.default_rng(2)
    w = tf.Variable(rng.normal(size=(5, 4)).astype("float32"))
    b = tf.Variable(rng.normal(size=(4,)).astype("float32"))
    x = tf.constant(rng.normal(size=(8, 5)).astype("float32"))
    opt = optimizers.Adam(0.01)
    opt._fused_updates = fused

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.tanh(x @ w + b)))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
    return step, w, b, opt


def test_small_updates_run_as_one_group_in_place():
    step, w, b, opt = _small_setup(True)
    step()
    step()    # the first run after the trace moves the state into the group's buffers
    state = [w, b] + list(opt.variables[1:])
    before = [id(v._value) for v in state]
    step()
    assert [id(v._value) for v in state] == before


def _run_small(fused, between):
    step, w, b, opt = _small_setup(fused)
    for i in range(5):
        step()
        between(i, w, b)
    return _state(w, b, opt)


@pytest.mark.parametrize("case", ["held_value", "held_slice", "assigned"])
def test_grouped_updates_leave_what_others_hold_and_see_assignments(case):
    held = []

    def between(i, w, b):
        if case == "held_value" and i == 1:
            held.append((w.value(), w.numpy().copy()))
        elif case == "held_slice" and i == 1:
            held.append((w.value()._value[1:3], w.numpy()[1:3].copy()))
        elif case == "assigned" and i == 2:
            b.assign(np.full((4,), 0.25, np.float32))
    want = _run_small(False, between)
    kept, held = held, []
    got = _run_small(True, between)
    for a, e in zip(got, want):
        np.testing.assert_array_equal(a, e)
    for value, copy in kept + held:
        np.testing.assert_array_equal(np.asarray(value), copy)


def test_grouped_updates_with_other_threads_alive_write_fresh_arrays():
    import threading
    step, w, b, opt = _small_setup(True)
    step()
    step()
    want_step, ww, wb, wopt = _small_setup(False)
    want_step()
    want_step()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        held = w.value()
        kept = held.numpy().copy()
        before = id(w._value)
        step()
        want_step()
        assert id(w._value) != before
        np.testing.assert_array_equal(held.numpy(), kept)
    finally:
        stop.set()
        other.join()
    for a, e in zip(_state(w, b, opt), _state(ww, wb, wopt)):
        np.testing.assert_array_equal(a, e)
