"""Tables of elementwise and reduction primitives, each with the public function that runs it
and the values it accepts, shared by the shape, dtype and forward-mode properties.

`test_prop_tables.py` checks that every entry runs the primitive it names and that every
primitive the forward-mode tables call elementwise is listed here.
"""

from __future__ import annotations

import operator
from typing import Callable, NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf


class Op(NamedTuple):
    """A primitive's public entry point and the element strategy of each argument."""

    fn: Callable
    kinds: tuple  # "float", "positive", "unit", "above1", "order", "prob", "int", "bool"


_ELEMENTS = {
    "float": st.floats(-2.0, 2.0),
    "positive": st.floats(0.25, 2.0),        # logs, roots, reciprocals, gamma functions
    "unit": st.floats(-0.9, 0.9),            # asin, acos, atanh
    "above1": st.floats(1.1, 3.0),           # acosh
    "tan": st.floats(-1.2, 1.2),             # away from tan's poles
    "order": st.sampled_from([0.0, 1.0, 2.0]),  # polygamma's integral order
    "prob": st.floats(0.05, 0.95),           # ndtri's and betainc's x
    "int": st.integers(-8, 8),
    "nonzero_int": st.integers(1, 8),
    "bool": st.booleans(),
}
_NUMPY_DTYPE = {"int": np.int32, "nonzero_int": np.int32, "bool": np.bool_}


def array(kind: str, shape: tuple, dtype=np.float64) -> st.SearchStrategy:
    """Arrays of `shape` drawn from `kind`'s values (float kinds rounded to `dtype`)."""
    if kind in _NUMPY_DTYPE:
        return hnp.arrays(_NUMPY_DTYPE[kind], shape, elements=_ELEMENTS[kind])
    return hnp.arrays(np.float64, shape, elements=_ELEMENTS[kind]).map(
        lambda x: x.astype(dtype))


UNARY = {
    "Abs": Op(tf.abs, ("float",)), "Neg": Op(tf.negative, ("float",)),
    "Sign": Op(tf.sign, ("float",)), "Square": Op(tf.square, ("float",)),
    "Sqrt": Op(tf.sqrt, ("positive",)), "Rsqrt": Op(tf.math.rsqrt, ("positive",)),
    "Reciprocal": Op(tf.math.reciprocal, ("positive",)), "Exp": Op(tf.exp, ("float",)),
    "Expm1": Op(tf.math.expm1, ("float",)), "Log": Op(tf.math.log, ("positive",)),
    "Log1p": Op(tf.math.log1p, ("positive",)), "Sin": Op(tf.sin, ("float",)),
    "Cos": Op(tf.cos, ("float",)), "Tan": Op(tf.tan, ("tan",)),
    "Asin": Op(tf.asin, ("unit",)), "Acos": Op(tf.acos, ("unit",)),
    "Atan": Op(tf.atan, ("float",)), "Asinh": Op(tf.asinh, ("float",)),
    "Acosh": Op(tf.acosh, ("above1",)), "Atanh": Op(tf.atanh, ("unit",)),
    "Sinh": Op(tf.sinh, ("float",)), "Cosh": Op(tf.cosh, ("float",)),
    "Tanh": Op(tf.tanh, ("float",)), "Sigmoid": Op(tf.sigmoid, ("float",)),
    "Softplus": Op(tf.math.softplus, ("float",)), "Erf": Op(tf.math.erf, ("float",)),
    "Erfc": Op(tf.math.erfc, ("float",)), "Lgamma": Op(tf.math.lgamma, ("positive",)),
    "Digamma": Op(tf.math.digamma, ("positive",)),
    "BesselI0e": Op(tf.math.bessel_i0e, ("float",)),
    "BesselI1e": Op(tf.math.bessel_i1e, ("float",)),
    "BesselI0": Op(tf.math.bessel_i0, ("float",)), "BesselI1": Op(tf.math.bessel_i1, ("float",)),
    "BesselJ0": Op(tf.math.special.bessel_j0, ("float",)),
    "BesselJ1": Op(tf.math.special.bessel_j1, ("float",)),
    "BesselK0": Op(tf.math.special.bessel_k0, ("positive",)),
    "BesselK0e": Op(tf.math.special.bessel_k0e, ("positive",)),
    "BesselK1": Op(tf.math.special.bessel_k1, ("positive",)),
    "BesselK1e": Op(tf.math.special.bessel_k1e, ("positive",)),
    "BesselY0": Op(tf.math.special.bessel_y0, ("positive",)),
    "BesselY1": Op(tf.math.special.bessel_y1, ("positive",)),
    "Dawsn": Op(tf.math.special.dawsn, ("float",)),
    "Expint": Op(tf.math.special.expint, ("positive",)),
    "FresnelCos": Op(tf.math.special.fresnel_cos, ("float",)),
    "FresnelSin": Op(tf.math.special.fresnel_sin, ("float",)),
    "Spence": Op(tf.math.special.spence, ("positive",)),
    "Erfinv": Op(tf.math.erfinv, ("unit",)), "Ndtri": Op(tf.math.ndtri, ("prob",)),
    "Relu": Op(tf.nn.relu, ("float",)), "Identity": Op(tf.identity, ("float",)),
    "Floor": Op(tf.floor, ("float",)), "Ceil": Op(tf.math.ceil, ("float",)),
    "Round": Op(tf.round, ("float",)),
}

