"""Distributed values: `PerReplica` and `Mirrored` (a value per local replica), and the
`MirroredVariable` a plain `tf.Variable` becomes inside a MirroredStrategy's scope.

tapeflow has one local replica per process, so `strategy.run` hands each replica plain values
and returns plain values (as TensorFlow does with one local replica); these classes print and
unwrap as TensorFlow's for code that builds them or checks for them.
"""

from __future__ import annotations

from typing import Any, Sequence

from tapeflow.framework.variables import Variable


class DistributedValues:
    """A value per local replica (`tf.distribute.DistributedValues`)."""

    def __init__(self, values: Sequence[Any]) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        """The per-replica values."""
        return self._values

    def _text(self, render: Any) -> str:
        body = ",\n".join(f"  {i}: {render(v)}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    def __str__(self) -> str:
        return self._text(str)

    def __repr__(self) -> str:
        return self._text(repr)


class PerReplica(DistributedValues):
    """Values that may differ between the replicas."""


class Mirrored(DistributedValues):
    """Values kept equal on every replica."""


def local_value(value: Any) -> Any:
    """This process's replica's value of `value` (the value itself when not distributed)."""
    if isinstance(value, DistributedValues):
        if len(value.values) != 1:
            raise ValueError(f"tapeflow runs one replica per process; got {len(value.values)} "
                             f"values for this worker: {value!r}")
        return value.values[0]
    return value


class MirroredVariable(Variable):
    """A `tf.Variable` created in a MirroredStrategy's scope: the same value on every replica
    (rank 0's at creation); it prints as TensorFlow's, with its one local component."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"MirroredVariable:{{\n  0: {Variable.__repr__(self)}\n}}"

    __str__ = __repr__

    @property
    def values(self) -> tuple:
        """The local component (one replica)."""
        return (self,)


def mirror(variable: Variable) -> None:
    """Makes a plain tf.Variable a MirroredVariable (subclasses, like Keras's, keep their
    class: TensorFlow wraps those and they print as themselves)."""
    if type(variable) is Variable:
        variable.__class__ = MirroredVariable


__all__ = ["DistributedValues", "PerReplica", "Mirrored", "MirroredVariable", "local_value"]
