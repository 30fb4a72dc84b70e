"""`tapeflow.keras.ops.numpy` against Keras 3.15.1 (TensorFlow 2.21 backend), registry-driven.

The fixture (tools/record_keras_ops_numpy.py) holds each case's inputs, call and Keras's
output values, dtypes and shapes (or the class of the error Keras raised), and every name of
keras.ops.numpy with its parameter names.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import ops
from tapeflow.keras.ops import _dtypes
from tapeflow.keras.ops import numpy as knp

HERE = os.path.dirname(__file__)
FIXTURE = os.path.join(HERE, "fixtures", "keras_ops_numpy.npz")
_spec = importlib.util.spec_from_file_location(
    "record_keras_ops_numpy", os.path.join(HERE, "..", "..", "..", "tools",
                                           "record_keras_ops_numpy.py"))
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)

with np.load(FIXTURE) as _data:
    META = json.loads(bytes(_data["__meta__"]).decode())
    INPUTS = {k[2:]: _data[k] for k in _data.files if k.startswith("i_")}
    OUTPUTS = {k[2:]: _data[k] for k in _data.files if k.startswith("o_")}
CASES = META["cases"]


def _case_id(case: dict) -> str:
    return case["name"]


def _arguments(case: dict) -> tuple:
    """The recorded call's positional and keyword arguments."""
    args = [recorder.decode_argument(a, INPUTS) for a in case["args"]]
    kwargs = {k: recorder.decode_argument(v, INPUTS) for k, v in case["kwargs"].items()}
    return args, kwargs


def _call(case: dict):
    args, kwargs = _arguments(case)
    return getattr(knp, case["name"])(*args, **kwargs)


def _tolerance(dtype: str) -> dict:
    # Last-bit differences of TF's and NumPy's float kernels; exact for ints and bools.
    return {"float16": dict(rtol=2e-3, atol=2e-3), "float32": dict(rtol=1e-6, atol=1e-7),
            "float64": dict(rtol=1e-12, atol=1e-12), "complex64": dict(rtol=1e-5, atol=1e-6),
            }.get(dtype, dict(rtol=0, atol=0))


def _compare(got, want: dict, where: str) -> None:
    if "py" in want:
        assert got == want["py"], where
        return
    if "@t" in want or "@l" in want:
        items = want.get("@t", want.get("@l"))
        assert isinstance(got, (tuple, list)) and len(got) == len(items), where
        for i, (g, w) in enumerate(zip(got, items)):
            _compare(g, w, f"{where}[{i}]")
        return
    if want.get("sparse"):
        assert isinstance(got, tf.SparseTensor), f"{where}: {type(got)}"
        got = tf.sparse.to_dense(got)
    expected = OUTPUTS[want["@a"]]
    if want["kind"] == "numpy":  # get_item of a NumPy array or string: NumPy's own value
        assert isinstance(got, (np.ndarray, np.generic, str)), f"{where}: {type(got)}"
        actual = np.asarray(got)
        dtype = actual.dtype.name if actual.dtype.kind != "U" else actual.dtype.str
    else:
        assert isinstance(got, tf.Tensor), f"{where}: {type(got)}"
        actual, dtype = got.numpy(), got.dtype.name
        if dtype == "string":
            actual = np.asarray(actual).astype(bytes)
    assert dtype == want["dtype"], f"{where}: dtype {dtype} != {want['dtype']}"
    assert list(actual.shape) == want["shape"], f"{where}: shape {actual.shape} != {want['shape']}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, equal_nan=True, err_msg=where,
                                   **_tolerance(want["dtype"]))
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=where)


