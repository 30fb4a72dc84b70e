"""`tf.autodiff.ForwardAccumulator`: forward-mode automatic differentiation (JVPs).

An active accumulator sees every op through `autodiff.core.record` and pushes the tangents of
its inputs through the op's forward rule. `jvp_of` is the ONE place that decides which forward
rule an op gets:

1. an explicit rule set with `Primitive.defjvp`;
2. a linear op (reshape, sum, concat, ...): the op itself applied to the tangents;
3. a bilinear op (Mul, MatMul): the sum over inputs of the op with one input replaced by its
   tangent;
4. an elementwise op (sin, exp, div, ...), whose Jacobian is diagonal after broadcasting: the
   VJP rule applied to the tangent is the JVP (a diagonal matrix is its own transpose);
5. anything else: the JVP derived from the VJP by the double-VJP trick (as TensorFlow's
   ForwardAccumulator does): the VJP is linear in its cotangent `u`, so the gradient of
   `<vjp(u), tangent>` with respect to `u` is the JVP. Correct for every primitive with a VJP,
   at the price of one extra backward pass through the rule.

Other op families opt into the cheap cases by adding their primitive names to `LINEAR`,
`BILINEAR` or `ELEMENTWISE`; a name that is in none of them still gets a correct JVP (case 5).

Ordering, as in TensorFlow: tapes and accumulators entered after an accumulator do not see
the ops it runs to compute tangents; those entered before it do (that is how higher-order
forward mode, forward-over-reverse and reverse-over-forward work).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from tapeflow.autodiff.backprop import support
from tapeflow.framework import nest
from tapeflow.framework.dtypes import kind_of
from tapeflow.framework.context import context
from tapeflow.framework.tensor import TensorLike
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients, carries_gradient

logger = logging.getLogger("tapeflow")

def jvp_of(prim: Any, tangents: list, outputs: Any, inputs: tuple, attrs: dict) -> Any:
    """The output tangent(s) of one op application; `tangents` has None for inputs without one.

    Returns one tangent (or a tuple, for multiple-result ops), None where an output has none.
    """
    if prim.jvp is not None:
        return prim.jvp(tangents, outputs, *inputs, **attrs)
    if prim.linear:
        return _linear_jvp(prim, tangents, inputs, attrs)
    if prim.bilinear:
        return _bilinear_jvp(prim, tangents, inputs, attrs)
    if prim.elementwise:
        return _elementwise_jvp(prim, tangents, outputs, inputs, attrs)
    return _double_vjp_jvp(prim, tangents, outputs, inputs, attrs)


def _filled(tangents: list, inputs: tuple) -> tuple:
    ops = support()
    return tuple(ops.zeros_like(x) if t is None else t for t, x in zip(tangents, inputs))


def _linear_jvp(prim: Any, tangents: list, inputs: tuple, attrs: dict) -> Any:
    from tapeflow.autodiff.core import bind
    if prim.name in ("Cast", "Real") and not _is_float_dtype(attrs.get("dtype")):
        return None
    return bind(prim, _filled(tangents, inputs), attrs)


def _is_float_dtype(np_dtype: Any) -> bool:
    if isinstance(np_dtype, np.dtype):
        return kind_of(np_dtype) in "fc"  # bfloat16 (NumPy's kind 'V') is a float
    return np_dtype is None or getattr(np_dtype, "kind", "f") in "fc"


def _bilinear_jvp(prim: Any, tangents: list, inputs: tuple, attrs: dict) -> Any:
    from tapeflow.autodiff.core import bind
    ops = support()
    total = None
    for index, t in enumerate(tangents):
        if t is None:
            continue
        args = inputs[:index] + (t,) + inputs[index + 1:]
        term = bind(prim, args, attrs)
        total = term if total is None else ops.add(total, term)
    return total


def _elementwise_jvp(prim: Any, tangents: list, outputs: Any, inputs: tuple,
                     attrs: dict) -> Any:
    ops = support()
    shape = outputs._value.shape
    total = None
    for index, t in enumerate(tangents):
        if t is None:
            continue
        if t._value.shape != shape:
            t = ops.broadcast_to(t, shape)
        parts = prim.vjp(t, outputs, *inputs, **attrs)
        part = parts[index] if isinstance(parts, (tuple, list)) else parts
        if part is None:
            continue
        if part._value.shape != shape:
            part = ops.broadcast_to(part, shape)
        total = part if total is None else ops.add(total, part)
    return total


def _double_vjp_jvp(prim: Any, tangents: list, outputs: Any, inputs: tuple,
                    attrs: dict) -> Any:
    ops = support()
    outs = tuple(outputs) if prim.multiple_results else (outputs,)
    dummies = [ops.zeros_like(o) for o in outs]
    with GradientTape() as tape:
        tape.watch(dummies)
        cotangents = prim.vjp(tuple(dummies) if prim.multiple_results else dummies[0],
                              outputs, *inputs, **attrs)
        if not isinstance(cotangents, (tuple, list)):
            cotangents = (cotangents,)
        total = None
        for g, t in zip(cotangents, tangents):
            if g is None or t is None:
                continue
            g = ops.convert_to_tensor(g, dtype=t.dtype)
            term = ops.reduce_sum(g * t)  # broadcasting sums g back to t's shape
            total = term if total is None else ops.add(total, term)
    if total is None:
        return None
    result = tape.gradient(total, dummies, unconnected_gradients=UnconnectedGradients.ZERO)
    # The rules are holomorphic (J^T u for a complex op), so `total` is u^T J t; the tape
    # gives a complex gradient conjugated, as TF's convention, so conj(J t) comes back.
    result = [(ops.conj(r) if r.dtype.is_complex else r) if carries_gradient(o) else None
              for r, o in zip(result, outs)]
    return tuple(result) if prim.multiple_results else result[0]


class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff, as
    `tf.autodiff.ForwardAccumulator`.

    Args:
      primals: a tensor or variable, or a nested structure of them, to watch.
      tangents: the same structure, each element the "vector" of the JVP for its primal
        (converted to the primal's dtype).

    Use as a context manager: ops run inside it carry tangents, and `acc.jvp(y)` fetches
    y's tangent (no computation happens there), inside or after the context.
    """

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._recording = False
        self._tangents: dict = {}     # id -> (tensor kept alive, its tangent)
        self._outer_tapes: tuple = ()
        seen = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError(
                    "Tensor {} was specified as a primal multiple times. This may indicate an "
                    "error. If it was intended, please sum the corresponding tangents.")
            seen.add(id(primal))
        self._watch(primals, tangents)

    def _watch(self, primals: Any, tangents: Any) -> None:
        ops = support()
        flat_primals = nest.flatten(primals)
        flat_tangents = nest.flatten(tangents)
        nest.assert_same_structure(primals, tangents)
        for primal, tangent in zip(flat_primals, flat_tangents):
            if not isinstance(primal, TensorLike):
                primal = ops.convert_to_tensor(primal)
            if not carries_gradient(primal):
                logger.warning("The dtype of the watched primal must be floating (e.g. "
                               "tf.float32), got %r", primal.dtype)
            tangent = _convert_tangent(tangent, primal)
            previous = self._tangents.get(id(primal))
            if previous is not None:  # watching twice sums the tangents, as TensorFlow
                tangent = ops.add(previous[1], tangent)
            self._tangents[id(primal)] = (primal, tangent)

    # -- context --------------------------------------------------------------------------------
    def __enter__(self) -> "ForwardAccumulator":
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        self._outer_tapes = tuple(context.tapes)
        context.accumulators.append(self)
        context.refresh()
        self._recording = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recording:
            if self in context.accumulators:
                context.accumulators.remove(self)
            context.refresh()
            self._recording = False

    # -- pushing tangents (called by autodiff.core.record) ---------------------------------------
    def _push(self, prim: Any, inputs: Any, attrs: dict, outputs: Any) -> None:
        table = self._tangents
        found = False
        tangents = []
        for x in inputs:
            entry = table.get(id(x))
            if entry is None:
                tangents.append(None)
            else:
                tangents.append(entry[1])
                found = True
        if not found:
            return
        result = self._compute(prim, tangents, outputs, inputs, attrs)
        if prim.multiple_results:
            result = result if result is not None else (None,) * len(outputs)
            for out, t in zip(outputs, result):
                self._store(out, t)
        else:
            self._store(outputs, result)

    def _store(self, out: Any, tangent: Any) -> None:
        if tangent is None or not carries_gradient(out):
            return
        if not isinstance(tangent, TensorLike):
            tangent = support().convert_to_tensor(tangent, dtype=out.dtype)
        if tangent._value.shape != out._value.shape:
            tangent = support().broadcast_to(tangent, out._value.shape)
        self._tangents[id(out)] = (out, tangent)

    def _compute(self, prim: Any, tangents: list, outputs: Any, inputs: tuple,
                 attrs: dict) -> Any:
        """Runs the forward rule seen only by the tapes and accumulators entered before this
        one: later ones must not see (or hold on to) this accumulator's tangent work."""
        ctx = context
        saved_tapes, saved_accumulators = ctx.tapes, ctx.accumulators
        outer = self._outer_tapes
        ctx.tapes = [t for t in saved_tapes if any(t is o for o in outer)]
        position = next((i for i, a in enumerate(saved_accumulators) if a is self),
                        len(saved_accumulators))
        ctx.accumulators = saved_accumulators[:position]
        ctx.refresh()
        try:
            return jvp_of(prim, tangents, outputs, tuple(inputs), attrs)
        finally:
            ctx.tapes, ctx.accumulators = saved_tapes, saved_accumulators
            ctx.refresh()

    # -- fetching -------------------------------------------------------------------------------
    def jvp(self, primals: Any,
            unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE) -> Any:
        """The JVPs computed for `primals` (a tensor or nested structure), None (or zeros with
        `UnconnectedGradients.ZERO`) where a tensor does not depend on the watched primals."""
        mode = UnconnectedGradients(getattr(unconnected_gradients, "value",
                                            unconnected_gradients))

        def fetch(tensor: Any) -> Any:
            entry = self._tangents.get(id(tensor))
            if entry is not None:
                return entry[1]
            if mode is UnconnectedGradients.ZERO:
                return support().zeros_like(tensor)
            return None

        return nest.map_structure(fetch, primals)


def _convert_tangent(tangent: Any, primal: Any) -> Any:
    ops = support()
    if isinstance(tangent, TensorLike) and tangent.dtype != primal.dtype:
        raise ValueError(f"Tensor conversion requested dtype {primal.dtype.name} for Tensor "
                         f"with dtype {tangent.dtype.name}: {tangent!r}")
    return ops.convert_to_tensor(tangent, dtype=primal.dtype)


__all__ = ["ForwardAccumulator", "jvp_of"]
