"""Collectives between the processes of a training job, over MPI (mpi4py + Open MPI).

`world()` is the process group of this program: `MPI.COMM_WORLD` when it was launched by
`mpiexec` with more than one process, else a one-process group that needs no mpi4py. Both
have the same methods, on NumPy arrays:

- `allreduce(arrays, op, names)`: the arrays are fused into a few flat buffers per dtype
  (Horovod's tensor fusion: one MPI call per `TAPEFLOW_FUSION_THRESHOLD` bytes, default
  64 MiB, instead of one per array), reduced, and split back into the arrays' shapes.
- `allgather`, `broadcast`, `broadcast_object`, `allgather_object`, `barrier`.

Guarantees:

- Every collective first agrees on what it is doing: one small allreduce of a 62-bit digest of
  (the collective, its op or root, the arrays' dtypes and shapes). Ranks that disagree all
  raise `InvalidArgumentError` naming the first tensor that differs and its shape/dtype on
  each rank; nothing is reduced.
- Dtypes are preserved (float64 stays float64); float16 is summed in float32 and rounded once.
- Every rank gets the same bits: each element is reduced once by Open MPI's algorithms and
  the result distributed, and `mean` divides that one sum locally.
- No collective waits forever: requests are non-blocking and polled; after
  `TAPEFLOW_COLLECTIVE_TIMEOUT` seconds (default 300) it raises `DeadlineExceededError`. In a
  job of more than one process an uncaught exception aborts the whole job (`MPI_Abort`, as
  `python -m mpi4py` does), so one failed rank cannot leave the others waiting. A rank killed
  outright makes `mpiexec` end the job.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import sys
import threading
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.framework import errors

__all__ = ["Communicator", "world", "REDUCE_OPS"]

REDUCE_OPS = ("sum", "mean", "max", "min")

# Environment variables that MPI launchers set in every process they start (Open MPI, MPICH /
# Intel MPI's Hydra, PMIx-based launchers such as srun --mpi=pmix).
_LAUNCHER_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")
_LAUNCHER_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")

_DEFAULT_TIMEOUT_S = 300.0
_DEFAULT_FUSION_BYTES = 64 * 1024 * 1024


def _timeout_s() -> float:
    return float(os.environ.get("TAPEFLOW_COLLECTIVE_TIMEOUT", _DEFAULT_TIMEOUT_S))


def _fusion_bytes() -> int:
    return int(os.environ.get("TAPEFLOW_FUSION_THRESHOLD", _DEFAULT_FUSION_BYTES))


# ----------------------------------------------------------------------------------------------
# Checks shared by both communicators (so a one-process run raises what a job would)


def _as_arrays(arrays: Sequence[Any], names: Optional[Sequence[str]], what: str) -> tuple:
    if isinstance(arrays, np.ndarray) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{what} takes a list of arrays, got {type(arrays).__name__}")
    arrays = [np.asarray(a) for a in arrays]
    if names is None:
        names = [f"{what}.{i}" for i in range(len(arrays))]
    elif len(names) != len(arrays):
        raise ValueError(f"{what}: {len(names)} names for {len(arrays)} arrays")
    for a, name in zip(arrays, names):
        if a.dtype.kind not in "biufc":
            raise TypeError(f"{what} of tensor {name!r}: dtype {a.dtype} cannot be sent "
                            "(only numeric and bool tensors)")
    return arrays, list(names)


def _check_reduce(arrays: list, names: list, op: str) -> None:
    if op not in REDUCE_OPS:
        raise ValueError(f"allreduce op must be one of {REDUCE_OPS}, got {op!r}")
    for a, name in zip(arrays, names):
        if a.dtype.kind == "b":
            raise TypeError(f"allreduce of tensor {name!r}: bool tensors cannot be reduced")
        if a.dtype.kind == "c" and op in ("max", "min"):
            raise TypeError(f"allreduce of tensor {name!r}: op {op!r} is not defined for "
                            f"complex dtype {a.dtype}")


def _mean(total: np.ndarray, size: int) -> np.ndarray:
    """A sum over `size` ranks divided by `size`, in the sum's dtype (integers: floor)."""
    if total.dtype.kind in "iu":
        return total // size
    return (total / size).astype(total.dtype, copy=False)


