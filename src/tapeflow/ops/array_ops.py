"""Shape and layout ops: reshape, transpose, expand_dims, squeeze, concat, stack, unstack,
split, tile, broadcast_to, gather, slicing, shape/size/rank, and tensor creation."""

from __future__ import annotations

import builtins
import numbers
from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.framework.abstract import AbstractArray, Dims, ShapedArray, has_static_shape
from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.ragged_shape import DynamicRaggedShape
from tapeflow.framework.ragged_tensor import fallback as ragged_fallback, is_ragged
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.framework import convert as _convert_module
from tapeflow.framework.convert import constant_value, cpp_name, mismatch_error
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import (ensure_shape_prim, is_traced, read_at_run_time, reads_static,
                                  reject_traced, static_value)
from tapeflow.ops.math_ops import cast, conj, maximum, where, zeros_like, zeros_of


def _shape_tuple(shape: Any) -> tuple:
    """A shape argument (list, tuple, TensorShape, int tensor) as a tuple of ints."""
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list())
    if isinstance(shape, (TensorLike, np.ndarray)):
        return tuple(int(d) for d in np.asarray(getattr(shape, "_value", shape)).reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _python_axis(axis: Any, rank: int, low: Optional[int] = None) -> int:
    """`axis` in [-rank, rank) made non-negative, checked as TensorFlow's Python wrappers of
    stack/unstack check it (ValueError, before any kernel runs)."""
    axis = int(axis)
    low = -rank if low is None else low
    if not low <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{low}, {rank})")
    return axis % rank


def _axis(axis: Any, rank: int, op_name: str) -> int:
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Expected axis in the range [{-rank}, {rank}), but got "
                                   f"{axis} [Op:{op_name}]")
    return axis % rank if rank else 0


def _shape_error(op: str, text: str, *shapes: Dims) -> ValueError:
    """TensorFlow's shape-inference error: `text`, naming the op and its inputs' shapes."""
    return ValueError(f"{text} for '{{{{node {op}}}}} = {op}[...]' with input shapes: "
                      f"{', '.join(map(dims_text, shapes))}.")


def _sum_known(dims: Any) -> Optional[int]:
    """The sum of `dims`, None when one is unknown."""
    dims = list(dims)
    return None if None in dims else sum(dims)


def _product(dims: Sequence[Optional[int]]) -> Optional[int]:
    """The product of `dims`, None when one is unknown (0 when one is 0)."""
    if 0 in dims:
        return 0
    return None if None in dims else int(np.prod(dims, dtype=np.int64))


def _linear_in_data(prim: Primitive) -> Primitive:
    """`prim`, linear in its first input, given the forward rule that applies it to that
    input's tangent and its other inputs as they are: run-time sizes and offsets, which a
    tangent of zeros would replace."""
    def rule(tangents: list, ans: Any, x: Tensor, *sizes: Tensor, **attrs: Any) -> Any:
        return None if tangents[0] is None else bind(prim, (tangents[0],) + sizes, attrs)
    return prim.defjvp(rule)


# -- int arguments read when the graph runs (axes, perms, band widths) ---------------------------

def run_time_int(arg: Any, param: str, op: str, rank: Optional[int], shapes: tuple,
                 at_most: bool = False) -> Tensor:
    """A traced int argument (an axis, a perm, a band width; a list holding traced scalars is
    stacked) as the int32/int64 tensor that `op` takes as an input and reads when the graph
    runs, checked as TensorFlow checks it while tracing: its dtype (TypeError naming `param`),
    then its rank, `rank` (or at most `rank`; None: TF's kernel checks it as it runs), in TF's
    shape-function ValueError, which lists `shapes` (the op's other inputs' static shapes)
    before the argument's."""
    if isinstance(arg, (list, tuple)):   # the traced items' dtype, as TF's autopacking
        arg = _autopack(arg, next(a.dtype for a in _leaves(arg) if isinstance(a, Tensor)))
    if arg.dtype.name not in ("int32", "int64"):
        raise TypeError(f"Value passed to parameter '{param}' has DataType {arg.dtype.name} "
                        f"not in list of allowed values: int32, int64")
    given = arg._value.ndim
    if None not in (given, rank) and (given > rank if at_most else given != rank):
        text = f"at most rank {rank}" if at_most else f"rank {rank}"
        raise _shape_error(op, f"Shape must be {text} but is rank {given}", *shapes,
                           arg._value.shape)
    return arg


def _leaves(value: Any) -> Any:
    """The items of a nested list, depth first."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def scalar_at_run_time(value: np.ndarray, text: str) -> int:
    """A run-time axis that must be one int (TF's kernels' check: `text` then its shape)."""
    if np.ndim(value) != 0:
        raise InvalidArgumentError(f"{text}{dims_text(np.shape(value))}")
    return int(value)


def _known_rank(op: str, avals: Sequence[ShapedArray], text: str) -> Optional[int]:
    """The one rank the inputs `avals` share (None where none is known); ValueError in TF's
    words (`text`, formatted with two ranks) where two differ."""
    ranks = {a.ndim for a in avals} - {None}
    if len(ranks) > 1:
        first = next(a.ndim for a in avals if a.ndim is not None)
        other = next(r for r in (a.ndim for a in avals) if r not in (None, first))
        raise _shape_error(op, text.format(first, other), *(a.shape for a in avals))
    return ranks.pop() if ranks else None


def _unknown_dims(rank: Optional[int]) -> Dims:
    """The static shape of a result whose every dim a run-time argument decides."""
    return None if rank is None else (None,) * rank


# -- reshape -------------------------------------------------------------------------------------

def _reshape_rule(x: ShapedArray, *dims: ShapedArray, shape: Dims,
                  unchecked: bool = False) -> ShapedArray:
    """`shape` (a traced one may hold unknown dims, None, or be None: unknown rank), its one
    -1 or unknown dim inferred when `x`'s element count is known, as TF's Reshape shape
    function. `dims`: the run-time shape, when given (its values are the unknowns)."""
    if shape is None:
        return ShapedArray(None, x.dtype)
    target = tuple(None if d == -1 else d for d in shape)
    unknown = target.count(None)
    if not x.is_fully_defined() or unknown > 1:
        return ShapedArray(target, x.dtype)
    size, rest = _product(x.shape), _product([d for d in target if d is not None])
    if unknown and rest and size % rest:
        raise _shape_error("Reshape", f"Dimension size must be evenly divisible by {rest} "
                                      f"but is {size}", x.shape)
    if not unknown and rest != size:
        raise _shape_error("Reshape", f"Cannot reshape a tensor with {size} elements to "
                                      f"shape {dims_text(shape)} ({rest} elements)", x.shape)
    return ShapedArray(_resolve_shape(x.shape, tuple(-1 if d is None else d for d in target)),
                       x.dtype)


def _reshape_kernel(x: np.ndarray, *dims: np.ndarray, shape: Dims,
                    unchecked: bool = False) -> np.ndarray:
    """`x` in `shape`, or in the run-time shape `dims[0]` when given (a traced shape
    argument). A shape that was not checked when tracing (`unchecked`: `x`'s shape was
    unknown) is checked here, with TF's messages."""
    if dims:
        shape = tuple(int(d) for d in dims[0])
    try:
        return np.reshape(x, shape)
    except ValueError:   # TF's error; or a -1 next to a zero size, which TF infers
        return np.reshape(x, _resolve_shape(x.shape, shape))


def _reshape_vjp(g: Tensor, ans: Tensor, x: Tensor, *dims: Tensor, shape: Dims,
                 unchecked: bool = False) -> Any:
    gx = reshape(g, x._value.shape if has_static_shape(x._value) else _shape_of(x))
    return (gx, None) if dims else gx


_reshape = _linear_in_data(Primitive("Reshape", _reshape_kernel, linear=True,
                                     shape_rule=_reshape_rule).defvjp(_reshape_vjp))
# Inlined where the shape is a checked constant (a traced or unchecked one runs the kernel).
_reshape.lowering = lambda shape, unchecked=False: f"np.reshape({{0}}, {shape!r})" if \
    not unchecked and shape is not None and \
    all(d is not None and d >= 0 for d in shape) else None


def _shape_of(x: Tensor) -> Tensor:
    """`x`'s shape as the graph runs (the Shape op), for rules where it is not static."""
    return bind(_shape, (x,), {"dtype": np.dtype(np.int32)})


def _traced_dims(arg: Any, param: Optional[str] = None,
                 allowed: tuple = ("int32", "int64")) -> Optional[tuple]:
    """Under a trace, a shape argument (a 1-D int tensor, or a list whose items may be scalar
    tensors) that holds a traced tensor, as (pattern, tensor): the static dims (ints, None
    where read only when the graph runs; None for an unknown length) and the int tensor to
    read when the graph runs. None where `arg` holds no traced tensor (it is then static).
    `param`: the op's name for the argument in TF's dtype error (Reshape's attr error if
    None); `allowed`: the dtypes the op takes for it."""
    if is_traced(arg):
        t = arg
        if t.dtype.name not in allowed:
            if param is not None:
                raise TypeError(f"Value passed to parameter '{param}' has DataType "
                                f"{t.dtype.name} not in list of allowed values: "
                                f"{', '.join(allowed)}")
            raise TypeError(f"Value for attr 'Tshape' of {t.dtype.name} is not in the list of "
                            f"allowed values: int32, int64")
        static = t._value.shape
        if static is not None and len(static) > 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(static)}")
        if static is not None and len(static) == 0:
            t = reshape(t, [1])
            static = (1,)
        return (None if static is None or static[0] is None else _known_values(t)), t
    if not isinstance(arg, (list, tuple)) or not any(is_traced(a) for a in arg):
        return None
    given = tuple(None if is_traced(a) else int(np.asarray(getattr(a, "_value", a)))
                  for a in arg)
    dtype = next(a.dtype for a in arg if is_traced(a))   # Python ints take the tensors'
    dims = stack([a if is_traced(a) else convert_to_tensor(d, dtype=dtype)
                  for a, d in zip(arg, given)])
    pattern = tuple(_known_value(a) if is_traced(a) else d for a, d in zip(arg, given))
    return tuple(d if isinstance(d, int) and d >= 0 else None for d in pattern), dims


def _known_values(t: Tensor) -> tuple:
    """The items of the traced 1-D int tensor `t` (of known length) that tracing can tell
    (see `_known_value`); None for the others and for negative ones."""
    known = _known_value(t)
    if not isinstance(known, tuple):
        return (None,) * t._value.shape[0]
    return tuple(d if isinstance(d, int) and d >= 0 else None for d in known)


def _known_value(t: Tensor) -> Any:
    """What tracing can tell of the value of the traced int tensor `t`, as TensorFlow's shape
    functions read a shape tensor (an int for a scalar, a tuple with None where unknown for a
    vector, None where nothing is known): see `_known_of`."""
    return _known_of(t._graph.values, t._vid)


def _known_of(values: Any, vid: int) -> Any:
    """`_known_value` of the graph value `vid`: a value that is the same on every run; the
    static dims of a `tf.shape(x)`, and an index or a slice of them; the items of a `tf.stack`
    of scalars."""
    info = values[vid]
    if info.fixed and info.example is not None:
        value = np.asarray(info.example)
        return int(value) if value.ndim == 0 else tuple(int(v) for v in value.reshape(-1))
    producer = info.producer
    if producer is None:
        return None
    if producer.op is _shape:
        return tuple(values[producer.inputs[0]].shape.dims)
    if producer.op is _stack and info.shape.rank == 1 and \
            len(producer.inputs) == info.shape.dims[0]:   # of scalars: a 1-D stack
        items = [_known_of(values, v) for v in producer.inputs]
        return tuple(i if isinstance(i, int) else None for i in items)
    key = producer.attrs.get("key") if producer.op_name == "StridedSlice" and \
        len(producer.inputs) == 1 else None
    if isinstance(key, tuple) and len(key) == 1 and isinstance(key[0], (int, builtins.slice)):
        whole = _known_of(values, producer.inputs[0])
        if isinstance(whole, tuple) and (not isinstance(key[0], int) or
                                         -len(whole) <= key[0] < len(whole)):
            return whole[key[0]]
    return None


@tf_export("reshape")
@reads_static
def reshape(tensor: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """The same elements in a new shape; one dimension may be -1 (inferred). A
    DynamicRaggedShape gives a RaggedTensor of the elements in row-major order."""
    if type(shape) is DynamicRaggedShape:
        flat = tensor.flat_values if is_ragged(tensor) else tensor
        return shape._add_row_partitions(reshape(flat, shape._inner))
    x = convert_to_tensor(tensor)
    if context.graph is not None:
        traced = _traced_dims(shape)
        if traced is not None:   # read when the graph runs, as TF's shape input
            return bind(_reshape, (x, traced[1]), {"shape": traced[0]})
    target = static_value(shape, "Reshape: shape", _shape_tuple)
    if x._value.shape == target:
        return x
    if not has_static_shape(x._value):   # -1 and the element count checked when it runs
        return bind(_reshape, (x,), {"shape": _checked_dims(target), "unchecked": True})
    return bind(_reshape, (x,), {"shape": _resolve_shape(x._value.shape, target)})


def _checked_dims(target: tuple) -> tuple:
    """`target`'s checks that need no input shape (TF's Reshape kernel's order)."""
    for d, size in enumerate(target):
        if size < -1:
            raise InvalidArgumentError(f"Size {d} must be non-negative, not {size} "
                                       f"[Op:Reshape]")
    if target.count(-1) > 1:
        first = target.index(-1)
        raise InvalidArgumentError(f"Only one input size may be -1, not both {first} and "
                                   f"{target.index(-1, first + 1)} [Op:Reshape]")
    return target


def _resolve_shape(in_shape: tuple, target: tuple) -> tuple:
    """`target` with its -1 filled in, validated as TensorFlow's Reshape kernel does (zero
    sizes stay out of the products, so the -1 is still inferred next to a 0)."""
    product, unknown, has_zero = 1, None, False
    for d, size in enumerate(target):
        if size == -1:
            if unknown is not None:
                raise InvalidArgumentError(f"Only one input size may be -1, not both "
                                           f"{unknown} and {d} [Op:Reshape]")
            unknown = d
        elif size < 0:
            raise InvalidArgumentError(f"Size {d} must be non-negative, not {size} "
                                       f"[Op:Reshape]")
        elif size == 0:
            has_zero = True
        else:
            product *= size
    size = int(np.prod(in_shape, dtype=np.int64))
    if unknown is not None:
        known = int(np.prod([d for d in in_shape if d > 0 or not has_zero], dtype=np.int64))
        missing = known // product
        if not (has_zero and 0 in in_shape) and missing * product != known:
            raise InvalidArgumentError(f"Input to reshape is a tensor with {known} values, but "
                                       f"the requested shape requires a multiple of {product} "
                                       f"[Op:Reshape]")
        target = target[:unknown] + (missing,) + target[unknown + 1:]
    requested = int(np.prod(target, dtype=np.int64))
    if requested != size:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {size} values, but the "
                                   f"requested shape has {requested} [Op:Reshape]")
    return target


# -- transpose -----------------------------------------------------------------------------------

def _transpose_rule(x: ShapedArray, perm: Sequence[int]) -> ShapedArray:
    if x.shape is None:
        return ShapedArray((None,) * len(perm), x.dtype)
    if len(perm) != len(x.shape):
        raise _shape_error("Transpose", f"Dimension must be {len(x.shape)} but is {len(perm)}",
                           x.shape)
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)


_transpose = Primitive("Transpose", lambda x, perm: np.transpose(x, perm), linear=True,
                       shape_rule=_transpose_rule).defvjp(
    lambda g, ans, x, perm: transpose(g, tuple(np.argsort(perm))))


def _transpose_at_run_time_kernel(x: np.ndarray, perm: np.ndarray,
                                  inverse: bool = False) -> np.ndarray:
    """`x` transposed by `perm`, read as the graph runs and checked as TF's kernel checks
    it (by its inverse, for the adjoint)."""
    perm = np.asarray(perm)
    fixed = _check_perm(perm, x.ndim)
    return np.transpose(x, np.argsort(fixed) if inverse else fixed)


def _transpose_at_run_time_rule(x: ShapedArray, perm: ShapedArray,
                                inverse: bool = False) -> ShapedArray:
    # TF's shape function: the rank (perm's length, or x's), no dim (even [3,3,3]'s).
    length = None if perm.shape is None or not perm.shape else perm.shape[0]
    if None not in (length, x.ndim) and length != x.ndim:
        raise _shape_error("Transpose", f"Dimension must be {x.ndim} but is {length}",
                           x.shape, perm.shape)
    return ShapedArray(_unknown_dims(x.ndim if length is None else length), x.dtype)


