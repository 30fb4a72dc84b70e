"""Replays the Keras 3.15 cases of tools/record_keras_ops_core_nn.py on tapeflow.keras.ops:
the fixture's decoding, the callables the control-flow cases name, and the comparison."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

import tapeflow as tf
from tapeflow.keras import ops

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "keras_ops_core_nn.npz")
_DATA = np.load(FIXTURE, allow_pickle=False)
CASES = json.loads(str(_DATA["__cases__"]))
SIGNATURES = json.loads(str(_DATA["__signatures__"]))


def fns() -> dict:
    """The recorder's FNS table, over tapeflow.keras.ops."""
    from tools.record_keras_ops_core_nn import fns as recorded_fns
    return recorded_fns(ops)


_FNS = fns()


def decode(v: Any) -> Any:
    """A recorded argument as the value Keras was called with."""
    if isinstance(v, list):
        return [decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "nd" in v:
        a = _DATA[v["nd"]]
        return tf.convert_to_tensor(a) if v.get("tensor") else a
    if "fn" in v:
        return _FNS[v["fn"]]
    if "tuple" in v:
        return tuple(decode(x) for x in v["tuple"])
    return {k: decode(x) for k, x in v["dict"].items()}


def cases_of(names: Any) -> list:
    return [c for c in CASES if c["op"] in names]


def call(case: dict) -> Any:
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    return getattr(ops, case["op"])(*decode(case["args"]), **kwargs)


# Ops Keras computes in float32 whatever the input (then casts back): compared at float32's
# tolerance.
FLOAT32_INSIDE = {"ctc_loss"}


# TF's float64 gelu rounds its constants through float32; tapeflow's is exact (a documented
# difference, tests/differential/test_against_tensorflow.py): relative error up to 4.4e-7.
FLOAT64_TF_ROUNDS = {"gelu"}


def _tolerance(dtype: np.dtype, op: str) -> dict:
    if dtype in (np.float32, np.complex64) or op in FLOAT32_INSIDE:
        return {"rtol": 1e-5, "atol": 1e-6}
    if op in FLOAT64_TF_ROUNDS:
        return {"rtol": 1e-6, "atol": 1e-12}
    return {"rtol": 1e-10, "atol": 1e-12}


def assert_matches(got: Any, want: Any, where: str = "", op: str = "") -> None:
    """`got` (tapeflow's answer) equals the recorded Keras answer: the same structure, and
    tensors with the same dtype, shape and values (floats to rounding, ints and bools
    exactly)."""
    if isinstance(want, dict) and "nd" in want:
        expected = _DATA[want["nd"]]
        if want.get("tensor"):
            assert tf.is_tensor(got), f"{where}: {type(got)} is not a tensor"
        else:
            assert isinstance(got, np.ndarray), f"{where}: {type(got)} is not an ndarray"
        actual = np.asarray(got)
        assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(actual, expected, err_msg=where,
                                       **_tolerance(expected.dtype, op))
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=where)
    elif isinstance(want, dict) and "tuple" in want:
        assert isinstance(got, tuple), f"{where}: {type(got)} is not a tuple"
        assert len(got) == len(want["tuple"]), where
        for i, (g, w) in enumerate(zip(got, want["tuple"])):
            assert_matches(g, w, f"{where}[{i}]", op)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, f"{where}[{i}]", op)
    else:
        assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"


def check_case(case: dict) -> None:
    """Runs one recorded case on tapeflow: Keras's answer, or Keras's error class and the
    words its message holds."""
    if "error" in case:
        cls, words = case["error"]
        try:
            got = call(case)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            assert type(e).__name__ == cls, f"{case['id']}: {type(e).__name__}: {e} (Keras: {cls})"
            assert words in str(e), f"{case['id']}: {e!r} lacks {words!r}"
            return
        raise AssertionError(f"{case['id']}: returned {got!r}; Keras raised {cls}")
    assert_matches(call(case), case["result"], case["id"], case["op"])


# ---------------------------------------------------------------- gradients


