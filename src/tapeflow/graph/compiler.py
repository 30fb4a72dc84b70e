"""Lowering a graph to straight-line Python over NumPy kernels, and replaying it op by op.

`compile_graph` generates one Python function per graph: each node becomes one line calling
its kernel on local variables, so running a graph costs one call per op and nothing else.
Lowering also
  - fuses chains of elementwise ops (NumPy ufuncs) into one buffer: each op of a chain writes
    its result into the chain's buffer (`out=`) instead of allocating a new array, and
  - reuses in place the buffer of an intermediate whose last use is the op consuming it
    (only arrays the graph itself allocated, never inputs, constants, variables' values,
    outputs or values stored into variables).
`replay` instead runs a graph node by node through `bind`, so active tapes record it (a
function called under a GradientTape) or an enclosing trace inlines it.
"""

from __future__ import annotations

import functools
import linecache
import sys
from typing import Any, Callable

import numpy as np

from tapeflow.autodiff import core, numerics
from tapeflow.framework.abstract import same_as_input
from tapeflow.autodiff.backprop import support
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, OpError
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.graph.ir import Graph, dry_values, location_text

_COUNTER = [0]


def kernel_of(prim: Any) -> Callable:
    """The kernel a compiled program calls (the program runs through `core.run_kernel`, so
    NumPy's floating-point warnings are silenced as in eager ops)."""
    return prim.impl


# Set by tests to compile the plain path (every result a new array) and compare.
REUSE_BUFFERS = True

# Optimizer updates the program may run on the variables themselves (ops/optimizer_ops.py
# registers its primitives): primitive -> (state count(**attrs), variable_update(prim,
# attrs, scratch) -> kernel, UpdateGroup(prim, attrs, variables, shapes)).
VARIABLE_UPDATES: dict = {}


# Elements from which a kernel call writing into a dying buffer beats the inlined NumPy
# expression that allocates (an `out=` keyword and a Python call cost more than small arrays).
INPLACE_MIN_SIZE = 16384


def _fresh_result(kernel: Any, attrs: dict) -> bool:
    """Whether the kernel always returns a new array, never a view of an input: plain ufuncs,
    and kernels marked `fresh_result` (matrix products, casts, ReLU)."""
    if isinstance(kernel, np.ufunc):
        return not attrs and kernel.nout == 1
    return getattr(kernel, "fresh_result", False)


def _reusable(kernel: Any, example: Any) -> bool:
    """Whether a later op may overwrite this fresh result: a ufunc's, or a large one."""
    return isinstance(kernel, np.ufunc) or np.size(example) >= INPLACE_MIN_SIZE


def _writes_out(kernel: Any, attrs: dict, example: Any) -> bool:
    """Whether the kernel can write its (array) result into a given buffer (`out=`): a
    ufunc, or a kernel marked `takes_out` for a large result."""
    if not isinstance(example, np.ndarray) or example.ndim == 0:
        return False
    if isinstance(kernel, np.ufunc):
        return not attrs and kernel.nout == 1
    return getattr(kernel, "takes_out", False) and example.size >= INPLACE_MIN_SIZE


def _is_reshape(node: Any) -> bool:
    return not isinstance(node.op, str) and node.op.name == "Reshape"


