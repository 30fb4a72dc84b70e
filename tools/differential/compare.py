"""Comparing two backends' records case by case.

``classify(ref, got)`` returns None when the records agree, else ``(kind, detail)`` with kind one
of KINDS. The reference is TensorFlow. Values agree when dtypes and shapes are equal, NaN
positions and infinities (with their signs) are equal, and finite values are within the dtype's
tolerance: ``|got - ref| <= rtol * |ref| + rtol * scale`` where scale is the median magnitude of
the reference's finite values (an absolute floor for results that cancel; at least 1 for
gradients, whose terms are O(1)). Gradients are only compared where TF's gradient is finite.
"""

from __future__ import annotations

import collections
import json
from typing import Any, Iterable

import numpy as np

from .cases import decode_array

# Kinds that are TF's limitation rather than tapeflow's: listed, not counted as defects.
INFORMATIONAL = ("grad_where_tf_raises",)
KINDS = ("hang", "accepted_what_tf_rejects", "rejected_what_tf_accepts", "wrong_error_class",
         "wrong_dtype", "wrong_shape", "wrong_value", "grad_error", "grad_where_tf_raises",
         "none_vs_value_grad", "wrong_grad", "wrong_grad2")
RTOL = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-5, "float64": 1e-10,
        "complex64": 1e-5, "complex128": 1e-10}
GRAD_RTOL_FACTOR = 4.0  # gradients go through a few more roundings than values


def _compare_arrays(ref: dict, got: dict, rtol_factor: float, finite_only: bool) -> str | None:
    """None if the two encoded tensors agree, else a short description of the first difference."""
    if ref["tensor"] != got["tensor"]:
        return f"dtype {got['tensor']} vs TF {ref['tensor']}"
    if ref["shape"] != got["shape"]:
        return f"shape {got['shape']} vs TF {ref['shape']}"
    a, b = decode_array(_flat(ref)), decode_array(_flat(got))
    if a.dtype.kind in "biu":
        bad = np.nonzero(a != b)[0]
        return None if not bad.size else _at(a, b, bad)
    if a.dtype.kind == "c":
        a, b = np.concatenate([a.real, a.imag]), np.concatenate([b.real, b.imag])
    a, b = a.astype(np.float64), b.astype(np.float64)
    fin = np.isfinite(a)
    if finite_only:
        a, b, fin = a[fin], b[fin], fin[fin]
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    bad = np.nonzero(nan_a != nan_b)[0]
    if bad.size:
        return "NaN positions: " + _at(a, b, bad)
    inf = ~fin & ~nan_a
    bad = np.nonzero((inf & (a != b)) | (fin & ~np.isfinite(b)))[0]
    if bad.size:
        return "infinities: " + _at(a, b, bad)
    if not fin.any():
        return None
    rtol = RTOL.get(ref["tensor"], 1e-5) * rtol_factor
    scale = float(np.median(np.abs(a[fin])))
    if finite_only:  # gradients: weights and inputs are O(1), so is the size of what cancels
        scale = max(scale, 1.0)
    err = np.abs(b[fin] - a[fin])
    bad = np.nonzero(err > rtol * np.abs(a[fin]) + rtol * scale)[0]
    if bad.size:
        return _at(a[fin], b[fin], bad)
    return None


def _flat(rec: dict) -> dict:
    return {"tensor": rec["tensor"], "shape": [len(rec["data"])], "data": rec["data"]}


def _at(a: np.ndarray, b: np.ndarray, bad: np.ndarray) -> str:
    i = int(bad[0])
    return f"{len(bad)} of {a.size} differ, e.g. [{i}] {b[i]!r} vs TF {a[i]!r}"


def _compare_outputs(ref: list, got: list, rtol_factor=1.0, finite_only=False):
    """(kind-suffix, detail) for the first differing output, or None."""
    if len(ref) != len(got):
        return "shape", f"{len(got)} outputs vs TF {len(ref)}"
    for k, (r, g) in enumerate(zip(ref, got)):
        if r is None or g is None:
            if (r is None) != (g is None):
                return "none", f"[{k}] {'None' if g is None else _zero_or_value(g)} vs TF " \
                               f"{'None' if r is None else _zero_or_value(r)}"
            continue
        if "py" in r or "py" in g:
            if r != g:
                return "value", f"[{k}] {g} vs TF {r}"
            continue
        why = _compare_arrays(r, g, rtol_factor, finite_only)
        if why:
            suffix = why.split(" ", 1)[0] if why.startswith(("dtype", "shape")) else "value"
            return suffix, f"[{k}] {why}"
    return None


def _zero_or_value(rec: dict) -> str:
    data = rec.get("data") or []
    return "zeros" if all(v == 0 for v in data) else "a value"


def _no_tf_gradient(err: list) -> bool:
    return err[0] == "LookupError" and "No gradient defined" in err[1]


