"""Compiled backward passes for eager GradientTapes.

A training loop records the same ops on every step, so every step's backward pass runs the
same rules in the same order: only the arrays differ, while the walk's Python work (finding
rules, shaping and summing cotangents, wrapping tensors) is repeated each time. So the second
time a record with a given structure is differentiated (same ops and attributes, same shapes
and dtypes, the same tensors feeding the same ops), its backward pass is traced once, as
tf.function traces: the ordinary walk runs over symbolic stand-ins for the record's tensors,
and the graph it builds is optimized and compiled to straight-line NumPy. From then on such a
record's backward pass is one call of that program on the record's arrays.

This is safe where a tf.function of the same backward pass would be: the rules of registered
primitives depend on shapes, dtypes and attributes only (their value-dependent arguments go
through `ops._static` guards, which fail loudly). Everything else takes the walk: passes that
an outer tape, accumulator or trace records; records with a custom gradient (user code, which
must run each time) or a stateful primitive; attributes that cannot be compared; sparse
(IndexedSlices) cotangents; and any pass whose program fails at run time.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff import backprop
from tapeflow.autodiff.core import REGISTRY
from tapeflow.framework.tensor import Tensor
from tapeflow.graph import passes
from tapeflow.graph.compiler import Program, compile_graph
from tapeflow.graph.ir import Graph, SymbolicTensor, tracing

CACHE_SIZE = 64           # compiled structures kept (a training loop needs one or two)
CONSTANTS_LIMIT = 1 << 24  # bytes of constants a kept program may hold (folded seeds)
_WALK = object()          # a structure known not to compile: always walk
_programs: dict = {}      # signature -> (Program, output index per source) or _WALK
_seen: dict = {}          # signatures differentiated once (compiled on the second time)


class _NotCompilable(Exception):
    pass


def compiled_backprop(nodes: list, targets: list, seeds: Optional[list],
                      sources: list) -> Optional[list]:
    """The sources' cotangents from the compiled program for this record's structure, or
    None when the walk must run (first sighting, or not compilable). `nodes` is the tape's
    record; `seeds` the targets' cotangents (None: ones, made inside the program)."""
    try:
        try:
            signature, tensors = _signature(nodes, targets, seeds, sources, frozen=False)
            entry = _programs.get(signature)  # hashes it: the one hash per pass
        except TypeError:  # an attribute that cannot be hashed as it is (a slice)
            signature, tensors = _signature(nodes, targets, seeds, sources, frozen=True)
            entry = _programs.get(signature)
    except (_NotCompilable, TypeError):
        return None
    if entry is None:
        if signature not in _seen:
            _remember(_seen, signature, None)
            return None
        try:
            entry = _compile(nodes, targets, seeds, sources, tensors)
        except Exception:  # noqa: BLE001 - a rule that cannot be traced: the walk runs it
            entry = _WALK
        _remember(_programs, signature, entry)
    if entry is _WALK:
        return None
    program, positions = entry
    try:
        results = program(tensors)
    except Exception:  # noqa: BLE001 - e.g. a static-value guard: the walk decides
        _programs[signature] = _WALK
        return None
    return results if positions is None else [None if i is None else results[i]
                                              for i in positions]


def _remember(table: dict, key: Any, value: Any) -> None:
    if len(table) >= CACHE_SIZE:
        del table[next(iter(table))]  # the oldest
    table[key] = value


_COMPILABLE: set = set()  # primitives seen to be registered and stateless


def _compilable(prim: Any) -> bool:
    # Custom gradients are unregistered primitives (user code, which must run every time);
    # stateful ones draw random numbers.
    if prim.stateful or REGISTRY.get(prim.name) is not prim:
        return False
    _COMPILABLE.add(prim)
    return True


