"""Second set of specs: arguments the first set does not draw, and Python's operators.

- indexing: ``x[...]`` (the ``py.getitem`` pseudo-op; a key is encoded with ``{"slice": [a, b,
  c]}``, ``{"ellipsis": 1}``, ``None`` for tf.newaxis, ``{"tuple": [...]}``), strided_slice with
  every mask, boolean_mask with axis, gather/gather_nd with batch_dims;
- Python operators (``py.add`` ... ``py.abs``) on mixed operands: a tensor with Python
  int/float/bool, NumPy arrays and scalars of every dtype (``{"ndarray": dtype, ...}``,
  ``{"npscalar": dtype, "value": v}``) and lists, on either side;
- cast between every pair of dtypes (NaN/inf/out-of-range values to ints);
- strided, dilated and explicitly padded convolutions; REFLECT/SYMMETRIC pads up to too large;
- creation ops with dtypes, segment ops with unsorted ids, top_k with k = 0 or k > n, ...

Ops in ``dir(tapeflow)``, ``tapeflow.math/.nn/.linalg`` that TF has and no spec calls are
listed with the reason in README.md.
"""

from __future__ import annotations

import numpy as np

from .cases import COMPLEX, FLOATS, INTS, REALS, Drawer, encode_array
from .specs import Args, S, cumulative, segment, unary

UINTS = ("uint8", "uint16", "uint32", "uint64")
ALL_INTS = ("int8", "int16", "int32", "int64") + UINTS
ALL_DTYPES = FLOATS + ALL_INTS + ("bool",) + COMPLEX
# Values where casts differ: NaN/inf, fractions, the edges of every integer range.
CAST_FLOATS = (np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -1.7, 127.9, 128.0,
               255.5, 256.0, -129.0, 32768.0, 65535.9, 65536.0, 2.0**31, -2.0**31 - 1e3, 4.3e9,
               2.0**63, -2.0**63, 1e20, -1e20, 1e-40, 70000.0, -1.0)
CAST_INTS = (0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, 65535, 65536, 2**31 - 1, -2**31,
             2**32, 2**53 + 1, 2**62, -2**63)


def _np_enc(a: np.ndarray) -> dict:
    """A NumPy operand (kept as NumPy by the runner, not made a tensor)."""
    rec = encode_array(a)
    rec["ndarray"] = rec.pop("tensor")
    return rec


def _np_scalar(dtype: str, v) -> dict:
    return {"npscalar": dtype, "value": encode_array(np.asarray(v, dtype=dtype))["data"][0]}


def _wrap_ints(vals, dtype: str) -> np.ndarray:
    """Python ints -> `dtype`, wrapping modulo 2**bits (so every edge value is representable)."""
    bits = np.dtype(dtype).itemsize * 8
    u = np.array([v % (1 << bits) for v in vals], dtype=np.uint64)
    return u.astype(np.dtype(dtype).str.replace("i", "u")).view(dtype) if dtype[0] == "i" else \
        u.astype(dtype)


