"""Drawing random op calls ("cases") and their JSON encoding.

A case is a plain JSON object::

    {"id": 17, "op": "math.add", "args": [...], "kwargs": {...}}

Inside args/kwargs, values are encoded as:

- a tensor: ``{"tensor": "float32", "shape": [2, 3], "data": [...]}`` (data flat, row-major;
  NaN and infinities as the strings "nan", "inf", "-inf"; complex numbers as [re, im] pairs);
- a dtype: ``{"dtype": "int64"}``;
- a list of values: a JSON list (e.g. a list of tensors for ``concat``);
- Python numbers, strings, booleans and None as themselves.

Drawing is deterministic: case ``i`` of seed ``s`` depends only on (s, i) and the spec list.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

FLOATS = ("float16", "float32", "float64")
INTS = ("int32", "int64")
REALS = FLOATS + INTS
COMPLEX = ("complex64", "complex128")
# Dtypes drawn when a spec asks for a deliberately wrong one.
ANY_DTYPES = FLOATS + INTS + ("bool", "complex64", "uint8", "int16")


# ---------------------------------------------------------------------------------------------
# encoding


def _enc_scalar(v: Any) -> Any:
    if isinstance(v, (complex, np.complexfloating)):
        return [_enc_scalar(float(v.real)), _enc_scalar(float(v.imag))]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def encode_array(a: np.ndarray) -> dict:
    """Encode a NumPy array as a JSON tensor record."""
    a = np.asarray(a)
    return {"tensor": a.dtype.name, "shape": list(a.shape),
            "data": [_enc_scalar(v) for v in a.reshape(-1).tolist()]}


def _dec_scalar(v: Any) -> Any:
    if isinstance(v, str):
        return float(v)  # "nan", "inf", "-inf"
    if isinstance(v, list):
        return complex(_dec_scalar(v[0]), _dec_scalar(v[1]))
    return v


def decode_array(rec: dict) -> np.ndarray:
    """Decode a JSON tensor record into a NumPy array (the inverse of encode_array)."""
    data = [_dec_scalar(v) for v in rec["data"]]
    return np.array(data, dtype=rec["tensor"]).reshape(rec["shape"])


# ---------------------------------------------------------------------------------------------
# drawing


class Drawer:
    """Random building blocks for specs: shapes, dtypes, values, axes (all JSON-encoded)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    # -- basic choices
    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, seq: Sequence) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    # -- dtypes
    def dtype(self, allowed: Sequence[str], wrong: float = 0.06) -> str:
        """One of `allowed`, or (with probability `wrong`) any dtype at all."""
        if self.chance(wrong):
            return self.choice(ANY_DTYPES)
        return self.choice(allowed)

    # -- shapes
    def dim(self, empty: float = 0.04) -> int:
        return 0 if self.chance(empty) else self.int(1, 4)

    def shape(self, min_rank: int = 0, max_rank: int = 3, empty: float = 0.04) -> list[int]:
        rank = self.int(min_rank, max_rank)
        return [self.dim(empty) for _ in range(rank)]

    def broadcast_shapes(self, n: int = 2, mismatch: float = 0.05) -> list[list[int]]:
        """n shapes that broadcast together (or, rarely, that do not)."""
        full = self.shape()
        shapes = []
        for _ in range(n):
            rank = self.int(0, len(full))
            s = [1 if self.chance(0.3) else d for d in full[len(full) - rank:]]
            shapes.append(s)
        if self.chance(mismatch) and full:
            k = self.int(0, n - 1)
            bad = list(full)
            bad[-1] = bad[-1] + 1 if bad[-1] != 1 else 3
            shapes[k] = bad
        self.rng.shuffle(shapes)
        return shapes

    # -- values
    def values(self, shape: Sequence[int], dtype: str, domain: str | None = None) -> np.ndarray:
        """Random values: mostly ordinary, sometimes zeros, ties, NaN/inf, huge or tiny."""
        n = int(np.prod(shape)) if shape else 1
        if dtype == "bool":
            return self.rng.random(n).reshape(shape) < 0.5
        if dtype in ("uint8", "int16", "int32", "int64", "int8", "uint16", "uint32", "uint64"):
            lo = 0 if dtype[0] == "u" or domain in ("pos", "nonneg", "index") else -5
            v = self.rng.integers(lo, 6, n)
            if n and self.chance(0.05) and dtype in ("int32", "int64"):
                v[self.rng.integers(n)] = (2**31 - 1) if dtype == "int32" else (2**62)
            return v.astype(dtype).reshape(shape)
        if dtype.startswith("complex"):
            re = self.values(shape, "float64", domain)
            im = self.values(shape, "float64", domain)
            with np.errstate(all="ignore"):
                return (re + 1j * im).astype(dtype)
        kind = self.choice(("normal",) * 6 + ("ints", "special", "extreme", "zeros"))
        if kind == "normal":
            v = self.rng.standard_normal(n) * self.choice((1.0, 1.0, 3.0, 0.3))
        elif kind == "ints":  # small integers: exact ties and exact zeros
            v = self.rng.integers(-3, 4, n).astype(float)
        elif kind == "zeros":
            v = np.where(self.rng.random(n) < 0.5, 0.0, self.rng.standard_normal(n))
        else:
            v = self.rng.standard_normal(n)
            specials = ((np.nan, np.inf, -np.inf, 0.0, -0.0) if kind == "special" else
                        (1e30, -1e30, 1e-30, -1e-30, 60000.0, 1e-7, 1e300, 1e-300))
            mask = self.rng.random(n) < 0.3
            v[mask] = self.rng.choice(specials, int(mask.sum()))
        if domain == "pos":
            v = np.abs(v) + (0.1 if kind == "normal" else 0.0)
        elif domain == "unit":
            v = np.tanh(v) if kind == "normal" else v
        elif domain == "ge1":
            v = 1.0 + np.abs(v) if kind == "normal" else v
        with np.errstate(all="ignore"):
            return v.astype(dtype).reshape(shape)

    def tensor(self, shape: Sequence[int], dtype: str, domain: str | None = None) -> dict:
        return encode_array(self.values(shape, dtype, domain))

    def float_tensor(self, shape: Sequence[int] | None = None, dtypes: Sequence[str] = FLOATS,
                     domain: str | None = None, wrong: float = 0.06) -> dict:
        shape = self.shape() if shape is None else shape
        return self.tensor(shape, self.dtype(dtypes, wrong), domain)

    def index_tensor(self, shape: Sequence[int], bound: int, dtype: str | None = None,
                     bad: float = 0.05) -> dict:
        """Indices in [0, bound), sometimes one out of range (negative or too big)."""
        dtype = dtype or self.choice(INTS)
        n = int(np.prod(shape)) if shape else 1
        v = self.rng.integers(0, max(bound, 1), n)
        if (self.chance(bad) or bound == 0) and n:
            v[self.rng.integers(n)] = self.choice((-1, max(bound, 1)))
        return encode_array(v.astype(dtype).reshape(shape))

    # -- axes
    def axis(self, rank: int, none: float = 0.2, as_list: float = 0.15,
             bad: float = 0.05) -> Any:
        """None, an int in [-rank, rank), a list of distinct axes, or (rarely) an invalid one."""
        if self.chance(bad):
            return self.choice((rank, -rank - 1, rank + 2))
        if self.chance(none) or rank == 0:
            return None if rank == 0 or not self.chance(0.3) else 0
        if self.chance(as_list):
            k = self.int(0, rank)
            axes = [int(a) for a in self.rng.permutation(rank)[:k]]
            return [a - rank if self.chance(0.3) else a for a in axes]
        a = self.int(0, rank - 1)
        return a - rank if self.chance(0.3) else a

    def one_axis(self, rank: int, bad: float = 0.05) -> int:
        """A single int axis valid for `rank` (rank >= 1), or rarely an invalid one."""
        if self.chance(bad) or rank == 0:
            return self.choice((rank, -rank - 1))
        a = self.int(0, rank - 1)
        return a - rank if self.chance(0.3) else a


def draw_cases(specs: Sequence, n: int, seed: int, ops: Iterable[str] | None = None) -> list[dict]:
    """Draw `n` cases, cycling through `specs` (a list of specs.Spec) so every op is covered."""
    if ops is not None:
        wanted = set(ops)
        specs = [s for s in specs if s.op in wanted]
    cases = []
    for i in range(n):
        spec = specs[i % len(specs)]
        d = Drawer(np.random.default_rng([seed, i]))
        args, kwargs = spec.draw(d)
        case = {"id": i, "op": spec.op, "args": args, "kwargs": kwargs}
        if spec.post:
            case["post"] = spec.post
        cases.append(case)
    return cases
