"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`.

All four are one loop, `_scan(step, elems, carry)`: `step(carry, example) -> (carry, outputs)`
runs once per example (slice along axis 0 of every `elems` tensor); the outputs are stacked and
the last carry returned. map_fn carries nothing; scan outputs its carry; the folds output
nothing.

Eagerly the loop is Python over tapeflow ops, so tapes record what ran. Inside tf.function the
step is traced once into a loop body and one `Scan` op runs it over however many examples the
call brings (a `[None, 3]` signature traces once; a static n is not unrolled). The op records
the carry at the start of every step, and its VJP is a reverse `_scan` of the body's VJP over
that record, built with tapeflow ops, so higher derivatives work eagerly and traced.

map_fn runs `fn` once per example; it is not vectorized (tapeflow's batching rules are VJP
rules for jacobians, not a batching interpreter for arbitrary `fn`).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import bind
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.abstract import AbstractArray, ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, OutOfRangeError
from tapeflow.framework.ragged_tensor import RaggedTensor, RaggedTensorSpec, is_symbolic
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.graph.ir import Graph, tracing
from tapeflow.ops import array_ops, reduce_ops
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.control_flow_ops import _Branch, _check_loop_outputs, _known_zero, \
    _union_captures, control_primitives
from tapeflow.ops.math_ops import add, zeros_like


# -- the loop ---------------------------------------------------------------------------------

class _Spec:
    """What one stacked output must hold, checked as TensorFlow's TensorArray writes are:
    `dtype` (None: anything) and `shape` (None: inferred from the first write, when
    `infer_shape`)."""

    def __init__(self, dtype: Any = None, shape: Any = None, infer_shape: bool = True) -> None:
        self.dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        self.shape = None if shape is None else TensorShape(shape)
        self.infer_shape = infer_shape

    def check(self, value: Tensor) -> None:
        if self.dtype is not None and value.dtype != self.dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self.dtype.name} but Op is trying "
                                       f"to write dtype {value.dtype.name} ")
        if not self.infer_shape:
            return
        if self.shape is None:
            self.shape = value.shape
        elif not self.shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected "
                             f"({self.shape})")
        else:
            self.shape = self.shape.merge_with(value.shape)

    def empty(self, dtype: Any) -> Tensor:
        """The stack of no writes: `(0,) + shape` where the shape is known, else `(0,)`."""
        known = self.shape is not None and self.shape.is_fully_defined()
        dims = (0, *self.shape.as_list()) if known else (0,)
        return convert_to_tensor(np.zeros(dims, _dtypes.as_dtype(self.dtype or dtype)
                                          .as_numpy_dtype))


def _scan(step: Callable, elems: list, carry: list, reverse: bool = False,
          specs: Optional[list] = None, name: str = "scan") -> tuple:
    """(stacked outputs, final carry) of `step` over the examples of `elems` (flat lists)."""
    if context.graph is None:
        return _eager_scan(step, elems, carry, reverse, specs)
    return _traced_scan(step, elems, carry, reverse, specs, name)


def _eager_scan(step: Callable, elems: list, carry: list, reverse: bool,
                specs: Optional[list]) -> tuple:
    n = int(elems[0].shape[0]) if elems else 0
    columns = [array_ops.unstack(e) for e in elems] if n else [[] for _ in elems]
    rows: list = [None] * n
    for i in (reversed(range(n)) if reverse else range(n)):
        carry, out = step(list(carry), [c[i] for c in columns])
        if specs is not None:
            for spec, value in zip(specs, out):
                spec.check(value)
        rows[i] = out
    if not n:
        outs = [spec.empty(None) for spec in specs or []]
    else:
        outs = [array_ops.stack([row[k] for row in rows]) for k in range(len(rows[0]))]
    return outs, list(carry)


def _traced_scan(step: Callable, elems: list, carry: list, reverse: bool,
                 specs: Optional[list], name: str) -> tuple:
    graph = Graph(f"{name}_body", parent=context.graph, allow_variable_creation=False)
    carry_in = [graph.placeholder(c._value, f"{name}_carry{i}", c.shape)
                for i, c in enumerate(carry)]
    elem_in = [graph.placeholder(_first_example(e), f"{name}_elem{i}", e.shape[1:],
                                 dtype=e._value.dtype) for i, e in enumerate(elems)]
    with tracing(graph, suspend_tapes=True):
        new_carry, outs = step(list(carry_in), elem_in)
        graph.outputs = [graph.value_id(x) for x in list(new_carry) + list(outs)]
    _check_loop_outputs(carry, new_carry, [c.shape for c in carry])
    for spec, value in zip(specs or [], outs):
        spec.check(value)
    # Variables the body assigns are read anew on each step, as in tf.while_loop.
    graph.read_live(graph.assigned)
    context.graph.assigned |= graph.assigned
    body = _Branch(graph, None)
    captures = _union_captures([body])
    prim = _SCAN if body.stateful else _STATELESS_SCAN
    attrs = {"body": body, "n_elems": len(elems), "n_carry": len(carry), "reverse": reverse}
    results = bind(prim, (*elems, *carry, *captures), attrs)
    n_out = len(results) - 2 * len(carry)
    return list(results[:n_out]), list(results[n_out:n_out + len(carry)])