def cast_values(d: Drawer, shape, dtype: str) -> np.ndarray:
    """Values for casts: mostly the edge values of CAST_FLOATS / CAST_INTS."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return d.rng.random(n).reshape(shape) < 0.5
    if dtype in ALL_INTS:
        return _wrap_ints([d.choice(CAST_INTS) for _ in range(n)], dtype).reshape(shape)
    re = np.array([d.choice(CAST_FLOATS) for _ in range(n)])
    if dtype in COMPLEX:  # (re + 1j * im would turn an infinite im into a NaN re)
        re, re.imag = re.astype(complex), np.array([d.choice(CAST_FLOATS) for _ in range(n)])
    with np.errstate(all="ignore"):
        return re.astype(dtype).reshape(shape)


def cast_all(d: Drawer) -> Args:
    """tf.cast(x, dtype) for every pair of dtypes, with edge values."""
    src = d.choice(ALL_DTYPES)
    x = cast_values(d, d.shape(max_rank=2), src) if d.chance(0.8) else d.values(d.shape(), src)
    return [encode_array(x), {"dtype": d.choice(ALL_DTYPES)}], {}


# -- Python operators


ARITH = FLOATS + ALL_INTS + COMPLEX
OPERATORS = {  # name: dtypes of the tensor operand
    "add": ARITH, "sub": ARITH, "mul": ARITH, "truediv": ARITH, "floordiv": REALS, "mod": REALS,
    "pow": FLOATS + INTS + COMPLEX, "lt": REALS, "le": REALS, "gt": REALS, "ge": REALS,
    "eq": ALL_DTYPES, "ne": ALL_DTYPES, "and_": ("bool",) + ALL_INTS, "or_": ("bool",) + ALL_INTS,
    "xor": ("bool",) + ALL_INTS,
}


def _other_operand(d: Drawer, shape, dtype: str):
    """The non-tensor (or second tensor) operand of a Python operator."""
    kind = d.choice(("tensor", "int", "float", "bool", "npscalar", "ndarray", "list", "tensor_other"))
    if kind == "tensor":
        return d.tensor(shape, dtype)
    if kind == "tensor_other":
        return d.tensor(shape, d.choice(ALL_DTYPES))
    if kind == "int":
        return d.choice((0, 1, 2, -3, 3, 2**31, 300, -1))
    if kind == "float":
        return d.choice((0.5, -1.5, 2.0, 0.0, 1e10, 3.0))
    if kind == "bool":
        return d.chance(0.5)
    if kind == "npscalar":
        dt = d.choice(ALL_DTYPES)
        return _np_scalar(dt, d.values([], dt, "pos" if dt in UINTS else None))
    if kind == "ndarray":
        dt = d.choice(ALL_DTYPES)
        return _np_enc(d.values(shape if d.chance(0.8) else d.shape(), dt))
    vals = d.values(shape, d.choice(("int32", "float32", "bool")))
    return vals.tolist() if vals.dtype != np.float32 else np.round(vals.astype(float), 3).tolist()


def py_binary(d: Drawer, op: str) -> Args:
    """x <op> y with a tensor on one side (or both) and anything on the other."""
    s1, s2 = d.broadcast_shapes(2)
    dt = d.dtype(OPERATORS[op], wrong=0.1)
    x = d.tensor(s1, dt, "pos" if op in ("floordiv", "mod", "pow") and d.chance(0.5) else None)
    y = _other_operand(d, s2, dt)
    return ([y, x] if d.chance(0.4) else [x, y]), {}


def py_matmul(d: Drawer) -> Args:
    n, k, m = d.int(1, 3), d.int(1, 3), d.int(1, 3)
    dt = d.dtype(FLOATS + INTS + COMPLEX)
    a = d.tensor(d.shape(max_rank=1) + [n, k], dt)
    if d.chance(0.6):
        b = d.tensor([k if not d.chance(0.05) else k + 1, m], dt if not d.chance(0.1) else
                     d.choice(ALL_DTYPES))
    elif d.chance(0.5):
        b = _np_enc(d.values([k, m], d.choice(("float32", "float64", "int32", "int64"))))
    else:
        b = np.round(d.values([k, m], "float32").astype(float), 3).tolist()
    return ([b, a] if d.chance(0.3) else [a, b]), {}


def py_unary(d: Drawer, op: str) -> Args:
    dts = {"neg": ARITH, "abs": ARITH, "invert": ("bool",) + ALL_INTS, "pos": REALS}[op]
    return [d.tensor(d.shape(), d.dtype(dts, wrong=0.15))], {}


# -- indexing


def _slice_item(d: Drawer, n: int):
    """One item of an index key for a dimension of size n."""
    k = d.choice(("int", "slice", "slice", "slice", "newaxis", "ellipsis", "tensor", "bad"))
    if k == "int":
        return d.int(-n - (d.chance(0.05)), max(n - 1 + d.chance(0.05), 0))
    if k == "slice":
        def bound():
            return None if d.chance(0.35) else d.int(-n - 2, n + 2)
        step = None if d.chance(0.4) else d.choice((1, 2, -1, -2, 3, 0 if d.chance(0.1) else 1))
        return {"slice": [bound(), bound(), step]}
    if k == "newaxis":
        return None
    if k == "ellipsis":
        return {"ellipsis": 1}
    if k == "tensor":  # a scalar int tensor index
        return encode_array(np.array(d.int(-n, max(n - 1, 0)), dtype=d.choice(INTS)))
    return d.choice((1.5, [0, 1], "a", encode_array(np.array(True))))


def getitem(d: Drawer) -> Args:
    """x[key]: ints, slices (negative steps, out-of-range bounds), newaxis, ellipsis."""
    x = d.tensor(d.shape(min_rank=0, max_rank=4), d.dtype(REALS + ("bool",), wrong=0.05))
    shape = x["shape"]
    items = [_slice_item(d, shape[min(i, len(shape) - 1)] if shape else 1)
             for i in range(d.int(1, len(shape) + 1))]
    key = items[0] if len(items) == 1 and d.chance(0.5) else {"tuple": items}
    return [x, key], {}


def strided_slice(d: Drawer) -> Args:
    """tf.strided_slice with random begin/end/strides and every mask."""
    x = d.tensor(d.shape(min_rank=1, max_rank=4), d.dtype(REALS))
    shape = x["shape"]
    k = d.int(1, len(shape) + 1)
    dims = [shape[min(i, len(shape) - 1)] for i in range(k)]
    begin = [d.int(-n - 1, n + 1) for n in dims]
    end = [d.int(-n - 1, n + 1) for n in dims]
    strides = [d.choice((1, 1, 2, -1, -2, 3)) for _ in dims]
    if d.chance(0.04):
        strides[0] = 0
    kw = {}
    for mask in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        if d.chance(0.4 if mask not in ("ellipsis_mask", "new_axis_mask") else 0.2):
            kw[mask] = d.int(0, (1 << k) - 1)
    return [x, begin, end, strides], kw


def boolean_mask_axis(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1, max_rank=4), d.dtype(REALS))
    axis = d.int(0, x.ndim - 1)
    k = d.int(1, x.ndim - axis)
    mshape = list(x.shape[axis:axis + k]) if not d.chance(0.05) else [7]
    kw = {"axis": axis if not d.chance(0.3) else axis - x.ndim} if axis or d.chance(0.5) else {}
    return [encode_array(x), d.tensor(mshape, "bool")], kw


def gather_batch(d: Drawer) -> Args:
    """gather with batch_dims 0..2 and an axis >= batch_dims (negative ones too)."""
    params = d.values(d.shape(min_rank=1, max_rank=4), d.dtype(REALS))
    r = params.ndim
    bd = d.int(0, min(2, r - 1))
    axis = d.int(bd, r - 1)
    if d.chance(0.05):
        axis = bd - 1 if bd else r  # axis < batch_dims / out of range: TF's error
    n = params.shape[axis] if 0 <= axis < r else 1
    idx = d.index_tensor(list(params.shape[:bd]) + d.shape(max_rank=2), n)
    kw = {"axis": axis - r if d.chance(0.3) else axis}
    if bd or d.chance(0.5):
        kw["batch_dims"] = bd if not d.chance(0.2) else bd - r  # negative batch_dims
    return [encode_array(params), idx], kw


def gather_nd_batch(d: Drawer) -> Args:
    params = d.values(d.shape(min_rank=2, max_rank=4), d.dtype(REALS))
    bd = d.int(0, min(2, params.ndim - 1))
    k = d.int(1, params.ndim - bd)
    batch = list(params.shape[:bd])
    inner = d.shape(max_rank=1)
    cols = [d.rng.integers(0, max(params.shape[bd + j], 1), batch + inner + [1]) for j in range(k)]
    idx = np.concatenate(cols, -1).astype(d.choice(INTS))
    if d.chance(0.05) and idx.size:
        idx.reshape(-1)[0] = -1
    return [encode_array(params), encode_array(idx)], ({"batch_dims": bd} if bd or d.chance(0.5) else {})


# -- convolutions


def _padding(d: Drawer, sp: int, explicit_ok: bool = True):
    if explicit_ok and d.chance(0.25):
        return [[0, 0]] + [[d.int(0, 2), d.int(0, 2)] for _ in range(sp)] + [[0, 0]]
    return d.choice(("VALID", "SAME"))


def conv_strided(d: Drawer, op: str) -> Args:
    """conv1d/conv2d/depthwise/conv2d_transpose/convolution with strides, dilations, padding."""
    sp = 1 if op == "conv1d" else 2
    dt = d.choice(("float32", "float32", "float64"))
    n, cin, cout = d.int(1, 2), d.int(1, 3), d.int(1, 3)
    size = [d.int(2, 7) for _ in range(sp)]
    k = [d.int(1, 3) for _ in range(sp)]
    stride, dil = d.choice((1, 2, 3)), d.choice((1, 1, 2, 3))
    padding = _padding(d, sp)
    x = d.tensor([n] + size + [cin], dt)
    if op == "depthwise_conv2d":
        w = d.tensor(k + [cin, d.int(1, 2)], dt)
        kw = {"dilations": [dil, dil]} if dil > 1 else {}
        return [x, w, [1, stride, stride, 1], padding], kw
    if op == "conv2d_transpose":
        w = d.tensor(k + [cout, cin], dt)
        eff = [(kk - 1) * dil + 1 for kk in k]
        if isinstance(padding, list):
            out = [(s - 1) * stride + e - p[0] - p[1] for s, e, p in zip(size, eff, padding[1:-1])]
        elif padding == "SAME":
            out = [s * stride - d.int(0, stride - 1) for s in size]
        else:
            out = [(s - 1) * stride + e + d.int(0, stride - 1) for s, e in zip(size, eff)]
        if d.chance(0.05):
            out[0] += stride + 1  # an output shape the input cannot come from
        kw = {"dilations": dil} if dil > 1 else {}
        return [x, w, [n] + out + [cout], stride, padding], kw
    w = d.tensor(k + [cin, cout], dt)
    strides = stride if d.chance(0.5) else [stride] * sp if sp == 1 or d.chance(0.5) else \
        [stride, d.choice((1, 2))]
    kw = {}
    if dil > 1:
        kw["dilations"] = dil if d.chance(0.5) else [dil] * sp
    if op == "convolution":
        return [x, w], {"strides": strides, "padding": padding, **kw}
    return [x, w, strides, padding], kw


def pool_nd(d: Drawer, op: str) -> Args:
    """nn.max_pool / nn.avg_pool (rank from the input), ksize/strides as ints or lists."""
    sp = d.choice((1, 2))
    dt = d.choice(("float32", "float32", "float64"))
    x = d.tensor([d.int(1, 2)] + [d.int(1, 6) for _ in range(sp)] + [d.int(1, 2)], dt)
    ks = d.int(1, 3) if d.chance(0.5) else [d.int(1, 3) for _ in range(sp)]
    st = d.int(1, 3) if d.chance(0.5) else [d.int(1, 3) for _ in range(sp)]
    return [x, ks, st, d.choice(("VALID", "SAME"))], {}


# -- pads, reshapes, tiles


def pad_reflect(d: Drawer) -> Args:
    """REFLECT (pads < dim) and SYMMETRIC (pads <= dim), sometimes too large: TF's error."""
    x = d.float_tensor(d.shape(min_rank=1, max_rank=3, empty=0.03), dtypes=REALS)
    mode = d.choice(("REFLECT", "SYMMETRIC", "reflect", "symmetric"))
    pads = [[d.int(0, max(n, 1)), d.int(0, max(n, 1))] for n in x["shape"]]
    return [x, pads], {"mode": mode}