# Transpose with its perm read when the graph runs (its second input).
_transpose_at_run_time = _linear_in_data(Primitive(
    "Transpose", _transpose_at_run_time_kernel, register=False,
    shape_rule=_transpose_at_run_time_rule).defvjp(
    lambda g, ans, x, perm, inverse=False: (
        bind(_transpose_at_run_time, (g, perm), {"inverse": not inverse}), None)))


@tf_export("transpose")
@reads_static
def transpose(a: Any, perm: Optional[Sequence[int]] = None, conjugate: bool = False,
              name: Optional[str] = None) -> Tensor:
    """Permutes the axes; by default reverses them (and conjugates, when `conjugate`)."""
    x = convert_to_tensor(a)
    if conjugate and x._value.dtype.kind == "c":
        x = conj(x)
    if read_at_run_time(perm):   # read when the graph runs, as TF's perm input
        perm = run_time_int(perm, "perm", "Transpose", 1, (x._value.shape,))
        return bind(_transpose_at_run_time, (x, perm))
    rank = x._value.ndim
    perm = tuple(builtins.range(rank))[::-1] if perm is None else \
        static_value(perm, "Transpose: perm", np.asarray)
    if sorted(perm) != list(builtins.range(rank)):
        perm = _check_perm(perm, rank)
    return bind(_transpose, (x,), {"perm": perm})


def _check_perm(perm: np.ndarray, rank: int) -> tuple:
    """A perm that is not 0..rank-1 in some order: negative entries count from the end, as
    in TensorFlow's Transpose kernel; anything else raises its error."""
    if perm.ndim != 1:
        raise InvalidArgumentError(f"perm must be rank 1, got shape {dims_text(perm.shape)} "
                                   f"[Op:Transpose]")
    if len(perm) != rank:
        raise InvalidArgumentError(f"transpose expects a vector of size {rank}. But input(1) "
                                   f"is a vector of size {len(perm)} [Op:Transpose]")
    fixed = tuple(int(d) + rank if d < 0 else int(d) for d in perm)
    for d in fixed:
        if not 0 <= d < rank:
            raise InvalidArgumentError(f"{d} is out of range [0 .. {rank}) [Op:Transpose]")
    missing = sorted(set(builtins.range(rank)) - set(fixed))
    if missing:
        raise InvalidArgumentError(f"{missing[0]} is missing from "
                                   f"{{{','.join(str(d) for d in fixed)}}}. [Op:Transpose]")
    return fixed


def _expand_dims_at_run_time_kernel(x: np.ndarray, axis: np.ndarray) -> np.ndarray:
    if np.size(axis) != 1:
        raise InvalidArgumentError("'dim' must be a tensor with a single value [Op:ExpandDims]")
    a, rank = int(np.reshape(axis, ())), x.ndim
    if not -rank - 1 <= a <= rank:
        raise InvalidArgumentError(f"Tried to expand dim index {a} for tensor with {rank} "
                                   f"dimensions. [Op:ExpandDims]")
    return np.expand_dims(x, a)


# ExpandDims with its axis read when the graph runs: TF's shape function then knows not
# even the rank (x's rank + 1 would be right, but TF says unknown, and so does tapeflow).
_expand_dims_at_run_time = Primitive(
    "ExpandDims", _expand_dims_at_run_time_kernel, register=False,
    shape_rule=lambda x, axis: ShapedArray(None, x.dtype)).defvjp(
    lambda g, ans, x, axis: (reshape(g, _shape_of(x)), None))


@tf_export("expand_dims")
@reads_static
def expand_dims(input: Any, axis: int, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Inserts a dimension of size 1 at `axis`."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError) as exc:  # a RaggedTensor: its ragged version
        return ragged_fallback(exc, "expand_dims", expand_dims, input, axis)
    if read_at_run_time(axis):   # read when the graph runs, as TF's dim input
        axis = run_time_int(axis, "dim", "ExpandDims", 1, (x._value.shape,), at_most=True)
        return bind(_expand_dims_at_run_time, (x, axis))
    rank = x._value.ndim
    axis = static_value(axis, "ExpandDims: axis", int)
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(f"Tried to expand dim index {axis} for tensor with {rank} "
                                   f"dimensions. [Op:ExpandDims]")
    axis = axis % (rank + 1)
    shape = x._value.shape
    return _reshape_dims(x, shape[:axis] + (1,) + shape[axis:],
                         list(builtins.range(axis)) + [None] +
                         list(builtins.range(axis, rank)))


def _refuse_traced_squeeze_axis(axis: Any) -> None:
    """TF's Squeeze takes its axes as an attribute (a list of Python ints): a traced tensor
    there is refused while tracing, with TF's TypeError."""
    if is_traced(axis):
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
    if isinstance(axis, (list, tuple)):
        for a in axis:
            if is_traced(a):
                raise TypeError(f"Expected int for argument 'axis' not {a!r}.")


@tf_export("squeeze")
@reads_static
def squeeze(input: Any, axis: Any = None, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those in `axis`)."""
    x = convert_to_tensor(input)
    shape = x._value.shape
    rank = len(shape)
    if axis is not None:
        if context.state.graph is not None:
            _refuse_traced_squeeze_axis(axis)
        axis = static_value(axis, "Squeeze: axis", lambda a: np.asarray(a).reshape(-1).tolist())
    if not axis:  # None or empty: TF squeezes every dimension of size 1
        if None in shape:   # then TF's output rank is unknown
            raise NotImplementedError(f"tf.squeeze without `axis` of a tensor of shape "
                                      f"{dims_text(shape)}: tapeflow needs the axes to squeeze "
                                      f"where dims are unknown; pass `axis`")
        axes = {i for i, d in enumerate(shape) if d == 1}
    else:
        for a in axis:
            if not -rank <= a < rank:
                raise InvalidArgumentError(f"Tried to squeeze dim index {a} for tensor with "
                                           f"{rank} dimensions. [Op:Squeeze]")
        axes = {a % rank for a in axis}
        for a in axes:
            if shape[a] not in (1, None):
                raise InvalidArgumentError(f"Can not squeeze dim[{a}], expected a dimension of "
                                           f"1, got {shape[a]} [Op:Squeeze]")
    kept = [i for i in builtins.range(rank) if i not in axes]
    # A squeezed dim known only at run time must be 1 then: the reshape's count checks it.
    return _reshape_dims(x, tuple(shape[i] for i in kept), kept,
                         exact=any(shape[a] is None for a in axes))


def _reshape_dims(x: Tensor, dims: tuple, source: list, exact: bool = False) -> Tensor:
    """`x` reshaped to `dims`, where `source[i]` is the dim of `x` that output dim i is (None
    for a new 1): with unknown dims, their sizes are read as the graph runs (always, when
    `exact`: no -1 may absorb a dim of x that is left out)."""
    if None not in dims and not exact:
        return reshape(x, dims)
    if dims.count(None) == 1 and not exact:
        return reshape(x, tuple(-1 if d is None else d for d in dims))
    run_time = _shape_of(x)
    parts = stack([wrap(np.int32(1)) if i is None else run_time[i] for i in source])
    return bind(_reshape, (x, parts), {"shape": dims})


# -- concat / stack / split ----------------------------------------------------------------------

def _concat_vjp(g: Tensor, ans: Tensor, *xs: Tensor, axis: int) -> tuple:
    sizes = [x._value.shape[axis] for x in xs]
    if None in sizes:   # the pieces' sizes as the graph runs
        return tuple(bind(_split, (g, stack([_shape_of(x)[axis] for x in xs])),
                          {"sizes": tuple(sizes), "axis": axis}))
    return tuple(split(g, sizes, axis=axis))


def _concat_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    try:
        return np.concatenate(xs, axis=axis)
    except ValueError:   # shapes that tracing did not know: TF's message
        _check_concat_shapes([x.shape for x in xs], axis)
        raise


def _merge_shapes(op: str, avals: Sequence[ShapedArray], rank_text: str,
                  skip: Optional[int] = None) -> Dims:
    """The one shape all `avals` have (unknown dims take the known ones, as TF's shape
    Merge), axis `skip` aside; ValueError where ranks or known dims differ. `rank_text` is
    the rank error's text, formatted with the two ranks."""
    shapes = [a.shape for a in avals if a.shape is not None]
    if not shapes:
        return None
    first, out = shapes[0], list(shapes[0])
    for s in shapes[1:]:
        if len(s) != len(first):
            raise _shape_error(op, rank_text.format(len(first), len(s)),
                               *(a.shape for a in avals))
        for i, (a, b) in enumerate(zip(out, s)):
            if i != skip and a is not None and b is not None and a != b:
                # TF merges the dims before and after `skip` apart, and names them so.
                part = builtins.slice(None, skip) if skip is None or i < skip else \
                    builtins.slice(skip + 1, None)
                raise _shape_error(op, f"Dimension {i - (part.start or 0)} in both shapes must "
                                       f"be equal, but are {a} and {b}. Shapes are "
                                       f"{dims_text(first[part])} and {dims_text(s[part])}.",
                                   *(a.shape for a in avals))
            if a is None:
                out[i] = b
    return tuple(out)


def _concat_rule(*xs: ShapedArray, axis: int) -> ShapedArray:
    shape = _merge_shapes("ConcatV2", xs, "Shape must be rank {} but is rank {}", skip=axis)
    if shape is not None:
        parts = _sum_known(None if x.shape is None else x.shape[axis] for x in xs)
        shape = shape[:axis] + (parts,) + shape[axis + 1:]
    return ShapedArray(shape, xs[0].dtype)


_concat = Primitive("ConcatV2", _concat_kernel, linear=True,
                    shape_rule=_concat_rule).defvjp(_concat_vjp)


# ConcatV2 with its axis read when the graph runs (the last input): TF's shape function then
# knows the rank only.

def _run_time_concat_axis(axis: np.ndarray, rank: int) -> int:
    a = scalar_at_run_time(axis, "Concat dim tensor should be a scalar integer, but got shape ")
    if not -rank <= a < rank:
        raise InvalidArgumentError(f"ConcatOp : Expected concatenating dimensions in the range "
                                   f"[{-rank}, {rank}), but got {a} [Op:ConcatV2]")
    return a % rank


def _concat_at_run_time_kernel(*inputs: np.ndarray) -> np.ndarray:
    *xs, axis = inputs
    return _concat_kernel(*xs, axis=_run_time_concat_axis(axis, np.ndim(xs[0])))


def _concat_at_run_time_rule(*inputs: ShapedArray) -> ShapedArray:
    xs = inputs[:-1]
    rank = _known_rank("ConcatV2", xs, "Shape must be rank {} but is rank {}")
    return ShapedArray(_unknown_dims(rank), xs[0].dtype)


def _concat_pieces_kernel(g: np.ndarray, axis: np.ndarray, *xs: np.ndarray) -> tuple:
    a = _run_time_concat_axis(axis, g.ndim)
    return tuple(np.split(g, np.cumsum([x.shape[a] for x in xs])[:-1], axis=a))


# The adjoint of a run-time concat: the cotangent cut into the inputs' sizes along the axis,
# as the graph runs (TF builds it from ConcatOffset and Slice); its own adjoint is the concat.
_concat_pieces = Primitive(
    "ConcatGrad", _concat_pieces_kernel, multiple_results=True, register=False,
    shape_rule=lambda g, axis, *xs: tuple(ShapedArray(x.shape, g.dtype) for x in xs))
_concat_pieces.defvjp(lambda gs, ans, g, axis, *xs: (
    bind(_concat_at_run_time, tuple(_zeros_like_of(p, gp) for p, gp in zip(ans, gs)) + (axis,)),
    None) + (None,) * len(xs))
_concat_at_run_time = Primitive("ConcatV2", _concat_at_run_time_kernel, register=False,
                                shape_rule=_concat_at_run_time_rule).defvjp(
    lambda g, ans, *inputs: bind(_concat_pieces, (g, inputs[-1]) + inputs[:-1]) + (None,))


def _zeros_like_of(x: Tensor, g: Optional[Tensor]) -> Tensor:
    """`g`, or zeros of `x`'s shape where a cotangent is missing (None)."""
    return zeros_like(x) if g is None else g


def _same_dtype(values: list, op_name: str) -> list:
    tensors = [convert_to_tensor(v) for v in values]
    first = tensors[0]
    for index, t in enumerate(tensors[1:], start=1):
        if t._value.dtype != first._value.dtype:
            # Python values among tensors take the first tensor's dtype when they fit.
            if not isinstance(values[index], TensorLike):
                tensors[index] = convert_to_tensor(values[index], dtype_hint=first.dtype)
            if tensors[index]._value.dtype != first._value.dtype:
                raise mismatch_error(op_name, index, first.dtype, t.dtype,
                                     list_dtypes=[v.dtype for v in tensors])
    return tensors


@tf_export("concat")
@reads_static
def concat(values: Sequence[Any], axis: int, name: str = "concat") -> Tensor:
    """Joins tensors along an existing axis."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not len(values):
        raise InvalidArgumentError("OpKernel 'ConcatV2' has constraint on attr 'T' not in "
                                   "NodeDef '[N=0, Tidx=DT_INT32]' [Op:ConcatV2]")
    try:
        tensors = _same_dtype(list(values), "ConcatV2")
    except (TypeError, ValueError) as exc:  # RaggedTensors: joined rows
        return ragged_fallback(exc, "concat", concat, values, axis)
    if len(tensors) == 1:  # TensorFlow returns the one input without checking the axis
        return tensors[0]
    rank = tensors[0]._value.ndim
    if rank == 0:
        raise InvalidArgumentError("ConcatOp : Can't concatenate scalars (use tf.stack "
                                   "instead) [Op:ConcatV2]")
    if context.state.graph is not None and read_at_run_time(axis):   # as TF's axis input
        axis = run_time_int(axis, "axis", "ConcatV2", 0,
                            tuple(t._value.shape for t in tensors))
        return bind(_concat_at_run_time, tuple(tensors) + (axis,))
    axis = static_value(axis, "ConcatV2: axis", int)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"ConcatOp : Expected concatenating dimensions in the range "
                                   f"[{-rank}, {rank}), but got {axis} [Op:ConcatV2]")
    axis %= rank
    _check_concat_shapes([t._value.shape for t in tensors], axis)
    return bind(_concat, tuple(tensors), {"axis": axis})


def _check_concat_shapes(shapes: list, axis: int) -> None:
    """TensorFlow's ConcatOp checks: equal ranks, then equal sizes off the concat axis (the
    first mismatching dimension is named; shapes print as [2,3])."""
    first = shapes[0]
    for index, s in enumerate(shapes[1:], start=1):
        if len(s) != len(first):
            raise InvalidArgumentError(f"ConcatOp : Ranks of all input tensors should match: "
                                       f"shape[0] = {dims_text(first)} vs. shape[{index}] = "
                                       f"{dims_text(s)} [Op:ConcatV2]")
        for dim, (a, b) in enumerate(zip(first, s)):
            if dim != axis and a != b and a is not None and b is not None:
                raise InvalidArgumentError(f"ConcatOp : Dimension {dim} in both shapes must be "
                                           f"equal: shape[0] = {dims_text(first)} vs. "
                                           f"shape[{index}] = {dims_text(s)} [Op:ConcatV2]")


def _stack_vjp(g: Tensor, ans: Tensor, *xs: Tensor, axis: int) -> tuple:
    return tuple(unstack(g, num=len(xs), axis=axis))


def _compatible_dims(a: Dims, b: Dims) -> bool:
    """Whether two static shapes can be one (unknown dims match anything; the kernel then
    checks)."""
    return a is None or b is None or (len(a) == len(b) and all(
        d is None or e is None or d == e for d, e in zip(a, b)))


def _stack_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    try:
        return np.stack(xs, axis=axis)
    except ValueError:   # shapes that tracing did not know: TF's message
        for index, x in enumerate(xs):
            if x.shape != xs[0].shape:
                raise InvalidArgumentError(
                    f"Shapes of all inputs must match: values[0].shape = "
                    f"{list(xs[0].shape)} != values[{index}].shape = {list(x.shape)} "
                    f"[Op:Pack]") from None
        raise


def _stack_rule(*xs: ShapedArray, axis: int) -> ShapedArray:
    shape = _merge_shapes("Pack", xs, "Shapes must be equal rank, but are {} and {}")
    if shape is None:
        return ShapedArray(None, xs[0].dtype)
    return ShapedArray(shape[:axis] + (len(xs),) + shape[axis:], xs[0].dtype)


_stack = Primitive("Pack", _stack_kernel, linear=True,
                   shape_rule=_stack_rule).defvjp(_stack_vjp)


def _autopack(value: Any, dtype: Any) -> Tensor:
    """A nested list holding tensors, packed with stack ops (TF's autopacking): every leaf
    converts to `dtype`, tensors stay differentiable and traced ones stay symbolic."""
    if isinstance(value, (list, tuple)):
        return stack([_autopack(item, dtype) for item in value])
    return convert_to_tensor(value, dtype=dtype)


def _refuse_traced_pack_axis(axis: Tensor, first: Any) -> None:
    """A traced axis reaches TF's wrapper's Python range check (a symbolic tensor as a
    Python bool: OperatorNotAllowedInGraphError), or, where the rank is unknown, Pack's attr
    (TypeError)."""
    rank = convert_to_tensor(first)._value.ndim
    if rank is None:
        raise TypeError(f"Expected int for argument 'axis' not {axis!r}.")
    bool(axis < -(rank + 1))   # TF's wrapper's range check: a traced value has no truth


@tf_export("stack")
@reads_static
def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Joins tensors of one shape along a new axis."""
    if not len(values):   # TensorFlow stacks nothing into a float32 [0]
        return wrap(np.zeros((0,), np.float32))
    if is_traced(axis):   # TF's Pack takes the axis as an attribute: refused as TF does
        _refuse_traced_pack_axis(axis, values[0])
    if isinstance(values[0], Tensor):  # TF checks the axis before the dtypes
        _python_axis(static_value(axis, "Pack: axis", int), values[0]._value.ndim + 1)
    try:
        tensors = _same_dtype(list(values), "Pack")
    except (TypeError, ValueError) as exc:  # RaggedTensors: a new ragged axis
        return ragged_fallback(exc, "stack", stack, values, axis)
    rank = tensors[0]._value.ndim
    axis = _python_axis(static_value(axis, "Pack: axis", int), rank + 1)
    for index, t in enumerate(tensors):
        if t._value.shape != tensors[0]._value.shape and not _compatible_dims(
                t._value.shape, tensors[0]._value.shape):
            raise InvalidArgumentError(
                f"Shapes of all inputs must match: values[0].shape = "
                f"{list(tensors[0]._value.shape)} != values[{index}].shape = "
                f"{list(t._value.shape)} [Op:Pack]")
    return bind(_stack, tuple(tensors), {"axis": axis})


def _unstack_kernel(x: np.ndarray, axis: int, num: int) -> tuple:
    if x.shape[axis] != num:   # `num` is the static count of outputs (the graph's)
        raise InvalidArgumentError(f"Input shape axis {axis} must equal {num}, got shape "
                                   f"{dims_text(x.shape)} [Op:Unpack]")
    if x.ndim == 1 and x.dtype == object:   # strings: 0-d arrays, not bare bytes
        return tuple(np.array(e, dtype=object) for e in x)
    return tuple(np.moveaxis(x, axis, 0))


def _unstack_rule(x: ShapedArray, axis: int, num: Optional[int] = None) -> tuple:
    # One output per element of `axis`: `num`, TF's Unpack attribute (tf.unstack always
    # gives it); without it, the axis's static size, which TF's tf.unstack needs then.
    if num is None:
        num = None if x.shape is None else x.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape "
                             f"{'<unknown>' if x.shape is None else x.shape}")
    if x.shape is not None and x.shape[axis] not in (None, num):
        raise _shape_error("Unpack", f"Dimension must be {num} but is {x.shape[axis]}",
                           x.shape)
    shape = None if x.shape is None else x.shape[:axis] + x.shape[axis + 1:]
    return (ShapedArray(shape, x.dtype),) * num