def _numpy_reference(case: dict):
    """NumPy's answer for the cases where tapeflow differs from Keras 3.15.1's TensorFlow
    backend, which returns wrong numbers or raises there (None elsewhere)."""
    args, kwargs = _arguments(case)
    name, x = case["name"], args[0]
    if not isinstance(x, np.ndarray):
        return None
    if name == "rot90" and kwargs.get("k", 1) % 2 == 0:
        # Keras reshapes (not transposes) between quarter turns: wrong for non-square planes.
        return np.rot90(x, kwargs["k"], kwargs.get("axes", (0, 1)))
    if name == "unravel_index" and np.ndim(x) != 1:
        # Keras walks the dims in the wrong order for indices not of rank 1.
        return np.unravel_index(x, args[1])
    if name == "tile" and x.dtype == np.uint16:
        # TF has no uint16 Tile kernel (UnimplementedError); tapeflow's tf.tile tiles it.
        return np.tile(x, args[1])
    if name in ("nanmedian", "nanpercentile") and x.dtype.kind == "i":
        # Keras's map_fn is declared int32 but returns float32 (InvalidArgumentError).
        fn = np.nanmedian if name == "nanmedian" else np.nanpercentile
        return fn(x.astype("float32"), *args[1:], **kwargs).astype("float32")
    return None


def _keras_words(message: str) -> str:
    # The start of Keras's message without the wrapper its Operation.__call__ adds.
    message = re.sub(r"^Exception encountered when calling \w+\.call\(\)\.\s*\S*\[1m", "",
                     message, flags=re.S).strip()
    return message[:40]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_keras(case: dict) -> None:
    where = f"{case['name']}{case['args']}{case['kwargs']}"
    reference = _numpy_reference(case)
    if reference is not None:
        got = _call(case)
        for g, r in zip(tf.nest.flatten(got), tf.nest.flatten(tuple(np.broadcast_arrays(
                *reference)) if isinstance(reference, tuple) else reference)):
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-6, err_msg=where)
        return
    if "error" in case:
        with pytest.raises(Exception) as info:
            _call(case)
        assert type(info.value).__name__ == case["error"], f"{where}: {info.value!r}"
        if case["error"] in ("ValueError", "TypeError") and case["name"] != "unravel_index":
            # Keras's own checks: its words (unravel_index converts NumPy's dims first)
            assert _keras_words(case["message"]) in str(info.value), where
        return
    _compare(_call(case), case["out"], where)


def test_every_keras_name_with_its_parameters() -> None:
    signatures = META["signatures"]
    assert len(signatures) == 220
    assert sorted(knp.__all__) == sorted(signatures)
    for name, params in signatures.items():
        fn = getattr(knp, name)
        assert list(inspect.signature(fn).parameters) == params, name
        assert getattr(ops, name) is fn, name


def test_result_type_matches_keras_lattice() -> None:
    # Measured with keras.backend.result_type, Keras 3.15.1 (TensorFlow backend).
    assert _dtypes.result_type("int32", "float32") == "float32"
    assert _dtypes.result_type("int32", float) == "float32"
    assert _dtypes.result_type("int64", float) == "float32"
    assert _dtypes.result_type("uint8", "int8") == "int16"
    assert _dtypes.result_type("uint64", "int64") == "float32"
    assert _dtypes.result_type("uint64") == "uint32"
    assert _dtypes.result_type("float16", int) == "float16"
    assert _dtypes.result_type("bool", int) == "int32"
    assert _dtypes.result_type("complex128", "float32") == "complex64"
    assert _dtypes.result_type() == "float32"
    assert _dtypes.result_type(None, "int8") == "float32"
    with pytest.raises(ValueError, match="no implicit conversions from float8"):
        _dtypes.result_type("float8_e4m3fn", "float32")
    with pytest.raises(ValueError, match="Invalid dtype"):
        _dtypes.result_type("int4")


def test_result_type_of_every_dtype_pair() -> None:
    table = META["result_type"]
    assert len(table) == 17 + 17 * 17
    for key, want in table.items():
        args = [{"int": int, "float": float}.get(n, n) for n in key.split(",")]
        try:
            got = _dtypes.result_type(*args)
        except ValueError as e:
            got = type(e).__name__
        assert got == want, key


def test_convert_and_promote_keeps_python_scalars_weak() -> None:
    x = np.arange(3, dtype=np.int8)
    a, b = _dtypes.convert_and_promote(x, 3)
    assert a.dtype.name == b.dtype.name == "int8"
    a, b = _dtypes.convert_and_promote(x, 1.5)
    assert a.dtype.name == "float32"
    a, b = _dtypes.convert_and_promote([1, 2], np.float64(2))
    assert a.dtype.name == "float64"