class Program:
    """A compiled graph: `program(arrays) -> list of arrays`, plus its generated source.

    With `tensors=True` it takes and returns tensors instead (`program(tensors) -> list of
    tensors`), reading the values of the inputs it uses only.
    """

    def __init__(self, graph: Graph, dry: bool = False, tensors: bool = False) -> None:
        self.graph = graph
        self.dry = dry      # a trace-time run: variables are shadowed, nothing is printed
        self.tensors = tensors
        self.input_vids = graph.inputs + [vid for _, vid in graph.captures]
        self.fused_chains = 0
        self.inplace = 0
        self._ignored: dict = {}   # node index -> inputs it does not read (see _last_reads)
        # Compiled while tf.debugging.enable_check_numerics is on: the program checks each
        # op's float outputs (and keeps doing so, as TF's traced checks do).
        self.checked = None if dry else numerics.graph_checks()
        self.source, namespace, self._line_nodes = self._generate()
        self.filename = namespace["__file__"]
        self.run = namespace["run"]

    # -- lowering ---------------------------------------------------------------------------
    def _plan_buffers(self, updates: dict) -> dict:
        """For each node, the input vid whose buffer it may overwrite (`out=`), if any; and
        the scratch gradients of `updates` (their entries get True where the gradient's
        buffer is the program's and dies there)."""
        graph = self.graph
        values = graph.values
        last_use = self._last_reads()
        escaped = set(graph.outputs)
        for index, node in enumerate(graph.nodes):
            if node.op_name == "AssignVariableOp":
                escaped.add(node.inputs[1])
            elif index in updates:
                # Its elementwise kernel keeps no view of the gradient it may overwrite.
                n = updates[index][0]
                escaped.update(node.inputs[:n] + node.inputs[n + 1:])
            elif _is_reshape(node):
                escaped.update(node.inputs[1:])   # the data's view is followed below
            elif isinstance(node.op, str) or node.op.multiple_results or \
                    not _fresh_result(kernel_of(node.op), node.attrs):
                # Kept by reference elsewhere (loop state), or possibly viewed: reshape,
                # slicing, transpose and other kernels may return a view of their input,
                # so that input's buffer must not be overwritten while it lives.
                escaped.update(node.inputs)
        owned = set()   # values held in arrays this program allocated

        def dying_here(v: int, index: int, node: Any, example: Any) -> bool:
            info = values[v]
            return v in owned and v not in escaped and last_use.get(v) == index and \
                node.inputs.count(v) == 1 and np.shape(info.example) == np.shape(example) \
                and info.dtype == example.dtype

        reuse: dict = {}
        for index, node in enumerate(graph.nodes):
            if index in updates:
                n = updates[index][0]
                updates[index][2] = dying_here(node.inputs[n], index, node,
                                               values[node.inputs[0]].example)
                continue
            if _is_reshape(node):
                # A reshape of an owned buffer that dies there is the only way to that
                # buffer: the reshaped value is owned (a view or a copy, either is ours).
                data = node.inputs[0]
                if data in owned and data not in escaped and last_use.get(data) == index \
                        and node.inputs.count(data) == 1:
                    owned.add(node.outputs[0])
                else:
                    escaped.add(data)
                continue
            if isinstance(node.op, str) or node.op.multiple_results or \
                    not _fresh_result(kernel_of(node.op), node.attrs):
                continue
            out = node.outputs[0]
            example = values[out].example
            kernel = kernel_of(node.op)
            if _reusable(kernel, example):
                owned.add(out)   # a matrix product's result too: the next op may overwrite it
            if not _writes_out(kernel, node.attrs, example):
                continue
            for v in node.inputs:
                if dying_here(v, index, node, example):
                    reuse[index] = v
                    break
        return reuse

    def _variable_updates(self) -> dict:
        """The optimizer updates (ops/optimizer_ops.py) that run on the variables themselves
        (in place where they own their arrays): large ones whose every state input is a read of a
        variable and every state output goes only to an assignment of that variable, with
        nothing else touching it from the read to the assignment but earlier reads. For each,
        its index -> [state count, the reads that die there, whether the gradient does]."""
        graph, nodes = self.graph, self.graph.nodes
        users: dict = {}
        for index, node in enumerate(nodes):
            for v in node.inputs:
                users.setdefault(v, []).append(index)
        position = {id(node): index for index, node in enumerate(nodes)}
        last_use = self._last_reads()
        found: dict = {}
        small: dict = {}
        for index, node in enumerate(nodes):
            update = None if isinstance(node.op, str) else VARIABLE_UPDATES.get(node.op)
            if update is None:
                continue
            n = update[0](**node.attrs)
            handles = []
            for read_vid, new in zip(node.inputs[:n], node.outputs):
                read = graph.values[read_vid].producer
                assign = users.get(new, [])
                if read is None or read.op_name != "ReadVariableOp" or len(assign) != 1 or \
                        nodes[assign[0]].inputs != [read.inputs[0], new] or \
                        new in graph.outputs:
                    break
                handle = read.inputs[0]
                if any(j != index and not (j < index and nodes[j].op_name == "ReadVariableOp")
                       for j in users[handle] if position[id(read)] < j < assign[0]):
                    break
                handles.append(handle)
            if len(handles) != n or len(set(handles)) != n:
                continue
            # Small arrays come from NumPy's cache of small blocks: fresh ones cost nothing
            # there, and the proof of ownership more than it saves; they run as groups.
            if np.size(graph.values[node.inputs[0]].example) < INPLACE_MIN_SIZE:
                small[index] = handles
                continue
            dying = [v for v in node.inputs[:n] if last_use[v] == index
                     and node.inputs.count(v) == 1 and v not in graph.outputs]
            found[index] = [n, dying, False]
        return found, self._groups(small, users)

    def _groups(self, small: dict, users: dict) -> dict:
        """Small updates run as UpdateGroups: those of one primitive, attributes, dtype and
        scalars, where nothing touches their variables from the first one to the last but
        their own reads (used by them alone) and assignments. Member index -> (group,
        position)."""
        graph, nodes = self.graph, self.graph.nodes
        kinds: dict = {}
        for index, handles in small.items():
            node = nodes[index]
            n = len(handles)
            key = (node.op, tuple(sorted(node.attrs.items())), tuple(node.inputs[n + 1:]),
                   graph.values[node.inputs[0]].dtype)
            try:
                kinds.setdefault(key, []).append(index)
            except TypeError:   # attributes that cannot be hashed: not grouped
                continue

        def allowed(j: int, i: int, own: dict) -> bool:
            """Whether node j may touch member i's variable inside the group's span: its
            assignment of i's result, or a read that only i uses (or nothing)."""
            other = nodes[j]
            if other.op_name == "AssignVariableOp":
                return own.get(other.inputs[1]) == i
            return other.op_name == "ReadVariableOp" and \
                all(u == i for u in users.get(other.outputs[0], ()))
        members: dict = {}
        for key, indices in kinds.items():
            first = indices[0]
            own = {nodes[i].outputs[k]: i for i in indices for k in range(len(small[i]))}
            last_assign = max(users[v][0] for v in own)
            if len(indices) < 2 or not all(
                    allowed(j, i, own) for i in indices for h in small[i]
                    for j in users[h] if first <= j <= last_assign):
                continue
            variables = [[graph.values[h].example for h in small[i]] for i in indices]
            shapes = [np.shape(graph.values[nodes[i].inputs[0]].example) for i in indices]
            group = VARIABLE_UPDATES[key[0]][2](key[0], nodes[first].attrs, variables, shapes)
            for position, i in enumerate(indices):
                members[i] = (group, position)
        return members

    def _dying_after(self) -> dict:
        """For each node index, the intermediates whose last use it is (or that nothing
        uses): the program drops them there. Held to the end of the run, every dead array
        keeps its memory, so each new result is a fresh allocation that the OS must map and
        zero (a chain of 256 x 256 matrix products ran 1.6x slower)."""
        last_read = self._last_reads()
        kept = set(self.graph.outputs)
        dying: dict = {}
        for index, node in enumerate(self.graph.nodes):
            for out in node.outputs:
                if out not in kept:   # dropped where it is made if nothing reads it
                    dying.setdefault(last_read.get(out, index), []).append(out)
        return dying

    def _last_reads(self) -> dict:
        """For each value a node reads, the index of the last node reading it (the inputs
        `_ignored` lists for a node, it does not read)."""
        last_read: dict = {}
        ignored = self._ignored
        for index, node in enumerate(self.graph.nodes):
            skip = ignored.get(index, ())
            for v in node.inputs:
                if v not in skip:
                    last_read[v] = index
        return last_read

    def _generate(self) -> tuple:
        graph = self.graph
        values = graph.values
        _COUNTER[0] += 1
        filename = f"<tapeflow-graph {graph.name} #{_COUNTER[0]}>"
        # A tapeflow module name: the warnings filter that silences NumPy's floating-point
        # warnings in tapeflow's own frames (autodiff/core.py) covers the program too.
        namespace: dict = {"__name__": "tapeflow.function.generated", "__file__": filename,
                           "np": np}
        # A trace-time run assigns no variable: it keeps their new values in the current
        # trace's shadow dict, which every trace-time run of that trace reads.
        lines = ["def run(args):", "    S = dry_values()"] if self.dry else ["def run(args):"]
        if self.dry:
            namespace["dry_values"] = dry_values
        line_nodes: dict = {}
        if self.input_vids and self.tensors:
            names = ", ".join(f"t{v}" for v in self.input_vids)
            lines.append(f"    ({names},) = args")
            used = {v for node in graph.nodes for v in node.inputs} | set(graph.outputs)
            lines.extend(f"    v{v} = t{v}._value" for v in self.input_vids if v in used)
        elif self.input_vids:
            names = ", ".join(f"v{v}" for v in self.input_vids)
            lines.append(f"    ({names},) = args")
        for info in values:
            if info.kind == "const":
                namespace[f"v{info.vid}"] = info.example  # constants are globals
            elif info.kind == "var":
                namespace[f"V{info.vid}"] = info.example
        updates, grouped = self._variable_updates() if REUSE_BUFFERS and not self.dry \
            and not self.checked else ({}, {})
        # A grouped update takes its variables, not the values read earlier: those die at
        # their last other use.
        self._ignored = {i: set(graph.nodes[i].inputs[:len(g.variables[p])])
                         for i, (g, p) in grouped.items()}
        reuse = self._plan_buffers(updates) if REUSE_BUFFERS else {}
        dying = self._dying_after()
        read = self._last_reads()
        chain_of: dict = {}    # vid -> buffer vid of the elementwise chain it belongs to
        for index, node in enumerate(graph.nodes):
            if node.op_name == "ReadVariableOp" and node.outputs[0] not in read and \
                    node.outputs[0] not in graph.outputs:
                dying[index].remove(node.outputs[0])   # a read nothing uses (a group's)
                continue
            if index in updates:
                # The program lets go of the variables' arrays first: the update can then
                # prove that nothing else holds them.
                n, early, scratch = updates[index]
                if early:
                    lines.append("    del " + ", ".join(f"v{v}" for v in early))
                    dying[index] = [v for v in dying.get(index, ()) if v not in early]
                line_nodes[len(lines) + 1] = node
                lines.append("    " + self._update_line(index, node, namespace, n, scratch))
            elif index in grouped:
                line_nodes[len(lines) + 1] = node
                group, position = grouped[index]
                fn = f"f{index}"
                namespace[fn] = group.member(position)
                n = len(group.variables[position])
                outs = "".join(f"v{v}, " for v in node.outputs)
                args = ", ".join(f"v{v}" for v in node.inputs[n:])
                lines.append(f"    ({outs}) = {fn}({args})")
            else:
                line_nodes[len(lines) + 1] = node
                lines.append("    " + self._line(index, node, namespace, reuse, chain_of))
            if self.checked:
                lines.extend(self._check_lines(index, node, namespace))
            if dying.get(index):
                lines.append("    del " + ", ".join(f"v{v}" for v in dying[index]))
        if self.tensors:
            namespace["wrap"] = wrap
            outs = ", ".join(f"wrap(v{v})" for v in graph.outputs)
        else:
            outs = ", ".join(f"v{v}" for v in graph.outputs)
        lines.append(f"    return [{outs}]")
        source = "\n".join(lines) + "\n"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
        namespace["run"].program = self   # a checking kernel runner checks unchecked calls
        return source, namespace, line_nodes

    def _check_lines(self, index: int, node: Any, namespace: dict) -> list:
        """Lines that raise TF's check-numerics error where the node's float outputs hold
        NaN or Inf."""
        slots = numerics.checked_outputs(node, self.graph.values)
        if slots:
            namespace["isfinite"] = np.isfinite
            namespace["numerics_error"] = functools.partial(numerics.graph_error, self)
        return [f"    if not isfinite(v{node.outputs[slot]}).all(): "
                f"numerics_error({index}, {slot}, v{node.outputs[slot]})" for slot in slots]

    def _line(self, index: int, node: Any, namespace: dict, reuse: dict, chain_of: dict) -> str:
        args = ", ".join(f"v{v}" for v in node.inputs)
        name = node.op_name
        if name == "ReadVariableOp":
            if self.dry:
                key = id(self.graph.values[node.inputs[0]].example)
                return f"v{node.outputs[0]} = S.get({key}, V{node.inputs[0]}._value)"
            return f"v{node.outputs[0]} = V{node.inputs[0]}._value"
        if name == "AssignVariableOp":
            if self.dry:
                return f"S[{id(self.graph.values[node.inputs[0]].example)}] = v{node.inputs[1]}"
            return f"V{node.inputs[0]}._value = v{node.inputs[1]}"
        prim = node.op
        if prim.lowering is not None and index not in reuse and not prim.multiple_results:
            # The op's own NumPy expression, inlined: no kernel call or partial per run.
            expr = prim.lowering(**node.attrs)
            if expr is not None:
                return f"v{node.outputs[0]} = " + expr.format(*(f"v{v}" for v in node.inputs))
        kernel = kernel_of(prim)
        fn = f"f{index}"
        namespace[fn] = functools.partial(kernel, **node.attrs) if node.attrs else kernel
        if prim.multiple_results:
            outs = "".join(f"v{v}, " for v in node.outputs)
            return f"({outs}) = {fn}({args})"
        out = node.outputs[0]
        target = reuse.get(index)
        if target is None:
            return f"v{out} = {fn}({args})"
        # The result goes into the dying input's buffer: a chain of elementwise ops that hands
        # its buffer along is one fused kernel over a single array.
        if target in chain_of:
            chain_of[out] = chain_of[target]
        else:
            chain_of[out] = target
            self.fused_chains += 1
        self.inplace += 1
        return f"v{out} = {fn}({args}, out=v{target})"

    def _update_line(self, index: int, node: Any, namespace: dict, n: int,
                     scratch: bool) -> str:
        """An optimizer update called on its state's variables (`V..`) instead of their
        values read earlier; its outputs are still assigned to them after."""
        fn = f"f{index}"
        namespace[fn] = VARIABLE_UPDATES[node.op][1](node.op, node.attrs, scratch)
        values = self.graph.values
        args = [f"V{values[v].producer.inputs[0]}" for v in node.inputs[:n]] + \
            [f"v{v}" for v in node.inputs[n:]]
        outs = "".join(f"v{v}, " for v in node.outputs)
        self.inplace += 1
        return f"({outs}) = {fn}({', '.join(args)})"

    # -- running ----------------------------------------------------------------------------
    def __call__(self, arrays: list) -> list:
        try:
            return core.run_kernel(self.run, arrays)
        except core.KERNEL_ERRORS + (OpError,) as exc:
            raise self._graph_error(exc, sys.exc_info()[2]) from None

    def _graph_error(self, exc: Exception, tb: Any) -> Exception:
        if getattr(exc, "_tapeflow_numerics", False):
            return exc   # a check-numerics error says where it was detected itself
        node = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                node = self._line_nodes.get(tb.tb_lineno, node)
            tb = tb.tb_next
        if node is None:
            return exc
        message = exc.message if isinstance(exc, OpError) else str(exc)
        text = (f"Graph execution error:\n\nDetected at node '{node.name}' defined at (most "
                f"recent call last):\n  {location_text(node.location)}\n    "
                f"{node.location[3]}\n\n{message}\n\t [[{{{{node {node.name}}}}}]] "
                f"[Op:{node.op_name}]")
        cls = type(exc) if isinstance(exc, OpError) else InvalidArgumentError
        return cls(None, None, text)

    def lowered_text(self) -> str:
        """The generated Python program (one line per op)."""
        return self.source


