"""More ragged ops whose row partitions are graph values trace once, as TF 2.21's: slicing
rows and items with scalar tensor bounds, to_tensor(shape=...), stack_dynamic_partitions,
boolean_mask with ragged (or rank > 2) masks, merge_dims / to_sparse / from_tensor where inner
dense dims are unknown while tracing, `==` of two DynamicRaggedShapes, and the ragged
dispatch of expand_dims, ones_like, zeros_like and broadcast_to. Each recorded program
(tools/record_ragged_traced_ops_more.py) prints the traced outputs' static shapes, the values
of calls with different partitions, TF's error classes, the tracing count and gradients to
the flat values; tapeflow must print the same."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "ragged_traced_ops_more.json").read_text())
CASES = FIXTURE["cases"]
SPEC = tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64)
SPEC2 = tf.RaggedTensorSpec([None, None, None], tf.float32, 2, tf.int64)
INT = tf.TensorSpec([], tf.int32)

# Cases that do not print what TF prints yet, with the reason (strict xfails).
PENDING: dict = {}


def _printed(program: str) -> str:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(program, {"tf": tf, "np": np})  # noqa: S102 - the recorded programs
        return out.getvalue()
    except Exception as exc:  # noqa: BLE001 - compared with TF's recorded error class
        return out.getvalue() + f"ERROR {type(exc).__name__}\n"


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=PENDING[name]))
    if name in PENDING else name for name in sorted(CASES)])
def test_prints_what_tensorflow_prints(name):
    printed = _printed(CASES[name]["program"])
    assert printed == CASES[name]["printed"]
    # every traced function served both partitions with one trace, as TF's ("eager" has none)
    counts = [line.split()[-1] for line in printed.splitlines() if "traces" in line]
    assert set(counts) == ({"1"} if name != "eager" else set())


def _value(out):
    if isinstance(out, tf.RaggedTensor):
        return out.to_list()
    if isinstance(out, tf.SparseTensor):
        return [_value(out.indices), _value(out.values), _value(out.dense_shape)]
    if isinstance(out, (tuple, list)):
        return [_value(x) for x in out]
    return out.numpy().tolist()


def _random_ragged(rng, ragged_rank: int, inner: tuple = ()):
    """A random RaggedTensor (empty rows, and empty tensors, among them)."""
    lengths = [rng.integers(0, 4, rng.integers(0, 5))]
    for _ in range(ragged_rank - 1):
        lengths.append(rng.integers(0, 4, int(lengths[-1].sum())))
    values = tf.constant(rng.random((int(lengths[-1].sum()),) + inner), tf.float32)
    return tf.RaggedTensor.from_nested_row_lengths(values, lengths)


def _sweep(op, spec, extra, seed: int, ragged_rank: int = 1, inner: tuple = ()):
    """`op` traced once (signature `spec` + the specs of `extra(rng, rt)`'s tensors) against
    the eager op over random partitions."""
    traced = None
    rng = np.random.default_rng(seed)
    for _ in range(40):
        rt = _random_ragged(rng, ragged_rank, inner)
        args = extra(rng, rt)
        if traced is None:
            signature = [spec] + [tf.TensorSpec([None] * a.shape.rank, a.dtype) for a in args]
            traced = tf.function(op, input_signature=signature)
        assert repr(_value(traced(rt, *args))) == repr(_value(op(rt, *args)))
    assert traced.experimental_get_tracing_count() == 1


def _bounds(rng, rt):
    n = int(rt.nrows())
    return [tf.constant(int(b), tf.int32) for b in rng.integers(-n - 1, n + 2, 2)]


@pytest.mark.parametrize("op", [
    lambda rt, a, b: rt[a:b],
    lambda rt, a, b: rt[b:a:-1],
    lambda rt, a, b: rt[:, a:b],
    lambda rt, a, b: rt[:, a::2],
    lambda rt, a, b: (rt[:, b::-1], rt[a:][:, :b]),
])
def test_tensor_bounds_match_eager(op):
    _sweep(op, SPEC, _bounds, 3)


def test_nested_tensor_bounds_match_eager():
    _sweep(lambda rt, a, b: (rt[a:b], rt[:, a:], rt[:, :, b:]), SPEC2, _bounds, 5, 2)


def test_row_and_item_bounds_match_eager():
    def pick(rng, rt):
        n = int(rt.nrows())
        i = int(rng.integers(0, n)) if n else 0
        return [tf.constant(i, tf.int32), tf.constant(int(rng.integers(-3, 4)), tf.int32)]

    traced = tf.function(lambda rt, i, a: rt[i, a:], input_signature=[SPEC2, INT, INT])
    rng = np.random.default_rng(9)
    for _ in range(40):
        rt = _random_ragged(rng, 2)
        if int(rt.nrows()) == 0:
            continue
        i, a = pick(rng, rt)
        assert repr(_value(traced(rt, i, a))) == repr(_value(rt[i, a:]))
    assert traced.experimental_get_tracing_count() == 1


def test_stack_dynamic_partitions_matches_eager():
    def parts(rng, rt):
        return [tf.constant(rng.integers(0, 3, int(rt.nrows())), tf.int32)]

    _sweep(lambda rt, p: tf.ragged.stack_dynamic_partitions(rt, p, 3), SPEC2, parts, 13, 2)


def test_ops_of_random_partitions_match_eager():
    def ops(rt):
        return (tf.ragged.boolean_mask(rt, rt > 0.5), rt.to_tensor(shape=[4, None, 3]),
                tf.expand_dims(rt, 1), tf.expand_dims(rt, -1),
                tf.broadcast_to(tf.constant(2.0), tf.shape(rt)))

    _sweep(ops, SPEC2, lambda rng, rt: [], 21, 2)


def test_unknown_inner_dims_match_eager():
    spec = tf.RaggedTensorSpec([None, None, None], tf.float32, 1, tf.int64)
    _sweep(lambda rt: (rt.merge_dims(1, 2), rt.to_sparse(), rt.to_tensor(),
                       tf.RaggedTensor.from_tensor(rt.to_tensor(), lengths=rt.row_lengths())),
           spec, lambda rng, rt: [], 17, 1, (2,))


def _gradients(op, signature, rt, *args):
    """The gradients of a loss to `rt`'s flat values through `op` traced, then eagerly."""
    grads = []
    for f in (tf.function(op, input_signature=signature), op):
        with tf.GradientTape() as tape:
            tape.watch(rt.flat_values)
            out = f(rt, *args)
            flat = out.flat_values if isinstance(out, tf.RaggedTensor) else out
            y = tf.reduce_sum(flat * flat)
        grads.append(tf.convert_to_tensor(tape.gradient(y, rt.flat_values)).numpy().tolist())
    return grads


@pytest.mark.parametrize("op, signature, args", [
    (lambda rt, a, b: rt[a:b], [SPEC2, INT, INT], (tf.constant(1), tf.constant(3))),
    (lambda rt, a, b: rt[:, a:b], [SPEC2, INT, INT], (tf.constant(-1), tf.constant(5))),
    (lambda rt, p: tf.ragged.stack_dynamic_partitions(rt, p, 2),
     [SPEC2, tf.TensorSpec([None], tf.int32)], (tf.constant([1, 0, 1]),)),
    (lambda rt: tf.ragged.boolean_mask(rt, rt > 2.5), [SPEC2], ()),
    (lambda rt: rt.to_tensor(default_value=1.0, shape=[2, 4, 2]), [SPEC2], ()),
    (lambda rt: tf.expand_dims(rt, 1) * 3.0, [SPEC2], ()),
])
def test_traced_gradients_equal_eager_ones(op, signature, args):
    rt = tf.ragged.constant([[[1.0, 2.0], [3.0]], [], [[4.0], [], [5.0, 6.0, 7.0]]])
    traced, eager = _gradients(op, signature, rt, *args)
    assert traced == eager


def test_eager_to_tensor_does_not_pad_inner_dims():
    # TF 2.21 (recorded): the inner dims of `shape` must equal the flat values' ones.
    rt = tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [], [[5.0, 6.0]]], ragged_rank=1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"shape=\[2,3,1\] are incompatible: rt_input.shape\[2\] = 2"):
        rt.to_tensor(shape=[2, 3, 1])
    assert rt.to_tensor(shape=[1, 1, 2]).numpy().tolist() == [[[1.0, 2.0]]]
