"""`tf.py_function` and `tf.numpy_function`.

Eagerly both just call `func` (py_function with the tensors, so tapes see its ops;
numpy_function with NumPy arrays). Inside tf.function each is one stateful node, of unknown
output shapes as in TensorFlow, whose kernel calls `func` every time the graph runs.

py_function's node is differentiable as TensorFlow's EagerPyFunc: when a gradient may be
needed, its kernel runs `func` under a GradientTape and keeps the tape; the gradient node
pulls the cotangents back through that tape (running `func` again only when the tape is
gone). As in TensorFlow, that gradient has no gradient itself. numpy_function has none.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, OpError, UnimplementedError, \
    UnknownError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import wrap
from tapeflow.ops._convert import convert_to_tensor

_TOKENS = itertools.count()
_CACHE_LIMIT = 64   # tapes kept for gradients not (yet) asked for, per function


class _PyFunc:
    """One py_function/numpy_function call site: `func`, its output dtypes, TF's token name
    (`pyfunc_N`, in messages) and, for py_function, the tapes of recent runs."""

    def __init__(self, func: Callable, touts: list, eager: bool) -> None:
        self.func = func
        self.touts = touts
        self.eager = eager
        self.token = f"pyfunc_{next(_TOKENS)}"
        self.support_gradient = False   # set when a traced gradient will need the tapes
        self.tapes: dict = {}           # id(first output array) -> (tape, args, outputs)

    def __repr__(self) -> str:
        return f"<{self.token}: {getattr(self.func, '__name__', self.func)!r}>"

    def call(self, args: list) -> list:
        """Runs `func` on eager tensors; its results converted to `touts`."""
        try:
            ret = self.func(*args)
        except OpError:
            raise
        except Exception as exc:
            raise UnknownError(f"{type(exc).__name__}: {exc}") from exc
        if isinstance(ret, (tuple, list)):
            values = list(zip(ret, self.touts))   # as TensorFlow: extra results are dropped
        elif ret is None:
            values = []
        else:
            if not self.touts:
                raise UnknownError("IndexError: list index out of range")
            values = [(ret, self.touts[0])]
        try:
            outs = [convert_to_tensor(v, dtype=t) for v, t in values]
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{type(exc).__name__}: {exc}") from exc
        self._check_count(len(outs), "[Op:EagerPyFunc] name: ")
        return outs

    def _check_count(self, n: int, suffix: str = "") -> None:
        if n != len(self.touts):
            raise InvalidArgumentError(f"{self.token} returns {n} values, but expects to see "
                                       f"{len(self.touts)} values. {suffix}".rstrip())

    def run_with_tape(self, args: list) -> list:
        with GradientTape() as tape:
            for a in args:
                if a.dtype.is_floating:
                    tape.watch(a)
            outs = self.call(args)
        if outs:
            if len(self.tapes) >= _CACHE_LIMIT:
                self.tapes.pop(next(iter(self.tapes)))
            self.tapes[id(outs[0]._value)] = (tape, args, outs)
        return outs


def _tout_list(Tout: Any) -> tuple:
    """(the output dtypes, whether Tout was a list)."""
    is_list = isinstance(Tout, (list, tuple))
    items = list(Tout) if is_list else [Tout]
    try:
        return [_dtypes.as_dtype(t) for t in items], is_list
    except TypeError:
        raise TypeError(f"Cannot convert the argument `type_value`: {Tout!r} to a TensorFlow "
                        f"DType.") from None


def _check_args(op: Callable, op_name: str, func: Any, inp: Any, Tout: Any,
                **kwargs: Any) -> Optional[Callable]:
    """TensorFlow's argument checks; a decorator when `func` is None."""
    if Tout is None:
        raise TypeError(f"Missing required argument: 'Tout'\n  If using {op_name} as a "
                        f"decorator, set `Tout`\n  **by name** above the function:\n  "
                        f"`@{op_name}(Tout=tout)`")
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {op_name} as a "
                            f"decorator (`func=None`).")

        def decorator(fun: Callable) -> Callable:
            @functools.wraps(fun)
            def wrapper(*args: Any) -> Any:
                return op(fun, inp=args, Tout=Tout, **kwargs)
            return wrapper
        return decorator
    if inp is None:
        raise TypeError(f"Missing argument `inp`:\n  You must set the `inp` argument (the list "
                        f"of arguments to the\n  function), unless you use `{op_name}` as a "
                        f"decorator(`func=None`).")
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type "
                         f"{type(func)}.")
    return None


