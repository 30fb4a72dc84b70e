"""The graph IR that `tf.function` traces into, and the symbolic tensors that build it.

A trace runs the user's Python function once with `SymbolicTensor`s: Tensors that stand for
a graph value. `autodiff.core.bind` hands every op to `Graph.bind` while a trace is active,
which appends a `Node` and returns symbolic outputs; tapes still record those ops, so a
`tape.gradient` inside the function lands in the graph too.

Every value has a static shape (None dims where unknown) and a dtype, from the primitive's
shape rule (`Primitive.shape_rule`, abstract evaluation). A value whose shape is fully known
and whose inputs are all known also has an example: the kernel's result on the inputs'
examples (constants, variables, and the arguments of the call that traced), so validation
runs as eagerly. Any other value is abstract: its tensor holds an `AbstractArray` (shape and
dtype only), and the graph holds for every size its unknown dims take when it runs. Values
whose shape depends on data (boolean_mask, unique, where) are abstract for that reason.

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

from tapeflow.autodiff import core, numerics
from tapeflow.framework.abstract import AbstractArray, ShapedArray, aval_of
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.device import scope_device
from tapeflow.framework.errors import InternalError, OperatorNotAllowedInGraphError, OpError
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


# Primitives whose outputs a trace leaves abstract (shape and dtype from the shape rule, no
# kernel run): optimizer updates, whose examples would be a second copy of the model's and
# optimizer's state, alive until the trace ends.
ABSTRACT_AT_TRACE: set = set()


def is_nondeterministic(op: Any) -> bool:
    """True for ops that must run anew each time (random draws, reads, side effects)."""
    if isinstance(op, str):
        return op in ("AssignVariableOp", "ReadVariableOp")
    return op.side_effect or op.stateful or op is core.READ_VARIABLE


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


def _out_of_scope(tensor: Any) -> TypeError:
    """TensorFlow's error for a traced tensor used outside the trace that made it (one
    leaked from another tf.function through a Python variable)."""
    text = repr(tensor)
    lines = [f"{text} is out of scope and cannot be used here. Use return values, explicit "
             f"Python locals or TensorFlow collections to access it.",
             "Please see https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_"
             "must_be_return_values for more information.", ""]
    graph = getattr(tensor, "_graph", None)
    producer = graph.values[tensor._vid].producer if graph is not None else None
    if producer is not None and producer.location[1]:
        lines += [f"{text} was defined here:", f"    {location_text(producer.location)}", ""]
    name = graph.name if graph is not None else "<unknown>"
    lines.append(f"The tensor {text} cannot be accessed from here, because it was defined in "
                 f"FuncGraph(name={name}, id={id(graph)}), which is out of scope.")
    error = TypeError("\n".join(lines))
    error._tapeflow_in_user_code = True     # TF reports it as it is, without "in user code"
    return error


class ValueInfo:
    """What the graph knows about one value: where it comes from, its example and shape."""

    __slots__ = ("vid", "kind", "name", "example", "shape", "dtype", "producer", "fixed",
                 "device")

    def __init__(self, vid: int, kind: str, name: str, example: Any, shape: TensorShape,
                 producer: Optional["Node"] = None, dtype: Any = None) -> None:
        self.vid = vid
        self.kind = kind            # "input", "const", "var" or "op"
        self.name = name            # TensorFlow-style tensor name, e.g. "MatMul_1:0"
        self.example = example      # the value seen while tracing (a Variable for "var"),
                                    # or None for an abstract value
        self.shape = shape          # static shape; None dims where unknown
        self.dtype = None if kind == "var" else np.asarray(example).dtype if dtype is None \
            else np.dtype(dtype)
        self.producer = producer
        # The value is the same on every run: a constant, or a deterministic op of such values
        # (its example is then its value, and its shape is known even where a rule, seeing
        # shapes only, could not tell: the length of a tf.range of Python numbers).
        self.fixed = kind == "const"

    @property
    def aval(self) -> ShapedArray:
        """The value's static shape and dtype."""
        return ShapedArray(None if self.shape.rank is None else tuple(self.shape.dims),
                           self.dtype)

    def stand_in(self) -> Any:
        """What a tensor for this value holds: the example, or an AbstractArray."""
        if self.example is not None:
            return self.example
        return AbstractArray(None if self.shape.rank is None else tuple(self.shape.dims),
                             self.dtype)


