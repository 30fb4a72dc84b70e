"""`tf.data.DatasetSpec` (the spec of a dataset-valued element, as `window` yields) and the
placeholders a dataset-returning function is probed with to learn its element_spec."""

from __future__ import annotations

from typing import Any, Callable

from tapeflow.data import structure
from tapeflow.framework.tensor_shape import TensorShape, as_shape
from tapeflow.function import Function, TensorSpec


class DatasetSpec(structure.DatasetSpecLike):
    """The type of a dataset element: its element_spec and (unused) dataset shape."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        """The nest of TensorSpecs of the datasets this spec describes."""
        return self._element_spec

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DatasetSpec) and other._element_spec == self._element_spec

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


class SpecDataset:
    """Marker mixin: a dataset known only by its spec (built while probing a function)."""


def is_symbolic(tensor: Any) -> bool:
    """Whether `tensor` is a traced (placeholder) tensor without a value."""
    return getattr(tensor, "_graph", None) is not None


def placeholder_element(spec: Any, func: Callable) -> Any:
    """`func` of an element of `spec` made of placeholders (traced tensors; datasets known
    by spec only): what a dataset-returning function returns, to read its element_spec."""
    from tapeflow.data.dataset_ops import DatasetV2
    flat = structure.flatten(spec)
    tensor_specs = [s for s in flat if isinstance(s, TensorSpec)]
    result: list = []

    def probe(*tensors: Any) -> None:
        it = iter(tensors)
        leaves = [next(it) if isinstance(s, TensorSpec) else _spec_only(s.element_spec)
                  for s in flat]
        result.append(func(structure.pack(spec, leaves)))

    Function(probe, autograph=False).get_concrete_function(*tensor_specs)
    out = result[0]
    if isinstance(out, DatasetV2):
        return out
    return out


def _spec_only(element_spec: Any) -> Any:
    from tapeflow.data.dataset_ops import SpecOnlyDataset
    return SpecOnlyDataset(element_spec)


__all__ = ["DatasetSpec", "placeholder_element", "is_symbolic", "TensorShape"]
