"""A Horovod-style API over MPI, modelled on `horovod.tensorflow`: a Horovod script runs with
only its import changed (`import tapeflow.horovod as hvd`; Keras scripts use
`tapeflow.horovod.keras`). Launch it with `mpiexec -n N python script.py`.

The collectives run through `tapeflow.distribute.collective.world()`: one process when not
launched by mpiexec, so the same script also runs alone. They work eagerly and inside
`tf.function` (through `tf.numpy_function`); `allreduce` is differentiable, as Horovod's is.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.autodiff.custom_gradient import custom_gradient
from tapeflow.autodiff.tape import GradientTape
from tapeflow.distribute import collective
from tapeflow.framework import nest
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.ops.index_ops import ensure_shape
from tapeflow.ops.script_ops import numpy_function

__all__ = [
    "init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size",
    "cross_rank", "cross_size", "is_homogeneous", "mpi_built", "mpi_enabled", "nccl_built",
    "gloo_built", "gloo_enabled", "mpi_threads_supported", "Average", "Sum", "Adasum", "Min",
    "Max", "Product", "Compression", "allreduce", "grouped_allreduce", "allgather",
    "broadcast", "broadcast_variables", "broadcast_object", "allgather_object", "join",
    "DistributedGradientTape", "DistributedOptimizer",
]

# Horovod's reduction ops (the values of its ReduceOp enum).
Average, Sum, Adasum, Min, Max, Product = 0, 1, 2, 3, 4, 5
_OP_NAMES = {Average: "mean", Sum: "sum", Min: "min", Max: "max"}

_comm: Optional[collective.Communicator] = None


# -- the process group ---------------------------------------------------------------------------

def init(comm: Any = None, process_sets: Any = None) -> None:
    """Starts Horovod: this process joins the job that mpiexec launched (alone: a job of one).

    Only the whole job is supported as the group (`comm` None or MPI.COMM_WORLD).
    """
    global _comm
    if process_sets not in (None, [], ()):
        raise NotImplementedError("tapeflow.horovod supports only the global process set")
    if comm is not None and not _is_comm_world(comm):
        raise NotImplementedError("tapeflow.horovod runs on MPI.COMM_WORLD only; pass "
                                  "comm=None")
    _comm = collective.world()


def _is_comm_world(comm: Any) -> bool:
    try:
        from mpi4py import MPI
    except ImportError:
        return False
    return comm == MPI.COMM_WORLD or (isinstance(comm, (list, tuple)) and
                                      list(comm) == list(range(MPI.COMM_WORLD.Get_size())))


def shutdown() -> None:
    """Ends Horovod in this process (MPI itself is finalized when the program exits)."""
    global _comm
    _comm = None


def is_initialized() -> bool:
    """Whether `init()` was called (and `shutdown()` not since)."""
    return _comm is not None


def _world() -> collective.Communicator:
    if _comm is None:
        raise ValueError("Horovod has not been initialized; use hvd.init().")
    return _comm


def rank() -> int:
    """This process's index in the job, 0 to size() - 1."""
    return _world().rank


def size() -> int:
    """The number of processes in the job."""
    return _world().size


def local_rank() -> int:
    """This process's index among the job's processes on this machine."""
    return _world().local_rank


def local_size() -> int:
    """The number of the job's processes on this machine."""
    return _world().local_size


def cross_rank() -> int:
    """This machine's index among the machines (the rank among processes with this
    local_rank)."""
    return _world().cross_rank


def cross_size() -> int:
    """The number of machines (of processes with this local_rank)."""
    return _world().cross_size


def is_homogeneous() -> bool:
    """Whether every machine runs the same number of processes."""
    sizes = _world().allgather_object(local_size())
    return len(set(sizes)) == 1


