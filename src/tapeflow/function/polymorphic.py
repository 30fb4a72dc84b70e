"""`tf.function`: trace a Python function once per input signature, run the compiled graph.

A `Function` keeps one `ConcreteFunction` per signature: tensors are keyed by shape and dtype,
Python scalars by value and other objects (models, optimizers, losses) by identity. Calling it
looks the signature up, traces on a miss (Python side effects run then, and only then), and
runs the concrete function: compiled straight-line NumPy when nothing watches, or replayed op
by op through `bind` when a tape, accumulator or enclosing trace must see the ops.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import io
import linecache
import logging
import threading
import traceback
import weakref
from typing import Any, Callable, Optional, Sequence

import numpy as np

import tapeflow.autograph as autograph
from tapeflow.autodiff.core import READ_VARIABLE
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.convert import mismatch_error
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.context import context
from tapeflow.framework.errors import OpError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.ragged_tensor import (PartitionNeeded, RaggedTensor, RaggedTensorSpec,
                                              _Partition,
                                              is_symbolic)
from tapeflow.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_shape import TensorShape, as_shape
from tapeflow.framework.variables import Variable, update_lock
from tapeflow.graph import passes
from tapeflow.graph.compiler import compile_graph, replay
from tapeflow.graph.ir import ABSTRACT_AT_TRACE, Graph, SymbolicTensor, is_internal, tracing

_PY_SCALARS = (bool, int, float, complex, str, bytes, type(None))

logger = logging.getLogger("tapeflow")


class TensorSpec:
    """Describes a tensor argument: `tf.TensorSpec(shape, dtype, name)`; None dims match any."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: Any, dtype: Any = _dtypes.float32,
                 name: Optional[str] = None) -> None:
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        """The spec of `tensor`'s shape and dtype, with the given name."""
        return cls(tensor.shape, tensor.dtype, name)

    shape = property(lambda self: self._shape, doc="The `TensorShape` (None dims match any size).")
    dtype = property(lambda self: self._dtype, doc="The `DType` tensors must have.")
    name = property(lambda self: self._name, doc="The spec's name (used for arguments), or None.")

    def is_compatible_with(self, other: Any) -> bool:
        """True when `other` (a tensor or spec) has this dtype and a compatible shape."""
        return other.dtype == self._dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TensorSpec) and self._dtype == other._dtype and \
            self._shape.as_list() == other._shape.as_list() if self._shape.rank is not None \
            else isinstance(other, TensorSpec) and other._shape.rank is None

    def __hash__(self) -> int:
        return hash((self._shape.rank, self._dtype.name))

    def __repr__(self) -> str:
        name = "None" if self._name is None else repr(self._name)
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={name})"


# -- signatures ---------------------------------------------------------------------------------

class _Identity:
    """A trace-key part that compares by object identity without keeping the object alive.

    A bare id() is not enough: once the object dies, a new one can get the same id and
    would be served the old object's trace (its captured variables)."""

    __slots__ = ("_id", "_ref")

    def __init__(self, obj: Any) -> None:
        self._id = id(obj)
        try:
            self._ref = weakref.ref(obj)
        except TypeError:  # not weakly referenceable: hold it (its id then stays unique)
            self._ref = lambda obj=obj: obj

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, _Identity) or other._id != self._id:
            return False
        mine = self._ref()
        return mine is not None and mine is other._ref()

    def __hash__(self) -> int:
        return self._id


# Composite values (SparseTensor, RaggedTensor) pass in and out of a trace as their component
# tensors and are traced by their spec: `_type_spec`, `_to_components()`,
# `spec._component_specs()` and `spec._from_components(tensors)`.
_COMPOSITES = (SparseTensor, RaggedTensor)
_COMPOSITE_SPECS = (SparseTensorSpec, RaggedTensorSpec)


def _leaf_key(leaf: Any, aliases: dict) -> Any:
    if isinstance(leaf, _COMPOSITES + _COMPOSITE_SPECS):
        spec = leaf if isinstance(leaf, _COMPOSITE_SPECS) else leaf._type_spec
        return ("C", type(spec).__name__, spec._key())
    if isinstance(leaf, Variable):
        # As TensorFlow: a variable argument is traced by its shape, dtype, trainability and
        # which other arguments are the same variable, not by identity; the concrete function
        # runs on the variables of each call (ConcreteFunction._bound_to).
        alias = aliases.setdefault(id(leaf), len(aliases))
        return ("V", tuple(leaf.shape.as_list()) if leaf.shape.rank is not None else None,
                leaf.dtype.name, leaf.trainable, alias)
    if isinstance(leaf, (TensorLike, TensorSpec)):
        return ("T", tuple(leaf.shape.as_list()) if leaf.shape.rank is not None else None,
                leaf.dtype.name)
    if isinstance(leaf, _PY_SCALARS):
        # By value alone, as TensorFlow's literal trace type: 1, 1.0 and True are equal in
        # Python, so they share a trace (the one traced first: f(1.0) after f(1) returns int32).
        return ("P", leaf)
    try:
        hash(leaf)
        if _value_hashable(leaf):
            return ("H", type(leaf).__name__, leaf)
    except TypeError:
        pass
    return ("O", _Identity(leaf))


def _value_hashable(leaf: Any) -> bool:
    # Objects with their own __eq__ (enums, tuples of scalars) compare by value; the rest
    # (models, optimizers, losses) by identity.
    return type(leaf).__eq__ is not object.__eq__ and not hasattr(leaf, "__dict__")


def _structure_key(structure: Any, aliases: Optional[dict] = None) -> Any:
    aliases = {} if aliases is None else aliases   # id(variable) -> its first place
    if isinstance(structure, dict):
        return ("dict", tuple((k, _structure_key(structure[k], aliases)) for k in sorted(
            structure, key=repr)))
    if isinstance(structure, (list, tuple)):
        return (type(structure).__name__, tuple(_structure_key(x, aliases) for x in structure))
    return _leaf_key(structure, aliases)


_FAST_SCALARS = (bool, int, float, str, type(None))


def _fast_key(args: tuple) -> Optional[tuple]:
    """A cheap trace key for positional arguments that are tensors (by shape and dtype),
    Python scalars (by value) or other objects (by identity); None when an argument
    needs the full rules (containers, arrays, variables, tensor subclasses)."""
    parts = []
    for a in args:
        kind = type(a)
        if kind is Tensor:
            parts.append((a._value.shape, a._value.dtype))
        elif kind in _FAST_SCALARS:
            parts.append(("P", a))      # by value alone, as _leaf_key
        elif isinstance(a, (list, tuple, dict, np.ndarray, TensorLike, TensorSpec) +
                        _COMPOSITES):
            return None
        else:
            parts.append(_Identity(a))
    return tuple(parts)


def _normalize_leaf(leaf: Any) -> Any:
    # A caller's array is copied, as TF converts it: later writes into it change nothing.
    return wrap(np.array(leaf, copy=True)) if isinstance(leaf, np.ndarray) else leaf