def _first_example(e: Tensor) -> Any:
    # The first example's value, where the trace knows it, checks `fn` as eagerly.
    value = e._value
    return value[0] if type(value) is not AbstractArray and np.shape(value)[:1] not in \
        ((), (0,)) else None


# -- the Scan op ------------------------------------------------------------------------------

def _leading_size(elems: Sequence) -> int:
    sizes = {np.shape(e)[0] for e in elems}
    if len(sizes) > 1:
        raise InvalidArgumentError(f"Tensors to unstack must have the same first dimension, "
                                   f"got {sorted(sizes)} [Op:Scan]")
    return sizes.pop() if sizes else 0


def _stacked(rows: list, aval: ShapedArray) -> np.ndarray:
    if rows:
        return np.stack(rows)
    if not aval.is_fully_defined():
        dims = "<unknown>" if aval.shape is None else \
            "[" + ",".join("?" if d is None else str(d) for d in aval.shape) + "]"
        raise InvalidArgumentError(f"Tried to stack elements of an empty list with "
                                   f"non-fully-defined element_shape: {dims}")
    return np.zeros((0, *aval.shape), aval.dtype)


def _scan_impl(*inputs: Any, body: _Branch, n_elems: int, n_carry: int, reverse: bool) -> tuple:
    # inputs: the elems, the initial carry, the captured values.
    elems = inputs[:n_elems]
    carry = list(inputs[n_elems:n_elems + n_carry])
    captures = inputs[n_elems + n_carry:]
    n = _leading_size(elems)
    rows: list = [None] * n
    trail: list = [None] * n     # the carry at the start of each step, for the VJP
    for i in (reversed(range(n)) if reverse else range(n)):
        trail[i] = carry
        result = body.run(carry + [e[i] for e in elems], captures)
        carry, rows[i] = list(result[:n_carry]), result[n_carry:]
    avals = [body.graph.values[v].aval for v in body.graph.outputs[n_carry:]]
    outs = [_stacked([row[k] for row in rows], a) for k, a in enumerate(avals)]
    start = inputs[n_elems:n_elems + n_carry]
    history = [np.stack([t[j] for t in trail]) if n else
               np.zeros((0, *np.shape(start[j])), np.asarray(start[j]).dtype)
               for j in range(n_carry)]
    return (*outs, *carry, *history)


def _scan_rule(*avals: ShapedArray, body: _Branch, n_elems: int, n_carry: int,
               reverse: bool) -> tuple:
    # The stacked outputs; the final carry (its invariant: the body's placeholders); the
    # carry history.
    lead = next((a.shape[0] for a in avals[:n_elems]
                 if a.shape is not None and a.shape[0] is not None), None)
    values = body.graph.values
    carry = [values[v].aval for v in body.graph.inputs[:n_carry]]
    outs = [values[v].aval for v in body.graph.outputs[n_carry:]]

    def stacked(a: ShapedArray) -> ShapedArray:
        return ShapedArray(None if a.shape is None else (lead, *a.shape), a.dtype)
    return (*map(stacked, outs), *carry, *map(stacked, carry))


def _floating(xs: Sequence) -> list:
    return [i for i, x in enumerate(xs) if x.dtype.is_floating]