# --- gradients: GradientTape against central finite differences, float64 ----------------------

_RNG = np.random.default_rng(7)
_X = _RNG.uniform(0.2, 0.8, (2, 3))
_Y = _RNG.uniform(0.2, 0.8, (2, 3))
_M = _RNG.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
_UNARY = ["sqrt", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "cos", "tan",
          "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arctanh", "cbrt",
          "deg2rad", "rad2deg", "sinc", "reciprocal", "fabs", "absolute", "negative", "square",
          "sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "ptp", "cumsum",
          "cumprod", "nansum", "nanmean", "nanvar", "nanstd", "nanprod", "nanmax", "nanmin",
          "median", "ravel", "transpose", "flip", "fliplr", "flipud", "copy", "real",
          "trace", "diagonal", "tril", "triu", "diagflat", "sort", "nan_to_num", "trapezoid",
          "nancumsum", "nancumprod", "average", "i0"]
_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "divide_no_nan", "maximum",
           "minimum", "fmax", "fmin", "power", "arctan2", "hypot", "logaddexp", "logaddexp2",
           "append", "outer", "kron", "vdot", "inner", "cross_like_none"]
GRAD_TABLE = ([(n, (_X,), {}) for n in _UNARY] + [(n, (_X, _Y), {}) for n in _BINARY
                                                    if n != "cross_like_none"] + [
    ("matmul", (_M, _X.T.copy()), {}), ("dot", (_M, _M), {}), ("tensordot", (_M, _M), {}),
    ("einsum", ("ij,jk->ik", _M, _M), {}), ("slogdet", (_M,), {}), ("corrcoef", (_M,), {}),
    ("cross", (_M, _M[::-1].copy()), {}), ("quantile", (_X, 0.3), {}),
    ("percentile", (_X, 40.0), {"axis": 1}), ("take", (_X, np.array([0, 2, 5])), {}),
    ("take_along_axis", (_X, np.array([[1, 0, 2], [2, 2, 0]])), {"axis": 1}),
    ("where", (_X > 0.5, _X, _Y), {}), ("clip", (_X, 0.3, 0.6), {}),
    ("pad", (_X, ((1, 1), (1, 1))), {"mode": "reflect"}), ("tile", (_X, (2, 1)), {}),
    ("repeat", (_X, 2), {"axis": 0}), ("roll", (_X, 1), {"axis": 1}),
    ("rot90", (_X,), {}), ("moveaxis", (_X, 0, 1), {}), ("swapaxes", (_X, 0, 1), {}),
    ("reshape", (_X, (3, 2)), {}), ("expand_dims", (_X, 0), {}), ("squeeze", (_X[None],), {}),
    ("broadcast_to", (_X[0], (2, 3)), {}), ("concatenate", ([_X, _Y],), {}),
    ("stack", ([_X, _Y],), {}), ("hstack", ([_X, _Y],), {}), ("vstack", ([_X, _Y],), {}),
    ("dstack", ([_X, _Y],), {}), ("diff", (_X,), {}), ("get_item", (_X, 1), {}),
    ("linspace", (_X[0], _Y[0], 4), {}), ("logspace", (_X[0], _Y[0], 4), {}),
    ("correlate", (_X[0], _Y[0]), {"mode": "full"}), ("vander", (_X[0],), {}),
    ("heaviside", (_X - 0.5, _Y), {}), ("full_like", (_X, 2.0), {}),
    ("nanquantile", (_X, 0.3), {"axis": 1}), ("nanmedian", (_X,), {"axis": 0}),
    ("split", (_X, 3), {"axis": 1}), ("array_split", (_X, 2), {"axis": 1}),
    ("ldexp", (_X, np.array([1, 2, 3])), {}), ("round", (_X,), {"decimals": 1}),
    ("arccosh", (_X + 1.0,), {}), ("geomspace", (_X[0] + 1.0, _Y[0] + 2.0, 4), {"dtype": "float64"}),
    ("select", ([_X > 0.5, _Y > 0.5], [_X, _Y]), {}), ("meshgrid", (_X[0], _Y[1]), {}),
    ("bincount", (np.array([0, 2, 2]),), {"weights": _X[0]}),
    ("diag", (_M,), {"k": 1}), ("diag", (_X[0],), {}), ("hsplit", (_X, 3), {}),
    ("vsplit", (_X, 2), {}), ("dsplit", (_X[None], 3), {}), ("mod", (_X + 1.0, _Y), {}),
    ("fmod", (_X + 1.0, _Y), {}), ("conj", (_X,), {}), ("conjugate", (_X,), {}),
    ("nanpercentile", (_X, 30.0), {"axis": 0}), ("matmul", (_X[0], _M), {}),
    ("nancumsum", (_X,), {"axis": 0}), ("flip", (_X,), {"axis": 1}),
])


