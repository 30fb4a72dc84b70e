"""`tf.Variable`: a mutable, named value that tapes watch automatically when it is trainable.

Assignment replaces the variable's NumPy array rather than writing into it, so a tensor read
earlier (and held by a tape for its backward pass) keeps the value it had when it was read.
"""

from __future__ import annotations

import enum
import sys
import threading
from typing import Any, Callable, Iterable, Optional

import numpy as np

from tapeflow.framework.abstract import dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context, init_scope
from tapeflow.framework.convert import check_dtype, constant_value
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike, numpy_text, wrap
from tapeflow.framework.tensor_shape import TensorShape, as_shape


def _eager_read(variable: "Variable") -> Tensor:
    return wrap(variable._value)


def _eager_assign(variable: "Variable", value: np.ndarray) -> None:
    variable._value = value


# Installed by tapeflow.autodiff (tapes record reads) and tapeflow.function (traces record
# reads and writes; "graph_assign" is used only while a trace is active); the defaults are the
# plain eager behaviour.
hooks: dict = {"read": _eager_read, "assign": _eager_assign,
               # called only while tapes record: lets `tape.explain` name an assignment that
               # cut a gradient path (installed by tapeflow.autodiff)
               "taped_assign": lambda variable, value, op: None,
               # set by tapeflow.distribute while a strategy's scope is open: mirrors each new
               # variable (None otherwise: creation pays one lookup)
               "created": None}


class VariableAggregationV2(enum.Enum):
    """`tf.VariableAggregation`: how a distribution strategy combines the updates that
    replicas make to one variable."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """`tf.VariableSynchronization`: when a distributed variable's copies are synchronized
    (ON_READ variables are not trainable by default)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


VariableAggregation = VariableAggregationV2


