"""Fused optimizer updates: one kernel per variable for Keras's Adam, SGD, RMSprop, Adagrad.

Each kernel runs the same float operations as the optimizer's op-by-op `update_step`, in the
same order and dtype, with NumPy ufuncs, so its results are bitwise equal to it: only the
per-op dispatch and most temporaries go. A kernel takes the variable's value and its slots'
values (the state), the gradient and the step's scalars, and returns the new state; with
`out` (one array or None per state value) it writes each new value into the given array,
which the caller has proven nothing else can see (`Variable._owns_value`); with `scratch`,
it may also overwrite the gradient (a compiled program's dying buffer). As primitives
(`ApplyAdam`...), `tf.function` records one node per variable (its outputs abstract while
tracing: an example would be a second copy of the optimizer's state); the compiled program
calls `variable_update`'s kernel on the variables themselves, which updates them in place
when they own their arrays.

Scalars are 0-d arrays of the variable's dtype: Adam (alpha, 1 - beta_1, 1 - beta_2, epsilon),
SGD (lr, momentum), RMSprop (lr, rho, 1 - rho, momentum, epsilon), Adagrad (lr, epsilon).
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import Primitive
from tapeflow.framework.variables import owns_value
from tapeflow.graph.compiler import VARIABLE_UPDATES
from tapeflow.graph.ir import ABSTRACT_AT_TRACE

Out = Optional[Sequence[Optional[np.ndarray]]]


def _outs(out: Out, n: int) -> Sequence[Optional[np.ndarray]]:
    return (None,) * n if out is None else out


def adam(var: np.ndarray, m: np.ndarray, v: np.ndarray, *rest: Any, amsgrad: bool = False,
         out: Out = None, scratch: bool = False) -> tuple:
    """Keras Adam: m += (g - m) * (1 - b1); v += (g**2 - v) * (1 - b2) (amsgrad: v_hat =
    max(v_hat, v)); var -= (m * alpha) / (sqrt(v) + eps). `rest` is ([v_hat,] g, alpha,
    1 - b1, 1 - b2, eps); returns (var, m, v[, v_hat])."""
    if out is None and not amsgrad and not scratch:
        return _adam_fresh(var, m, v, *rest)
    v_hat, rest = (rest[0], rest[1:]) if amsgrad else (None, rest)
    g, alpha, c1, c2, eps = rest
    o_var, o_m, o_v, o_hat = (out if amsgrad else (*out, None)) if out else (None,) * 4
    # Four arrays at most (three with `scratch`: g's buffer is the first temporary): a new m
    # or v goes into its temporary unless written in place, and a temporary freed that way
    # holds the variable's step.
    s = np.square(g)
    t = np.subtract(g, m, g if scratch else None)
    np.multiply(t, c1, t)
    m = np.add(m, t, t if o_m is None else o_m)
    np.subtract(s, v, s)
    np.multiply(s, c2, s)
    v = np.add(v, s, s if o_v is None else o_v)
    if amsgrad:
        v_hat = np.maximum(v_hat, v, out=o_hat)
    step = np.multiply(m, alpha, None if t is m else t)
    d = np.sqrt(v_hat if amsgrad else v, None if s is v else s)
    np.add(d, eps, d)
    np.true_divide(step, d, step)
    var = np.subtract(var, step, step if o_var is None else o_var)
    return (var, m, v, v_hat) if amsgrad else (var, m, v)


def _adam_fresh(var: np.ndarray, m: np.ndarray, v: np.ndarray, g: np.ndarray, alpha: Any,
                c1: Any, c2: Any, eps: Any, subtract: Any = np.subtract,
                multiply: Any = np.multiply, add: Any = np.add) -> tuple:
    # `adam` into fresh arrays, its operations written out (the traced step's kernel).
    t = subtract(g, m)
    multiply(t, c1, t)
    m = add(m, t, t)
    s = np.square(g)
    subtract(s, v, s)
    multiply(s, c2, s)
    v = add(v, s, s)
    step = multiply(m, alpha)
    d = np.sqrt(v)
    add(d, eps, d)
    np.true_divide(step, d, step)
    return subtract(var, step, step), m, v


def sgd(var: np.ndarray, *rest: Any, momentum: bool = False, nesterov: bool = False,
        out: Out = None, scratch: bool = False) -> tuple:
    """Keras SGD: var -= g * lr; with momentum m = m * momentum - g * lr, then var += m
    (nesterov: var += m * momentum - g * lr). `rest` is ([m,] g, lr, momentum); returns
    (var[, m])."""
    if not momentum:
        g, lr, _ = rest
        o_var, = _outs(out, 1)
        return (np.subtract(var, np.multiply(g, lr, g if scratch else None), o_var),)
    m, g, lr, mu = rest
    o_var, o_m = _outs(out, 2)
    step = np.multiply(g, lr, g if scratch else None)
    t = np.multiply(m, mu)
    m = np.subtract(t, step, o_m)
    if nesterov:
        np.multiply(m, mu, t)
        np.subtract(t, step, t)
        return np.add(var, t, o_var), m
    return np.add(var, m, o_var), m


def rmsprop(var: np.ndarray, velocity: np.ndarray, *rest: Any, momentum: bool = False,
            centered: bool = False, out: Out = None, scratch: bool = False) -> tuple:
    """Keras RMSprop: vel = rho * vel + (1 - rho) * g**2 (centered: avg = rho * avg +
    (1 - rho) * g, denominator vel - avg**2 + eps, else vel + eps); inc = lr * g /
    sqrt(denominator); var -= inc, or with momentum mom = momentum * mom + inc, var -= mom.
    `rest` is ([mom,] [avg,] g, lr, rho, 1 - rho, momentum, eps); returns (var, vel[, mom]
    [, avg]). It reads g to the end: `scratch` gives it no buffer."""
    n = 2 + momentum + centered
    mom = rest[0] if momentum else None
    avg = rest[n - 3] if centered else None
    g, lr, rho, one_minus_rho, mu, eps = rest[n - 2:]
    outs = _outs(out, n)
    o_var, o_vel = outs[0], outs[1]
    t = np.multiply(rho, velocity)
    s = np.square(g)
    np.multiply(one_minus_rho, s, s)
    velocity = np.add(t, s, o_vel)
    if centered:
        np.multiply(rho, avg, t)
        np.multiply(one_minus_rho, g, s)
        avg = np.add(t, s, outs[n - 1])
        np.square(avg, s)
        np.subtract(velocity, s, s)
        np.add(s, eps, s)
    else:
        np.add(velocity, eps, s)
    np.sqrt(s, s)
    np.multiply(lr, g, t)
    np.true_divide(t, s, t)
    new = (velocity,)
    if momentum:
        np.multiply(mu, mom, s)
        mom = np.add(s, t, outs[2])
        t = mom
        new += (mom,)
    if centered:
        new += (avg,)
    return (np.subtract(var, t, o_var),) + new


def adagrad(var: np.ndarray, accumulator: np.ndarray, g: np.ndarray, lr: Any, eps: Any,
            out: Out = None, scratch: bool = False) -> tuple:
    """Keras Adagrad: acc += g**2; var -= lr * g / sqrt(acc + eps); returns (var, acc)."""
    o_var, o_acc = _outs(out, 2)
    s = np.square(g)
    accumulator = np.add(accumulator, s, o_acc)
    np.add(accumulator, eps, s)
    np.sqrt(s, s)
    t = np.multiply(lr, g, g if scratch else None)
    np.true_divide(t, s, t)
    return np.subtract(var, t, o_var), accumulator


def _state_rule(count: Any) -> Any:
    """The shape rule of an update: its outputs are shaped and typed as its state inputs."""
    def rule(*avals: Any, **attrs: Any) -> tuple:
        return tuple(avals[:count(**attrs)])
    return rule


_STATE_COUNTS: dict = {}   # primitive -> count(**attrs): how many state inputs (and outputs)


def _update_primitive(name: str, kernel: Any, count: Any) -> Primitive:
    prim = Primitive(name, kernel, multiple_results=True, differentiable=False,
                     shape_rule=_state_rule(count), register=True)
    _STATE_COUNTS[prim] = count
    ABSTRACT_AT_TRACE.add(prim)
    return prim


def state_count(prim: Any, attrs: dict) -> Optional[int]:
    """How many of `prim`'s first inputs are variable state it returns updated (None where
    `prim` is no optimizer update)."""
    count = _STATE_COUNTS.get(prim)
    return None if count is None else count(**attrs)


def variable_update(prim: Any, attrs: dict, scratch: bool) -> Callable:
    """The kernel a compiled program calls for an update whose state it reads from
    variables and assigns back: it takes the variables (then the gradient and scalars) and
    returns the new state, written into a variable's own array where nothing else can see
    it (`owns_value`: the program has dropped its own references) and no other thread runs
    that could take a reference meanwhile; `scratch`: the gradient's buffer is the program's,
    dying here."""
    kernel, n = KERNELS[prim], state_count(prim, attrs)

    def update(*args: Any) -> tuple:
        variables = args[:n]
        if threading.active_count() == 1:
            owned = [owns_value(v) for v in variables]   # before taking references below
            values = [v._value for v in variables]
            out = [a if own else None for a, own in zip(values, owned)]
        else:
            values, out = [v._value for v in variables], None
        return kernel(*values, *args[n:], out=out, scratch=scratch, **attrs)
    return update


APPLY_ADAM = _update_primitive("KerasApplyAdam", adam,
                               lambda amsgrad=False: 4 if amsgrad else 3)
APPLY_SGD = _update_primitive("KerasApplySGD", sgd,
                              lambda momentum=False, nesterov=False: 1 + momentum)
APPLY_RMSPROP = _update_primitive("KerasApplyRMSprop", rmsprop,
                                  lambda momentum=False, centered=False:
                                  2 + momentum + centered)
APPLY_ADAGRAD = _update_primitive("KerasApplyAdagrad", adagrad, lambda: 2)

class UpdateGroup:
    """Small updates of one kind and one step (the same scalars) in a compiled program, run
    as one update over flat buffers: a dozen ufunc calls on tiny arrays cost the same as on
    a few thousand elements, so six Adam updates of a small model cost about one.

    The variables hold views of the flat state buffers. Each member's call (in program order)
    returns its variables' views, which the program assigns; the last one runs the kernel on
    the buffers in place. Nothing reads the group's variables from the first member's call to
    the last (the compiler checks), so the views' stale contents in between are unseen. The
    first call writes into the buffers only where the variables still hold the views and
    nothing else references a view or a buffer; otherwise it makes new buffers from the
    variables' values. While other threads run, each member updates into fresh arrays."""

    def __init__(self, prim: Any, attrs: dict, variables: list, shapes: list) -> None:
        self.kernel, self.attrs = KERNELS[prim], attrs
        self.variables = variables      # per member: its state's variables
        self.shapes = shapes            # per member: the state's static shape
        self.state = [v for group in variables for v in group]
        self.flat: Optional[list] = None  # one buffer per state slot (var, m, v...)
        self.views: list = []           # per state variable (as `state`): its view
        self.view_refs = self.flat_refs = None
        self.grads: list = []
        self.plain = False

    def member(self, index: int) -> Callable:
        """Member `index`'s kernel: (gradient, *scalars) -> its state's new values."""
        n, last = len(self.variables[index]), index == len(self.variables) - 1
        start = n * index

        def update(g: np.ndarray, *scalars: Any) -> tuple:
            if index == 0:
                self._start()
            if self.plain:
                return self.kernel(*[v._value for v in self.variables[index]], g, *scalars,
                                   **self.attrs)
            self.grads.append(g)
            if last:
                grads, self.grads = self.grads, []
                flat_g = np.concatenate(grads, axis=None)
                self.kernel(*self.flat, flat_g, *scalars, out=self.flat, scratch=True,
                            **self.attrs)
            return tuple(self.views[start:start + n])
        return update

    def _start(self) -> None:
        self.grads = []
        if threading.active_count() != 1:
            # Another thread may read a variable between the members' calls and keep a
            # view that the last one would then change: each member updates into fresh
            # arrays.
            self.plain = True
        elif self._sole():
            self.plain = False
        else:
            self._rebuild()

    def _sole(self) -> bool:
        """Whether the variables hold the views and nothing else references them."""
        views, state = self.views, self.state
        if not views:
            return False
        for i in range(len(views)):
            if state[i]._value is not views[i] or sys.getrefcount(views[i]) != self.view_refs:
                return False
        flat = self.flat
        return all(sys.getrefcount(flat[k]) == self.flat_refs[k] for k in range(len(flat)))

    def _rebuild(self) -> None:
        values = [[v._value for v in group] for group in self.variables]
        self.plain = any(np.shape(a) != shape for group, shape in zip(values, self.shapes)
                         for a in group)
        if self.plain:   # a variable of unknown dims took another shape: one by one
            self.flat, self.views = None, []
            return
        n = len(values[0])
        flat = [np.concatenate([group[k] for group in values], axis=None) for k in range(n)]
        views, offset = [], 0
        for shape in self.shapes:
            size = int(np.prod(shape))
            views += [flat[k][offset:offset + size].reshape(shape) for k in range(n)]
            offset += size
        self.flat, self.views = flat, views
        # Counted as `_sole` counts: the list and the call's argument (and, for a view, the
        # variable that will hold it; for a buffer, each of its views).
        self.view_refs = sys.getrefcount(views[0]) + 1
        self.flat_refs = [sys.getrefcount(flat[k]) for k in range(n)]


# The kernel of each primitive, for the eager path (which passes `out`).
KERNELS = {APPLY_ADAM: adam, APPLY_SGD: sgd, APPLY_RMSPROP: rmsprop, APPLY_ADAGRAD: adagrad}
VARIABLE_UPDATES.update({prim: (_STATE_COUNTS[prim], variable_update, UpdateGroup)
                         for prim in KERNELS})

__all__ = ["adam", "sgd", "rmsprop", "adagrad", "APPLY_ADAM", "APPLY_SGD", "APPLY_RMSPROP",
           "APPLY_ADAGRAD", "KERNELS", "state_count", "variable_update", "UpdateGroup"]
