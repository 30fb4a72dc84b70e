"""Shape rules of array_ops' primitives on what the gradient samples do not reach: unknown
dims and ranks, dims known only at run time, and the conflicts TensorFlow's shape functions
reject. Expected shapes and messages are TF 2.21's, read from `tf.function` traces with
`tf.TensorSpec` inputs (noted per test)."""

import numpy as np
import pytest

from tapeflow.framework.abstract import ShapedArray
from tapeflow.autodiff.core import REGISTRY
import tapeflow.ops.array_ops  # noqa: F401 - registers the primitives

F32 = np.float32


def rule(name):
    return REGISTRY[name].shape_rule


def a(shape, dtype=F32):
    return ShapedArray(shape, dtype)


# -- unknown dims and ranks propagate (TF 2.21's static shapes) ---------------------------------

@pytest.mark.parametrize("x, shape, want", [
    ((None, 3), (-1, 3), (None, 3)),        # tf.reshape(x, [-1, 3]), x [None, 3]
    ((None, 3), (2, -1), (2, None)),        # tf.reshape(x, [2, -1])
    ((None, 2, 3), (-1, 6), (None, 6)),
    (None, (-1, 2), (None, 2)),             # unknown rank
    ((2, 3), (-1,), (6,)),                  # fully known: the -1 is inferred
])
def test_reshape_infers_minus_one_only_from_a_known_size(x, shape, want):
    assert rule("Reshape")(a(x), shape=shape) == a(want)


def test_concat_and_stack_merge_unknown_dims():
    # tf.concat([x, y], 1), x [None, 3], y [2, None]: [2, None]; x of unknown rank: the same.
    assert rule("ConcatV2")(a((None, 3)), a((2, None)), axis=1) == a((2, None))
    assert rule("ConcatV2")(a(None), a((2, None)), axis=1) == a((2, None))
    assert rule("ConcatV2")(a((None, 3)), a((None, 4)), axis=1) == a((None, 7))
    # tf.stack([x, y], 1): [2, 2, 3]; with x of unknown rank: [2, 2, None].
    assert rule("Pack")(a((None, 3)), a((2, None)), axis=1) == a((2, 2, 3))
    assert rule("Pack")(a(None), a((2, None)), axis=1) == a((2, 2, None))


def test_tile_of_an_unknown_dim_is_unknown_unless_the_multiple_is_zero():
    # tf.tile: [None, 3] x [2, 3] -> [None, 9]; [None, None] x [0, 1] -> [0, None];
    # unknown rank x [0, 2] -> [0, None].
    assert rule("Tile")(a((None, 3)), multiples=(2, 3)) == a((None, 9))
    assert rule("Tile")(a((None, None)), multiples=(0, 1)) == a((0, None))
    assert rule("Tile")(a(None), multiples=(0, 2)) == a((0, None))


def test_split_transpose_gather_one_hot_with_unknown_dims():
    # tf.split(x, [1, 2], axis=1), x [None, None]: [None, 1], [None, 2]; unknown rank stays.
    assert rule("SplitV")(a((None, None)), sizes=(1, 2), axis=1) == (a((None, 1)),
                                                                      a((None, 2)))
    assert rule("SplitV")(a(None), sizes=(1, 2), axis=1) == (a(None), a(None))
    assert rule("SplitV")(a((None, 5)), sizes=(1, -1), axis=1) == (a((None, 1)),
                                                                    a((None, 4)))
    # tf.transpose(x, [1, 0]) of unknown rank: [None, None].
    assert rule("Transpose")(a(None), perm=(1, 0)) == a((None, None))
    # tf.gather(x, i, axis=1), x [None, 3, 5], i [None, 2]: [None, None, 2, 5].
    assert rule("GatherV2")(a((None, 3, 5)), a((None, 2), np.int32), axis=1,
                            batch_dims=0) == a((None, None, 2, 5))
    # tf.one_hot(i, 4, axis=0), i [None, 2]: [4, None, 2].
    assert rule("OneHot")(a((None, 2), np.int32), a((), F32), a((), F32), depth=4,
                          axis=0) == a((4, None, 2))
    # tf.broadcast_to(x, [2, 4]) of [None, None] or of unknown rank: [2, 4].
    assert rule("BroadcastTo")(a((None, None)), shape=(2, 4)) == a((2, 4))
    assert rule("BroadcastTo")(a(None), shape=(2, 4)) == a((2, 4))


