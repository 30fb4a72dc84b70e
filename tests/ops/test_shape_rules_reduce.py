"""Shape rules of the reductions (reduce_ops) and random draws (random_ops) beyond what the
gradient samples reach: unknown dims and ranks, dims known only at run time, the dtypes of
non-float and non-differentiable ops, and TensorFlow's shape-function errors. Expected
shapes and messages are TensorFlow 2.21's, from tf.function traces with tf.TensorSpec."""

import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray, aval_of
from tapeflow.autodiff.core import REGISTRY, Primitive
from tapeflow.ops import random_ops, reduce_ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_shape_rules import kernel_calls  # noqa: E402

F32 = np.dtype(np.float32)
SUM = reduce_ops._sum.shape_rule


@pytest.mark.parametrize("axis, keepdims, want", [
    ((0, 2), False, (3, 5)),          # TF: [None,3,None,5] -> [3,5]
    ((0, 2), True, (1, 3, 1, 5)),     # TF: -> [1,3,1,5]
    ((1,), False, (None, None, 5)),
    (None, False, ()),
])
def test_reduction_keeps_known_dims_and_drops_unknown_reduced_ones(axis, keepdims, want):
    assert SUM(ShapedArray((None, 3, None, 5), F32), axis=axis, keepdims=keepdims) == \
        ShapedArray(want, F32)


@pytest.mark.parametrize("axis, keepdims, want", [
    ((1,), False, None), ((1,), True, None),  # TF: TensorShape(None)
    (None, False, ()),                         # TF: [] (everything reduced)
])
def test_reduction_of_unknown_rank(axis, keepdims, want):
    assert SUM(ShapedArray(None, F32), axis=axis, keepdims=keepdims).shape == want


def test_reduction_axis_out_of_range_is_tf_value_error():
    # TF: "Invalid reduction dimension 3 for input with 2 dimensions. for '{{node Sum}} ..."
    with pytest.raises(ValueError, match=r"Invalid reduction dimension 3 for input with 2 "
                                         r"dimensions\. for 'Sum'"):
        SUM(ShapedArray((2, 3), F32), axis=(3,), keepdims=False)
    with pytest.raises(ValueError, match="Invalid reduction dimension 5 .* 'All'"):
        reduce_ops._all.shape_rule(ShapedArray((2, None), np.bool_), axis=(0, 5),
                                   keepdims=False)


def test_argmax_drops_its_axis_in_the_output_type():
    argmax = REGISTRY["ArgMax"].shape_rule
    # TF: argmax([None,3,None], axis=1) -> [None,None] int64; unknown rank stays unknown.
    assert argmax(ShapedArray((None, 3, None), F32), axis=1, dtype=np.dtype(np.int64)) == \
        ShapedArray((None, None), np.int64)
    assert argmax(ShapedArray(None, F32), axis=1, dtype=np.dtype(np.int32)) == \
        ShapedArray(None, np.int32)
    # TF: "Dimension (2) must be in the range [-2, 2), where 2 is the number of dimensions in
    # the input. for '{{node ArgMax}} ..."
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\)"):
        argmax(ShapedArray((2, 3), F32), axis=2, dtype=np.dtype(np.int64))


def test_draw_with_a_shape_known_only_at_run_time():
    # tf.random.normal(tf.shape(x)) for x of [None, 3]: TF gives [None, 3].
    rule = random_ops._normal.shape_rule
    assert rule(shape=(None, 3), dtype=np.dtype(np.float16), stream=None) == \
        ShapedArray((None, 3), np.float16)


def test_multinomial_rule():
    rule = random_ops._categorical.shape_rule
    i64 = np.dtype(np.int64)
    # TF: categorical(x, 5) for x of [None, 3] and of unknown rank both give [None, 5].
    for logits in (ShapedArray((None, 3), F32), ShapedArray(None, F32)):
        assert rule(logits, num_samples=5, dtype=i64, stream=None) == ShapedArray((None, 5), i64)
    # TF: "Shape must be rank 2 but is rank 3 for '{{node categorical/Multinomial}} ..."
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3 for 'Multinomial'"):
        rule(ShapedArray((2, 3, 4), F32), num_samples=5, dtype=i64, stream=None)


def test_uniform_int_bounds_must_be_scalars():
    rule = random_ops._uniform_int.shape_rule
    i32 = np.dtype(np.int32)
    assert rule(ShapedArray((), i32), ShapedArray((), i32), shape=(None, 4), stream=None) == \
        ShapedArray((None, 4), i32)
    # TF: "minval must be a scalar; got a tensor of shape [2] for '{{node random_uniform}} ..."
    with pytest.raises(ValueError, match=r"minval must be a scalar; got a tensor of shape \[2\]"):
        rule(ShapedArray((2,), i32), ShapedArray((), i32), shape=(2, 3), stream=None)


def _programs():
    """Calls the gradient samples do not make: draws, integer and bool reductions."""
    ints = tf.constant([[3, 1, 2], [0, 5, 4]], tf.int32)
    flags = tf.constant([[True, False], [True, True]])
    tf.random.normal([2, 3], dtype=tf.float16)
    tf.random.truncated_normal([4], dtype=tf.float64)
    tf.random.uniform([2, 0])
    tf.random.uniform([3, 2], maxval=9, dtype=tf.int64)
    tf.random.shuffle(ints)
    tf.random.categorical(tf.zeros([2, 5]), 4, dtype=tf.int32)
    tf.reduce_mean(ints, axis=0)
    tf.reduce_prod(ints, axis=[0, 1], keepdims=True)
    tf.reduce_max(tf.zeros([0, 3], tf.int32), axis=0)
    tf.reduce_all(flags, axis=1)
    tf.reduce_any(flags)
    tf.reduce_logsumexp(tf.ones([2, 3], tf.float16), axis=[], keepdims=True)
    tf.argmax(ints, axis=1, output_type=tf.int32)
    tf.argmin(tf.constant([1.0, -2.0]))


def test_rules_agree_with_kernels_beyond_the_samples():
    prims = [p for module in (reduce_ops, random_ops) for p in vars(module).values()
             if isinstance(p, Primitive)] + [REGISTRY["ArgMax"], REGISTRY["ArgMin"]]
    with kernel_calls(*prims) as calls:
        _programs()
    assert {p.name for p, *_ in calls} >= {"RandomStandardNormal", "TruncatedNormal",
                                           "RandomUniform", "RandomUniformInt", "RandomShuffle",
                                           "Multinomial", "ArgMax", "ArgMin", "All", "Any"}
    for prim, args, attrs, out in calls:
        avals = [aval_of(a) for a in args]
        assert prim.shape_rule(*avals, **attrs) == aval_of(out), (prim.name, avals, attrs)