def compile_graph(graph: Graph, tensors: bool = False) -> Program:
    """Lowers an optimized graph to a Program (over tensors, with `tensors=True`)."""
    return Program(graph, tensors=tensors)


def replay(graph: Graph, inputs: list, skip_side_effects: bool = False) -> list:
    """Runs `graph` op by op through `bind` (recorded by tapes, inlined by traces).

    `inputs` are tensors for `graph.inputs` followed by its captures. `skip_side_effects`
    (used when a derivative recomputes a branch) leaves out assignments and prints.
    """
    taping = bool(context.tapes or context.accumulators)
    env: dict = dict(zip(graph.inputs + [vid for _, vid in graph.captures], inputs))
    values = graph.values
    link = None
    if len(context.tapes) > 1 and context.graph is None:
        link = _enter_call(graph, env)

    def get(v: int) -> Any:
        t = env.get(v)
        if t is None:
            info = values[v]
            t = env[v] = info.example if info.kind == "var" else wrap(info.example)
            if link is not None and info.kind == "const" and t._value.dtype.kind in "fc":
                t = env[v] = core.bind(_CALL_CONSTANT, [t, link])
        return t

    for node in graph.nodes:
        name = node.op_name
        if name == "ReadVariableOp":
            env[node.outputs[0]] = get(node.inputs[0]).value()
        elif name == "AssignVariableOp":
            if not skip_side_effects:
                get(node.inputs[0]).assign(get(node.inputs[1]))
        elif skip_side_effects and name == "PrintV2":
            continue
        else:
            attrs = node.attrs
            if taping and attrs.get("history") is False:
                attrs = {**attrs, "history": True}  # a loop a tape may differentiate
            result = core.bind(node.op, [get(v) for v in node.inputs], attrs)
            if node.op.multiple_results:
                env.update(zip(node.outputs, result))
            else:
                env[node.outputs[0]] = result
    return [get(v) for v in graph.outputs]


