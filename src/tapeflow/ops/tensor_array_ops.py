"""`tf.TensorArray`.

Eagerly, as TensorFlow's eager TensorArray: a mutable Python list of tensors (`write` stores
and returns the same array; reads clear their slot unless `clear_after_read=False`; unwritten
slots read as zeros of the element shape). Gradients come from the tape through the tensors
stored and the ops (`stack`, `concat`, ...) that combine them.

Inside `tf.function` the array is functional, as TensorFlow's TensorList-backed one: each
`write` returns a new TensorArray over a new dense buffer of shape `(size, *element_shape)`
(the `flow`), sharing the array's metadata (dtype, element shape inferred from the first
write) with the array it came from. Before the first write the buffer does not exist yet
("pending"); it is built as zeros once the element shape is known. `tf.while_loop` and
`tf.cond` carry the buffer as an ordinary tensor (`loop_tensors`, `pack`), so the While/If
VJPs and the buffer ops' VJPs (written with these ops) differentiate it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, OutOfRangeError, \
    UnimplementedError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.ops import array_ops, index_ops, math_ops


# -- buffer primitives (traced arrays) --------------------------------------------------------

def _read_impl(buf: np.ndarray, i: Any) -> np.ndarray:
    i = int(i)
    if not 0 <= i < buf.shape[0]:
        raise InvalidArgumentError(f"Trying to access element {i} in a list with "
                                   f"{buf.shape[0]} elements.")
    return buf[i]


def _write_impl(buf: np.ndarray, i: Any, value: np.ndarray) -> np.ndarray:
    i, n = int(i), buf.shape[0]
    if not 0 <= i < n:
        raise InvalidArgumentError(f"Trying to modify element {i} in a list with {n} "
                                   f"elements.")
    value = np.asarray(value)
    if value.shape != buf.shape[1:]:   # never let NumPy broadcast a wrong-shaped item
        raise InvalidArgumentError(
            f"Tried to set a tensor with incompatible shape at a list index. Item element "
            f"shape: {list(value.shape)} list shape: {list(buf.shape[1:])}")
    out = buf.copy()
    out[i] = value
    return out


def _read_rule(buf: ShapedArray, i: ShapedArray) -> ShapedArray:
    return ShapedArray(None if buf.shape is None else buf.shape[1:], buf.dtype)


_READ = Primitive("TensorArrayReadV3", _read_impl, shape_rule=_read_rule)
_WRITE = Primitive("TensorArrayWriteV3", _write_impl,
                   shape_rule=lambda buf, i, value: ShapedArray(buf.shape, buf.dtype))
_READ.defvjp(lambda g, ans, buf, i: (bind(_WRITE, (math_ops.zeros_like(buf), i, g)), None))
# The slot written is overwritten: no gradient reaches the buffer's old value there.
_WRITE.defvjp(lambda g, ans, buf, i, value: (bind(_WRITE, (g, i, math_ops.zeros_like(value))),
                                             None, bind(_READ, (g, i))))


def _or_zeros(t: Optional[Tensor], x: Tensor) -> Tensor:
    return math_ops.zeros_like(x) if t is None else t


# Both are linear in the buffer and the item, not in the index: the JVP is the op applied to
# the tangents at the same index.
_READ.defjvp(lambda ts, ans, buf, i: None if ts[0] is None else bind(_READ, (ts[0], i)))
_WRITE.defjvp(lambda ts, ans, buf, i, value: bind(
    _WRITE, (_or_zeros(ts[0], buf), i, _or_zeros(ts[2], value))))


def _grown(buf: Tensor, index: Tensor) -> Tensor:
    """`buf` with zero rows appended so that `index` is in range (a dynamic-size write)."""
    shape = array_ops.shape(buf)
    extra = math_ops.maximum(index + 1 - shape[0], 0)
    zeros = array_ops.zeros(array_ops.concat([array_ops.reshape(extra, [1]), shape[1:]], 0),
                            buf.dtype)
    return array_ops.concat([buf, zeros], 0)


# -- the public class -------------------------------------------------------------------------

class _Meta:
    """What every TensorArray derived from one constructor call shares (as TF's
    build_ta_with_new_flow shares the element-shape cell)."""

    __slots__ = ("dtype", "size", "dynamic_size", "infer_shape", "element_shape")

    def __init__(self, dtype: Any, size: Any, dynamic_size: bool, infer_shape: bool,
                 element_shape: TensorShape) -> None:
        self.dtype = dtype
        self.size = size
        self.dynamic_size = dynamic_size
        self.infer_shape = infer_shape
        self.element_shape = element_shape


@tf_export("TensorArray")
class TensorArray:
    """A list of tensors of one dtype, written and read by index (`tf.TensorArray`).

    Eagerly `write`, `unstack`, `scatter` and `split` change the array and return it; inside
    `tf.function` they return a new array (use the returned one, as TensorFlow requires).
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Optional[bool] = None,
                 clear_after_read: Optional[bool] = None,
                 tensor_array_name: Optional[str] = None, handle: Any = None, flow: Any = None,
                 infer_shape: bool = True, element_shape: Any = None,
                 colocate_with_first_write_call: bool = True,
                 name: Optional[str] = None) -> None:
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is "
                             "enabled." if context.graph is None else
                             "TensorArray handles are not supported by tapeflow.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is "
                             "enabled." if context.graph is None else
                             "Argument `size` must be provided if argument `flow` is not "
                             "provided.")
        dtype = _dtypes.as_dtype(dtype).base_dtype
        self._meta = _Meta(dtype, size, bool(dynamic_size), infer_shape,
                           TensorShape(element_shape) if not isinstance(element_shape,
                                                                        TensorShape)
                           else element_shape)
        self._eager = context.graph is None
        if self._eager:
            if isinstance(size, TensorLike):
                size = int(size._value)
            self._items: list = [None] * int(size)
            self._clear_after_read = True if clear_after_read is None else clear_after_read
            self._read_indices: list = []
            self._flow = convert_to_tensor(np.int32(0))
        else:
            self._flow = flow   # the dense buffer; None while pending

    @classmethod
    def _with_flow(cls, like: "TensorArray", flow: Optional[Tensor]) -> "TensorArray":
        """A traced array sharing `like`'s metadata over the buffer `flow`."""
        ta = cls.__new__(cls)
        ta._meta, ta._eager, ta._flow = like._meta, False, flow
        return ta

    # -- properties --

    @property
    def flow(self) -> Any:
        """The tensor standing for the array's state (the dense buffer inside tf.function;
        eagerly a dummy int32 zero, as TensorFlow's)."""
        return self._flow

    @property
    def dtype(self) -> Any:
        """The data type of the elements."""
        return self._meta.dtype

    @property
    def element_shape(self) -> TensorShape:
        """The static shape of the elements (inferred from writes)."""
        return self._meta.element_shape

    @property
    def dynamic_size(self) -> bool:
        """True when writes past the size grow the array."""
        return self._meta.dynamic_size

    @property
    def handle(self) -> None:
        """None: tapeflow's arrays have no resource handle (TF 2's neither)."""
        return None

    # -- shared checks --

    def _convert(self, value: Any) -> Tensor:
        return convert_to_tensor(value, dtype_hint=self._meta.dtype)

    def _check_dtype_eager(self, value: Tensor) -> None:
        if value.dtype != self._meta.dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._meta.dtype.name} but Op is "
                                       f"trying to write dtype {value.dtype.name} ")

    def _merge_shape(self, shape: TensorShape, eager: bool) -> None:
        meta = self._meta
        if not meta.element_shape.is_compatible_with(shape):
            if eager:
                raise ValueError(f"Incompatible shape for value ({shape}), expected "
                                 f"({meta.element_shape})")
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{meta.element_shape} ")
        if meta.infer_shape:
            meta.element_shape = meta.element_shape.merge_with(shape)

    # -- methods --

    def identity(self) -> "TensorArray":
        """An array with the same content (inside tf.function, over an identity of the
        buffer)."""
        if self._eager:
            return self
        return TensorArray._with_flow(
            self, None if self._flow is None else math_ops.identity(self._flow))

    def grad(self, source: Any, flow: Any = None, name: Optional[str] = None) -> Any:
        """Not supported (GradientTape differentiates through arrays directly)."""
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient "
            "implementation does not use/need this function to compute gradients of "
            "operations that use TensorArrays." if self._eager else
            "TensorArray.grad is not supported by tapeflow; GradientTape differentiates "
            "through TensorArrays directly.")

    def read(self, index: Any, name: Optional[str] = None) -> Tensor:
        """The element at `index`."""
        if self._eager:
            return self._eager_read(_index(index))
        return bind(_READ, (self._buffer("read"), convert_to_tensor(index, dtype_hint=_I32)))

    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Writes `value` at `index`; returns the array to use from now on."""
        if self._eager:
            self._eager_write(_index(index), value)
            return self
        value = self._convert(value)
        if value.dtype != self._meta.dtype:
            raise InvalidArgumentError(f"Invalid data types; op elements {value.dtype.name} "
                                       f"but list elements {_list_dtype(self._meta.dtype)}")
        self._merge_shape(value.shape, eager=False)
        buf = self._flow if self._flow is not None else self._reserve_like(value)
        index = convert_to_tensor(index, dtype_hint=_I32)
        if self._meta.dynamic_size:
            buf = _grown(buf, index)
        new = bind(_WRITE, (buf, index, value))
        return TensorArray._with_flow(self, new)

    def stack(self, name: Optional[str] = None) -> Tensor:
        """The elements stacked along a new first axis."""
        if self._eager:
            return self._eager_stack()
        buf = self._buffer("stack")
        size = self._meta.size
        n = buf.shape[0] if buf.shape.rank else None
        if not self._meta.dynamic_size and isinstance(size, int) and n is not None and n != size:
            raise InvalidArgumentError(f"Operation expected a list with {size} elements but "
                                       f"got a list with {n} elements.")
        return buf

    def gather(self, indices: Any, name: Optional[str] = None) -> Tensor:
        """The elements at `indices`, stacked."""
        if self._eager:
            idx = indices._value if isinstance(indices, TensorLike) else indices
            return array_ops.stack([self._maybe_zero(int(i)) for i in np.ravel(idx)])
        return array_ops.gather(self._buffer("gather"), indices)

    def concat(self, name: Optional[str] = None) -> Tensor:
        """The elements concatenated along their first axis."""
        if self._eager:
            return self._eager_concat()
        buf = self._buffer("concat")
        if buf.shape.rank is not None and buf.shape.rank < 2:
            raise InvalidArgumentError("Concat saw a scalar shape at index 0 but requires at "
                                       "least vectors.")
        rest = buf.shape.as_list()[2:] if buf.shape.rank is not None else None
        if rest is not None and None not in rest:
            return array_ops.reshape(buf, [-1] + rest)
        return array_ops.reshape(buf, array_ops.concat(
            [convert_to_tensor(np.array([-1], np.int32)), array_ops.shape(buf)[2:]], 0))

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Writes the slices of `value` along its first axis as the elements."""
        value = self._convert(value)
        if self._eager:
            tensors = array_ops.unstack(value)
            if len(tensors) > len(self._items) and not self._meta.dynamic_size:
                raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray "
                                 f"of static size {len(self._items)} ")
            self._items = list(tensors)
            return self
        self._check_dtype_traced(value)
        self._merge_shape(value.shape[1:], eager=False)
        return TensorArray._with_flow(self, value)

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Writes the slices of `value` along its first axis at `indices`."""
        value = self._convert(value)
        if self._eager:
            idx = indices._value if isinstance(indices, TensorLike) else indices
            for i, v in zip(np.ravel(idx), array_ops.unstack(value)):
                self._eager_write(int(i), v)
            return self
        self._check_dtype_traced(value)
        self._merge_shape(value.shape[1:], eager=False)
        buf = self._flow if self._flow is not None else self._reserve_like(value[0])
        indices = array_ops.reshape(convert_to_tensor(indices, dtype_hint=_I32), [-1, 1])
        return TensorArray._with_flow(self, index_ops.tensor_scatter_nd_update(
            buf, indices, value))

    def split(self, value: Any, lengths: Any, name: Optional[str] = None) -> "TensorArray":
        """Splits `value` along its first axis into pieces of `lengths` as the elements."""
        value = self._convert(value)
        if self._eager:
            return self._eager_split(value, lengths)
        self._check_dtype_traced(value)
        lens = _static_value(lengths)
        if lens is None or len(lens) == 0 or lens.min() != lens.max() or \
                value.shape.rank is None or value.shape.rank == 0:
            raise UnimplementedError(
                "TensorArray.split inside tf.function needs equal lengths known when "
                "tracing (tapeflow stores the elements as one dense buffer); got lengths "
                f"{lengths!r}.")
        count, length = len(lens), int(lens[0])
        rest = value.shape.as_list()[1:]
        self._merge_shape(TensorShape([length] + rest), eager=False)
        if value.shape[0] is not None and value.shape[0] != count * length:
            raise InvalidArgumentError(f"Expected sum of lengths to be equal to "
                                       f"values.shape[0], but sum of lengths is "
                                       f"{count * length} and value's shape is: "
                                       f"{value.shape.as_list()} ")
        shape = [count, length] + [(-1 if d is None else d) for d in rest]
        return TensorArray._with_flow(self, array_ops.reshape(value, shape))

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of elements (an int32 scalar)."""
        if self._eager:
            return convert_to_tensor(np.int32(len(self._items)))
        if not self._meta.dynamic_size:
            return convert_to_tensor(self._meta.size, dtype=_I32)
        if self._flow is None:
            return convert_to_tensor(self._meta.size, dtype=_I32)
        return array_ops.shape(self._flow)[0]

    def close(self, name: Optional[str] = None) -> None:
        """Eagerly empties the array; inside tf.function does nothing, as TensorFlow."""
        if self._eager:
            del self._items[:]

    # -- eager helpers (TensorFlow's _EagerTensorArray) --

    def _eager_read(self, index: int) -> Tensor:
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not "
                                  f"allowed.")
        if index >= len(self._items):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: "
                                  f"{len(self._items)} ")
        tensor = self._items[index]
        if tensor is None:
            if index in self._read_indices:
                raise InvalidArgumentError(
                    f"Could not read index {index} twice because it was cleared after a "
                    f"previous read (perhaps try setting clear_after_read = false?)")
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._items[index] = None
            self._read_indices.append(index)
        return tensor

    def _eager_write(self, index: int, value: Any) -> None:
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not "
                                  f"allowed.")
        size = len(self._items)
        if index >= size:
            if not self._meta.dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {index} but array is not "
                                      f"resizeable and size is: {size} ")
            self._items.extend([None] * (index - size + 1))
        value = self._convert(value)
        self._check_dtype_eager(value)
        self._merge_shape(value.shape, eager=True)
        self._items[index] = value

    def _maybe_zero(self, index: int) -> Tensor:
        if self._items[index] is None:
            self._items[index] = array_ops.zeros(self._static_shape(), self._meta.dtype)
        return self._items[index]

    def _static_shape(self) -> list:
        shape = self._meta.element_shape
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a "
                             f"Tensor.")
        return shape.as_list()

    def _eager_stack(self) -> Tensor:
        for i in range(len(self._items)):
            self._maybe_zero(i)
        if not self._items:
            shape = self._meta.element_shape
            dims = shape.as_list() if shape.is_fully_defined() else []
            return array_ops.zeros([0] + dims, self._meta.dtype)
        return array_ops.stack(self._items)

    def _eager_concat(self) -> Tensor:
        items = [self._maybe_zero(i) for i in range(len(self._items))]
        for i, t in enumerate(items):
            if t.shape.rank == 0:
                raise InvalidArgumentError(f"Concat saw a scalar shape at index {i} but "
                                           f"requires at least vectors.")
        return array_ops.concat(items, 0)

    def _eager_split(self, value: Tensor, lengths: Any) -> "TensorArray":
        self._check_dtype_eager(value)
        lengths = convert_to_tensor(lengths)
        lens = np.asarray(lengths._value)
        if lens.ndim != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: "
                                       f"{list(lens.shape)} ")
        if value.shape.rank == 0:
            raise InvalidArgumentError(f"Expected value to be at least a vector, but received "
                                       f"shape: {value.shape.as_list()} ")
        if int(lens.sum()) != value.shape[0]:
            raise InvalidArgumentError(f"Expected sum of lengths to be equal to "
                                       f"values.shape[0], but sum of lengths is "
                                       f"{int(lens.sum())} and value's shape is: "
                                       f"{value.shape.as_list()} ")
        if not self._meta.dynamic_size and len(lens) != len(self._items):
            raise InvalidArgumentError(f"TensorArray's size is not equal to the size of "
                                       f"lengths ({len(self._items)} vs. {len(lens)}), and "
                                       f"the TensorArray is not marked as dynamically "
                                       f"resizeable.")
        self._items = list(array_ops.split(value, [int(n) for n in lens]))
        return self

    # -- traced helpers --

    def _check_dtype_traced(self, value: Tensor) -> None:
        if value.dtype != self._meta.dtype:
            raise InvalidArgumentError(f"Invalid data types; op elements {value.dtype.name} "
                                       f"but list elements {_list_dtype(self._meta.dtype)}")

    def _size_tensor(self) -> Tensor:
        return convert_to_tensor(self._meta.size, dtype=_I32)

    def _reserve_like(self, value: Tensor) -> Tensor:
        """Zeros for `size` elements shaped as `value` (its run-time shape if not static)."""
        size = self._meta.size
        if value.shape.is_fully_defined():
            dims = value.shape.as_list()
            if isinstance(size, (int, np.integer)):
                return array_ops.zeros([int(size)] + dims, self._meta.dtype)
            return array_ops.zeros([self._size_tensor()] + dims, self._meta.dtype)
        shape = array_ops.concat([array_ops.reshape(self._size_tensor(), [1]),
                                  array_ops.shape(value)], 0)
        return array_ops.zeros(shape, self._meta.dtype)

    def _buffer(self, what: str) -> Tensor:
        """The dense buffer, built as zeros when nothing was written yet (TF's errors where
        the element shape is not known)."""
        if self._flow is not None:
            return self._flow
        shape = self._meta.element_shape
        if not shape.is_fully_defined():
            if what == "read":
                raise InvalidArgumentError(f"Trying to read an uninitialized tensor but "
                                           f"element_shape is not fully defined: {shape} and "
                                           f"no list element is set.")
            if isinstance(self._meta.size, int) and self._meta.size == 0:
                raise InvalidArgumentError(f"Tried to stack elements of an empty list with "
                                           f"non-fully-defined element_shape: {shape}")
            raise InvalidArgumentError(f"Tried to stack list which only contains "
                                       f"uninitialized tensors and has a non-fully-defined "
                                       f"element_shape: {shape}")
        self._flow = self._reserve_like(array_ops.zeros(shape.as_list(), self._meta.dtype))
        return self._flow

    def _invariant(self) -> TensorShape:
        """The buffer's shape as a while_loop variable: the leading dim is the size (unknown
        for a dynamic or traced size)."""
        size = self._meta.size
        lead = size if not self._meta.dynamic_size and isinstance(size, (int, np.integer)) \
            else None
        return TensorShape([lead]).concatenate(self._meta.element_shape)