def _distribution_modes(aggregation: Any, synchronization: Any, name: Any) -> tuple:
    """TF's checks of tf.Variable's `aggregation` and `synchronization` (None: the defaults)."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: "
                         f"{name}")
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    elif not isinstance(synchronization, VariableSynchronization):
        raise ValueError(f"Invalid variable synchronization mode: {synchronization} for "
                         f"variable: {name}")
    return aggregation, synchronization


class Variable(TensorLike):
    """A mutable tensor-like value, as `tf.Variable`.

    Args:
      initial_value: a tensor, a value convertible to one, or a callable returning one.
      trainable: whether tapes watch it automatically when it is read (default True).
      name: the variable's name; `.name` is `name + ':0'` (`'Variable:0'` when None).
      dtype: converts the initial value to this dtype.
      shape: the shape it keeps; `None` dims let assignments change that dimension.
    """

    __slots__ = ("_value", "_name", "_trainable", "_shape", "_constraint", "_lock",
                 "_aggregation", "_synchronization", "__weakref__", "__dict__")

    def __init__(self, initial_value: Any = None, trainable: Optional[bool] = None,
                 validate_shape: bool = True, caching_device: Any = None,
                 name: Optional[str] = None, variable_def: Any = None, dtype: Any = None,
                 import_scope: Any = None, constraint: Optional[Callable] = None,
                 synchronization: Any = None, aggregation: Any = None,
                 shape: Any = None, experimental_enable_variable_lifting: bool = True) -> None:
        if initial_value is None:
            raise ValueError("The initial_value must be specified.")
        if callable(initial_value):
            with init_scope():  # lifted out of any trace, as TensorFlow lifts initializers
                initial_value = initial_value()
        if isinstance(initial_value, TensorLike):
            value = np.asarray(initial_value._value)
            if dtype is not None and value.dtype != _dtypes.as_dtype(dtype)._np:
                value = value.astype(_dtypes.as_dtype(dtype)._np)
        else:
            value = constant_value(initial_value, dtype=dtype)._value
        self._value = value
        # Held around every read-modify-write (assign_add, scatter updates, a compiled
        # function's run that assigns this variable), as TensorFlow's variable mutex:
        # concurrent updates from threads never lose one another. Re-entrant, so an update
        # made of other updates (a scatter is a read and an assign) takes it once more.
        self._lock = threading.RLock()
        self._shape = as_shape(shape) if shape is not None else TensorShape(value.shape)
        self._name = "Variable" if name is None else str(name).removesuffix(":0")
        self._trainable = True if trainable is None else bool(trainable)
        self._constraint = constraint
        self._aggregation, self._synchronization = _distribution_modes(aggregation,
                                                                       synchronization, name)
        if self._synchronization is VariableSynchronization.ON_READ:
            self._trainable = False if trainable is None else self._trainable  # as TF
        if context.graph is not None:  # tf.function allows creation on the first trace only
            context.graph.on_variable_created(self)
        if hooks["created"] is not None:
            hooks["created"](self)

    @property
    def aggregation(self) -> "VariableAggregation":
        """How a distribution strategy combines this variable's replica updates."""
        return self._aggregation

    @property
    def synchronization(self) -> "VariableSynchronization":
        """When a distributed variable's copies are synchronized."""
        return self._synchronization

    # -- reading ----------------------------------------------------------------------------
    def value(self) -> Tensor:
        """The current value as a Tensor (recorded by active tapes)."""
        if context.state.active:  # a tape, accumulator or trace must see the read
            return hooks["read"](self)
        return wrap(self._value)

    read_value = value

    def _handed_out(self, dtype: Any, copy: Any) -> np.ndarray:
        """What NumPy receives (`np.asarray(v)`): a new, writable array, as TensorFlow's (the
        variable's own array may be updated in place, and must not be written from outside)."""
        value = np.asarray(self._value)
        return value.copy() if dtype is None else value.astype(dtype)

    # -- writing ----------------------------------------------------------------------------
    def _array_of(self, value: Any) -> np.ndarray:
        """`value` as an array of the variable's dtype (TF's conversion and dtype check); a
        caller's NumPy array is copied by the conversion, a tensor's array is shared (no one
        writes into it)."""
        if isinstance(value, TensorLike):
            if value._value.dtype != self._value.dtype:   # TF converts to the variable's dtype
                check_dtype(value, self.dtype)
            return value._value
        return constant_value(value, dtype=self.dtype)._value

    def _converted(self, value: Any, op_name: str) -> np.ndarray:
        """The array `assign` stores: of the variable's dtype and a compatible shape."""
        array = self._array_of(value)
        if array.shape != self._value.shape and not self._shape.is_compatible_with(array.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch."
                             f"The variable shape {self._shape}, and the assigned value shape "
                             f"{TensorShape(array.shape)} are incompatible.")
        return array

    def _check_delta(self, delta: np.ndarray, op_name: str) -> None:
        """assign_add/assign_sub's `delta` must have the value's exact shape (TF's kernel
        error; NumPy would broadcast it silently). Called under the lock: the value's shape
        may change meanwhile where the variable's shape is not fully defined."""
        if delta.shape != self._value.shape:
            raise InvalidArgumentError(
                f"{{{{function_node __wrapped__{op_name}_device_/job:localhost/replica:0/"
                f"task:0/device:CPU:0}}}} Cannot update variable with shape "
                f"{dims_text(self._value.shape)} using a Tensor with shape "
                f"{dims_text(delta.shape)}, shapes must be equal. [Op:{op_name}] name: ")

    def assign(self, value: Any, use_locking: Any = None, name: Any = None,
               read_value: bool = True) -> "Variable":
        """Replaces the value; returns the variable."""
        state = context.state
        if state.graph is not None:  # traced: the assignment becomes a graph node
            return hooks["graph_assign"](self, value, "AssignVariableOp")
        if state.tapes:  # `explain` notes a tracked value whose path ends here
            hooks["taped_assign"](self, value, "assign")
        value = self._converted(value, "AssignVariableOp")
        with self._lock:  # not inside another thread's read-modify-write
            hooks["assign"](self, value)
        return self

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> "Variable":
        """Adds `delta` to the value; returns the variable."""
        state = context.state
        if state.graph is not None:
            return hooks["graph_assign"](self, delta, "AssignAddVariableOp")
        if state.tapes:  # `explain` notes a tracked value whose path ends here
            hooks["taped_assign"](self, delta, "assign_add")
        delta = self._array_of(delta)
        with self._lock:
            self._check_delta(delta, "AssignAddVariableOp")
            hooks["assign"](self, np.add(self._value, delta))  # delta has the variable's dtype
        return self

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> "Variable":
        """Subtracts `delta` from the value; returns the variable."""
        state = context.state
        if state.graph is not None:
            return hooks["graph_assign"](self, delta, "AssignSubVariableOp")
        if state.tapes:  # `explain` notes a tracked value whose path ends here
            hooks["taped_assign"](self, delta, "assign_sub")
        delta = self._array_of(delta)
        with self._lock:
            self._check_delta(delta, "AssignSubVariableOp")
            hooks["assign"](self, np.subtract(self._value, delta))
        return self

    # -- attributes -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The variable's name with TF's output suffix, e.g. 'Variable:0'."""
        return self._name + ":0"

    @property
    def trainable(self) -> bool:
        """Whether gradient tapes watch this variable automatically."""
        return self._trainable

    @property
    def shape(self) -> TensorShape:
        """The variable's `TensorShape` (may be less specific than its value's)."""
        return self._shape

    @property
    def constraint(self) -> Optional[Callable]:
        """The projection applied after optimizer updates, or None."""
        return self._constraint

    @property
    def initial_value(self) -> Tensor:
        """Not available in eager execution, as in TensorFlow (use `value()`)."""
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    def __len__(self) -> int:
        # TensorFlow's variables define no len() (tensors do); name the class as TF does:
        # a tf.Variable is a ResourceVariable, a subclass (keras.Variable) its own name.
        kind = "ResourceVariable" if type(self) is Variable else type(self).__name__
        raise TypeError(f"object of type '{kind}' has no len()")

    def __repr__(self) -> str:
        return (f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value, is_repr=True)}>")

    __str__ = __repr__

    def __hash__(self) -> int:
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    def __deepcopy__(self, memo: dict) -> "Variable":
        return Variable(self._value.copy(), trainable=self._trainable, name=self._name)

    def __reduce__(self):
        return Variable, (self._value, self._trainable, True, None, self._name)