def _is_tensor_key(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and key[0] == "T"


def _is_ragged_key(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and key[:2] == ("C", "RaggedTensorSpec")


def _relaxed_ragged(old: tuple, new: tuple) -> Any:
    """Two RaggedTensorSpec keys relaxed as TF relaxes them (None where dims differ), or None
    where they differ in dtype, ragged rank, splits dtype or a constant partition."""
    (dims_a, *rest_a), (dims_b, *rest_b) = old[2], new[2]
    if rest_a != rest_b:
        return None
    if dims_a is None or dims_b is None or len(dims_a) != len(dims_b):
        return None
    dims = tuple(a if a == b else None for a, b in zip(dims_a, dims_b))
    return ("C", "RaggedTensorSpec", (dims, *rest_a))


def _is_container_key(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 2 and key[0] in ("tuple", "list", "dict") \
        and isinstance(key[1], tuple)


def _relaxed(old: Any, new: Any) -> Any:
    """The most specific key covering both signature keys (None dims where shapes differ),
    or None when they differ in anything but tensor dimensions."""
    if _is_tensor_key(old) and _is_tensor_key(new):
        if old[2] != new[2]:
            return None
        if old[1] is None or new[1] is None or len(old[1]) != len(new[1]):
            return ("T", None, old[2])   # ranks differ: unknown rank, as TensorFlow relaxes
        return ("T", tuple(a if a == b else None for a, b in zip(old[1], new[1])), old[2])
    if _is_ragged_key(old) and _is_ragged_key(new):
        return _relaxed_ragged(old, new)
    if _is_container_key(old) and _is_container_key(new):
        if old[0] != new[0] or len(old[1]) != len(new[1]):
            return None
        merged = []
        for a, b in zip(old[1], new[1]):
            if old[0] == "dict":
                if a[0] != b[0]:
                    return None
                m = _relaxed(a[1], b[1])
                m = None if m is None else (a[0], m)
            else:
                m = _relaxed(a, b)
            if m is None:
                return None
            merged.append(m)
        return (old[0], tuple(merged))
    return old if old == new else None


def _key_matches(pattern: Any, key: Any) -> bool:
    """True when a signature key fits a relaxed pattern (None dims match any size)."""
    merged = _relaxed(pattern, key)
    return merged is not None and merged == pattern


# -- errors in user code ------------------------------------------------------------------------

def _in_user_code(exc: BaseException) -> BaseException:
    """A trace-time error with TensorFlow's "in user code" pointer to the user's lines, as
    TensorFlow adds it to errors raised through AutoGraph-converted code: each user frame,
    marked `*` where AutoGraph converted it and `**` where it ran as written."""
    if getattr(exc, "_tapeflow_in_user_code", False):
        return exc
    from tapeflow.autograph.conversion import (converted_lambda_source, is_converted_code,
                                               user_function_name)
    frames: list = []
    for frame, line in traceback.walk_tb(exc.__traceback__):
        code = frame.f_code
        if is_internal(code.co_filename):
            continue
        # A function AutoGraph generated (a branch, a loop body) shows as the user's function
        # it was made from; a frame that repeats the line before it adds nothing.
        text = converted_lambda_source(code) or linecache.getline(code.co_filename,
                                                                   line).strip()
        shown = (code.co_filename, line, user_function_name(code),
                 "*" if is_converted_code(code) else "**", text)
        if not frames or frames[-1] != shown:
            frames.append(shown)
    if not any(shown[3] == "*" for shown in frames):
        return exc
    lines = ["in user code:", ""]
    for filename, line, name, mark, text in frames:
        lines.append(f'    File "{filename}", line {line}, in {name}  {mark}')
        lines.append(f"        {text}")
    original = exc.message if isinstance(exc, OpError) else str(exc)
    first, *rest = f"{type(exc).__name__}: {original}".split("\n")
    lines += ["", f"    {first}", *(f"    {line}" if line else "" for line in rest), ""]
    text = "\n".join(lines)
    try:
        new = type(exc)(None, None, text) if isinstance(exc, OpError) else type(exc)(text)
    except Exception:  # an exception class we cannot rebuild: keep it as it is
        return exc
    new._tapeflow_in_user_code = True
    return new


# -- concrete functions -------------------------------------------------------------------------

class ConcreteFunction:
    """One traced signature of a Function: its graph and the compiled program."""

    def __init__(self, function: "Function", graph: Graph, output_structure: Any,
                 params: list, pass_stats: dict) -> None:
        self._function = function
        self.graph = graph
        self._output_structure = output_structure    # leaves: vid ints or Python values
        self._params = params          # _Param per argument, in TensorFlow's order
        self._call_signature = _signature_of(self)
        self.pass_stats = pass_stats
        self._arg_variables: list = []  # the variable arguments it was traced with, flattened
        self._rebound: dict = {}       # other variable arguments -> ConcreteFunction
        self._bind_program()
        self._release_examples()

    def _bind_program(self) -> None:
        self._program = compile_graph(self.graph)
        # A run that assigns variables holds their locks: its reads and writes of them are one
        # atomic update, as TensorFlow's assign ops are under concurrent calls.
        writes = _assigned_variables(self.graph)
        self._guard = update_lock(writes) if writes else None
        # A run that calls no Python (no py_function, nothing stateful) starts no thread:
        # with no other thread alive, nothing can update its variables meanwhile.
        self._alone_unlocked = bool(writes) and _calls_no_python(self.graph)

    def _release_examples(self) -> None:
        # Intermediates of the trace are not needed any more; keep only shape and dtype. The
        # variables' values after the trace's assignments go too (an optimizer's new state).
        self.graph._var_examples.clear()
        for info in self.graph.values:
            if info.kind in ("input", "op") and isinstance(info.example, np.ndarray) \
                    and info.example.size > 1:
                info.example = np.broadcast_to(np.zeros((), info.dtype), info.example.shape)

    # -- introspection ----------------------------------------------------------------------
    @property
    def structured_input_signature(self) -> tuple:
        """(positional specs, keyword-only specs): TensorSpecs named by argument path
        ('x', 'a_0', 'b_k'), VariableSpecs, and the Python values traced with, as TF."""
        shown = self._shown_params()
        args = tuple(p.spec for p in shown if p.kind is not _KEYWORD_ONLY)
        return args, {p.name: p.spec for p in shown if p.kind is _KEYWORD_ONLY}

    def _shown_params(self) -> list:
        """The arguments in TF's order: positional ones, then keyword-only ones by name."""
        return [p for p in self._params if p.kind is not _KEYWORD_ONLY] + sorted(
            (p for p in self._params if p.kind is _KEYWORD_ONLY), key=lambda p: p.name)

    @property
    def structured_outputs(self) -> Any:
        """The Python function's outputs, tensors as the graph's Identity outputs."""
        it = iter(self.graph.output_tensors())
        return nest.map_structure(lambda leaf: _unpack_leaf(leaf, lambda o: next(it)),
                                  self._output_structure)

    @property
    def inputs(self) -> list:
        return [self.graph.symbolic(v) for v in self.graph.inputs]

    @property
    def outputs(self) -> list:
        return self.graph.output_tensors()

    @property
    def captured_inputs(self) -> list:
        """The variables the graph uses that are not arguments (TF's captured handles)."""
        return [v for v in self.graph.variables()
                if not any(v is a for a in self._arg_variables)]

    @property
    def variables(self) -> tuple:
        return tuple(self.graph.variables())

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.graph.variables() if v.trainable)

    @property
    def name(self) -> str:
        return self.graph.name

    def lowered_source(self) -> str:
        """The generated straight-line Python program that runs this function."""
        return self._program.lowered_text()

    def _output_type(self) -> str:
        g = self.graph

        def spec(leaf: Any) -> Any:
            if isinstance(leaf, _OutSlices):   # TF's IndexedSlicesSpec text
                values = g.values[leaf.parts[0].vid]
                return _Text(f"IndexedSlicesSpec(TensorShape(None), "
                             f"{_dtypes.from_numpy(values.dtype)!r})")
            if isinstance(leaf, _OutComposite):
                return leaf.spec
            if isinstance(leaf, _Out):
                info = g.values[leaf.vid]
                return TensorSpec(info.shape, _dtypes.from_numpy(info.dtype))
            return leaf
        return _type_text(nest.map_structure(spec, self._output_structure))

    @property
    def inference_fn(self) -> Callable:
        """The traced graph as one callable on the flat tensor inputs (TF's AtomicFunction)."""
        return lambda *tensors: self._call_flat(list(tensors))

    @property
    def function_type(self) -> Any:
        """The function's type as TF prints it: `(a: TensorSpec(...)) -> TensorSpec(...)`."""
        return self._call_signature

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """TF's text of the signature: input parameters, output type and captures."""
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind.name}): {_type_text(p.shown)}"
                  for p in self._shown_params()]
        lines += ["Output Type:", f"  {self._output_type()}", "Captures:"]
        captures = self.captured_inputs
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"
                  for v in captures] or ["  None"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self._call_signature} at 0x{id(self):X}>"

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            leaves = self._bind_structured(args, kwargs)
        except TypeError as exc:
            leaves = self._bind_flat(args, kwargs, exc)
        # Variable arguments are not graph inputs: the program runs on this call's ones.
        variables = [x for x in leaves if isinstance(x, Variable)]
        leaves = [x for x in leaves if not isinstance(x, Variable)]
        tensors = []
        for i, (x, vid) in enumerate(zip(leaves, self.graph.inputs)):
            t = _as_tensor(x) if isinstance(x, TensorLike) else \
                convert_to_tensor(x, dtype_hint=_dtypes.from_numpy(self.graph.values[vid].dtype))
            if t._value.dtype != self.graph.values[vid].dtype:
                raise mismatch_error(f"__inference_{self.graph.name}", i,
                                     _dtypes.from_numpy(self.graph.values[vid].dtype), t.dtype)
            expected = self.graph.values[vid].shape
            if not expected.is_compatible_with(t._value.shape):
                # TF would run its graph anyway; this one may hold the traced sizes in its
                # attributes, so a call outside them is refused rather than guessed at.
                raise TypeError(f"{self.graph.name}: argument {i} has shape "
                                f"{TensorShape(t._value.shape)}, but this ConcreteFunction was "
                                f"traced for {expected}; trace another with "
                                f"get_concrete_function or call the tf.function itself.")
            tensors.append(t)
        return self._call_flat(tensors + [_as_tensor(x) for x in leaves[len(tensors):]],
                               variables)

    def _bind_structured(self, args: tuple, kwargs: dict) -> list:
        """The call's tensor arguments, bound to the traced signature as TF binds them; a
        TypeError with the reason where they do not fit."""
        arguments = self._call_signature.bind(*args, **kwargs).arguments
        leaves: list = []
        for p in self._params:
            value = arguments[p.name]
            for spec_leaf, leaf in _literal_pairs(p.spec, value):
                if not (type(leaf) is type(spec_leaf) and leaf == spec_leaf):
                    raise TypeError(f"Can not cast {leaf!r} to {_type_text(spec_leaf)}")
            # As TensorFlow: an argument where the signature has a TensorSpec may be any
            # value convertible to a tensor (a list of numbers, a NumPy array).
            _tensor_args(value, p.spec, leaves)
        return leaves

    def _bind_flat(self, args: tuple, kwargs: dict, exc: TypeError) -> list:
        """TF's fallback: the graph's tensor inputs, by position or placeholder name."""
        keywords = [self.graph.values[v].name.rpartition(":")[0] for v in self.graph.inputs]
        summary = f"{self.graph.name}({', '.join(keywords)})"
        received = f"Received args: {args} and kwargs: {kwargs}"
        args, kwargs = list(args), dict(kwargs)
        if len(args) > len(keywords):
            reason = f"{summary} takes {len(keywords)} positional arguments, got {len(args)}."
        else:
            reason = None
            for keyword in keywords[len(args):]:
                if keyword not in kwargs:
                    given = set(keywords[:len(args)]) | set(kwargs)
                    missing = sorted(set(keywords) - given)
                    reason = f"{summary} missing required arguments: {', '.join(missing)}."
                    break
                args.append(kwargs.pop(keyword))
            if reason is None and kwargs:
                reason = (f"{summary} got unexpected keyword arguments: "
                          f"{', '.join(sorted(kwargs))}.")
            if reason is None and all(isinstance(a, TensorLike) for a in args):
                return args
            reason = reason or f"{summary} takes tensors only."
        raise TypeError(f"Binding inputs to tf.function failed due to `{exc}`. {received} "
                        f"for signature: {self._call_signature}.\nFallback to flat "
                        f"signature also failed due to: {reason}") from None

    def _call_flat(self, tensors: list, variables: Optional[list] = None) -> Any:
        if len(tensors) != len(self.graph.inputs):
            raise TypeError(f"{self.graph.name} takes {len(self.graph.inputs)} tensor "
                            f"arguments, got {len(tensors)}.")
        concrete = self._bound_to(variables, tensors) if variables else self
        if concrete.graph.captures:   # tensors of an enclosing trace this one closed over
            tensors = list(tensors) + [outer for outer, _ in concrete.graph.captures]
        if context.active:
            # A tape, accumulator or enclosing trace must see each op: run them through bind.
            if concrete._guard is None:
                flat = replay(concrete.graph, list(tensors))
            else:
                with concrete._guard:
                    flat = replay(concrete.graph, list(tensors))
        else:
            arrays = [t._value for t in tensors]
            if concrete._guard is None or \
                    (concrete._alone_unlocked and threading.active_count() == 1):
                flat = [wrap(a) for a in concrete._program(arrays)]
            else:
                with concrete._guard:
                    flat = [wrap(a) for a in concrete._program(arrays)]
        return self._pack(flat)

    def _bound_to(self, variables: list, tensors: list) -> "ConcreteFunction":
        """This function running on `variables` (this call's variable arguments, traced with
        others of the same spec): the same graph over them, compiled once per set."""
        traced = self._arg_variables
        if len(variables) == len(traced) and all(a is b for a, b in zip(variables, traced)):
            return self
        key = tuple(_Identity(v) for v in variables)
        bound = self._rebound.get(key)
        if bound is None:
            if len(self._rebound) >= _REBOUND_LIMIT:
                self._rebound.pop(next(iter(self._rebound)))  # the oldest
            bound = self._rebound[key] = self._rebind(variables, tensors)
        return bound

    def _rebind(self, variables: list, tensors: list) -> "ConcreteFunction":
        mapping = {id(old): new for old, new in zip(self._arg_variables, variables)}
        names, values, specs = self._trace_args
        values = nest.map_structure(lambda leaf: mapping.get(id(leaf), leaf) if isinstance(
            leaf, Variable) else leaf, values)
        if _nested_variable_ids(self.graph) & mapping.keys():
            # A branch or loop body assigns one: its own compiled program names the variable,
            # so trace again over these (silently: the user saw this signature traced).
            stub = copy.copy(self)
            stub._trace_args = (names, values, specs)
            return self._function._silent_retrace(stub, tensors)
        bound = copy.copy(self)
        bound.graph = _rebound_graph(self.graph, mapping)
        bound._bind_program()
        bound._trace_args = (names, values, specs)
        bound._arg_variables = list(variables)
        bound._rebound = {}
        return bound

    def _pack(self, flat: list) -> Any:
        structure = self._output_structure
        if type(structure) is _Out:  # one tensor returned: the common case
            return flat[0]
        it = iter(flat)
        return nest.map_structure(lambda leaf: _unpack_leaf(leaf, lambda o: next(it)),
                                  structure)


