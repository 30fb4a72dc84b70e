"""Variable methods that need ops (framework/variables.py sits below the ops layer), attached
to `tf.Variable` as the operators are: sparse writes and sliced assignment. Each writes
through ops and `assign`, so it works eagerly and inside tf.function."""

from __future__ import annotations

import weakref
from typing import Any, Callable

from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.variables import Variable
from tapeflow.ops import array_ops, math_ops
from tapeflow.ops.index_ops import tensor_scatter_nd_add, tensor_scatter_nd_update


# -- sparse writes ---------------------------------------------------------------------------------

def _update(variable: Variable, new_value: Callable[[Tensor], Any]) -> Variable:
    """Assigns `new_value(current value)` as one atomic update (a read and an assign under the
    variable's lock: a concurrent update never falls between them)."""
    with variable._lock:
        return variable.assign(new_value(variable.value()))


def scatter_nd_update(self: Variable, indices: Any, updates: Any, name: Any = None) -> Variable:
    """Replaces the elements (or slices) at `indices` with `updates`; returns the variable."""
    return _update(self, lambda value: tensor_scatter_nd_update(value, indices, updates))


def scatter_nd_add(self: Variable, indices: Any, updates: Any, name: Any = None) -> Variable:
    """Adds `updates` at `indices` (repeated indices add up); returns the variable."""
    return _update(self, lambda value: tensor_scatter_nd_add(value, indices, updates))


def scatter_nd_sub(self: Variable, indices: Any, updates: Any, name: Any = None) -> Variable:
    """Subtracts `updates` at `indices` (repeated indices add up); returns the variable."""
    return _update(self, lambda value: tensor_scatter_nd_add(value, indices,
                                                             math_ops.negative(updates)))


def _scatter_rows(method: Callable, variable: Variable, sparse_delta: Any) -> Variable:
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received "
                        f"arg: {sparse_delta}")
    return method(variable, array_ops.expand_dims(sparse_delta.indices, -1),
                  sparse_delta.values)


def scatter_update(self: Variable, sparse_delta: Any, use_locking: bool = False,
                   name: Any = None) -> Variable:
    """Replaces the rows `sparse_delta.indices` with `sparse_delta.values` (an
    IndexedSlices); returns the variable."""
    return _scatter_rows(scatter_nd_update, self, sparse_delta)


def scatter_add(self: Variable, sparse_delta: Any, use_locking: bool = False,
                name: Any = None) -> Variable:
    """Adds an IndexedSlices to the rows it indexes; returns the variable."""
    return _scatter_rows(scatter_nd_add, self, sparse_delta)


def scatter_sub(self: Variable, sparse_delta: Any, use_locking: bool = False,
                name: Any = None) -> Variable:
    """Subtracts an IndexedSlices from the rows it indexes (a sparse SGD step); returns the
    variable."""
    return _scatter_rows(scatter_nd_sub, self, sparse_delta)


# -- sliced variable assignment: `v[0, 1:].assign(value)` ----------------------------------------

# id(slice tensor) -> (weak reference to it, the variable, the normalized key). Slices of a
# variable are plain Tensors (every fast path stays), remembered here while they live.
_VARIABLE_SLICES: dict = {}


def _variable_getitem(variable: Variable, key: Any) -> Tensor:
    out = array_ops.slice_tensor(variable, key)
    try:
        static_key = array_ops._normalize_index(key, variable._value.shape)
    except (TypeError, ValueError):
        return out  # a dynamic (traced tensor) index: readable, not assignable
    ident = id(out)
    forget = lambda _, i=ident: _VARIABLE_SLICES.pop(i, None)  # noqa: E731
    _VARIABLE_SLICES[ident] = (weakref.ref(out, forget), variable, static_key)
    return out


def _slice_assign(self: Tensor, value: Any, use_locking: Any = None, name: Any = None,
                  read_value: bool = True) -> Variable:
    """`variable[key].assign(value)`: writes `value` (broadcast to the slice) into the
    variable's elements at `key`, with ops, so it works eagerly and traced. Plain tensors have
    no `assign`, as in TensorFlow."""
    entry = _VARIABLE_SLICES.get(id(self))
    if entry is None or entry[0]() is not self:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'assign'")
    _, variable, key = entry
    value = array_ops.broadcast_to(math_ops.cast(value, variable.dtype), self._value.shape)
    shape = variable._value.shape
    placed = array_ops.place_slice(value, shape, key)
    mask = array_ops.place_slice(math_ops.ones_like(value), shape, key)
    return _update(variable, lambda current: current * (1 - mask) + placed)


for _method in (scatter_nd_update, scatter_nd_add, scatter_nd_sub, scatter_update, scatter_add,
                scatter_sub):
    setattr(Variable, _method.__name__, _method)
Variable.__getitem__ = _variable_getitem
Tensor.assign = _slice_assign
