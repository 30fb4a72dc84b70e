"""Running cases in one backend (`tensorflow` or `tapeflow`, the same code for both).

For each case the record holds either ``error`` ([class name, message]) or ``result`` (a list of
encoded outputs), and, when the op has float inputs and float outputs:

- ``grad``: d/dx sum_k sum(out_k * w_k) for each float input x (None where unconnected),
  or ``grad_error``;
- ``grad2``: d/dx sum_i sum(grad_i * v_i), with nested tapes, or ``grad2_error``.

The weights w, v are fixed multiples of 1/8 drawn from the case id, so both backends use the
same ones. ``run_cases`` runs batches in worker subprocesses and kills a worker that takes
longer than the time limit on one case (LAPACK loops ignore signals), recording ``hang``.
"""

from __future__ import annotations

import json
import operator
import os
import select
import subprocess
import sys
import threading
import time
from typing import Any, Iterable

import numpy as np

from .cases import decode_array, encode_array

MAX_ENCODED = 4096  # output elements kept per tensor
THREAD_ENV = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")}


def load_backend(name: str):
    """Import `tensorflow` or `tapeflow` (quietly) and return the module."""
    if name == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        try:
            tf.config.threading.set_intra_op_parallelism_threads(1)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        except RuntimeError:
            pass
        return tf
    if name == "tapeflow":
        import tapeflow
        return tapeflow
    raise ValueError(f"unknown backend {name!r}")


def resolve(tf, path: str):
    """The callable a case names: a dotted path in the backend, or a ``py.*`` pseudo-op."""
    if path.startswith("py."):
        return PY_OPS[path[3:]]
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def decode(tf, v: Any) -> Any:
    """JSON case value -> backend value (tensors, dtypes, lists)."""
    if isinstance(v, list):
        return [decode(tf, x) for x in v]
    if isinstance(v, dict):
        if "tensor" in v:
            return tf.constant(decode_array(v), dtype=getattr(tf, v["tensor"]))
        if "ndarray" in v:  # a NumPy operand, left as NumPy
            return decode_array(dict(v, tensor=v["ndarray"]))
        if "npscalar" in v:
            return np.dtype(v["npscalar"]).type(decode_array(
                {"tensor": v["npscalar"], "shape": [], "data": [v["value"]]})[()])
        if "slice" in v:
            return slice(*v["slice"])
        if "ellipsis" in v:
            return Ellipsis
        if "tuple" in v:
            return tuple(decode(tf, x) for x in v["tuple"])
        if "dtype" in v:
            return getattr(tf, v["dtype"])
        if "float" in v:
            return float(v["float"])
        return {k: decode(tf, x) for k, x in v.items()}
    return v


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "numpy")


def _is_float(x: Any) -> bool:
    return _is_tensor(x) and x.dtype.name in ("float16", "float32", "float64")


def _tensors(v: Any) -> Iterable:
    if isinstance(v, (list, tuple)):
        for x in v:
            yield from _tensors(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _tensors(x)
    elif _is_tensor(v):
        yield v


def _flatten(out: Any) -> list:
    if isinstance(out, (list, tuple)):
        return [y for x in out for y in _flatten(x)]
    return [out]


def encode_output(x: Any) -> Any:
    """A backend output -> JSON (tensors as in cases, other values by repr)."""
    if x is None:
        return None
    if type(x).__name__ == "IndexedSlices":
        x = _convert_to_tensor(x)
    if _is_tensor(x):
        a = np.asarray(x.numpy())
        rec = encode_array(a.reshape(-1)[:MAX_ENCODED])
        rec["tensor"], rec["shape"] = x.dtype.name, list(a.shape)
        return rec
    return {"py": repr(x)}


_TF = None


def _convert_to_tensor(x):
    return _TF.convert_to_tensor(x)


def _weights(shape, seed: int) -> np.ndarray:
    """Fixed weights k/8, k in [-8, 8] \\ {0}: exact in every float dtype."""
    rs = np.random.RandomState(seed % (2**32))
    k = rs.randint(1, 9, size=shape) * rs.choice([-1, 1], size=shape)
    return k / 8.0


def _weighted_sum(tf, outs: list, seed: int):
    """sum_k reduce_sum(out_k * w_k) over the float outputs (None when there are none)."""
    terms = []
    for k, o in enumerate(outs):
        if type(o).__name__ == "IndexedSlices":
            o = tf.convert_to_tensor(o)
        if not _is_float(o):
            continue
        w = tf.constant(_weights(tuple(o.shape), seed * 31 + k), dtype=o.dtype)
        terms.append(tf.reduce_sum(o * w))
    if not terms:
        return None
    if len({t.dtype.name for t in terms}) > 1:
        terms = [tf.cast(t, tf.float64) for t in terms]
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def _column_signs(tf, m):
    """+-1 per column of m (by the sign of the column sum; 1 where the sum is 0)."""
    s = tf.math.sign(tf.reduce_sum(m, axis=-2, keepdims=True))
    return s + tf.cast(tf.equal(s, 0), s.dtype)


def _post_eigh(tf, outs):
    e, v = outs
    return [e, v * tf.stop_gradient(_column_signs(tf, v))]


def _post_svd(tf, outs):
    if len(outs) != 3:
        return outs
    s, u, v = outs
    signs = tf.stop_gradient(_column_signs(tf, u))
    return [s, u * signs, v * signs]


def _post_qr(tf, outs):
    q, r = outs
    k = min(q.shape[-1], r.shape[-2])
    d = tf.math.sign(tf.linalg.diag_part(r[..., :k, :k]))
    d = tf.stop_gradient(d + tf.cast(tf.equal(d, 0), d.dtype))
    # with full_matrices, Q's columns past k are any orthonormal completion: not compared
    return [q[..., :k] * d[..., None, :], r[..., :k, :] * d[..., :, None]]


# Transforms that make outputs unique where the math leaves a choice (signs of singular and
# eigen vectors, of QR factors), applied to both backends with their own ops.
POST = {"eigh": _post_eigh, "svd": _post_svd, "qr": _post_qr}


# Python's operators and indexing, as pseudo-ops ``py.<name>`` (same code in both backends).
PY_OPS = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lt", "le", "eq", "ne",
    "gt", "ge", "and_", "or_", "xor", "invert", "neg", "pos", "abs", "getitem")}