def _signature(kind: str, arg: Any, arrays: list) -> list:
    return [kind, arg] + [(a.dtype.str, a.shape) for a in arrays]


def _digest(signature: list) -> int:
    """A 62-bit digest, so that [d, -d] fits in int64."""
    raw = hashlib.blake2b(repr(signature).encode(), digest_size=8).digest()
    return int.from_bytes(raw, "little") >> 2


def _describe(sig: list) -> str:
    return f"{sig[0]}(op/root={sig[1]!r})"


def _mismatch_error(signatures: list, names: list) -> errors.InvalidArgumentError:
    """The error for ranks whose signatures differ, naming the first tensor that differs."""
    heads = {tuple(s[:2]) for s in signatures}
    counts = {len(s) for s in signatures}
    if len(heads) > 1 or len(counts) > 1:
        calls = "; ".join(f"rank {r}: {_describe(s)} of {len(s) - 2} tensors"
                          for r, s in enumerate(signatures))
        return errors.InvalidArgumentError(
            None, None, f"Ranks called different collectives (or with different ops, roots "
            f"or numbers of tensors): {calls}")
    for i in range(2, len(signatures[0])):
        seen = [s[i] for s in signatures]
        if len(set(seen)) > 1:
            per_rank = "; ".join(f"rank {r}: shape {list(shape)} dtype {np.dtype(dt).name}"
                                 for r, (dt, shape) in enumerate(seen))
            return errors.InvalidArgumentError(
                None, None, f"{signatures[0][0]}: tensor {names[i - 2]!r} has different "
                f"shapes or dtypes on different ranks: {per_rank}")
    return errors.InvalidArgumentError(None, None, "collective signatures differ")


def _fuse_plan(arrays: list, limit: int) -> list:
    """Groups of array indices, one flat buffer each: same dtype, at most `limit` bytes
    (an array bigger than that has a buffer of its own). Order is the arrays' order, so the
    plan is the same on every rank."""
    groups: list = []
    open_group: dict = {}  # dtype -> (group, bytes so far)
    for i, a in enumerate(arrays):
        key = a.dtype
        group, used = open_group.get(key, (None, 0))
        if group is None or used + a.nbytes > limit:
            group, used = [], 0
            groups.append(group)
        group.append(i)
        open_group[key] = (group, used + a.nbytes)
    return groups


# ----------------------------------------------------------------------------------------------


class Communicator:
    """A group of processes running the same program; this process is `rank` of `size`.

    `local_rank`/`local_size`: among the processes on this machine; `cross_rank`/`cross_size`:
    among the processes with this `local_rank` (one per machine), as Horovod numbers them.
    This base class is the one-process group.
    """

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    local_size: int = 1
    cross_rank: int = 0
    cross_size: int = 1

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} rank={self.rank} size={self.size} "
                f"local_rank={self.local_rank} local_size={self.local_size}>")

    def _check_root(self, root: int) -> None:
        if not isinstance(root, (int, np.integer)) or not 0 <= root < self.size:
            raise errors.InvalidArgumentError(
                None, None, f"broadcast root rank must be in [0, {self.size}), got {root!r}")

    def allreduce(self, arrays: Sequence[Any], op: str = "sum",
                  names: Optional[Sequence[str]] = None) -> list:
        """Reduces each array elementwise across ranks (op: sum, mean, max, min).

        Returns new arrays of the same shapes and dtypes, in order; the same on every rank.
        """
        arrays, names = _as_arrays(arrays, names, "allreduce")
        _check_reduce(arrays, names, op)
        return [np.array(a, copy=True) for a in arrays]

    def allgather(self, array: Any, name: Optional[str] = None) -> np.ndarray:
        """Concatenates every rank's array on axis 0, in rank order (first dims may differ)."""
        (array,), _ = _as_arrays([array], None if name is None else [name], "allgather")
        if array.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, f"allgather of tensor {name or 'allgather.0'!r}: a scalar has no "
                "first axis to concatenate on (pass a tensor of rank >= 1)")
        return np.array(array, copy=True)

    def broadcast(self, arrays: Sequence[Any], root: int = 0,
                  names: Optional[Sequence[str]] = None) -> list:
        """Every rank's arrays replaced by rank `root`'s (same shapes and dtypes required)."""
        arrays, names = _as_arrays(arrays, names, "broadcast")
        self._check_root(root)
        return [np.array(a, copy=True) for a in arrays]

    def broadcast_object(self, obj: Any, root: int = 0) -> Any:
        """Rank `root`'s picklable object, on every rank."""
        self._check_root(root)
        return pickle.loads(pickle.dumps(obj))

    def allgather_object(self, obj: Any) -> list:
        """Every rank's picklable object, as a list in rank order."""
        return [pickle.loads(pickle.dumps(obj))]

    def barrier(self) -> None:
        """Returns once every rank has called it."""


