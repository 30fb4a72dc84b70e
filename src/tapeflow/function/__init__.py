"""tf.function: trace -> graph IR -> passes -> compiled straight-line NumPy program."""

from __future__ import annotations

from typing import Any

from tapeflow.framework import variables as _variables
from tapeflow.framework.context import context as _context
from tapeflow.graph.ir import Graph, OperatorNotAllowedInGraphError, SymbolicTensor
from tapeflow.function.polymorphic import ConcreteFunction, Function, TensorSpec, function


def _graph_assign(variable: Any, value: Any, op_name: str) -> Any:
    """`variable.assign*` while tracing: validated as eagerly, recorded as a graph node."""
    from tapeflow.ops import math_ops
    from tapeflow.ops._convert import convert_to_tensor
    variable._converted(value, op_name)  # TensorFlow's dtype and shape checks, on examples
    value = convert_to_tensor(value, dtype=variable.dtype)
    if op_name == "AssignAddVariableOp":
        value = math_ops.add(variable.value(), value)
    elif op_name == "AssignSubVariableOp":
        value = math_ops.subtract(variable.value(), value)
    _context.graph.assign_variable(variable, value)
    return variable


_variables.hooks["graph_assign"] = _graph_assign

__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec", "Graph",
           "SymbolicTensor", "OperatorNotAllowedInGraphError"]