_REBOUND_LIMIT = 16   # variable sets kept compiled per concrete function


def _subgraphs(graph: Graph) -> list:
    """The graphs of the branches and loop bodies that `graph`'s ops run."""
    found = []
    for node in graph.nodes:
        for value in node.attrs.values():
            for item in value if isinstance(value, tuple) else (value,):
                sub = getattr(item, "graph", None)
                if isinstance(sub, Graph):
                    found.append(sub)
    return found


def _calls_no_python(graph: Graph) -> bool:
    """Whether a run of `graph` (its branches and loop bodies included) runs NumPy kernels
    only: no op that is stateful or has side effects (py_function, prints, random draws)
    but variable reads, assignments and optimizer updates."""
    for node in graph.nodes:
        op = node.op
        if not isinstance(op, str) and (op.stateful or op.side_effect or "PyFunc" in op.name) \
                and op not in ABSTRACT_AT_TRACE and op is not READ_VARIABLE:
            return False
    return all(_calls_no_python(sub) for sub in _subgraphs(graph))


def _assigned_variables(graph: Graph) -> list:
    """The variables a run of `graph` assigns, its branches and loop bodies included."""
    found = [graph.values[node.inputs[0]].example for node in graph.nodes
             if node.op_name == "AssignVariableOp"]
    for sub in _subgraphs(graph):
        found.extend(_assigned_variables(sub))
    return found