def test_strided_slice_with_unknown_dims():
    s = rule("StridedSlice")
    # x[1:, None, ..., ::-2], x [None, 7]: [None, 1, 4]; x[..., 1], x [None, None, 3]:
    # [None, None]; x[:2, 1:, ::2] of unknown dims: [None, None, None].
    assert s(a((None, 7)), key=(slice(1, None), None, Ellipsis, slice(None, None, -2))) == \
        a((None, 1, 4))
    assert s(a((None, None, 3)), key=(Ellipsis, 1)) == a((None, None))
    assert s(a((None,) * 3), key=(slice(None, 2), slice(1, None), slice(None, None, 2))) == \
        a((None, None, None))
    assert s(a(None), key=(0,)) == a(None)


@pytest.mark.parametrize("shape, key", [
    ((3, 4, 5), (slice(None), [0, 2], None)),            # adjacent: in place
    ((3, 4, 5), ([0, 1], slice(None), [[1], [2]])),      # apart: the index dims lead
    ((3, 4, 5), (0, Ellipsis, [1, 2])),                  # an int among arrays is one of them
    ((3, 4, 5), (np.array([[True, False, True, True]] * 3),)),   # a mask: its nonzero()
    ((3, 4, 5), (slice(1, None), np.array([1, -1]), Ellipsis, 2)),  # ... parts them too
])
def test_index_arrays_follow_numpy(shape, key):
    want = np.zeros(shape)[key].shape
    assert rule("StridedSlice")(a(shape), key=key) == a(want)
    # The dims a slice leaves alone may be unknown; the index arrays' dims stay known.
    relaxed = rule("StridedSlice")(a((None,) + shape[1:]), key=key).shape
    assert len(relaxed) == len(want)
    assert all(d is None or d == n for d, n in zip(relaxed, want))


# -- dims known only at run time are None, even on known shapes ---------------------------------

def test_dynamic_slice_with_a_tensor_bound_has_an_unknown_dim():
    # x[i, :j] with i, j scalar tensors (a traced key): i drops its dim, the slice's length
    # is j's value.
    template = (("input", 0), slice(None, ("input", 1), None))
    got = rule("DynamicStridedSlice")(a((3, 4)), a((), np.int32), a((), np.int64),
                                      template=template)
    assert got == a((None,))
    got = rule("DynamicStridedSlice")(a((3, 4)), a((), np.int32), template=(("input", 0),))
    assert got == a((4,))


def test_range_length_depends_on_its_bounds():
    # tf.range(n), n an int32 TensorSpec([]): [None] int32.
    scalar = a((), np.int32)
    assert rule("Range")(scalar, scalar, scalar) == a((None,), np.int32)


def test_unstack_needs_a_known_axis_length():
    # tf.unstack(x), x [None, 3]: ValueError: Cannot infer argument `num` from shape (None, 3)
    with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape \(None, 3\)"):
        rule("Unpack")(a((None, 3)), axis=0)
    assert rule("Unpack")(a((None, 3)), axis=1) == (a((None,)),) * 3


# -- conflicting known dims: TF 2.21's shape-function errors ------------------------------------

