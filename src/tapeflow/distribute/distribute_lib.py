"""`tf.distribute`'s core: `Strategy`, its scope, replica contexts, `ReduceOp`, the default
strategy, and the cross-worker reductions they run.

tapeflow runs one replica per process: `MirroredStrategy` and `OneDeviceStrategy` have one
replica (as TensorFlow on a CPU-only machine), `MultiWorkerMirroredStrategy` one per MPI rank.
A value in a replica context is therefore this worker's own tensor (TensorFlow's per-replica
value with one local replica), and every reduction across replicas is a collective over the
ranks (`tapeflow.distribute.collective`). Inside `tf.function` a reduction is one
`numpy_function` node, so the collective runs each time the graph does.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.framework import nest
from tapeflow.framework import variables as _variables
from tapeflow.framework.context import context
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.framework.tensor_conversion import convert_to_tensor


class ReduceOp(enum.Enum):
    """How values from the replicas combine: `SUM` or `MEAN` (as `tf.distribute.ReduceOp`)."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> "ReduceOp":
        """The ReduceOp of a `tf.VariableAggregation` ('sum' or 'mean')."""
        name = getattr(aggregation, "name", aggregation)
        return ReduceOp(str(name).upper().removeprefix("ONLY_FIRST_"))


def _reduce_op(reduce_op: Any) -> ReduceOp:
    """A ReduceOp from the enum or its name in any case ('sum'), as TensorFlow accepts."""
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    return ReduceOp(str(reduce_op).upper())


# -- the context stack --------------------------------------------------------------------------
class _Entry:
    """One entered context: a strategy's scope (replica_context None: cross-replica) or a
    replica context inside `strategy.run`."""

    __slots__ = ("strategy", "replica_context")

    def __init__(self, strategy: "Strategy", replica_context: Optional["ReplicaContext"]):
        self.strategy = strategy
        self.replica_context = replica_context


_local = threading.local()
_scopes_open = [0]          # scopes entered in any thread: the variable hook is set while > 0
_scopes_lock = threading.Lock()


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _top() -> Optional[_Entry]:
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def _entered(entry: _Entry):
    stack = _stack()
    stack.append(entry)
    with _scopes_lock:
        _scopes_open[0] += 1
        _variables.hooks["created"] = _on_variable_created
    try:
        yield entry.strategy
    finally:
        stack.pop()
        with _scopes_lock:
            _scopes_open[0] -= 1
            if not _scopes_open[0]:
                _variables.hooks["created"] = None


def get_strategy() -> "Strategy":
    """The strategy of the innermost entered scope, else the default strategy."""
    top = _top()
    return top.strategy if top is not None else _default_strategy()


def has_strategy() -> bool:
    """Whether a (non-default) strategy's scope is entered."""
    top = _top()
    return top is not None and not isinstance(top.strategy, _DefaultDistributionStrategy)


def in_cross_replica_context() -> bool:
    """True inside a strategy's scope but outside `strategy.run`."""
    top = _top()
    return top is not None and top.replica_context is None


def get_replica_context() -> Optional["ReplicaContext"]:
    """The replica context inside `strategy.run`; None in a cross-replica context; the
    default replica context when no strategy is entered."""
    top = _top()
    if top is None:
        return _default_strategy()._default_replica_context
    return top.replica_context


def get_cross_replica_context() -> Optional["Strategy"]:
    """The strategy in a cross-replica context (the default one outside every scope), else
    None."""
    top = _top()
    if top is None:
        return _default_strategy()
    return top.strategy if top.replica_context is None else None


# -- collectives ----------------------------------------------------------------------------
def _world() -> Any:
    from tapeflow.distribute import collective  # the transport; mpi4py is loaded on demand
    return collective.world()


def _numpy_collective(fn: Callable[[list], list], tensors: list, out_shapes: list) -> list:
    """`fn` (arrays -> arrays) on the tensors' values: directly when eager, else as one
    `numpy_function` node (a collective must run at each run of the graph, in program order);
    the results take `out_shapes` (None dims unknown)."""
    if context.graph is None:
        return [wrap(np.asarray(a)) for a in fn([np.asarray(t._value) for t in tensors])]
    from tapeflow.ops import array_ops
    from tapeflow.ops.script_ops import numpy_function
    outs = numpy_function(lambda *arrays: tuple(fn(list(arrays))), tensors,
                          [t.dtype for t in tensors])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return [array_ops.reshape(o, [-1 if d is None else d for d in shape])
            for o, shape in zip(outs, out_shapes)]