_unstack = Primitive("Unpack", _unstack_kernel, multiple_results=True, linear=True,
                     shape_rule=_unstack_rule).defvjp(
    lambda gs, ans, x, axis, num: stack(gs, axis=axis))


@tf_export("unstack")
def unstack(value: Any, num: Optional[int] = None, axis: int = 0,
            name: str = "unstack") -> list:
    """Splits a tensor into a list of tensors along `axis` (removing it)."""
    x = convert_to_tensor(value)
    rank = x._value.ndim
    axis = _python_axis(axis, rank, low=-rank if rank else 0)
    length = x._value.shape[axis]
    if num is None and length is None:   # TF's tf.unstack refuses too
        raise ValueError(f"Cannot infer argument `num` from shape "
                         f"{TensorShape(x._value.shape)}")
    if num is not None and length is not None and num != length:
        raise InvalidArgumentError(f"Input shape axis {axis} must equal {num}, got shape "
                                   f"{dims_text(x._value.shape)} [Op:Unpack]")
    return list(bind(_unstack, (x,), {"axis": axis, "num": length if num is None else num}))


def _split_kernel(x: np.ndarray, *given: np.ndarray, sizes: tuple, axis: int) -> tuple:
    """`x` cut into pieces of `sizes` along `axis`. Where tracing did not know the axis's
    length, the sizes are checked here: `given[0]`, the size_splits (a -1 among them), or
    `len(sizes)` equal pieces where `sizes` are all unknown (tf.split(x, n))."""
    if given:
        if np.size(given[0]) != len(sizes):
            raise InvalidArgumentError(f"size of the split_tensor must be 1-D and have the "
                                       f"same elements as outputs got {np.ndim(given[0])} -D "
                                       f"and {np.size(given[0])} elements [Op:SplitV]")
        sizes = _resolve_split([int(d) for d in given[0]], x.shape[axis])
    elif None in sizes:
        sizes = _even_split(len(sizes), x.shape[axis], axis)
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


def _split_rule(x: ShapedArray, *given: ShapedArray, sizes: tuple, axis: int) -> tuple:
    if x.shape is None:
        return tuple(ShapedArray(None, x.dtype) for _ in sizes)
    # A traced VJP's sizes may hold unknown ones (None).
    length, rest = x.shape[axis], _sum_known(d for d in sizes if d != -1)
    if None not in (length, rest) and (rest > length if -1 in sizes else rest != length):
        raise _shape_error("SplitV", f"can't split axis of size {length} into pieces of size "
                                     f"[{','.join(map(str, sizes))}]", x.shape)
    fill = None if None in (length, rest) else length - rest   # the size of a -1 piece
    return tuple(ShapedArray(x.shape[:axis] + (fill if d == -1 else d,) + x.shape[axis + 1:],
                             x.dtype) for d in sizes)


def _split_vjp(gs: tuple, ans: tuple, x: Tensor, *given: Tensor, sizes: tuple,
               axis: int) -> Any:
    gx = concat(list(gs), axis=axis)
    return (gx, None) if given else gx


_split = _linear_in_data(Primitive("SplitV", _split_kernel, multiple_results=True, linear=True,
                                   shape_rule=_split_rule).defvjp(_split_vjp))


def _even_split(n: int, length: int, axis: int) -> tuple:
    """tf.split(x, n)'s sizes, checked as TF's Split kernel checks them."""
    if n <= 0 or length % n:
        raise InvalidArgumentError(f"Number of ways to split should evenly divide the "
                                   f"split dimension, but got split_dim {axis} (size = "
                                   f"{length}) and num_split {n} [Op:Split]")
    return (length // n,) * n


def _check_split_sizes(sizes: list) -> None:
    """The SplitV checks that need no input length."""
    if sizes.count(-1) > 1:
        raise InvalidArgumentError("There can only be one -1 in the input. [Op:SplitV]")
    for i, d in enumerate(sizes):
        if d < -1:
            raise InvalidArgumentError(f"Split size at index {i} must be >= 0. Got: {d} "
                                       f"[Op:SplitV]")


def _resolve_split(sizes: list, length: int) -> tuple:
    """The size_splits of SplitV with its -1 filled in, checked as TF's kernel checks them."""
    if len(sizes) == 1 and sizes[0] != length:
        raise InvalidArgumentError(f"If there is only one output, it must have the same "
                                   f"size as the input. Input size: {length} output size: "
                                   f"{sizes[0]} [Op:SplitV]")
    _check_split_sizes(sizes)
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = length - (sum(sizes) + 1)
    if sum(sizes) != length or min(sizes, default=0) < 0:
        raise InvalidArgumentError(f"Determined shape must either match input shape along "
                                   f"split_dim exactly if fully specified, or be less than "
                                   f"the size of the input along split_dim if not fully "
                                   f"specified.  Got: {sum(sizes)} [Op:SplitV]")
    return tuple(sizes)


@tf_export("split")
@reads_static
def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: Optional[int] = None,
          name: str = "split") -> list:
    """Splits into `num_or_size_splits` equal pieces, or pieces of the given sizes
    (one size may be -1)."""
    x = convert_to_tensor(value)
    if read_at_run_time(axis):   # read when the graph runs, as TF's split_dim input
        return _split_at_run_time(x, num_or_size_splits, axis, num)
    axis = _axis(static_value(axis, "SplitV: axis", int), x._value.ndim, "SplitV")
    length = x._value.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if length is None and n > 0:   # the pieces' size is known when the graph runs
            return list(bind(_split, (x,), {"sizes": (None,) * n, "axis": axis}))
        sizes = _even_split(n, length, axis)
    else:
        traced = None if context.graph is None else \
            _traced_size_splits(num_or_size_splits, num)
        if traced is not None:   # read (and checked) when the graph runs, as TF's input
            return list(bind(_split, (x, traced[1]), {"sizes": traced[0], "axis": axis}))
        sizes = _split_sizes(num_or_size_splits)
        if length is None:   # the sum (and a -1) checked when the graph runs
            _check_split_sizes(sizes)
            return list(bind(_split, (x, wrap(np.array(sizes, np.int64))),
                             {"sizes": tuple(None if d == -1 else d for d in sizes),
                              "axis": axis}))
        sizes = _resolve_split(sizes, length)
    return list(bind(_split, (x,), {"sizes": sizes, "axis": axis}))


def _split_at_run_time(x: Tensor, num_or_size_splits: Any, axis: Tensor,
                       num: Optional[int]) -> list:
    """tf.split with its axis read when the graph runs: equal pieces (Split) or sizes
    (SplitV; a traced one read as the graph runs too). The pieces know their rank only (TF's
    SplitV shape function takes an unknown axis for the last one, which can be wrong)."""
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        axis = run_time_int(axis, "split_dim", "Split", 0, (x._value.shape,))
        return list(bind(_split_at_run_time_prim, (x, axis), {"sizes": None, "count": n}))
    axis = run_time_int(axis, "split_dim", "SplitV", 0, (x._value.shape,))
    traced = _traced_size_splits(num_or_size_splits, num)
    if traced is not None:
        return list(bind(_split_at_run_time_prim, (x, axis, traced[1]),
                         {"sizes": None, "count": len(traced[0])}))
    sizes = _split_sizes(num_or_size_splits)
    _check_split_sizes(sizes)
    return list(bind(_split_at_run_time_prim, (x, axis),
                     {"sizes": tuple(sizes), "count": len(sizes)}))


def _split_at_run_time_kernel(x: np.ndarray, axis: np.ndarray, *given: np.ndarray,
                              sizes: Optional[tuple], count: int) -> tuple:
    rank, op = x.ndim, "Split" if sizes is None and not given else "SplitV"
    a = scalar_at_run_time(axis, "split_dim must be a scalar but has rank ")
    if not -rank <= a < rank:
        raise InvalidArgumentError(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), "
                                   f"but got {a} [Op:{op}]")
    a %= rank
    if given:
        sizes = _resolve_split([int(d) for d in np.reshape(given[0], -1)], x.shape[a])
    elif sizes is None:
        sizes = _even_split(count, x.shape[a], a)
    else:
        sizes = _resolve_split(list(sizes), x.shape[a])
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=a))


def _split_at_run_time_rule(x: ShapedArray, axis: ShapedArray, *given: ShapedArray,
                            sizes: Optional[tuple], count: int) -> tuple:
    return tuple(ShapedArray(_unknown_dims(x.ndim), x.dtype) for _ in builtins.range(count))


def _split_at_run_time_vjp(gs: tuple, ans: tuple, x: Tensor, axis: Tensor, *given: Tensor,
                           sizes: Optional[tuple], count: int) -> tuple:
    pieces = tuple(_zeros_like_of(p, g) for p, g in zip(ans, gs))
    return (bind(_concat_at_run_time, pieces + (axis,)), None) + (None,) * len(given)


# Split / SplitV with the axis read when the graph runs (the second input; a traced
# size_splits the third).
_split_at_run_time_prim = Primitive(
    "SplitV", _split_at_run_time_kernel, multiple_results=True, register=False,
    shape_rule=_split_at_run_time_rule).defvjp(_split_at_run_time_vjp)


def _traced_size_splits(size_splits: Any, num: Optional[int]) -> Optional[tuple]:
    """Under a trace, size_splits that hold a traced tensor as (sizes, tensor): one unknown
    size per output (TensorFlow's SplitV shape function knows none of a non-constant), the
    count from the tensor's static length, else `num`. None where it holds no traced one."""
    if isinstance(size_splits, TensorLike) and size_splits.shape.rank == 0:
        return None   # refused by _split_sizes, as TensorFlow refuses it
    traced = _traced_dims(size_splits, "size_splits", ("int8", "int32", "int64"))
    if traced is None:
        return None
    if traced[0] is None and num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {size_splits!s}")
    count = len(traced[0]) if traced[0] is not None else int(num)
    return (None,) * count, traced[1]


def _split_sizes(num_or_size_splits: Any) -> list:
    """The sizes argument of split as a list of ints, refused as TF refuses it."""
    if isinstance(num_or_size_splits, TensorLike) and num_or_size_splits.shape.rank == 0:
        raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits!s}")
    sizes = static_value(num_or_size_splits, "SplitV: size_splits", np.asarray)
    if sizes.ndim != 1:
        raise InvalidArgumentError(f"size of the split_tensor must be 1-D and have the same "
                                   f"elements as outputs got {sizes.ndim} -D and {sizes.size} "
                                   f"elements [Op:SplitV]")
    return [int(d) for d in sizes]


# -- tile / broadcast_to -------------------------------------------------------------------------

def _tile_vjp(g: Tensor, ans: Tensor, x: Tensor, *given: Tensor, multiples: tuple) -> Any:
    # View the gradient as [m0, d0, m1, d1, ...] and sum over the repeat axes.
    shape = x._value.shape
    interleaved = tuple(v for pair in zip(multiples, shape) for v in pair)
    if given or None in shape:   # the multiples and x's dims as the graph runs
        counts = cast(given[0], _dtypes.int32) if given else \
            wrap(np.array(multiples, np.int32))
        interleaved = reshape(stack([counts, _shape_of(x) if None in shape else
                                     wrap(np.array(shape, np.int32))], axis=1), [-1])
    from tapeflow.ops.reduce_ops import reduce_sum  # reduce_ops builds on this module
    gx = reduce_sum(reshape(g, interleaved), axis=tuple(builtins.range(0, 2 * len(shape), 2)))
    return (gx, None) if given else gx


def _tile_rule(x: ShapedArray, *given: ShapedArray, multiples: Optional[tuple]) -> ShapedArray:
    """x's dims times `multiples` (a traced one may hold None, or be None: length unknown)."""
    if multiples is None:
        multiples = (None,) * len(x.shape) if x.shape is not None else None
    if multiples is None:
        return ShapedArray(None, x.dtype)
    shape = (None,) * len(multiples) if x.shape is None else x.shape
    if len(shape) != len(multiples):
        raise _shape_error("Tile", f"Shape must be rank {len(shape)} but is rank "
                                   f"{len(multiples)}", x.shape, (len(multiples),))
    return ShapedArray(tuple(_product((d, m)) for d, m in zip(shape, multiples)), x.dtype)


def _tile_kernel(x: np.ndarray, *given: np.ndarray, multiples: Optional[tuple]) -> np.ndarray:
    """`x` tiled; by `given[0]`, the multiples read as the graph runs, where given."""
    if given:
        multiples = _checked_multiples(np.asarray(given[0]), x.ndim)
    return np.tile(x, multiples)


def _checked_multiples(multiples: np.ndarray, rank: int) -> tuple:
    """Tile's multiples as a tuple of ints, checked as TensorFlow's Tile kernel checks them."""
    if multiples.ndim > 1:
        raise InvalidArgumentError(f"Expected multiples to be 1-D, but got shape "
                                   f"{dims_text(multiples.shape)} [Op:Tile]")
    multiples = _shape_tuple(multiples)
    for i, m in enumerate(multiples):
        if m < 0:
            raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {m} [Op:Tile]")
    if len(multiples) != rank:
        raise InvalidArgumentError(f"Expected multiples argument to be a vector of length "
                                   f"{rank} but got length {len(multiples)} [Op:Tile]")
    return multiples


_tile = _linear_in_data(Primitive("Tile", _tile_kernel, linear=True,
                                  shape_rule=_tile_rule).defvjp(_tile_vjp))