class MPICommunicator(Communicator):
    """The processes of an MPI job (a private duplicate of `MPI.COMM_WORLD`, so the user's own
    MPI calls cannot interleave with tapeflow's)."""

    def __init__(self, mpi: Any) -> None:
        self._MPI = mpi
        self._comm = mpi.COMM_WORLD.Dup()
        self.rank, self.size = self._comm.Get_rank(), self._comm.Get_size()
        local = self._comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        cross = self._comm.Split(color=self.local_rank, key=self.rank)
        self.cross_rank, self.cross_size = cross.Get_rank(), cross.Get_size()
        local.Free()
        cross.Free()
        self._lock = threading.RLock()
        self._broken: Optional[str] = None
        atexit.register(self._abort_if_broken)

    # -- waiting, with a deadline ----------------------------------------------------------

    def _wait(self, requests: list, what: str) -> None:
        """Polls the requests until all complete; raises after the timeout.

        Polls without pausing for the first millisecond (a small allreduce takes microseconds
        and Test() drives MPI's progress), then sleeps between polls, up to 0.1 ms, so a long
        wait does not hold a core that the peer ranks may need. (Open MPI's non-blocking
        allreduce advances only while it is tested: pauses of 1 ms made a 1 MiB allreduce
        30x slower than a blocking one.)
        """
        start = time.monotonic()
        deadline = start + _timeout_s()
        pause = 0.0
        try:
            while not self._MPI.Request.Testall(requests):
                now = time.monotonic()
                if now > deadline:
                    self._broken = (f"{what} on rank {self.rank} of {self.size} did not "
                                    f"complete within {_timeout_s():g} s "
                                    "(TAPEFLOW_COLLECTIVE_TIMEOUT): a peer process has died, "
                                    "hangs, or runs a different sequence of collectives")
                    raise errors.DeadlineExceededError(None, None, self._broken)
                if now - start > 1e-3:
                    pause = min(max(pause * 2, 2e-5), 1e-4)
                    time.sleep(pause)
        except self._MPI.Exception as e:
            self._broken = (f"{what} on rank {self.rank} of {self.size} failed in MPI "
                            f"({e}): a peer process has probably died")
            raise errors.UnavailableError(None, None, self._broken) from None

    def _abort_if_broken(self) -> None:
        # A collective that timed out is still pending: MPI_Finalize would wait for it.
        if self._broken is not None:
            self._comm.Abort(1)

    def _run(self, what: str, start: Callable[[], list]) -> None:
        if self._broken is not None:
            raise errors.UnavailableError(
                None, None, f"{what}: the process group is unusable after an earlier "
                f"failure: {self._broken}")
        self._wait(start(), what)

    # -- agreement on what is being done ----------------------------------------------------

    def _agrees(self, signature: list) -> bool:
        """Whether every rank passed the same signature (one 16-byte allreduce)."""
        d = _digest(signature)
        mine = np.array([d, -d], dtype=np.int64)
        both = np.empty_like(mine)
        self._run(signature[0], lambda: [self._comm.Iallreduce(mine, both, self._MPI.MAX)])
        return both[0] == -both[1]  # max digest == min digest

    def _agree(self, signature: list, names: list) -> None:
        """Raises on every rank unless every rank passed the same signature."""
        if not self._agrees(signature):
            raise _mismatch_error(self._gather_pickled(signature, signature[0]), names)

    # -- bytes and objects ------------------------------------------------------------------

    def _gather_pickled(self, obj: Any, what: str) -> list:
        data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
        mine = np.array([data.size], np.int64)  # referenced until the request completes
        counts = np.empty(self.size, dtype=np.int64)
        self._run(what, lambda: [self._comm.Iallgather(mine, counts)])
        out = np.empty(int(counts.sum()), dtype=np.uint8)
        displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self._run(what, lambda: [self._comm.Iallgatherv(
            data, [out, (counts, displs), self._MPI.BYTE])])
        return [pickle.loads(out[s:s + n].tobytes()) for s, n in zip(displs, counts)]

    def allgather_object(self, obj: Any) -> list:
        with self._lock:
            self._agree(["allgather_object", None], [])
            return self._gather_pickled(obj, "allgather_object")

    def broadcast_object(self, obj: Any, root: int = 0) -> Any:
        self._check_root(root)
        with self._lock:
            self._agree(["broadcast_object", int(root)], [])
            data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8) if self.rank == root \
                else None
            n = np.array([0 if data is None else data.size], dtype=np.int64)
            self._run("broadcast_object", lambda: [self._comm.Ibcast(n, root=root)])
            buf = data.copy() if data is not None else np.empty(int(n[0]), dtype=np.uint8)
            self._run("broadcast_object", lambda: [self._comm.Ibcast(buf, root=root)])
            return pickle.loads(buf.tobytes())

    def barrier(self) -> None:
        with self._lock:
            self._run("barrier", lambda: [self._comm.Ibarrier()])

    # -- arrays -----------------------------------------------------------------------------

    def allreduce(self, arrays: Sequence[Any], op: str = "sum",
                  names: Optional[Sequence[str]] = None) -> list:
        arrays, names = _as_arrays(arrays, names, "allreduce")
        _check_reduce(arrays, names, op)
        with self._lock:
            self._agree(_signature("allreduce", op, arrays), names)
            mpi_op = {"sum": self._MPI.SUM, "mean": self._MPI.SUM, "max": self._MPI.MAX,
                      "min": self._MPI.MIN}[op]
            out: list = [None] * len(arrays)
            buffers = []
            for group in _fuse_plan(arrays, _fusion_bytes()):
                # float16 has no MPI type: reduce in float32, round once at the end.
                wire = np.float32 if arrays[group[0]].dtype == np.float16 else None
                parts = [arrays[i].ravel() for i in group]
                flat = parts[0] if len(parts) == 1 else np.concatenate(parts)
                flat = np.ascontiguousarray(flat, wire)
                buffers.append((group, flat, np.empty_like(flat)))
            self._run("allreduce", lambda: [self._comm.Iallreduce(send, recv, mpi_op)
                                            for _, send, recv in buffers])
            for group, _, recv in buffers:
                if op == "mean":
                    recv = _mean(recv, self.size)
                offset = 0
                for i in group:
                    a = arrays[i]
                    part = recv[offset:offset + a.size].reshape(a.shape)
                    out[i] = part.astype(a.dtype, copy=False)
                    offset += a.size
            return out

    def allgather(self, array: Any, name: Optional[str] = None) -> np.ndarray:
        name = name or "allgather.0"
        (array,), _ = _as_arrays([array], [name], "allgather")
        with self._lock:
            # Agreeing on ndim too means every rank takes the same branch below.
            ok = self._agrees(["allgather", None, (array.dtype.str, array.ndim,
                                                   array.shape[1:])])
            if array.ndim == 0 or not ok:
                metas = self._gather_pickled((array.dtype.str, array.shape), "allgather")
                per_rank = "; ".join(f"rank {r}: shape {list(shape)} dtype {np.dtype(s).name}"
                                     for r, (s, shape) in enumerate(metas))
                raise errors.InvalidArgumentError(
                    None, None, f"allgather: tensor {name!r} must have the same dtype, a rank "
                    f">= 1 and the same dimensions after the first on every rank: {per_rank}")
            mine = np.array([array.shape[0]], dtype=np.int64)
            rows = np.empty(self.size, dtype=np.int64)
            self._run("allgather", lambda: [self._comm.Iallgather(mine, rows)])
            row_bytes = array.itemsize * int(np.prod(array.shape[1:], dtype=np.int64))
            counts = rows * row_bytes
            displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
            out = np.empty((int(rows.sum()),) + array.shape[1:], dtype=array.dtype)
            send = np.ascontiguousarray(array).view(np.uint8).ravel()
            recv = out.view(np.uint8).reshape(-1)
            self._run("allgather", lambda: [self._comm.Iallgatherv(
                [send, self._MPI.BYTE], [recv, (counts, displs), self._MPI.BYTE])])
            return out

    def broadcast(self, arrays: Sequence[Any], root: int = 0,
                  names: Optional[Sequence[str]] = None) -> list:
        arrays, names = _as_arrays(arrays, names, "broadcast")
        self._check_root(root)
        with self._lock:
            self._agree(_signature("broadcast", int(root), arrays), names)
            out: list = [None] * len(arrays)
            buffers = []
            for group in _fuse_plan(arrays, _fusion_bytes()):
                flat = np.concatenate([np.ascontiguousarray(arrays[i]).view(np.uint8).ravel()
                                       for i in group])
                buffers.append((group, flat))
            self._run("broadcast", lambda: [self._comm.Ibcast([flat, self._MPI.BYTE],
                                                              root=root)
                                            for _, flat in buffers])
            for group, flat in buffers:
                offset = 0
                for i in group:
                    a = arrays[i]
                    out[i] = flat[offset:offset + a.nbytes].view(a.dtype).reshape(a.shape)
                    offset += a.nbytes
            return out