def reshape_minus1(d: Drawer) -> Args:
    x = d.values(d.shape(empty=0.15), d.dtype(REALS))
    shape = [x.size] if x.size else [0]
    if x.size and x.size % 2 == 0 and d.chance(0.5):
        shape = [2, x.size // 2]
    shape[d.int(0, len(shape) - 1)] = -1
    kind = d.choice(("one", "one", "two", "extra1", "zero", "minus2"))
    if kind == "two":
        shape = shape + [-1]
    elif kind == "extra1":
        shape.insert(d.int(0, len(shape)), 1)
    elif kind == "zero":
        shape.append(0)
    elif kind == "minus2":
        shape[0] = -2
    return [encode_array(x), shape], {}


def tile_minus(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    mult = [d.choice((-1, 0, 1, 2)) for _ in x["shape"]]
    if d.chance(0.3):
        mult = encode_array(np.array(mult, dtype=d.choice(INTS)))
    return [x, mult], {}


# -- clipping


def clip_value_more(d: Drawer) -> Args:
    """clip_by_value with Python bounds, lo > hi, int dtypes, and bounds of other shapes."""
    s1, s2 = d.broadcast_shapes(2)
    dt = d.dtype(REALS + ("int8", "uint8"))
    t = d.tensor(s1, dt)
    kind = d.choice(("py", "tensor", "swap", "bigger"))
    if kind == "py":
        lo, hi = (d.choice((-1, 0, -0.5)), d.choice((1, 2, 0.5)))
    else:
        lo_v = d.values(s2 if kind != "bigger" else s2 + [2], dt)
        hi_v = lo_v + np.asarray(abs(d.values([], dt)), dtype=dt)
        lo, hi = encode_array(lo_v), encode_array(hi_v)
        if kind == "swap":
            lo, hi = hi, lo
    return [t, lo, hi], {}


def clip_norm_more(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(FLOATS + INTS, wrong=0.03))
    kw = {"axes": [int(a) for a in d.rng.permutation(x.ndim)[: d.int(1, x.ndim)]]} \
        if d.chance(0.6) else {}
    return [encode_array(x), d.choice((1.0, 0.5, 0.0, -1.0, 1e-30))], kw


def clip_global_more(d: Drawer) -> Args:
    dt = d.dtype(FLOATS)
    xs = [d.tensor(d.shape(), dt) if not d.chance(0.2) else None for _ in range(d.int(1, 3))]
    norm = d.choice((1.0, 0.5, 0.0)) if d.chance(0.7) else encode_array(np.array(1.0, dt))
    return [xs, norm], {}


def global_norm_none(d: Drawer) -> Args:
    return [clip_global_more(d)[0][0]], {}


# -- creation


def range_more(d: Drawer) -> Args:
    if d.chance(0.3):
        return [d.choice((0, 5, -2, 3.5, 7))], ({"dtype": {"dtype": d.choice(REALS)}}
                                                 if d.chance(0.5) else {})
    start, limit = d.choice((0, 1, -3, 2.5, 10)), d.choice((0, 5, -4, 7.5, 10))
    delta = d.choice((1, 2, -1, 0.5, -2.5, 0))
    args = [start, limit, delta]
    if d.chance(0.2):
        args = [encode_array(np.array(v, dtype="int32" if isinstance(v, int) else "float32"))
                for v in args]
    return args, ({"dtype": {"dtype": d.choice(REALS)}} if d.chance(0.4) else {})


def linspace_more(d: Drawer) -> Args:
    dt = d.choice(("float32", "float64", "float16", "int32"))
    s = d.shape(max_rank=2, empty=0)
    start, stop = d.tensor(s, dt), d.tensor(s if d.chance(0.9) else d.shape(max_rank=1), dt)
    num = d.choice((0, 1, 2, 5, -1)) if d.chance(0.8) else encode_array(np.array(3, "int32"))
    kw = {"axis": d.int(-len(s) - 1, len(s))} if d.chance(0.4) else {}
    return [start, stop, num], kw


def eye_more(d: Drawer) -> Args:
    kw = {"dtype": {"dtype": d.choice(ALL_DTYPES)}}
    if d.chance(0.5):
        kw["num_columns"] = d.int(-1, 4)
    if d.chance(0.3):
        kw["batch_shape"] = d.shape(max_rank=2)
    return [d.int(-1, 4)], kw


def fill_more(d: Drawer) -> Args:
    dims = d.shape()
    if d.chance(0.2):
        dims = encode_array(np.array(dims, dtype=d.choice(INTS)))
    elif d.chance(0.05):
        dims = dims + [-2]
    dt = d.choice(ALL_DTYPES)
    value = d.tensor([], dt) if d.chance(0.5) else d.choice((1.5, 0, -2, True, 3e40, 2**40))
    return [dims, value], {}


def zeros_ones_dtype(d: Drawer) -> Args:
    shape = d.shape() if d.chance(0.8) else encode_array(np.array(d.shape(), "int32"))
    dt = d.choice(ALL_DTYPES)
    return [shape], {"dtype": {"dtype": dt} if d.chance(0.8) else dt}


def one_hot_more(d: Drawer) -> Args:
    depth = d.int(-1, 4)
    shape = d.shape(max_rank=2)
    idx = d.index_tensor(shape, max(depth, 0) + 1, dtype=d.choice(INTS + ("uint8",)), bad=0.15)
    kw = {}
    k = d.choice(("none", "int", "float", "mixed", "bool"))
    if k == "int":
        kw["on_value"], kw["off_value"] = 3, -1
    elif k == "float":
        kw["on_value"], kw["off_value"] = 0.5, 0.25
    elif k == "mixed":
        kw["on_value"], kw["off_value"] = 1, 0.5
    elif k == "bool":
        kw["on_value"], kw["off_value"] = True, False
    if d.chance(0.5):
        kw["axis"] = d.int(-1, len(shape) + (1 if d.chance(0.1) else 0))
    if d.chance(0.5):
        kw["dtype"] = {"dtype": d.choice(REALS + ("bool", "int8", "uint8"))}
    return [idx, depth], kw


def where_more(d: Drawer) -> Args:
    """where(cond, x, y) with broadcasting against cond, Python scalars, mixed dtypes."""
    s = d.broadcast_shapes(3)
    dt = d.dtype(REALS)
    cond = d.tensor(s[0], "bool")
    x = d.tensor(s[1], dt) if d.chance(0.8) else d.choice((0, 1.5, -1))
    y = d.tensor(s[2], dt if d.chance(0.9) else d.choice(REALS)) if d.chance(0.8) else \
        d.choice((0, 2.5, 7))
    return [cond, x, y], {}


def cumulative_flags(d: Drawer, dtypes=REALS) -> Args:
    args, kw = cumulative(d, dtypes)
    kw["exclusive"], kw["reverse"] = d.chance(0.7), d.chance(0.7)
    return args, kw


def top_k_edges(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(REALS + ("int8", "uint8")))
    n = x.shape[-1]
    k = d.choice((0, n, n + 1, n + 3, -1))
    if d.chance(0.2):
        k = encode_array(np.array(k, "int32"))
    return [encode_array(x)], {"k": k}


def histogram(d: Drawer) -> Args:
    dt = d.dtype(REALS)
    values = d.tensor(d.shape(), dt)
    lo = float(d.choice((0.0, -1.0, -3.0, 1.0)))
    # Through float64: a negative bound wraps for unsigned dtypes instead of failing NumPy.
    rng = encode_array(np.array([lo, lo + d.choice((1.0, 2.0, 6.0, 0.0, -1.0))]).astype(dt))
    kw = {"nbins": d.choice((1, 3, 5, 0))} if d.chance(0.7) else {}
    if d.chance(0.3):
        kw["dtype"] = {"dtype": d.choice(INTS)}
    return [values, rng], kw


def segment_unsorted(d: Drawer, dtypes=REALS) -> Args:
    """sorted-segment ops given unsorted or negative ids (TF raises), or gaps (TF fills)."""
    args, kw = segment(d, sorted_ids=True, dtypes=dtypes)
    data, ids = args
    n = len(ids["data"])
    kind = d.choice(("shuffled", "gap", "negative"))
    v = np.array(ids["data"])
    if kind == "shuffled" and n:
        v = d.rng.permutation(v)
    elif kind == "gap":
        v = np.sort(v) * 2
    elif n:
        v[0] = -1
    return [data, encode_array(v.astype(ids["tensor"]))], kw


# -- the rest of dir(tapeflow) that TF has


def constant_like(d: Drawer) -> Args:
    """constant/convert_to_tensor of Python values: dtype inference, ragged lists, overflow."""
    k = d.choice(("ints", "floats", "bools", "mixed", "ragged", "big", "ndarray", "scalar"))
    shape = d.shape(min_rank=1, max_rank=2)
    if k == "ints":
        v = d.values(shape, "int64").tolist()
    elif k == "floats":
        v = np.round(d.values(shape, "float64"), 3).tolist()
    elif k == "bools":
        v = d.values(shape, "bool").tolist()
    elif k == "mixed":
        v = [1, 2.5, True][: d.int(1, 3)]
    elif k == "ragged":
        v = [[1, 2], [3]]
    elif k == "big":
        v = [d.choice((2**31, 2**63, -2**31 - 1, 2**40, 1e40))]
    elif k == "ndarray":
        dt = d.choice(ALL_DTYPES)
        v = _np_enc(d.values(shape, dt))
    else:
        v = d.choice((3, 2.5, True, -0.0, 2**33))
    kw = {"dtype": {"dtype": d.choice(ALL_DTYPES)}} if d.chance(0.5) else {}
    return [v], kw


def ensure_shape(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    shape = [n if d.chance(0.7) else (None if d.chance(0.6) else n + 1) for n in x["shape"]]
    if d.chance(0.1):
        shape = shape + [1]
    return [x, shape], {}


def shape_n(d: Drawer) -> Args:
    xs = [d.float_tensor(dtypes=REALS) for _ in range(d.int(1, 3))]
    return [xs], ({"out_type": {"dtype": d.choice(INTS)}} if d.chance(0.3) else {})


MORE_SPECS = [
    S("py.getitem", getitem), S("strided_slice", strided_slice),
    S("boolean_mask", boolean_mask_axis), S("gather", gather_batch),
    S("gather_nd", gather_nd_batch),
    *[S("py." + name, py_binary, op=name) for name in OPERATORS],
    S("py.matmul", py_matmul), *[S("py." + n, py_unary, op=n) for n in ("neg", "abs", "invert", "pos")],
    S("cast", cast_all),
    *[S("nn." + op, conv_strided, op=op) for op in ("conv1d", "conv2d", "depthwise_conv2d",
                                                    "conv2d_transpose", "convolution")],
    S("nn.max_pool", pool_nd, op="max"), S("nn.avg_pool", pool_nd, op="avg"),
    S("pad", pad_reflect), S("reshape", reshape_minus1), S("tile", tile_minus),
    S("clip_by_value", clip_value_more), S("clip_by_norm", clip_norm_more),
    S("clip_by_global_norm", clip_global_more), S("linalg.global_norm", global_norm_none),
    S("math.segment_sum", segment_unsorted), S("math.segment_max", segment_unsorted),
    S("math.segment_mean", segment_unsorted, dtypes=FLOATS),
    S("math.segment_min", segment_unsorted),
    S("range", range_more), S("linspace", linspace_more), S("eye", eye_more),
    S("fill", fill_more), S("zeros", zeros_ones_dtype), S("ones", zeros_ones_dtype),
    S("one_hot", one_hot_more), S("where", where_more),
    S("math.cumsum", cumulative_flags), S("math.cumprod", cumulative_flags),
    S("math.top_k", top_k_edges), S("histogram_fixed_width", histogram),
    S("math.real", unary, dtypes=REALS + COMPLEX), S("math.conj", unary, dtypes=REALS + COMPLEX),
    S("constant", constant_like), S("convert_to_tensor", constant_like),
    S("ensure_shape", ensure_shape), S("shape_n", shape_n),
]