def all_reduce_tensors(communicator: Any, reduce_op: ReduceOp, tensors: Sequence[Any],
                       names: Optional[Sequence[str]] = None) -> list:
    """The tensors reduced over every worker (SUM or MEAN), fused into one collective."""
    tensors = [convert_to_tensor(t) for t in tensors]
    if communicator is None or communicator.size == 1 or not tensors:
        return tensors
    op = "sum" if reduce_op is ReduceOp.SUM else "mean"
    return _numpy_collective(lambda arrays: communicator.allreduce(arrays, op=op, names=names),
                             tensors, [t.shape.as_list() for t in tensors])


def all_gather_tensor(communicator: Any, tensor: Any, axis: int = 0) -> Tensor:
    """Every worker's tensor, concatenated along `axis` in rank order."""
    tensor = convert_to_tensor(tensor)
    if communicator is None or communicator.size == 1:
        return tensor
    rank = len(tensor.shape)
    axis = axis + rank if axis < 0 else axis

    def gather(arrays: list) -> list:
        moved = np.moveaxis(arrays[0], axis, 0)
        return [np.moveaxis(communicator.allgather(np.ascontiguousarray(moved)), 0, axis)]
    shape = tensor.shape.as_list()
    shape[axis] = None
    return _numpy_collective(gather, [tensor], [shape])[0]


def _all_reduce_gradients(communicator: Any, grads: list) -> list:
    """Gradients summed over the workers: the dense ones fused into one allreduce, the
    IndexedSlices all-gathered (their indices and values concatenated), as TensorFlow's
    collective ops do; None stays None. All in one collective node under tf.function."""
    dense = [i for i, g in enumerate(grads) if g is not None and not isinstance(g, IndexedSlices)]
    sparse = [i for i, g in enumerate(grads) if isinstance(g, IndexedSlices)]
    tensors = [convert_to_tensor(grads[i]) for i in dense]
    for i in sparse:
        tensors += [convert_to_tensor(grads[i].values), convert_to_tensor(grads[i].indices)]
    if not tensors:
        return grads
    names = [f"gradient_{i}" for i in dense]

    def reduce(arrays: list) -> list:
        out = communicator.allreduce(arrays[:len(dense)], op="sum", names=names) \
            if dense else []
        return list(out) + [communicator.allgather(a) for a in arrays[len(dense):]]
    shapes = [t.shape.as_list() for t in tensors[:len(dense)]] + \
        [[None] + t.shape.as_list()[1:] for t in tensors[len(dense):]]
    reduced = _numpy_collective(reduce, tensors, shapes)
    out = list(grads)
    for i, value in zip(dense, reduced):
        out[i] = value
    rest = reduced[len(dense):]
    for k, i in enumerate(sparse):
        out[i] = IndexedSlices(rest[2 * k], rest[2 * k + 1], grads[i].dense_shape)
    return out


def aggregate_gradients(grads: Sequence[Any]) -> list:
    """For `optimizer.apply_gradients`: inside `strategy.run` of a strategy with several
    replicas, the gradients summed over them (as TensorFlow/Keras); else unchanged."""
    top = _top()
    if top is None or top.replica_context is None:
        return list(grads)
    communicator = top.strategy.extended._communicator
    if communicator is None or communicator.size == 1:
        return list(grads)
    return _all_reduce_gradients(communicator, list(grads))


# -- variables ----------------------------------------------------------------------------------
def _on_variable_created(variable: Any) -> None:
    """Installed as framework.variables' creation hook while a scope is open: a variable made
    inside a strategy's scope (or its `run`) is mirrored there."""
    top = _top()
    if top is not None:
        top.strategy.extended._create_variable(variable)