class update_lock:
    """Holds the update locks of `variables` for a block (a compiled function's run that
    assigns them), taken in one global order (by id) so two holders never deadlock."""

    __slots__ = ("_locks",)

    def __init__(self, variables: Iterable[Variable]) -> None:
        self._locks = [v._lock for v in sorted({id(v): v for v in variables}.values(), key=id)]

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc_info: Any) -> None:
        for lock in reversed(self._locks):
            lock.release()


def _references(variable: Variable) -> int:
    value = variable._value
    return sys.getrefcount(value)


def _calibrated_references() -> int:
    """What `_references` counts for a value held by its variable alone (the variable's slot,
    the local name and the call's argument in CPython 3.11; measured, not assumed). 0 (never
    sole) where the count is not a proof: a free-threaded build may defer counts."""
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        return 0
    probe = Variable.__new__(Variable)
    probe._value = np.empty(1)
    return _references(probe)


_SOLE_REFERENCES = _calibrated_references()


def owns_value(variable: Variable) -> bool:
    """Whether nothing but `variable` references its array, so writing into that array in
    place is unobservable: no tensor read from it, no view or buffer of it (those hold a
    reference to it or, for views, to the array owning the data: so the array must own its
    data), and it is writable. Only a proof while no other thread can take a reference
    meanwhile: callers check that they are the only thread."""
    value = variable._value
    return isinstance(value, np.ndarray) and _SOLE_REFERENCES > 0 and \
        _references(variable) == _SOLE_REFERENCES + 1 \
        and value.flags.owndata and value.flags.writeable


__all__ = ["Variable", "VariableAggregation", "VariableSynchronization", "hooks", "update_lock",
           "owns_value"]
