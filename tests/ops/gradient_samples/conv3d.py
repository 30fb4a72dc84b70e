"""Finite-difference cases for the 3-D convolution and pooling primitives (ops/conv_ops.py):
the same kernels as the 2-D ones, over one more spatial axis."""

from __future__ import annotations

import numpy as np

from tapeflow.autodiff.core import bind
from tapeflow.ops import conv_ops as c

_rng = np.random.default_rng(11)
_X = _rng.standard_normal((1, 3, 4, 3, 2))
_W = _rng.standard_normal((2, 2, 3, 2, 2))
# Distinct, well-separated values so no max-pool window has a near tie.
_XP = _rng.permutation(3 * 4 * 3 * 2).reshape(1, 3, 4, 3, 2) * 0.1

# conv3d(x, w, strides (2, 1, 2), SAME): out (2, 4, 2), pads ((0, 1), (0, 1), (1, 1)).
_CONV = {"strides": (2, 1, 2), "dilations": (1, 1, 1), "pads": ((0, 1), (0, 1), (1, 1)),
         "out_hw": (2, 4, 2)}
assert c._geometry(_X.shape[1:4], _W.shape[:3], (2, 1, 2), (1, 1, 1), "SAME", "") == (
    _CONV["out_hw"], _CONV["pads"])
_G = _rng.standard_normal((1, 2, 4, 2, 2))
# Grouped: 4 input channels, filter depth 2 (2 groups), 2 output channels.
_X4 = _rng.standard_normal((1, 3, 4, 3, 4))
_W4 = _rng.standard_normal((2, 2, 3, 2, 2))
# Pools: ksize (2, 3, 2), strides (1, 2, 2), SAME: out (3, 2, 2), pads ((0, 1),) * 3.
_POOL = {"ksize": (2, 3, 2), "strides": (1, 2, 2), "pads": ((0, 1), (0, 1), (0, 1)),
         "out_hw": (3, 2, 2)}
assert c._geometry(_X.shape[1:4], _POOL["ksize"], _POOL["strides"], (1, 1, 1), "SAME",
                   "") == (_POOL["out_hw"], _POOL["pads"])
_GP = _rng.standard_normal((1, 3, 2, 2, 2))


def _avg_pool3d(x):
    return bind(c._avg_pool3d, (x,), _POOL)


def _max_pool3d(x):
    return bind(c._max_pool3d, (x,), _POOL)  # the wrapper takes float32 only, as TF's CPU


SAMPLES = {
    "Conv3D": [
        (lambda x, w: c.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"), [_X, _W]),
        (lambda x, w: c.conv_nd(x, w, (1, 1, 1), "VALID", (2, 1, 1)), [_X, _W[:1]]),
        (lambda x, w: c.conv_nd(x, w, (2, 1, 2), "SAME", (1, 1, 1)), [_X4, _W4]),  # grouped
    ],
    "Conv3DBackpropInputV2": [
        (lambda g, w: c.conv3d_transpose(g, w, _X.shape, [1, 2, 1, 2, 1], "SAME"), [_G, _W]),
        (lambda g, w: bind(c._conv3d_backprop_input, (g, w), {"input_shape": _X4.shape,
                                                               **_CONV}), [_G, _W4]),
    ],
    "Conv3DBackpropFilterV2": [
        (lambda x, g: bind(c._conv3d_backprop_filter, (x, g), {"filter_shape": _W.shape,
                                                                **_CONV}), [_X, _G]),
        (lambda x, g: bind(c._conv3d_backprop_filter, (x, g), {"filter_shape": _W4.shape,
                                                                **_CONV}), [_X4, _G]),
    ],
    "AvgPool3D": [(_avg_pool3d, [_X])],
    "AvgPool3DGrad": [
        (lambda g: bind(c._avg_pool3d_grad, (g,), {"input_shape": _X.shape, **_POOL}), [_GP]),
    ],
    "MaxPool3D": [(_max_pool3d, [_XP])],
    "MaxPool3DGrad": [(lambda x, g: bind(c._max_pool3d_grad, (x, g), _POOL), [_XP, _GP])],
    "MaxPool3DGradGrad": [
        (lambda x, cc: bind(c._max_pool3d_grad_grad, (x, cc), _POOL), [_XP, _X]),
    ],
}