def _nested_variable_ids(graph: Graph) -> set:
    """ids of the variables named by the branches and loop bodies `graph` runs."""
    found = set()
    for sub in _subgraphs(graph):
        found.update(id(info.example) for info in sub.values if info.kind == "var")
        found |= _nested_variable_ids(sub)
    return found


def _rebound_graph(graph: Graph, mapping: dict) -> Graph:
    """A shallow copy of `graph` whose variable handles name the variables in `mapping`
    (id of the traced variable -> the variable to use instead)."""
    bound = copy.copy(graph)
    bound.values = list(graph.values)
    for info in graph.values:
        if info.kind == "var" and id(info.example) in mapping:
            new = copy.copy(info)
            new.example = mapping[id(info.example)]
            bound.values[info.vid] = new
    return bound


def _tensor_args(arg: Any, spec: Any, out: list) -> None:
    """Appends the parts of `arg` that stand where `spec` (an input signature) has a
    TensorSpec, in flattening order."""
    if isinstance(spec, TensorSpec) or isinstance(spec, VariableSpec) and \
            isinstance(arg, Variable):
        out.append(arg)
    elif isinstance(spec, _COMPOSITE_SPECS):
        if not spec.is_compatible_with(arg):
            raise TypeError(f"Can not cast {arg!r} to {spec!r}")
        out.extend(arg._to_components())
    elif isinstance(spec, dict) and isinstance(arg, dict):
        for key in sorted(spec, key=repr):
            _tensor_args(arg[key], spec[key], out)
    elif isinstance(spec, (list, tuple)) and isinstance(arg, (list, tuple)):
        for a, s in zip(arg, spec):
            _tensor_args(a, s, out)


# -- signatures as TensorFlow prints them -------------------------------------------------------

_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


class VariableSpec:
    """A variable argument's place in a traced signature (TF's `VariableSpec`)."""

    __slots__ = ("shape", "dtype", "trainable", "alias_id")

    def __init__(self, variable: Variable, alias_id: int) -> None:
        self.shape, self.dtype = variable.shape, variable.dtype
        self.trainable, self.alias_id = variable.trainable, alias_id

    def __repr__(self) -> str:
        return (f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, "
                f"trainable={self.trainable}, alias_id={self.alias_id})")


class _Param:
    """One argument of a traced signature: its name and kind as TF shows them, the spec
    structure (TensorSpecs named by path) and the one printed (user-given names only)."""

    __slots__ = ("name", "kind", "spec", "shown")

    def __init__(self, name: str, kind: Any, spec: Any, shown: Any) -> None:
        self.name, self.kind, self.spec, self.shown = name, kind, spec, shown


class _Text:
    """An annotation that prints as the given text (inspect shows annotations by repr)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _type_text(value: Any) -> str:
    """TF's text of a traced value's type: TensorSpec(...), Literal[3], List[...], ..."""
    if isinstance(value, (TensorSpec, VariableSpec, _Text) + _COMPOSITE_SPECS):
        return repr(value)
    if isinstance(value, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_type_text(v)}]" for k, v in value.items()) + "]"
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        kind = "List" if isinstance(value, list) else "Tuple"
        return f"{kind}[" + ", ".join(_type_text(v) for v in value) + "]"
    return f"Literal[{value!r}]"


def _signature_of(concrete: "ConcreteFunction") -> inspect.Signature:
    """The signature calls are bound to; its str is TF's `(x: TensorSpec(...)) -> ...`."""
    params = [inspect.Parameter(p.name, p.kind, annotation=_Text(_type_text(p.shown)))
              for p in concrete._shown_params()]
    return inspect.Signature(params, return_annotation=_Text(concrete._output_type()))


def _literal_pairs(spec: Any, value: Any) -> list:
    """(traced Python value, this call's value) for the Python values of a signature."""
    if isinstance(spec, (TensorSpec, VariableSpec) + _COMPOSITE_SPECS):
        return []
    if isinstance(spec, dict) and isinstance(value, dict) and spec.keys() == value.keys():
        return [pair for k in spec for pair in _literal_pairs(spec[k], value[k])]
    if isinstance(spec, (list, tuple)) and type(value) is type(spec) and \
            len(value) == len(spec):
        return [pair for s, v in zip(spec, value) for pair in _literal_pairs(s, v)]
    return [(spec, value)]


