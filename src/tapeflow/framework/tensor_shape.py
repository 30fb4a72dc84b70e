"""`tf.TensorShape`: a possibly partially known shape."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional


class TensorShape:
    """The shape of a tensor: a list of dimensions, each an int or None (unknown).

    A shape of unknown rank has `dims` None. Compares equal to tuples and lists of the
    same dimensions, as TensorFlow's does.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Optional[Iterable[Any]]) -> None:
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, int):
            self._dims = (dims,)
        else:
            self._dims = tuple(None if d is None else int(getattr(d, "value", d)) for d in dims)

    @property
    def dims(self) -> Optional[list]:
        """The dimensions as a list (None for unknown ones), or None if the rank is unknown."""
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self) -> Optional[int]:
        """The number of dimensions, or None if the rank is unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> Optional[int]:
        """Deprecated alias of `rank`: the number of dimensions, or None."""
        return self.rank

    def as_list(self) -> list:
        """The dimensions as a list of ints and Nones; ValueError for an unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        """True if the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def __tf_tensor__(self, dtype: Any = None, name: Optional[str] = None) -> Any:
        """A known shape converts to a 1-D integer tensor of its dims, as in TensorFlow
        (`tf.constant(x.shape)`, or a shape returned from a tf.function)."""
        if not self.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {self} to a "
                             f"Tensor.")
        from tapeflow.framework.convert import constant_value  # convert imports this module
        big = any(d > 2**31 - 1 for d in self._dims)
        return constant_value(list(self._dims), dtype=dtype or ("int64" if big else "int32"))

    def num_elements(self) -> Optional[int]:
        """The total number of elements, or None unless fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other: Any) -> bool:
        """True if the shapes could describe the same tensor (unknown dims/rank match any)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other: Any) -> "TensorShape":
        """The shape combining the known dims of both; ValueError if incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other: Any) -> "TensorShape":
        """The shape with this shape's dims followed by `other`'s."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank: int) -> "TensorShape":
        """This shape, refined to `rank` dims if unknown; ValueError if its rank differs."""
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[Optional[int]]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> bool:
        return self._dims is not None

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            return self._dims == tuple(other)
        return NotImplemented

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __add__(self, other: Any) -> "TensorShape":
        return self.concatenate(other)

    def __radd__(self, other: Any) -> "TensorShape":
        return as_shape(other).concatenate(self)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __reduce__(self):
        return TensorShape, (self._dims,)


def as_shape(shape: Any) -> TensorShape:
    """Converts a TensorShape, a list or tuple of dims, or None into a TensorShape."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


__all__ = ["TensorShape", "as_shape"]
