"""Shape rules of the nn and conv primitives on the cases the gradient samples do not reach:
unknown dims and ranks, and TensorFlow's shape-function errors. The expected shapes and
messages are TF 2.21's (a `tf.function` traced with `tf.TensorSpec`s, NHWC, float32)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.abstract import ShapedArray
from tapeflow.ops import conv_ops as c
from tapeflow.ops import nn_ops as nn

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def sa(shape, dtype=F32):
    return ShapedArray(shape, dtype)


def conv(x, w, strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0)), out_hw=None):
    return c._conv2d.shape_rule(sa(x), sa(w), strides=strides, dilations=dilations, pads=pads,
                                out_hw=out_hw)


@pytest.mark.parametrize("x, w, geometry, want", [
    # conv2d(x, w, 2, "SAME"): H 10 -> 5 (pads (0, 1)); unknown W and batch stay unknown
    ([None, 10, None, 3], [3, 3, 3, 8], {"strides": (2, 2), "pads": ((0, 1), (0, 0))},
     (None, 5, None, 8)),
    # conv2d(x, w, 1, "VALID", dilations=2): effective filter 5 x 3
    ([None, 10, 7, 3], [3, 2, 3, 8], {"dilations": (2, 2)}, (None, 6, 5, 8)),
    # explicit padding [[0, 0], [1, 2], [0, 1], [0, 0]], strides 2
    ([None, 10, 7, 3], [3, 2, 3, 8], {"strides": (2, 2), "pads": ((1, 2), (0, 1))},
     (None, 6, 4, 8)),
    # an unknown filter width leaves OW unknown; an unknown-rank input is still rank 4
    ([2, 10, 7, 3], [3, None, 3, 8], {}, (2, 8, None, 8)),
    (None, [3, 3, 3, 8], {"strides": (2, 2)}, (None, None, None, 8)),
])
def test_conv2d_unknown_dims(x, w, geometry, want):
    assert conv(x, w, **geometry) == sa(want)


def test_pools_unknown_dims():
    same = {"ksize": (3, 3), "strides": (2, 2), "pads": ((1, 1), (0, 0))}
    # max_pool2d(x, 3, 2, "SAME") on [2, 5, ?, 3]: TF's [2, 3, ?, 3]
    assert c._max_pool.shape_rule(sa((2, 5, None, 3)), **same) == sa((2, 3, None, 3))
    # avg_pool2d(x, 3, 2, "VALID") on [2, 7, ?, 3]: TF's [2, 3, ?, 3]
    valid = {"ksize": (3, 3), "strides": (2, 2), "pads": ((0, 0), (0, 0))}
    assert c._avg_pool.shape_rule(sa((2, 7, None, 3)), **valid) == sa((2, 3, None, 3))
    # MaxPoolGradGrad: pooled like x, in the cotangent's dtype (SAME over 5 x 4)
    same = {"ksize": (3, 3), "strides": (2, 2), "pads": ((1, 1), (0, 1))}
    got = c._max_pool_grad_grad.shape_rule(sa((None, 5, 4, 3)), sa((None, 5, 4, 3), F64), **same)
    assert got == sa((None, 3, 2, 3), F64)
    # MaxPoolGrad: x's shape (unknown rank: rank 4 still), g's dtype
    assert c._max_pool_grad.shape_rule(sa(None), sa((2, 3, 2, 3), F64), **same) == \
        sa((None,) * 4, F64)


def test_window_rule_matches_the_kernel_where_tf_graphs_refuse():
    # VALID 3x3 window, stride 2, over H 2: TF's eager kernels give H 0, its shape function
    # refuses ("Negative dimension size"); the rule follows the kernel, never refusing it.
    x, w = tf.ones((1, 2, 4, 1), tf.float64), tf.ones((3, 3, 1, 1), tf.float64)
    eager = tf.nn.conv2d(x, w, 2, "VALID")
    assert eager.shape == (1, 0, 1, 1)
    assert conv((1, 2, 4, 1), (3, 3, 1, 1), strides=(2, 2)).shape == (1, 0, 1, 1)


def test_softmax_cross_entropies_unknown_dims():
    # raw SoftmaxCrossEntropyWithLogits [?, 5] x [3, ?]: TF's loss [3]
    got = nn._softmax_xent.shape_rule(sa((None, 5)), sa((3, None)), axis=1)
    assert got == sa((3,))
    assert nn._softmax_xent.shape_rule(sa(None), sa((2, 5)), axis=1) == sa(None)
    # sparse: logits [?, 5], labels [?] -> [?]; unknown-rank logits take the labels' [4]
    sparse = nn._sparse_xent.shape_rule
    assert sparse(sa((None, 5)), sa((None,), np.int32)) == sa((None,))
    assert sparse(sa(None), sa((4,), np.int32)) == sa((4,))
    assert sparse(sa((3, None, 5)), sa((None, 2), np.int64)) == sa((3, 2))


def test_grad_ops_broadcast_a_batch_axis():
    # a vectorized jacobian feeds ReluGrad a cotangent with a leading batch axis
    assert nn._relu_grad.shape_rule(sa((4, None, 5)), sa((3, None))) == sa((4, 3, 5))
    assert nn._softmax.shape_rule(sa(None), axis=0) == sa(None)


@pytest.mark.parametrize("rule, avals, attrs, message", [
    (c._conv2d.shape_rule, [(1, 5, 5, 3), (3, 3, 2, 4)],
     {"strides": (1, 1), "dilations": (1, 1), "pads": ((1, 1), (1, 1))},
     "Depth of input (3) is not a multiple of input depth of filter (2) for '{{node Conv2D}}"),
    (c._conv2d.shape_rule, [(1, 5, 5, 4), (3, 3, 2, 3)],
     {"strides": (1, 1), "dilations": (1, 1), "pads": ((1, 1), (1, 1))},
     "Depth of output (3) is not a multiple of the number of groups (2)"),
    (c._conv2d.shape_rule, [(1, 1, 1, 3), (5, 5, 3, 4)],
     {"strides": (1, 1), "dilations": (1, 1), "pads": ((0, 0), (0, 0))},
     "Negative dimension size caused by subtracting 5 from 1 for '{{node Conv2D}}"),
    (c._conv2d_backprop_input.shape_rule, [(2, 3, 2, 2), (3, 2, 3, 5)],
     {"input_shape": (2, 5, 4, 3), "strides": (2, 2), "dilations": (1, 1),
      "pads": ((1, 1), (0, 1))},
     "Dimensions must be equal, but are 2 and 5 for '{{node Conv2DBackpropInput}}"),
    (c._max_pool.shape_rule, [(2, 4, 3)],
     {"ksize": (3, 3), "strides": (2, 2), "pads": ((0, 0), (0, 0))},
     "Shape must be rank 4 but is rank 3 for '{{node MaxPool}}"),
    (nn._softmax.shape_rule, [()], {"axis": 0},
     "Shape must be at least rank 1 but is rank 0 for '{{node Softmax}}"),
    (nn._softmax_xent.shape_rule, [(3, 5), (3, 4)], {"axis": 1},
     "Dimensions must be equal, but are 5 and 4 for '{{node SoftmaxCrossEntropyWithLogits}}"),
    (nn._softmax_xent.shape_rule, [(3, 5), (2, 5)], {"axis": 1},
     "Dimensions must be equal, but are 3 and 2"),
    (nn._sparse_xent.shape_rule, [(3, 5), (4,)], {},
     "Dimensions must be equal, but are 3 and 4 for "
     "'{{node SparseSoftmaxCrossEntropyWithLogits}}"),
])
def test_conflicting_dims_raise_tf_shape_errors(rule, avals, attrs, message):
    with pytest.raises(ValueError) as info:
        rule(*[sa(s) for s in avals], **attrs)
    assert message in str(info.value)
    assert "with input shapes: " in str(info.value)