# Nested tapes over a tf.function call (TensorFlow's higher-order call path). TF records the
# call as one op whose backward is itself a function call, capturing the forward tensors its
# rules use (constants too): so once a backward pass reaches the call at all, every float
# input connected to an output gets a gradient, zeros where its rules gave none (TF 2.21:
# d2/dx2 of tf.function(lambda x: 2. * x) is 0, not None; d/dn polygamma(n, x) is 0).
# Replayed op by op, the call's connected inputs pass through one multi-output identity (the
# walk gives an output without a cotangent zeros once any has one), and its float constants
# through a link to that identity, so a rule capturing a constant reaches it too.
_CALL_INPUTS = core.Primitive("CallInputs", lambda *xs: xs, multiple_results=True,
                              shape_rule=lambda *xs: xs, register=False)
_CALL_INPUTS.defvjp(lambda gs, ans, *xs: tuple(gs))
_CALL_INPUTS.defjvp(lambda tangents, ans, *xs: tuple(tangents))
_CALL_CONSTANT = core.Primitive("CallConstant", lambda c, x: c, shape_rule=same_as_input,
                                register=False)
_CALL_CONSTANT.defvjp(lambda g, ans, c, x: (None, _zeros_like(x)))
_CALL_CONSTANT.defjvp(lambda tangents, ans, c, x: None)