class Node:
    """One operation of the IR."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "name", "location", "phase", "made_by")

    def __init__(self, op: Any, inputs: list, attrs: dict, outputs: list, name: str,
                 location: tuple, phase: str, made_by: Optional[str] = None) -> None:
        self.op = op                # a core.Primitive, or a built-in op name (str)
        self.inputs = inputs        # value ids
        self.attrs = attrs
        self.outputs = outputs      # value ids
        self.name = name
        self.location = location    # the user's (file, line, function, code) that made it
        self.phase = phase          # "forward" or "backward" (ops made by tape.gradient)
        self.made_by = made_by      # backward ops: the forward op whose derivative rule made it

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

    @property
    def device(self) -> str:
        """The device of the tf.device scope the tensor was made under (`""` outside any),
        as TensorFlow reports it for a graph tensor."""
        return self._graph.values[self._vid].device

    @property
    def op(self) -> "Operation":
        """The op that produces this tensor, in the graph's `get_operations()` view."""
        return next(op for op in self._graph.get_operations() for t in op.outputs
                    if getattr(t, "_vid", None) == self._vid)

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def _not_allowed(self, what: str, advice: str) -> Exception:
        # TensorFlow's message, then where it happened and what to use instead.
        filename, line, _, code = frame_location(user_frame())
        return OperatorNotAllowedInGraphError(
            f"{what} is not allowed. You can attempt the following resolutions to the problem: "
            f"If you are running in Graph mode, use Eager execution mode or decorate this "
            f"function with @tf.function. If you are using AutoGraph, you can try decorating "
            f"this function with @tf.function. If that does not work, then you may be using an "
            f"unsupported feature or your source code may not be visible to AutoGraph. See "
            f"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
            f"g3doc/reference/limitations.md#access-to-source-code for more information.\n\n"
            f"The tensor is {self!s}, at {filename}:{line}: `{code}`. {advice}")

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
        # A tf.function traced while another is: the graph being traced then, whose tensors
        # (and its ancestors') this one may capture, as TF's nested functions do.
        self.enclosing: Optional["Graph"] = context.graph if parent is None else None
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
        self._operations: Optional[tuple] = None   # (key, the get_operations() view)

    # -- values ---------------------------------------------------------------------------------
    def _unique(self, base: str) -> str:
        return _unique_name(self._names, base)

    def unique_name(self, base: str) -> str:
        """A new op name in this graph: `base`, or `base_1`, ... (TF's case-insensitive
        rule)."""
        return _unique_name(self._names, base)

    def _new_value(self, kind: str, base: str, example: Any, shape: Any = None,
                   producer: Optional[Node] = None, index: int = 0, dtype: Any = None) -> int:
        vid = len(self.values)
        if shape is None:
            shape = TensorShape(np.shape(example)) if kind != "var" else TensorShape(None)
        info = ValueInfo(vid, kind, f"{base}:{index}", example, shape, producer, dtype)
        info.device = scope_device(self)   # the tf.device scope it was made under, as TF
        self.values.append(info)
        return vid

    def symbolic(self, vid: int) -> SymbolicTensor:
        """A tensor standing for value `vid`."""
        t = object.__new__(SymbolicTensor)
        t._value = self.values[vid].stand_in()
        t._graph = self
        t._vid = vid
        return t

    def placeholder(self, example: Any, name: str, shape: Any = None,
                    dtype: Any = None) -> SymbolicTensor:
        """A new function input with the given static shape. It keeps `example` (the value
        of the call being traced) only when `shape` is fully known and is the example's;
        otherwise (unknown dims, a loop invariant other than the value's shape, no example: a
        trace from a signature) it is abstract, of `dtype`."""
        if type(example) is AbstractArray:
            dtype, shape = example.dtype, example.shape if shape is None else shape
            example = None
        shape = TensorShape(np.shape(example)) if shape is None else TensorShape(shape)
        if example is not None and (not shape.is_fully_defined()
                                    or tuple(shape.dims) != np.shape(example)):
            dtype, example = np.asarray(example).dtype, None
        vid = self._new_value("input", self._unique(name), example, shape, dtype=dtype)
        self.inputs.append(vid)
        return self.symbolic(vid)

    def named_constant(self, tensor: Any, name: str) -> int:
        """The value id of the eager `tensor` as a constant of this graph named `name` (as
        TF's convert_to_tensor(value, name=...) inside a name scope names it), unless it is
        already a constant here."""
        return self._const(tensor, name)

    def _const(self, tensor: Any, name: str = "Const") -> int:
        key = id(tensor)
        entry = self._consts.get(key)
        if entry is None:
            vid = self._new_value("const", self._unique(name), tensor._value)
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
            if self.parent is None and not self._encloses(outer):
                raise _out_of_scope(outer)
            if isinstance(outer, Variable):
                vid = self._new_value("input", self._unique("capture"), outer._value)
            else:
                info = outer._graph.values[outer._vid] if isinstance(outer, SymbolicTensor) \
                    else None
                vid = self._new_value("input", self._unique("capture"),
                                      None if info is None else info.example,
                                      info.shape if info is not None else None,
                                      dtype=None if info is None else info.dtype)
            self._capture_ids[id(outer)] = vid
            self.captures.append((outer, vid))
        return vid

    def _encloses(self, outer: Any) -> bool:
        """Whether `outer` is a tensor of a graph this one is traced inside of."""
        graph = self.enclosing
        owner = getattr(outer, "_graph", None)
        while graph is not None and owner is not None:
            if graph is owner:
                return True
            graph = graph.parent if graph.parent is not None else graph.enclosing
        return False

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
                 base: Optional[str] = None, avals: Optional[list] = None) -> list:
        """Appends a node whose outputs have the given example values (None for abstract
        ones, described by `avals`); returns their vids."""
        name = self._unique(base or (op if isinstance(op, str) else
                                     _TF_OP_NAMES.get(op.name, op.name)))
        frame, backward = _caller()
        node = Node(op, inputs, attrs, [], name, frame_location(frame),
                    "backward" if backward else self.phase,
                    numerics.rule_owner(sys._getframe()) if backward else None)
        node.outputs = [
            self._new_value("op", name, example, producer=node, index=i) if avals is None
            else self._new_value("op", name, example, _static_shape(avals[i]), producer=node,
                                 index=i, dtype=avals[i].dtype)
            for i, example in enumerate(examples)]
        self.nodes.append(node)
        return node.outputs

    def bind(self, prim: Any, inputs: Any, attrs: dict) -> Any:
        """Traces one op (core.bind's hook): its outputs' static shapes and dtypes come from
        the primitive's shape rule; where every input has an example, the kernel runs on them
        (validating as eagerly) and gives the outputs' examples, kept for the outputs whose
        shape the rule knows fully."""
        if prim is core.READ_VARIABLE and isinstance(inputs[0], Variable):
            return self.read_variable(inputs[0])
        vids = [self.value_id(x) for x in inputs]
        infos = [self.values[v] for v in vids]
        examples = [info.example for info in infos]
        concrete = prim not in ABSTRACT_AT_TRACE and all(e is not None for e in examples)
        raw = None
        if concrete:
            try:
                raw = core.run_kernel(prim.impl, *examples, **attrs)
            except (OpError, *core.KERNEL_ERRORS):
                # A kernel's run-time error (an index out of range) is TensorFlow's error when
                # the graph runs the op, not while tracing: an op the graph prunes never
                # raises it. The outputs stay abstract until then.
                raw, concrete = None, False
            else:
                raw = list(raw) if prim.multiple_results else [raw]
        fixed = concrete and all(info.fixed for info in infos) and \
            not is_nondeterministic(prim)
        avals = [aval_of(r) for r in raw] if fixed else \
            self._output_avals(prim, infos, attrs)
        if raw is None:
            raw = [None] * len(avals)
        else:
            for r, a in zip(raw, avals):
                if a.is_fully_defined() and np.shape(r) != a.shape:
                    # The graph would hold a shape its kernel does not make: refuse loudly.
                    raise InternalError(f"{prim.name}: the shape rule gives {a}, the kernel "
                                        f"{np.shape(r)} [Op:{prim.name}]")
            raw = [r if a.is_fully_defined() else None for r, a in zip(raw, avals)]
        outs = self.add_node(prim, vids, attrs, raw, avals=avals)
        if fixed:
            for v in outs:
                self.values[v].fixed = True
        if prim.multiple_results:
            return tuple(self.symbolic(v) for v in outs)
        return self.symbolic(outs[0])

    def _output_avals(self, prim: Any, infos: list, attrs: dict) -> list:
        """The outputs' static shapes and dtypes, from the primitive's shape rule."""
        try:
            out = prim.shape_rule(*[info.aval for info in infos], **attrs)
        except ValueError as exc:
            raise ValueError(f"{exc} [Op:{prim.name}]") from None
        return list(out) if prim.multiple_results else [out]

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
        aval = ShapedArray(np.shape(variable._value), variable._value.dtype)
        (vid,) = self.add_node("ReadVariableOp", [self.var_handle(variable)], {}, [example],
                               base="ReadVariableOp", avals=[aval])
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
    def get_operations(self) -> list:
        """The graph's ops as TensorFlow's `FuncGraph.get_operations()` lists them: a
        Placeholder per input, Const per constant used (before its first use), the traced
        ops in execution order (after the graph passes) and an Identity per output."""
        key = (len(self.nodes), len(self.values), tuple(self.outputs))
        if self._operations is None or self._operations[0] != key:
            self._operations = (key, *_operations_view(self))
        return list(self._operations[1])

    def output_tensors(self) -> list:
        """The function's outputs as TensorFlow names them: the Identity ops' tensors."""
        self.get_operations()
        return list(self._operations[2])

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


