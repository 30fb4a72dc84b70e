"""The graph IR that `tf.function` traces into, and the symbolic tensors that build it.

A trace runs the user's Python function once with `SymbolicTensor`s: Tensors that carry an
example value (computed eagerly, so every op's validation runs unchanged and shapes and dtypes
are known) plus the id of the graph value they stand for. `autodiff.core.bind` hands every op
to `Graph.bind` while a trace is active, which appends a `Node` and returns symbolic outputs;
tapes still record those ops, so a `tape.gradient` inside the function lands in the graph too.

The IR is a list of nodes in execution order: op (a Primitive, or the name of one of the few
built-in ops below), input value ids, attributes and output value ids. Values are described by
`ValueInfo` (kind, name, example, static shape). Built-in ops:
  Placeholder          a function input (or, in a branch graph, a captured outer value)
  Const                a constant captured from outside (eager tensors, Python numbers)
  VarHandle            a captured tf.Variable (a value holding the variable object)
  ReadVariableOp       reads a variable's current value (prim READ_VARIABLE)
  AssignVariableOp     replaces a variable's value
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.autodiff import core
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework.variables import Variable

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL: dict = {}  # code filename -> whether it is tapeflow's own (or the stdlib's plumbing)


def is_internal(filename: str) -> bool:
    """Whether a frame's file is tapeflow's own code (however it was imported: a sys.path
    entry like 'benchmarks/../src' gives unnormalized names), frozen importlib or
    contextlib, rather than the user's."""
    internal = _INTERNAL.get(filename)
    if internal is None:
        internal = (os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)
                    or filename.startswith("<frozen") or "/contextlib.py" in filename)
        _INTERNAL[filename] = internal
    return internal

def has_side_effect(op: Any) -> bool:
    """Whether an op's effect is more than its outputs (assigning a variable, printing, a
    branch or loop that does either): such ops are never removed, merged, folded or
    reordered. `op` is a node's op: a Primitive, or the name of a built-in op."""
    if isinstance(op, str):
        return op == "AssignVariableOp"
    return op.side_effect


def is_nondeterministic(op: Any) -> bool:
    """True for ops that must run anew each time (random draws, reads, side effects)."""
    if isinstance(op, str):
        return op in ("AssignVariableOp", "ReadVariableOp")
    return op.side_effect or op.stateful or op is core.READ_VARIABLE


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration) that a traced tensor cannot take part in."""


def user_frame(skip_package: bool = True) -> Optional[Any]:
    """The innermost stack frame that belongs to the user's code (outside tapeflow)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (is_internal(filename) if skip_package else
                filename.startswith("<frozen") or "/contextlib.py" in filename):
            return frame
        frame = frame.f_back
    return None


def _caller() -> tuple:
    """(the user's frame, whether the op comes from a GradientTape's backward pass)."""
    frame = sys._getframe(2)
    backward = context.backward_depth > 0
    while frame is not None:
        if not is_internal(frame.f_code.co_filename):
            return frame, backward
        frame = frame.f_back
    return None, backward


def frame_location(frame: Any) -> tuple:
    """(filename, line, function, source line) of a frame, for messages."""
    if frame is None:
        return ("<unknown>", 0, "<unknown>", "")
    filename, line = frame.f_code.co_filename, frame.f_lineno
    return (filename, line, frame.f_code.co_name, linecache.getline(filename, line).strip())


def location_text(location: tuple) -> str:
    return f'File "{location[0]}", line {location[1]}, in {location[2]}'


class ValueInfo:
    """What the graph knows about one value: where it comes from, its example and shape."""

    __slots__ = ("vid", "kind", "name", "example", "shape", "dtype", "producer")

    def __init__(self, vid: int, kind: str, name: str, example: Any, shape: TensorShape,
                 producer: Optional["Node"] = None) -> None:
        self.vid = vid
        self.kind = kind            # "input", "const", "var" or "op"
        self.name = name            # TensorFlow-style tensor name, e.g. "MatMul_1:0"
        self.example = example      # the value seen while tracing (a Variable for "var")
        self.shape = shape          # static shape; None dims where inputs were relaxed
        self.dtype = None if kind == "var" else np.asarray(example).dtype
        self.producer = producer