def _leaf_paths(value: Any, prefix: str) -> list:
    """TF's names for the leaves of an argument, in flattening order: 'x', 'a_0', 'b_k'."""
    if not nest.is_nested(value):
        return [prefix]
    items = [(k, value[k]) for k in sorted(value, key=nest._sort_key)] \
        if isinstance(value, dict) else list(enumerate(value))
    return [path for k, v in items for path in _leaf_paths(v, f"{prefix}_{k}")]


class _Out:
    """A tensor output's place in the output structure."""

    __slots__ = ("vid",)

    def __init__(self, vid: int) -> None:
        self.vid = vid


class _OutSlices:
    """An IndexedSlices output: the places of its values, indices and dense_shape."""

    __slots__ = ("parts",)

    def __init__(self, *parts: Any) -> None:
        self.parts = parts


class _PartitionedTraces:
    """A Function's traces that take their RaggedTensor arguments' row partitions as
    constants: `needed` holds the trace keys whose partition-traced trace failed; `traces`
    maps (key, partitions) to the trace for those partitions."""

    __slots__ = ("needed", "traces")

    def __init__(self) -> None:
        self.needed: set = set()
        self.traces: dict = {}

    def get(self, function: "Function", key: tuple, names: list, values: list,
            specs: Optional[list]) -> "ConcreteFunction":
        concrete = self.traces.get(key)
        if concrete is None:
            concrete = self.traces[key] = function._trace(names, values, specs,
                                                          partitioned=True)
        return concrete


class _OutComposite:
    """A composite output (SparseTensor): its spec and the places of its components."""

    __slots__ = ("spec", "parts")

    def __init__(self, spec: Any, *parts: _Out) -> None:
        self.spec, self.parts = spec, parts


# RaggedTensor arguments are traced as TF traces them: their row splits are placeholders like
# their flat values, known only when the graph runs, so one trace serves every partition. A
# trace where a NumPy path still needs a partition raises PartitionNeeded (no tapeflow op
# does now); it is then traced per partition, the partition a constant of the graph and part
# of the trace's key (`_PartitionedTraces`).

def _ragged_partitions(values: list) -> Optional[tuple]:
    """The row partitions of the RaggedTensors among `values` (a partitioned trace's key
    part); None where one is itself traced (a call inside another trace)."""
    keys = []
    for leaf in nest.flatten(values):
        if isinstance(leaf, RaggedTensor):
            if is_symbolic(leaf):
                return None
            keys.append(_Partition(leaf).key)
    return tuple(keys)


def _composite_placeholders(graph: Graph, leaf: Any, spec: Any, name: str,
                            out: list, partitioned: bool = False) -> Any:
    """Appends to `out` the composite argument `leaf` (a value or a spec) rebuilt from one
    placeholder per component (named `name`, `name_1`, ... as TF); returns its spec (the
    signature's, where one was given)."""
    spec = spec if spec is not None else (
        leaf if isinstance(leaf, _COMPOSITE_SPECS) else leaf._type_spec)
    if isinstance(spec, RaggedTensorSpec):
        if partitioned and isinstance(leaf, RaggedTensor):
            # The partition is a constant of this trace; the components keep their places.
            _rebuild_from_placeholders(graph, leaf._partitioned_spec(),
                                       leaf._to_components(), name, out)
        else:   # every component known only when the graph runs
            _rebuild_from_placeholders(graph, spec, [None] * (spec.ragged_rank + 1), name,
                                       out)
        return spec
    examples = [None] * 3 if isinstance(leaf, _COMPOSITE_SPECS) else leaf._to_components()
    _rebuild_from_placeholders(graph, spec, examples, name, out)
    return spec


def _rebuild_from_placeholders(graph: Graph, spec: Any, examples: list, name: str,
                               out: list) -> None:
    parts = []
    for i, ((shape, dtype), example) in enumerate(zip(spec._component_specs(), examples)):
        part_name = name if i == 0 else f"{name}_{i}"
        if example is None:
            parts.append(graph.placeholder(None, part_name, as_shape(shape), dtype=dtype._np))
        else:
            parts.append(_placeholder_for(graph, example, TensorSpec(shape, dtype), part_name))
    out.append(spec._from_components(parts))


def _as_tensor(x: Any) -> Tensor:
    if isinstance(x, Variable):
        return x.value()
    return x


# -- Function -------------------------------------------------------------------------------------