# Primitives whose TensorFlow op is named by its Python wrapper's name scope rather than
# its type (`x + y` is the op 'add' of type AddV2), as TF 2.21 names them in a trace.
_TF_OP_NAMES = {"AddV2": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "truediv",
                "FloorDiv": "floordiv", "FloorMod": "mod", "Pow": "pow",
                "Transpose": "transpose", "ConcatV2": "concat", "Pack": "stack",
                "StridedSlice": "strided_slice", "Range": "range", "OneHot": "one_hot"}


def _unique_name(counts: dict, name: str) -> str:
    """TensorFlow's `Graph.unique_name`: case-insensitive ('add' then 'Add' gives 'Add_1'),
    skipping names already taken ('a_1' made by hand)."""
    key = name.lower()
    i = counts.get(key, 0)
    counts[key] = i + 1
    if i == 0:
        return name
    while f"{key}_{i}" in counts:
        i += 1
    counts[f"{key}_{i}"] = 1
    return f"{name}_{i}"


class Operation:
    """A graph op as `tf.Operation` shows it: `name`, `type`, `inputs`, `outputs`."""

    __slots__ = ("name", "type", "inputs", "outputs", "control_inputs", "graph")

    def __init__(self, name: str, op_type: str, inputs: tuple, outputs: list,
                 graph: Any = None, control_inputs: Optional[list] = None) -> None:
        self.name, self.type, self.graph = name, op_type, graph
        self.inputs, self.outputs = tuple(inputs), list(outputs)
        self.control_inputs = list(control_inputs or [])

    def values(self) -> tuple:
        """The op's output tensors."""
        return tuple(self.outputs)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"