class Node:
    """One operation of the IR."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "name", "location", "phase")

    def __init__(self, op: Any, inputs: list, attrs: dict, outputs: list, name: str,
                 location: tuple, phase: str) -> None:
        self.op = op                # a core.Primitive, or a built-in op name (str)
        self.inputs = inputs        # value ids
        self.attrs = attrs
        self.outputs = outputs      # value ids
        self.name = name
        self.location = location    # the user's (file, line, function, code) that made it
        self.phase = phase          # "forward" or "backward" (ops made by tape.gradient)

    @property
    def op_name(self) -> str:
        return self.op if isinstance(self.op, str) else self.op.name


class SymbolicTensor(Tensor):
    """A tensor inside a trace: an example value plus the graph value it stands for."""

    __slots__ = ("_graph", "_vid")

    @property
    def shape(self) -> TensorShape:
        return self._graph.values[self._vid].shape

    @property
    def name(self) -> str:
        return self._graph.values[self._vid].name

    @property
    def graph(self) -> "Graph":
        return self._graph

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def _not_allowed(self, what: str, advice: str) -> Exception:
        filename, line, _, code = frame_location(user_frame())
        return OperatorNotAllowedInGraphError(
            f"{what} is not allowed inside tf.function (the tensor is {self!s}), at "
            f"{filename}:{line}: `{code}`. {advice}")

    def __bool__(self) -> bool:
        raise self._not_allowed(
            "Using a symbolic `tf.Tensor` as a Python `bool`",
            "Python `if`/`while` cannot branch on a traced value: use tf.cond (or tf.case, "
            "tf.switch_case) for a data-dependent branch and tf.while_loop for a "
            "data-dependent loop.")

    def __iter__(self) -> Iterator:
        raise self._not_allowed(
            "Iterating over a symbolic `tf.Tensor`",
            "Use tf.while_loop (or tf.unstack on a tensor of known length) instead of a "
            "Python `for` loop over a traced value.")

    @property
    def numpy(self) -> Any:
        # As TF's SymbolicTensor, which has no `numpy` (so hasattr(t, "numpy") is False).
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'numpy'")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error "
            f"may indicate that you're trying to pass a Tensor to a NumPy call, which is not "
            f"supported.")

    def _scalar(self, kind: str) -> Any:
        raise TypeError(f"{kind}() argument must be a string or a real number, not "
                        f"'SymbolicTensor' ({self.name} has no value inside tf.function)")

    def __index__(self) -> int:
        raise TypeError(f"A symbolic tensor ({self.name}) cannot be used as a Python index "
                        f"inside tf.function.")

    def __reduce__(self):
        raise TypeError(f"Cannot pickle a symbolic tf.Tensor ({self.name}).")


class Graph:
    """A traced function's IR, built by `bind` calls while it is `context.graph`."""

    def __init__(self, name: str = "graph", parent: Optional["Graph"] = None,
                 allow_variable_creation: bool = True) -> None:
        self.name = name
        self.parent = parent                 # the graph a branch/loop body is traced inside
        self.nodes: list = []
        self.values: list = []
        self.inputs: list = []               # placeholder vids, in call order
        self.outputs: list = []              # vids returned by the function
        self.captures: list = []             # (outer tensor or Variable, placeholder vid)
        self._capture_ids: dict = {}         # id(outer) -> placeholder vid
        self._consts: dict = {}              # id(eager tensor) -> (tensor, vid)
        self._var_handles: dict = {}         # id(variable) -> vid
        self.assigned: set = set()           # ids of variables assigned in this graph (or in
                                             # its branches and loops)
        self._var_examples: dict = {}        # id(variable) -> value after the last assign
        self._names: dict = {}
        self.allow_variable_creation = allow_variable_creation
        self.created_variables: list = []
        self.phase = "forward"
        self.sealed = False
        # id(variable) -> its value after an assignment made by a trace-time run of a branch
        # or loop (on the outermost graph: every such run of one trace shares it).
        self.dry_values: dict = {}
        # The inputs with a path to an output (compiler.replay under nested tapes), once known.
        self.connected_inputs: Optional[list] = None

    # -- values ---------------------------------------------------------------------------------
    def _unique(self, base: str) -> str:
        count = self._names.get(base, 0)
        self._names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def _new_value(self, kind: str, base: str, example: Any, shape: Any = None,
                   producer: Optional[Node] = None, index: int = 0) -> int:
        vid = len(self.values)
        if shape is None:
            shape = TensorShape(np.shape(example)) if kind != "var" else TensorShape(None)
        self.values.append(ValueInfo(vid, kind, f"{base}:{index}", example, shape, producer))
        return vid

    def symbolic(self, vid: int) -> SymbolicTensor:
        """A tensor standing for value `vid`."""
        t = object.__new__(SymbolicTensor)
        t._value = self.values[vid].example
        t._graph = self
        t._vid = vid
        return t

    def placeholder(self, example: Any, name: str, shape: Any = None) -> SymbolicTensor:
        """A new function input with the given example value and static shape."""
        vid = self._new_value("input", self._unique(name), example, shape)
        self.inputs.append(vid)
        return self.symbolic(vid)

    def _const(self, tensor: Any) -> int:
        key = id(tensor)
        entry = self._consts.get(key)
        if entry is None:
            vid = self._new_value("const", self._unique("Const"), tensor._value)
            self._consts[key] = entry = (tensor, vid)  # the tensor is held: its id stays unique
        return entry[1]

    def var_handle(self, variable: Variable) -> int:
        vid = self._var_handles.get(id(variable))
        if vid is None:
            vid = self._new_value("var", self._unique(variable._name), variable)
            self._var_handles[id(variable)] = vid
        return vid

    def _capture(self, outer: Any) -> int:
        vid = self._capture_ids.get(id(outer))
        if vid is None:
            if self.parent is None:
                raise ValueError(
                    f"An op inside tf.function is being passed the symbolic tensor {outer}, "
                    f"which belongs to another tf.function's trace; pass it as an argument "
                    f"instead.")
            example = outer._value
            vid = self._new_value("input", self._unique("capture"), example,
                                  getattr(outer, "shape", None) if not isinstance(
                                      outer, Variable) else None)
            self._capture_ids[id(outer)] = vid
            self.captures.append((outer, vid))
        return vid

    def value_id(self, x: Any) -> int:
        """The value id for an op input: symbolic tensors, captures and constants."""
        if isinstance(x, SymbolicTensor):
            return x._vid if x._graph is self else self._capture(x)
        if isinstance(x, Variable):
            return self._vid_of_read(x)
        if isinstance(x, TensorLike):
            return self._const(x)
        return self._const(wrap(np.asarray(x)))

    # -- ops ------------------------------------------------------------------------------------
    def add_node(self, op: Any, inputs: list, attrs: dict, examples: list,
                 base: Optional[str] = None) -> list:
        """Appends a node whose outputs have the given example values; returns their vids."""
        name = self._unique(base or (op if isinstance(op, str) else op.name))
        frame, backward = _caller()
        node = Node(op, inputs, attrs, [], name, frame_location(frame),
                    "backward" if backward else self.phase)
        node.outputs = [self._new_value("op", name, example, producer=node, index=i)
                        for i, example in enumerate(examples)]
        self.nodes.append(node)
        return node.outputs

    def bind(self, prim: Any, inputs: Any, attrs: dict) -> Any:
        """Traces one op: computes its example outputs and records a node (core.bind's hook)."""
        if prim is core.READ_VARIABLE and isinstance(inputs[0], Variable):
            return self.read_variable(inputs[0])
        vids = [self.value_id(x) for x in inputs]
        examples = [self.values[v].example for v in vids]
        try:
            raw = core.run_kernel(prim.impl, *examples, **attrs)
        except core.KERNEL_ERRORS as exc:
            raise core.op_error(prim, [wrap(e) for e in examples], exc) from None
        outs = self.add_node(prim, vids, attrs, list(raw) if prim.multiple_results else [raw])
        if any(None in self.values[v].shape.as_list() for v in vids
               if self.values[v].shape.rank):
            self._relax_outputs(prim, vids, attrs, outs)
        if prim.multiple_results:
            return tuple(self.symbolic(v) for v in outs)
        return self.symbolic(outs[0])

    def _relax_outputs(self, prim: Any, vids: list, attrs: dict, outs: list) -> None:
        """Static shapes for the outputs of an op whose inputs have None dims, as TensorFlow's
        shape inference gives: an output dim is None when it changes as those inputs' None
        dims grow by one (found by running the kernel once more on such probe inputs)."""
        if is_nondeterministic(prim):
            return      # a second run would draw random numbers or repeat a side effect
        probes = []
        for v in vids:
            info = self.values[v]
            example = np.asarray(info.example)
            dims = info.shape.as_list() if info.shape.rank else []
            grown = tuple(n + 1 if d is None else n for n, d in zip(example.shape, dims))
            probes.append(np.resize(example, grown) if None in dims else info.example)
        try:
            got = core.run_kernel(prim.impl, *probes, **attrs)
        except Exception:  # noqa: BLE001 - the kernel needs the exact shapes: keep them
            return
        for vid, probe in zip(outs, list(got) if prim.multiple_results else [got]):
            info = self.values[vid]
            old, new = np.shape(info.example), np.shape(probe)
            if len(old) == len(new) and old != new:
                info.shape = TensorShape([a if a == b else None for a, b in zip(old, new)])

    # -- variables ------------------------------------------------------------------------------
    def _vid_of_read(self, variable: Variable) -> int:
        return self.read_variable(variable)._vid

    def read_variable(self, variable: Variable) -> SymbolicTensor:
        """A fresh read of `variable` (each read is its own node: tapes key on the tensor)."""
        key = id(variable)
        if self.parent is not None and key not in self.assigned:
            # A branch or loop body reads the value its parent op is given as an input.
            return self.symbolic(self._capture(variable))
        example = self._var_examples.get(key, variable._value)
        (vid,) = self.add_node("ReadVariableOp", [self.var_handle(variable)], {}, [example],
                               base="ReadVariableOp")
        return self.symbolic(vid)

    def read_live(self, variable_ids: set) -> None:
        """Makes this branch read the given variables itself where it captured their value
        (a loop whose body assigns a variable must see the new value on every iteration): each
        captured value becomes a read at the start of the branch."""
        kept, reads = [], []
        for outer, vid in self.captures:
            if not (isinstance(outer, Variable) and id(outer) in variable_ids):
                kept.append((outer, vid))
                continue
            del self._capture_ids[id(outer)]
            location = self.nodes[0].location if self.nodes else frame_location(None)
            node = Node("ReadVariableOp", [self.var_handle(outer)], {}, [vid],
                        self._unique("ReadVariableOp"), location, self.phase)
            info = self.values[vid]
            info.kind, info.producer = "op", node
            reads.append(node)
            self.assigned.add(id(outer))
        self.captures = kept
        self.nodes[:0] = reads

    def assign_variable(self, variable: Variable, value: Any) -> None:
        """Records `variable.assign(value)`; the real variable changes only when it runs."""
        vid = self.value_id(value)
        self.add_node("AssignVariableOp", [self.var_handle(variable), vid], {}, [],
                      base="AssignVariableOp")
        self.assigned.add(id(variable))
        self._var_examples[id(variable)] = self.values[vid].example

    def on_variable_created(self, variable: Variable) -> None:
        if not self.allow_variable_creation:
            raise ValueError(
                "tf.function only supports singleton tf.Variables created on the first call. "
                "Make sure the tf.Variable is only created once or created outside "
                "tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables"
                " for more information.")
        self.created_variables.append(variable)

    # -- views ----------------------------------------------------------------------------------
    def variables(self) -> list:
        """The variables this graph reads or assigns, in first-use order."""
        return [self.values[v].example for v in self._var_handles.values()]

    def as_text(self) -> str:
        from tapeflow.graph.render import graph_text
        return graph_text(self)

    def to_dot(self) -> str:
        """The graph in Graphviz DOT: ops, shapes, dtypes; backward ops drawn apart."""
        from tapeflow.graph.render import graph_dot
        return graph_dot(self)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return f"<tapeflow Graph {self.name!r}: {len(self.nodes)} nodes>"