def _scan_vjp(gs: list, ans: tuple, *inputs: Tensor, body: _Branch, n_elems: int,
              n_carry: int, reverse: bool) -> tuple:
    elems = inputs[:n_elems]
    init = inputs[n_elems:n_elems + n_carry]
    captures = inputs[n_elems + n_carry:]
    n_out = len(ans) - 2 * n_carry
    g_outs, g_final, g_history = gs[:n_out], gs[n_out:n_out + n_carry], gs[n_out + n_carry:]
    history = ans[n_out + n_carry:]
    fc, fe, fk = _floating(init), _floating(elems), _floating(captures)
    live_out = [k for k in _floating(ans[:n_out]) if not _known_zero(g_outs[k])]
    live_hist = [j for j in fc if not _known_zero(g_history[j])]

    def back(g_carry: list, xs: list) -> tuple:
        # One step backwards: pull the carry's and the outputs' cotangents back through the
        # body at this step's recorded carry and example.
        c_prev, x = xs[:n_carry], xs[n_carry:n_carry + n_elems]
        g_o = xs[n_carry + n_elems:n_carry + n_elems + len(live_out)]
        g_h = xs[n_carry + n_elems + len(live_out):]
        sources = [c_prev[j] for j in fc] + [x[j] for j in fe] + [captures[k] for k in fk]
        with GradientTape() as tape:
            for s in sources:
                tape.watch(s)
            result = body.replay(list(c_prev) + list(x), captures)
        targets = [result[j] for j in fc] + [result[n_carry + k] for k in live_out]
        seeds = list(g_carry) + list(g_o)
        grads = tape.gradient(targets, sources, output_gradients=seeds,
                              unconnected_gradients=UnconnectedGradients.ZERO) \
            if targets and sources else [zeros_like(s) for s in sources]
        g_prev = list(grads[:len(fc)])
        for j, g in zip(live_hist, g_h):   # the carry was also an output (the history)
            g_prev[fc.index(j)] = add(g_prev[fc.index(j)], g)
        return g_prev, list(grads[len(fc):])

    n = elems[0].shape[0] if elems else 0
    if n == 0:
        g_init, stacked = [g_final[j] for j in fc], [zeros_like(elems[j]) for j in fe] + \
            [array_ops.expand_dims(zeros_like(captures[k]), 0) for k in fk]
    else:
        xs = list(history) + list(elems) + [g_outs[k] for k in live_out] + \
            [g_history[j] for j in live_hist]
        stacked, g_init = _scan(back, xs, [g_final[j] for j in fc], not reverse,
                                name="scan_grad")
    grads: list = [None] * len(inputs)
    for j, g in zip(fe, stacked):
        grads[j] = g
    for j, g in zip(fc, g_init):
        grads[n_elems + j] = g
    for k, g in zip(fk, stacked[len(fe):]):
        grads[n_elems + n_carry + k] = reduce_ops.reduce_sum(g, axis=0)
    return tuple(grads)


_STATELESS_SCAN, _SCAN = control_primitives("Scan", _scan_impl, _scan_rule, _scan_vjp)


# -- the public functions ---------------------------------------------------------------------

def _check_callable(fn: Any) -> None:
    if not callable(fn):
        # TensorFlow's functional ops read fn.__name__ first.
        raise AttributeError(f"'{type(fn).__name__}' object has no attribute '__name__'")


def _flat_tensors(elems: Any) -> list:
    return [convert_to_tensor(e) for e in nest.flatten(elems)]


def _loop_size(flat: list) -> Optional[int]:
    """The static number of examples of scan's and the folds' `elems` (TensorFlow unstacks
    each into a TensorArray sized by the first)."""
    if flat[0].shape.rank == 0:
        raise IndexError("tuple index out of range")   # TensorFlow's, from shape[0]
    n = flat[0].shape.as_list()[0] if flat[0].shape.rank else None
    for e in flat[1:]:
        m = e.shape.as_list()[0] if e.shape.rank else None
        if n is not None and m is not None and m != n:
            raise ValueError(f"Cannot unstack {m} tensors into a TensorArray of static size "
                             f"{n} ")
    return n


def _split_first(flat: list, reverse: bool) -> tuple:
    """(the first example, the rest): the accumulator's start when no initializer is given."""
    n = flat[0].shape.as_list()[0]
    if n == 0 and context.graph is None:
        raise OutOfRangeError("Reading from negative indices (index -1) is not allowed."
                              if reverse else "Tried to read from index 0 but array size is: 0 ")
    if reverse:
        return [e[-1] for e in flat], [e[:-1] for e in flat]
    return [e[0] for e in flat], [e[1:] for e in flat]


def _to_output(value: Any, spec: Optional[_Spec] = None) -> Tensor:
    # As TensorArray.write: a Python value takes the array's dtype where it can.
    if spec is not None and spec.dtype is not None and not isinstance(value, TensorLike):
        try:
            return convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            pass
    return convert_to_tensor(value)