class _ResourceTensor:
    """A variable's handle as an op input in the operations view (dtype resource)."""

    __slots__ = ("name", "op")

    def __init__(self, name: str, op: Optional[Operation] = None) -> None:
        self.name, self.op = name, op

    shape = property(lambda self: TensorShape([]))
    dtype = property(lambda self: "resource")

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape=() dtype=resource>"


class _NamedTensor(SymbolicTensor):
    """A graph value under another name: an output as its Identity op's tensor."""

    __slots__ = ("_name", "_op")

    @property
    def name(self) -> str:
        return self._name

    @property
    def op(self) -> Operation:
        return self._op


def _operations_view(graph: "Graph") -> list:
    ops: list = []
    tensors: dict = {}   # vid -> the tensor the view shows for it

    def emit(name: str, op_type: str, in_vids: list, out_vids: list) -> None:
        op = Operation(name, op_type, [tensors[v] for v in in_vids], [], graph)
        for v in out_vids:
            info = graph.values[v]
            t = _ResourceTensor(info.name, op) if info.kind == "var" else graph.symbolic(v)
            tensors[v] = t
            op.outputs.append(t)
        ops.append(op)

    def emit_source(v: int) -> None:
        info = graph.values[v]
        emit(info.name.rpartition(":")[0], "Const" if info.kind == "const" else "Placeholder",
             [], [v])

    for v in graph.inputs:
        emit_source(v)
    for node in graph.nodes:
        for v in node.inputs:
            if v not in tensors:
                emit_source(v)
        emit(node.name, node.op_name, node.inputs, node.outputs)
    counts = dict(graph._names)
    outputs = []
    for v in graph.outputs:
        if v not in tensors:
            emit_source(v)
        op = Operation(_unique_name(counts, "Identity"), "Identity", [tensors[v]], [], graph)
        out = object.__new__(_NamedTensor)
        out._value, out._graph, out._vid = graph.values[v].stand_in(), graph, v
        out._name, out._op = f"{op.name}:0", op
        op.outputs.append(out)
        ops.append(op)
        outputs.append(out)
    return ops, outputs


def _static_shape(aval: ShapedArray) -> TensorShape:
    return TensorShape(None if aval.shape is None else list(aval.shape))


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


__all__ = ["Graph", "Node", "ValueInfo", "SymbolicTensor", "Operation", "tracing", "user_frame",
           "OperatorNotAllowedInGraphError", "has_side_effect", "is_nondeterministic"]