@tf_export("tile")
@reads_static
def tile(input: Any, multiples: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Repeats the tensor `multiples[i]` times along axis i."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError) as exc:  # a RaggedTensor: its ragged version
        return ragged_fallback(exc, "tile", tile, input, multiples)
    if context.graph is not None:
        traced = _traced_dims(multiples, "multiples")
        if traced is not None:   # read (and checked) when the graph runs, as TF's input
            return bind(_tile, (x, traced[1]), {"multiples": traced[0]})
    multiples = static_value(multiples, "Tile: multiples", np.asarray)
    return bind(_tile, (x,), {"multiples": _checked_multiples(multiples, x._value.ndim)})


def _broadcast_to_rule(x: ShapedArray, *given: ShapedArray, shape: Optional[tuple],
                       unchecked: bool = False) -> ShapedArray:
    """`shape`; a traced one may hold unknown dims (None), which `x`'s dims > 1 then give, or
    be None (its length unknown)."""
    if x.shape is None or shape is None:
        return ShapedArray(shape, x.dtype)
    if len(x.shape) > len(shape):
        raise _shape_error("BroadcastTo", f"Shape must be at most rank {len(shape)} but is "
                                          f"rank {len(x.shape)}", x.shape)
    aligned = (None,) * (len(shape) - len(x.shape)) + x.shape
    for d, n in zip(aligned, shape):
        if n is not None and d not in (None, 1, n):
            raise _shape_error("BroadcastTo", f"Dimensions must be equal, but are {d} "
                                              f"and {n}", x.shape)
    return ShapedArray(tuple(d if n is None and d != 1 else n for d, n in zip(aligned, shape)),
                       x.dtype)


def _check_broadcast_to(in_shape: tuple, shape: tuple) -> None:
    try:
        if np.broadcast_shapes(in_shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise InvalidArgumentError(f"Unable to broadcast tensor of shape "
                                   f"{list(in_shape)} to tensor of shape {list(shape)} "
                                   f"[Op:BroadcastTo]") from None


def _broadcast_to_kernel(x: np.ndarray, *given: np.ndarray, shape: Optional[tuple],
                         unchecked: bool = False) -> np.ndarray:
    """`x` broadcast to `shape`, or to `given[0]`, the shape read as the graph runs."""
    if given:
        shape = tuple(int(d) for d in given[0])
        try:
            return np.broadcast_to(x, shape)
        except ValueError:   # TF's BroadcastTo kernel's text in a graph
            raise InvalidArgumentError(f"Incompatible shapes: {dims_text(x.shape)} vs. "
                                       f"{dims_text(shape)} [Op:BroadcastTo]") from None
    try:
        return np.broadcast_to(x, shape)
    except ValueError:   # a shape tracing did not know: TF's message
        _check_broadcast_to(x.shape, shape)
        raise


_broadcast_to = _linear_in_data(Primitive(
    "BroadcastTo", _broadcast_to_kernel, linear=True, batch_safe=True,
    shape_rule=_broadcast_to_rule).defvjp(
    # The tape sums the cotangent back to x's shape; a run-time shape gets none.
    lambda g, ans, x, *given, shape, unchecked=False: (g, None) if given else g))
# Inlined where the wrapper checked the shapes (`unchecked`: the kernel checks them).
_broadcast_to.lowering = lambda shape, unchecked=False: None if unchecked else \
    f"np.broadcast_to({{0}}, {shape!r})"


@tf_export("broadcast_to")
@reads_static
def broadcast_to(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """`input` broadcast to `shape` with NumPy's rules (to a DynamicRaggedShape: a
    RaggedTensor)."""
    if type(shape) is DynamicRaggedShape:
        return shape._broadcast(input)
    x = convert_to_tensor(input)
    if context.graph is not None:
        traced = _traced_dims(shape, "shape")
        if traced is not None:   # read (and checked) when the graph runs, as TF's input
            return bind(_broadcast_to, (x, traced[1]), {"shape": traced[0], "unchecked": True})
    shape = static_value(shape, "BroadcastTo: shape", _shape_tuple)
    if not has_static_shape(x._value):   # the rule checks the known dims, the kernel all
        return bind(_broadcast_to, (x,), {"shape": shape, "unchecked": True})
    _check_broadcast_to(x._value.shape, shape)
    return bind(_broadcast_to, (x,), {"shape": shape})


# Unchecked forms for derivative rules, whose shapes are right by construction: they skip
# the argument parsing and validation that user calls need (the backward pass is hot).

def reshape_to(x: Tensor, shape: tuple) -> Tensor:
    """`x` reshaped to `shape` (a tuple of ints with the same element count), unchecked."""
    return x if x._value.shape == shape else bind(_reshape, (x,), {"shape": shape})


def place_slice(value: Tensor, shape: tuple, key: tuple) -> Tensor:
    """Zeros of `shape` with `value` at the normalized index `key` (slicing's adjoint),
    unchecked."""
    return bind(_strided_slice_grad, (value,), {"shape": shape, "key": key})


def fill_shape(value: Tensor, shape: tuple) -> Tensor:
    """A `shape` tensor filled with the scalar tensor `value`, unchecked (its VJP sums)."""
    return bind(_fill, (value,), {"shape": shape})


def broadcast_to_shape(x: Tensor, shape: tuple) -> Tensor:
    """`x` broadcast to `shape` (known to be compatible), unchecked."""
    return x if x._value.shape == shape else bind(_broadcast_to, (x,), {"shape": shape})


# -- slicing -------------------------------------------------------------------------------------

_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
# The dtypes TensorFlow's StridedSlice takes for its begin/end/strides.
_INDEX_DTYPES = ("int16", "int32", "int64")
# TensorFlow's message when every index is a Python bool (they pack into a bool tensor).
_BOOL_INDEX_ERROR = (
    "Value for attr 'Index' of bool is not in the list of allowed values: int16, int32, int64"
    "\n\t; NodeDef: {{node StridedSlice}}; Op<name=StridedSlice; signature=input:T, "
    "begin:Index, end:Index, strides:Index -> output:T; attr=T:type; "
    "attr=Index:type,allowed=[DT_INT16, DT_INT32, DT_INT64]; attr=begin_mask:int,default=0; "
    "attr=end_mask:int,default=0; attr=ellipsis_mask:int,default=0; "
    "attr=new_axis_mask:int,default=0; attr=shrink_axis_mask:int,default=0> [Op:StridedSlice]")


def _index_int(value: Any, tensors: Optional[list] = None, position: int = 0) -> int:
    """One index (or slice bound) as an int, accepted as TensorFlow's `_check_index` accepts
    it: Python/NumPy integers (bools included, as in TF) and scalar int16/32/64 tensors (noted
    with their key position in `tensors`, when given)."""
    if type(value) is int or isinstance(value, numbers.Integral):
        return int(value)
    dtype = getattr(value, "dtype", None)
    if tensors is not None and isinstance(value, TensorLike):
        tensors.append((position, value.dtype))
    try:
        name = None if dtype is None else _dtypes.as_dtype(dtype).name
    except TypeError:
        name = None
    array = getattr(value, "_value", value)
    if name in _INDEX_DTYPES and len(np.shape(array)) == 0:
        # A traced scalar whose value the trace does not know is read as the graph runs.
        return _RUN_TIME if isinstance(array, AbstractArray) else int(array)
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {value!r}")


def _is_bool_mask(key: Any) -> bool:
    """Whether `tensor[key]` is a boolean mask (TensorFlow then calls tf.boolean_mask)."""
    if isinstance(key, bool):
        return True
    if isinstance(key, TensorLike):
        return key.dtype.is_bool
    return isinstance(key, np.ndarray) and key.dtype == np.bool_


def _normalize_index(key: Any, shape: tuple) -> tuple:
    """A `__getitem__` key as a hashable tuple of ints, slices, None and Ellipsis, checked
    against `shape` the way TensorFlow's StridedSlice checks it. A list is read as a tuple
    (`x[[0, 1]]` is `x[0, 1]`), as in TensorFlow."""
    if not isinstance(key, (list, tuple)):
        key = (key,)
    items, begins, tensors = [], [], []
    for position, item in enumerate(key):
        if isinstance(item, builtins.slice):
            begins.append(item.start)
            item = builtins.slice(*(None if v is None else _index_int(v, tensors, position)
                                    for v in (item.start, item.stop, item.step)))
            if item.step == 0:
                raise InvalidArgumentError("slice step cannot be zero [Op:StridedSlice]")
        elif item is None or item is Ellipsis:
            begins.append(0)
        else:
            begins.append(item)
            item = _index_int(item, tensors, position)
        items.append(item)
    if tensors:
        _check_packable(tensors)
    if begins and all(isinstance(b, bool) for b in begins):
        raise InvalidArgumentError(_BOOL_INDEX_ERROR)
    if items.count(Ellipsis) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    if not shape and any(i is not None and i is not Ellipsis for i in items):
        raise InvalidArgumentError("Attempting to slice scalar input. [Op:StridedSlice]")
    _check_bounds(items, shape)
    return tuple(items)


def _check_packable(tensors: list) -> None:
    """TF packs a key's begin (end, strides) entries into one tensor: tensor entries of two
    integer dtypes fail that Pack (Python ints take the tensors' dtype)."""
    first = tensors[0][1]
    for position, dtype in tensors[1:]:
        if dtype != first:
            raise InvalidArgumentError(
                f"cannot compute Pack as input #{position}(zero-based) was expected to be a "
                f"{first.name} tensor but is a {dtype.name} tensor [Op:Pack]")


def _check_bounds(items: list, shape: tuple) -> None:
    """Integer indices must lie inside their dimension; `None` consumes no dimension."""
    real = [i for i in items if i is not None]
    if len([i for i in real if i is not Ellipsis]) > len(shape):
        raise InvalidArgumentError(f"Index out of range using input dim {len(shape)}; input "
                                   f"has only {len(shape)} dims [Op:StridedSlice]")
    if Ellipsis in real:
        at = real.index(Ellipsis)
        skipped = len(shape) - (len(real) - 1)
        dims = list(builtins.range(at)) + [None] + list(builtins.range(at + skipped, len(shape)))
    else:
        dims = list(builtins.range(len(real)))
    for dim, item in zip(dims, real):
        if isinstance(item, int) and shape[dim] is not None and \
                not -shape[dim] <= item < shape[dim]:
            # TensorFlow reports a negative index after adding the dimension's size.
            shown = item + shape[dim] if item < 0 else item
            raise InvalidArgumentError(f"slice index {shown} of dimension {dim} out of bounds. "
                                       f"[Op:StridedSlice]")


def _slice_grad_kernel(g: np.ndarray, *dims: np.ndarray, shape: tuple,
                       key: tuple) -> np.ndarray:
    # `dims`: the sliced tensor's shape as the graph runs, where tracing did not know it.
    out = np.zeros(tuple(dims[0]) if dims else shape, g.dtype)
    out[key] = g
    return out


def _strided_slice_kernel(x: np.ndarray, key: tuple) -> np.ndarray:
    try:
        out = x[key]
    except IndexError:   # an int index into a dim tracing did not know: TF's message
        _check_bounds(list(key), x.shape)
        raise
    # An element of a string tensor comes out as bare bytes: a 0-d array of it, as numbers.
    return np.array(out, dtype=object) if type(out) is bytes else out


def _placed(g: Tensor, x: Tensor, prim: Primitive, inputs: tuple, attrs: dict) -> Tensor:
    """`prim` (an adjoint that places `g` in zeros of `x`'s shape) bound with x's static
    shape, or where unknown with its run-time shape as the last input."""
    if has_static_shape(x._value):
        return bind(prim, (g,) + inputs, {"shape": x._value.shape, **attrs})
    return bind(prim, (g,) + inputs + (_shape_of(x),), {"shape": x._value.shape, **attrs})


# -- the shape of x[key] ---------------------------------------------------------------------------

# A key entry read only at run time (an int, or a slice bound, of DynamicStridedSlice).
_RUN_TIME = object()


def _is_index_array(item: Any) -> bool:
    return isinstance(item, (list, np.ndarray))


def _is_mask(item: Any) -> bool:
    return _is_index_array(item) and np.asarray(item).dtype == np.bool_


def _expand_key(key: tuple, shape: tuple) -> list:
    """`key` as (slot, entry) pairs, slot being the entry's position in `key`: its Ellipsis
    (or the trailing dims it leaves out) as full slices, and each boolean mask as the int
    arrays of its nonzero() (NumPy's equivalence), checked against the known dims it covers."""
    rank = len(shape)
    if sum(1 for i in key if i is Ellipsis) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    consumed = sum(np.ndim(i) if _is_mask(i) else 1 for i in key
                   if i is not None and i is not Ellipsis)
    if consumed > rank:
        raise _shape_error("StridedSlice", f"Index out of range using input dim {rank}; input "
                                           f"has only {rank} dims", shape)
    at = next((n for n, i in enumerate(key) if i is Ellipsis), len(key))
    fill = [(at, builtins.slice(None))] * (rank - consumed)
    items, dim = [], 0
    for slot, item in list(enumerate(key[:at])) + fill + [
            (n, i) for n, i in enumerate(key) if n > at]:
        if not _is_mask(item):
            items.append((slot, item))
            dim += item is not None
            continue
        mask = np.asarray(item)
        covered = shape[dim:dim + mask.ndim]
        if any(d is not None and d != n for d, n in zip(covered, mask.shape)):
            raise _shape_error("StridedSlice", f"boolean index of shape {dims_text(mask.shape)} "
                                               f"does not match dims {dims_text(covered)}",
                               shape)
        items.extend((slot, i) for i in np.nonzero(mask))
        dim += mask.ndim
    return items


def _sliced_dims(shape: Dims, key: tuple) -> Dims:
    """The dims of `x[key]`, x of `shape`, for NumPy keys of ints, slices, None, Ellipsis and
    index arrays (entries `_RUN_TIME`: ints or slice bounds known only at run time)."""
    if shape is None:
        return None
    items = _expand_key(key, shape)
    fancy = any(_is_index_array(i) for _, i in items)
    out, dim, indexed, at = [], 0, [], None
    for slot, item in items:
        if item is None:
            out.append(1)
            continue
        size = shape[dim]
        dim += 1
        if isinstance(item, builtins.slice):
            bounds = (item.start, item.stop, item.step)
            out.append(None if size is None or _RUN_TIME in bounds else
                       len(builtins.range(*item.indices(size))))
        elif fancy:   # ints index as 0-d arrays among index arrays
            indexed.append((slot, item, dim - 1))
            at = len(out) if at is None else at
        else:
            _check_index(item, shape, dim - 1)
    if indexed:
        index_dims = np.broadcast_shapes(*(np.shape(i) for _, i, _ in indexed))
        for _, item, d in indexed:   # NumPy checks no array when nothing is indexed
            if 0 not in index_dims or not _is_index_array(item):
                _check_index(item, shape, d)
        # NumPy: the indexed dims replace adjacent index entries in place, else lead.
        slots = sorted({slot for slot, _, _ in indexed})
        at = at if slots == list(builtins.range(slots[0], slots[-1] + 1)) else 0
        out[at:at] = index_dims
    return tuple(out)


def _check_index(item: Any, shape: tuple, dim: int) -> None:
    """An int (or index array) must lie in [-size, size) where dim `dim`'s size is known."""
    size = shape[dim]
    if size is None or item is _RUN_TIME:
        return
    values = np.asarray(item)
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        shown = int(bad.flat[0]) + size if bad.flat[0] < 0 else int(bad.flat[0])
        raise _shape_error("StridedSlice", f"slice index {shown} of dimension {dim} out of "
                                           f"bounds.", shape)


def _strided_slice_rule(x: ShapedArray, key: tuple) -> ShapedArray:
    return ShapedArray(_sliced_dims(x.shape, key), x.dtype)


def _placed_rule(g: ShapedArray, *values: ShapedArray, shape: tuple,
                 **attrs: Any) -> ShapedArray:
    """The rule of slicing's adjoints: zeros of `shape` with `g` placed in them."""
    return ShapedArray(shape, g.dtype)


_strided_slice = Primitive("StridedSlice", _strided_slice_kernel, linear=True,
                           shape_rule=_strided_slice_rule).defvjp(
    lambda g, ans, x, key: _placed(g, x, _strided_slice_grad, (), {"key": key}))


def _strided_slice_grad_vjp(g: Tensor, ans: Tensor, dy: Tensor, *dims: Tensor, shape: tuple,
                            key: tuple) -> Any:
    gy = bind(_strided_slice, (g,), {"key": key})
    return (gy, None) if dims else gy


_strided_slice_grad = Primitive("StridedSliceGrad", _slice_grad_kernel, linear=True,
                                shape_rule=_placed_rule).defvjp(_strided_slice_grad_vjp)


# -- indices given as tensors under tf.function ----------------------------------------------------
#
# Traced, `x[i]` with a tensor `i` (a while_loop counter) must read `i` at run time: the
# tensors of the key become INPUTS of DynamicStridedSlice, and its `template` attribute holds
# the key with `("input", k)` where the k-th of them goes. Eagerly the key is just read.

def _fill_key(template: tuple, values: tuple) -> tuple:
    def value(v: Any) -> Any:
        return int(values[v[1]]) if isinstance(v, tuple) else v
    return tuple(builtins.slice(value(i.start), value(i.stop), value(i.step))
                 if isinstance(i, builtins.slice) else value(i) for i in template)


def _dynamic_key(template: tuple, values: tuple, shape: tuple) -> tuple:
    # The bounds are checked when the graph runs (tracing checked only the example's).
    key = _fill_key(template, values)
    if any(isinstance(i, builtins.slice) and i.step == 0 for i in key):
        raise InvalidArgumentError("slice step cannot be zero [Op:StridedSlice]")
    _check_bounds(list(key), shape)
    return key


def _dynamic_slice_grad_kernel(g: np.ndarray, *values: np.ndarray, shape: Dims,
                               template: tuple) -> np.ndarray:
    if shape is None or None in shape:   # the last input: the shape as the graph runs
        shape, values = tuple(values[-1]), values[:-1]
    return _slice_grad_kernel(g, shape=shape, key=_dynamic_key(template, values, shape))


def _dynamic_slice_rule(x: ShapedArray, *values: ShapedArray, template: tuple) -> ShapedArray:
    def entry(v: Any) -> Any:
        return _RUN_TIME if isinstance(v, tuple) else v
    key = tuple(builtins.slice(entry(i.start), entry(i.stop), entry(i.step))
                if isinstance(i, builtins.slice) else entry(i) for i in template)
    return ShapedArray(_sliced_dims(x.shape, key), x.dtype)


_dynamic_slice = Primitive(
    "DynamicStridedSlice",
    lambda x, *values, template: x[_dynamic_key(template, values, x.shape)],
    shape_rule=_dynamic_slice_rule).defvjp(
    lambda g, ans, x, *values, template: (
        _placed(g, x, _dynamic_slice_grad, values, {"template": template}),
        *(None for _ in values)))


def _dynamic_slice_grad_vjp(g: Tensor, ans: Tensor, dy: Tensor, *values: Tensor, shape: Dims,
                            template: tuple) -> tuple:
    indices = values if shape is not None and None not in shape else values[:-1]
    return (bind(_dynamic_slice, (g,) + indices, {"template": template}),
            *(None for _ in values))


_dynamic_slice_grad = Primitive("DynamicStridedSliceGrad", _dynamic_slice_grad_kernel,
                                shape_rule=_placed_rule).defvjp(_dynamic_slice_grad_vjp)


def _traced_key(key: Any) -> Optional[tuple]:
    """Under a trace, `key` as (template, index tensors) when some index or slice bound is a
    tensor (see DynamicStridedSlice); None when the key holds no tensor."""
    items = key if isinstance(key, (list, tuple)) else (key,)
    tensors: list = []

    def place(v: Any) -> Any:
        if not isinstance(v, Tensor):
            return v
        tensors.append(v)
        return ("input", len(tensors) - 1)
    template = tuple(builtins.slice(place(i.start), place(i.stop), place(i.step))
                     if isinstance(i, builtins.slice) else place(i) for i in items)
    return (template, tensors) if tensors else None


@tf_export("strided_slice")
def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None, name: Optional[str] = None
                  ) -> Tensor:
    """`tf.strided_slice`: the slice `input_[key]` whose key the bit masks describe, one
    entry per element of `begin` (bit i of a mask speaks of entry i), as TF's `__getitem__`
    builds them."""
    if read_at_run_time([begin, end, strides]):   # as TF's begin, end and strides inputs
        return _strided_slice_at_run_time(input_, begin, end, strides, begin_mask, end_mask,
                                          ellipsis_mask, new_axis_mask, shrink_axis_mask)
    begin, end = (np.asarray(static_value(v, "StridedSlice")) for v in (begin, end))
    strides = np.ones_like(begin) if strides is None else \
        np.asarray(static_value(strides, "StridedSlice"))
    if not (begin.ndim == end.ndim == strides.ndim == 1 and
            begin.shape == end.shape == strides.shape):
        raise InvalidArgumentError(
            f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{dims_text(begin.shape)}, {dims_text(end.shape)}, and "
            f"{dims_text(strides.shape)} instead. [Op:StridedSlice]")
    masks = {"begin_mask": int(begin_mask), "end_mask": int(end_mask),
             "ellipsis_mask": int(ellipsis_mask), "new_axis_mask": int(new_axis_mask),
             "shrink_axis_mask": int(shrink_axis_mask)}
    return slice_tensor(input_, _masked_key(begin.tolist(), end.tolist(), strides.tolist(),
                                            **masks))


def _masked_key(begin: list, end: list, strides: list, begin_mask: int, end_mask: int,
                ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int) -> tuple:
    """The `__getitem__` key that StridedSlice's vectors (Python ints) and bit masks describe
    (bit i of a mask speaks of entry i), with TF's kernel errors."""
    if bin(ellipsis_mask).count("1") > 1:
        raise InvalidArgumentError("Multiple ellipses in slice spec not allowed "
                                   "[Op:StridedSlice]")
    key: list = []
    for i, (b, e, step) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)    # the stride of an ellipsis or a new axis is not read
        elif step == 0:
            raise InvalidArgumentError(f"strides[{i}] must be non-zero [Op:StridedSlice]")
        elif shrink_axis_mask & bit:
            if step < 0:   # TF refuses only a negative stride on a shrunk axis
                raise InvalidArgumentError("only stride 1 allowed on non-range indexing. "
                                           "[Op:StridedSlice]")
            key.append(int(b))
        else:
            key.append(builtins.slice(None if begin_mask & bit else int(b),
                                      None if end_mask & bit else int(e), int(step)))
    return tuple(key)


# -- strided_slice with begin, end or strides read when the graph runs -----------------------------
#
# Each element of a run-time vector becomes an input of DynamicStridedSlice (the masks stay
# attributes and shape the key while tracing); StridedSliceStrides checks the run-time strides
# first, as TF's kernel does.

def _check_strides_kernel(x: np.ndarray, strides: np.ndarray, shrink_axis_mask: int,
                          unread_mask: int) -> np.ndarray:
    for i, step in enumerate(np.reshape(strides, -1).tolist()):
        if unread_mask & (1 << i):   # an ellipsis or a new axis: its stride is not read
            continue
        if step == 0:
            raise InvalidArgumentError(f"strides[{i}] must be non-zero [Op:StridedSlice]")
        if shrink_axis_mask & (1 << i) and step < 0:
            raise InvalidArgumentError("only stride 1 allowed on non-range indexing. "
                                       "[Op:StridedSlice]")
    return x


# `x` passed through once the strides pass TF's checks (no TF op has this name: TF's
# StridedSlice kernel makes them itself).
_check_strides = Primitive(
    "StridedSliceStrides", _check_strides_kernel, register=False,
    shape_rule=lambda x, strides, **attrs: ShapedArray(x.shape, x.dtype)).defvjp(
    lambda g, ans, x, strides, **attrs: (g, None))
_check_strides.defjvp(lambda tangents, ans, x, strides, **attrs: tangents[0])


def _slice_spec_vector(arg: Any, name: str) -> Tensor:
    """A begin/end/strides argument as an integer tensor (TF's allowed dtypes checked)."""
    t = convert_to_tensor(arg, dtype_hint=_dtypes.int32)
    if t.dtype.name not in ("int16", "int32", "int64"):
        raise TypeError(f"Value passed to parameter '{name}' has DataType {t.dtype.name} not "
                        f"in list of allowed values: int16, int32, int64")
    if t._value.shape is not None and len(t._value.shape) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(t._value.shape)} for "
                         f"'{{{{node StridedSlice}}}} = StridedSlice'")
    return t