def _signature_spec(sig: Any, infer_shape: bool) -> _Spec:
    if hasattr(sig, "dtype") and hasattr(sig, "shape") and not isinstance(sig, _dtypes.DType):
        if type(sig).__name__ != "TensorSpec":
            raise TypeError(f"tf.map_fn: tapeflow supports fn_output_signature of dtypes and "
                            f"tf.TensorSpec only, got {sig!r}.")
        return _Spec(sig.dtype, sig.shape, infer_shape)
    return _Spec(sig, None, infer_shape)


@tf_export("map_fn")
def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: Any = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None, fn_output_signature: Any = None) -> Any:
    """`fn` applied to each example (slice along axis 0) of `elems`, the results stacked.

    `elems` is a tensor or a nested structure of tensors sharing their first dimension; `fn`
    gets one example in that structure. Its outputs must have the structure and dtypes of
    `fn_output_signature` (`dtype` is its old name), which defaults to `elems`' own.
    """
    _check_callable(fn)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if _any_ragged(elems, signature):
        return _ragged_map(fn, elems, signature, infer_shape)
    flat = _flat_tensors(elems)
    if not flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. "
                         f"Got {elems}, which does not contain any Tensors.")
    n = None
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        m = e.shape.as_list()[0] if e.shape.rank else None
        if n is not None and m is not None and m != n:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
        n = m if n is None else n
    if signature is None:
        signature = nest.pack_sequence_as(elems, [e.dtype for e in flat])
    specs = [_signature_spec(s, infer_shape) for s in nest.flatten(signature)]
    packed_elems = nest.pack_sequence_as(elems, flat)

    def step(carry: list, example: list) -> tuple:
        result = fn(nest.pack_sequence_as(packed_elems, example))
        nest.assert_same_structure(signature, result, check_types=False)
        return [], [_to_output(v, s) for v, s in zip(nest.flatten(result), specs)]

    outs, _ = _scan(step, flat, [], False, specs, "map")
    return nest.pack_sequence_as(signature, outs)


def _any_ragged(elems: Any, signature: Any) -> bool:
    return any(type(e) is RaggedTensor for e in nest.flatten(elems)) or \
        any(type(s) is RaggedTensorSpec for s in nest.flatten(signature))


def _ragged_map(fn: Callable, elems: Any, signature: Any, infer_shape: bool) -> Any:
    """map_fn where an input or an output is ragged, as TF's: `fn` gets each row (a Tensor,
    or a RaggedTensor for ragged_rank > 1); a RaggedTensorSpec output stacks the rows `fn`
    returns (which must fit it exactly) into a RaggedTensor of one more ragged dimension.

    The loop runs in Python where the rows are known as it is called (eagerly, or a trace
    whose ragged inputs have constant partitions: the loop is unrolled); rows known only as
    a traced graph runs go through `_traced_ragged_map`'s while loop."""
    from tapeflow.ops import ragged_ops
    flat = [e if type(e) is RaggedTensor else convert_to_tensor(e) for e in nest.flatten(elems)]
    n = None
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        m = e.shape.as_list()[0]
        if n is not None and m is not None and m != n:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
        n = m if n is None else n
    if signature is None:   # each input's row: a RaggedTensor's has one ragged dim fewer
        signature = nest.pack_sequence_as(elems, [ragged_ops.row_spec(e) if type(e) is
                                                  RaggedTensor else e.dtype for e in flat])
    specs = [s if type(s) is RaggedTensorSpec else _signature_spec(s, infer_shape)
             for s in nest.flatten(signature)]
    packed = nest.pack_sequence_as(elems, flat)
    if n is None or any(type(e) is RaggedTensor and is_symbolic(e) for e in flat):
        return _traced_ragged_map(fn, packed, flat, signature, specs)
    columns: list = [[] for _ in specs]
    for i in range(n):
        result = fn(nest.pack_sequence_as(packed, [e[i] for e in flat]))
        nest.assert_same_structure(signature, result, check_types=False)
        for column, value, spec in zip(columns, nest.flatten(result), specs):
            if type(spec) is RaggedTensorSpec:
                ragged_ops.check_map_output(value, spec)
            elif type(value) is RaggedTensor:
                raise ValueError("TypeError: object of type 'RaggedTensor' has no len()\n")
            else:
                value = _to_output(value, spec)
                spec.check(value)
            column.append(value)
    outs = [ragged_ops.stack_map_rows(column, spec) if type(spec) is RaggedTensorSpec else
            array_ops.stack(column) if column else spec.empty(None)
            for column, spec in zip(columns, specs)]
    return nest.pack_sequence_as(signature, outs)