def classify(ref: dict, got: dict) -> tuple[str, str] | None:
    """Compare a tapeflow record `got` with TF's record `ref` (see module doc).

    Cases where TF itself hung or crashed have no reference and count as agreeing.
    """
    if "hang" in ref:
        return None
    if "hang" in got:
        return "hang", got["hang"]
    if "error" in ref or "error" in got:
        if "error" not in got and _no_tf_gradient(ref["error"]):
            # traced: TF builds the backward function when the call runs under a tape
            return "grad_where_tf_raises", f"TF raised {ref['error'][0]}: {ref['error'][1][:150]}"
        if "error" not in got:
            return ("accepted_what_tf_rejects",
                    f"TF raised {ref['error'][0]}: {ref['error'][1][:150]}")
        if "error" not in ref:
            return "rejected_what_tf_accepts", f"{got['error'][0]}: {got['error'][1][:150]}"
        if ref["error"][0] != got["error"][0]:
            return "wrong_error_class", (f"{got['error'][0]} vs TF {ref['error'][0]}: "
                                         f"{ref['error'][1][:150]}")
        return None
    diff = _compare_outputs(ref["result"], got["result"])
    if diff:
        return "wrong_" + diff[0] if diff[0] != "none" else "wrong_value", diff[1]
    if ref["result"] and all(o and o.get("shape") and 0 in o["shape"] for o in ref["result"]):
        return None  # empty outputs: TF's conv/pool gradients are then uninitialised memory
    for key, kind in (("grad", "wrong_grad"), ("grad2", "wrong_grad2")):
        err = key + "_error"
        if err in ref or err in got:
            if err not in got:
                return ("grad_where_tf_raises",
                        f"{key}: TF raised {ref[err][0]}: {ref[err][1][:150]}")
            if err not in ref:
                return "grad_error", f"{key}: {got[err][0]}: {got[err][1][:150]}"
            break  # both raised: nothing further to compare
        r, g = ref.get(key), got.get(key)
        if r is None and g is None:
            continue
        if r is None or g is None:
            return "none_vs_value_grad", f"{key}: {'missing' if g is None else 'present'} vs TF " \
                                         f"{'missing' if r is None else 'present'}"
        diff = _compare_outputs(r, g, GRAD_RTOL_FACTOR, finite_only=True)
        if diff:
            return ("none_vs_value_grad" if diff[0] == "none" else kind), f"{key}{diff[1]}"
    return None


def compare_records(ref: Iterable[dict], got: Iterable[dict]) -> list[dict]:
    """All differing cases: [{id, op, kind, detail}], matching records by case id."""
    got_by_id = {r["id"]: r for r in got}
    diffs = []
    for r in ref:
        g = got_by_id.get(r["id"])
        if g is None:
            continue
        res = classify(r, g)
        if res:
            diffs.append({"id": r["id"], "op": r["op"], "kind": res[0], "detail": res[1]})
    return diffs


def summary(diffs: list[dict], total: int, top: int = 40) -> str:
    """Human-readable counts by kind and the most-differing ops (with one example each)."""
    real = [d for d in diffs if d["kind"] not in INFORMATIONAL]
    lines = [f"{total} cases compared, {len(real)} differ "
             f"(+{len(diffs) - len(real)} informational: {', '.join(INFORMATIONAL)})"]
    by_kind = collections.Counter(d["kind"] for d in diffs)
    lines.append("by kind:")
    lines += [f"  {k:28s} {by_kind[k]}" for k in KINDS if by_kind[k]]
    by_op: dict[str, list] = collections.defaultdict(list)
    for d in real:
        by_op[d["op"]].append(d)
    lines.append(f"top {top} ops:")
    for op, ds in sorted(by_op.items(), key=lambda kv: -len(kv[1]))[:top]:
        kinds = collections.Counter(d["kind"] for d in ds)
        lines.append(f"  {op:45s} {len(ds):4d}  " + ", ".join(f"{k} {n}" for k,
                                                              n in kinds.most_common()))
        lines.append(f"      e.g. #{ds[0]['id']} {ds[0]['kind']}: {ds[0]['detail'][:160]}")
    return "\n".join(lines)


def load_records(path: str) -> tuple[dict, list[dict]]:
    """Read a results file written by `run`: (meta, records) (a record holds its case)."""
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        meta = json.loads(f.readline())
        return meta, [json.loads(line) for line in f]


def summary_counts(diffs: list[dict], total: int, meta: dict) -> dict:
    """Counts by kind and by (op, kind), as JSON for notes: what `summary` prints."""
    real = [d for d in diffs if d["kind"] not in INFORMATIONAL]
    by_op: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for d in real:
        by_op[d["op"]][d["kind"]] += 1
    by_kind = collections.Counter(d["kind"] for d in diffs)
    return {"seed": meta.get("seed"), "traced": bool(meta.get("traced")), "cases": total,
            "differ": len(real), "informational": len(diffs) - len(real),
            "by_kind": {k: by_kind[k] for k in KINDS if by_kind[k]},
            "by_op": {op: dict(c) for op, c in sorted(by_op.items(),
                                                      key=lambda kv: -sum(kv[1].values()))}}