def _loss_parts(out: Any, weights: list) -> Any:
    """sum(out_k * w_k) over the float (and complex, real and imaginary) outputs."""
    total = tf.constant(0.0, tf.float64)
    floats = [o for o in tf.nest.flatten(out) if o.dtype.is_floating or o.dtype.is_complex]
    for o, (w_re, w_im) in zip(floats, weights):
        if o.dtype.is_complex:
            total += tf.reduce_sum(tf.cast(tf.math.real(o), tf.float64) * w_re)
            total += tf.reduce_sum(tf.cast(tf.math.imag(o), tf.float64) * w_im)
        else:
            total += tf.reduce_sum(tf.cast(o, tf.float64) * w_re)
    return total


def _weights(out: Any) -> list:
    rng = np.random.default_rng(7)
    floats = [o for o in tf.nest.flatten(out) if o.dtype.is_floating or o.dtype.is_complex]
    return [(rng.uniform(-1, 1, o.shape), rng.uniform(-1, 1, o.shape)) for o in floats]


def check_gradient(f: Any, *arrays: np.ndarray, eps: float = 1e-6, rtol: float = 1e-5,
                   atol: float = 1e-7) -> None:
    """GradientTape's gradient of a weighted sum of f(*arrays) equals central finite
    differences (float64), for every argument."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    weights = _weights(f(*[tf.constant(a) for a in arrays]))

    def loss(values: list) -> float:
        return float(_loss_parts(f(*[tf.constant(v) for v in values]), weights))

    tensors = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        value = _loss_parts(f(*tensors), weights)
    grads = tape.gradient(value, tensors)
    for i, (a, g) in enumerate(zip(arrays, grads)):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up, down = [v.copy() for v in arrays], [v.copy() for v in arrays]
            up[i][idx] += eps
            down[i][idx] -= eps
            numeric[idx] = (loss(up) - loss(down)) / (2 * eps)
        got = np.zeros_like(a) if g is None else np.asarray(tf.convert_to_tensor(g))
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of argument {i}")


# ---------------------------------------------------------------- tracing


def check_traced(case: dict, unknown_batch: bool = False) -> None:
    """The case's op traced in tf.function, its array arguments graph inputs, gives the eager
    answer; with `unknown_batch`, traced for any length of the first array's first axis."""
    args, kwargs = decode(case["args"]), {k: decode(v) for k, v in case["kwargs"].items()}
    flat = tf.nest.flatten((args, kwargs))
    where = [i for i, v in enumerate(flat) if isinstance(v, np.ndarray) or tf.is_tensor(v)]
    op = getattr(ops, case["op"])

    def run(*tensors: Any) -> Any:
        values = list(flat)
        for i, t in zip(where, tensors):
            values[i] = t
        a, kw = tf.nest.pack_sequence_as((args, kwargs), values)
        return op(*a, **kw)

    inputs = [tf.convert_to_tensor(flat[i]) for i in where]
    specs = [tf.TensorSpec(t.shape, t.dtype) for t in inputs]
    if unknown_batch:
        specs[0] = tf.TensorSpec([None, *inputs[0].shape[1:]], inputs[0].dtype)
    eager = run(*inputs)
    traced = tf.function(run, input_signature=specs)(*inputs)
    assert tf.nest.map_structure(lambda t: t.dtype, traced) == \
        tf.nest.map_structure(lambda t: t.dtype, eager), case["id"]
    for t, e in zip(tf.nest.flatten(traced), tf.nest.flatten(eager)):
        np.testing.assert_allclose(np.asarray(t), np.asarray(e), rtol=1e-6, atol=1e-7,
                                   err_msg=case["id"])


def first_cases(names: Any, skip: Any = ()) -> list:
    """Each op's first recorded case that returns (the tracing sample)."""
    seen, sample = set(), []
    for c in CASES:
        if c["op"] in names and c["op"] not in skip and "error" not in c \
                and c["op"] not in seen:
            seen.add(c["op"])
            sample.append(c)
    return sample


def check_traced_gradient(f: Any, *arrays: np.ndarray) -> None:
    """The gradient of the weighted sum of f(*arrays), taken inside tf.function, equals the
    eager one."""
    tensors = [tf.constant(np.array(a, dtype=np.float64)) for a in arrays]
    weights = _weights(f(*tensors))

    def gradient(*xs: Any) -> list:
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            value = _loss_parts(f(*xs), weights)
        return [tf.zeros_like(x) if g is None else tf.convert_to_tensor(g)
                for x, g in zip(xs, tape.gradient(value, list(xs)))]

    for got, want in zip(tf.function(gradient)(*tensors), gradient(*tensors)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-12)
