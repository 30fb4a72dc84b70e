"""Every op traces correctly under tf.function: graph output equals eager output.

A trace runs the Python function with symbolic tensors whose `_value` is the EXAMPLE the
function was traced with. An op that reads input VALUES outside a primitive's kernel bakes that
example into the graph as a constant, and the graph then silently returns the traced inputs'
answer for every later call. So each check here traces on one set of inputs and calls the
graph on a DIFFERENT set of the same shapes, comparing with eager execution on those.

Two sources of cases:
  - every gradient sample (tests/ops/gradient_samples/*.py, as the gradient registry loads
    them), parametrized by primitive name: value, gradient through the traced function with an
    outer tape, and a gradient taken with a tape INSIDE the traced function (the backward pass
    is then part of the graph, so VJP rules are checked for baked values too);
  - value-dependent ops that are not differentiable (argmax, sort indices, unique, where with
    one argument, boolean_mask, one_hot, searchsorted, ...) listed below, and random ops,
    which must draw anew on every call of the graph.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapeflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "ops"))
from gradient_samples import load_samples  # noqa: E402

SAMPLES = load_samples()
RTOL = 1e-10
ATOL = 1e-10


def _close(actual, expected, what: str) -> None:
    actual = tf.convert_to_tensor(actual)
    expected = tf.convert_to_tensor(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    a, e = actual.numpy(), expected.numpy()
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        np.testing.assert_array_equal(a, e, err_msg=what)


def _eager(f, inputs):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(f(*[tf.constant(x) for x in inputs]))
    except Exception:  # noqa: BLE001 - an invalid point for this op: try another
        return None


def _second_point(case) -> list:
    """Inputs of the sample's shapes, different from the sample's, still valid for the op.

    Tries a clearly different point first (random offsets change orderings, signs of
    differences, which branch is taken), then milder ones; the last resort, the sample point
    scaled by 1.01, keeps structure (SPD stays SPD, a triangular matrix stays triangular).
    """
    reference = _eager(case.f, case.inputs)
    rng = np.random.default_rng(1234)
    for scale in (0.3, 0.05):
        candidate = [x + scale * rng.standard_normal(x.shape) * (np.abs(x).mean() + 0.1)
                     for x in case.inputs]
        out = _eager(case.f, candidate)
        if out is not None and out.shape == reference.shape and \
                np.array_equal(np.isfinite(out), np.isfinite(reference)):
            return candidate
    return [x * 1.01 + 0.001 for x in case.inputs]


def _cases():
    for name in sorted(SAMPLES):
        for index, case in enumerate(SAMPLES[name]):
            yield pytest.param(case, id=f"{name}-{case.origin[:-3]}-{index}")


def _weights(y) -> tf.Tensor:
    return tf.constant(np.random.default_rng(0).uniform(0.5, 1.5, size=np.shape(y)))


def _weighted_gradients(f, floats):
    """args -> the gradients of a value-weighted sum of f's float outputs w.r.t. the float
    inputs at positions `floats` (zeros where unconnected)."""
    def value_and_gradient(*args):
        with tf.GradientTape() as tape:
            tape.watch([args[i] for i in floats])
            outs = [o for o in _flat(f(*args)) if o.dtype.is_floating]
            y = tf.add_n([tf.reduce_sum(o * _value_weights(o)) for o in outs])
        grads = tape.gradient(y, [args[i] for i in floats])
        return [tf.zeros_like(args[i]) if g is None else tf.convert_to_tensor(g)
                for i, g in zip(floats, grads)]
    return value_and_gradient


def _value_weights(y) -> tf.Tensor:
    """Weights for a sum of `y` (in [0.5, 1.5], outside the gradient) from its values, so
    that eager and traced runs agree also where the trace knows y's shape only at run time
    (unique, where, ...)."""
    return tf.stop_gradient(1.0 + 0.5 * tf.sin(3.0 * y))


@pytest.mark.parametrize("case", list(_cases()))
def test_sample_value_and_gradients_traced_equal_eager(case):
    first = [tf.constant(x) for x in case.inputs]
    second = [tf.constant(x) for x in _second_point(case)]
    traced = tf.function(case.f)
    traced(*first)                    # traced here, with the sample point as its example
    _close(traced(*second), case.f(*second), f"{case.primitive}: value at a second point")
    assert traced.experimental_get_tracing_count() == 1

    # Gradient of the traced function, taken by an outer tape (the graph is replayed).
    weights = _weights(case.f(*second))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(second)
        eager_y = case.f(*second)
        traced_y = traced(*second)
    eager_g = tape.gradient(eager_y, second, output_gradients=weights)
    traced_g = tape.gradient(traced_y, second, output_gradients=weights)
    for i, (t, e) in enumerate(zip(traced_g, eager_g)):
        assert (t is None) == (e is None), f"{case.primitive}: None gradient of input {i}"
        if e is not None:
            _close(t, e, f"{case.primitive}: outer-tape gradient of input {i}")

    # Gradient taken inside the traced function: the backward pass is part of the graph.
    def value_and_gradient(*args):
        with tf.GradientTape() as inner:
            inner.watch(list(args))
            y = case.f(*args)
        grads = inner.gradient(y, list(args), output_gradients=weights)
        # Dense gradients: IndexedSlices (an axis-0 gather's) densify inside the graph.
        return [y] + [tf.zeros_like(a) if g is None else tf.convert_to_tensor(g)
                      for a, g in zip(args, grads)]

    traced_vg = tf.function(value_and_gradient)
    traced_vg(*first)
    for i, (t, e) in enumerate(zip(traced_vg(*second), value_and_gradient(*second))):
        _close(t, e, f"{case.primitive}: in-graph {'value' if i == 0 else f'gradient {i - 1}'}")


# -- value-dependent ops ------------------------------------------------------------------------
#
# name -> (function, inputs to trace with, DIFFERENT inputs of the same shapes to call with).
# The second inputs change what the op's result depends on (orderings, which elements are
# true, which ids occur) but keep every output shape, so the graph must give eager's answer.

_F = np.array([[0.3, -1.2, 2.5, 0.7], [1.1, 0.2, -0.4, -2.0], [-0.6, 1.9, 0.8, 0.1]])
_G = np.array([[2.2, 0.4, -1.5, 0.9], [-0.3, 1.7, 0.45, -1.1], [0.5, -0.8, 1.4, 2.6]])
_IDS = np.array([0, 2, 1, 2], np.int32)
_IDS2 = np.array([1, 0, 0, 2], np.int32)

VALUE_DEPENDENT = {
    "argmax": (lambda x: tf.argmax(x, axis=1), [_F], [_G]),
    "argmin": (lambda x: tf.argmin(x, axis=0), [_F], [_G]),
    "argsort": (lambda x: tf.argsort(x, direction="DESCENDING"), [_F], [_G]),
    "sort": (lambda x: tf.sort(x), [_F], [_G]),
    "sort_axis0": (lambda x: tf.sort(x, axis=0, direction="DESCENDING"), [_F], [_G]),
    "top_k": (lambda x: tuple(tf.math.top_k(x, k=2)), [_F], [_G]),
    "unique": (lambda x: tuple(tf.unique(x)), [np.array([3, 1, 3, 2], np.int32)],
               [np.array([5, 5, 7, 4], np.int32)]),
    "unique_with_counts": (lambda x: tuple(tf.unique_with_counts(x)),
                           [np.array([3., 1., 3., 2.])], [np.array([5., 5., 7., 4.])]),
    "where_one_arg": (lambda x: tf.where(x > 0.5), [_F], [_G]),
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0.5), [_F], [_G]),
    "boolean_mask_axis1": (lambda x, m: tf.boolean_mask(x, m, axis=1),
                           [_F, np.array([True, False, True, False])],
                           [_G, np.array([False, True, True, False])]),
    "bool_index": (lambda x, m: x[m], [_F, np.array([True, False, True])],
                   [_G, np.array([False, True, True])]),
    "one_hot": (lambda i: tf.one_hot(i, 3), [_IDS], [_IDS2]),
    "searchsorted": (lambda s, v: tf.searchsorted(s, v),
                     [np.array([[0.1, 0.5, 0.9]]), np.array([[0.2, 0.95]])],
                     [np.array([[0.3, 0.4, 0.6]]), np.array([[0.35, 0.05]])]),
    "gather": (lambda x, i: tf.gather(x, i, axis=1), [_F, _IDS], [_G, _IDS2]),
    "gather_nd": (lambda x, i: tf.gather_nd(x, i), [_F, np.array([[0, 1], [2, 3]])],
                  [_G, np.array([[1, 0], [2, 2]])]),
    "gather_nd_batch": (lambda x, i: tf.gather_nd(x, i, batch_dims=1),
                        [_F, np.array([[1], [3], [0]])], [_G, np.array([[2], [0], [0]])]),
    "scatter_nd": (lambda i, u: tf.scatter_nd(i, u, [4]), [_IDS[:2, None], _F[0, :2]],
                   [_IDS2[:2, None], _G[0, :2]]),
    "tensor_scatter_nd_update": (lambda t, i, u: tf.tensor_scatter_nd_update(t, i, u),
                                 [_F, np.array([[0], [2]]), _G[:2]],
                                 [_G, np.array([[1], [0]]), _F[:2]]),
    "segment_sum": (lambda x, i: tf.math.segment_sum(x, i),
                    [_F, np.array([0, 0, 2])], [_G, np.array([0, 2, 2])]),
    "segment_mean": (lambda x, i: tf.math.segment_mean(x, i),
                     [_F, np.array([0, 1, 1])], [_G, np.array([0, 0, 1])]),
    "segment_max": (lambda x, i: tf.math.segment_max(x, i),
                    [_F, np.array([0, 1, 2])], [_G, np.array([0, 2, 2])]),
    "segment_min": (lambda x, i: tf.math.segment_min(x, i),
                    [_F, np.array([0, 0, 2])], [_G, np.array([0, 1, 2])]),
    "unsorted_segment_sum": (lambda x, i: tf.math.unsorted_segment_sum(x, i, 3),
                             [_F, np.array([0, 2, 1])], [_G, np.array([-1, 2, 2])]),
    "unsorted_segment_max": (lambda x, i: tf.math.unsorted_segment_max(x, i, 3),
                             [_F, np.array([0, 2, 1])], [_G, np.array([1, -1, 1])]),
    "unsorted_segment_mean": (lambda x, i: tf.math.unsorted_segment_mean(x, i, 3),
                              [_F, np.array([0, 2, 1])], [_G, np.array([2, 2, -1])]),
    "repeat": (lambda x: tf.repeat(x, [2, 1, 1], axis=0), [_F], [_G]),
    "repeat_tensor_counts": (lambda x, r: tf.repeat(x, r, axis=0),
                             [_F, np.array([2, 1, 1])], [_G, np.array([0, 1, 3])]),
    "embedding_lookup": (lambda p, i: tf.nn.embedding_lookup(p, i), [_F, _IDS[:3]],
                         [_G, _IDS2[:3]]),
    "embedding_lookup_max_norm": (lambda p, i: tf.nn.embedding_lookup(p, i, max_norm=1.5),
                                  [_F, _IDS[:3]], [_G, _IDS2[:3]]),
    "sparse_softmax_xent": (lambda l, i: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=i, logits=l), [_F, _IDS[:3]], [_G, _IDS2[:3]]),
    "roll_same_shift": (lambda x, s: tf.roll(x, s, axis=1), [_F, np.array(1)],
                        [_G, np.array(1)]),
    # read as the graph runs, as TF's inputs (tests/function/test_runtime_manip_args.py)
    "roll_other_shift": (lambda x, s: tf.roll(x, s, axis=1), [_F, np.array(1)],
                         [_G, np.array(2)]),
    "pad_other_paddings": (lambda x, p: tf.pad(x, p), [_F, np.array([[0, 1], [1, 0]])],
                           [_G, np.array([[1, 0], [1, 0]])]),
    # read as the graph runs, as TF's inputs (tests/function/test_runtime_array_args.py)
    "tile_other_multiples": (lambda x, m: tf.tile(x, m), [_F, np.array([1, 2])],
                             [_G, np.array([2, 1])]),
    "broadcast_to_other_shape": (lambda x, s: tf.broadcast_to(x, s), [_F[0], np.array([2, 4])],
                                 [_G[0], np.array([3, 4])]),
    "one_hot_other_depth": (lambda i, d: tf.one_hot(i, d), [_IDS, np.array(3, np.int32)],
                            [_IDS, np.array(4, np.int32)]),   # TF's depth is int32
    "linspace_other_num": (lambda a, n: tf.linspace(a, 1.0, n), [np.array(0.0), np.array(3)],
                           [np.array(0.5), np.array(5)]),
    "slice_other_begin": (lambda x, b: tf.slice(x, b, [1, 2]), [_F, np.array([0, 1])],
                          [_G, np.array([1, 0])]),
    "slice_other_size": (lambda x, s: tf.slice(x, [0, 0], s), [_F, np.array([1, 2])],
                         [_G, np.array([2, 2])]),
    "split_other_sizes": (lambda x, s: tf.split(x, s, axis=1)[0], [_F, np.array([1, 3])],
                          [_G, np.array([2, 2])]),
    "band_part_same_width": (lambda x, lo: tf.linalg.band_part(x, lo, 0),
                             [_F[:, :3], np.array(1)], [_G[:, :3], np.array(1)]),
    "clip_by_value": (lambda x, lo, hi: tf.clip_by_value(x, lo, hi),
                      [_F, np.array(-0.5), np.array(1.0)], [_G, np.array(0.0), np.array(2.0)]),
    "clip_by_norm": (lambda x, c: tf.clip_by_norm(x, c, axes=[1]), [_F, np.array(1.5)],
                     [_G, np.array(2.5)]),
    "clip_by_global_norm": (lambda x, y: tf.clip_by_global_norm([x, y], 3.0)[0][1], [_F, _G],
                            [_G, 2 * _F]),
    "cumsum": (lambda x: tf.math.cumsum(x, axis=1, reverse=True), [_F], [_G]),
    "where_select": (lambda x, y: tf.where(x > y, x, y), [_F, _G], [_G, 2 * _F]),
    "reduce_max_grad_ties": (lambda x: tf.reduce_max(x, axis=0),
                             [_F], [np.array([[1., 2., 3., 3.]] * 3)]),
}


def _as_constants(arrays: list) -> list:
    return [tf.constant(a) for a in arrays]


def _flat(result) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


@pytest.mark.parametrize("name", sorted(VALUE_DEPENDENT))
def test_value_dependent_op_traced_equals_eager(name):
    f, first, second = VALUE_DEPENDENT[name]
    traced = tf.function(f)
    first_out = _flat(traced(*_as_constants(first)))
    second_in = _as_constants(second)
    expected = _flat(f(*second_in))
    actual = _flat(traced(*second_in))
    assert len(actual) == len(expected)
    for i, (a, e) in enumerate(zip(actual, expected)):
        _close(a, e, f"{name}: output {i} on the second inputs")
    assert traced.experimental_get_tracing_count() == 1
    # The check means something: the op's result does change between the two inputs.
    assert any(a.shape != b.shape or not np.array_equal(a.numpy(), b.numpy())
               for a, b in zip(first_out, expected)), f"{name}: inputs do not exercise the op"

    # Gradients w.r.t. float inputs, taken inside the graph, equal eager's.
    floats = [i for i, x in enumerate(second_in) if x.dtype.is_floating]
    if not any(o.dtype.is_floating for o in expected) or not floats:
        return

    value_and_gradient = _weighted_gradients(f, floats)

    graph_vg = tf.function(value_and_gradient)
    graph_vg(*_as_constants(first))
    for i, (a, e) in enumerate(zip(graph_vg(*second_in), value_and_gradient(*second_in))):
        _close(a, e, f"{name}: in-graph gradient of float input {i}")


# -- ops whose output SHAPE (or an attribute) depends on values -----------------------------------
#
# A traced graph keeps the shapes of its trace, so a call whose values would change such a
# shape (or a value the op takes as an attribute) must fail with a clear error, never return
# numbers computed with the trace's shape. name -> (function, trace inputs, other inputs,
# words the error names).

SHAPE_CHANGING: dict = {}   # filled below (STATIC_ARGUMENTS)


@pytest.mark.parametrize("name", sorted(SHAPE_CHANGING))
def test_value_dependent_shape_change_raises_clearly_in_graph(name):
    f, first, second, words = SHAPE_CHANGING[name]
    traced = tf.function(f)
    _close(traced(*_as_constants(first)), f(*_as_constants(first)), f"{name}: traced inputs")
    with pytest.raises(tf.errors.InvalidArgumentError, match="traced") as info:
        traced(*_as_constants(second))
    assert words in str(info.value)
    # Eagerly the op just works on the second inputs.
    f(*_as_constants(second))


# -- ops whose output SIZE depends on values: one graph for every size ---------------------------
#
# As in TensorFlow, a traced graph computes such sizes when it runs (unique, where, repeat by
# tensor counts, top_k by a tensor k, segment counts from the ids, bincount's length): called
# again with values that give other sizes, it equals eager execution, traced once.
# name -> (function, a list of input sets: the first traces, every one is run).

_U = np.arange(6.0).reshape(2, 3)
_W = np.array([[0.4, -1.0, 2.0], [1.5, 0.3, -0.7]])

COUNT_CHANGING = {
    "eye_rows": (lambda n: tf.eye(n), [[np.array(2)], [np.array(3)], [np.array(0)]]),
    "unique": (lambda x: tf.unique(x).y, [[np.array([3, 1, 3, 2])], [np.array([1, 1, 1, 1])],
                                          [np.array([4, 3, 2, 1])]]),
    "unique_idx": (lambda x: tuple(tf.unique(x)), [[np.array([3., 1., 3., 2.])],
                                                   [np.array([5., 5., 5., 5.])]]),
    "unique_with_counts": (lambda x: tuple(tf.unique_with_counts(x)),
                           [[np.array([3, 1, 3, 2])], [np.array([7, 7, 1, 7])],
                            [np.array([0, 1, 2, 3])]]),
    "unique_then_reduce": (lambda x: tf.unique(x).y * tf.reduce_sum(tf.unique(x).y),
                           [[np.array([3., 1., 3., 2.])], [np.array([1., 1., 1., 1.])]]),
    "where_one_arg": (lambda x: tf.where(x > 0.5), [[_F], [2 * _F], [_F - 5.0]]),
    "where_one_arg_then_gather": (lambda x: tf.gather_nd(x, tf.where(x > 0.5)) * 2.0,
                                  [[_F], [2 * _F], [_F - 5.0]]),
    "repeat_tensor_counts": (lambda x, r: tf.repeat(x, r, axis=0),
                             [[_F, np.array([2, 1, 1])], [_F, np.array([2, 2, 1])],
                              [_G, np.array([0, 0, 0])], [_G, np.array([0, 4, 1])]]),
    "repeat_tensor_count_scalar": (lambda x, r: tf.repeat(x, r, axis=1),
                                   [[_F, np.array(2)], [_G, np.array(3)], [_F, np.array(0)]]),
    "top_k_tensor_k": (lambda x, k: tuple(tf.math.top_k(x, k=k)),
                       [[_U, np.array(2)], [_U, np.array(1)], [_W, np.array(3)],
                        [_W, np.array(0)]]),
    "segment_sum": (lambda x, i: tf.math.segment_sum(x, i),
                    [[_F, np.array([0, 0, 2])], [_F, np.array([0, 0, 1])],
                     [_G, np.array([1, 3, 4])]]),
    "segment_mean": (lambda x, i: tf.math.segment_mean(x, i),
                     [[_F, np.array([0, 1, 1])], [_G, np.array([0, 0, 3])]]),
    "segment_max": (lambda x, i: tf.math.segment_max(x, i),
                    [[_F, np.array([0, 1, 2])], [_G, np.array([2, 2, 4])]]),
    "segment_min": (lambda x, i: tf.math.segment_min(x, i),
                    [[_F, np.array([0, 0, 2])], [_G, np.array([0, 0, 0])]]),
    # TF takes these as run-time inputs (ScatterNd's shape, UnsortedSegment*'s num_segments).
    "scatter_nd_tensor_shape": (lambda i, s: tf.scatter_nd(i, tf.ones([2]), s),
                                [[np.array([[0], [1]]), np.array([3])],
                                 [np.array([[2], [1]]), np.array([4])]]),
    "unsorted_segment_sum_tensor_num": (
        lambda x, n: tf.math.unsorted_segment_sum(x, [0, 1], n),
        [[_U, np.array(2)], [_U, np.array(3)], [2 * _U, np.array(5)]]),
    "unsorted_segment_max_tensor_num": (
        lambda x, n: tf.math.unsorted_segment_max(x, [1, 0], n),
        [[_U, np.array(2)], [_U, np.array(4)]]),
    "unsorted_segment_mean_tensor_num": (
        lambda x, n: tf.math.unsorted_segment_mean(x, [1, 1], n),
        [[_U, np.array(2)], [_U, np.array(3)]]),
    "bincount": (lambda a: tf.math.bincount(a), [[np.array([0, 1, 1], np.int32)],
                                                 [np.array([4, 0, 4], np.int32)],
                                                 [np.array([0, 0, 0], np.int32)]]),
    "bincount_weights_minlength": (lambda a, w: tf.math.bincount(a, w, minlength=3),
                                   [[np.array([0, 1, 1], np.int32), _F[0, :3]],
                                    [np.array([5, 0, 5], np.int32), _G[0, :3]]]),
    # Masks select other counts; array ops on such values (and their adjoints) read the
    # sizes as the graph runs.
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0.5), [[_F], [2 * _F], [_F - 5.0]]),
    "boolean_mask_axis1": (lambda x, m: tf.boolean_mask(x, m, axis=1),
                           [[_F, np.array([True, False, True, False])],
                            [_G, np.array([True, True, True, False])],
                            [_F, np.array([False, False, False, False])]]),
    "bool_index": (lambda x, m: x[m] * 2.0, [[_F, np.array([True, False, True])],
                                            [_F, np.array([True, True, True])],
                                            [_G, np.array([False, False, False])]]),
    "slice_tensor_bounds": (lambda x, i, j: x[:, i:j] * x[:, i:j],
                            [[_F, np.array(0), np.array(2)], [_G, np.array(1), np.array(4)],
                             [_F, np.array(3), np.array(3)]]),
    "stack_of_masked": (lambda x: tf.stack([tf.boolean_mask(x, x > 0.5),
                                            tf.sin(tf.boolean_mask(x, x > 0.5))], axis=1),
                        [[_F], [2 * _F], [_G]]),
    "unstack_of_masked": (lambda x, m: tf.unstack(tf.boolean_mask(x, m), num=4, axis=1)[1] ** 2,
                          [[_F, np.array([True, False, True])],
                           [_G, np.array([True, True, True])]]),
    "concat_of_masked": (lambda x: tf.concat([tf.boolean_mask(x, x > 0.5), x[0]], 0) ** 2,
                         [[_F], [2 * _F], [_G]]),
    "split_of_masked": (lambda x: tf.split(tf.boolean_mask(x, x > 0.5), [1, -1])[1] ** 2,
                        [[_F], [2 * _F], [_G]]),
    "reshape_of_masked": (lambda x, m: tf.reshape(tf.boolean_mask(x, m), [-1]) ** 2,
                          [[_F, np.array([True, False, True])],
                           [_G, np.array([False, True, False])]]),
    "tile_of_masked": (lambda x: tf.tile(tf.boolean_mask(x, x > 0.5), [2]) ** 2,
                       [[_F], [2 * _F], [_G]]),
    "gather_of_masked": (lambda x, m: tf.gather(tf.boolean_mask(x, m), [1, 1], axis=1) ** 2,
                         [[_F, np.array([True, False, True])],
                          [_G, np.array([False, True, False])]]),
    "index_of_masked": (lambda x, m: (tf.boolean_mask(x, m)[-1, 1:] ** 2,
                                      tf.boolean_mask(x, m)[1:, ::2] ** 2),
                        [[_F, np.array([True, False, True])],
                         [_G, np.array([True, True, True])]]),
    # TF takes these as run-time inputs (Reshape's shape, Fill's dims, Range's limit).
    "reshape_tensor_shape": (lambda x, s: tf.reshape(x, s) ** 2,
                             [[_U, np.array([3, 2])], [_U, np.array([6, 1])],
                              [_U, np.array([-1, 3])]]),
    "reshape_list_item": (lambda x, n: tf.reshape(x, [n, -1]) ** 2,
                          [[_U, np.array(3)], [_U, np.array(1)], [_U, np.array(6)]]),
    "fill_tensor_dims": (lambda v, s: tf.fill(s, v) ** 2,
                         [[np.array(1.5), np.array([2])], [np.array(2.5), np.array([3])],
                          [np.array(1.0), np.array([0])]]),
    "zeros_tensor_shape": (lambda s: tf.zeros(s), [[np.array([2])], [np.array([3])],
                                                   [np.array([0])]]),
    "ones_tensor_shape": (lambda s: tf.ones(s), [[np.array([2, 1])], [np.array([1, 2])]]),
    "ones_list_item": (lambda n: tf.ones([n, 2], tf.float64), [[np.array(1)], [np.array(3)]]),
    "range_tensor_limit": (lambda n: tf.range(n), [[np.array(3)], [np.array(4)],
                                                   [np.array(0)]]),
}


@pytest.mark.parametrize("name", sorted(COUNT_CHANGING))
def test_value_dependent_size_traced_equals_eager(name):
    f, input_sets = COUNT_CHANGING[name]
    traced = tf.function(f)
    shapes = set()
    for inputs in input_sets:
        args = _as_constants(inputs)
        expected = _flat(f(*args))
        actual = _flat(traced(*args))
        assert len(actual) == len(expected)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _close(a, e, f"{name}: output {i} on inputs {inputs}")
        shapes.add(tuple(tuple(e.shape) for e in expected))
    assert traced.experimental_get_tracing_count() == 1
    assert len(shapes) > 1, f"{name}: the inputs do not change the output sizes"

    # Gradients w.r.t. float inputs, taken inside the graph, equal eager's.
    floats = [i for i, x in enumerate(_as_constants(input_sets[0])) if x.dtype.is_floating]
    if not floats or not any(o.dtype.is_floating for o in _flat(f(*_as_constants(input_sets[0])))):
        return

    value_and_gradient = _weighted_gradients(f, floats)

    graph_vg = tf.function(value_and_gradient)
    for inputs in input_sets:
        args = _as_constants(inputs)
        for i, (a, e) in enumerate(zip(graph_vg(*args), value_and_gradient(*args))):
            _close(a, e, f"{name}: in-graph gradient of float input {i} on {inputs}")
    assert graph_vg.experimental_get_tracing_count() == 1


# -- indices given as tensors: read when the graph runs ------------------------------------------

def _loop_sum_of_squares(x, n):
    """sum_i x[i]**2 over rows i < n, with the row read by `x[i]` in a while_loop body."""
    def body(i, acc):
        return i + 1, acc + x[i] * x[i]
    return tf.while_loop(lambda i, acc: i < n, body,
                         [tf.constant(0), tf.zeros(x.shape[1:], x.dtype)])[1]


def _loop_gather(x, n):
    def body(i, acc):
        return i + 1, acc + tf.sin(tf.gather(x, i))
    return tf.while_loop(lambda i, acc: i < n, body,
                         [tf.constant(0), tf.zeros(x.shape[1:], x.dtype)])[1]


TENSOR_INDICES = {
    "index_scalar_tensor": (lambda x, i: x[i] * x[i], [_F, np.array(1)], [_F, np.array(2)]),
    "index_negative_tensor": (lambda x, i: x[:, i], [_F, np.array(0)], [_F, np.array(-1)]),
    "index_slice_tensor_bounds": (lambda x, i: x[:, i:i + 2], [_F, np.array(0)],
                                  [_F, np.array(2)]),
    # Another trip count (the in-graph gradient walks the iterations that ran), other rows.
    "while_loop_index": (_loop_sum_of_squares, [_F, np.array(3, np.int32)],
                         [_G, np.array(2, np.int32)]),
    "while_loop_gather": (_loop_gather, [_F, np.array(2, np.int32)],
                          [_G, np.array(3, np.int32)]),
    "range_tensor_start": (lambda s: tf.range(s, s + 3), [np.array(1)], [np.array(4)]),
}
VALUE_DEPENDENT.update(TENSOR_INDICES)


@pytest.mark.parametrize("loop", [_loop_sum_of_squares, _loop_gather])
def test_while_loop_trip_count_changes(loop):
    """x[i] / tf.gather(x, i) in a while_loop body read i each iteration, however many; a
    gradient taken inside the graph (first and second order) runs back over as many."""
    traced = tf.function(loop)
    traced(tf.constant(_F), tf.constant(1))
    for n in (2, 3, 0):
        args = (tf.constant(_G), tf.constant(n))
        _close(traced(*args), loop(*args), f"{loop.__name__} with n={n}")
    assert traced.experimental_get_tracing_count() == 1

    def grads(x, n):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(loop(x, n) * tf.constant([1.0, -2.0, 0.5, 3.0], x.dtype))
            # n = 0: eagerly y does not depend on x (zeros asked for, not None).
            g = inner.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            z = tf.reduce_sum(tf.convert_to_tensor(g) * tf.sin(x))
        return y, g, outer.gradient(z, x)

    traced_grads = tf.function(grads)
    traced_grads(tf.constant(_F), tf.constant(1))
    for n in (3, 0, 2, 1):
        args = (tf.constant(_G), tf.constant(n))
        for i, (t, e) in enumerate(zip(traced_grads(*args), grads(*args))):
            _close(tf.convert_to_tensor(t), tf.convert_to_tensor(e),
                   f"{loop.__name__} with n={n}: output {i}")
    assert traced_grads.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(TENSOR_INDICES))
def test_tensor_index_traced_equals_eager(name):
    test_value_dependent_op_traced_equals_eager(name)


# -- static arguments: a tensor an op reads into an attribute keeps its traced value ------------
#
# tapeflow's kernels take shapes, axes, k, depth, ... as attributes, so a traced graph keeps
# the traced value of such a tensor argument: a call with another value must raise, naming the
# argument. name -> (function, trace inputs, other inputs, words the error names).

_V = np.arange(6.0).reshape(2, 3)

# Axes, perms, band widths and dropout's noise_shape are run-time inputs, as TF's:
# tests/function/test_runtime_axis_args.py (stack's and squeeze's axes are attributes in TF,
# refused there as TF refuses a traced one); so are the diagonals' k and sizes:
# tests/function/test_runtime_linalg_args.py.
STATIC_ARGUMENTS: dict = {}
SHAPE_CHANGING.update(STATIC_ARGUMENTS)


@pytest.mark.parametrize("name", sorted(STATIC_ARGUMENTS))
def test_static_argument_change_raises_clearly_in_graph(name):
    test_value_dependent_shape_change_raises_clearly_in_graph(name)


# The random ops' shapes and num_samples are run-time inputs, as TF's:
# tests/function/test_runtime_random_shapes.py


def test_static_arguments_as_python_values_trace_per_value():
    """The advice in the error works: Python values are part of the trace's signature."""
    traced = tf.function(lambda x, n: tf.reshape(x, [n, -1]))
    x = tf.constant(_V)
    assert traced(x, 3).shape == (3, 2)
    assert traced(x, 1).shape == (1, 6)
    assert traced.experimental_get_tracing_count() == 2