def _scalar_loss(name: str, args: list, kwargs: dict):
    # A fixed weighted sum of every float64 output, so each output element counts.
    total = tf.constant(0.0, tf.float64)
    for out in tf.nest.flatten(getattr(knp, name)(*args, **kwargs)):
        if out.dtype == tf.float64:
            weights = np.cos(np.arange(int(np.prod(out.shape))) + 1.0).reshape(out.shape)
            total = total + tf.reduce_sum(out * tf.constant(weights))
    return total


def _float_slots(args: tuple) -> list:
    # Which arguments the gradient is taken for: the float64 arrays (lists of them too).
    slots = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.dtype == np.float64:
            slots.append((i, None))
        elif isinstance(a, list):
            slots.extend((i, j) for j, v in enumerate(a)
                         if isinstance(v, np.ndarray) and v.dtype == np.float64)
    return slots


def _with(args: tuple, slot: tuple, value) -> list:
    args = list(args)
    i, j = slot
    if j is None:
        args[i] = value
    else:
        args[i] = list(args[i])
        args[i][j] = value
    return args


# Arguments TF's gradient is None for (measured with TF 2.21 / Keras 3.15.1: heaviside's x1 goes
# through a `where` condition only, full_like reads x's shape, Round has no gradient).
_NO_GRADIENT = {("heaviside", 0), ("full_like", 0), ("round", 0)}


@pytest.mark.parametrize("name,args,kwargs", GRAD_TABLE, ids=[g[0] for g in GRAD_TABLE])
def test_gradient_matches_finite_differences(name: str, args: tuple, kwargs: dict) -> None:
    for slot in _float_slots(args):
        base = args[slot[0]] if slot[1] is None else args[slot[0]][slot[1]]
        var = tf.Variable(base)
        with tf.GradientTape() as tape:
            loss = _scalar_loss(name, _with(args, slot, var), kwargs)
        grad = tape.gradient(loss, var)
        if (name, slot[0]) in _NO_GRADIENT:
            assert grad is None, name
            continue
        assert grad is not None, f"{name}: no gradient for argument {slot}"
        numeric = np.zeros_like(base)
        eps = 1e-6
        for idx in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[idx] += eps
            down[idx] -= eps
            numeric[idx] = (float(_scalar_loss(name, _with(args, slot, up), kwargs))
                            - float(_scalar_loss(name, _with(args, slot, down), kwargs))) / (2 * eps)
        np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} argument {slot}")


# --- tracing: tf.function gives the eager numbers --------------------------------------------

def _traceable_cases() -> list:
    seen, out = set(), []
    for case in CASES:
        if "error" in case or case["name"] in seen or case["name"] in _EAGER_ONLY:
            continue
        seen.add(case["name"])
        out.append(case)
    return out


# Keras's window functions read their length's value (Keras refuses symbolic inputs too);
# ndim returns a Python int.
_EAGER_ONLY = {"bartlett", "blackman", "hamming", "hanning", "kaiser", "ndim"}


def _lift_arrays(value, arrays: list):
    # The NumPy arrays of a call, replaced by their index in `arrays` (traced inputs).
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return _Slot(len(arrays) - 1)
    if isinstance(value, (list, tuple)):
        return type(value)(_lift_arrays(v, arrays) for v in value)
    if isinstance(value, dict):
        return {k: _lift_arrays(v, arrays) for k, v in value.items()}
    return value