def _traced_ragged_map(fn: Callable, packed: Any, flat: list, signature: Any,
                       specs: list) -> Any:
    """map_fn over rows known only as the graph runs (a traced partition or row count): a
    `tf.while_loop` over the row indices, `fn` traced once. Dense outputs are written to
    TensorArrays and stacked; a RaggedTensorSpec output's rows are concatenated (their flat
    values and row lengths, as loop variables of growing shape) and partitioned after it."""
    from tapeflow.ops import ragged_ops
    from tapeflow.ops.control_flow_ops import while_loop
    from tapeflow.ops.tensor_array_ops import TensorArray
    first = flat[0]
    count = first.nrows(out_type=_dtypes.int32) if type(first) is RaggedTensor else \
        array_ops.shape(first)[0]
    accs, shapes = [], []
    for spec in specs:
        if type(spec) is RaggedTensorSpec:
            acc, acc_shapes = ragged_ops.map_rows_start(spec)
            accs.append(acc)
            shapes.append(acc_shapes)
        else:
            accs.append(TensorArray(spec.dtype, size=count, infer_shape=spec.infer_shape,
                                    element_shape=spec.shape))
            shapes.append(TensorShape(None))

    def body(i: Tensor, *accs: Any) -> tuple:
        result = fn(nest.pack_sequence_as(packed, [e[i] for e in flat]))
        nest.assert_same_structure(signature, result, check_types=False)
        out = []
        for acc, value, spec in zip(accs, nest.flatten(result), specs):
            if type(spec) is RaggedTensorSpec:
                ragged_ops.check_map_output(value, spec)
                out.append(ragged_ops.map_rows_add(acc, value))
            elif type(value) is RaggedTensor:
                raise ValueError("TypeError: object of type 'RaggedTensor' has no len()\n")
            else:
                value = _to_output(value, spec)
                spec.check(value)
                out.append(acc.write(i, value))
        return (add(i, 1), *out)

    start = convert_to_tensor(np.int32(0))
    _, *accs = while_loop(lambda i, *_: i < count, body, [start, *accs],
                          shape_invariants=[TensorShape([]), *shapes])
    outs = [ragged_ops.map_rows_stack(acc) if type(spec) is RaggedTensorSpec else
            acc.stack() for acc, spec in zip(accs, specs)]
    return nest.pack_sequence_as(signature, outs)


def _accumulate(fn: Callable, elems: Any, initializer: Any, reverse: bool, infer_shape: bool,
                stacked: bool, name: str) -> Any:
    """scan (`stacked`: every accumulator, stacked) and the folds (the last one)."""
    _check_callable(fn)
    flat = _flat_tensors(elems)
    _loop_size(flat)
    packed_elems = nest.pack_sequence_as(elems, flat)
    if initializer is None:
        structure = packed_elems
        start, flat = _split_first(flat, reverse)
    else:
        structure = initializer
        start = _flat_tensors(initializer)

    def step(carry: list, example: list) -> tuple:
        result = fn(nest.pack_sequence_as(structure, carry),
                    nest.pack_sequence_as(packed_elems, example))
        nest.assert_same_structure(structure, result, check_types=False)
        new = [convert_to_tensor(v) for v in nest.flatten(result)]
        return new, (new if stacked else [])

    specs = [_Spec(c.dtype, c.shape if infer_shape else None, infer_shape) for c in start] \
        if stacked else None
    outs, final = _scan(step, flat, start, reverse, specs, name)
    if not stacked:
        return nest.pack_sequence_as(structure, final)
    if initializer is None:   # the first example is the first accumulator
        firsts = [array_ops.expand_dims(s, 0) for s in start]
        outs = [array_ops.concat([o, f] if reverse else [f, o], 0)
                for f, o in zip(firsts, outs)]
    return nest.pack_sequence_as(structure, outs)


@tf_export("scan")
def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: Optional[str] = None) -> Any:
    """The accumulators `a = fn(a, x)` over the examples `x` of `elems` (from the last when
    `reverse`), stacked; `a` starts as `initializer`, or as the first example (which is then
    also the first output)."""
    return _accumulate(fn, elems, initializer, reverse, infer_shape, True, "scan")


@tf_export("foldl")
def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """The last accumulator `a = fn(a, x)` over the examples of `elems`, first to last."""
    return _accumulate(fn, elems, initializer, False, True, False, "foldl")


@tf_export("foldr")
def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """The last accumulator `a = fn(a, x)` over the examples of `elems`, last to first."""
    return _accumulate(fn, elems, initializer, True, True, False, "foldr")