def _length(t: Tensor) -> Optional[int]:
    shape = t._value.shape
    return None if shape is None else shape[0]


def _slice_spec_elements(arg: Any, name: str) -> Any:
    """A begin/end/strides argument as a list of its elements: Python ints, or scalar
    tensors where it is a traced vector of known length (read as the graph runs)."""
    if not read_at_run_time(arg):
        return np.asarray(static_value(arg, "StridedSlice")).tolist()
    t = _slice_spec_vector(arg, name)
    return [t[i] for i in builtins.range(t._value.shape[0])]


# StridedSlice whose begin, end and strides vectors have lengths known only when the graph
# runs (TF then knows no rank for the result): the whole key is made as the graph runs.

def _vector_key(x_shape: tuple, begin: np.ndarray, end: np.ndarray, strides: tuple,
                masks: dict) -> tuple:
    # `strides`: empty where the call gave none (all 1).
    strides = strides[0] if strides else np.ones_like(begin)
    if not begin.shape == end.shape == strides.shape:
        raise InvalidArgumentError(
            f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{dims_text(begin.shape)}, {dims_text(end.shape)}, and "
            f"{dims_text(strides.shape)} instead. [Op:StridedSlice]")
    key = _masked_key(begin.tolist(), end.tolist(), strides.tolist(), **masks)
    return _normalize_index(key, x_shape)


def _vector_slice_kernel(x: np.ndarray, begin: np.ndarray, end: np.ndarray,
                         *strides: np.ndarray, **masks: int) -> np.ndarray:
    return _strided_slice_kernel(x, _vector_key(x.shape, begin, end, strides, masks))


def _vector_slice_grad_kernel(g: np.ndarray, shape: np.ndarray, begin: np.ndarray,
                              end: np.ndarray, *strides: np.ndarray, **masks: int
                              ) -> np.ndarray:
    shape = tuple(int(d) for d in shape)
    return _slice_grad_kernel(g, shape=shape,
                              key=_vector_key(shape, begin, end, strides, masks))


_vector_slice = Primitive(
    "StridedSliceOfVectors", _vector_slice_kernel, register=False,
    shape_rule=lambda x, *vectors, **masks: ShapedArray(None, x.dtype)).defvjp(
    lambda g, ans, x, *vectors, **masks: (
        bind(_vector_slice_grad, (g, _shape_of(x), *vectors), masks), *(None for _ in vectors)))

_vector_slice_grad = Primitive(
    "StridedSliceOfVectorsGrad", _vector_slice_grad_kernel, register=False,
    shape_rule=lambda g, shape, *vectors, **masks: ShapedArray(None, g.dtype)).defvjp(
    lambda gg, ans, g, shape, *vectors, **masks: (
        bind(_vector_slice, (gg, *vectors), masks), None, *(None for _ in vectors)))


