"""Shape rules of the index-driven and manipulation primitives (index_ops, manip_ops) where
the gradient samples do not reach them: unknown dims, value-dependent dims, conflicts.

The expected shapes and error texts are TF 2.21's answers, from a `tf.function` traced with
`tf.TensorSpec`s of these shapes.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow  # noqa: F401 - registers every primitive
from tapeflow.framework.abstract import ShapedArray
from tapeflow.autodiff.core import REGISTRY

F32, I32, I64 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int64)


def rule(name, *avals, **attrs):
    return REGISTRY[name].shape_rule(*avals, **attrs)


def test_gather_nd_unknown_dims_propagate():
    # TF: params [None,None,3], indices [None,5,2] -> [None,5,3]; [None,3] by [None,1] -> [None,3].
    got = rule("GatherNd", ShapedArray((None, None, 3), F32), ShapedArray((None, 5, 2), I32))
    assert got == ShapedArray((None, 5, 3), F32)
    got = rule("GatherNd", ShapedArray((None, 3), F32), ShapedArray((None, 1), I32))
    assert got == ShapedArray((None, 3), F32)


def test_gather_nd_unknown_depth_gives_unknown_rank():
    # TF: params [2,None], indices [4,None] -> <unknown>.
    got = rule("GatherNd", ShapedArray((2, None), F32), ShapedArray((4, None), I32))
    assert got == ShapedArray(None, F32)


def test_gather_nd_depth_beyond_params_rank_is_a_value_error():
    # TF: "indices.shape[-1] must be <= params.rank, but saw indices shape: [4,3] and params
    # shape: [2,2] for '{{node GatherNd}} = ..."
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] must be <= params.rank, but saw "
                                         r"indices shape: \[4,3\] and params shape: \[2,2\]"):
        rule("GatherNd", ShapedArray((2, 2), F32), ShapedArray((4, 3), I32))


def test_scatter_nd_conflicting_dims():
    # TF: "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match dimensions [0,1) of
    # updates[shape=[3,3]] = [3]: Dimension 0 in both shapes must be equal, but are 2 and 3."
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                         "2 and 3.*ScatterNd"):
        rule("ScatterNd", ShapedArray((2, 1), I32), ShapedArray((3, 3), F32), shape=(5, 3))
    # TF: "... but are 3 and 4 ..." for updates [2,4] into [5,3].
    with pytest.raises(ValueError, match="but are 3 and 4.*TensorScatterUpdate"):
        rule("TensorScatterUpdate", ShapedArray((5, 3), F32), ShapedArray((2, 1), I32),
             ShapedArray((2, 4), F32))
    # TF: unknown dims do not conflict: [None,1], [None,3] into [5,3] -> [5,3].
    got = rule("ScatterNd", ShapedArray((None, 1), I32), ShapedArray((None, 3), F32),
               shape=(5, 3))
    assert got == ShapedArray((5, 3), F32)


def test_segment_reductions():
    # TF: data [None,2,5], ids [None,2], 4 segments -> [4,5]; a tensor num_segments -> [None,5].
    got = rule("UnsortedSegmentMax", ShapedArray((None, 2, 5), F32),
               ShapedArray((None, 2), I32), num_segments=4)
    assert got == ShapedArray((4, 5), F32)
    got = rule("UnsortedSegmentSum", ShapedArray((3, 5), F32), ShapedArray((3,), I32),
               num_segments=None)
    assert got == ShapedArray((None, 5), F32)
    # TF: "Dimensions must be equal, but are 3 and 2 for '{{node UnsortedSegmentSum}} = ..."
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2 for "
                                         "'{{node UnsortedSegmentSum}}"):
        rule("UnsortedSegmentSum", ShapedArray((3, 5), F32), ShapedArray((2,), I32),
             num_segments=4)


def test_unique_counts_are_value_dependent():
    # TF: x [5] -> y [None], idx [5], count [None], even on a known shape.
    y, idx, count = rule("UniqueWithCounts", ShapedArray((5,), F32), dtype=I64)
    assert (y, idx, count) == (ShapedArray((None,), F32), ShapedArray((5,), I64),
                               ShapedArray((None,), I64))
    y, idx, count = rule("UniqueWithCounts", ShapedArray((None,), F32), dtype=I32)
    assert idx == ShapedArray((None,), I32)


def test_top_k():
    # TF: top_k(x [None,None], 2) -> [None,2]; k = 5 of 3 columns is a ValueError.
    got = rule("TopKV2", ShapedArray((None, None), F32), descending=True, dtype=I32, k=2)
    assert got == ShapedArray((None, 2), I32)
    # A full sort (argsort: no k) keeps the last dim, known or not.
    got = rule("TopKV2", ShapedArray((3, None), F32), descending=False, dtype=I32)
    assert got == ShapedArray((3, None), I32)
    with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 3"):
        rule("TopKV2", ShapedArray((2, 3), F32), descending=True, dtype=I32, k=5)
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        rule("TopKV2", ShapedArray((), F32), descending=True, dtype=I32, k=1)


def test_pad_and_in_top_k_keep_known_dims():
    # TF: pad([None,3], [[1,2],[0,1]]) -> [None,4]; an unknown rank -> [None,None].
    got = rule("PadV2", ShapedArray((None, 3), F32), ShapedArray((), F32),
               paddings=((1, 2), (0, 1)))
    assert got == ShapedArray((None, 4), F32)
    got = rule("PadV2", ShapedArray(None, F32), ShapedArray((), F32), paddings=((1, 2), (0, 1)))
    assert got == ShapedArray((None, None), F32)
    # TF: in_top_k(targets [3], predictions [None,4]) -> [3]; [3,4] with [2] conflicts.
    got = rule("InTopKV2", ShapedArray((None, 4), F32), ShapedArray((3,), I32), k=2)
    assert got == ShapedArray((3,), np.bool_)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2 for "
                                         "'{{node InTopKV2}}"):
        rule("InTopKV2", ShapedArray((3, 4), F32), ShapedArray((2,), I32), k=2)


def test_unknown_rank_passes_through():
    for name in ("Cumsum", "Cumprod", "CumulativeLogsumexp", "ReverseV2", "Roll"):
        assert REGISTRY[name].shape_rule(ShapedArray(None, F32)) == ShapedArray(None, F32)
    got = rule("DenseBincount", ShapedArray((None, 3), I32), ShapedArray((0,), I32), size=4,
               binary_output=False, dtype=I32)
    assert got == ShapedArray((None, 4), I32)
    got = rule("HistogramFixedWidth", ShapedArray(None, F32), ShapedArray((2,), F32), nbins=7,
               dtype=I32)
    assert got == ShapedArray((7,), I32)   # TF: [7]
