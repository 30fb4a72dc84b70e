"""What to call: every public op tested, and how to draw its arguments.

Each spec is ``Spec(op_path, generator, **params)``. A generator is one of the small argument
grammars below (``unary``, ``binary``, ``reduction``, ...), shared by many ops: it takes a
Drawer and the spec's params and returns JSON-encoded ``(args, kwargs)``. Deliberately invalid
inputs (wrong dtypes, mismatched shapes, out-of-range axes and indices, negative sizes) are drawn
with small probabilities by the Drawer and by the grammars, so TF's errors are exercised too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .cases import COMPLEX, FLOATS, INTS, REALS, Drawer, encode_array

Args = tuple[list, dict]


@dataclass
class Spec:
    """One op and the grammar (with parameters) that draws its arguments."""
    op: str
    gen: Callable[..., Args]
    params: dict = field(default_factory=dict)
    post: str | None = None  # a runner.POST transform making outputs unique (eigenvector signs)

    def draw(self, d: Drawer) -> Args:
        return self.gen(d, **self.params)


def S(op_path: str, gen: Callable[..., Args], post: str | None = None, **params: Any) -> Spec:
    return Spec(op_path, gen, params, post)


# ---------------------------------------------------------------------------------------------
# argument grammars


def unary(d: Drawer, dtypes=FLOATS, domain=None, kwargs=None) -> Args:
    """f(x) elementwise; `kwargs` maps a keyword to a list of values to choose from."""
    kw = {k: d.choice(v) for k, v in (kwargs or {}).items() if d.chance(0.7)}
    return [d.float_tensor(dtypes=dtypes, domain=domain)], kw


def binary(d: Drawer, dtypes=FLOATS, domain=None, domain2=None, scalar=0.1) -> Args:
    """f(x, y) with broadcasting shapes (rarely mismatched); y is sometimes a Python number."""
    s1, s2 = d.broadcast_shapes(2)
    dt = d.dtype(dtypes)
    x = d.tensor(s1, dt, domain)
    if d.chance(scalar):
        y = float(d.choice((2.0, 0.5, -1.0, 0.0))) if dt in FLOATS else d.choice((2, -1, 0))
    else:
        dt2 = dt if not d.chance(0.05) else d.dtype(dtypes, wrong=0.5)
        y = d.tensor(s2, dt2, domain2 or domain)
    return [x, y], {}


def nary_list(d: Drawer, dtypes=FLOATS, key=None) -> Args:
    """f([x1, x2, ...]) with equal shapes (rarely not): add_n, global_norm."""
    shape, dt = d.shape(), d.dtype(dtypes)
    xs = [d.tensor(shape if not d.chance(0.04) else d.shape(), dt) for _ in range(d.int(1, 3))]
    return [xs], {}


def reduction(d: Drawer, dtypes=FLOATS, axis_kw="axis", keepdims=True, domain=None) -> Args:
    """reduce_*(x, axis, keepdims)."""
    x = d.values(d.shape(), d.dtype(dtypes), domain)
    kw = {}
    ax = d.axis(x.ndim)
    if ax is not None or axis_kw == "axes":
        kw[axis_kw] = ax if ax is not None or axis_kw != "axes" else list(range(x.ndim))
    if keepdims and d.chance(0.4):
        kw["keepdims"] = d.chance(0.5)
    return [encode_array(x)], kw


def arg_reduction(d: Drawer, dtypes=REALS) -> Args:
    """argmax/argmin(x, axis, output_type)."""
    x = d.values(d.shape(min_rank=1, empty=0.02), d.dtype(dtypes), None)
    kw = {"axis": d.one_axis(x.ndim)} if d.chance(0.8) else {}
    if d.chance(0.3):
        kw["output_type"] = {"dtype": d.choice(INTS)}
    return [encode_array(x)], kw


def cumulative(d: Drawer, dtypes=FLOATS) -> Args:
    """cumsum/cumprod/cumulative_logsumexp(x, axis, exclusive, reverse)."""
    x = d.values(d.shape(min_rank=1), d.dtype(dtypes), None)
    kw = {"axis": d.one_axis(x.ndim)} if d.chance(0.8) else {}
    for k in ("exclusive", "reverse"):
        if d.chance(0.4):
            kw[k] = d.chance(0.5)
    return [encode_array(x)], kw


def shape_of(d: Drawer, dtypes=REALS, out_type=True) -> Args:
    """shape/size/rank/identity-like: f(x[, out_type])."""
    x = d.float_tensor(dtypes=dtypes)
    kw = {"out_type": {"dtype": d.choice(INTS)}} if out_type and d.chance(0.3) else {}
    return [x], kw


def cast(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS + ("bool",))
    return [x, {"dtype": d.choice(REALS + ("bool",))}], {}


def where(d: Drawer, dtypes=FLOATS) -> Args:
    s = d.broadcast_shapes(3)
    dt = d.dtype(dtypes)
    cond = d.tensor(s[0], "bool" if not d.chance(0.04) else "int32")
    if d.chance(0.15):  # one-argument form: coordinates of true elements
        return [cond], {}
    return [cond, d.tensor(s[1], dt), d.tensor(s[2], dt)], {}


def clip_by_value(d: Drawer) -> Args:
    s1, s2 = d.broadcast_shapes(2)
    dt = d.dtype(REALS)
    lo = d.values(s2 if d.chance(0.3) else [], dt)
    hi = lo + np.asarray(abs(d.values([], dt)), dtype=dt)
    return [d.tensor(s1, dt), encode_array(lo), encode_array(hi)], {}


def clip_by_norm(d: Drawer) -> Args:
    x = d.values(d.shape(), d.dtype(FLOATS))
    kw = {"axes": d.axis(x.ndim)} if d.chance(0.5) and x.ndim else {}
    return [encode_array(x), d.choice((1.0, 0.5, 3.0, 0.0))], kw


def clip_by_global_norm(d: Drawer) -> Args:
    (xs,), _ = nary_list(d)
    return [xs, d.choice((1.0, 0.5, 3.0))], {}


# -- shape manipulation


def reshape(d: Drawer) -> Args:
    x = d.values(d.shape(), d.dtype(REALS))
    n, dims = x.size, []
    for p in (2, 3, 5, 7):
        while n % p == 0 and n > 1:
            dims.append(p)
            n //= p
    d.rng.shuffle(dims)
    shape = [int(np.prod(dims[i::2])) for i in range(2)] if len(dims) > 1 else dims or [x.size]
    if shape and d.chance(0.3):
        shape[d.int(0, len(shape) - 1)] = -1
    if d.chance(0.08):
        shape = shape + [2]  # wrong size
    return [encode_array(x), shape], {}


def expand_dims(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    r = len(x["shape"])
    return [x], {"axis": d.choice((d.int(-r - 1, r), r + 2) if d.chance(0.05) else (d.int(-r - 1, r),))}


def squeeze(d: Drawer) -> Args:
    shape = [1 if d.chance(0.5) else d.dim() for _ in range(d.int(0, 4))]
    x = d.tensor(shape, d.dtype(REALS))
    return [x], ({"axis": d.axis(len(shape))} if d.chance(0.6) else {})


def transpose(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    r = len(x["shape"])
    kw = {}
    if d.chance(0.7):
        perm = [int(p) for p in d.rng.permutation(r)]
        if d.chance(0.06):
            perm = perm + [0] if d.chance(0.5) else perm[:-1]
        kw["perm"] = perm
    return [x], kw


def matrix_transpose(d: Drawer) -> Args:
    return [d.float_tensor(d.shape(min_rank=1), dtypes=REALS)], {}


def tile(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    r = len(x["shape"])
    mult = [d.int(0, 3) for _ in range(r if not d.chance(0.06) else r + 1)]
    if mult and d.chance(0.03):
        mult[0] = -1
    return [x, mult], {}


def broadcast_to(d: Drawer) -> Args:
    s1, s2 = d.broadcast_shapes(2, mismatch=0)
    full = list(np.broadcast_shapes(tuple(s1), tuple(s2))) if d.chance(0.9) else d.shape()
    return [d.tensor(s1, d.dtype(REALS)), full], {}


def concat_stack(d: Drawer, op="concat") -> Args:
    shape, dt = d.shape(min_rank=1 if op == "concat" else 0), d.dtype(REALS)
    r = len(shape)
    axis = d.one_axis(r + (op == "stack"), bad=0.05) if r + (op == "stack") else d.choice((0, 1))
    xs = []
    for _ in range(d.int(1, 3)):
        s = list(shape)
        if op == "concat" and r and -r <= axis < r:
            s[axis] = d.dim()
        if d.chance(0.04):
            s = d.shape()
        xs.append(d.tensor(s, dt if not d.chance(0.03) else d.dtype(REALS)))
    return [xs], {"axis": axis}


def unstack(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    return [x], ({"axis": d.one_axis(len(x["shape"]))} if d.chance(0.6) else {})


def split(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    r = len(x["shape"])
    axis = d.one_axis(r)
    n = x["shape"][axis] if -r <= axis < r else 1
    if d.chance(0.5):
        k = d.choice([k for k in (1, 2, 3, 4) if n % k == 0] + ([3] if d.chance(0.1) else []))
        splits = k
    else:
        cut = sorted(d.int(0, n) for _ in range(d.int(0, 2)))
        splits = [b - a for a, b in zip([0] + cut, cut + [n])]
        if d.chance(0.2):
            splits[d.int(0, len(splits) - 1)] = -1
        if d.chance(0.05):
            splits.append(1)
    return [x, splits], {"axis": axis}


def reverse(d: Drawer) -> Args:
    x = d.float_tensor(dtypes=REALS)
    r = len(x["shape"])
    axes = [int(a) for a in d.rng.permutation(r)[: d.int(0, r)]]
    if d.chance(0.05):
        axes.append(r)
    return [x, axes], {}


def roll(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    r = len(x["shape"])
    if d.chance(0.5):
        return [x, d.int(-5, 5), d.one_axis(r)], {}
    k = d.int(1, 2)
    return [x, [d.int(-5, 5) for _ in range(k)], [d.one_axis(r) for _ in range(k)]], {}


def slice_(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    begin, size = [], []
    for n in x["shape"]:
        b = d.int(0, n)
        begin.append(b)
        size.append(d.choice((-1, d.int(0, n - b))))
    if d.chance(0.06):
        size[0] = x["shape"][0] + 1
    return [x, begin, size], {}


def pad(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    mode = d.choice(("CONSTANT", "CONSTANT", "REFLECT", "SYMMETRIC", "constant"))
    pads = [[d.int(0, 2), d.int(0, 2)] for _ in x["shape"]]
    if d.chance(0.04):
        pads[0][0] = -1
    kw = {"mode": mode}
    if mode == "CONSTANT" and d.chance(0.3):
        kw["constant_values"] = d.choice((1, 0, -2))
    return [x, pads], kw


def fill_like(d: Drawer, op="zeros") -> Args:
    shape = d.shape()
    if d.chance(0.04):
        shape = shape + [-1]
    if op == "fill":
        return [shape, d.choice((1.5, 0, -2, True))], {}
    kw = {"dtype": {"dtype": d.choice(REALS + ("bool",))}} if d.chance(0.5) else {}
    return [shape], kw


def like(d: Drawer) -> Args:
    kw = {"dtype": {"dtype": d.choice(REALS + ("bool",))}} if d.chance(0.3) else {}
    return [d.float_tensor(dtypes=REALS + ("bool",))], kw


def range_(d: Drawer) -> Args:
    if d.chance(0.5):
        start, limit, delta = d.int(-3, 3), d.int(-5, 8), d.choice((1, 2, -1, 3, 0))
    else:
        start, limit, delta = (round(float(v), 2) for v in (d.rng.normal(), d.rng.normal() * 5,
                                                            d.choice((0.5, 1.0, -0.7, 0.3))))
    kw = {"dtype": {"dtype": d.choice(REALS)}} if d.chance(0.3) else {}
    return [start, limit, delta], kw


def linspace(d: Drawer) -> Args:
    dt = d.choice(("float32", "float64"))
    s = d.shape(max_rank=1, empty=0)
    start = d.tensor(s, dt)
    stop = d.tensor(s, dt)
    return [start, stop, d.int(0, 5)], {}


def eye(d: Drawer) -> Args:
    kw = {}
    if d.chance(0.5):
        kw["num_columns"] = d.int(0, 4)
    if d.chance(0.3):
        kw["batch_shape"] = d.shape(max_rank=2)
    if d.chance(0.5):
        kw["dtype"] = {"dtype": d.choice(REALS)}
    return [d.int(0, 4) if not d.chance(0.04) else -1], kw


def one_hot(d: Drawer) -> Args:
    depth = d.int(0, 4)
    idx = d.index_tensor(d.shape(), depth + 1, bad=0.1)
    kw = {}
    if d.chance(0.3):
        kw["on_value"], kw["off_value"] = 5.0, -1.0
    if d.chance(0.3):
        kw["axis"] = d.choice((-1, 0))
    if d.chance(0.3):
        kw["dtype"] = {"dtype": d.choice(REALS)}
    return [idx, depth], kw


def sequence_mask(d: Drawer) -> Args:
    lengths = d.index_tensor(d.shape(max_rank=2), 5, bad=0.05)
    kw = {"maxlen": d.int(0, 5)} if d.chance(0.5) else {}
    if d.chance(0.3):
        kw["dtype"] = {"dtype": d.choice(REALS)}
    return [lengths], kw


def meshgrid(d: Drawer) -> Args:
    dt = d.dtype(REALS)
    xs = [d.tensor([d.dim()], dt) for _ in range(d.int(1, 3))]
    return xs, ({"indexing": d.choice(("xy", "ij"))} if d.chance(0.5) else {})


def repeat(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    r = len(x["shape"])
    axis = d.one_axis(r) if d.chance(0.7) else None
    if d.chance(0.5) or axis is None:
        reps = d.int(0, 3)
    else:
        n = x["shape"][axis] if -r <= axis < r else 1
        reps = [d.int(0, 3) for _ in range(n if not d.chance(0.05) else n + 1)]
    return [x, reps], ({"axis": axis} if axis is not None else {})


# -- indexing


def gather(d: Drawer) -> Args:
    params = d.values(d.shape(min_rank=1), d.dtype(REALS))
    r = params.ndim
    kw = {}
    axis = d.one_axis(r) if d.chance(0.4) else 0
    if axis:
        kw["axis"] = axis
    n = params.shape[axis] if -r <= axis < r else 1
    if d.chance(0.2) and r >= 2 and axis not in (0, -r):
        kw["batch_dims"] = 1
        idx = d.index_tensor([params.shape[0]] + d.shape(max_rank=1), n)
    else:
        idx = d.index_tensor(d.shape(max_rank=2), n)
    return [encode_array(params), idx], kw


def gather_nd(d: Drawer) -> Args:
    params = d.values(d.shape(min_rank=1), d.dtype(REALS))
    k = d.int(1, params.ndim)
    batch = d.shape(max_rank=2)
    cols = [d.values(batch + [1], "int64") * 0 + d.rng.integers(0, max(params.shape[j], 1), batch + [1])
            for j in range(k)]
    idx = np.concatenate(cols, axis=-1).astype(d.choice(INTS)) if cols else np.zeros(batch + [0], "int32")
    if d.chance(0.06) and idx.size:
        idx.reshape(-1)[0] = params.shape[0] + 1
    return [encode_array(params), encode_array(idx)], {}


def scatter(d: Drawer, op="scatter_nd") -> Args:
    shape = d.shape(min_rank=1, empty=0.02)
    dt = d.dtype(REALS)
    k = d.int(1, len(shape))
    batch = d.shape(max_rank=2)
    idx = np.stack([d.rng.integers(0, max(shape[j], 1), batch) for j in range(k)], -1)
    if d.chance(0.06) and idx.size:
        idx.reshape(-1)[0] = shape[0] + 1
    idx = encode_array(idx.astype(d.choice(INTS)))
    updates = d.tensor(batch + shape[k:], dt)
    if op == "scatter_nd":
        return [idx, updates, shape], {}
    return [d.tensor(shape, dt), idx, updates], {}


def boolean_mask(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(REALS))
    k = d.int(1, x.ndim)
    mask = d.tensor(list(x.shape[:k]) if not d.chance(0.05) else [7], "bool")
    return [encode_array(x), mask], {}


def segment(d: Drawer, sorted_ids=True, dtypes=REALS) -> Args:
    data = d.values(d.shape(min_rank=1), d.dtype(dtypes))
    n = data.shape[0]
    ids = np.sort(d.rng.integers(0, 4, n)) if sorted_ids else d.rng.integers(-1 if d.chance(0.2) else 0, 4, n)
    if sorted_ids and d.chance(0.05) and n > 1:
        ids = ids[::-1]  # unsorted ids: TF's error
    ids = encode_array(ids.astype(d.choice(INTS)))
    if sorted_ids:
        return [encode_array(data), ids], {}
    return [encode_array(data), ids, d.int(0, 5)], {}


def bincount(d: Drawer) -> Args:
    arr = d.index_tensor(d.shape(max_rank=2), 5, dtype="int32", bad=0.05)
    kw = {}
    if d.chance(0.3):
        kw["minlength"] = d.int(0, 7)
    if d.chance(0.3):
        kw["maxlength"] = d.int(0, 7)
    if d.chance(0.3):
        kw["weights"] = d.tensor(arr["shape"], d.choice(FLOATS[1:]))
    return [arr], kw


def searchsorted(d: Drawer) -> Args:
    batch = d.shape(max_rank=1, empty=0)
    dt = d.dtype(REALS)
    seq = np.sort(d.values(batch + [d.dim()], dt), axis=-1)
    vals = d.tensor(batch + [d.dim()], dt)
    kw = {"side": d.choice(("left", "right"))} if d.chance(0.6) else {}
    return [encode_array(seq), vals], kw


def embedding_lookup(d: Drawer) -> Args:
    params = d.values(d.shape(min_rank=1, empty=0.02), d.dtype(FLOATS))
    return [encode_array(params), d.index_tensor(d.shape(max_rank=2), params.shape[0])], {}


def top_k(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(REALS))
    k = d.int(0, x.shape[-1]) if not d.chance(0.05) else x.shape[-1] + 1
    kw = {"sorted": d.chance(0.7)} if d.chance(0.3) else {}
    return [encode_array(x)], {"k": k, **kw}


def in_top_k(d: Drawer) -> Args:
    batch, classes = d.dim(), d.int(1, 4)
    preds = d.tensor([batch, classes], d.choice(("float32", "float32", "float64")))
    return [d.index_tensor([batch], classes), preds, d.int(0, classes)], {}


def sort(d: Drawer, stable=False) -> Args:
    x = d.float_tensor(d.shape(min_rank=1), dtypes=REALS)
    kw = {}
    if d.chance(0.5):
        kw["axis"] = d.one_axis(len(x["shape"]))
    if d.chance(0.5):
        kw["direction"] = d.choice(("ASCENDING", "DESCENDING"))
    if stable:
        kw["stable"] = True  # ties are otherwise free to come out in any order
    return [x], kw


def unique(d: Drawer) -> Args:
    x = d.tensor([d.dim()] if not d.chance(0.05) else [2, 2], d.dtype(REALS))
    return [x], ({"out_idx": {"dtype": "int64"}} if d.chance(0.3) else {})


# -- linear algebra


def _matrices(d: Drawer, kind: str, dtypes=FLOATS, square=True, cols=None, batch=None) -> np.ndarray:
    """A batch of matrices: general, 'spd' (positive definite), or 'tri' (well-conditioned)."""
    n = d.int(0 if d.chance(0.05) else 1, 4)
    m = n if square else d.int(1, 4)
    batch = d.shape(max_rank=1, empty=0.02) if batch is None else batch
    dt = d.dtype(dtypes, wrong=0.04)
    a = d.values(batch + [n, m], dt)
    if kind in ("spd", "tri") and dt in FLOATS + COMPLEX and not d.chance(0.1):
        a = np.random.default_rng(int(d.rng.integers(1 << 30))).standard_normal(batch + [n, m])
        if kind == "spd":
            a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        else:
            a = a + 3 * np.eye(n, m)
        a = a.astype(dt)
    if not square and d.chance(0.05):
        a = a[..., 0]  # wrong rank
    return a


def matrix_unary(d: Drawer, kind="general", dtypes=FLOATS, square=True, kwargs=None) -> Args:
    kw = {k: d.choice(v) for k, v in (kwargs or {}).items() if d.chance(0.6)}
    return [encode_array(_matrices(d, kind, dtypes, square))], kw


def matrix_rhs(d: Drawer, kind="general", dtypes=FLOATS, kwargs=None) -> Args:
    """solve-like: (matrix [..., n, n], rhs [..., n, k])."""
    a = _matrices(d, kind, dtypes, True)
    n = a.shape[-1] if a.ndim else 1
    rhs_shape = list(a.shape[:-1]) + [d.int(1, 3)] if a.ndim >= 2 else [2, 1]
    if d.chance(0.05):
        rhs_shape[-2] = n + 1
    b = d.values(rhs_shape, a.dtype.name if not d.chance(0.04) else d.dtype(FLOATS))
    kw = {k: d.choice(v) for k, v in (kwargs or {}).items() if d.chance(0.6)}
    return [encode_array(a), encode_array(b)], kw


def lstsq(d: Drawer) -> Args:
    a = _matrices(d, "general", ("float32", "float64"), False)
    rows = a.shape[-2] if a.ndim >= 2 else 1
    b = d.values(list(a.shape[:-2]) + [rows, d.int(1, 2)], a.dtype.name)
    return [encode_array(a), encode_array(b)], ({"l2_regularizer": 0.1} if d.chance(0.3) else {})


def matmul(d: Drawer, dtypes=REALS, vec=False) -> Args:
    n, k, m = d.dim(), d.dim(), d.dim()
    batch = d.shape(max_rank=1)
    dt = d.dtype(dtypes)
    kw = {}
    ta, tb = d.chance(0.3), d.chance(0.3) and not vec
    if ta:
        kw["transpose_a"] = True
    if tb:
        kw["transpose_b"] = True
    a = d.values(batch + ([k, n] if ta else [n, k]), dt)
    b_batch = batch if d.chance(0.8) else [1]
    b = d.values(b_batch + [k if not d.chance(0.05) else k + 1] if vec else
                 b_batch + ([m, k] if tb else [k if not d.chance(0.05) else k + 1, m]), dt)
    return [encode_array(a), encode_array(b)], kw


def tensordot(d: Drawer) -> Args:
    dt = d.dtype(FLOATS)
    shared = [d.dim() for _ in range(d.int(0, 2))]
    a = d.values(d.shape(max_rank=2) + shared, dt)
    b = d.values(shared + d.shape(max_rank=2), dt)
    axes = len(shared) if d.chance(0.6) else [list(range(a.ndim - len(shared), a.ndim)),
                                               list(range(len(shared)))]
    if d.chance(0.05):
        axes = a.ndim + 1
    return [encode_array(a), encode_array(b), axes], {}


EINSUMS = [("ij,jk->ik", [[2, 3], [3, 4]]), ("i,i->", [[3], [3]]), ("ij->ji", [[2, 3]]),
           ("bij,bjk->bik", [[2, 2, 3], [2, 3, 1]]), ("ii->i", [[3, 3]]), ("ij->", [[2, 3]]),
           ("i,j->ij", [[2], [3]]), ("...ij,...jk->...ik", [[2, 2, 3], [3, 2]]),
           ("ij,jk->ik", [[2, 3], [4, 4]]), ("ijk->kji", [[1, 2, 3]]), ("ii", [[2, 2]])]


def einsum(d: Drawer) -> Args:
    eq, shapes = d.choice(EINSUMS)
    dt = d.dtype(FLOATS)
    return [eq] + [d.tensor(s, dt) for s in shapes], {}


def band_part(d: Drawer) -> Args:
    x = _matrices(d, "general", REALS, d.chance(0.5))
    return [encode_array(x), d.int(-1, 2), d.int(-1, 2)], {}


def diag(d: Drawer) -> Args:
    v = d.float_tensor(d.shape(min_rank=1, max_rank=2), dtypes=REALS)
    kw = {"k": d.int(-1, 1)} if d.chance(0.3) else {}
    return [v], kw


def set_diag(d: Drawer) -> Args:
    x = _matrices(d, "general", REALS, d.chance(0.5))
    n = min(x.shape[-2:]) if x.ndim >= 2 else 1
    diag_shape = list(x.shape[:-2]) + [n if not d.chance(0.05) else n + 1]
    return [encode_array(x), d.tensor(diag_shape, x.dtype.name)], {}


def matrix_norm(d: Drawer, op="norm") -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(FLOATS))
    kw = {}
    r = x.ndim
    if d.chance(0.6):
        if r >= 2 and d.chance(0.4):
            kw["axis"] = [r - 2, r - 1]
            kw["ord"] = d.choice(("fro", "euclidean", 1, np.inf, 2))
        else:
            kw["axis"] = d.one_axis(r)
            kw["ord"] = d.choice(("euclidean", 1, 2, np.inf, 0.5, 3))
    if kw.get("ord") == np.inf:
        kw["ord"] = {"float": "inf"}  # decoded by the runner into float('inf')
    if d.chance(0.3):
        kw["keepdims"] = True
    return [encode_array(x)], kw


# -- nn


def softmax_like(d: Drawer, axis_kw="axis") -> Args:
    x = d.float_tensor(d.shape(min_rank=1))
    kw = {axis_kw: d.one_axis(len(x["shape"]))} if d.chance(0.4) else {}
    return [x], kw


def labels_logits(d: Drawer, op: str) -> Args:
    shape = d.shape(min_rank=1)
    dt = d.dtype(FLOATS)
    logits = d.tensor(shape, dt)
    if op == "sparse":
        classes = shape[-1]
        labels = d.index_tensor(shape[:-1] if not d.chance(0.05) else shape, classes)
        return [], {"labels": labels, "logits": logits}
    if op == "sigmoid":
        labels = encode_array(d.rng.random(shape).astype(dt))
        return [], {"labels": labels, "logits": logits}
    p = d.rng.random(shape) + 0.01
    labels = encode_array((p / p.sum(-1, keepdims=True)).astype(dt))
    return [labels, logits], ({"axis": d.one_axis(len(shape))} if d.chance(0.2) else {})


def bias_add(d: Drawer) -> Args:
    shape = d.shape(min_rank=1)
    dt = d.dtype(FLOATS)
    bias = [shape[-1] if not d.chance(0.05) else shape[-1] + 1]
    return [d.tensor(shape, dt), d.tensor(bias, dt)], {}


def l2_normalize(d: Drawer) -> Args:
    x = d.float_tensor(d.shape(min_rank=1))
    return [x], ({"axis": d.axis(len(x["shape"]), none=0, as_list=0.1)} if d.chance(0.6) else {})


def moments(d: Drawer) -> Args:
    x = d.values(d.shape(min_rank=1), d.dtype(FLOATS))
    axes = [int(a) for a in d.rng.permutation(x.ndim)[: d.int(1, x.ndim)]]
    kw = {"keepdims": True} if d.chance(0.3) else {}
    return [encode_array(x), axes], kw


def batch_normalization(d: Drawer) -> Args:
    shape = d.shape(min_rank=1)
    dt = d.dtype(FLOATS)
    c = [shape[-1]]
    return [d.tensor(shape, dt), d.tensor(c, dt), d.tensor(c, dt, "pos"), d.tensor(c, dt),
            d.tensor(c, dt), d.choice((1e-3, 1e-5))], {}


def polyval(d: Drawer) -> Args:
    dt = d.dtype(FLOATS)
    x = d.tensor(d.shape(), dt)
    return [[d.tensor([], dt) for _ in range(d.int(0, 3))], x], {}


def conv(d: Drawer, op="conv2d") -> Args:
    """conv1d/conv2d/depthwise_conv2d/convolution/conv2d_transpose in NHWC / NWC."""
    sp = 1 if op == "conv1d" else 2
    dt = d.dtype(("float32", "float32", "float64", "float16"))
    n, cin = d.int(1, 2), d.int(1, 3)
    size = [d.int(1, 5) for _ in range(sp)]
    k = [d.int(1, 3) for _ in range(sp)]
    padding = d.choice(("VALID", "SAME"))
    stride = d.choice((1, 1, 2))
    cout = d.int(1, 3)
    x = d.tensor([n] + size + [cin], dt)
    if op == "depthwise_conv2d":
        w = d.tensor(k + [cin, d.int(1, 2)], dt)
        return [x, w, [1, stride, stride, 1], padding], {}
    if op == "conv2d_transpose":
        w = d.tensor(k + [cout, cin], dt)
        out = [n] + [s * stride if padding == "SAME" else (s - 1) * stride + kk
                     for s, kk in zip(size, k)] + [cout]
        return [x, w, out, stride, padding], {}
    w = d.tensor(k + [cin if not d.chance(0.04) else cin + 1, cout], dt)
    kw = {"dilations": 2} if stride == 1 and d.chance(0.2) else {}
    if op == "convolution":
        return [x, w], {"strides": stride, "padding": padding, **kw}
    return [x, w, stride, padding], kw


def pool(d: Drawer, sp=2) -> Args:
    dt = d.dtype(("float32", "float32", "float64", "float16"))
    x = d.tensor([d.int(1, 2)] + [d.int(1, 5) for _ in range(sp)] + [d.int(1, 2)], dt)
    return [x, d.int(1, 3), d.int(1, 2), d.choice(("VALID", "SAME"))], {}


def polygamma(d: Drawer) -> Args:
    """polygamma(n, x): n mostly a small non-negative integer (as a float), x mostly > 0."""
    s1, s2 = d.broadcast_shapes(2)
    dt = d.dtype(FLOATS)
    n = np.abs(np.round(d.values(s1, dt))) if d.chance(0.9) else d.values(s1, dt)
    return [encode_array(n.astype(dt)), d.tensor(s2, dt, "pos")], {}


def dropout_rate0(d: Drawer) -> Args:
    """dropout is random; rate 0 and rate >= 1 (an error) are deterministic."""
    return [d.float_tensor(), d.choice((0.0, 0.0, 1.0, -0.1))], {}


# ---------------------------------------------------------------------------------------------
# the op list

UNIT = dict(domain="unit")
POS = dict(domain="pos")
C = FLOATS + COMPLEX

_UNARY = {  # op: (dtypes, domain)
    "abs": (REALS + COMPLEX, None), "negative": (REALS + COMPLEX, None), "sign": (REALS, None),
    "square": (REALS, None), "sqrt": (C, "pos"), "rsqrt": (C, "pos"), "exp": (C, None),
    "expm1": (FLOATS, None), "log": (C, "pos"), "log1p": (FLOATS, "pos"),
    "sin": (C, None), "cos": (C, None), "tan": (FLOATS, None), "asin": (FLOATS, "unit"),
    "acos": (FLOATS, "unit"), "atan": (FLOATS, None), "sinh": (FLOATS, None),
    "cosh": (FLOATS, None), "tanh": (C, None), "asinh": (FLOATS, None),
    "acosh": (FLOATS, "ge1"), "atanh": (FLOATS, "unit"), "sigmoid": (FLOATS, None),
    "softplus": (FLOATS, None), "erf": (FLOATS, None), "erfc": (FLOATS, None),
    "floor": (FLOATS, None), "ceil": (FLOATS, None), "round": (REALS, None),
    "reciprocal": (C, None), "is_nan": (FLOATS, None), "is_inf": (FLOATS, None),
    "is_finite": (FLOATS, None), "lgamma": (FLOATS, "pos"), "digamma": (FLOATS, "pos"),
    "bessel_i0e": (FLOATS, None), "bessel_i1e": (FLOATS, None), "log_sigmoid": (FLOATS, None),
    "logical_not": (("bool",), None),
}
_BINARY = {
    "add": REALS + COMPLEX, "subtract": REALS, "multiply": REALS + COMPLEX, "divide": REALS,
    "truediv": REALS, "floordiv": REALS, "floormod": REALS, "mod": REALS, "pow": REALS,
    "maximum": REALS, "minimum": REALS, "squared_difference": REALS, "atan2": FLOATS,
    "divide_no_nan": FLOATS, "xlogy": FLOATS, "xdivy": FLOATS, "xlog1py": FLOATS,
    "equal": REALS, "not_equal": REALS, "less": REALS, "less_equal": REALS,
    "greater": REALS, "greater_equal": REALS,
    "logical_and": ("bool",), "logical_or": ("bool",), "logical_xor": ("bool",),
}
_REDUCE = {
    "reduce_sum": REALS, "reduce_mean": REALS, "reduce_max": REALS, "reduce_min": REALS,
    "reduce_prod": REALS, "reduce_logsumexp": FLOATS, "reduce_std": FLOATS,
    "reduce_variance": FLOATS, "reduce_euclidean_norm": REALS, "count_nonzero": REALS + ("bool",),
    "reduce_all": ("bool",), "reduce_any": ("bool",),
}

SPECS: list[Spec] = []
for _name, (_dt, _dom) in _UNARY.items():
    SPECS.append(S("math." + _name, unary, dtypes=_dt, domain=_dom))
for _name, _dt in _BINARY.items():
    SPECS.append(S("math." + _name, binary, dtypes=_dt,
                   domain2="pos" if _name == "xlogy" else None))
for _name, _dt in _REDUCE.items():
    SPECS.append(S("math." + _name, reduction, dtypes=_dt))
SPECS += [
    # math: the rest
    S("math.polygamma", polygamma),
    S("truncatediv", binary, dtypes=INTS), S("truncatemod", binary, dtypes=INTS),
    S("math.add_n", nary_list, dtypes=REALS),
    S("math.argmax", arg_reduction), S("math.argmin", arg_reduction),
    S("math.cumsum", cumulative, dtypes=REALS), S("math.cumprod", cumulative, dtypes=REALS),
    S("math.cumulative_logsumexp", cumulative, dtypes=FLOATS),
    S("math.top_k", top_k), S("math.in_top_k", in_top_k), S("math.polyval", polyval),
    S("math.segment_sum", segment), S("math.segment_mean", segment, dtypes=FLOATS),
    S("math.segment_max", segment), S("math.segment_min", segment),
    S("math.unsorted_segment_sum", segment, sorted_ids=False),
    S("math.unsorted_segment_mean", segment, sorted_ids=False, dtypes=FLOATS),
    S("math.unsorted_segment_max", segment, sorted_ids=False),
    S("math.unsorted_segment_min", segment, sorted_ids=False),
    S("math.bincount", bincount),
    S("cast", cast), S("where", where), S("identity", shape_of, out_type=False),
    S("stop_gradient", shape_of, out_type=False),
    S("clip_by_value", clip_by_value), S("clip_by_norm", clip_by_norm),
    S("clip_by_global_norm", clip_by_global_norm), S("linalg.global_norm", nary_list),
    # shapes and arrays
    S("shape", shape_of), S("size", shape_of), S("rank", shape_of, out_type=False),
    S("reshape", reshape), S("expand_dims", expand_dims), S("squeeze", squeeze),
    S("transpose", transpose), S("tile", tile), S("broadcast_to", broadcast_to),
    S("concat", concat_stack, op="concat"), S("stack", concat_stack, op="stack"),
    S("unstack", unstack), S("split", split), S("reverse", reverse), S("roll", roll),
    S("slice", slice_), S("pad", pad), S("fill", fill_like, op="fill"),
    S("zeros", fill_like), S("ones", fill_like), S("zeros_like", like), S("ones_like", like),
    S("range", range_), S("linspace", linspace), S("eye", eye), S("one_hot", one_hot),
    S("sequence_mask", sequence_mask), S("meshgrid", meshgrid), S("repeat", repeat),
    S("gather", gather), S("gather_nd", gather_nd), S("scatter_nd", scatter),
    S("tensor_scatter_nd_update", scatter, op="update"),
    S("tensor_scatter_nd_add", scatter, op="add"), S("boolean_mask", boolean_mask),
    S("searchsorted", searchsorted), S("sort", sort), S("argsort", sort, stable=True),
    S("unique", unique), S("unique_with_counts", unique),
    # linalg
    S("linalg.matmul", matmul), S("linalg.matvec", matmul, vec=True), S("tensordot", tensordot),
    S("einsum", einsum), S("linalg.matrix_transpose", matrix_transpose),
    S("linalg.adjoint", matrix_transpose), S("linalg.trace", matrix_transpose),
    S("linalg.band_part", band_part), S("linalg.diag", diag),
    S("linalg.diag_part", matrix_unary, dtypes=REALS, square=False),
    S("linalg.set_diag", set_diag),
    S("linalg.det", matrix_unary), S("linalg.inv", matrix_unary, kind="tri"),
    S("linalg.slogdet", matrix_unary, kind="tri"), S("linalg.logdet", matrix_unary, kind="spd"),
    S("linalg.cholesky", matrix_unary, kind="spd"), S("linalg.eigvalsh", matrix_unary, kind="spd"),
    S("linalg.eigh", matrix_unary, kind="spd", post="eigh"), S("linalg.expm", matrix_unary),
    S("linalg.qr", matrix_unary, square=False, post="qr", kwargs={"full_matrices": [True, False]}),
    S("linalg.svd", matrix_unary, square=False, post="svd", kwargs={"compute_uv": [False, True]}),
    S("linalg.pinv", matrix_unary, kind="tri", square=False),
    S("linalg.solve", matrix_rhs, kind="tri", kwargs={"adjoint": [True, False]}),
    S("linalg.triangular_solve", matrix_rhs, kind="tri",
      kwargs={"lower": [True, False], "adjoint": [True, False]}),
    S("linalg.cholesky_solve", matrix_rhs, kind="tri"), S("linalg.lstsq", lstsq),
    S("linalg.eye", eye), S("linalg.norm", matrix_norm), S("norm", matrix_norm),
    # nn
    S("nn.relu", unary, dtypes=REALS), S("nn.relu6", unary), S("nn.elu", unary),
    S("nn.selu", unary), S("nn.softsign", unary), S("nn.silu", unary), S("nn.swish", unary),
    S("nn.gelu", unary, kwargs={"approximate": [True, False]}),
    S("nn.leaky_relu", unary, kwargs={"alpha": [0.2, 0.0, 1.5]}),
    S("nn.softmax", softmax_like), S("nn.log_softmax", softmax_like),
    S("nn.l2_loss", unary), S("nn.l2_normalize", l2_normalize), S("nn.moments", moments),
    S("nn.bias_add", bias_add), S("nn.batch_normalization", batch_normalization),
    S("nn.sigmoid_cross_entropy_with_logits", labels_logits, op="sigmoid"),
    S("nn.softmax_cross_entropy_with_logits", labels_logits, op="dense"),
    S("nn.sparse_softmax_cross_entropy_with_logits", labels_logits, op="sparse"),
    S("nn.embedding_lookup", embedding_lookup), S("nn.dropout", dropout_rate0),
    S("nn.conv1d", conv, op="conv1d"), S("nn.conv2d", conv, op="conv2d"),
    S("nn.depthwise_conv2d", conv, op="depthwise_conv2d"),
    S("nn.conv2d_transpose", conv, op="conv2d_transpose"),
    S("nn.convolution", conv, op="convolution"),
    S("nn.max_pool2d", pool), S("nn.avg_pool2d", pool),
    S("nn.max_pool1d", pool, sp=1), S("nn.avg_pool1d", pool, sp=1),
]

from .more_specs import MORE_SPECS  # noqa: E402 - they build on the grammars above

SPECS += MORE_SPECS