def _zeros_like(x: Any) -> Any:
    return support().zeros_like(x)


def _enter_call(graph: Graph, env: dict) -> Any:
    """Routes the float inputs of `graph` connected to its outputs through _CALL_INPUTS (in
    `env`); returns one of its outputs for constants to link to, or None when there is none."""
    connected = graph.connected_inputs
    if connected is None:
        connected = graph.connected_inputs = _connected_inputs(graph)
    vids = [v for v in connected if isinstance(env.get(v), Tensor)
            and env[v]._value.dtype.kind in "fc"]
    if not vids:
        return None
    outs = core.bind(_CALL_INPUTS, [env[v] for v in vids])
    env.update(zip(vids, outs))
    return outs[0]


def _connected_inputs(graph: Graph) -> list:
    """The inputs (and captures) with a path to an output through differentiable ops."""
    starts = graph.inputs + [vid for _, vid in graph.captures]
    reach = {v: {v} for v in starts}
    for node in graph.nodes:
        if not getattr(node.op, "differentiable", False):
            continue
        found = set().union(*(reach.get(v, ()) for v in node.inputs))
        if found:
            for out in node.outputs:  # integer and boolean values carry no gradient
                if graph.values[out].dtype is not None and graph.values[out].dtype.kind in "fc":
                    reach[out] = found
    connected = set().union(*(reach.get(v, ()) for v in graph.outputs))
    return [v for v in starts if v in connected]


__all__ = ["Program", "compile_graph", "replay", "kernel_of"]
