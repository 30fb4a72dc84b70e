"""The user functions of `map`, `filter`, `scan` and friends, traced once as TensorFlow does.

The function is converted by AutoGraph and traced with tf.function on the input element_spec
(so Python side effects such as `print` run once, at construction, as in TensorFlow); each
element then runs the traced program on its NumPy arrays.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autograph import conversion
from tapeflow.data import structure
from tapeflow.framework.tensor import TensorLike, wrap
from tapeflow.function import Function


def _call(func: Callable, element: Any) -> Any:
    """TF's calling convention: a tuple element is unpacked into arguments."""
    if type(element) is tuple:
        return func(*element)
    return func(element)


def _normalize_output(value: Any) -> Any:
    """The function's result as tf.data keeps it: a list is a tuple (TF warns and converts),
    leaves converted to tensors."""
    if type(value) is list:
        value = tuple(value)
    return structure.normalize(value)


class StructuredFunction:
    """`func` traced once on `input_spec`: call it with a flat list of NumPy arrays."""

    def __init__(self, func: Callable, input_spec: Any, name: str,
                 extra_specs: Optional[list] = None) -> None:
        self._input_spec = input_spec
        self._name = name
        converted = conversion.convert(func)
        self.output_structure: Any = None
        flat_specs = structure.flatten(input_spec)

        def flat_fn(*flat: Any) -> Any:
            element = structure.pack(input_spec, list(flat))
            out = _normalize_output(_call(converted, element))
            self.output_structure = out
            return structure.flatten(out)

        flat_fn.__name__ = getattr(func, "__name__", "fn").replace("<lambda>", "lambda")
        self._function = Function(flat_fn, autograph=False)
        self._concrete = self._function.get_concrete_function(*flat_specs)
        outputs = self._concrete.structured_outputs
        self.output_spec = structure.pack(
            self.output_structure, [structure.spec_of(t) for t in outputs])

    @property
    def stateful(self) -> bool:
        """Whether the traced function draws randomness, has side effects or runs nested
        graphs (then its results or effects differ from call to call)."""
        for node in self._concrete.graph.nodes:
            op = node.op
            if isinstance(op, str) or op.stateful or op.side_effect:
                return True
        return bool(self._concrete.graph.variables())

    def __call__(self, flat: list) -> list:
        """The function on one element's flat arrays: the flat output arrays."""
        result = self._concrete._call_flat([wrap(a) for a in flat])
        if isinstance(result, TensorLike):
            return [np.asarray(result._value)]
        return [np.asarray(t._value) for t in result]

    def call_element(self, element: Any) -> Any:
        """The function on an internal element: the output element (same form)."""
        flat = self(structure.flatten(element))
        return structure.pack(self.output_structure, flat)


__all__ = ["StructuredFunction"]
