"""The fused path of `Optimizer.apply`: one kernel per variable instead of ~15-20 ops.

An optimizer with a fused update (`_fused_update` names its primitive in
ops/optimizer_ops.py) gets the step's scalars once per dtype (`_fused_scalars`, computed with
the same ops as its `update_step`), then per variable:
  - eagerly, calls the kernel on the values of the variable and its slots. Where nothing but
    the variable references its array (`owns_value`) and no other thread runs that could take
    a reference meanwhile, the kernel writes the new value into that array (no fresh memory
    for a big variable); otherwise into a fresh array, so a tensor read earlier keeps its
    value.
  - traced, records one node (the primitive) and the assignments of its results.
The kernels do the op-by-op path's float operations in its order, so both paths give bitwise
equal results. Anything else takes the op-by-op path, for the whole step and before any
change: active tapes, IndexedSlices, gradients whose dtype or shape differs from the
variable's (the op-by-op path raises TensorFlow's errors for them), non-float variables,
hyperparameters that are not Python numbers.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from tapeflow.autodiff import core
from tapeflow.framework.context import context, run_kernel
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.variables import Variable, hooks, owns_value, update_lock
from tapeflow.ops._convert import scalar_constant
from tapeflow.graph.compiler import INPLACE_MIN_SIZE
from tapeflow.ops.optimizer_ops import KERNELS, UpdateGroup

_PLAIN_METHODS = (Variable.assign, Variable.assign_add, Variable.assign_sub, Variable.value)


class NotFusable(Exception):
    """Raised while gathering a step's inputs: this step takes the op-by-op path."""


def python_scalar(value: Any, dtype: Any) -> Tensor:
    """A Python-number hyperparameter as the op-by-op path converts it next to a tensor of
    `dtype` (see `binary_operands`); other values raise NotFusable."""
    if type(value) not in (float, int):
        raise NotFusable
    return scalar_constant(value, dtype.as_numpy_dtype)


def _plain(variable: Any) -> bool:
    cls = type(variable)
    return (cls.assign, cls.assign_add, cls.assign_sub, cls.value) == _PLAIN_METHODS


def _fusable(gradient: Any, variable: Any, traced: bool) -> bool:
    value = getattr(variable, "_value", None)
    # A scalar variable stays op by op: NumPy's ufuncs give 0-d results as NumPy scalars,
    # which the kernels cannot write into.
    if value is None or value.dtype.kind != "f" or value.ndim == 0 or not _plain(variable):
        return False
    if traced:
        return isinstance(gradient, Tensor) and gradient.dtype == variable.dtype and \
            gradient.shape.as_list() == list(value.shape)
    return type(gradient) is Tensor and gradient._value.dtype == value.dtype and \
        gradient._value.shape == value.shape


def apply_fused(optimizer: Any, grads: Sequence[Any], variables: Sequence[Any],
                learning_rate: Any) -> bool:
    """Applies the step with the optimizer's fused update; False (nothing done) where it
    must take the op-by-op path."""
    state = context.state
    if state.tapes or state.accumulators or state.variable_watchers:
        return False   # a tape may record the update's ops: keep them
    update = optimizer._fused_update()
    if update is None:
        return False
    traced = state.graph is not None
    if not all(_fusable(g, v, traced) for g, v in zip(grads, variables)):
        return False
    index_of = optimizer._get_variable_index
    targets = [(v, *optimizer._fused_slots(index_of(v))) for v in variables]
    if not traced and not all(_same_layout(group) for group in targets):
        return False
    try:
        scalars: dict = {}
        for v in variables:
            if v.dtype not in scalars:
                scalars[v.dtype] = tuple(optimizer._fused_scalars(v.dtype, learning_rate))
    except NotFusable:
        return False
    prim, attrs = update
    if traced:
        for g, group in zip(grads, targets):
            inputs = [t.value() for t in group] + [g, *scalars[group[0].dtype]]
            for target, new in zip(group, core.bind(prim, inputs, attrs)):
                target.assign(new)
        return True
    kernel = KERNELS[prim]
    work = [(group, g._value, [s._value for s in scalars[group[0].dtype]])
            for g, group in zip(grads, targets)]
    if threading.active_count() == 1:
        if not run_kernel(_run_grouped, optimizer, prim, attrs, work):
            run_kernel(_run, kernel, attrs, work, True)
    else:
        # Another thread may read or update these variables: fresh arrays, under their locks.
        with update_lock([t for group in targets for t in group]):
            run_kernel(_run, kernel, attrs, work, False)
    return True


def _same_layout(group: tuple) -> bool:
    """The slots hold arrays of the variable's shape and dtype (a variable with an unknown
    dim may have been assigned another shape since they were made)."""
    value = group[0]._value
    return all(t._value.shape == value.shape and t._value.dtype == value.dtype
               for t in group[1:])


def _run_grouped(optimizer: Any, prim: Any, attrs: dict, work: list) -> bool:
    """Updates small variables of one dtype as one UpdateGroup over flat buffers (as a
    compiled program does, ops/optimizer_ops.py): a dozen ufunc calls on tiny arrays cost
    the same as on a few thousand elements. The group, kept on the optimizer for its
    variables, leaves them holding views of its buffers. False (nothing done) for a step
    with one variable, a big one, or mixed dtypes."""
    dtype = work[0][1].dtype
    if len(work) < 2 or any(g.size >= INPLACE_MIN_SIZE or g.dtype != dtype for _, g, _ in work):
        return False
    key = (prim, tuple(sorted(attrs.items())), tuple(id(t) for group, _, _ in work
                                                     for t in group))
    groups = optimizer.__dict__.setdefault("_eager_update_groups", {})
    members = groups.get(key)
    if members is None:
        if len(groups) >= 4:  # a few variable sets at most: the entries hold the variables
            groups.clear()
        group = UpdateGroup(prim, attrs, [list(group) for group, _, _ in work],
                            [g.shape for _, g, _ in work])
        members = groups[key] = [group.member(i) for i in range(len(work))]
    assign = hooks["assign"]
    for member, (group, gradient, scalars) in zip(members, work):
        for target, value in zip(group, member(gradient, *scalars)):
            assign(target, value)
    return True


def _run(kernel: Any, attrs: dict, work: list, in_place: bool) -> None:
    """Updates each (variables, gradient, scalars) of `work` with `kernel` (in place where
    `in_place` and the variable owns its value)."""
    assign = hooks["assign"]
    for group, gradient, scalars in work:
        # Ownership first: the arrays gathered below hold references of their own.
        owned = [owns_value(t) for t in group] if in_place else None
        arrays = [t._value for t in group]
        out = [a if own else None for a, own in zip(arrays, owned)] if in_place else None
        new = kernel(*arrays, gradient, *scalars, out=out, **attrs)
        del arrays
        for target, value in zip(group, new):
            assign(target, value)


__all__ = ["apply_fused", "python_scalar", "NotFusable"]