def mpi_built() -> bool:
    """Whether MPI (mpi4py) is available."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi_enabled() -> bool:
    """Whether the collectives run over MPI (always, when it is installed)."""
    return mpi_built()


def mpi_threads_supported() -> bool:
    """Collectives may be called from several threads (they are serialized)."""
    return True


def nccl_built() -> bool:
    """Whether NCCL is built in: never (tapeflow's collectives run over MPI only)."""
    return False


def gloo_built() -> bool:
    """Whether Gloo is built in: never (tapeflow's collectives run over MPI only)."""
    return False


def gloo_enabled() -> bool:
    """Whether the collectives run over Gloo: never (they run over MPI)."""
    return False


def join(device: str = "") -> int:
    """Waits until every rank has called `join`; returns the rank that called it last (by
    wall-clock arrival: the clocks of different machines may disagree slightly).

    Horovod's join also lets ranks that ran out of data early keep serving the others'
    allreduces; here every rank must call the same collectives, so data must be even."""
    arrivals = _world().allgather_object(time.time())
    return int(np.argmax(arrivals))


# -- compression -------------------------------------------------------------------------------

class _NoneCompressor:
    """No compression."""

    @staticmethod
    def compress(array: np.ndarray) -> tuple:
        return array, None

    @staticmethod
    def decompress(array: np.ndarray, ctx: Any) -> np.ndarray:
        return array


class _FP16Compressor:
    """Floats travel as float16 (half the bytes), then are cast back."""

    @staticmethod
    def compress(array: np.ndarray) -> tuple:
        if array.dtype.kind == "f" and array.dtype != np.float16:
            return array.astype(np.float16), array.dtype
        return array, None

    @staticmethod
    def decompress(array: np.ndarray, ctx: Any) -> np.ndarray:
        return array if ctx is None else array.astype(ctx)


class Compression:
    """How gradients are compressed for the allreduce (Horovod's `hvd.Compression`)."""

    none = _NoneCompressor
    fp16 = _FP16Compressor


# -- reductions on arrays ----------------------------------------------------------------------

def _resolve_op(op: Optional[int], average: Optional[bool]) -> int:
    if op is not None and average is not None:
        raise ValueError("The op parameter supersedes average. Please provide only one of "
                         "them.")
    if average is not None:
        warnings.warn("Parameter `average` has been replaced with `op` and will be removed "
                      "in v1.0", DeprecationWarning, stacklevel=3)
        return Average if average else Sum
    return Average if op is None else op


def _check_op(op: int) -> str:
    if op == Adasum:
        raise NotImplementedError("The Adasum reduction is not built in tapeflow.horovod; use "
                                  "hvd.Average or hvd.Sum")
    if op not in _OP_NAMES:
        raise NotImplementedError(f"tapeflow.horovod does not support the reduction op {op!r} "
                                  "(supported: Average, Sum, Min, Max)")
    return _OP_NAMES[op]


def _reduce_arrays(arrays: list, op: int, names: list, prescale: float = 1.0,
                   postscale: float = 1.0, compression: Any = Compression.none) -> list:
    """One fused allreduce of NumPy arrays, with Horovod's scaling and compression."""
    mode = _check_op(op)
    if prescale != 1.0:
        arrays = [(a * prescale).astype(a.dtype) for a in arrays]
    packed = [compression.compress(a) for a in arrays]
    reduced = _world().allreduce([a for a, _ in packed], op=mode, names=names)
    out = [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, packed)]
    if postscale != 1.0:
        out = [(a * postscale).astype(a.dtype) for a in out]
    return out


def _run(func: Any, tensors: list, dtypes: list) -> list:
    """`func` (NumPy arrays in and out) on tensors, eagerly or in a tf.function's graph."""
    outs = numpy_function(lambda *arrays: func(list(arrays)), tensors, dtypes)
    return outs if isinstance(outs, list) else [outs]


def _same_shapes(outs: list, tensors: list) -> list:
    """In a graph, numpy_function's results have unknown shapes: give them the inputs'."""
    return [out if out.shape.is_fully_defined() else ensure_shape(out, t.shape)
            for out, t in zip(outs, tensors)]