def _check_same_cases(ref_meta: dict, got_meta: dict, ref: list, got: list) -> None:
    """Warn when the two files were not drawn alike (their case ids then mean other calls)."""
    for key in ("seed", "cases", "ops", "traced"):
        if ref_meta.get(key) != got_meta.get(key):
            print(f"WARNING: {key} differs: {ref_meta.get(key)!r} vs {got_meta.get(key)!r}")
    got_case = {r["id"]: r.get("case") for r in got}
    bad = [r["id"] for r in ref if r["id"] in got_case and r.get("case") != got_case[r["id"]]]
    if bad:
        print(f"WARNING: {len(bad)} case ids hold different calls in the two files (drawn with "
              f"different specs?), e.g. #{bad[0]}: those comparisons are meaningless")


def report(ref_path: str, got_path: str, out: str | None, top: int = 40,
           summary_json: str | None = None) -> list[dict]:
    """Compare two results files, print the summary, and write the JSON report to `out` (and
    the counts by kind and op to `summary_json`)."""
    ref_meta, ref = load_records(ref_path)
    got_meta, got = load_records(got_path)
    _check_same_cases(ref_meta, got_meta, ref, got)
    cases = {r["id"]: r.get("case") for r in ref}
    diffs = compare_records(ref, got)
    print(summary(diffs, len(ref), top))
    if summary_json:
        with open(summary_json, "w") as f:
            json.dump(summary_counts(diffs, len(ref), ref_meta), f, indent=1)
    if out:
        for d in diffs:
            d["case"] = cases[d["id"]]
        with open(out, "w") as f:
            json.dump({"ref": ref_path, "got": got_path, "total": len(ref), "diffs": diffs}, f,
                      indent=0)
    return diffs


class _Code(str):
    """Source text that reprs as itself, so lists of rendered tensors print as code."""

    def __repr__(self) -> str:
        return str(self)


def describe(value: Any) -> Any:
    """A compact rendering of a case argument, for reproducers."""
    if isinstance(value, list):
        return [describe(v) for v in value]
    if isinstance(value, dict) and "ndarray" in value:
        a = decode_array(dict(value, tensor=value["ndarray"]))
        return _Code(f"np.array({a.tolist()!r}, np.{value['ndarray']})" if a.size <= 12 else
                     f"<np.{value['ndarray']} {value['shape']}>")
    if isinstance(value, dict) and "npscalar" in value:
        return _Code(f"np.{value['npscalar']}({value['value']!r})")
    if isinstance(value, dict) and "slice" in value:
        return _Code(":".join("" if v is None else str(v) for v in value["slice"]))
    if isinstance(value, dict) and "ellipsis" in value:
        return _Code("...")
    if isinstance(value, dict) and "tuple" in value:
        return tuple(describe(v) for v in value["tuple"])
    if value is None:
        return None
    if isinstance(value, dict) and "tensor" in value:
        a = decode_array(value)
        return _Code(f"tf.constant({a.tolist()!r}, tf.{value['tensor']})" if a.size <= 12 else
                     f"<{value['tensor']} {value['shape']}>")
    if isinstance(value, dict) and "dtype" in value:
        return _Code(f"tf.{value['dtype']}")
    return value


_PY_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
               "pow": "**", "matmul": "@", "lt": "<", "le": "<=", "eq": "==", "ne": "!=",
               "gt": ">", "ge": ">=", "and_": "&", "or_": "|", "xor": "^"}
_PY_UNARY = {"invert": "~", "neg": "-", "pos": "+"}


def _key_text(k: Any) -> str:
    if isinstance(k, tuple):
        return ", ".join(_key_text(x) for x in k) + ("," if len(k) == 1 else "") if k else "()"
    return "tf.newaxis" if k is None else repr(k)


def reproducer(case: dict) -> str:
    """One line of Python that makes the call of `case` (``tf`` and ``np`` imported)."""
    op, args = case["op"], [describe(a) for a in case["args"]]
    kwargs = {k: describe(v) for k, v in case["kwargs"].items()}
    if op.startswith("py."):
        name = op[3:]
        if name in _PY_SYMBOLS:
            return f"({args[0]!r}) {_PY_SYMBOLS[name]} ({args[1]!r})"
        if name in _PY_UNARY:
            return f"{_PY_UNARY[name]}({args[0]!r})"
        if name == "abs":
            return f"abs({args[0]!r})"
        if name == "getitem":
            return f"({args[0]!r})[{_key_text(args[1])}]"
    text = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
    return f"tf.{op}({text})"