class Function:
    """A callable that traces `python_function` into graphs, as `tf.function` returns."""

    def __init__(self, python_function: Callable, input_signature: Optional[Sequence] = None,
                 reduce_retracing: bool = False, name: Optional[str] = None,
                 jit_compile: Optional[bool] = None, autograph: bool = True) -> None:
        self._python_function = python_function
        self._autograph = autograph
        self._traced_function: Optional[Callable] = None   # what tracing calls (converted)
        self._input_signature = None if input_signature is None else tuple(input_signature)
        for spec in nest.flatten(list(self._input_signature or ())):
            if not isinstance(spec, (TensorSpec,) + _COMPOSITE_SPECS):
                raise TypeError(f"input_signature must be a possibly nested sequence of "
                                f"TensorSpec objects, got invalid args {spec!r} of type "
                                f"{type(spec).__name__}.")
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._name = name or getattr(python_function, "__name__", "function")
        self._signature = inspect.signature(python_function)
        self._cache: dict = {}         # exact key -> ConcreteFunction
        self._fast: dict = {}          # _fast_key of plain positional calls -> ConcreteFunction
        self._relaxed: list = []       # (pattern key, ConcreteFunction) with None dims
        self._partitioned = _PartitionedTraces()
        self._tracing_count = 0
        self._created_variables = False
        self._bound: Any = weakref.WeakKeyDictionary()
        self._detector = _detector_for(python_function)
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable:
        return self._python_function

    @property
    def input_signature(self) -> Optional[tuple]:
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        # A decorated method: one Function (and trace cache) per instance, as TensorFlow.
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            self._bound = {}
            bound = None
        if bound is None:
            bound = Function(functools.partial(self._python_function, instance),
                             self._input_signature, self._reduce_retracing, self._name,
                             self._jit_compile, self._autograph)
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _RUN_EAGERLY[0]:  # tf.config.run_functions_eagerly(True): the Python function
            return self._python_function(*args, **kwargs)
        # Fast dispatch for the common call (positional tensors, numbers and objects): a
        # training step is called thousands of times with the same kinds of arguments.
        fast_key = None
        if not kwargs and self._input_signature is None and not self._reduce_retracing:
            fast_key = _fast_key(args)
            concrete = self._fast.get(fast_key) if fast_key is not None else None
            if concrete is not None:
                self._detector.called_without_tracing()
                return concrete._call_flat([a for a in args if type(a) is Tensor])
        count = self._tracing_count
        concrete, structure = self._concrete_for(args, kwargs)
        if self._tracing_count == count:
            self._detector.called_without_tracing()
        elif context.graph is None:
            # As TF, only calls made eagerly count (a call inside another trace, as in a
            # recursive function, traces as part of it).
            self._detector.called_with_tracing(self._python_function)
        if fast_key is not None:
            self._fast[fast_key] = concrete
        flat = [part for x in nest.flatten(structure) for part in (
            x._to_components() if isinstance(x, _COMPOSITES) else (x,))]
        tensors = [_as_tensor(x) for x in flat
                   if isinstance(x, TensorLike) and not isinstance(x, Variable)]
        variables = [x for x in flat if isinstance(x, Variable)]
        return concrete._call_flat(tensors, variables)

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """The signatures of every concrete function traced so far, as TF prints them."""
        concretes = list(self._cache.values()) + [c for _, c in self._relaxed] + \
            list(self._partitioned.traces.values())
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in concretes)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function for these arguments (tensors or TensorSpecs), tracing it if
        needed; with no arguments, the one for `input_signature`."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        return self._concrete_for(args, kwargs, allow_specs=True)[0]

    def _canonical(self, args: tuple, kwargs: dict) -> tuple:
        """Arguments as (names, values) in parameter order, nested leaves normalized."""
        if self._input_signature is not None:
            return self._with_signature(args, kwargs)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"Binding inputs to tf.function failed: {exc}") from None
        bound.apply_defaults()
        names, values = [], []
        for name, value in bound.arguments.items():
            kind = self._signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                for i, v in enumerate(value):
                    names.append(f"{name}_{i}")
                    values.append(nest.map_structure(_normalize_leaf, v))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                for k in value:
                    names.append(k)
                    values.append(nest.map_structure(_normalize_leaf, value[k]))
            else:
                names.append(name)
                values.append(nest.map_structure(_normalize_leaf, value))
        return names, values

    def _with_signature(self, args: tuple, kwargs: dict) -> tuple:
        params = [p for p in self._signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params[:len(self._input_signature)]]
        varargs = [p.name for p in self._signature.parameters.values()
                   if p.kind is p.VAR_POSITIONAL]
        if varargs:  # signature entries past the named parameters fill `*args`, as args_0...
            names += [f"{varargs[0]}_{i}" for i in range(len(self._input_signature) - len(names))]
        shown = "(" + ", ".join(f"{n}: {spec!r}" for n, spec in zip(
            names, self._input_signature)) + ")"

        def failed(reason: str) -> TypeError:
            return TypeError(f"Binding inputs to tf.function failed due to `{reason}`. "
                             f"Received args: {args} and kwargs: {kwargs} for signature: "
                             f"{shown}.")
        values = list(args)
        if len(values) > len(self._input_signature):
            raise failed("too many positional arguments")
        rest = dict(kwargs)
        for name in names[len(values):]:
            if name not in rest:
                raise failed(f"missing a required argument: '{name}'")
            values.append(rest.pop(name))
        if rest:
            raise failed(f"got an unexpected keyword argument '{next(iter(rest))}'")
        converted = []
        for value, spec in zip(values, self._input_signature):
            if isinstance(spec, TensorSpec):
                pairs = [(value, spec)]  # the whole value converts (a list of numbers)
            else:
                nest.assert_same_structure(spec, value, check_types=False)
                pairs = list(zip(nest.flatten(value), nest.flatten(spec)))
            flat = []
            for leaf, leaf_spec in pairs:
                if isinstance(leaf, (TensorSpec,) + _COMPOSITE_SPECS) or \
                        isinstance(leaf_spec, _COMPOSITE_SPECS):
                    t = leaf
                else:
                    try:
                        t = convert_to_tensor(leaf, dtype_hint=leaf_spec.dtype)
                    except (TypeError, ValueError) as exc:
                        raise failed(str(exc)) from None
                if not leaf_spec.is_compatible_with(t):
                    raise failed(f"Can not cast {TensorSpec.from_tensor(t)!r} to "
                                 f"{leaf_spec!r}")
                flat.append(t)
            converted.append(flat[0] if isinstance(spec, TensorSpec) else
                             nest.pack_sequence_as(value, flat))
        return names[:len(converted)], converted

    def _concrete_for(self, args: tuple, kwargs: dict, allow_specs: bool = False) -> tuple:
        names, values = self._canonical(args, kwargs)
        if self._input_signature is not None:
            key = _structure_key(tuple(self._input_signature))
            specs = list(self._input_signature)
            concrete = self._cache.get(key)
            if concrete is None:
                concrete = self._trace_ragged(key, names, values, specs)
            return concrete, values
        key = _structure_key(tuple(values))
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete, values
        if key in self._partitioned.needed:
            return self._trace_ragged(key, names, values, None), values
        for pattern, relaxed in self._relaxed:
            if _key_matches(pattern, key):
                return relaxed, values
        general = self._most_specific_supertype(key)
        if general is not None:
            return general, values
        specs = None
        if self._reduce_retracing:
            for old in list(self._cache):
                pattern = _relaxed(old, key)
                if pattern is not None and pattern != old:
                    specs = _specs_from_pattern(pattern)
                    concrete = self._trace(names, values, specs)
                    self._relaxed.append((pattern, concrete))
                    return concrete, values
        concrete = self._trace_ragged(key, names, values, specs)
        return concrete, values

    def _most_specific_supertype(self, key: Any) -> Optional[ConcreteFunction]:
        """The trace whose signature covers the call's `key` (None dims where the call has
        sizes) most specifically, or None: TF dispatches such a call to that trace (one made
        by `get_concrete_function` with TensorSpecs, say) instead of tracing again."""
        best = None
        for old in self._cache:
            if old != key and _key_matches(old, key) and (best is None or
                                                          _key_matches(best, old)):
                best = old
        return None if best is None else self._cache[best]

    def _trace_ragged(self, key: Any, names: list, values: list,
                      specs: Optional[list]) -> ConcreteFunction:
        """The trace for `key`, cached: with every RaggedTensor's partition traced (one trace
        for every partition); where that trace needs a partition while tracing
        (PartitionNeeded: no tapeflow op does now, but a NumPy path might) and the call brings
        its partitions, one trace per partition, the partition a constant of the graph. Any
        other error is the user's, raised as TF raises it."""
        partitions = _ragged_partitions(values) if key in self._partitioned.needed else None
        if partitions is not None:
            return self._partitioned.get(self, (key, partitions), names, values, specs)
        try:
            concrete = self._trace(names, values, specs)
        except PartitionNeeded:
            partitions = _ragged_partitions(values)
            if not partitions:
                raise
            self._partitioned.needed.add(key)
            return self._partitioned.get(self, (key, partitions), names, values, specs)
        self._cache[key] = concrete
        return concrete

    # -- tracing ----------------------------------------------------------------------------
    def _trace(self, names: list, values: list, specs: Optional[list],
               silent: bool = False, partitioned: bool = False) -> ConcreteFunction:
        first = not self._created_variables and self._tracing_count == 0
        concrete = self._trace_once(names, values, specs, allow_variables=first,
                                    partitioned=partitioned)
        if not silent:
            self._tracing_count += 1
        if first and concrete.graph.created_variables:
            # As TensorFlow: variables made on the first trace are kept, and the function is
            # traced again; that trace (and every later one) must not create any.
            self._created_variables = True
            concrete = self._trace_once(names, values, specs, allow_variables=False,
                                        partitioned=partitioned)
            self._tracing_count += 1
        return concrete

    def _silent_retrace(self, concrete: ConcreteFunction, tensors: list) -> ConcreteFunction:
        names, values, specs = concrete._trace_args
        it = iter(tensors)
        values = nest.map_structure(
            lambda leaf: next(it) if isinstance(leaf, (TensorLike, TensorSpec)) and
            not isinstance(leaf, Variable) else leaf, values)
        # The user already saw this signature traced: its Python side effects stay hidden.
        with contextlib.redirect_stdout(io.StringIO()):
            return self._trace_once(names, values, specs, allow_variables=False,
                                    partitioned=getattr(concrete, "_partitioned", False))

    def _trace_once(self, names: list, values: list, specs: Optional[list],
                    allow_variables: bool, partitioned: bool = False) -> ConcreteFunction:
        graph = Graph(self._name, allow_variable_creation=allow_variables)
        flat_specs = nest.flatten(specs) if specs is not None else None
        counter = iter(range(1 << 30))
        symbolic_values = []
        params = []
        aliases: dict = {}   # id(variable argument) -> its alias_id
        for name, kind, value in zip(names, self._param_kinds(names), values):
            leaves = nest.flatten(value)
            new_leaves, spec_leaves, shown_leaves = [], [], []
            for leaf, path in zip(leaves, _leaf_paths(value, name)):
                if isinstance(leaf, _COMPOSITES + _COMPOSITE_SPECS):
                    spec = flat_specs[next(counter)] if flat_specs is not None else None
                    spec = _composite_placeholders(graph, leaf, spec, path, new_leaves,
                                                   partitioned)
                    spec_leaves.append(spec)
                    shown_leaves.append(spec)
                elif isinstance(leaf, (TensorLike, TensorSpec)) and not isinstance(leaf, Variable):
                    spec = flat_specs[next(counter)] if flat_specs is not None else None
                    # A name the user gave a spec names the placeholder, as in TF.
                    given = getattr(spec, "name", None) or (
                        leaf.name if isinstance(leaf, TensorSpec) else None)
                    t = _placeholder_for(graph, leaf, spec, given or path)
                    new_leaves.append(t)
                    spec_leaves.append(TensorSpec(t.shape, t.dtype, given or path))
                    shown_leaves.append(TensorSpec(t.shape, t.dtype, given))
                elif isinstance(leaf, Variable):
                    new_leaves.append(leaf)
                    spec_leaves.append(VariableSpec(leaf, aliases.setdefault(id(leaf),
                                                                             len(aliases))))
                    shown_leaves.append(spec_leaves[-1])
                else:
                    new_leaves += [leaf]
                    spec_leaves += [leaf]
                    shown_leaves += [leaf]
            symbolic_values.append(nest.pack_sequence_as(value, new_leaves))
            params.append(_Param(name, kind, nest.pack_sequence_as(value, spec_leaves),
                                 nest.pack_sequence_as(value, shown_leaves)))
        args, kwargs = self._rebuild_call(names, symbolic_values)
        try:
            with tracing(graph, suspend_tapes=True):
                result = self._function_to_trace()(*args, **kwargs)
                structure = nest.map_structure(
                    lambda leaf: _output_leaf(graph, leaf, self._python_function), result)
        except Exception as exc:  # noqa: BLE001 - re-raised with the user's line
            raise _in_user_code(exc).with_traceback(None) from None
        graph.outputs = [out.vid for leaf in nest.flatten(structure) for out in _outs(leaf)]
        stats = passes.optimize(graph)
        concrete = ConcreteFunction(self, graph, structure, params, stats)
        concrete._trace_args = (names, values, specs)
        concrete._partitioned = partitioned
        concrete._arg_variables = [x for x in nest.flatten(values) if isinstance(x, Variable)]
        return concrete

    def _param_kinds(self, names: list) -> list:
        """Each canonical argument's kind as TF's signature shows it: positional ones are
        POSITIONAL_ONLY where the function takes `*args`; `**kwargs` entries KEYWORD_ONLY."""
        params = self._signature.parameters
        varargs = [p.name + "_" for p in params.values() if p.kind is p.VAR_POSITIONAL]
        kinds = []
        for name in names:
            p = params.get(name)
            if p is None:
                positional = bool(varargs) and name.startswith(varargs[0]) and \
                    name[len(varargs[0]):].isdigit()
                kinds.append(inspect.Parameter.POSITIONAL_ONLY if positional else _KEYWORD_ONLY)
            elif p.kind is _KEYWORD_ONLY:
                kinds.append(_KEYWORD_ONLY)
            else:
                kinds.append(inspect.Parameter.POSITIONAL_ONLY if varargs else p.kind)
        return kinds

    def _function_to_trace(self) -> Callable:
        """The Python function as tracing calls it: converted by AutoGraph (once) unless
        `autograph=False`."""
        if self._traced_function is None:
            self._traced_function = autograph.convert_for_tracing(self._python_function) \
                if self._autograph else self._python_function
        return self._traced_function

    def _rebuild_call(self, names: list, values: list) -> tuple:
        args, kwargs = [], {}
        params = list(self._signature.parameters.values())
        by_name = dict(zip(names, values))
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                args.extend(by_name[n] for n in names if n.startswith(p.name + "_")
                            and n[len(p.name) + 1:].isdigit())
            elif p.kind is p.VAR_KEYWORD:
                known = {q.name for q in params}
                kwargs.update({n: by_name[n] for n in names if n not in known and
                               not (n.startswith(tuple(q.name + "_" for q in params
                                                       if q.kind is q.VAR_POSITIONAL)))})
            elif p.name in by_name:
                if p.kind is p.KEYWORD_ONLY:
                    kwargs[p.name] = by_name[p.name]
                else:
                    args.append(by_name[p.name])
        return args, kwargs

    def __repr__(self) -> str:
        return f"<tapeflow.function.Function {self._name}>"