def _signature(nodes: list, targets: list, seeds: Optional[list], sources: list,
               frozen: bool) -> tuple:
    """What the traced program depends on, and the record's tensors in program-input order.

    Each distinct tensor gets a slot, numbered by first appearance, and adds its shape and
    dtype; each node adds its primitive, its arity, its inputs' slots and its attributes (as
    they are, or made hashable when `frozen`: slices, lists, arrays). An op's outputs are new
    tensors: they take the next slots and add their shapes. Which nodes the walk needs follows
    from this and the sources' slots, so it is not computed here. This runs on every backward
    pass of a training loop, so it is one flat loop building one flat tuple.
    """
    slots: dict = {}
    tensors: list = []
    parts: list = []
    add = parts.append
    keep = tensors.append
    lookup = slots.get
    for prim, inputs, attrs, outs in nodes:
        if prim not in _COMPILABLE and not _compilable(prim):
            raise _NotCompilable  # random draws; custom gradients (user code)
        add(prim)
        add(len(inputs))
        for x in inputs:
            index = lookup(id(x))
            if index is None:  # a value from outside the record: a new slot
                index = slots[id(x)] = len(tensors)
                keep(x)
                value = x._value
                add(value.shape)
                add(value.dtype)
            add(index)
        # Outputs add their shapes (some ops' depend on input values); their dtypes follow
        # from the primitive, its attributes and its inputs' dtypes.
        if prim.multiple_results:
            for out in outs:
                slots[id(out)] = len(tensors)
                keep(out)
                add(out._value.shape)
        else:
            slots[id(outs)] = len(tensors)
            keep(outs)
            add(outs._value.shape)
        if attrs:
            add(passes.attrs_key(attrs) if frozen else tuple(attrs.items()))
    add(None)  # the targets, seeds and sources follow
    if seeds is None:
        add("ones")
        ends = targets + sources
    else:
        if any(s is not None and type(s) is not Tensor for s in seeds):
            raise _NotCompilable
        add(tuple(s is None for s in seeds))
        ends = targets + [s for s in seeds if s is not None] + sources
    for x in ends:
        index = lookup(id(x))
        if index is None:
            index = slots[id(x)] = len(tensors)
            keep(x)
            add(x._value.shape)
            add(x._value.dtype)
        add(index)
    return tuple(parts), tensors


def _compile(nodes: list, targets: list, seeds: Optional[list], sources: list,
             tensors: list) -> Any:
    """Traces the walk over stand-ins for `tensors` and compiles it (or _WALK)."""
    graph = Graph("backward")
    stand_in = {id(t): graph.placeholder(t._value, "x") for t in tensors}

    def sub(x: Any) -> SymbolicTensor:
        return stand_in[id(x)]

    traced_nodes = [(prim, tuple(map(sub, inputs)), attrs,
                     tuple(map(sub, outs)) if prim.multiple_results else sub(outs))
                    for prim, inputs, attrs, outs in nodes]
    traced_sources = list(map(sub, sources))
    needed, reads, live = backprop.live_nodes(traced_nodes, traced_sources)
    traced_seeds = None if seeds is None else [None if s is None else sub(s) for s in seeds]
    with tracing(graph, suspend_tapes=True):  # default seeds are constants: folded
        grads = backprop.seed_cotangents(list(map(sub, targets)), traced_seeds, live)
        results = backprop.walk(needed, reads, live, grads, traced_sources,
                                backprop.support().zeros_like)
    if graph.captures or any(r is not None and not isinstance(r, Tensor) for r in results):
        return _WALK  # sparse cotangents, or values from outside the record
    positions: list = []
    for r in results:
        positions.append(None if r is None else len(graph.outputs))
        if r is not None:
            graph.outputs.append(graph.value_id(r))
    passes.optimize(graph)
    program = compile_graph(graph, tensors=True)
    if _seal(program) > CONSTANTS_LIMIT:
        return _WALK  # the gradient of a huge target's sum: not worth keeping
    if None not in positions:
        positions = None  # every source has a gradient: the program's list is the answer
    return program, positions


def _seal(program: Program) -> int:
    """Drops the trace's arrays (every intermediate of one step: not needed to run the
    program) and makes its constants read-only: a gradient that folds to a constant (that of
    x + 1, say) is the same array on every pass, so writing into it must fail loudly.
    Returns the bytes the constants hold."""
    size = 0
    for info in program.graph.values:
        if info.kind != "const":
            info.example = None
        elif isinstance(info.example, np.ndarray):
            info.example.flags.writeable = False
            size += info.example.nbytes
    return size


backprop.hooks["compiled_backprop"] = compiled_backprop

__all__ = ["compiled_backprop", "CACHE_SIZE", "CONSTANTS_LIMIT"]
