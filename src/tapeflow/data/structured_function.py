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
from tapeflow.framework.ragged_tensor import RaggedTensor
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import TensorLike, wrap
from tapeflow.function import Function


_COMPOSITES = (SparseTensor, RaggedTensor)


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
        self._eager: Optional[Callable] = None
        self._function = Function(flat_fn, autograph=False)
        ragged_in = any(structure.is_ragged_spec(s) for s in flat_specs)
        try:
            self._concrete = self._function.get_concrete_function(*flat_specs)
        except Exception as exc:  # noqa: BLE001 - re-raised unless an eager run is the answer
            # An op that computes a ragged input's row partition while tracing, or a sparse
            # op that needs a SparseTensor input's dense shape, runs eagerly per element; any
            # other failure is the user's.
            known = isinstance(exc, (TypeError, NotImplementedError)) or ragged_in
            sparse_in = any(structure.is_sparse_spec(s) for s in flat_specs)
            if not known or not self._run_eagerly(
                    flat_fn, flat_specs, only_if_ragged=not (sparse_in or ragged_in)):
                raise
            return
        # SparseTensors and RaggedTensors go in as their component tensors.
        self._sparse_in = any(structure.is_composite_spec(s) for s in flat_specs)
        outputs = self._concrete.structured_outputs
        self.output_spec = structure.pack(
            self.output_structure, [structure.spec_of(t) for t in outputs])

    # -- ragged elements ---------------------------------------------------------------------
    # tapeflow computes a RaggedTensor's row partition with NumPy when it is built, so a
    # function over (or making) RaggedTensors cannot be traced once for every partition: it
    # runs eagerly on each element. Its output spec comes from two probe calls on
    # placeholder elements (unknown dims 1, then 2): the dims that differ are unknown.
    def _run_eagerly(self, flat_fn: Callable, flat_specs: list,
                     only_if_ragged: bool = False) -> bool:
        try:
            probes = [flat_fn(*[_placeholder(s, size) for s in flat_specs]) for size in (1, 2)]
        except Exception:  # noqa: BLE001 - the traced attempt's error is the one to raise
            if only_if_ragged:
                return False
            raise
        structure_ = self.output_structure
        if only_if_ragged and not any(type(t).__name__ == "RaggedTensor"
                                      for p in probes for t in p):
            return False
        specs = [_common_spec(structure.spec_of(a), structure.spec_of(b))
                 for a, b in zip(*probes)]
        self.output_structure = structure_
        self.output_spec = structure.pack(structure_, specs)
        self._eager = flat_fn
        self._concrete = None
        return True

    @property
    def stateful(self) -> bool:
        """Whether the traced function draws randomness, has side effects or runs nested
        graphs (then its results or effects differ from call to call)."""
        if self._eager is not None:
            return True       # run eagerly: nothing is known of it
        for node in self._concrete.graph.nodes:
            op = node.op
            if isinstance(op, str) or op.stateful or op.side_effect:
                return True
        return bool(self._concrete.graph.variables())

    def __call__(self, flat: list) -> list:
        """The function on one element's flat arrays: the flat output arrays."""
        if self._eager is not None:
            out = self._eager(*[a if type(a) is not np.ndarray else wrap(a) for a in flat])
            return [structure.to_numpy(t) for t in out]
        if self._sparse_in:   # a SparseTensor or RaggedTensor goes in as its components
            flat = [c for a in flat for c in (a._to_components() if type(a) in _COMPOSITES
                                              else [wrap(a)])]
        else:
            flat = [wrap(a) for a in flat]
        result = self._concrete._call_flat(flat)
        if isinstance(result, TensorLike):
            return [np.asarray(result._value)]
        return [structure.to_numpy(t) for t in result]

    def call_element(self, element: Any) -> Any:
        """The function on an internal element: the output element (same form)."""
        flat = self(structure.flatten(element))
        return structure.pack(self.output_structure, flat)


def _placeholder(spec: Any, size: int) -> Any:
    """A zero element of `spec`, its unknown dims (and ragged rows) of length `size`."""
    from tapeflow.framework.ragged_tensor import RaggedTensor
    dims = [size if d is None else d for d in (spec.shape.as_list()
                                              if spec.shape.rank is not None else [size])]
    np_dtype = spec.dtype.as_numpy_dtype
    if structure.is_sparse_spec(spec):     # no explicit values
        return SparseTensor(wrap(np.zeros([0, len(dims)], np.int64)),
                            wrap(np.zeros([0], np_dtype)), wrap(np.asarray(dims, np.int64)))
    if not structure.is_ragged_spec(spec) or spec.ragged_rank == 0:
        zeros = np.zeros(dims, np_dtype) if np_dtype is not object else \
            np.full(dims, b"", dtype=object)
        return wrap(zeros)
    rank = spec.ragged_rank
    flat_rows = int(np.prod(dims[:rank + 1]))
    inner = dims[rank + 1:]
    values: Any = wrap(np.zeros([flat_rows] + inner, np_dtype) if np_dtype is not object
                       else np.full([flat_rows] + inner, b"", dtype=object))
    splits_dtype = spec.row_splits_dtype.as_numpy_dtype
    for level in range(rank, 0, -1):
        rows = int(np.prod(dims[:level]))
        splits = np.arange(rows + 1, dtype=splits_dtype) * dims[level]
        values = RaggedTensor(values, wrap(splits), internal=True)
    return values


def _common_spec(a: Any, b: Any) -> Any:
    """The spec both probe outputs fit: dims that differ are unknown."""
    if a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
        dims = None
    else:
        dims = [x if x == y else None for x, y in zip(a.shape.as_list(), b.shape.as_list())]
    if structure.is_ragged_spec(a):
        return structure.ragged_spec(dims, a.dtype, a.ragged_rank, a.row_splits_dtype)
    return type(a)(dims, a.dtype)


__all__ = ["StructuredFunction"]