# ----------------------------------------------------------------------------------------------

_world: Optional[Communicator] = None
_world_lock = threading.Lock()


def _launched_size() -> int:
    """The number of processes an MPI launcher says it started (1 when not launched)."""
    for var in _LAUNCHER_SIZE_VARS:
        value = os.environ.get(var)
        if value and value.isdigit():
            return int(value)
    return 1


def _abort_on_uncaught(comm: MPICommunicator) -> None:
    """An uncaught exception on one rank ends the whole job instead of leaving the others
    waiting in a collective (as `python -m mpi4py` does)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.write(f"tapeflow: uncaught exception on rank {comm.rank} of {comm.size}; "
                         "aborting the MPI job\n")
        sys.stderr.flush()
        comm._comm.Abort(1)

    sys.excepthook = hook


def _make_world() -> Communicator:
    size = _launched_size()
    if size <= 1 and "mpi4py.MPI" not in sys.modules:
        return Communicator()  # not launched by mpiexec: no need to start MPI
    try:
        from mpi4py import MPI
    except ImportError as e:
        if size <= 1:
            return Communicator()
        raise ImportError(
            f"this program was launched as {size} MPI processes, but mpi4py is not "
            "installed: pip install 'tapeflow[mpi]'") from e
    if MPI.COMM_WORLD.Get_size() <= 1:
        return Communicator()
    comm = MPICommunicator(MPI)
    _abort_on_uncaught(comm)
    return comm


def world() -> Communicator:
    """The process group of this program: MPI.COMM_WORLD when launched by `mpiexec` with more
    than one process (or when mpi4py.MPI is already imported and reports a size > 1), else a
    one-process group that needs no mpi4py.

    Launched as several processes but mpi4py missing: ImportError naming the extra
    `pip install 'tapeflow[mpi]'`. Cached; thread-safe.
    """
    global _world
    if _world is None:
        with _world_lock:
            if _world is None:
                _world = _make_world()
    return _world