def _unknown_shapes(*avals: ShapedArray, func: _PyFunc) -> tuple:
    return tuple(ShapedArray(None, t.as_numpy_dtype) for t in func.touts)


def _placeholders(func: _PyFunc) -> tuple:
    # Tracing computes example values only: the function runs when the graph does.
    return tuple(np.zeros((), t.as_numpy_dtype) for t in func.touts)


# -- py_function ------------------------------------------------------------------------------

def _eager_py_func_impl(*arrays: Any, func: _PyFunc) -> tuple:
    if context.graph is not None:
        return _placeholders(func)
    args = [wrap(np.asarray(a)) for a in arrays]
    # A tape that records this run (a graph replayed under tapes) will want the gradient.
    outs = func.run_with_tape(args) if func.support_gradient or context.tapes \
        else func.call(args)
    return tuple(o._value for o in outs)


def _eager_py_func_grad_impl(*arrays: Any, func: _PyFunc, n_inputs: int) -> tuple:
    inputs = arrays[:n_inputs]
    n_out = len(func.touts)
    outs, gs = arrays[n_inputs:n_inputs + n_out], arrays[n_inputs + n_out:]
    if context.graph is not None:
        return tuple(np.zeros_like(a) for a in inputs)
    entry = func.tapes.pop(id(outs[0]), None) if outs else None
    if entry is None:   # the forward run kept no tape: run func again under one
        args = [wrap(np.asarray(a)) for a in inputs]
        with GradientTape() as tape:
            for a in args:
                if a.dtype.is_floating:
                    tape.watch(a)
            results = func.call(args)
        entry = (tape, args, results)
    tape, args, results = entry
    pairs = [(r, wrap(np.asarray(g))) for r, g in zip(results, gs) if r.dtype.is_floating]
    sources = [a for a in args if a.dtype.is_floating]
    grads = iter(tape.gradient([r for r, _ in pairs], sources,
                               output_gradients=[g for _, g in pairs],
                               unconnected_gradients=UnconnectedGradients.ZERO)
                 if pairs and sources else [wrap(np.zeros_like(s._value)) for s in sources])
    return tuple(np.asarray(next(grads)._value) if a.dtype.is_floating else np.zeros_like(
        a._value) for a in args)


def _eager_py_func_vjp(gs: list, ans: tuple, *inputs: Any, func: _PyFunc) -> tuple:
    if context.graph is not None:
        func.support_gradient = True   # the graph's forward runs must keep their tapes
    return bind(_EAGER_PY_FUNC_GRAD, (*inputs, *ans, *gs),
                {"func": func, "n_inputs": len(inputs)})


_EAGER_PY_FUNC = Primitive("EagerPyFunc", _eager_py_func_impl, multiple_results=True,
                           stateful=True, side_effect=True, shape_rule=_unknown_shapes)
_EAGER_PY_FUNC.defvjp(_eager_py_func_vjp)


def _eager_py_func_jvp(tangents: list, ans: tuple, *inputs: Any, func: _PyFunc) -> tuple:
    # Forward mode runs func again under an accumulator (the VJP's node has no derivative).
    if context.graph is not None:
        raise UnimplementedError("tf.py_function: forward-mode derivatives of a py_function "
                                 "traced inside tf.function are not supported [Op:EagerPyFunc]")
    from tapeflow.autodiff.forward import ForwardAccumulator
    args = [wrap(np.asarray(x._value)) for x in inputs]
    pairs = [(a, t) for a, t in zip(args, tangents) if t is not None and a.dtype.is_floating]
    with ForwardAccumulator([a for a, _ in pairs], [t for _, t in pairs]) as acc:
        outs = func.call(args)
    return tuple(acc.jvp(o, unconnected_gradients=UnconnectedGradients.ZERO) for o in outs)


