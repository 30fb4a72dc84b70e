"""Records Keras 3.15's `keras.ops.numpy` (TensorFlow backend) on a table of cases, for
tests/keras/ops/test_keras_ops_numpy.py.

Run with the reference environment (TensorFlow 2.21, Keras 3.15.1):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras_ops_numpy.py
It writes tests/keras/ops/fixtures/keras_ops_numpy.npz: the inputs (generated here with a
seeded NumPy generator), each case's call as JSON, and Keras's outputs (values, dtypes and
shapes) or the class of the error it raised; plus every name of keras.ops.numpy with its
parameter names.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import sys

import numpy as np

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "ops", "fixtures",
                       "keras_ops_numpy.npz")


def inputs() -> dict:
    """The named input arrays every case draws from (seeded, so reproducible)."""
    rng = np.random.default_rng(1234)

    def normal(*shape: int, dtype: str = "float32") -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    def uniform(lo: float, hi: float, *shape: int) -> np.ndarray:
        return rng.uniform(lo, hi, shape).astype("float32")

    return {
        "f": normal(2, 3), "f64": normal(2, 3, dtype="float64"),
        "i": rng.integers(-5, 6, (2, 3)).astype("int32"),
        "i64": rng.integers(-5, 6, (2, 3)).astype("int64"),
        "ip": rng.integers(1, 7, (2, 3)).astype("int32"),
        "u8": rng.integers(0, 9, (2, 3)).astype("uint8"),
        "b": rng.random((2, 3)) > 0.5, "row": normal(3), "row64": normal(3, dtype="float64"),
        "irow": rng.integers(-3, 4, (3,)).astype("int32"),
        "p": uniform(0.5, 3.0, 2, 3), "p64": uniform(0.5, 3.0, 2, 3).astype("float64"),
        "unit": uniform(-0.9, 0.9, 2, 3), "gt1": uniform(1.1, 3.0, 2, 3),
        "c": normal(2, 3, 4), "ic": rng.integers(-4, 5, (2, 3, 4)).astype("int32"),
        "m": normal(3, 3), "m64": normal(3, 3, dtype="float64"), "m2": normal(3, 4),
        "im": rng.integers(-3, 4, (3, 3)).astype("int32"), "v4": normal(4),
        "nanf": np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], "float32"),
        "inff": np.array([[1.0, np.inf, -np.inf], [np.nan, 0.0, -2.0]], "float32"),
        "zeros": np.array([[0.0, -0.0, 1.0], [-1.0, 0.0, 2.0]], "float32"),
        "half": np.array([[0.5, 1.5, 2.5], [-0.5, -1.5, 3.49]], "float32"),
        "idx": np.array([2, 0, -1], "int32"), "idx2": np.array([[0, 2, 1], [1, 0, 0]], "int32"),
        "sorted": np.array([-1.0, 0.0, 0.5, 2.0, 4.0], "float32"),
        "cnt": np.array([0, 1, 1, 3, 2, 1, 7], "int32"), "w7": normal(7),
        "dup": np.array([[3, 1, 2], [3, 2, 2]], "int32"),
        "c3": normal(4, 3), "d3": normal(4, 3), "c2": normal(4, 2),
        "bits": rng.integers(0, 64, (2, 3)).astype("int32"),
        "sh": rng.integers(0, 4, (2, 3)).astype("int32"),
        "x4": np.array([0.0, 1.0, 2.5, 4.0], "float32"),
        "cplx": (normal(2, 3) + 1j * normal(2, 3)).astype("complex64"),
        "ib": rng.integers(0, 2, (2, 3)).astype("int32"),
    }


X = inputs()
A = {name: {"@a": name} for name in X}   # references to the stored inputs


def T(*items: object) -> dict:
    return {"@t": list(items)}


def L(*items: object) -> dict:
    return {"@l": list(items)}


UNARY_FLOAT = ["sqrt", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "cos",
               "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
               "arccosh", "arctanh", "ceil", "floor", "cbrt", "angle", "deg2rad", "rad2deg",
               "i0", "sinc", "sign", "signbit", "trunc", "reciprocal", "fabs", "absolute",
               "abs", "negative", "square", "isnan", "isinf", "isfinite", "isneginf",
               "isposinf", "isreal", "real", "imag", "conj", "conjugate", "copy",
               "logical_not", "round", "nan_to_num"]
# A float input inside each unary op's domain.
DOMAIN = {"sqrt": "p", "log": "p", "log10": "p", "log1p": "p", "log2": "p", "arcsin": "unit",
          "arccos": "unit", "arctanh": "unit", "arccosh": "gt1", "reciprocal": "p"}
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "divide_no_nan",
          "floor_divide", "maximum", "minimum", "fmax", "fmin", "power", "mod", "fmod",
          "arctan2", "hypot", "heaviside", "logaddexp", "logaddexp2", "nextafter", "equal",
          "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
          "logical_or", "logical_xor", "isclose", "allclose", "append", "outer", "kron"]
REDUCE = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any",
          "ptp", "argmax", "argmin", "nanargmax", "nanargmin", "nanmax", "nanmin", "nansum",
          "nanprod", "nanmean", "nanvar", "nanstd", "median", "nanmedian"]
INT_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"]


def cases() -> list:
    """(name, args, kwargs) for each recorded call."""
    out = []

    def add(name: str, *args: object, **kwargs: object) -> None:
        out.append((name, list(args), kwargs))

    for name in UNARY_FLOAT:
        x = A[DOMAIN.get(name, "f")]
        add(name, x)
        add(name, A["ip"] if name in DOMAIN else A["i"])
        add(name, A["f64"] if name not in DOMAIN else A["p64"])
        add(name, [[1, 2], [3, 4]] if name not in ("arcsin", "arccos", "arctanh") else [0, 0])
        add(name, A["i64"] if name not in DOMAIN else A["ip"])
        add(name, A["u8"])
        add(name, A["b"])
    for name in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "nan_to_num", "sign",
                 "signbit", "abs", "trunc", "ceil", "floor"):
        add(name, A["inff"])
        add(name, A["zeros"])
    add("nan_to_num", A["inff"], nan=-1.0, posinf=9.0, neginf=-9.0)
    add("round", A["half"])
    add("round", A["f"], decimals=2)
    add("round", A["i"], decimals=-1)
    add("round", A["i"], decimals=1)
    for name in ("real", "imag", "conj", "angle", "abs", "isreal"):
        add(name, A["cplx"])
    for name in BINARY:
        add(name, A["f"], A["row"])
        add(name, A["i"], A["f"])
        add(name, A["f"], 2)
        add(name, A["ip"], 1.5)
        add(name, 3, A["ip"])
        add(name, A["f64"], A["f"])
        add(name, A["i"], A["ip"])
        add(name, A["i64"], A["ip"])
        add(name, A["u8"], A["ip"])
        add(name, A["b"], A["ip"])
        add(name, [1.0, 2.0, 3.0], A["row"])
    for name in ("fmax", "fmin", "maximum", "minimum", "isclose", "allclose", "equal"):
        add(name, A["nanf"], A["f"])
    add("isclose", A["nanf"], A["nanf"], equal_nan=True)
    add("allclose", A["f"], A["f"], rtol=0.0, atol=0.0)
    add("append", A["f"], A["f"], axis=1)
    for name in INT_BINARY:
        add(name, A["i"], A["ip"])
        add(name, A["bits"], A["irow"])
        add(name, A["u8"], A["ip"])
        add(name, A["i64"], 3)
    add("gcd", A["f"], A["f"])
    add("lcm", A["f"], A["i"])
    for name in ("bitwise_left_shift", "left_shift", "bitwise_right_shift", "right_shift"):
        add(name, A["bits"], A["sh"])
        add(name, A["bits"], 2)
        add(name, A["u8"], A["sh"])
    for name in ("bitwise_invert", "bitwise_not"):
        add(name, A["bits"])
        add(name, A["u8"])
        add(name, A["b"])
    add("ldexp", A["f"], A["sh"])
    add("ldexp", A["i"], A["sh"])
    add("ldexp", A["f"], A["f"])
    for name in REDUCE:
        for x in ("c", "ic", "b", "f64", "nanf", "u8"):
            add(name, A[x])
        add(name, A["c"], axis=1)
        add(name, A["c"], axis=(0, 2), keepdims=True)
        add(name, A["c"], axis=-1, keepdims=True)
        add(name, A["ic"], axis=0)
        add(name, A["nanf"], axis=1)
    add("max", A["f"], initial=1.0)
    add("min", A["i"], axis=0, initial=-2)
    add("max", A["b"], initial=0)
    add("max", np.zeros((0,), "float32"))
    add("prod", A["i"], dtype="float32")
    add("prod", A["u8"], axis=0)
    for name in ("count_nonzero",):
        for x in ("i", "b", "c", "zeros"):
            add(name, A[x])
        add(name, A["ic"], axis=1)
        add(name, A["ic"], axis=(0, 2))
    for name in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
        for x in ("f", "i", "b", "nanf", "u8", "f64"):
            add(name, A[x])
        add(name, A["c"], axis=1)
        add(name, A["i"], axis=-1, dtype="float32")
    add("average", A["c"])
    add("average", A["c"], axis=1)
    add("average", A["ic"], axis=2, weights=A["v4"])
    add("average", A["c"], axis=None, weights=A["c"])
    add("average", A["f"], axis=1, weights=A["p"])
    for name in ("quantile", "nanquantile"):
        for x in ("c", "ic", "nanf", "f64"):
            add(name, A[x], 0.3)
        add(name, A["c"], [0.1, 0.5, 0.9], axis=1)
        add(name, A["c"], 0.25, axis=(0, 2), keepdims=True)
        add(name, A["c"], np.array([0.2, 0.7], "float32"), axis=None, keepdims=True)
        for method in ("lower", "higher", "nearest", "midpoint"):
            add(name, A["c"], 0.4, axis=-1, method=method)
        add(name, A["nanf"], 0.5, axis=1)
    for name in ("percentile", "nanpercentile"):
        add(name, A["c"], 30)
        add(name, A["c"], [10, 90], axis=1)
        add(name, A["ic"], 50, axis=-1, keepdims=True)
        add(name, A["nanf"], 50, axis=1)
    add("median", A["c"], axis=(1, 2))
    add("nanmedian", A["nanf"], axis=())
    # creation
    for name in ("zeros", "ones", "empty"):
        add(name, (2, 3))
        add(name, [4], dtype="int32")
        add(name, 3, dtype="bool")
        add(name, (2, 0), dtype="float64")
    for name in ("zeros_like", "ones_like", "empty_like"):
        add(name, A["i"])
        add(name, A["f"], dtype="int64")
        add(name, [[1.0, 2.0]])
    add("full", (2, 3), 7)
    add("full", (2,), 1.5, dtype="int32")
    add("full", (3, 2), 2.5, dtype="float64")
    add("full", (2, 3), A["row"])
    add("full_like", A["i"], 2.7)
    add("full_like", A["f"], 3, dtype="int32")
    add("full_like", A["b"], 1)
    add("array", [[1, 2], [3, 4]])
    add("array", [1.5, 2.5], dtype="int32")
    add("array", A["f64"])
    add("array", A["i"], dtype="float16")
    add("array", 3.0)
    add("arange", 5)
    add("arange", 1, 7, 2)
    add("arange", 0.5, 3)
    add("arange", 0, 1, 0.25)
    add("arange", 2, 9, dtype="float64")
    add("arange", 3, dtype="int8")
    add("arange", 5, 0, -1)
    add("arange", np.int64(4))
    add("arange", np.float64(2.0), 5)
    add("eye", 3)
    add("eye", 3, 4, 1)
    add("eye", 4, 3, k=-2, dtype="int32")
    add("eye", 2, dtype="bool")
    add("eye", 3.0)
    add("identity", 3)
    add("identity", 2, dtype="int64")
    add("tri", 3)
    add("tri", 3, 4, 1)
    add("tri", 4, 3, k=-1, dtype="int32")
    add("tri", 3, k=-5)
    add("linspace", 0, 1, 5)
    add("linspace", 0.0, 10.0, num=4, endpoint=False)
    add("linspace", 1, 10, 4, dtype="int32")
    add("linspace", 2.0, 3.0, num=5, retstep=True)
    add("linspace", A["row"], X["v4"][:3], 3, axis=1)
    add("linspace", 0, 1, 1)
    add("linspace", 0, 1, 0)
    add("linspace", 0, 1, -1)
    add("linspace", np.float64(0), 1, 3)
    add("logspace", 0, 2, 3)
    add("logspace", 0.0, 1.0, num=4, endpoint=False, base=2)
    add("logspace", 1, 3, 3, dtype="float64")
    add("geomspace", 1, 1000, 4)
    add("geomspace", -1.0, -16.0, num=5)
    add("geomspace", 2, 32, 5, endpoint=False, dtype="float64")
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        add(name, 5)
        add(name, 1)
        add(name, 8)
    add("kaiser", 5, 2.0)
    add("kaiser", 8, 14.0)
    # shape and indexing
    add("reshape", A["f"], (3, 2))
    add("reshape", A["c"], (-1,))
    add("reshape", A["c"], [4, -1])
    add("reshape", A["f"], 6)
    add("reshape", A["f"], (-1, -1))
    add("reshape", A["f"], (4, 2))
    add("reshape", A["f"], (-2, 3))
    add("reshape", A["f"], (None, 3))
    add("transpose", A["c"])
    add("transpose", A["c"], (2, 0, 1))
    add("transpose", A["c"], axes=[-1, 0, 1])
    add("transpose", A["f"], (0, 0))
    add("expand_dims", A["f"], 0)
    add("expand_dims", A["f"], -1)
    add("expand_dims", A["f"], (0, 3))
    add("expand_dims", A["f"], 5)
    add("squeeze", np.ones((1, 3, 1), "float32"))
    add("squeeze", np.ones((1, 3, 1), "float32"), axis=0)
    add("squeeze", np.ones((1, 3, 1), "float32"), axis=(0, -1))
    add("squeeze", A["f"], axis=0)
    add("ravel", A["c"])
    add("ravel", 3)
    add("broadcast_to", A["row"], (2, 3))
    add("broadcast_to", 1.5, (2,))
    add("broadcast_to", A["f"], (4, 2, 3))
    add("broadcast_to", A["f"], (3, 3))
    add("moveaxis", A["c"], 0, -1)
    add("moveaxis", A["c"], (0, 1), (2, 0))
    add("moveaxis", A["c"], (0, 1), (2,))
    add("swapaxes", A["c"], 0, 2)
    add("swapaxes", A["c"], -1, 1)
    add("swapaxes", A["c"], 1, 1)
    add("concatenate", L(A["f"], A["f"]))
    add("concatenate", L(A["f"], A["i"]), axis=1)
    add("concatenate", T(A["f64"], A["f"]), axis=-1)
    add("concatenate", L(A["f"], A["row"]))
    add("stack", L(A["f"], A["f"]))
    add("stack", L(A["f"], A["i"]), axis=2)
    add("stack", L(A["row"], A["irow"]), axis=-1)
    add("stack", L(1, 2.5))
    add("hstack", L(A["f"], A["i"]))
    add("hstack", L(A["row"], A["row"]))
    add("vstack", L(A["f"], A["row"]))
    add("vstack", L(A["f"], A["i"]))
    add("dstack", L(A["f"], A["f"]))
    add("dstack", L(A["row"], A["irow"]))
    for name in ("split", "array_split"):
        add(name, A["c2"], 2)
        add(name, A["c"], 3, axis=1)
        add(name, A["c"], 2, axis=-1)
    add("split", A["c2"], [1, 3])
    add("split", A["c"], [1], axis=2)
    add("split", A["c2"], 3)
    add("array_split", A["c"], 3, axis=2)
    add("array_split", A["c2"], [1, 2])
    add("array_split", A["c2"], 0)
    add("hsplit", A["c"], 3)
    add("hsplit", A["row"], 3)
    add("vsplit", A["c2"], [1])
    add("dsplit", A["c"], 2)
    add("tile", A["f"], 2)
    add("tile", A["f"], (2, 1))
    add("tile", A["row"], (2, 1, 2))
    add("tile", A["c"], [2])
    add("repeat", A["f"], 2)
    add("repeat", A["f"], 2, axis=1)
    add("repeat", A["f"], [1, 3], axis=0)
    add("repeat", A["u8"], 2)
    add("flip", A["c"])
    add("flip", A["c"], 1)
    add("flip", A["c"], (0, -1))
    add("fliplr", A["f"])
    add("flipud", A["c"])
    add("roll", A["f"], 1)
    add("roll", A["c"], -2, axis=2)
    add("roll", A["c"], (1, 2), axis=(0, 1))
    add("rot90", A["f"])
    add("rot90", A["c"], k=2)
    add("rot90", A["c"], k=3, axes=(1, 2))
    add("rot90", A["c"], k=-1, axes=(0, -1))
    add("rot90", A["row"])
    add("pad", A["f"], 1)
    add("pad", A["f"], ((1, 0), (0, 2)))
    add("pad", A["f"], ((1, 2),))
    add("pad", A["f"], (1, 2))
    add("pad", A["f"], [(1,), (2,)])
    add("pad", A["f"], ((1, 1), (2, 2)), mode="reflect")
    add("pad", A["f"], ((1, 1), (2, 2)), mode="symmetric")
    add("pad", A["i"], ((1, 1), (1, 1)), constant_values=9)
    add("pad", A["f"], ((1, 1), (1, 1)), mode="reflect", constant_values=1)
    add("pad", A["c"], ((1, 1), (1, 1)))
    add("take", A["f"], A["idx"])
    add("take", A["f"], A["idx"], axis=1)
    add("take", A["c"], A["idx2"], axis=-1)
    add("take", A["f"], 4)
    add("take", A["f"], [0, 1], axis=0)
    add("take_along_axis", A["f"], A["idx2"], axis=1)
    add("take_along_axis", A["f"], np.array([[1, 0, 1]], "int32"), axis=0)
    add("take_along_axis", A["f"], np.array([5, -1], "int32"))
    add("take_along_axis", A["f"], A["idx2"])
    add("take_along_axis", A["c"], np.array([[[0], [3], [-1]]], "int64"), axis=-1)
    add("where", A["b"], A["f"], A["i"])
    add("where", A["b"], 1, 2.5)
    add("where", A["b"], A["i"], 0.5)
    add("where", A["b"])
    add("where", A["i"], A["f64"], A["f"])
    add("where", A["b"], A["f"])
    add("nonzero", A["i"])
    add("nonzero", A["b"])
    add("select", L(A["b"], X["f"] > 0), L(A["f"], A["i"]))
    add("select", L(A["b"]), L(A["f"]), 1.5)
    add("select", L(), L())
    add("clip", A["f"], -0.5, 0.5)
    add("clip", A["i"], -2, 3)
    add("clip", A["b"], 0, 1)
    add("clip", A["i"], -1.5, 2.5)
    add("clip", A["u8"], 2, 5)
    add("diag", A["row"])
    add("diag", A["row"], k=1)
    add("diag", A["m2"])
    add("diag", A["m2"], -1)
    add("diag", A["c"])
    add("diagflat", A["f"])
    add("diagflat", A["row"], k=-2)
    add("diagonal", A["m2"])
    add("diagonal", A["c"], offset=1)
    add("diagonal", A["c"], offset=-1, axis1=1, axis2=2)
    add("diagonal", A["c"], offset=5)
    add("diagonal", A["c"], axis1=1, axis2=1)
    add("diagonal", A["c"], 0, -1, 0)
    add("trace", A["m"])
    add("trace", A["im"], offset=1)
    add("trace", A["c"], axis1=1, axis2=2)
    add("trace", A["u8"])
    add("trace", A["b"])
    for name in ("tril", "triu"):
        add(name, A["m2"])
        add(name, A["m2"], 1)
        add(name, A["m2"], k=-1)
        add(name, A["c"], k=2)
        add(name, A["im"])
    add("diff", A["c"])
    add("diff", A["c"], n=2, axis=1)
    add("diff", A["b"])
    add("diff", A["row"], 0)
    add("diff", A["i"], axis=0)
    add("diff", A["f"], n=-1)
    add("meshgrid", A["row"], A["v4"])
    add("meshgrid", A["row"], A["irow"], indexing="ij")
    add("meshgrid", A["row"], A["v4"], A["irow"])
    add("ndim", A["c"])
    add("ndim", 3.0)
    add("ndim", [[1, 2]])
    add("size", A["c"])
    add("size", [[1, 2]])
    for name in ("sort", "argsort"):
        add(name, A["f"])
        add(name, A["c"], axis=1)
        add(name, A["c"], axis=None)
        add(name, A["b"])
        add(name, A["dup"], axis=0)
        add(name, A["u8"])
    add("argsort", 3.0)
    add("argpartition", A["f"], 1)
    add("argpartition", A["dup"], 2, axis=0)
    add("searchsorted", A["sorted"], A["f"])
    add("searchsorted", A["sorted"], A["f"], side="right")
    add("searchsorted", A["sorted"], A["half"], side="right")
    add("searchsorted", A["sorted"], [0.0, 2.0])
    add("searchsorted", A["m"], A["f"])
    add("digitize", A["f"], [-1.0, 0.0, 1.0])
    add("digitize", A["i"], [0, 2, 4])
    add("digitize", A["half"], np.array([0.5, 1.5]))
    add("digitize", A["u8"], [3, 6])
    add("bincount", A["cnt"])
    add("bincount", A["cnt"], weights=A["w7"])
    add("bincount", A["cnt"], minlength=10)
    add("bincount", A["cnt"], sparse=True)
    add("bincount", A["dup"], weights=X["dup"].astype("float32"), minlength=5, sparse=True)
    add("bincount", A["cnt"], weights=A["cnt"])
    add("bincount", X["cnt"].astype("uint8"), weights=X["w7"].astype("float64"), minlength=3)
    add("histogram", A["c"])
    add("histogram", A["c"], bins=4, range=(-1.0, 1.0))
    add("histogram", A["w7"], 3)
    add("histogram", A["c"], bins=2.5)
    add("histogram", A["c"], bins=-1)
    add("histogram", A["c"], range=(1.0, 0.0))
    add("histogram", A["c"], range=[0.0, 1.0])
    add("unique", A["dup"])
    add("unique", A["dup"], return_index=True, return_inverse=True, return_counts=True)
    add("unique", A["dup"], sorted=False)
    add("unique", A["dup"], sorted=False, return_inverse=True, return_counts=True)
    add("unique", A["dup"], size=6, fill_value=-1)
    add("unique", A["dup"], size=2, return_counts=True, return_index=True)
    add("unique", [2.5, 1.0, 2.5])
    add("unique", A["dup"], axis=1)
    add("unique", A["dup"], axis=1, return_index=True, return_inverse=True, return_counts=True)
    add("unique", np.array([[1, 2], [0, 5], [1, 2], [0, 1]], "int32"), axis=0,
        return_index=True, return_inverse=True, return_counts=True)
    add("unique", np.array([[1, 2], [0, 5], [1, 2], [0, 1]], "int32"), axis=0, sorted=False,
        return_inverse=True)
    add("unique", np.array([[1, 2], [0, 5], [1, 2]], "float32"), axis=-2, size=4, fill_value=9)
    add("unique", A["ic"], axis=2, return_counts=True)
    add("unravel_index", A["cnt"], (2, 4))
    add("unravel_index", X["idx2"] + 3, (3, 2))
    add("unravel_index", np.array([5, 1], "int64"), (2, 3))
    add("view", A["f"], "int32")
    add("view", A["i"], "float32")
    add("view", A["f"], "uint8")
    add("view", X["ip"].reshape(3, 2), "int64")
    add("view", A["f"], "float64")
    add("view", A["f"])
    add("get_item", A["f"], 1)
    add("get_item", A["c"], T({"@s": [None, None, 2]}, 1))
    add("get_item", A["c"], T({"@e": 1}, 0))
    add("get_item", A["c"], T(0, {"@s": [1, None, None]}, {"@s": [None, None, -1]}))
    # products
    for name in ("matmul", "dot", "inner", "vdot", "tensordot", "outer"):
        add(name, A["m"], A["m2"])
        add(name, A["im"], A["m"])
        add(name, A["im"], A["im"])
        add(name, A["m2"] if name != "inner" else A["m"], A["v4"] if name != "inner"
            else A["row"])
        add(name, A["row"], A["m"])
        add(name, A["f64"], A["m"])
        add(name, A["u8"], A["im"])
        add(name, X["i"].astype("int8"), X["im"].astype("int8"))
    add("matmul", A["c"], np.ones((4, 2), "float32"))
    add("matmul", A["c"], np.ones((2, 4, 5), "float32"))
    add("matmul", A["row"], A["row"])
    add("matmul", A["f"], A["f"])
    add("dot", A["f"], 2)
    add("dot", A["c"], X["m2"].T.copy())
    add("inner", A["f"], 3)
    add("inner", A["c"], A["v4"])
    add("tensordot", A["c"], X["m2"].T.copy(), axes=1)
    add("tensordot", A["c"], np.ones((3, 4, 2), "float32"), axes=2)
    add("tensordot", A["c"], np.ones((3, 2), "float32"), axes=([1], [0]))
    add("tensordot", A["c"], np.ones((4, 3), "float32"), axes=[[2, 1], [0, 1]])
    add("tensordot", A["f"], A["row"], axes=0)
    add("kron", A["m"], A["im"])
    add("kron", A["row"], A["f"])
    for kw in ({}, {"axisa": 0, "axisb": 0}, {"axis": 0}):
        x, y = ("c3", "d3") if not kw else ("m", "m")
        add("cross", A[x], A[y], **kw)
    add("cross", A["c2"], A["c3"])
    add("cross", A["c2"], A["c2"])
    add("cross", A["im"], A["m"])
    add("cross", A["m"], A["m"], axisc=0)
    add("einsum", "ij,jk->ik", A["m"], A["m2"])
    add("einsum", "ij->", A["f"])
    add("einsum", "i,i->", A["row"], A["irow"])
    add("einsum", "bij,bjk->bik", A["c"], np.ones((2, 4, 2), "float32"))
    add("einsum", "ii->i", A["im"])
    add("einsum", "ij,jk->ik", X["im"].astype("int8"), X["im"].astype("int8"))
    add("einsum", "...j,j->...", A["c"], A["v4"])
    add("correlate", A["w7"], A["row"])
    add("correlate", A["w7"], A["row"], mode="full")
    add("correlate", A["w7"], A["row"], mode="same")
    add("correlate", A["irow"], A["irow"], "full")
    add("correlate", A["row"], A["w7"], mode="same")
    add("correlate", A["row"], A["row"], mode="bad")
    add("corrcoef", A["c3"])
    add("corrcoef", A["im"])
    add("corrcoef", A["row"])
    add("corrcoef", A["m64"])
    add("slogdet", A["m"])
    add("slogdet", A["m64"])
    add("slogdet", np.stack([X["m"], -X["m"]]))
    add("trapezoid", A["c"])
    add("trapezoid", A["c"], dx=0.5, axis=1)
    add("trapezoid", A["c"], x=A["x4"])
    add("trapezoid", A["ic"], axis=0)
    add("trapezoid", A["f"], x=A["row"], axis=1)
    add("vander", A["row"])
    add("vander", A["irow"], N=4)
    add("vander", A["row"], 2, increasing=True)
    add("vander", A["f"])
    add("vander", A["row"], N=2.0)
    add("vander", A["row"], N=-1)
    add("isin", A["i"], A["irow"])
    add("isin", A["i"], [1, 2], invert=True)
    add("isin", A["f"], A["f"])
    add("isin", A["i"], A["irow"], assume_unique=True)
    add("divide", A["f"], 0.0)
    add("divide_no_nan", A["f"], np.zeros((2, 3), "float32"))
    add("floor_divide", A["i"], 0)
    add("mod", A["f"], A["i"])
    add("add", A["f"], A["m"])
    add("add", A["cplx"], 1)
    add("power", A["i"], -1)
    add("power", A["u8"], 2)
    add("add", A["u8"], X["i"].astype("uint32"))
    add("add", X["i"].astype("uint64"), 1)
    add("add", X["f"].astype("float16"), A["i"])
    add("multiply", X["f"].astype("float16"), 2.5)
    add("subtract", X["i"].astype("int8"), A["u8"])
    add("add", True, A["ip"])
    add("add", 1, 2.5)
    add("sqrt", X["f"].astype("float16"))
    add("mean", X["f"].astype("float16"), axis=0)
    add("sum", X["f"].astype("int8"))
    add("var", A["i64"])
    add("std", A["u8"])
    more_cases(add)
    dtype_matrix(add)
    bad_inputs(add)
    return out


MATRIX_DTYPES = ["bool", "uint8", "uint16", "int8", "int16", "int32", "int64", "float16",
                 "float32", "float64"]
MATRIX_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "divide_no_nan",
                 "floor_divide", "maximum", "minimum", "fmax", "fmin", "power", "mod", "fmod",
                 "arctan2", "hypot", "heaviside", "logaddexp", "logaddexp2", "equal", "less",
                 "greater_equal", "logical_and", "logical_xor", "isclose", "append", "outer",
                 "dot", "matmul", "inner", "vdot", "tensordot", "kron", "bitwise_and",
                 "bitwise_or", "gcd", "where", "isin", "nextafter"]
MATRIX_UNARY = ["sqrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "tanh",
                "arctan", "arcsinh", "abs", "fabs", "negative", "square", "sign", "signbit",
                "floor", "ceil", "round", "trunc", "reciprocal", "cbrt", "deg2rad", "i0",
                "sinc", "isnan", "isfinite", "sum", "prod", "mean", "var", "std", "max",
                "argmax", "cumsum", "cumprod", "nansum", "nanmean", "nanmax", "median",
                "quantile", "sort", "argsort", "count_nonzero", "average", "ptp", "trace",
                "bitwise_invert", "nan_to_num", "copy", "diff", "ravel", "tile", "clip",
                "full_like", "zeros_like", "cross", "vander"]


def dtype_matrix(add: object) -> None:
    """Every dtype pair through the binary ops and every dtype through the unary ones: the
    promotion Keras applies (small positive values, so no op leaves its domain)."""
    def value(dtype: str, values: list) -> dict:
        return {"@m": [dtype, values]}

    extra = {"quantile": (0.5,), "tile": (2,), "clip": (1, 2), "full_like": (1,),
             "where": ()}
    for name in MATRIX_BINARY:
        for a in MATRIX_DTYPES:
            for b in MATRIX_DTYPES:
                x, y = value(a, [1, 2, 3]), value(b, [2, 1, 3])
                if name == "where":
                    add(name, value("bool", [1, 0, 1]), x, y)
                else:
                    add(name, x, y)
    for name in MATRIX_UNARY:
        for a in MATRIX_DTYPES:
            shape_values = [[1, 2, 3], [3, 1, 2], [2, 2, 1]] if name == "trace" else [1, 2, 3]
            add(name, value(a, shape_values), *extra.get(name, ()))


def more_cases(add: object) -> None:
    """Further calls of the ops the tables above reach only once or twice."""
    add("histogram", A["row64"], 4)
    add("histogram", A["irow"], 3)
    add("histogram", A["w7"], 5, range=(-1.0, 1.0))
    add("histogram", A["x4"], bins=1)
    add("searchsorted", A["sorted"], A["row"])
    add("searchsorted", A["sorted"], A["x4"], side="right")
    add("searchsorted", np.array([1, 3, 5], "int32"), A["irow"])
    add("meshgrid", A["row"], A["v4"], indexing="ij")
    add("meshgrid", A["row"], A["v4"], A["row"])
    add("meshgrid", A["irow"], A["irow"])
    add("vstack", L(A["row"], A["irow"]))
    add("vstack", T(A["c"], A["c"]))
    add("vstack", L(1.0, 2.0))
    add("dsplit", A["c"], [1, 3])
    add("dsplit", A["f"], 3)
    add("vsplit", A["c2"], 2)
    add("vsplit", A["c"], 2)
    add("bitwise_invert", A["i64"])
    add("bitwise_not", A["i"])
    add("reciprocal", A["p64"])
    add("reciprocal", A["ip"])
    add("reciprocal", A["zeros"])
    add("vdot", A["row"], A["irow"])
    add("vdot", A["c"], A["c"])
    add("argpartition", A["c"], 2, axis=1)
    add("argpartition", A["i"], 0, axis=None)
    add("nonzero", A["ic"])
    add("nonzero", A["zeros"])
    add("select", L(A["b"]), L(A["i"]), A["f"])
    add("select", T(A["b"], ~X["b"]), T(1.0, 2.0))
    add("kaiser", 1, 5.0)
    add("ldexp", A["f64"], A["sh"])
    add("ldexp", A["f"], X["sh"].astype("int64"))
    add("fliplr", A["c"])
    add("flipud", A["row"])
    add("identity", 3, dtype="float16")
    add("identity", 0)
    add("diagflat", A["m2"], 1)
    add("diagflat", [1, 2])
    add("moveaxis", A["c"], -1, 0)
    add("moveaxis", A["c"], [0, 2], [-1, 0])
    add("hsplit", A["c2"], [1])
    add("hsplit", A["c2"], 3)
    add("hstack", L(A["c"], A["c"]))
    add("hstack", T(1, 2.5))
    add("dstack", L(A["c"], A["c"]))
    add("dstack", L(1, A["row"]))


# Ops whose first argument is not an array (shapes, lengths, subscripts, callables).
_NOT_ARRAY_FIRST = {"arange", "bartlett", "blackman", "empty", "eye", "full", "hamming",
                    "hanning", "identity", "kaiser", "ones", "tri", "zeros", "einsum",
                    "vectorize", "linspace", "logspace", "geomspace", "concatenate", "stack",
                    "hstack", "vstack", "dstack", "meshgrid", "select"}
# The arguments each op needs besides its first, for the bad-first-argument cases.
_REST = {"take": (A["idx"],), "take_along_axis": (A["idx2"],), "tile": (2,), "repeat": (2,),
         "reshape": ((6,),), "broadcast_to": ((2, 3),), "expand_dims": (0,), "split": (2,),
         "array_split": (2,), "hsplit": (2,), "vsplit": (2,), "dsplit": (2,), "roll": (1,),
         "moveaxis": (0, 1), "swapaxes": (0, 1), "pad": (1,), "clip": (0, 1), "get_item": (0,),
         "quantile": (0.5,), "percentile": (50,), "nanquantile": (0.5,),
         "nanpercentile": (50,), "isin": (A["i"],), "searchsorted": (A["f"],),
         "digitize": ([0.0, 1.0],), "argpartition": (1,), "full_like": (1,), "kaiser": (2.0,),
         "unravel_index": ((2, 3),), "where": (), "ldexp": (A["sh"],)}


def bad_inputs(add: object) -> None:
    """Each op given None, a string and a ragged list as its (first) array argument."""
    import keras
    for name in sorted(n for n in dir(keras.ops.numpy) if not n.startswith("_")):
        if name in _NOT_ARRAY_FIRST:
            continue
        params = list(inspect.signature(getattr(keras.ops.numpy, name)).parameters)
        binary = len(params) > 1 and params[1] in ("x2", "y")
        rest = (A["f"],) if binary else _REST.get(name, ())
        for bad in (None, "text", [[1.0, 2.0], [3.0]]):
            add(name, bad, *rest)


# --- encoding ---------------------------------------------------------------------------------

def decode(value: object, arrays: dict) -> object:
    """A recorded argument back as a Python value (used by the test too)."""
    if isinstance(value, dict):
        if "@a" in value:
            return arrays[value["@a"]]
        if "@t" in value:
            return tuple(decode(v, arrays) for v in value["@t"])
        if "@l" in value:
            return [decode(v, arrays) for v in value["@l"]]
        if "@s" in value:
            return slice(*value["@s"])
        if "@e" in value:
            return Ellipsis
        return {k: decode(v, arrays) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v, arrays) for v in value]
    return value


def _plain(value: object, arrays: dict) -> object:
    # A value cases() built directly: NumPy arrays and scalars stored as inputs.
    if isinstance(value, dict) and "@m" in value:  # dtype_matrix's (dtype, values)
        dtype, values = value["@m"]
        value = np.asarray(values).astype(dtype)
    if isinstance(value, np.ndarray):
        return {"@a": _store(value, arrays)}
    if isinstance(value, np.generic):
        return {"@a": _store(np.asarray(value), arrays), "scalar": True}
    if isinstance(value, dict) and "@t" in value:
        return {"@t": [_plain(v, arrays) for v in value["@t"]]}
    if isinstance(value, dict) and "@l" in value:
        return {"@l": [_plain(v, arrays) for v in value["@l"]]}
    if isinstance(value, tuple):
        return {"@t": [_plain(v, arrays) for v in value]}
    if isinstance(value, list):
        return [_plain(v, arrays) for v in value]
    return value


def _store(value: np.ndarray, arrays: dict) -> str:
    # One stored copy of each distinct input array.
    seen = arrays.setdefault("__seen__", {})
    fingerprint = (value.dtype.str, value.shape, value.tobytes())
    if fingerprint not in seen:
        seen[fingerprint] = f"in{len(seen)}"
        arrays[seen[fingerprint]] = value
    return seen[fingerprint]


def encode_output(value: object, outputs: dict, case: int) -> object:
    if isinstance(value, (list, tuple)):
        tag = "@t" if isinstance(value, tuple) else "@l"
        return {tag: [encode_output(v, outputs, case) for v in value]}
    if isinstance(value, (int, float, bool)) and not hasattr(value, "dtype"):
        return {"py": value}
    if type(value).__name__ == "SparseTensor":  # stored dense, marked sparse
        import tensorflow as tf
        encoded = encode_output(tf.sparse.to_dense(value), outputs, case)
        return {**encoded, "sparse": True}
    array = np.asarray(value)
    if array.dtype == object:  # string tensors: stored as bytes (no pickles in the fixture)
        array = array.astype(bytes)
    key = f"out{case}_{len(outputs)}"
    outputs[key] = array
    dtype = str(value.dtype.name) if hasattr(value, "dtype") else str(array.dtype)
    kind = "numpy" if isinstance(value, (np.ndarray, np.generic, str)) else "tensor"
    return {"@a": key, "dtype": dtype, "shape": list(array.shape), "kind": kind}


def main() -> None:
    import keras
    import tensorflow as tf
    from keras import ops

    arrays = inputs()
    meta = []
    outputs: dict = {}
    for n, (name, args, kwargs) in enumerate(cases()):
        args = _plain(args, arrays)
        kwargs = {k: _plain(v, arrays) for k, v in kwargs.items()}
        call_args = [decode_argument(a, arrays) for a in args]
        call_kwargs = {k: decode_argument(v, arrays) for k, v in kwargs.items()}
        entry = {"name": name, "args": args, "kwargs": kwargs}
        try:
            result = getattr(ops.numpy, name)(*call_args, **call_kwargs)
            entry["out"] = encode_output(result, outputs, n)
        except Exception as e:  # noqa: BLE001 - the class is what is recorded
            entry["error"] = type(e).__name__
            entry["message"] = str(e)[:300]
        meta.append(entry)
    names = sorted(n for n in dir(keras.ops.numpy) if not n.startswith("_"))
    signatures = {n: list(inspect.signature(getattr(keras.ops.numpy, n)).parameters)
                  for n in names}
    header = {"keras": keras.__version__, "tensorflow": tf.__version__, "cases": meta,
              "signatures": signatures, "result_type": result_type_table()}
    buf = io.BytesIO()
    np.savez_compressed(buf, __meta__=np.frombuffer(json.dumps(header).encode(), np.uint8),
                        **{f"i_{k}": v for k, v in arrays.items() if k != "__seen__"},
                        **{f"o_{k}": v for k, v in outputs.items()})
    with open(FIXTURE, "wb") as f:
        f.write(buf.getvalue())
    errors = sum("error" in c for c in meta)
    print(f"{len(meta)} cases ({errors} raising), {len(names)} names -> {FIXTURE}",
          file=sys.stderr)


LATTICE_NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                 "int64", "bfloat16", "float16", "float32", "float64", "complex64",
                 "complex128", "int", "float"]


def result_type_table() -> dict:
    """keras.backend.result_type of every pair of dtypes ("int"/"float": Python's weak
    types), and of each alone: the dtype, or the class of the error."""
    import itertools

    from keras import backend

    def as_arg(name: str) -> object:
        return {"int": int, "float": float}.get(name, name)

    table = {}
    pairs = [(a,) for a in LATTICE_NAMES] + list(itertools.product(LATTICE_NAMES, repeat=2))
    for pair in pairs:
        try:
            table[",".join(pair)] = backend.result_type(*(as_arg(n) for n in pair))
        except Exception as e:  # noqa: BLE001 - the class is what is recorded
            table[",".join(pair)] = type(e).__name__
    return table


def decode_argument(value: object, arrays: dict) -> object:
    """A recorded argument as the call passes it (stored NumPy scalars as scalars)."""
    if isinstance(value, dict) and value.get("scalar"):
        return arrays[value["@a"]][()]
    if isinstance(value, list):
        return [decode_argument(v, arrays) for v in value]
    if isinstance(value, dict) and "@t" in value:
        return tuple(decode_argument(v, arrays) for v in value["@t"])
    if isinstance(value, dict) and "@l" in value:
        return [decode_argument(v, arrays) for v in value["@l"]]
    return decode(value, arrays)


if __name__ == "__main__":
    main()