def _fill(value, tensors: tuple):
    if isinstance(value, _Slot):
        return tensors[value.index]
    if isinstance(value, (list, tuple)):
        return type(value)(_fill(v, tensors) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, tensors) for k, v in value.items()}
    return value


class _Slot:
    def __init__(self, index: int) -> None:
        self.index = index


@pytest.mark.parametrize("case", _traceable_cases(), ids=_case_id)
def test_traced_matches_eager(case: dict) -> None:
    """The op traced with its array inputs as tf.function arguments (symbolic tensors)
    gives the eager numbers."""
    eager = _call(case)
    args, kwargs = _arguments(case)
    arrays: list = []
    template = _lift_arrays((args, kwargs), arrays)
    fn = getattr(knp, case["name"])

    def traced(*tensors):
        call_args, call_kwargs = _fill(template, tensors)
        return fn(*call_args, **call_kwargs)

    result = tf.function(traced)(*[tf.constant(a) for a in arrays])
    flat_e, flat_t = tf.nest.flatten(eager), tf.nest.flatten(result)
    assert len(flat_e) == len(flat_t)
    for e, t in zip(flat_e, flat_t):
        assert e.dtype == t.dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(t))


# Where dims are known only when the graph runs. squeeze (axis=None) and meshgrid: tapeflow's
# tf.squeeze and tf.meshgrid need the dims while tracing; array_split and vsplit (list of
# indices) and view: Keras's TF backend computes their sizes in Python from the static shape.
_NEEDS_STATIC_DIMS = {"squeeze", "meshgrid", "array_split", "vsplit", "view"}


def _has_array_input(case: dict) -> bool:
    return any("@a" in json.dumps(v) for v in (case["args"], case["kwargs"]))


@pytest.mark.parametrize("case", [c for c in _traceable_cases() if _has_array_input(c)
                                  and c["name"] not in _NEEDS_STATIC_DIMS], ids=_case_id)
def test_traced_with_unknown_dims_matches_eager(case: dict) -> None:
    eager = _call(case)
    args, kwargs = _arguments(case)
    arrays: list = []
    template = _lift_arrays((args, kwargs), arrays)
    fn = getattr(knp, case["name"])

    def traced(*tensors):
        call_args, call_kwargs = _fill(template, tensors)
        return fn(*call_args, **call_kwargs)

    signature = [tf.TensorSpec([None] * a.ndim, tf.as_dtype(a.dtype.name)) for a in arrays]
    result = tf.function(traced, input_signature=signature)(*[tf.constant(a) for a in arrays])
    for e, t in zip(tf.nest.flatten(eager), tf.nest.flatten(result)):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(np.asarray(e), np.asarray(t), rtol=1e-6, atol=0)


def test_variables_are_read_and_differentiated() -> None:
    from tapeflow import keras
    weights = keras.Variable(np.array([1.0, -2.0, 3.0], "float32"))
    counts = tf.Variable(np.array([1, 2, 3], "int32"))
    assert knp.add(counts, 1.5).dtype.name == "float32"      # weak scalar, int variable
    assert knp.mean(counts).dtype.name == "float32"
    with tf.GradientTape() as tape:
        loss = knp.sum(knp.multiply(knp.abs(weights), counts))
    np.testing.assert_allclose(tape.gradient(loss, weights).numpy(), [1.0, -2.0, 3.0])


def _symbolic_cases() -> list:
    # The first recorded call of each op whose first argument is an array of rank >= 1
    # (ndim's answer is a Python int, not a graph value).
    seen, out = set(), []
    for case in CASES:
        if "error" in case or case["name"] in seen | {"ndim"}:
            continue
        args, _ = _arguments(case)
        if args and isinstance(args[0], np.ndarray) and args[0].ndim:
            seen.add(case["name"])
            out.append(case)
    return out