def _dense_allreduce(tensor: Any, op: int, name: str, prescale: float, postscale: float,
                     compression: Any) -> Any:
    @custom_gradient
    def reduce(x):
        def func(arrays):
            return _reduce_arrays(arrays, op, [name], prescale, postscale, compression)
        y = _same_shapes(_run(func, [x], [x.dtype]), [x])[0]

        def grad(dy):  # Horovod's gradient: the same allreduce of the incoming gradient
            return _dense_allreduce(dy, op, name + "_grad", prescale, postscale, compression)
        return y, grad

    return reduce(convert_to_tensor(tensor))


def allreduce(tensor: Any, average: Optional[bool] = None, device_dense: str = "",
              device_sparse: str = "", compression: Any = Compression.none,
              op: Optional[int] = None, prescale_factor: float = 1.0,
              postscale_factor: float = 1.0, name: Optional[str] = None,
              process_set: Any = None, ignore_name_scope: bool = False) -> Any:
    """The tensor reduced across all ranks (default: averaged), same shape and dtype.

    An IndexedSlices is allgathered instead (its values and indices; averaged values are
    divided by size()), as Horovod does. The shape must be the same on every rank; a
    mismatch raises InvalidArgumentError naming the tensor on every rank.
    """
    op = _resolve_op(op, average)
    name = name or "HorovodAllreduce"
    if isinstance(tensor, IndexedSlices):
        if op == Adasum:
            raise NotImplementedError("The Adasum reduction does not currently support sparse "
                                      "tensors. As a workaround please pass "
                                      "sparse_as_dense=True to DistributedOptimizer")
        return _sparse_allreduce(tensor, op, name)
    return _dense_allreduce(tensor, op, name, prescale_factor, postscale_factor, compression)


def _sparse_allreduce(tensor: IndexedSlices, op: int, name: str) -> IndexedSlices:
    _check_op(op)
    if op not in (Average, Sum):
        raise NotImplementedError("an IndexedSlices can only be summed or averaged")
    values = allgather(tensor.values, name=name + "_values")
    indices = allgather(tensor.indices, name=name + "_indices")
    if op == Average:
        values = values / convert_to_tensor(np.asarray(size(), values.dtype.as_numpy_dtype))
    return IndexedSlices(values, indices, dense_shape=tensor.dense_shape)


def grouped_allreduce(tensors: Sequence[Any], average: Optional[bool] = None,
                      device_dense: str = "", device_sparse: str = "",
                      compression: Any = Compression.none, op: Optional[int] = None,
                      prescale_factor: float = 1.0, postscale_factor: float = 1.0,
                      process_set: Any = None, name: Optional[str] = None) -> list:
    """`allreduce` of a list of tensors, the dense ones fused into one collective call."""
    op = _resolve_op(op, average)
    return _allreduce_list(list(tensors), op, [f"{name or 'grouped_allreduce'}.{i}"
                                               for i in range(len(tensors))],
                           prescale_factor, postscale_factor, compression)


def _allreduce_list(tensors: list, op: int, names: list, prescale: float = 1.0,
                    postscale: float = 1.0, compression: Any = Compression.none) -> list:
    """Reduces a list: None stays None, IndexedSlices are allgathered, and all the dense
    tensors go in one fused allreduce (not differentiable: for gradients)."""
    out = list(tensors)
    dense = [i for i, t in enumerate(tensors) if t is not None
             and not isinstance(t, IndexedSlices)]
    for i, t in enumerate(tensors):
        if isinstance(t, IndexedSlices):
            out[i] = _sparse_allreduce(t, op, names[i])
    if dense:
        inputs = [convert_to_tensor(tensors[i]) for i in dense]

        def func(arrays):
            return _reduce_arrays(arrays, op, [names[i] for i in dense], prescale, postscale,
                                  compression)
        reduced = _same_shapes(_run(func, inputs, [t.dtype for t in inputs]), inputs)
        for i, r in zip(dense, reduced):
            out[i] = r
    return out


def allgather(tensor: Any, name: Optional[str] = None, ignore_name_scope: bool = False,
              process_set: Any = None) -> Any:
    """Every rank's tensor concatenated on axis 0, in rank order (the first dimension may
    differ between ranks, the others must agree)."""
    x = convert_to_tensor(tensor)
    label = name or "HorovodAllgather"
    out = _run(lambda arrays: [_world().allgather(arrays[0], name=label)], [x], [x.dtype])[0]
    if x.shape.rank and not out.shape.is_fully_defined():
        out = ensure_shape(out, [None] + list(x.shape)[1:])
    return out


