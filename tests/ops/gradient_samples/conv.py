"""Finite-difference cases for the convolution and pooling primitives (ops/conv_ops.py)."""

from __future__ import annotations

import numpy as np

from tapeflow.autodiff.core import bind
from tapeflow.ops import conv_ops as c

_rng = np.random.default_rng(7)
_X = _rng.standard_normal((2, 5, 4, 3))
_W = _rng.standard_normal((3, 2, 3, 2))
# Distinct, well-separated values so no max-pool window has a near tie.
_XP = (_rng.permutation(2 * 5 * 4 * 3).reshape(2, 5, 4, 3) * 0.1)

# conv2d(x, w, strides=2, SAME) geometry: out (3, 2), pads ((1, 1), (0, 1)).
_CONV = {"strides": (2, 2), "dilations": (1, 1), "pads": ((1, 1), (0, 1)), "out_hw": (3, 2)}
_G = _rng.standard_normal((2, 3, 2, 2))
_POOL = {"ksize": (3, 3), "strides": (2, 2), "pads": ((1, 1), (1, 1)), "out_hw": (3, 2)}
_GP = _rng.standard_normal((2, 3, 2, 3))
# Grouped: 4 input channels, filter depth 2 (2 groups), 4 output channels; same geometry.
_X4 = _rng.standard_normal((2, 5, 4, 4))
_W4 = _rng.standard_normal((3, 2, 2, 4))
_G4 = _rng.standard_normal((2, 3, 2, 4))

SAMPLES = {
    "Conv2D": [
        (lambda x, w: c.conv2d(x, w, 2, "SAME"), [_X, _W]),
        (lambda x, w: c.conv2d(x, w, 1, "VALID", dilations=2), [_X, _W[:2]]),
        (lambda x, w: c.conv2d(x, w, 2, "SAME"), [_X4, _W4]),  # grouped
        (lambda x, w: c.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), [_X, _W[..., :2]]),
    ],
    "Conv2DBackpropInput": [
        (lambda g, w: bind(c._conv2d_backprop_input, (g, w), {"input_shape": _X.shape,
                                                               **_CONV}), [_G, _W]),
        (lambda g, w: bind(c._conv2d_backprop_input, (g, w), {"input_shape": _X4.shape,
                                                               **_CONV}), [_G4, _W4]),
    ],
    "Conv2DBackpropFilter": [
        (lambda x, g: bind(c._conv2d_backprop_filter, (x, g), {"filter_shape": _W.shape,
                                                                **_CONV}), [_X, _G]),
        (lambda x, g: bind(c._conv2d_backprop_filter, (x, g), {"filter_shape": _W4.shape,
                                                                **_CONV}), [_X4, _G4]),
    ],
    "AvgPool": [(lambda x: c.avg_pool2d(x, 3, 2, "SAME"), [_X])],
    "AvgPoolGrad": [
        (lambda g: bind(c._avg_pool_grad, (g,), {"input_shape": _X.shape, **_POOL}), [_GP]),
    ],
    "MaxPool": [(lambda x: c.max_pool2d(x, 3, 2, "SAME"), [_XP]),
                (lambda x: c.max_pool2d(x, 2, 2, "VALID"), [_XP])],
    "MaxPoolGrad": [
        (lambda x, g: bind(c._max_pool_grad, (x, g), _POOL), [_XP, _GP]),
    ],
    "MaxPoolGradGrad": [
        (lambda x, cc: bind(c._max_pool_grad_grad, (x, cc), _POOL), [_XP, _X]),
    ],
}