@pytest.mark.parametrize("case", _symbolic_cases(), ids=_case_id)
def test_functional_model_matches_eager(case: dict) -> None:
    """Given a KerasTensor, the op becomes a graph node; the model gives the eager numbers."""
    from tapeflow import keras
    args, kwargs = _arguments(case)
    x = args[0]
    eager = getattr(knp, case["name"])(*args, **kwargs)
    inputs = keras.Input(shape=x.shape[1:], batch_size=x.shape[0], dtype=str(x.dtype))
    model = keras.Model(inputs, getattr(knp, case["name"])(inputs, *args[1:], **kwargs))
    for e, o in zip(tf.nest.flatten(eager), tf.nest.flatten(model(x))):
        assert e.dtype == o.dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(o))


def test_keras_tensor_makes_a_graph_node() -> None:
    from tapeflow import keras
    x = keras.Input((3,))
    y = knp.add(x, 1.0)
    assert isinstance(y, keras.KerasTensor)
    model = keras.Model(x, knp.sum(y, axis=1))
    out = model(np.ones((2, 3), "float32"))
    np.testing.assert_allclose(out.numpy(), [6.0, 6.0])


def test_window_refuses_keras_tensor() -> None:
    from tapeflow import keras
    with pytest.raises(TypeError, match="does not support symbolic tensors"):
        knp.hamming(keras.Input(()))


def test_vectorize_maps_elementwise_and_by_signature() -> None:
    # Keras 3.15's TF backend refuses every vectorize call; these are NumPy's (and Keras's
    # JAX backend's) answers. The refusals are Keras's (measured with Keras 3.15.1).
    add_one = knp.vectorize(lambda x: x + 1)
    np.testing.assert_allclose(add_one(np.ones((2, 3), "float32")).numpy(), 2 * np.ones((2, 3)))
    assert add_one(np.arange(3, dtype="int32")).dtype.name == "int32"
    dot = knp.vectorize(lambda a, b: tf.reduce_sum(a * b), signature="(n),(n)->()")
    out = dot(np.ones((4, 3), "float32"), np.arange(3, dtype="float32"))
    np.testing.assert_allclose(out.numpy(), [3.0] * 4)
    pairs = knp.vectorize(lambda a: tf.stack([a, a * 2]), signature="()->(k)")
    np.testing.assert_allclose(pairs(np.arange(3, dtype="float32")).numpy(),
                               [[0, 0], [1, 2], [2, 4]])
    both = knp.vectorize(lambda a, b: a + b)(np.arange(3, dtype="float32"),
                                            np.ones((2, 1), "float32"))
    assert both.shape == (2, 3)
    with pytest.raises(ValueError, match="callable"):
        knp.vectorize(3)
    with pytest.raises(ValueError, match=re.escape("not a valid gufunc signature: (n)->")):
        knp.vectorize(lambda a: a, signature="(n)->")
    with pytest.raises(ValueError, match="inconsistent size for core dimension n: 2 vs 3"):
        dot(np.ones((4, 3), "float32"), np.ones(2, "float32"))
    with pytest.raises(TypeError, match="wrong number of positional arguments: expected 2"):
        dot(np.ones(3, "float32"))


@pytest.mark.parametrize("floatx,expected", [
    # Measured with Keras 3.15.1 (TF backend): sqrt, mean, add(int32, 1.5), divide(int32, 2),
    # zeros, linspace, exp, var, std, average of int32, result_type("int8", float).
    ("float64", ["float64", "float32", "float64", "float64", "float64", "float64", "float64",
                 "float64", "float64", "float64", "float64"]),
    ("float16", ["float16", "float32", "float16", "float16", "float16", "float16", "float16",
                 "float16", "float16", "float16", "float16"]),
])
def test_weak_types_resolve_to_floatx(floatx: str, expected: list) -> None:
    from tapeflow.keras import backend
    ints = np.arange(1, 4, dtype="int32")
    backend.set_floatx(floatx)
    try:
        got = [knp.sqrt(ints), knp.mean(ints), knp.add(ints, 1.5), knp.divide(ints, 2),
               knp.zeros(2), knp.linspace(0, 1, 3), knp.exp(ints), knp.var(ints),
               knp.std(ints), knp.average(ints)]
        names = [t.dtype.name for t in got] + [_dtypes.result_type("int8", float)]
    finally:
        backend.set_floatx("float32")
    assert names == expected