# -- replica contexts ---------------------------------------------------------------------------
class ReplicaContext:
    """The context of one replica inside `strategy.run` (`tf.distribute.ReplicaContext`)."""

    def __init__(self, strategy: "Strategy", replica_id_in_sync_group: Any) -> None:
        self._strategy = strategy
        self._replica_id_in_sync_group = replica_id_in_sync_group

    @property
    def strategy(self) -> "Strategy":
        """The strategy this replica runs under."""
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas (over all workers) that run in sync."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's index among all replicas (an int32 tensor inside `run`)."""
        return self._replica_id_in_sync_group

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """`value` (a tensor or a nest of them) reduced over every replica, SUM or MEAN."""
        reduce_op = _reduce_op(reduce_op)
        flat = nest.flatten(value)
        reduced = all_reduce_tensors(self._strategy.extended._communicator, reduce_op, flat)
        return nest.pack_sequence_as(value, reduced)

    def all_gather(self, value: Any, axis: int, options: Any = None) -> Any:
        """Every replica's `value` (a nest of tensors), concatenated along `axis`."""
        communicator = self._strategy.extended._communicator
        return nest.map_structure(lambda t: all_gather_tensor(communicator, t, axis), value)

    def merge_call(self, merge_fn: Callable, args: Sequence = (), kwargs: Optional[dict] = None):
        """Calls `merge_fn(strategy, *args, **kwargs)` in the cross-replica context."""
        with _entered(_Entry(self._strategy, None)):
            return merge_fn(self._strategy, *args, **(kwargs or {}))


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy's scope."""


# -- strategies ---------------------------------------------------------------------------------
class StrategyExtended:
    """`strategy.extended`: the strategy's devices, variable placement and communicator."""

    def __init__(self, container_strategy: "Strategy", communicator: Any = None,
                 mirror_variables: bool = True) -> None:
        self._container_strategy_weakref = container_strategy
        self._communicator = communicator
        self._mirror_variables = mirror_variables

    @property
    def _num_replicas_in_sync(self) -> int:
        return 1 if self._communicator is None else self._communicator.size

    def _in_multi_worker_mode(self) -> bool:
        return self._communicator is not None and self._communicator.size > 1

    @property
    def should_checkpoint(self) -> bool:
        """Whether this worker writes checkpoints: the chief (rank 0)."""
        return self._communicator is None or self._communicator.rank == 0

    should_save_summary = should_checkpoint

    @property
    def worker_devices(self) -> tuple:
        """This worker's replica devices."""
        return ("/job:localhost/replica:0/task:0/device:CPU:0",)

    parameter_devices = worker_devices

    def variable_created_in_scope(self, v: Any) -> bool:
        """Whether `v` was created inside this strategy's scope."""
        return getattr(v, "_distribute_strategy", None) is self._container_strategy_weakref

    def _create_variable(self, variable: Any) -> None:
        variable._distribute_strategy = self._container_strategy_weakref
        if not self._mirror_variables:
            return
        communicator = self._communicator
        if communicator is not None and communicator.size > 1:
            # Mirrored: every worker starts from rank 0's value.
            variable._value = np.asarray(communicator.broadcast(
                [variable._value], root=0, names=[variable.name])[0])
        from tapeflow.distribute.values import mirror
        mirror(variable)