_EAGER_PY_FUNC.defjvp(_eager_py_func_jvp)
# TensorFlow's gradient of a py_function is itself a py_function without a gradient.
_EAGER_PY_FUNC_GRAD = Primitive(
    "EagerPyFuncGrad", _eager_py_func_grad_impl, multiple_results=True, stateful=True,
    side_effect=True, differentiable=False,
    shape_rule=lambda *avals, func, n_inputs: tuple(avals[:n_inputs]))


@tf_export("py_function")
def py_function(func: Optional[Callable] = None, inp: Any = None, Tout: Any = None,
                name: Optional[str] = None) -> Any:
    """Calls `func` on eager tensors (also inside tf.function, on every run of the graph);
    its results have the dtypes `Tout` (a list for several, a single dtype for one)."""
    decorator = _check_args(py_function, "tf.py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    touts, is_list = _tout_list(Tout)
    inputs = [convert_to_tensor(x) for x in list(inp)]
    call = _PyFunc(func, touts, eager=True)
    if context.graph is None:
        outs = call.call(inputs)
    else:
        outs = list(bind(_EAGER_PY_FUNC, tuple(inputs), {"func": call}))
    return outs if is_list else outs[0]


# -- numpy_function ---------------------------------------------------------------------------

_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _c_name(dtype: Any) -> str:
    """TensorFlow's DataTypeString: the C name of a dtype."""
    name = _dtypes.as_dtype(dtype).name
    return _C_NAMES.get(name, name)


def _py_func_impl(*arrays: Any, func: _PyFunc) -> tuple:
    if context.graph is not None:
        return _placeholders(func)
    try:
        ret = func.func(*[np.array(a) for a in arrays])
    except OpError:
        raise
    except Exception as exc:
        raise UnknownError(f"{type(exc).__name__}: {exc}") from exc
    if isinstance(ret, bytes):
        ret = [ret]
    values = [np.asarray(v) for v in ret] if isinstance(ret, (tuple, list)) \
        else [np.asarray(ret)]
    func._check_count(len(values))
    for i, (v, t) in enumerate(zip(values, func.touts)):
        if _dtypes.from_numpy(v.dtype) != t:
            raise InvalidArgumentError(f"{i}-th value returned by {func.token} is "
                                       f"{_c_name(_dtypes.from_numpy(v.dtype))}, but expects "
                                       f"{_c_name(t)}")
    return tuple(values)


_PY_FUNC = Primitive("PyFunc", _py_func_impl, multiple_results=True, stateful=True,
                     side_effect=True, differentiable=False, shape_rule=_unknown_shapes)


@tf_export("numpy_function")
def numpy_function(func: Optional[Callable] = None, inp: Any = None, Tout: Any = None,
                   stateful: bool = True, name: Optional[str] = None) -> Any:
    """Calls `func` on NumPy arrays (also inside tf.function, on every run of the graph);
    it returns arrays of the dtypes `Tout`. No gradient flows through it."""
    decorator = _check_args(numpy_function, "tf.numpy_function", func, inp, Tout,
                            stateful=stateful, name=name)
    if decorator is not None:
        return decorator
    if context.graph is None:
        # As TensorFlow eagerly: Tout is not checked; one result comes back bare.
        ret = func(*[np.array(convert_to_tensor(x)._value) for x in inp])
        outs = [x if x is None else convert_to_tensor(x) for x in nest.flatten(ret)]
        return outs[0] if len(outs) == 1 else outs
    touts, is_list = _tout_list(Tout)
    inputs = [convert_to_tensor(x) for x in list(inp)]
    # Always stateful: a stateless one could be folded, running func while tracing.
    outs = list(bind(_PY_FUNC, tuple(inputs), {"func": _PyFunc(func, touts, eager=False)}))
    return outs if is_list else outs[0]