@pytest.mark.parametrize("name, inputs, attrs, message", [
    # tf.concat([x, y], 0), x [2, 3], y [2, 4]
    ("ConcatV2", [(2, 3), (2, 4)], {"axis": 0},
     "Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are [3] and [4]."),
    # tf.concat([x, y], 0), x [2, 3], y [2, 3, 1]
    ("ConcatV2", [(2, 3), (2, 3, 1)], {"axis": 0}, "Shape must be rank 2 but is rank 3"),
    # tf.stack([x, y]), x [2, 3], y [2, 4]; y [2]
    ("Pack", [(2, 3), (2, 4)], {"axis": 0},
     "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and [2,4]."),
    ("Pack", [(2, 3), (2,)], {"axis": 0}, "Shapes must be equal rank, but are 2 and 1"),
    # tf.reshape(x, [4]) and tf.reshape(x, [-1, 4]), x [2, 3]
    ("Reshape", [(2, 3)], {"shape": (4,)},
     "Cannot reshape a tensor with 6 elements to shape [4] (4 elements)"),
    ("Reshape", [(2, 3)], {"shape": (-1, 4)},
     "Dimension size must be evenly divisible by 4 but is 6"),
    # tf.transpose(x, [1, 0, 2]), x [2, 3]
    ("Transpose", [(2, 3)], {"perm": (1, 0, 2)}, "Dimension must be 2 but is 3"),
    # tf.tile(x, [2, 3, 1]), x [2, 3]
    ("Tile", [(2, 3)], {"multiples": (2, 3, 1)}, "Shape must be rank 2 but is rank 3"),
    # tf.broadcast_to(x, [2, 4]), x [2, 3]; x [1, 2, 3] to [2, 3]
    ("BroadcastTo", [(2, 3)], {"shape": (2, 4)}, "Dimensions must be equal, but are 3 and 4"),
    ("BroadcastTo", [(1, 2, 3)], {"shape": (2, 3)}, "Shape must be at most rank 2 but is rank 3"),
    # tf.split(x, [1, 2], axis=1), x [2, 4]
    ("SplitV", [(2, 4)], {"sizes": (1, 2), "axis": 1},
     "can't split axis of size 4 into pieces of size [1,2]"),
    # x[5] and x[:, -4], x [2, 3]
    ("StridedSlice", [(2, 3)], {"key": (5,)}, "slice index 5 of dimension 0 out of bounds."),
    ("StridedSlice", [(2, 3)], {"key": (slice(None), -4)},
     "slice index -1 of dimension 1 out of bounds."),
])
def test_conflicting_dims_raise_tensorflows_value_error(name, inputs, attrs, message):
    with pytest.raises(ValueError) as info:
        rule(name)(*(a(s) for s in inputs), **attrs)
    assert message in str(info.value)
    assert name in str(info.value)


def test_unknown_dims_never_conflict():
    # The same inputs with the clashing dims unknown are accepted.
    assert rule("ConcatV2")(a((2, None)), a((None, 4)), axis=0) == a((None, 4))
    assert rule("Pack")(a((2, None)), a((2, 4)), axis=0) == a((2, 2, 4))
    assert rule("BroadcastTo")(a((None, 1)), shape=(2, 4)) == a((2, 4))
    assert rule("StridedSlice")(a((None, 3)), key=(5,)) == a((3,))


def test_shape_attributes_of_traced_values_may_hold_unknown_dims():
    # Derivative rules pass traced shapes on as attributes (reshape(g, x.shape)): an unknown
    # target dim is inferred as a -1 would be, or stays unknown; it never conflicts.
    assert rule("Reshape")(a((2,)), shape=(None,)) == a((2,))
    assert rule("Reshape")(a((2, 3)), shape=(None, None)) == a((None, None))
    assert rule("Reshape")(a((None, 3)), shape=(None, 3)) == a((None, 3))
    assert rule("BroadcastTo")(a((3, 1)), shape=(2, None, None)) == a((2, 3, None))
    assert rule("SplitV")(a((2, 5)), sizes=(None, 2), axis=1) == (a((2, None)), a((2, 2)))
    assert rule("Fill")(a(()), shape=(None, 3)) == a((None, 3))
    assert rule("StridedSliceGrad")(a((2,)), shape=(None, 3), key=(0,)) == a((None, 3))