BINARY = {
    "AddV2": Op(tf.add, ("float", "float")), "Sub": Op(tf.subtract, ("float", "float")),
    "Mul": Op(tf.multiply, ("float", "float")),
    "RealDiv": Op(tf.divide, ("float", "positive")),
    "FloorMod": Op(tf.math.floormod, ("float", "positive")),
    "FloorDiv": Op(tf.math.floordiv, ("float", "positive")),
    "TruncateDiv": Op(tf.truncatediv, ("float", "positive")),
    "TruncateMod": Op(tf.truncatemod, ("float", "positive")),
    "Maximum": Op(tf.maximum, ("float", "float")), "Minimum": Op(tf.minimum, ("float", "float")),
    "Atan2": Op(tf.math.atan2, ("float", "positive")),
    "Pow": Op(tf.pow, ("positive", "float")),
    "Xlogy": Op(tf.math.xlogy, ("float", "positive")),
    "Xlog1py": Op(tf.math.xlog1py, ("float", "positive")),
    "Xdivy": Op(tf.math.xdivy, ("float", "positive")),
    "Polygamma": Op(tf.math.polygamma, ("order", "positive")),
    "Zeta": Op(tf.math.zeta, ("above1", "positive")),
    "NextAfter": Op(tf.math.nextafter, ("float", "float")),
    "Equal": Op(tf.equal, ("float", "float")), "NotEqual": Op(tf.not_equal, ("float", "float")),
    "Less": Op(tf.less, ("float", "float")), "LessEqual": Op(tf.less_equal, ("float", "float")),
    "Greater": Op(tf.greater, ("float", "float")),
    "GreaterEqual": Op(tf.greater_equal, ("float", "float")),
    "LogicalAnd": Op(tf.logical_and, ("bool", "bool")),
    "LogicalOr": Op(tf.logical_or, ("bool", "bool")),
    "LogicalXor": Op(tf.math.logical_xor, ("bool", "bool")),
    # TF's functions are tf.bitwise.*, which tapeflow lacks; the operators on int tensors
    # run the same primitives in both.
    "BitwiseAnd": Op(operator.and_, ("int", "int")),
    "BitwiseOr": Op(operator.or_, ("int", "int")),
    "BitwiseXor": Op(operator.xor, ("int", "int")),
}

TERNARY = {"SelectV2": Op(tf.where, ("bool", "float", "float"))}
# Elementwise, but with no broadcasting (TF's Betainc wants equal shapes or scalars): the
# tables' broadcast draws do not fit it; tests/ops/test_math_more.py checks it.
NOT_BROADCASTING = {"Betainc"}

REDUCTIONS = {
    "Sum": Op(tf.reduce_sum, ("float",)), "Mean": Op(tf.reduce_mean, ("float",)),
    "Max": Op(tf.reduce_max, ("float",)), "Min": Op(tf.reduce_min, ("float",)),
    "Prod": Op(tf.reduce_prod, ("float",)),
    "ReduceLogSumExp": Op(tf.reduce_logsumexp, ("float",)),
    "All": Op(tf.reduce_all, ("bool",)), "Any": Op(tf.reduce_any, ("bool",)),
}

ARG_REDUCTIONS = {"ArgMax": Op(tf.argmax, ("float",)), "ArgMin": Op(tf.argmin, ("float",))}

# Where TensorFlow 2.21 gives no gradient for a float input of a differentiable op (verified:
# tf.math.polygamma's gradient w.r.t. the order `a` is None).
NO_GRADIENT = {("Polygamma", 0), ("Zeta", 0), ("NextAfter", 0), ("NextAfter", 1)}