# -- run_functions_eagerly and the retracing warning ------------------------------------------

_RUN_EAGERLY = [False]   # a list: Function.__call__ reads one item, no global statement


@tf_export("config.run_functions_eagerly")
def run_functions_eagerly(run_eagerly: bool) -> None:
    """While on, every tf.function call runs its Python function eagerly (unconverted, no
    trace, no input_signature check), as TF; `get_concrete_function` still traces."""
    _RUN_EAGERLY[0] = bool(run_eagerly)


@tf_export("config.functions_run_eagerly")
def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly(True)` is in effect."""
    return _RUN_EAGERLY[0]


# TF 2.21's frequent-tracing warning: logged when 5 of the last (up to) 10 calls of the
# functions sharing one Python code object traced, at most twice per code object.
_TRACING_HISTORY, _TRACING_THRESHOLD, _TRACING_WARNINGS = 10, 5, 2


class _TracingDetector:
    """Counts calls, and which of them traced, for one Python function (TF's
    _FrequentTracingDetector, kept as the numbers of the calls that traced so that a call
    without tracing costs one increment)."""

    __slots__ = ("calls", "tracings", "warnings", "__weakref__")

    def __init__(self) -> None:
        self.calls = 0
        self.tracings: list = []   # the numbers (from 1) of the calls in the window that traced
        self.warnings = 0

    def called_without_tracing(self) -> None:
        self.calls += 1

    def called_with_tracing(self, function: Any) -> None:
        if not self.tracings and self.calls:
            self.tracings.append(1)   # as TF: the calls before the first trace count as one
        self.calls += 1
        tracings = self.tracings
        tracings.append(self.calls)
        # TF drops the oldest tracing (and the calls after it) while the rest span > 10 calls.
        while len(tracings) > 1 and self.calls - tracings[1] + 1 > _TRACING_HISTORY:
            tracings.pop(0)
        if self.warnings < _TRACING_WARNINGS and len(tracings) >= _TRACING_THRESHOLD:
            self.warnings += 1
            logger.warning(
                f"{len(tracings)} out of the last {self.calls - tracings[0] + 1} calls to "
                f"{function} triggered tf.function retracing. Tracing is expensive and the "
                f"excessive number of tracings could be due to (1) creating @tf.function "
                f"repeatedly in a loop, (2) passing tensors with different shapes, (3) "
                f"passing Python objects instead of tensors. For (1), please define your "
                f"@tf.function outside of the loop. For (2), @tf.function has "
                f"reduce_retracing=True option that can avoid unnecessary retracing. For "
                f"(3), please refer to "
                f"https://www.tensorflow.org/guide/function#controlling_retracing and "
                f"https://www.tensorflow.org/api_docs/python/tf/function for  more details.")


_DETECTORS: Any = weakref.WeakKeyDictionary()   # code object -> its _TracingDetector


def _detector_for(function: Any) -> _TracingDetector:
    """The detector shared by every tf.function of the same code (a tf.function made anew
    in a loop counts as one function, as in TF)."""
    target = function
    while isinstance(target, functools.partial):
        target = target.func
    target = inspect.unwrap(getattr(target, "__func__", target))
    key = getattr(target, "__code__", None)
    if key is None:
        return _TracingDetector()
    detector = _DETECTORS.get(key)
    if detector is None:
        detector = _DETECTORS[key] = _TracingDetector()
    return detector


def _specs_from_pattern(pattern: Any) -> list:
    specs = []

    def walk(key: Any) -> None:
        if isinstance(key, tuple) and len(key) == 3 and key[0] == "T":
            specs.append(TensorSpec(key[1], key[2]))
        elif _is_ragged_key(key):
            dims, dtype, ragged_rank, splits_dtype, _ = key[2]
            specs.append(RaggedTensorSpec(dims, dtype, ragged_rank, splits_dtype))
        elif isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple) and \
                key[0] in ("tuple", "list", "dict"):
            for child in key[1]:
                walk(child[1] if key[0] == "dict" else child)
    walk(pattern)
    return specs


def _placeholder_for(graph: Graph, leaf: Any, spec: Optional[TensorSpec],
                     name: str) -> SymbolicTensor:
    if isinstance(leaf, TensorSpec):  # traced from the signature alone: abstract
        return graph.placeholder(None, name, leaf.shape, dtype=leaf.dtype._np)
    example = leaf._value
    # A symbolic argument (a nested tf.function's caller is tracing) keeps its None dims.
    shape = spec.shape if spec is not None else leaf.shape
    return graph.placeholder(example, name, shape)


def _output_leaf(graph: Graph, leaf: Any, function: Any = None) -> Any:
    if isinstance(leaf, Variable):
        leaf = leaf.value()
    elif leaf is not None and not isinstance(leaf, (TensorLike, IndexedSlices) + _COMPOSITES):
        # As TensorFlow: Python numbers, strings, arrays and shapes come out as (constant)
        # tensors; anything that does not convert to a tensor is an error.
        try:
            leaf = convert_to_tensor(leaf)
        except (TypeError, ValueError):
            raise TypeError(
                f"To be compatible with tf.function, Python functions must return zero or "
                f"more Tensors or ExtensionTypes or None values; in compilation of "
                f"{function}, found return value of type {type(leaf).__name__}, which is "
                f"not a Tensor or ExtensionType.") from None
    if isinstance(leaf, TensorLike):
        return _Out(graph.value_id(leaf))
    if isinstance(leaf, IndexedSlices):
        return _OutSlices(*(None if part is None else _Out(graph.value_id(part))
                            for part in (leaf.values, leaf.indices, leaf.dense_shape)))
    if isinstance(leaf, _COMPOSITES):
        # A RaggedTensor whose partition tracing knows keeps it (with its uniform rows).
        spec = leaf._partitioned_spec() if isinstance(leaf, RaggedTensor) and \
            not is_symbolic(leaf) else leaf._type_spec
        return _OutComposite(spec,
                             *(_Out(graph.value_id(part)) for part in leaf._to_components()))
    return leaf


def _outs(leaf: Any) -> list:
    """The tensor outputs a leaf of the output structure stands for, in order."""
    if isinstance(leaf, _Out):
        return [leaf]
    if isinstance(leaf, (_OutSlices, _OutComposite)):
        return [part for part in leaf.parts if part is not None]
    return []


def _unpack_leaf(leaf: Any, take: Callable) -> Any:
    """A leaf of the output structure with its outputs filled in by `take(_Out)`."""
    if isinstance(leaf, _Out):
        return take(leaf)
    if isinstance(leaf, _OutSlices):
        return IndexedSlices(*(None if part is None else take(part) for part in leaf.parts))
    if isinstance(leaf, _OutComposite):
        return leaf.spec._from_components([take(part) for part in leaf.parts])
    return leaf


def function(func: Optional[Callable] = None, input_signature: Optional[Sequence] = None,
             autograph: bool = True, jit_compile: Optional[bool] = None,
             reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None,
             experimental_attributes: Any = None,
             experimental_relax_shapes: Optional[bool] = None,
             experimental_compile: Optional[bool] = None,
             experimental_follow_type_hints: Any = None) -> Any:
    """Compiles a function into a callable graph, as `tf.function`.

    Usable as `@tf.function`, `@tf.function(input_signature=[...])` or `tf.function(f)`.
    The function is traced once per input signature (tensors by shape and dtype, other
    arguments by value or identity); Python side effects run only while tracing.
    """
    relax = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(f: Callable) -> Function:
        return Function(f, input_signature=input_signature, reduce_retracing=relax,
                        jit_compile=jit_compile, autograph=autograph)
    return decorate if func is None else decorate(func)


__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec", "VariableSpec",
           "run_functions_eagerly", "functions_run_eagerly"]