def _strided_slice_at_run_time(x: Any, begin: Any, end: Any, strides: Any, begin_mask: int,
                               end_mask: int, ellipsis_mask: int, new_axis_mask: int,
                               shrink_axis_mask: int) -> Tensor:
    x = convert_to_tensor(x)
    masks = {"begin_mask": int(begin_mask), "end_mask": int(end_mask),
             "ellipsis_mask": int(ellipsis_mask), "new_axis_mask": int(new_axis_mask),
             "shrink_axis_mask": int(shrink_axis_mask)}
    vectors = [_slice_spec_vector(v, name) for v, name in
               ((begin, "begin"), (end, "end"), (strides, "strides")) if v is not None]
    if any(_length(v) is None for v in vectors):   # the key's length too is a run-time value
        return bind(_vector_slice, (x, *vectors), masks)
    begin, end = _slice_spec_elements(begin, "begin"), _slice_spec_elements(end, "end")
    steps = [1] * len(begin) if strides is None else _slice_spec_elements(strides, "strides")
    if not len(begin) == len(end) == len(steps):
        raise _shape_error("StridedSlice", f"Dimension 0 in both shapes must be equal, but are "
                                           f"{len(begin)} and {len(end)}", x._value.shape)
    if bin(int(ellipsis_mask)).count("1") > 1:
        raise InvalidArgumentError("Multiple ellipses in slice spec not allowed "
                                   "[Op:StridedSlice]")
    if read_at_run_time(strides):
        x = bind(_check_strides, (x, convert_to_tensor(strides)),
                 {"shrink_axis_mask": int(shrink_axis_mask),
                  "unread_mask": int(ellipsis_mask) | int(new_axis_mask)})
    key = []
    for i, (b, e, step) in enumerate(zip(begin, end, steps)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif isinstance(step, int) and step == 0:
            raise InvalidArgumentError(f"strides[{i}] must be non-zero [Op:StridedSlice]")
        elif shrink_axis_mask & bit:
            if isinstance(step, int) and step < 0:
                raise InvalidArgumentError("only stride 1 allowed on non-range indexing. "
                                           "[Op:StridedSlice]")
            key.append(b)
        else:
            key.append(builtins.slice(None if begin_mask & bit else b,
                                      None if end_mask & bit else e, step))
    return slice_tensor(x, tuple(key))


def slice_tensor(tensor: Any, key: Any) -> Tensor:
    """`tensor[key]` for ints, slices with steps, `...` and `tf.newaxis`; a boolean tensor
    or array key selects as `tf.boolean_mask`, as in TensorFlow. Under tf.function, integer
    tensors in the key are read when the graph runs."""
    x = convert_to_tensor(tensor)
    if _is_bool_mask(key):
        from tapeflow.ops.index_ops import boolean_mask  # index_ops builds on this module
        return boolean_mask(x, key)
    if x._value.shape is None and context.graph is not None:
        return _slice_unknown_rank(x, key)
    traced = _traced_key(key) if context.graph is not None else None
    key = _normalize_index(key, x._value.shape)   # checks types and the example's bounds
    if traced is None:
        return bind(_strided_slice, (x,), {"key": key})
    template, tensors = traced
    # A tensor slice bound makes its dim unknown (the rule's None): the graph holds for all.
    return bind(_dynamic_slice, (x,) + tuple(tensors), {"template": template})


def _slice_unknown_rank(x: Tensor, key: Any) -> Tensor:
    """`x[key]` for `x` of a rank tracing does not know: the key as StridedSlice's vectors
    and masks (as TF's `__getitem__` builds them), read as the graph runs."""
    items = key if isinstance(key, (list, tuple)) else (key,)
    begin, end, strides, masks = [], [], [], dict.fromkeys(
        ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for i, item in enumerate(items):
        bit = 1 << i
        if isinstance(item, builtins.slice):
            masks["begin_mask"] |= bit if item.start is None else 0
            masks["end_mask"] |= bit if item.stop is None else 0
            begin.append(0 if item.start is None else item.start)
            end.append(0 if item.stop is None else item.stop)
            strides.append(1 if item.step is None else item.step)
            continue
        if item is Ellipsis or item is None:
            masks["ellipsis_mask" if item is Ellipsis else "new_axis_mask"] |= bit
            begin.append(0)
            end.append(0)
        else:   # an index: a slice of one, shrunk away
            masks["shrink_axis_mask"] |= bit
            begin.append(item)
            end.append(item + 1)
        strides.append(1)
    vectors = [stack([convert_to_tensor(v, dtype_hint=_dtypes.int32) for v in vector])
               for vector in (begin, end, strides)]
    return bind(_vector_slice, (x, *vectors), masks)


@tf_export("slice")
@reads_static
def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """The block of `size` starting at `begin` (a size of -1 takes the rest)."""
    x = convert_to_tensor(input_)
    if context.graph is not None:
        traced = _traced_dims(begin, "begin"), _traced_dims(size, "size")
        if traced != (None, None) or not has_static_shape(x._value):
            return _run_time_slice(x, begin, size, *traced)   # checked as the graph runs
    begin = static_value(begin, "Slice: begin", _shape_tuple)
    size = static_value(size, "Slice: size", _shape_tuple)
    _check_slice(x._value.shape, begin, size)
    key = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return slice_tensor(x, key)


def _check_slice(shape: tuple, begin: tuple, size: tuple) -> None:
    """TensorFlow's Slice checks: no negative begin, no block past the end (size -1 is the
    rest of the dimension)."""
    if len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(f"Expected begin and size arguments to be 1-D tensors of "
                                   f"size {len(shape)}, but got shapes [{len(begin)}] and "
                                   f"[{len(size)}] instead. [Op:Slice]")
    for i, (d, b, s) in enumerate(zip(shape, begin, size)):
        if not 0 <= b <= d:
            raise InvalidArgumentError(f"Expected begin[{i}] in [0, {d}], but got {b} "
                                       f"[Op:Slice]")
        if s != -1 and not 0 <= s <= d - b:
            raise InvalidArgumentError(f"Expected size[{i}] in [0, {d - b}], but got {s} "
                                       f"[Op:Slice]")


# -- tf.slice with a begin or size known only when the graph runs ---------------------------------

def _slice_kernel(x: np.ndarray, begin: np.ndarray, size: np.ndarray, begin_dims: Dims,
                  size_dims: Dims) -> np.ndarray:
    """The block of `x` at `begin` of `size`, read (and checked) as the graph runs."""
    begin, size = _shape_tuple(begin), _shape_tuple(size)
    _check_slice(x.shape, begin, size)
    return x[tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]


def _slice_rule(x: ShapedArray, begin: ShapedArray, size: ShapedArray, begin_dims: Dims,
                size_dims: Dims) -> ShapedArray:
    """TensorFlow's Slice shape function: the known sizes; a -1 is the rest of its dim only
    where the whole size is known while tracing (and that dim's begin)."""
    if None not in (begin_dims, size_dims) and len(begin_dims) != len(size_dims):
        nb, ns = len(begin_dims), len(size_dims)
        raise _shape_error("Slice", f"Dimension 0 in both shapes must be equal, but are {nb} "
                                    f"and {ns}. Shapes are [{nb}] and [{ns}].",
                           x.shape, (nb,), (ns,))
    known = size_dims if size_dims is not None else begin_dims
    if known is None:
        return ShapedArray(x.shape, x.dtype)
    if x.shape is not None and len(x.shape) != len(known):
        raise _shape_error("Slice", f"Shape must be rank {len(known)} but is rank "
                                    f"{len(x.shape)}", x.shape, (len(known),), (len(known),))
    if size_dims is None:
        return ShapedArray((None,) * len(known), x.dtype)
    for s in size_dims:
        if s is not None and s < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {s}")
    dims = x.shape if x.shape is not None else (None,) * len(size_dims)
    begins = begin_dims if begin_dims is not None else (None,) * len(dims)
    exact = None not in size_dims
    shapes = x.shape, (len(known),), (len(known),)
    return ShapedArray(tuple(s if s is None or s >= 0 else _rest(d, b, shapes) if exact else None
                             for d, b, s in zip(dims, begins, size_dims)), x.dtype)


def _rest(dim: Optional[int], begin: Optional[int], shapes: tuple) -> Optional[int]:
    """The size of a slice of `dim` from `begin` to its end, None where either is unknown
    (`shapes`: Slice's input shapes, for TF's error)."""
    if None in (dim, begin):
        return None
    if begin > dim:
        raise _shape_error("Slice", f"Negative dimension size caused by subtracting {begin} "
                                    f"from {dim}", *shapes)
    return dim - begin


def _slice_vjp(g: Tensor, ans: Tensor, x: Tensor, begin: Tensor, size: Tensor,
               begin_dims: Dims, size_dims: Dims) -> tuple:
    static = x._value.shape
    dims = () if has_static_shape(x._value) else (_shape_of(x),)
    return bind(_slice_grad, (g, begin) + dims, {"shape": static}), None, None


def _slice_adjoint_kernel(g: np.ndarray, begin: np.ndarray, *dims: np.ndarray,
                          shape: Dims) -> np.ndarray:
    """Zeros of `shape` (or of `dims[0]`, x's shape as the graph runs) with `g` at `begin`."""
    if dims:
        shape = _shape_tuple(dims[0])
    out = np.zeros(shape, g.dtype)
    out[tuple(builtins.slice(b, b + n) for b, n in zip(_shape_tuple(begin), g.shape))] = g
    return out


_slice = _linear_in_data(Primitive("Slice", _slice_kernel, linear=True,
                                   shape_rule=_slice_rule).defvjp(_slice_vjp))
# Slice's adjoint, whose own adjoint slices again at the same run-time begin.
_slice_grad = _linear_in_data(Primitive(
    "SliceGrad", _slice_adjoint_kernel, linear=True,
    shape_rule=lambda g, begin, *dims, shape: ShapedArray(shape, g.dtype)).defvjp(
    lambda gg, ans, g, begin, *dims, shape: (slice(gg, begin, _shape_of(g)), None,
                                             *(None for _ in dims))))


def _run_time_slice(x: Tensor, begin: Any, size: Any, traced_begin: Optional[tuple],
                    traced_size: Optional[tuple]) -> Tensor:
    """tf.slice under a trace where `begin` or `size` holds a traced tensor (or `x`'s shape is
    not static): both become inputs of Slice, read and checked when the graph runs, as
    TensorFlow's."""
    dtype = (traced_begin or traced_size or (None, wrap(np.int32(0))))[1].dtype
    if traced_begin and traced_size and traced_begin[1].dtype != traced_size[1].dtype:
        raise TypeError(f"Input 'size' of 'Slice' Op has type {traced_size[1].dtype.name} "
                        f"that does not match type {dtype.name} of argument 'begin'.")

    def as_input(arg: Any, traced: Optional[tuple], note: str) -> tuple:
        if traced is not None:
            return traced
        dims = static_value(arg, note, _shape_tuple)
        return dims, convert_to_tensor(np.array(dims, dtype.as_numpy_dtype).reshape(-1))
    begin_dims, begin_t = as_input(begin, traced_begin, "Slice: begin")
    size_dims, size_t = as_input(size, traced_size, "Slice: size")
    return bind(_slice, (x, begin_t, size_t), {"begin_dims": begin_dims, "size_dims": size_dims})


# -- shape queries -------------------------------------------------------------------------------

# Where the trace knows the shape, these queries are constants (as TF folds them); where it
# does not, they are ops that read it as the graph runs.
_shape = Primitive(
    "Shape", lambda x, dtype: np.array(x.shape, dtype), differentiable=False,
    shape_rule=lambda x, dtype: ShapedArray((None if x.shape is None else len(x.shape),),
                                            dtype))
_size = Primitive("Size", lambda x, dtype: np.array(x.size, dtype), differentiable=False,
                  shape_rule=lambda x, dtype: ShapedArray((), dtype))
_rank = Primitive("Rank", lambda x: np.array(x.ndim, np.int32), differentiable=False,
                  shape_rule=lambda x: ShapedArray((), np.int32))


@tf_export("shape")
def shape(input: Any, out_type: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The shape as a 1-D integer tensor; of a RaggedTensor, a DynamicRaggedShape."""
    try:
        x = convert_to_tensor(input)
    except ValueError:
        if is_ragged(input):
            return DynamicRaggedShape.from_tensor(input, dtype=out_type)
        if isinstance(input, SparseTensor):   # its dense shape, as TensorFlow
            return cast(input.dense_shape, out_type)
        raise
    dtype = _dtypes.as_dtype(out_type)._np
    if not has_static_shape(x._value):
        return bind(_shape, (x,), {"dtype": dtype})
    return wrap(np.array(x._value.shape, dtype=dtype))


@tf_export("size")
def size(input: Any, out_type: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The number of elements (of a SparseTensor: of its dense shape), as a scalar integer
    tensor."""
    try:
        x = convert_to_tensor(input)
    except ValueError:
        if isinstance(input, SparseTensor):
            from tapeflow.ops import reduce_ops  # here: reduce_ops imports this module
            return cast(reduce_ops.reduce_prod(input.dense_shape), out_type)
        raise
    dtype = _dtypes.as_dtype(out_type)._np
    if not has_static_shape(x._value):
        return bind(_size, (x,), {"dtype": dtype})
    return wrap(np.array(x._value.size, dtype=dtype))


@tf_export("rank")
def rank(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The number of dimensions (of a SparseTensor: of its dense shape), as a scalar int32
    tensor."""
    try:
        x = convert_to_tensor(input)
    except ValueError:
        if isinstance(input, SparseTensor):
            return size(input.dense_shape)
        raise
    if x._value.shape is None:
        return bind(_rank, (x,))
    return wrap(np.array(x._value.ndim, dtype=np.int32))


# -- creation ------------------------------------------------------------------------------------

@tf_export("constant")
def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A tensor holding `value` (broadcast to `shape` when given). Inside tf.function,
    `value` may not be a tensor of the function (TypeError, as in TensorFlow)."""
    reject_traced(value)
    if isinstance(value, TensorLike):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype != _dtypes.as_dtype(dtype):
            t = cast(t, dtype)
        result = wrap(t._value)
    else:
        result = constant_value(value, dtype=dtype)
    if shape is not None:
        if is_traced(shape) or isinstance(shape, (list, tuple)) and any(map(is_traced, shape)):
            # TF's shape attribute: any tensor of the graph is refused, as TF refuses it
            raise NotImplementedError(
                f"Cannot convert a symbolic tf.Tensor ({getattr(shape, 'name', 'shape')}) to a "
                "numpy array. This error may indicate that you're trying to pass a Tensor to a "
                "NumPy call, which is not supported.")
        shape = _shape_tuple(shape)
        if result._value.size == int(np.prod(shape)):
            return wrap(result._value.reshape(shape))
        if result._value.size != 1:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{value!r} (converted from {value!r}) has {result._value.size} "
                            f"elements, but got `shape` {shape} with {int(np.prod(shape))} "
                            f"elements).")
        return wrap(np.full(shape, result._value.reshape(())[()], result._value.dtype))
    return result


@tf_export("zeros")
@reads_static
def zeros(shape: Any, dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """A tensor of zeros (a RaggedTensor for a DynamicRaggedShape)."""
    if type(shape) is DynamicRaggedShape:
        return shape._add_row_partitions(zeros(shape._inner, dtype))
    if context.graph is not None and _traced_dims(shape, "dims") is not None:
        # a traced shape, read as it runs; the zero of any dtype, as np.zeros gives eagerly
        return fill(shape, wrap(zeros_of((), _dtypes.as_dtype(dtype)._np)))
    return wrap(zeros_of(_dims(static_value(shape, "Zeros: shape", _shape_tuple)),
                         _dtypes.as_dtype(dtype)._np))


def _dims(shape: tuple) -> tuple:
    """A shape for a new tensor, checked as TensorFlow's Fill checks it."""
    for d in shape:
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:Fill]")
    return shape


@tf_export("ones")
@reads_static
def ones(shape: Any, dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """A tensor of ones (a RaggedTensor for a DynamicRaggedShape)."""
    if type(shape) is DynamicRaggedShape:
        return shape._add_row_partitions(ones(shape._inner, dtype))
    if context.graph is not None and _traced_dims(shape, "dims") is not None:
        # a traced shape, read as it runs; the one of any dtype (True for bool), as eagerly
        return fill(shape, wrap(np.ones((), _dtypes.as_dtype(dtype)._np)))
    return wrap(np.ones(_dims(static_value(shape, "Ones: shape", _shape_tuple)),
                        _dtypes.as_dtype(dtype)._np))


def _fill_kernel(value: np.ndarray, *dims: np.ndarray, shape: Dims) -> np.ndarray:
    # `dims`: a traced dims argument, read (and checked) as the graph runs.
    if dims:
        shape = _dims(tuple(int(d) for d in dims[0]))
    return np.full(shape, value, value.dtype)


def _fill_vjp(g: Tensor, ans: Tensor, value: Tensor, *dims: Tensor, shape: Dims) -> Any:
    gv = bind(_sum_all, (g,))
    return (gv, None) if dims else gv


_fill = Primitive("Fill", _fill_kernel, shape_rule=lambda value, *dims, shape: ShapedArray(
    shape, value.dtype)).defvjp(_fill_vjp)
# The sum of every element, as Fill's adjoint (reduce_ops builds on this module). NumPy's
# sum widens small integers (int32 -> int64), so the dtype is the one np.add.reduce gives.
_sum_all = Primitive("FillGrad", lambda g: np.add.reduce(g, axis=None), shape_rule=lambda g:
                     ShapedArray((), np.add.reduce(np.zeros((0,), g.dtype)).dtype)).defvjp(
    lambda gg, ans, g: bind(_fill, (gg,), {"shape": g._value.shape}) if
    has_static_shape(g._value) else bind(_fill, (gg, _shape_of(g)), {"shape": g._value.shape}))
_fill.lowering = lambda shape: None if shape is None or None in shape else \
    f"np.full({shape!r}, {{0}})"


@tf_export("fill")
@reads_static
def fill(dims: Any, value: Any, name: Optional[str] = None) -> Tensor:
    """A tensor of shape `dims` filled with the scalar `value` (its dtype follows `value`);
    the gradient w.r.t. `value` is the sum of the incoming gradient. A DynamicRaggedShape
    `dims` gives a RaggedTensor."""
    if type(dims) is DynamicRaggedShape:
        return dims._add_row_partitions(fill(dims._inner, value))
    v = convert_to_tensor(value)
    if v._value.ndim != 0:
        raise InvalidArgumentError(f"value must be a scalar, got shape {list(v._value.shape)} "
                                   f"[Op:Fill]")
    if context.graph is not None:
        traced = _traced_dims(dims, "dims")
        if traced is not None:   # read when the graph runs, as TF's dims input
            return bind(_fill, (v, traced[1]), {"shape": traced[0]})
    return bind(_fill, (v,), {"shape": _dims(static_value(dims, "Fill: dims", _shape_tuple))})




# -- one_hot -------------------------------------------------------------------------------------

def _one_hot_kernel(indices: np.ndarray, on: np.ndarray, off: np.ndarray, *given: np.ndarray,
                    depth: Optional[int], axis: int) -> np.ndarray:
    # `given[0]`: a traced depth, read (and checked) as the graph runs.
    if given:
        if np.ndim(given[0]) != 0:
            raise InvalidArgumentError(f"depth must be a scalar, but got: "
                                       f"{dims_text(np.shape(given[0]))} [Op:OneHot]")
        depth = _checked_depth(int(given[0]))
    # Out-of-range and negative indices match no position: their rows are all `off`.
    hot = np.expand_dims(indices, -1) == np.arange(depth, dtype=indices.dtype)
    return np.moveaxis(np.where(hot, on, off), -1, axis)


def _checked_depth(depth: int) -> int:
    if depth < 0:
        raise InvalidArgumentError(f"depth must be non-negative, got: {depth} [Op:OneHot]")
    return depth


# TensorFlow registers OneHot as not differentiable.
def _one_hot_rule(indices: ShapedArray, on: ShapedArray, off: ShapedArray, *given: ShapedArray,
                  depth: Optional[int], axis: int) -> ShapedArray:
    shape = None if indices.shape is None else \
        indices.shape[:axis] + (depth,) + indices.shape[axis:]
    return ShapedArray(shape, np.result_type(on.dtype, off.dtype))


_one_hot = Primitive("OneHot", _one_hot_kernel, differentiable=False, shape_rule=_one_hot_rule)


def _hinted(value: Any, dtype: Any) -> Tensor:
    """`value` as a tensor, taking `dtype` as a hint only where TensorFlow would: a Python
    float never becomes an integer tensor (a NumPy float does)."""
    if type(value) is float and dtype is not None and not dtype.is_floating:
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype_hint=dtype)


@tf_export("one_hot")
@reads_static
def one_hot(indices: Any, depth: int, on_value: Any = None, off_value: Any = None,
            axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """A tensor with `on_value` at position `indices` of a new axis of size `depth` (the last
    by default, else `axis`) and `off_value` elsewhere. The dtype follows `dtype`, else
    `on_value`/`off_value`, else float32; indices outside [0, depth) give all `off_value`."""
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    on = None if on_value is None else _hinted(on_value, dtype)
    off = None if off_value is None else _hinted(off_value, dtype)
    for label, value in (("on_value", on), ("off_value", off)):
        if value is not None and dtype is not None and value.dtype != dtype:
            raise TypeError(f"dtype {value.dtype} of {label} does not match dtype "
                            f"parameter {dtype}")
    if dtype is None:
        dtype = on.dtype if on is not None else off.dtype if off is not None else \
            _dtypes.float32
    on = on if on is not None else convert_to_tensor(1, dtype=dtype)  # TypeError for bool
    off = off if off is not None else convert_to_tensor(0, dtype=dtype)
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} "
                        f"of off_value")
    x = convert_to_tensor(indices)
    if x._value.dtype.kind not in "iu":
        type_name = cpp_name(x.dtype)
        raise InvalidArgumentError(f"Value for attr 'TI' of {type_name} is not in the list "
                                   f"of allowed values: uint8, int8, int32, int64 [Op:OneHot]")
    traced_depth = None if context.graph is None else _traced_depth(depth)
    if traced_depth is None:
        depth = _checked_depth(static_value(depth, "OneHot: depth", int))
    rank = x._value.ndim
    axis = -1 if axis is None else static_value(axis, "OneHot: axis", int)
    if not -1 <= axis <= rank:
        raise InvalidArgumentError(f"Expected axis to be -1 or between [0, {rank + 1}).  But "
                                   f"received: {axis} [Op:OneHot]")
    if traced_depth is not None:   # read (and checked) when the graph runs, as TF's input
        return bind(_one_hot, (x, on, off, traced_depth), {"depth": None,
                                                            "axis": axis % (rank + 1)})
    return bind(_one_hot, (x, on, off), {"depth": depth, "axis": axis % (rank + 1)})


def _traced_depth(depth: Any) -> Optional[Tensor]:
    """Under a trace, a traced `depth` as the int32 tensor OneHot reads as it runs (None for a
    static one)."""
    if not is_traced(depth):
        return None
    if depth.dtype.name != "int32":
        raise TypeError(f"Input 'depth' of 'OneHot' Op has type {depth.dtype.name} that does "
                        f"not match expected type of int32.")
    return depth   # its rank is checked as it runs, as TensorFlow's kernel checks it


# -- range / linspace ------------------------------------------------------------------------------

def _range_kernel(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> np.ndarray:
    start, limit, delta = start[()], limit[()], delta[()]
    if delta == 0:
        raise InvalidArgumentError(f"Requires delta != 0: {delta} [Op:Range]")
    if delta > 0 and start > limit:
        raise InvalidArgumentError(f"Requires start <= limit when delta > 0: {start}/{limit} "
                                   f"[Op:Range]")
    if delta < 0 and start < limit:
        raise InvalidArgumentError(f"Requires start >= limit when delta < 0: {start}/{limit} "
                                   f"[Op:Range]")
    dtype = np.result_type(start)
    if dtype.kind in "iu":
        size = (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    else:
        size = int(np.ceil(np.abs((limit - start) / delta)))
    # start + i * delta in the output dtype, as TensorFlow's kernel.
    return start + np.arange(size, dtype=dtype) * delta


# TensorFlow registers Range as not differentiable.
# Its length depends on the bounds' values: unknown until run time.
_range = Primitive("Range", _range_kernel, differentiable=False,
                   shape_rule=lambda start, limit, delta: ShapedArray((None,), start.dtype))

# tf.range's dtype inference: the widest of its arguments' dtypes in this order.
_RANGE_HIERARCHY = ("int32", "int64", "float16", "float32", "float64")


@tf_export("range")
def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Tensor:
    """The numbers start, start + delta, ... up to (not including) `limit`, like
    Python's range; with one argument, 0 ... start - 1. The dtype is the widest of the
    arguments' (Python ints int32, floats float32) unless `dtype` is given."""
    if limit is None:
        start, limit = 0, start
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    args = [a if isinstance(a, TensorLike) else convert_to_tensor(a, dtype=dtype)
            for a in (start, limit, delta)]
    if dtype is None:
        for a in args:
            if a.dtype.name not in _RANGE_HIERARCHY:
                raise TypeError(f"Unsupported dtype for tf.range: {a.dtype.name}")
        dtype = max((a.dtype for a in args), key=lambda d: _RANGE_HIERARCHY.index(d.name))
    args = [cast(convert_to_tensor(a), dtype) for a in args]
    for a in args:
        if a._value.ndim != 0:
            raise InvalidArgumentError(f"start must be a scalar, not shape "
                                       f"{list(a._value.shape)} [Op:Range]")
    # The kernel reads the arguments when the graph runs (the rule's length is unknown).
    return bind(_range, tuple(args))


@tf_export("linspace")
@reads_static
def linspace(start: Any, stop: Any, num: Any, name: Optional[str] = None,
             axis: int = 0) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` inclusive, along `axis`
    (start and stop may be tensors, which broadcast). Integer inputs give float64.

    Composed of ops exactly as TensorFlow's linspace_nd, so it matches TensorFlow's numbers
    and is differentiable in `start` and `stop`."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, dtype=start.dtype)
    # A traced num is read as the graph runs: the counts below are then ops on it.
    num_int = num if is_traced(num) else static_value(num, "LinSpace: num", int)
    shape, ndims = _linspace_shape(start, stop)
    if read_at_run_time(axis):   # read when the graph runs, as TF's linspace_nd reads it
        return _linspace_along_run_time_axis(start, stop, num_int, axis, shape, ndims)
    start = expand_dims(broadcast_to(start, shape), axis)
    stop = expand_dims(broadcast_to(stop, shape), axis)
    axis = _axis(axis, ndims, "ExpandDims")
    if is_traced(num_int):
        n_fill, n_steps = maximum(num_int - 2, 0), maximum(num_int - 1, 1)
        range_end = where(num_int >= 0, n_steps, -1)
    else:
        n_fill = builtins.max(num_int - 2, 0)
        n_steps = builtins.max(num_int - 1, 1)
        range_end = n_steps if num_int >= 0 else -1
    delta = (stop - start) / cast(n_steps, stop.dtype)
    start, stop = cast(start, delta.dtype), cast(stop, delta.dtype)
    steps = range(1, range_end, dtype=_dtypes.int64)
    steps = reshape(cast(steps, delta.dtype), tuple(n_fill if i == axis else 1
                                                   for i in builtins.range(ndims)))
    everything = concat([start, start + delta * steps, stop], axis=axis)
    out_shape = [-1 if d is None else d for d in everything._value.shape]
    out_shape[axis] = num_int
    return slice(everything, [0] * ndims, out_shape)


def _linspace_shape(start: Tensor, stop: Tensor) -> tuple:
    """The shape that start and stop broadcast to (where a trace leaves dims unknown, the
    shape of their sum, whose kernel checks them as the graph runs), and the output's rank."""
    a, b = start._value.shape, stop._value.shape
    ndims = builtins.max(len(a), len(b)) + 1
    if None in a + b:
        return shape(start + stop), ndims
    try:
        return np.broadcast_shapes(a, b), ndims
    except ValueError:  # TF's BroadcastArgs
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(a)} vs. {dims_text(b)} "
                                   f"[Op:BroadcastArgs]") from None


def _linspace_along_run_time_axis(start: Tensor, stop: Tensor, num: Any, axis: Tensor,
                                   dims: Any, ndims: int) -> Tensor:
    """linspace along a traced `axis`, built as TF's linspace_nd builds it: the axis picks,
    as the graph runs, the dim of the steps' shape and of the slice's size that `num` sets
    (ExpandDims checks its range)."""
    # ExpandDims' rule leaves the rank unknown; the concat below needs it.
    start, stop = (bind(ensure_shape_prim, (expand_dims(broadcast_to(x, dims), axis),),
                        {"shape": (None,) * ndims, "note": ""}) for x in (start, stop))
    axis = cast(axis, _dtypes.int32)
    axis = where(axis >= 0, axis, axis + ndims)
    if is_traced(num):
        n_fill, n_steps = maximum(num - 2, 0), maximum(num - 1, 1)
        range_end = where(num >= 0, n_steps, -1)
    else:
        n_fill, n_steps = builtins.max(num - 2, 0), builtins.max(num - 1, 1)
        range_end = n_steps if num >= 0 else -1
    delta = (stop - start) / cast(n_steps, stop.dtype)
    start, stop = cast(start, delta.dtype), cast(stop, delta.dtype)
    along_axis = range(ndims) == axis
    steps = reshape(cast(range(1, range_end, dtype=_dtypes.int64), delta.dtype),
                    where(along_axis, cast(n_fill, _dtypes.int32), 1))
    everything = concat([start, start + delta * steps, stop], axis=axis)
    return slice(everything, zeros([ndims], _dtypes.int32),
                 where(along_axis, cast(num, _dtypes.int32), shape(everything)))


# -- gather --------------------------------------------------------------------------------------

def _gather_layout(params_shape: tuple, indices_shape: tuple, axis: int,
                   batch_dims: int) -> tuple:
    """Shapes that make a gather one fancy-indexing step: params as [batch, outer, n, inner]
    and indices as [batch, k]; also the output's shape."""
    batch = params_shape[:batch_dims]
    outer = params_shape[batch_dims:axis]
    inner = params_shape[axis + 1:]
    b, o, i = (int(np.prod(s)) for s in (batch, outer, inner))
    view = (b, o, params_shape[axis], i)
    out_shape = batch + outer + indices_shape[batch_dims:] + inner
    return view, (b, int(np.prod(indices_shape[batch_dims:]))), out_shape


def _gather_kernel(params: np.ndarray, indices: np.ndarray, axis: int,
                   batch_dims: int) -> np.ndarray:
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not np.prod(out_shape):  # TF checks no index when there is nothing to gather
        return np.zeros(out_shape, params.dtype)
    _check_gather_indices(indices, params.shape[axis])
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    _check_batch_dims(params.shape, indices.shape, batch_dims)   # dims tracing did not know
    view, ind_view, out_shape = _gather_layout(params.shape, indices.shape, axis, batch_dims)
    p = params.reshape(view)
    ind = indices.reshape(ind_view)
    out = p[np.arange(view[0])[:, None, None], np.arange(view[1])[None, :, None],
            ind[:, None, :]]
    return out.reshape(out_shape)


def _gather_grad_kernel(g: np.ndarray, indices: np.ndarray, *dims: np.ndarray, shape: Dims,
                        axis: int, batch_dims: int) -> np.ndarray:
    # `dims`: params' shape as the graph runs, where tracing did not know it.
    shape = tuple(int(d) for d in dims[0]) if dims else shape
    view, ind_view, _ = _gather_layout(shape, indices.shape, axis, batch_dims)
    out = np.zeros(view, g.dtype)
    ind = indices.reshape(ind_view)
    # [b, o, k, i]: the gathered values, accumulated back (repeated indices add up).
    values = g.reshape(view[0], view[1], ind.shape[1], view[3])
    np.add.at(out, (np.arange(view[0])[:, None, None], np.arange(view[1])[None, :, None],
                    ind[:, None, :]), values)
    return out.reshape(shape)


def _check_gather_indices(indices: np.ndarray, limit: int) -> None:
    bad = (indices < 0) | (indices >= limit)
    if np.any(bad):
        where = np.argwhere(bad)[0] if indices.ndim else ()
        position = "[" + ",".join(str(i) for i in where) + "]" if indices.ndim else ""
        raise InvalidArgumentError(f"indices{position} = {indices[tuple(where)]} is not in "
                                   f"[0, {limit}) [Op:GatherV2]")


def _gather_slices(g: Tensor, indices: Tensor, params: Tensor) -> IndexedSlices:
    """The gradient of an axis-0 gather of `params` at `indices`, given the cotangent `g` of
    its output: `g`'s rows at the flattened indices, as TF's _GatherV2Grad."""
    params_shape = params._value.shape
    if not (has_static_shape(params._value) and has_static_shape(indices._value)):
        dense_shape = _shape_of(params)   # the shapes as the graph runs
        values = reshape(g, concat([wrap(np.array([-1], np.int32)), dense_shape[1:]], 0))
        return IndexedSlices(values, reshape(indices, [-1]), dense_shape)
    n = int(np.prod(indices._value.shape, dtype=np.int64))
    values = reshape(g, (n,) + tuple(params_shape[1:]))
    flat = reshape(indices, (n,))
    return IndexedSlices(values, flat, wrap(np.asarray(params_shape, np.int32)))


def _gather_vjp(g: Tensor, ans: Tensor, params: Tensor, indices: Tensor, axis: int,
                batch_dims: int) -> tuple:
    # As TF's _GatherV2Grad: an axis-0 gather's gradient is IndexedSlices, others are dense.
    if axis == 0 and batch_dims == 0:
        return _gather_slices(g, indices, params), None
    return _placed(g, params, _gather_grad, (indices,),
                   {"axis": axis, "batch_dims": batch_dims}), None


def _gather_rule(params: ShapedArray, indices: ShapedArray, axis: int,
                 batch_dims: int) -> ShapedArray:
    # As the kernel: the batch dims come from params (TF's shape function does not check
    # them against indices'; its kernel does).
    if params.shape is None or indices.shape is None:
        return ShapedArray(None, params.dtype)
    return ShapedArray(params.shape[:axis] + indices.shape[batch_dims:] +
                       params.shape[axis + 1:], params.dtype)


_gather = Primitive("GatherV2", _gather_kernel, shape_rule=_gather_rule).defvjp(_gather_vjp)
# The gather's VJP as a dense scatter-add (not a TensorFlow op); its own VJP is the gather,
# so second derivatives through tf.gather work.
_gather_grad = Primitive("GatherV2Grad", _gather_grad_kernel, shape_rule=_placed_rule).defvjp(
    lambda g, ans, dy, indices, *dims, shape, axis, batch_dims: (
        bind(_gather, (g, indices), {"axis": axis, "batch_dims": batch_dims}), None,
        *(None for _ in dims)))

def _check_gather_args(shape: tuple, ind_shape: tuple, axis: int, batch_dims: int) -> tuple:
    """`axis` and `batch_dims` made non-negative, checked in the order (and with the
    messages) of TensorFlow's GatherV2 kernel."""
    rank, ind_rank = len(shape), len(ind_shape)
    if rank == 0:
        raise InvalidArgumentError("params must be at least 1 dimensional [Op:GatherV2]")
    if not -rank <= axis < rank:
        needed = axis + 1 if axis >= 0 else -axis
        raise InvalidArgumentError(f"Shape must be at least rank {needed} but is rank {rank} "
                                   f"[Op:GatherV2]")
    axis %= rank
    if batch_dims == 0:
        return axis, 0
    if not -ind_rank <= batch_dims <= ind_rank:
        raise InvalidArgumentError(f"Expected batch_dims in the range [{-ind_rank}, {ind_rank}]"
                                   f", but got {batch_dims} [Op:GatherV2]")
    if batch_dims < 0:
        batch_dims += ind_rank
    if batch_dims >= rank:
        raise InvalidArgumentError(f"batch_dims ({batch_dims}) must be less than rank(params) "
                                   f"({rank}). [Op:GatherV2]")
    if axis < batch_dims:
        raise InvalidArgumentError(f"batch_dims ({batch_dims}) must be less than or equal to "
                                   f"axis ({axis}). [Op:GatherV2]")
    _check_batch_dims(shape, ind_shape, batch_dims)
    return axis, batch_dims


def _check_batch_dims(shape: tuple, ind_shape: tuple, batch_dims: int) -> None:
    """params' and indices' batch dims must be equal (where known)."""
    for d in builtins.range(batch_dims):
        if shape[d] != ind_shape[d] and shape[d] is not None and ind_shape[d] is not None:
            raise InvalidArgumentError(f"params.shape[{d}]: {shape[d]} should be equal to "
                                       f"indices.shape[{d}]: {ind_shape[d]} [Op:GatherV2]")


def _gather_axes_at_run_time(params: np.ndarray, indices: np.ndarray, axis: np.ndarray,
                             batch_dims: int) -> tuple:
    """A run-time gather's axis and batch_dims, checked as TF's GatherV2 kernel checks them
    (its tf.gather drops batch_dims for a static axis 0 only, so here it stays)."""
    a = scalar_at_run_time(axis, "axis must be scalar but got shape ")
    return _check_gather_args(params.shape, indices.shape, a, batch_dims)


def _gather_at_run_time_kernel(params: np.ndarray, indices: np.ndarray, axis: np.ndarray,
                               batch_dims: int) -> np.ndarray:
    return _gather_kernel(params, indices, *_gather_axes_at_run_time(params, indices, axis,
                                                                     batch_dims))


def _gather_at_run_time_rule(params: ShapedArray, indices: ShapedArray, axis: ShapedArray,
                             batch_dims: int) -> ShapedArray:
    # TF's shape function: params' rank + indices' rank - 1 - batch_dims, no dim known.
    if params.ndim is None or indices.ndim is None:
        return ShapedArray(None, params.dtype)
    batch = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    return ShapedArray((None,) * (params.ndim + indices.ndim - 1 - batch), params.dtype)


def _gather_grad_at_run_time_kernel(g: np.ndarray, params: np.ndarray, indices: np.ndarray,
                                    axis: np.ndarray, batch_dims: int) -> np.ndarray:
    a, b = _gather_axes_at_run_time(params, indices, axis, batch_dims)
    return _gather_grad_kernel(g, indices, shape=params.shape, axis=a, batch_dims=b)


# GatherV2 with its axis read when the graph runs. Its adjoint is dense, as TF's for an axis
# it does not know while tracing; the adjoint's own adjoint is the gather.
_gather_grad_at_run_time = Primitive(
    "GatherV2Grad", _gather_grad_at_run_time_kernel, register=False,
    shape_rule=lambda g, params, indices, axis, batch_dims: ShapedArray(params.shape, g.dtype))
_gather_at_run_time = Primitive("GatherV2", _gather_at_run_time_kernel, register=False,
                                shape_rule=_gather_at_run_time_rule).defvjp(
    lambda g, ans, params, indices, axis, batch_dims: (
        bind(_gather_grad_at_run_time, (g, params, indices, axis), {"batch_dims": batch_dims}),
        None, None))
_gather_grad_at_run_time.defvjp(lambda gg, ans, g, params, indices, axis, batch_dims: (
    bind(_gather_at_run_time, (gg, indices, axis), {"batch_dims": batch_dims}),
    None, None, None))


@tf_export("gather")
@reads_static
def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: Optional[str] = None) -> Tensor:
    """Slices of `params` along `axis` (default 0) at `indices`; the first `batch_dims`
    axes of params and indices are matched batch axes. The gradient with respect to params
    is a `tf.IndexedSlices` for axis 0 without batch axes (as in TF), else dense."""
    try:
        x = convert_to_tensor(params)
    except (TypeError, ValueError) as exc:  # a RaggedTensor: its rows
        return ragged_fallback(exc, "gather", gather, params, indices, axis=axis,
                               batch_dims=batch_dims)
    ind = convert_to_tensor(indices)
    if ind._value.dtype.kind not in "iu":
        type_name = cpp_name(ind.dtype)
        raise InvalidArgumentError(f"Value for attr 'Tindices' of {type_name} is not in the "
                                   f"list of allowed values: int16, int32, int64 [Op:GatherV2]")
    axis = batch_dims if axis is None else axis
    if read_at_run_time(axis):   # read when the graph runs, as TF's axis input
        axis = run_time_int(axis, "axis", "GatherV2", 0, (x._value.shape, ind._value.shape))
        return bind(_gather_at_run_time, (x, ind, axis), {"batch_dims": int(batch_dims)})
    axis = static_value(axis, "GatherV2: axis", int)
    # TensorFlow's tf.gather drops batch_dims when axis is 0 (it then calls GatherV2 or
    # sparse_read without it), so gather(p, i, axis=0, batch_dims=1) is a plain gather.
    batch_dims = 0 if axis == 0 else int(batch_dims)
    axis, batch_dims = _check_gather_args(x._value.shape, ind._value.shape, axis, batch_dims)
    return bind(_gather, (x, ind), {"axis": axis, "batch_dims": batch_dims})



# -- batched VJP rules (vectorized jacobians: `g` has a leading batch axis) --------------------

def _batch_size(g: Tensor) -> int:
    return g._value.shape[0]


def _tile_batch_vjp(g: Tensor, ans: Tensor, x: Tensor, multiples: tuple) -> Tensor:
    from tapeflow.ops.reduce_ops import reduce_sum  # reduce_ops builds on this module
    shape = x._value.shape
    interleaved = tuple(v for pair in zip(multiples, shape) for v in pair)
    return reduce_sum(reshape(g, (_batch_size(g),) + interleaved),
                      axis=tuple(builtins.range(1, 2 * len(shape) + 1, 2)))


def _fill_batch_vjp(g: Tensor, ans: Tensor, value: Tensor, shape: tuple) -> Tensor:
    # Fill's adjoint sums everything: per row, over all but the batch axis.
    from tapeflow.ops.reduce_ops import reduce_sum  # reduce_ops builds on this module
    return reduce_sum(g, axis=tuple(builtins.range(1, g._value.ndim)))


def _fill_grad_batch_vjp(gg: Tensor, ans: Tensor, g: Tensor) -> Tensor:
    # FillGrad's adjoint fills: each row's scalar spread over g's shape.
    shape = g._value.shape
    rows = _batch_size(gg)
    return broadcast_to(reshape(gg, (rows,) + (1,) * len(shape)), (rows,) + shape)


_fill.defbatch(lambda g, ans, value, *dims, shape: _fill_batch_vjp(g, ans, value, shape))
_sum_all.defbatch(_fill_grad_batch_vjp)
_reshape.defbatch(lambda g, ans, x, *dims, shape, unchecked=False: reshape(
    g, (_batch_size(g),) + x._value.shape))
_transpose.defbatch(lambda g, ans, x, perm: transpose(
    g, (0,) + tuple(int(p) + 1 for p in np.argsort(perm))))
_concat.defbatch(lambda g, ans, *xs, axis: tuple(
    split(g, [x._value.shape[axis] for x in xs], axis=axis + 1)))
_stack.defbatch(lambda g, ans, *xs, axis: tuple(unstack(g, axis=axis + 1)))
_unstack.defbatch(lambda gs, ans, x, axis, num: stack(gs, axis=axis + 1))
_split.defbatch(lambda gs, ans, x, *given, sizes, axis: concat(list(gs), axis=axis + 1))
_tile.defbatch(_tile_batch_vjp)
_strided_slice.defbatch(lambda g, ans, x, key: bind(
    _strided_slice_grad, (g,), {"shape": (_batch_size(g),) + x._value.shape,
                                "key": (builtins.slice(None),) + key}))
_strided_slice_grad.defbatch(lambda g, ans, dy, *dims, shape, key: bind(
    _strided_slice, (g,), {"key": (builtins.slice(None),) + key}))


_convert_module.hooks["autopack"] = _autopack


# -- broadcast shapes, identity_n, invert_permutation, unravel_index ---------------------------

@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The TensorShape that shapes `shape_x` and `shape_y` broadcast to (unknown dims stay
    unknown); ValueError where they cannot broadcast."""
    from tapeflow.framework.abstract import broadcast_dims
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    try:
        return TensorShape(broadcast_dims(tuple(x.as_list()), tuple(y.as_list())))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {tuple(x.as_list())} and {tuple(y.as_list())}.") from None


@tf_export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The shape (a 1-D int32 or int64 tensor, as the inputs) that two shapes broadcast to
    (TF's BroadcastArgs)."""
    x, y = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    if x.dtype != y.dtype:
        raise mismatch_error("BroadcastArgs", 1, x.dtype, y.dtype)
    if x._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x.dtype)} is not in the "
                                   f"list of allowed values: int32, int64 [Op:BroadcastArgs]")
    sx = static_value(x, "BroadcastArgs: s0", lambda v: tuple(int(d) for d in np.ravel(v)))
    sy = static_value(y, "BroadcastArgs: s1", lambda v: tuple(int(d) for d in np.ravel(v)))
    try:
        out = np.broadcast_shapes(sx, sy)
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(sx)} vs. {dims_text(sy)} "
                                   f"[Op:BroadcastArgs]") from None
    return wrap(np.asarray(out, dtype=x._value.dtype).reshape(len(out)))


@tf_export("identity_n")
def identity_n(input: Any, name: Optional[str] = None) -> list:  # noqa: A002 - TF's name
    """Each tensor of a list, as a new tensor; gradients pass through."""
    from tapeflow.ops.math_ops import identity
    return [identity(item) for item in input]


def _invert_permutation_kernel(x: np.ndarray) -> np.ndarray:
    if x.ndim != 1:
        raise InvalidArgumentError("invert_permutation expects a 1D vector. "
                                   "[Op:InvertPermutation]")
    out = np.full(x.shape, -1, x.dtype)
    for i, v in enumerate(x.tolist()):
        if not 0 <= v < len(x):
            raise InvalidArgumentError(f"{v} is not between 0 and {len(x)} "
                                       f"[Op:InvertPermutation]")
        if out[v] != -1:
            raise InvalidArgumentError(f"{v} is duplicated in the input. "
                                       f"[Op:InvertPermutation]")
        out[v] = i
    return out


_invert_permutation = Primitive("InvertPermutation", _invert_permutation_kernel,
                                shape_rule=lambda x: ShapedArray(x.shape, x.dtype),
                                differentiable=False)


def _int_index_tensor(x: Any, op_name: str, attr: str = "T") -> Tensor:
    x = convert_to_tensor(x)
    if x._value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(f"Value for attr '{attr}' of {cpp_name(x.dtype)} is not in "
                                   f"the list of allowed values: int32, int64 [Op:{op_name}]")
    return x


@tf_export("math.invert_permutation")
def invert_permutation(x: Any, name: Optional[str] = None) -> Tensor:
    """The inverse permutation y of a permutation x of 0..n-1: y[x[i]] = i."""
    return bind(_invert_permutation, (_int_index_tensor(x, "InvertPermutation"),))


def _unravel_kernel(indices: np.ndarray, dims: np.ndarray) -> np.ndarray:
    if np.any(indices < 0) or np.any(indices >= np.prod(dims)):
        raise InvalidArgumentError("index is out of bound as with dims [Op:UnravelIndex]")
    return np.stack(np.unravel_index(indices, tuple(int(d) for d in dims))).astype(
        indices.dtype)


def _unravel_rule(indices: ShapedArray, dims: ShapedArray) -> ShapedArray:
    rows = None if dims.shape is None else dims.shape[0]
    tail = None if indices.shape is None else tuple(indices.shape)
    return ShapedArray(None if tail is None else (rows,) + tail, indices.dtype)


_unravel_index = Primitive("UnravelIndex", _unravel_kernel, shape_rule=_unravel_rule,
                           differentiable=False)


@tf_export("unravel_index")
def unravel_index(indices: Any, dims: Any, name: Optional[str] = None) -> Tensor:
    """The coordinates, one row per dim, of flat `indices` into an array of shape `dims`."""
    indices = _int_index_tensor(indices, "UnravelIndex", "Tidx")
    dims = convert_to_tensor(dims, dtype=indices.dtype)
    return bind(_unravel_index, (indices, dims))


# -- bitcast, parallel_stack, fingerprint, edit_distance ------------------------------------------

_BITCAST_TYPES = ("bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, "
                  "int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32")


def _bitcast_shape(shape: Optional[tuple], source: Any, target: Any) -> Optional[tuple]:
    """Bitcast's output shape: a wider input gains a last axis, a narrower loses one."""
    size_in, size_out = source.itemsize, target.itemsize
    if shape is None or size_in == size_out:
        return shape
    if size_in > size_out:
        return tuple(shape) + (size_in // size_out,)
    if not shape or shape[-1] not in (None, size_out // size_in) or size_out % size_in:
        raise InvalidArgumentError(
            f"Cannot bitcast from {_dtypes.as_dtype(source).as_datatype_enum} to "
            f"{_dtypes.as_dtype(target).as_datatype_enum} [Op:Bitcast] name: ")
    return tuple(shape[:-1])


def _bitcast_kernel(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    shape = _bitcast_shape(x.shape, x.dtype, dtype)
    return np.ascontiguousarray(x).view(dtype).reshape(shape)


_bitcast = Primitive("Bitcast", _bitcast_kernel, differentiable=False, shape_rule=lambda x, dtype:
                     ShapedArray(_bitcast_shape(x.shape, x.dtype, dtype), dtype))


@tf_export("bitcast")
def bitcast(input: Any, type: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The bytes of `input` read as `type` without converting: a wider input gains a last
    axis of the size ratio, a narrower one gives up its last axis (which must be that
    ratio). No gradient, as TF."""
    x = convert_to_tensor(input)
    target = _dtypes.as_dtype(type)
    for attr, dt in (("T", x.dtype), ("type", target)):
        if dt.is_bool or dt == _dtypes.string:
            raise InvalidArgumentError(f"Value for attr '{attr}' of {cpp_name(dt)} is not in the "
                                       f"list of allowed values: {_BITCAST_TYPES} [Op:Bitcast]")
    return bind(_bitcast, (x,), {"dtype": target._np})


@tf_export("parallel_stack")
def parallel_stack(values: Sequence[Any], name: str = "parallel_stack") -> Tensor:
    """`tf.stack(values)` inside a tf.function (TF's ParallelConcat needs every shape known
    while tracing); eagerly a RuntimeError, as TF."""
    if context.graph is None:
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    tensors = [convert_to_tensor(v) for v in values]
    dtype = next((t.dtype for t in tensors if is_traced(t)), tensors[0].dtype if tensors else None)
    tensors = [t if t.dtype == dtype else convert_to_tensor(v, dtype=dtype)
               for t, v in zip(tensors, values)]
    for t in tensors:
        if not has_static_shape(t._value):
            raise ValueError(f"shape attr must be fully defined. (parallel_stack of shapes "
                             f"{', '.join(str(TensorShape(x._value.shape)) for x in tensors)})")
    return stack(tensors)


def _fingerprint_kernel(data: np.ndarray, method: str) -> np.ndarray:
    from tapeflow.ops.string_ops import fingerprint64
    rows = data.reshape(data.shape[0], -1) if data.shape[0] else data.reshape(0, 0)
    if data.dtype.kind in "OSU":
        if rows.shape[1] != 1:  # several strings a row: hash their fingerprints' bytes
            prints = np.array([[_le_bytes(fingerprint64(_as_bytes(s))) for s in row]
                               for row in rows], dtype=object)
            return _fingerprint_rows([b"".join(row) for row in prints])
        return _fingerprint_rows([_as_bytes(row[0]) for row in rows])
    return _fingerprint_rows([np.ascontiguousarray(row).tobytes() for row in rows])


def _as_bytes(s: Any) -> bytes:
    return s if isinstance(s, bytes) else str(s).encode()


def _le_bytes(h: int) -> bytes:
    return h.to_bytes(8, "little")


def _fingerprint_rows(rows: list) -> np.ndarray:
    from tapeflow.ops.string_ops import fingerprint64
    out = np.frombuffer(b"".join(_le_bytes(fingerprint64(r)) for r in rows), np.uint8)
    return out.reshape(len(rows), 8)


_fingerprint = Primitive(
    "Fingerprint", _fingerprint_kernel, differentiable=False,
    shape_rule=lambda data, method: ShapedArray(
        None if data.shape is None else (data.shape[0], 8), np.dtype(np.uint8)))


@tf_export("fingerprint")
def fingerprint(data: Any, method: str = "farmhash64", name: Optional[str] = None) -> Tensor:
    """A uint8 `[data.shape[0], 8]` fingerprint of each row of `data` (FarmHash's
    Fingerprint64 of the row's bytes, little-endian; a row of one string hashes the string,
    one of several hashes their fingerprints), as TF's."""
    x = convert_to_tensor(data)
    if method != "farmhash64":
        raise InvalidArgumentError(f"Unsupported fingerprint method: {method} [Op:Fingerprint]")
    if x._value.ndim == 0:
        raise InvalidArgumentError("`data` should have at least one dimension: [] "
                                   "[Op:Fingerprint]")
    return bind(_fingerprint, (x,), {"method": method})


def _levenshtein(a: list, b: list) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _sequences(indices: np.ndarray, values: np.ndarray) -> dict:
    # The values of each sequence (the last index varies within one), in index order.
    out: dict = {}
    for k in np.lexsort(indices.T[::-1]) if len(indices) else ():
        out.setdefault(tuple(indices[k, :-1].tolist()), []).append(values[k])
    return out


def _edit_distance_kernel(h_indices: np.ndarray, h_values: np.ndarray, h_shape: np.ndarray,
                          t_indices: np.ndarray, t_values: np.ndarray, t_shape: np.ndarray,
                          normalize: bool) -> np.ndarray:
    if len(h_shape) != len(t_shape):
        raise InvalidArgumentError(
            f"Expected truth and hypothesis to have matching ranks, but their shapes are: "
            f"[{len(t_shape)}] and [{len(h_shape)}] [Op:EditDistance] name: edit_distance")
    out = np.zeros(np.maximum(h_shape, t_shape)[:-1].astype(np.int64), np.float32)
    hyp, truth = _sequences(h_indices, h_values), _sequences(t_indices, t_values)
    with np.errstate(divide="ignore", invalid="ignore"):
        for loc in set(hyp) | set(truth):
            h, t = hyp.get(loc, []), truth.get(loc, [])
            d = np.float32(_levenshtein(h, t))
            out[loc] = d / np.float32(len(t)) if normalize else d
    return out


_edit_distance = Primitive(
    "EditDistance", _edit_distance_kernel, differentiable=False,
    shape_rule=lambda hi, hv, hs, ti, tv, ts, normalize: ShapedArray(
        None if hs.shape is None or hs.shape[0] is None else (None,) * (hs.shape[0] - 1),
        np.dtype(np.float32)))


@tf_export("edit_distance")
def edit_distance(hypothesis: Any, truth: Any, normalize: bool = True,
                  name: str = "edit_distance") -> Tensor:
    """The Levenshtein distances between the sequences (along the last axis) of two
    SparseTensors, float32 of their dense shapes without the last axis; `normalize` divides
    by the truth's lengths (an empty truth gives inf, or NaN against an empty hypothesis)."""
    from tapeflow.framework.sparse_tensor import SparseTensor
    for what, sp in (("Hypothesis", hypothesis), ("Truth", truth)):
        if not isinstance(sp, SparseTensor):
            raise TypeError(f"{what} must be a SparseTensor.")
    if truth.values.dtype != hypothesis.values.dtype:
        raise InvalidArgumentError(
            f"cannot compute EditDistance as input #4(zero-based) was expected to be a "
            f"{cpp_name(hypothesis.values.dtype)} tensor but is a "
            f"{cpp_name(truth.values.dtype)} tensor [Op:EditDistance] name: edit_distance")
    operands = (hypothesis.indices, hypothesis.values, hypothesis.dense_shape,
                truth.indices, truth.values, truth.dense_shape)
    return bind(_edit_distance, tuple(convert_to_tensor(t) for t in operands),
                {"normalize": bool(normalize)})