def broadcast(tensor: Any, root_rank: int, name: Optional[str] = None,
              ignore_name_scope: bool = False, process_set: Any = None) -> Any:
    """Rank `root_rank`'s value of the tensor, on every rank (same shape required)."""
    x = convert_to_tensor(tensor)
    label = name or "HorovodBroadcast"
    func = lambda arrays: _world().broadcast(arrays, root=root_rank, names=[label])  # noqa: E731
    return _same_shapes(_run(func, [x], [x.dtype]), [x])[0]


def broadcast_variables(variables: Sequence[Any], root_rank: int,
                        process_set: Any = None, inplace: bool = False) -> None:
    """Assigns rank `root_rank`'s values to the variables on every rank (one fused
    broadcast)."""
    variables = list(variables)
    if not variables:
        return
    names = [getattr(v, "name", f"variable.{i}") for i, v in enumerate(variables)]
    values = _world().broadcast([np.asarray(v.numpy()) for v in variables], root=root_rank,
                                names=names)
    for v, value in zip(variables, values):
        v.assign(value)


def broadcast_object(obj: Any, root_rank: int = 0, session: Any = None,
                     name: Optional[str] = None, process_set: Any = None) -> Any:
    """Rank `root_rank`'s picklable object, on every rank."""
    return _world().broadcast_object(obj, root=root_rank)


def allgather_object(obj: Any, session: Any = None, name: Optional[str] = None,
                     process_set: Any = None) -> list:
    """Every rank's picklable object, as a list in rank order."""
    return _world().allgather_object(obj)


# -- gradient tape -------------------------------------------------------------------------------

class _DistributedGradientTape(GradientTape):
    """A GradientTape whose `gradient()` averages the gradients across ranks (one fused
    allreduce for the dense ones). It shares the wrapped tape's recording."""

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 **kwargs: Any) -> Any:
        grads = super().gradient(target, sources, output_gradients, **kwargs)
        flat = nest.flatten(grads)
        if self._hvd_sparse_as_dense:
            flat = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in flat]
        names = [f"gradient of {getattr(s, 'name', i)}"
                 for i, s in enumerate(nest.flatten(sources))]
        if self._hvd_predivide != 1.0 and self._hvd_op == Average:
            reduced = _allreduce_list(flat, Sum, names, 1.0 / self._hvd_predivide,
                                      self._hvd_predivide / size(), self._hvd_compression)
        else:
            reduced = _allreduce_list(flat, self._hvd_op, names,
                                      compression=self._hvd_compression)
        return nest.pack_sequence_as(grads, reduced)


def DistributedGradientTape(gradtape: GradientTape, device_dense: str = "",
                            device_sparse: str = "", compression: Any = Compression.none,
                            sparse_as_dense: bool = False, op: int = Average,
                            gradient_predivide_factor: float = 1.0, num_groups: int = 0,
                            groups: Any = None, process_set: Any = None,
                            scale_local_gradients: bool = True) -> GradientTape:
    """A tape that wraps `gradtape` (usually after its `with` block): its `gradient()` returns
    the gradients averaged (op) across ranks, fused into one allreduce."""
    _check_op(op)
    tape = _DistributedGradientTape.__new__(_DistributedGradientTape)
    tape.__dict__ = gradtape.__dict__  # the same recording, whichever object is used
    tape._hvd_op = op
    tape._hvd_compression = compression
    tape._hvd_sparse_as_dense = sparse_as_dense
    tape._hvd_predivide = float(gradient_predivide_factor)
    return tape


def DistributedOptimizer(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
    """A Keras optimizer whose updates use gradients averaged across ranks (see
    `tapeflow.horovod.keras.DistributedOptimizer`)."""
    from tapeflow.horovod import keras as hvd_keras
    return hvd_keras.DistributedOptimizer(optimizer, *args, **kwargs)