_I32 = _dtypes.int32


def _index(index: Any) -> int:
    if isinstance(index, TensorLike):
        return int(index._value)
    if isinstance(index, (float, np.floating)):
        raise TypeError(f"list indices must be integers or slices, not "
                        f"{type(index).__name__}")
    return int(index)


def _list_dtype(dtype: Any) -> str:
    # TensorFlow's kernels name dtypes by their C++ names in this message.
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def _static_value(x: Any) -> Optional[np.ndarray]:
    """`x` as a flat NumPy array when known while tracing (a Python value or a constant)."""
    if not isinstance(x, TensorLike):
        return np.ravel(np.asarray(x))
    graph = getattr(x, "_graph", None)
    if graph is None or graph.values[x._vid].fixed:
        return np.ravel(np.asarray(x._value))
    return None


# -- control flow support (tf.while_loop and tf.cond carry traced arrays as their buffer) -----

def _is_traced_array(x: Any) -> bool:
    return isinstance(x, TensorArray) and not x._eager


def loop_tensors(structure: Any) -> list:
    """The leaves of `structure` as tensors, each traced TensorArray as its buffer."""
    return [x._buffer("stack") if _is_traced_array(x) else convert_to_tensor(x)
            for x in nest.flatten(structure)]


def pack(structure: Any, tensors: list) -> Any:
    """`structure` rebuilt from `tensors` (as `loop_tensors` gives them): each traced
    TensorArray of `structure` becomes an array sharing its metadata over its tensor."""
    leaves = nest.flatten(structure)
    if not any(_is_traced_array(x) for x in leaves):
        return nest.pack_sequence_as(structure, tensors)
    rebuilt = [TensorArray._with_flow(x, t) if _is_traced_array(x) else t
               for x, t in zip(leaves, tensors)]
    return nest.pack_sequence_as(structure, rebuilt)


