"""Graph-mode utilities: `tf.control_dependencies`, `tf.group`, `tf.no_op`, `tf.is_tensor`,
`tf.get_static_value`.

A traced graph runs its ops in the order the trace made them (the compiled program is
straight-line, and the passes never move or drop an op with a side effect), so the ops made
inside `tf.control_dependencies(...)` already run after the given ones: the context only
validates its argument, as TF's does. `tf.group` and `tf.no_op` return TF's `NoOp` operation
while tracing (nothing to run: the ops they group run in program order) and None eagerly.
"""

from __future__ import annotations

import contextlib
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff import core
from tapeflow.framework.context import context
from tapeflow.framework.exports import tf_export
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.ragged_tensor import RaggedTensor
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.variables import Variable
from tapeflow.graph.ir import Operation, SymbolicTensor
from tapeflow.framework import nest


@tf_export("control_dependencies")
def control_dependencies(control_inputs: Any) -> Any:
    """A context whose ops run after `control_inputs` (ops or tensors, or None). Eagerly
    it runs any callables among them and does nothing else, as TF."""
    if context.graph is None:
        if control_inputs:
            for control in control_inputs:   # TF's error for a non-iterable argument
                if callable(control):
                    control()
        return contextlib.nullcontext()
    if control_inputs is not None:
        list(control_inputs)   # a symbolic tensor refuses iteration, as in TF
    return contextlib.nullcontext()


@tf_export("no_op")
def no_op(name: Optional[str] = None) -> Optional[Operation]:
    """An op that does nothing: None eagerly, a `NoOp` operation while tracing."""
    graph = context.graph
    if graph is None:
        return None
    return Operation(graph.unique_name(name or "NoOp"), "NoOp", (), [], graph)


@tf_export("group")
def group(*inputs: Any, **kwargs: Any) -> Optional[Operation]:
    """An op that runs after `inputs` (tensors or ops, nested): None eagerly, TF's
    `group_deps` NoOp operation while tracing."""
    graph = context.graph
    if graph is None:
        return None
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    controls = []
    for inp in nest.flatten(list(inputs)):
        if not isinstance(inp, (TensorLike, IndexedSlices, Operation)):
            raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received "
                            f"'{inp}' with type '{type(inp)}'.")
        controls.append(inp)
    return Operation(graph.unique_name(name or "group_deps"), "NoOp", (), [], graph,
                     control_inputs=controls)


@tf_export("is_tensor")
def is_tensor(x: Any) -> bool:
    """True for tensors, variables, IndexedSlices and the composite tensors (SparseTensor,
    RaggedTensor); not for NumPy arrays or Python values."""
    return isinstance(x, (TensorLike, IndexedSlices, SparseTensor, RaggedTensor))


# The ops whose value TF's `constant_value` computes while tracing (from their inputs'
# static values, or the static shape); any other op's value is None, as in TF 2.21.
_SHAPE_OPS = {"Shape", "Size", "Rank", "ZerosLike", "OnesLike"}
_FOLDED_OPS = {"Range", "Cast", "ConcatV2", "Pack", "Unpack", "Fill", "Equal", "NotEqual",
               "StopGradient", "Identity"}


@tf_export("get_static_value")
def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value of `tensor` where it is known without running the graph, else None (TF's
    rules: constants, shapes of known size and a few ops of such values; a Python value is
    returned as it is, a variable gives None)."""
    if isinstance(tensor, SymbolicTensor):
        return _static_value(tensor._graph, tensor._vid, partial)
    if isinstance(tensor, (Variable, IndexedSlices)):
        return None
    if isinstance(tensor, TensorLike):
        # Inside a trace TF reads a constant op's value (an array, 0-d for a scalar).
        return np.array(tensor._value) if context.graph is not None else tensor.numpy()
    return tensor


def _static_value(graph: Any, vid: int, partial: bool = False) -> Any:
    info = graph.values[vid]
    if info.kind == "const":
        return np.array(info.example)
    node = info.producer
    if info.kind != "op" or node is None:
        return None
    name = node.op_name
    if name in _SHAPE_OPS:
        shape = graph.values[node.inputs[0]].shape
        if name == "Rank":
            return None if shape.rank is None else np.array(shape.rank, info.dtype)
        if not shape.is_fully_defined():
            return None
        dims = list(shape.dims)
        return {"Shape": lambda: np.array(dims, info.dtype),
                "Size": lambda: np.array(int(np.prod(dims)), info.dtype),
                "ZerosLike": lambda: np.zeros(dims, info.dtype),
                "OnesLike": lambda: np.ones(dims, info.dtype)}[name]()
    if name not in _FOLDED_OPS:
        return None
    inputs = [_static_value(graph, v) for v in node.inputs]
    if any(x is None for x in inputs):
        if partial and name == "Pack" and node.attrs.get("axis", 0) == 0:
            return np.array(inputs, dtype=object)   # TF: the known entries, None elsewhere
        return None
    results = core.run_kernel(node.op.impl, *inputs, **node.attrs)
    if node.op.multiple_results:
        return np.asarray(results[node.outputs.index(vid)])[()]
    return np.asarray(results)


__all__ = ["control_dependencies", "no_op", "group", "is_tensor", "get_static_value"]