def dry_values() -> dict:
    """The variable values that trace-time runs of the current trace have assigned."""
    graph = context.graph
    if graph is None:
        return {}
    while graph.parent is not None:
        graph = graph.parent
    return graph.dry_values


class tracing:
    """Makes `graph` the active trace (and the variable hooks route into it)."""

    def __init__(self, graph: Graph, suspend_tapes: bool = False) -> None:
        self.graph = graph
        self.suspend_tapes = suspend_tapes

    def __enter__(self) -> Graph:
        self.saved = (context.graph, context.tapes, context.accumulators,
                      context.variable_watchers)
        context.graph = self.graph
        if self.suspend_tapes:
            context.tapes, context.accumulators, context.variable_watchers = [], [], []
        context.refresh()
        return self.graph

    def __exit__(self, *exc: Any) -> None:
        (context.graph, context.tapes, context.accumulators,
         context.variable_watchers) = self.saved
        context.refresh()


def dtype_of(info: ValueInfo) -> str:
    return "resource" if info.kind == "var" else _dtypes.from_numpy(info.dtype).name


__all__ = ["Graph", "Node", "ValueInfo", "SymbolicTensor", "tracing", "user_frame",
           "OperatorNotAllowedInGraphError", "has_side_effect", "is_nondeterministic"]