def invariants(structure: Any, shapes: list) -> list:
    """`shapes` (one per leaf) with each traced TensorArray's buffer invariant in place."""
    return [x._invariant() if _is_traced_array(x) else s
            for x, s in zip(nest.flatten(structure), shapes)]


def has_pending(structure: Any) -> bool:
    """True when a traced TensorArray of `structure` has no buffer and no known element
    shape (the loop body's first write must tell it)."""
    return any(_is_traced_array(x) and x._flow is None and
               not x._meta.element_shape.is_fully_defined() for x in nest.flatten(structure))


def check_inferred(structure: Any) -> None:
    """Refuses a loop TensorArray whose element shape the body did not make fully known."""
    for x in nest.flatten(structure):
        if _is_traced_array(x) and x._flow is None and \
                not x._meta.element_shape.is_fully_defined():
            raise ValueError(
                f"tf.while_loop: a TensorArray loop variable has element shape "
                f"{x._meta.element_shape} after tracing the body, and tapeflow needs it fully "
                f"known to build the array before the loop; pass element_shape= to "
                f"tf.TensorArray.")


def keep_arrays(structure: Any) -> Any:
    """Eager loop results: tensors converted, TensorArrays kept."""
    return nest.map_structure(
        lambda x: x if isinstance(x, TensorArray) else convert_to_tensor(x), structure)
