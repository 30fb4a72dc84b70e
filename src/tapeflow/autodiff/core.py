"""The dispatch point: every operation on tensors runs through `bind`.

`bind` is the only code that knows the execution contexts (eager, recording tapes, forward
accumulators, tf.function traces). With none active an op costs one NumPy call and one object.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.framework.abstract import dims_text, same_as_input
from tapeflow.framework import variables as _variables
from tapeflow.framework.context import rerun_kernel, context, run_kernel
from tapeflow.framework.errors import InvalidArgumentError, OpError
from tapeflow.framework.tensor import Tensor, wrap

NO_ATTRS: dict = {}  # the attributes of an op that has none (shared: never mutated)

# Every primitive, by name: the registry-driven gradient test walks it.
REGISTRY: dict = {}


class Primitive:
    """An operation: a NumPy kernel plus its derivative rules.

    Args:
      name: TensorFlow's op name (`"AddV2"`, `"MatMul"`), shown in error messages.
      impl: the kernel, `impl(*arrays, **attrs) -> array` (a tuple when `multiple_results`).
      differentiable: False for ops whose outputs carry no gradient (comparisons, argmax,
        stop_gradient); tapes then do not record them, only note which watched values
        they cut off (for `GradientTape.explain`).
      stateful: True for ops whose result differs from run to run (random draws): compiled
        graphs never merge, fold or cache them.
      side_effect: True for ops whose effect is more than their outputs (printing, running
        branches that assign variables): compiled graphs never remove, merge or reorder them.
      shape_rule: `rule(*avals, **attrs)` from input `ShapedArray`s to the output's (a tuple
        for `multiple_results`); see `framework.abstract`. Tracing gives values their static
        shapes with it; every primitive declares one (tests/ops/test_shape_rules.py).
      linear: the output is linear in the inputs that carry tangents (forward mode pushes
        tangents through the op itself).
      bilinear: linear in each input separately (Mul, MatMul).
      elementwise: the VJP rule applied to a tangent is the JVP (elementwise ops).
      batch_safe: the VJP rule accepts a cotangent with an extra leading batch axis as
        written (vectorized jacobians push a whole batch through it); `defbatch` gives a
        separate batched rule instead.
      sparse_pass_through: the VJP hands the cotangent on unchanged, so an IndexedSlices
        cotangent stays sparse through it.

    A VJP rule is `vjp(g, ans, *inputs, **attrs) -> cotangent or tuple of cotangents`, one per
    input (None where there is none), or one rule per input (see `defvjp`), written with
    tapeflow ops so that the backward pass is itself recorded. The central machinery undoes
    broadcasting and drops cotangents for integer inputs, so rules need not.
    """

    __slots__ = ("name", "impl", "vjp", "vjps", "jvp", "multiple_results", "differentiable",
                 "stateful", "side_effect", "lowering", "shape_rule", "linear", "bilinear",
                 "elementwise", "batch_safe", "batch_vjp", "batch_vjps", "sparse_pass_through")

    def __init__(self, name: str, impl: Optional[Callable], *, multiple_results: bool = False,
                 differentiable: bool = True, stateful: bool = False, side_effect: bool = False,
                 shape_rule: Optional[Callable] = None, linear: bool = False,
                 bilinear: bool = False, elementwise: bool = False, batch_safe: bool = False,
                 sparse_pass_through: bool = False, register: bool = True) -> None:
        self.name = name
        self.impl = impl
        self.vjp: Optional[Callable] = None
        self.vjps: Optional[tuple] = None   # per-input rules, when given separately
        self.jvp: Optional[Callable] = None
        self.multiple_results = multiple_results
        self.differentiable = differentiable
        self.stateful = stateful
        self.side_effect = side_effect
        self.shape_rule = shape_rule
        self.linear = linear
        self.bilinear = bilinear
        self.elementwise = elementwise
        self.batch_safe = batch_safe
        self.batch_vjp: Optional[Callable] = None
        self.batch_vjps: Optional[tuple] = None   # per-input batched rules, when given so
        self.sparse_pass_through = sparse_pass_through
        # For tf.function's code generator: `lowering(**attrs)` gives the kernel as a Python
        # expression over NumPy with `{0}`, `{1}`... for the inputs (or None: call the kernel).
        self.lowering: Optional[Callable] = None
        if register:
            if name in REGISTRY:
                raise ValueError(f"primitive {name!r} is defined twice")
            REGISTRY[name] = self

    def defvjp(self, rule: Callable, *per_input: Callable) -> "Primitive":
        """Sets the reverse-mode rule; returns the primitive, for chaining.

        With one rule, it returns every input's cotangent. With one rule per input
        (`defvjp(rule_x, rule_y)`, each returning that input's cotangent or None), the
        backward pass runs only the rules of inputs that need a gradient.
        """
        if not per_input:
            self.vjp = rule
            return self
        rules = (rule,) + per_input
        self.vjps = rules
        self.vjp = lambda g, ans, *inputs, **attrs: tuple(
            r(g, ans, *inputs, **attrs) for r in rules)
        return self

    def defjvp(self, rule: Callable) -> "Primitive":
        """Sets the forward-mode rule `jvp(tangents, ans, *inputs, **attrs)`."""
        self.jvp = rule
        return self

    def defbatch(self, rule: Callable, *per_input: Callable) -> "Primitive":
        """Sets the batched VJP `rule(g, ans, *inputs, **attrs)`, where `g` has a leading
        batch axis, for vectorized jacobians (ops whose plain rule reshapes, transposes,
        reduces or slices and so is not batch-safe as written, or one a batch makes slow).
        With one rule per input (as `defvjp`), only those of inputs that need a gradient
        run."""
        if not per_input:
            self.batch_vjp = rule
            return self
        rules = (rule,) + per_input
        self.batch_vjps = rules
        self.batch_vjp = lambda g, ans, *inputs, **attrs: tuple(
            r(g, ans, *inputs, **attrs) for r in rules)
        return self

    def __repr__(self) -> str:
        return f"<Primitive {self.name}>"


def primitive(name: str, **kwargs: Any) -> Callable[[Callable], Primitive]:
    """Decorator form: `@primitive("Sin")` over a NumPy kernel gives a Primitive."""
    def make(impl: Callable) -> Primitive:
        return Primitive(name, impl, **kwargs)
    return make


# NumPy reports floating-point exceptions (x / 0, log(0), inf - inf) as RuntimeWarnings;
# TensorFlow's kernels are silent. Kernels run through the thread's `run_kernel` (see
# framework.context), whose NumPy error state ignores them. Compiled programs run their
# kernels inline: this filter (tapeflow's frames only, so a user's NumPy code still warns)
# silences them there.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tapeflow(\.|$)")

# What a NumPy kernel raises on bad input: bind turns these into TensorFlow's error classes.
KERNEL_ERRORS = (ValueError, TypeError, IndexError, ArithmeticError, np.linalg.LinAlgError)


def bind(prim: Primitive, inputs: Sequence[Any], attrs: dict = NO_ATTRS) -> Any:
    """Runs `prim` on `inputs` (Tensors or Variables) in every active context."""
    ctx = context.state
    if ctx.graph is not None:
        outputs = ctx.graph.bind(prim, inputs, attrs)
    else:
        # The hottest code in tapeflow: unary and binary ops without attributes skip the
        # generic argument packing.
        run = ctx.run_kernel
        try:
            if attrs:
                if len(inputs) == 1:
                    raw = run(prim.impl, inputs[0]._value, **attrs)
                elif len(inputs) == 2:
                    raw = run(prim.impl, inputs[0]._value, inputs[1]._value, **attrs)
                else:
                    raw = run(prim.impl, *[x._value for x in inputs], **attrs)
            elif len(inputs) == 2:
                raw = run(prim.impl, inputs[0]._value, inputs[1]._value)
            elif len(inputs) == 1:
                raw = run(prim.impl, inputs[0]._value)
            else:
                raw = run(prim.impl, *[x._value for x in inputs])
        except KERNEL_ERRORS as exc:
            raise op_error(prim, inputs, exc) from None
        except RuntimeError as exc:
            try:
                raw = rerun_kernel(prim.impl, [x._value for x in inputs], attrs, exc)
            except KERNEL_ERRORS as error:
                raise op_error(prim, inputs, error) from None
        if prim.multiple_results:
            outputs = tuple(map(wrap, raw))
        else:
            outputs = _new_tensor(Tensor)
            outputs._value = raw
    if ctx.active:
        if prim.differentiable:
            for tape in ctx.tapes:  # record(), inlined: this runs for every taped op
                tape._record(prim, inputs, attrs, outputs)
            for accumulator in ctx.accumulators:
                accumulator._push(prim, inputs, attrs, outputs)
        else:
            for tape in ctx.tapes:  # no gradient, but `explain` names the op that cut a path
                tape._block(prim, inputs, outputs)
    return outputs


_new_tensor = object.__new__


def bind_eager_binary(prim: Primitive, kernel: Callable, x: Tensor, y: Tensor, xv: Any,
                      yv: Any) -> Optional[Tensor]:
    """`bind(prim, (x, y))` for two eager tensors, computed as `kernel(xv, yv)` (their values,
    or for a constant operand an equal NumPy scalar): the arithmetic operators' fast path.

    `kernel` is Python's operator, which NumPy runs as `prim.impl` (the same ufunc loop, so
    the same bits) but, on NumPy scalars, without the ufunc's conversions (a 0-d result is a
    NumPy scalar, so a chain of scalar ops is all scalars). Returns None where `bind` must
    run instead: inside a trace, or where the kernel raised (bind reruns it and raises
    TensorFlow's error, or runs it nested inside another kernel).
    """
    ctx = context.state
    if ctx.graph is not None:
        return None
    try:
        raw = ctx.run_kernel(kernel, xv, yv)
    except OpError:  # check_numerics' report (autodiff.numerics), naming this op
        raise
    except Exception:  # noqa: BLE001 - the rare case: bind decides
        return None
    out = _new_tensor(Tensor)
    out._value = raw
    if ctx.active:
        inputs = (x, y)
        for tape in ctx.tapes:  # bind's recording, for a differentiable op without attributes
            tape._record(prim, inputs, NO_ATTRS, out)
        for accumulator in ctx.accumulators:
            accumulator._push(prim, inputs, NO_ATTRS, out)
    return out


def record(prim: Primitive, inputs: Sequence[Any], attrs: dict, outputs: Any) -> None:
    """Lets every active tape and forward accumulator see one op application."""
    ctx = context.state
    for tape in ctx.tapes:
        tape._record(prim, inputs, attrs, outputs)
    for accumulator in ctx.accumulators:
        accumulator._push(prim, inputs, attrs, outputs)


_BROADCAST = re.compile(r"could not be broadcast")


def shape_text(x: Any) -> str:
    """The shape of a tensor or array as TensorFlow writes it in errors: `[2,3]`."""
    return dims_text(np.shape(x._value if hasattr(x, "_value") else x))


def op_error(prim: Primitive, inputs: Sequence[Any], exc: Exception) -> Exception:
    """Turns a NumPy failure into TensorFlow's error class naming the op and the shapes."""
    if isinstance(exc, OpError):
        return exc
    message = str(exc)
    if _BROADCAST.search(message):
        message = "Incompatible shapes: " + " vs. ".join(shape_text(x) for x in inputs)
    else:
        shapes = ", ".join(f"{shape_text(x)} {x.dtype.name}" for x in inputs)
        message = f"{message} (inputs: {shapes})"
    return InvalidArgumentError(f"{message} [Op:{prim.name}]")


# -- variables ---------------------------------------------------------------------------------

READ_VARIABLE = Primitive("ReadVariableOp", lambda value: value, shape_rule=same_as_input,
                          linear=True, batch_safe=True,
                          sparse_pass_through=True).defvjp(lambda g, ans, v: g)
READ_VARIABLE.defjvp(lambda tangents, ans, v: tangents[0])


def _read_variable(variable: _variables.Variable) -> Tensor:
    # Variable.value() calls this only while a tape, accumulator or trace is active.
    ctx = context.state
    for watcher in ctx.variable_watchers:
        watcher.add(variable)
    if ctx.graph is not None or ctx.accumulators:
        for tape in ctx.tapes:
            tape._watch_read(variable)
        return bind(READ_VARIABLE, (variable,))
    # Only tapes: bind's eager path for this identity kernel, inlined (every layer's weights
    # are read this way on every training step).
    read = _new_tensor(Tensor)
    read._value = variable._value
    for tape in ctx.tapes:
        tape._record_read(variable, read)
    return read


_variables.hooks["read"] = _read_variable


__all__ = ["Primitive", "primitive", "bind", "record", "REGISTRY", "NO_ATTRS", "op_error",
           "run_kernel", "KERNEL_ERRORS",
           "shape_text", "dims_text", "READ_VARIABLE"]