def _rebuild(v: Any, leaves) -> Any:
    """`v` with each tensor replaced by the next of `leaves` (the order of _tensors)."""
    if isinstance(v, (list, tuple)):
        return type(v)(_rebuild(x, leaves) for x in v)
    if isinstance(v, dict):
        return {k: _rebuild(x, leaves) for k, x in v.items()}
    return next(leaves) if _is_tensor(v) else v


def traced(tf, fn):
    """fn(*args, **kwargs) run through ``tf.function``: tensors are the function's arguments,
    everything else (Python numbers, NumPy operands, shapes, dtypes) is captured as a constant."""
    def call(*args, **kwargs):
        tensors = list(_tensors((args, kwargs)))

        @tf.function
        def body(*ts):
            a, k = _rebuild((args, kwargs), iter(ts))
            return fn(*a, **k)
        return body(*tensors)
    return call


def _err(e: BaseException) -> list:
    msg = str(e)
    if msg.startswith("in user code:"):  # a traced error: the message is after the traceback
        msg = msg.rstrip().rsplit("\n\n", 1)[-1].strip()
    return [type(e).__name__, msg[:300]]


def run_case(tf, case: dict, traced_mode: bool = False) -> dict:
    """Run one case in backend module `tf` (inside tf.function with `traced_mode`); return its
    JSON record (see module doc)."""
    global _TF
    _TF = tf
    rec: dict = {"id": case["id"], "op": case["op"]}
    t0 = time.perf_counter()
    try:
        fn = resolve(tf, case["op"])
        if traced_mode:
            fn = traced(tf, fn)
        args = decode(tf, case["args"])
        # keyword by keyword: a kwargs dict with a "dtype" key is not a dtype record
        kwargs = {k: decode(tf, v) for k, v in case["kwargs"].items()}
    except Exception as e:  # noqa: BLE001 - the op itself is missing
        rec["error"] = _err(e)
        return rec
    xs = [t for t in _tensors((args, kwargs)) if _is_float(t)]
    target2 = None
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            try:
                outs = _flatten(fn(*args, **kwargs))
                if case.get("post"):
                    outs = POST[case["post"]](tf, outs)
                rec["result"] = [encode_output(o) for o in outs]
                target = _weighted_sum(tf, outs, case["id"]) if xs else None
            except Exception as e:  # noqa: BLE001 - recording the error is the point
                rec.pop("result", None)
                rec["error"] = _err(e)
                target = None
        if target is not None:
            try:
                g1 = [tf.convert_to_tensor(g) if type(g).__name__ == "IndexedSlices" else g
                      for g in inner.gradient(target, xs)]
                rec["grad"] = [encode_output(g) for g in g1]
                target2 = _weighted_sum(tf, [g for g in g1 if g is not None], case["id"] + 7)
            except Exception as e:  # noqa: BLE001
                rec["grad_error"] = _err(e)
    if target2 is not None:
        try:
            rec["grad2"] = [encode_output(g) for g in outer.gradient(target2, xs)]
        except Exception as e:  # noqa: BLE001
            rec["grad2_error"] = _err(e)
    rec["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return rec


# ---------------------------------------------------------------------------------------------
# worker subprocesses


RECYCLE_AFTER = 1000  # cases per worker process: TF slows down as tf.functions accumulate


def worker_main(backend: str, case_file: str, start: int, traced_mode: bool = False) -> None:
    """Run the cases of `case_file` (JSONL) from index `start`, one JSON line each on stdout
    (at most RECYCLE_AFTER of them, then ``{"recycle": true}``: the shard starts a fresh one)."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything the libraries print goes to stderr, not into our protocol
    import warnings
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    tf = load_backend(backend)
    out.write('{"ready": true}\n')
    out.flush()
    with open(case_file) as f:
        for i, line in enumerate(f):
            if i < start:
                continue
            if i - start == RECYCLE_AFTER:
                out.write('{"recycle": true}\n')
                out.flush()
                return
            out.write(json.dumps(run_case(tf, json.loads(line), traced_mode)) + "\n")
            out.flush()


class _Shard:
    """Runs one list of cases through successive worker processes, surviving hangs/crashes."""

    def __init__(self, python: str, backend: str, cases: list[dict], path: str,
                 limit_s: float, log, traced_mode: bool = False):
        self.python, self.backend, self.cases, self.path = python, backend, cases, path
        self.traced_mode = traced_mode
        self.limit_s, self.log = limit_s, log
        self.results: list[dict] = []
        with open(path, "w") as f:
            for c in cases:
                f.write(json.dumps(c) + "\n")

    def run(self) -> None:
        while len(self.results) < len(self.cases):
            if not self._run_worker(len(self.results)):
                raise RuntimeError(f"{self.backend} worker did not start; see {self.log.name}")
            if len(self.results) < len(self.cases) and not self._recycled:  # hung or crashed
                case = self.cases[len(self.results)]
                self.results.append({"id": case["id"], "op": case["op"], "hang": self._why})

    def _run_worker(self, start: int) -> bool:
        """Run a worker from case `start` until it ends or stalls; False if it never started."""
        env = dict(os.environ, **THREAD_ENV, TF_CPP_MIN_LOG_LEVEL="3")
        cmd = [self.python, "-m", "tools.differential.runner", self.backend, self.path, str(start),
               "traced" if self.traced_mode else "eager"]
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=self.log,
                                start_new_session=True)
        fd, buf, ready = proc.stdout.fileno(), b"", False
        self._why, self._recycled = "crash", False
        try:
            while True:
                limit = self.limit_s if ready else self.limit_s + 60  # imports take time
                r, _, _ = select.select([fd], [], [], limit)
                if not r:
                    self._why = f"no answer within {self.limit_s:.0f} s"
                    break
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    rec = json.loads(line)
                    if rec.get("ready"):
                        ready = True
                    elif rec.get("recycle"):
                        self._recycled = True
                    else:
                        self.results.append(rec)
                if len(self.results) == len(self.cases):
                    break
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
            proc.wait()
            proc.stdout.close()
        return ready


def run_cases(backend: str, cases: list[dict], workers: int = 2, limit_s: float = 30.0,
              python: str | None = None, tmpdir: str = "/tmp", progress: bool = True,
              traced_mode: bool = False) -> list[dict]:
    """Run `cases` in `workers` parallel subprocesses of `python` (each op inside tf.function
    with `traced_mode`); return records by case id."""
    python = python or sys.executable
    stamp = f"{os.getpid()}_{int(time.time())}"
    log = open(os.path.join(tmpdir, f"differential_{backend}_{stamp}.stderr.log"), "w")
    shards = [_Shard(python, backend, cases[k::workers],
                     os.path.join(tmpdir,
                                  f"differential_{backend}_{stamp}_{k}.jsonl"), limit_s, log,
                     traced_mode)
              for k in range(workers)]
    threads = [threading.Thread(target=s.run, daemon=True) for s in shards]
    for t in threads:
        t.start()
    t0 = last = time.time()
    while any(t.is_alive() for t in threads):
        time.sleep(2)
        if progress and time.time() - last > 30:
            last = time.time()
            done = sum(len(s.results) for s in shards)
            print(f"{backend}: {done}/{len(cases)} cases, {last - t0:.0f} s", file=sys.stderr)
    for s in shards:
        os.unlink(s.path)
    log.close()
    return sorted((r for s in shards for r in s.results), key=lambda r: r["id"])


if __name__ == "__main__":
    worker_main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:5] == ["traced"])