class Strategy:
    """A way to run a computation over replicas (`tf.distribute.Strategy`)."""

    def __init__(self, extended: StrategyExtended) -> None:
        self._extended = extended
        self._default_replica_context = None

    @property
    def extended(self) -> StrategyExtended:
        """The strategy's `StrategyExtended`."""
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas over all workers."""
        return self._extended._num_replicas_in_sync

    @property
    def cluster_resolver(self) -> Any:
        """The cluster resolver (MultiWorkerMirroredStrategy), else None."""
        return None

    def scope(self) -> Any:
        """A context manager: variables created inside are this strategy's (mirrored), and
        `get_strategy()` returns it."""
        top = _top()
        if top is not None and top.strategy is not self and \
                not isinstance(top.strategy, _DefaultDistributionStrategy):
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: "
                               f"{top.strategy} is not {self}")
        return _entered(_Entry(self, None))

    def _replica_context(self) -> ReplicaContext:
        communicator = self._extended._communicator
        rank = 0 if communicator is None else communicator.rank
        return ReplicaContext(self, convert_to_tensor(np.int32(rank)))

    def run(self, fn: Callable, args: Sequence = (), kwargs: Optional[dict] = None,
            options: Any = None) -> Any:
        """Runs `fn(*args, **kwargs)` on this worker's replica, in a replica context; returns
        its result (one local replica: the values themselves, as TensorFlow)."""
        from tapeflow.distribute.values import local_value
        args = nest.map_structure(local_value, tuple(args))
        kwargs = nest.map_structure(local_value, dict(kwargs or {}))
        with _entered(_Entry(self, self._replica_context())):
            return fn(*args, **kwargs)

    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int]) -> Tensor:
        """`value` (per-replica) reduced over every replica with SUM or MEAN; with `axis`,
        also over that axis of each replica's value (a MEAN counts the elements of all)."""
        from tapeflow.distribute.values import local_value
        from tapeflow.ops import math_ops, reduce_ops
        reduce_op = _reduce_op(reduce_op)
        value = convert_to_tensor(local_value(value))
        communicator = self._extended._communicator
        if axis is None:
            return all_reduce_tensors(communicator, reduce_op, [value])[0]
        total = reduce_ops.reduce_sum(value, axis=axis)
        total = all_reduce_tensors(communicator, ReduceOp.SUM, [total])[0]
        if reduce_op is ReduceOp.SUM:
            return total
        count = all_reduce_tensors(communicator, ReduceOp.SUM, [
            convert_to_tensor(np.asarray(value.shape[axis], np.int64))])[0]
        return math_ops.truediv(total, math_ops.cast(count, total.dtype))

    def experimental_local_results(self, value: Any) -> tuple:
        """This worker's values of `value` as a tuple (one per local replica)."""
        from tapeflow.distribute.values import DistributedValues
        if isinstance(value, DistributedValues):
            return tuple(value.values)
        return (value,)

    def gather(self, value: Any, axis: int) -> Any:
        """Every replica's `value` concatenated along `axis` (in replica order)."""
        from tapeflow.distribute.values import local_value
        communicator = self._extended._communicator
        return nest.map_structure(
            lambda t: all_gather_tensor(communicator, local_value(t), axis), value)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """The dataset's (global) batches split over the workers: each iterates its share,
        as TensorFlow's auto-sharding (`AutoShardPolicy` in the dataset's options)."""
        from tapeflow.distribute.input_lib import DistributedDataset
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn: Callable, options: Any = None):
        """Each worker's dataset made by `dataset_fn(input_context)`."""
        from tapeflow.distribute.input_lib import DistributedDatasetsFromFunction
        return DistributedDatasetsFromFunction(self, dataset_fn)

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """`value_fn(ValueContext)` for this worker's replica."""
        from tapeflow.distribute.input_lib import ValueContext
        communicator = self._extended._communicator
        rank = 0 if communicator is None else communicator.rank
        return value_fn(ValueContext(rank, self.num_replicas_in_sync))

    def _is_chief(self) -> bool:
        return self._extended.should_checkpoint

    def _barrier(self) -> None:
        """Waits for every worker (nothing with one)."""
        if self._extended._in_multi_worker_mode():
            self._extended._communicator.barrier()


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect outside every scope: one replica, plain variables."""

    def __init__(self) -> None:
        super().__init__(StrategyExtended(self, None, mirror_variables=False))
        self._default_replica_context = _DefaultReplicaContext(self, 0)

    def _replica_context(self) -> ReplicaContext:
        return self._default_replica_context


_DEFAULT: list = []


def _default_strategy() -> _DefaultDistributionStrategy:
    if not _DEFAULT:
        _DEFAULT.append(_DefaultDistributionStrategy())
    return _DEFAULT[0]


__all__ = ["ReduceOp", "ReplicaContext", "Strategy", "StrategyExtended", "get_strategy",
           "has_strategy", "in_cross_replica_context", "get_replica_context",
           "get_cross_replica_context", "aggregate_gradients", "all_reduce_tensors",
           "all_gather_tensor"]