# -- bad indices reach the kernels of a traced graph ----------------------------------------------
#
# name -> (function, valid inputs to trace with, invalid inputs, TensorFlow's message).

BAD_INDICES = {
    "index_tensor": (lambda x, i: x[i], [_F, np.array(1)], [_F, np.array(3)],
                     "slice index 3 of dimension 0 out of bounds."),
    "index_tensor_negative": (lambda x, i: x[:, i], [_F, np.array(1)], [_F, np.array(-5)],
                              "slice index -1 of dimension 1 out of bounds."),
    "gather_nd": (lambda x, i: tf.gather_nd(x, i), [_F, np.array([[0, 1]])],
                  [_F, np.array([[-1, 1]])],
                  "indices[0] = [-1, 1] does not index into param shape [3,4]"),
    "scatter_nd": (lambda i, u: tf.scatter_nd(i, u, [4]), [np.array([[1]]), np.array([1.0])],
                   [np.array([[-1]]), np.array([1.0])],
                   "indices[0] = [-1] does not index into shape [4]"),
    "tensor_scatter_nd_update": (lambda t, i: tf.tensor_scatter_nd_update(t, i, t[:1]),
                                 [_F, np.array([[1]])], [_F, np.array([[3]])],
                                 "indices[0] = [3] does not index into shape [3,4]"),
    "tensor_scatter_nd_add": (lambda t, i: tf.tensor_scatter_nd_add(t, i, t[:1]),
                              [_F, np.array([[1]])], [_F, np.array([[-1]])],
                              "indices[0] = [-1] does not index into shape [3,4]"),
    "unsorted_segment_sum": (lambda x, i: tf.math.unsorted_segment_sum(x, i, 3),
                             [_F, np.array([0, 2, 1])], [_F, np.array([0, 3, 1])],
                             "segment_ids[1] = 3 is out of range [0, 3)"),
    "unsorted_segment_max": (lambda x, i: tf.math.unsorted_segment_max(x, i, 2),
                             [_F, np.array([0, 1, 1])], [_F, np.array([2, 1, 1])],
                             "segment_ids[0] = 2 is out of range [0, 2)"),
}


@pytest.mark.parametrize("name", sorted(BAD_INDICES))
def test_bad_indices_raise_when_the_graph_runs(name):
    f, good, bad, message = BAD_INDICES[name]
    traced = tf.function(f)
    _close(traced(*_as_constants(good)), f(*_as_constants(good)), f"{name}: valid inputs")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        traced(*_as_constants(bad))
    assert message in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError) as eager:  # eagerly: the same message
        f(*_as_constants(bad))
    assert message in str(eager.value)


@pytest.mark.parametrize("make", [lambda x: tf.constant(x), lambda x: tf.constant([x, 2.0]),
                                  lambda x: tf.constant(x * 2.0, shape=[2])])
def test_constant_of_a_traced_tensor_raises_type_error(make):
    with pytest.raises(TypeError, match="Expected any non-tensor type, but got a tensor "
                                        "instead."):
        tf.function(make)(tf.constant(1.0))


def test_constant_of_an_outer_eager_tensor_inside_a_trace():
    outer = tf.constant([1.0, 2.0])
    traced = tf.function(lambda x: x + tf.constant(outer))
    _close(traced(tf.constant([0.5, 0.5])), tf.constant([1.5, 2.5]), "captured constant")
