"""Keras 3's core and math ops (`keras.ops.cast`, `cond`, `scan`, `segment_sum`, ...): the
names of `keras.ops` outside its `numpy`, `nn` and `linalg` namespaces.

Each is Keras 3.15's TensorFlow backend written over tapeflow's public ops, so the numbers,
dtypes and errors are that backend's. `shape`, `dtype`, `is_tensor` and `custom_gradient` are
plain functions, not graph nodes (in Keras too: `shape` of a KerasTensor is its shape).
"""

from __future__ import annotations

import builtins
import re
from typing import Any, Callable, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework import nest
from tapeflow.keras import backend
from tapeflow.keras.layers.layer import KerasTensor
from tapeflow.keras.ops._node import keras_op
from tapeflow.keras.utils import standardize_dtype

_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


# ---------------------------------------------------------------- conversion, shape, dtype


def _convert_to_tensor(x: Any, dtype: Any = None, sparse: Optional[bool] = None,
                       ragged: Optional[bool] = None) -> Any:
    """`x` as a tensor; ints and bools are cast rather than converted (TF refuses 1.7 as an
    int), a tensor of another dtype is cast, as Keras's TF backend."""
    if isinstance(x, tf.SparseTensor) and sparse is not None and not sparse:
        x = tf.sparse.to_dense(x)
    if isinstance(x, tf.RaggedTensor) and ragged is not None and not ragged:
        x = x.to_tensor()
    dtype = None if dtype is None else standardize_dtype(dtype)
    if not tf.is_tensor(x):
        if dtype == "bool" or dtype in _INT_DTYPES:
            return tf.cast(tf.convert_to_tensor(x), dtype)
        return tf.convert_to_tensor(x, dtype=dtype)
    if dtype is not None and standardize_dtype(x.dtype) != dtype:
        return tf.cast(x, dtype)
    return x


def convert_to_numpy(x: Any) -> np.ndarray:
    """`x` as a NumPy array (sparse and ragged tensors densified)."""
    if isinstance(x, KerasTensor):
        raise ValueError("A KerasTensor is symbolic: it's a placeholder for a shape an a "
                         "dtype. It doesn't have any actual numerical value. You cannot "
                         "convert it to a NumPy array.")
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    elif isinstance(x, tf.RaggedTensor):
        x = x.to_tensor()
    elif isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.array(x)


def _cast(x: Any, dtype: Any) -> Any:
    """`x` as `dtype` (Keras's dtype names)."""
    return tf.cast(x, standardize_dtype(dtype))


def _dtype_limits(dtype: str) -> tuple:
    if dtype == "bool":
        return 0, 1
    info = np.iinfo(dtype) if "int" in dtype else np.finfo(dtype)
    return info.min, info.max


def _saturate_cast(x: Any, dtype: Any) -> Any:
    """`x` clipped to `dtype`'s range, then cast (Keras's limits: the nearest value of x's
    dtype inside the range)."""
    x = _convert_to_tensor(x)
    dtype, in_dtype = standardize_dtype(dtype), standardize_dtype(x.dtype)
    (in_min, in_max), (out_min, out_max) = _dtype_limits(in_dtype), _dtype_limits(dtype)
    min_limit = np.array(np.maximum(in_min, out_min)).astype(in_dtype)
    if min_limit < out_min:
        min_limit = np.nextafter(min_limit, 0, dtype=in_dtype)
    max_limit = np.array(np.minimum(in_max, out_max)).astype(in_dtype)
    if max_limit > out_max:
        max_limit = np.nextafter(max_limit, 0, dtype=in_dtype)
    return tf.cast(tf.clip_by_value(x, min_limit, max_limit), dtype)


def shape(x: Any) -> tuple:
    """`x`'s shape as a tuple: ints where known, scalar tensors where only the running graph
    knows them; a KerasTensor's own shape."""
    if isinstance(x, KerasTensor):
        return x.shape
    if not tf.is_tensor(x):
        x = tf.convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError("All tensors passed to `ops.shape` must have a statically known "
                         f"rank. Received: x={x} with unknown rank.")
    if isinstance(x, tf.RaggedTensor):
        return tuple(x.shape.as_list())
    return backend.dynamic_shape(x)


def dtype(x: Any) -> str:
    """The Keras name of `x`'s dtype ('float32', ...)."""
    return standardize_dtype(x.dtype)


def is_tensor(x: Any) -> bool:
    """Whether `x` is a tensor (NumPy arrays are not)."""
    return tf.is_tensor(x)


def custom_gradient(f: Callable) -> Callable:
    """`f(*args)` returns `(output, grad_fn)`; `grad_fn(upstream)` (positional, as Keras's TF
    backend calls it) gives the gradients of the args."""
    return tf.custom_gradient(f=f)


# ---------------------------------------------------------------- math


def _segment_checks(data: Any, segment_ids: Any) -> None:
    data_shape, ids_shape = _static_shape(data), _static_shape(segment_ids)
    if len(ids_shape) > 1:
        raise ValueError("Argument `segment_ids` should be an 1-D vector, got shape: "
                         f"{len(ids_shape)}. Consider either flatten input with "
                         "segment_ids.reshape((-1)) and "
                         "data.reshape((-1, ) + data.shape[len(segment_ids.shape):]) or "
                         "vectorize with vmap.")
    if (ids_shape[0] is not None and data_shape[0] is not None
            and ids_shape[0] != data_shape[0]):
        raise ValueError("Argument `segment_ids` and `data` should have same leading "
                         f"dimension. Got {ids_shape} v.s. {data_shape}.")


def _static_shape(x: Any) -> tuple:
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _segment_op(sorted_op: Callable, unsorted_op: Callable, count_unique: bool) -> Callable:
    """A Keras segment reduction: the sorted TF op, or the unsorted one with
    `num_segments` defaulting to the number of distinct ids (sum) or the largest id + 1."""
    def segment(data: Any, segment_ids: Any, num_segments: Any = None,
                sorted: bool = False) -> Any:  # noqa: A002 - Keras's name
        _segment_checks(data, segment_ids)
        if sorted:
            if num_segments is not None:
                raise ValueError("Argument `num_segments` cannot be set when sorted is True "
                                 "when using the tensorflow backend."
                                 f"Received: num_segments={num_segments}, sorted={sorted}.")
            return sorted_op(data, segment_ids)
        if num_segments is None:
            if count_unique:
                num_segments = tf.shape(tf.unique(segment_ids)[0])[0]
            else:
                num_segments = tf.cast(tf.reduce_max(segment_ids) + 1, tf.int32)
        return unsorted_op(data, segment_ids, num_segments)
    return segment


def _top_k(x: Any, k: int, sorted: bool = True) -> Any:  # noqa: A002 - Keras's name
    """The `k` largest values along the last axis and their int32 indices."""
    return tf.math.top_k(x, k, sorted=sorted)


def _in_top_k(targets: Any, predictions: Any, k: int) -> Any:
    return tf.math.in_top_k(targets, predictions, k)


def _logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """log(sum(exp(x))) over `axis`, computed stably."""
    return tf.math.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


def _cdist(x: Any, y: Any) -> Any:
    x, y = _convert_to_tensor(x), _convert_to_tensor(y)
    if x.shape.rank < 2 or y.shape.rank < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("Last dimension of inputs to `cdist` must match")
    diff = tf.expand_dims(x, -2) - tf.expand_dims(y, -3)
    return tf.sqrt(tf.reduce_sum(tf.square(diff), axis=-1))


def _extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> Any:
    return tf.signal.frame(x, frame_length=sequence_length, frame_step=sequence_stride,
                           axis=-1, pad_end=False)


def _complex_from_pair(x: Any) -> Any:
    """Keras's (real, imag) pair as one complex tensor."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError("Input `x` should be a tuple of two tensors - real and imaginary."
                         f"Received: x={x}")
    real, imag = _convert_to_tensor(x[0]), _convert_to_tensor(x[1])
    if real.shape != imag.shape:
        raise ValueError("Input `x` should be a tuple of two tensors - real and imaginary."
                         "Both the real and imaginary parts should have the same shape. "
                         f"Received: x[0].shape = {real.shape}, x[1].shape = {imag.shape}")
    if not real.dtype.is_floating or not imag.dtype.is_floating:
        raise ValueError("At least one tensor in input `x` is not of type float."
                         f"Received: x={x}.")
    return tf.complex(real, imag)


def _parts(z: Any) -> tuple:
    return tf.math.real(z), tf.math.imag(z)


def _fft(x: Any) -> tuple:
    return _parts(tf.signal.fft(_complex_from_pair(x)))


def _fft2(x: Any) -> tuple:
    return _parts(tf.signal.fft2d(_complex_from_pair(x)))


def _ifft2(x: Any) -> tuple:
    """Keras's ifft2: the fft2 of the conjugate, conjugated and divided by h * w."""
    real, imag = _convert_to_tensor(x[0]), _convert_to_tensor(x[1])
    h = tf.cast(tf.shape(real)[-2], real.dtype)
    w = tf.cast(tf.shape(real)[-1], real.dtype)
    fft_real, fft_imag = _fft2((real, -imag))
    return fft_real / (h * w), -fft_imag / (h * w)


def _rfft(x: Any, fft_length: Optional[int] = None) -> tuple:
    return _parts(tf.signal.rfft(x, fft_length=None if fft_length is None else [fft_length]))


def _irfft(x: Any, fft_length: Optional[int] = None) -> Any:
    return tf.signal.irfft(_complex_from_pair(x),
                           None if fft_length is None else [fft_length])


def _check_stride(sequence_stride: Any) -> None:
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError("`sequence_stride` must be a positive integer. "
                         f"Received: sequence_stride={sequence_stride}")


def _padded_window(window: Any, sequence_length: int, fft_length: int, dtype: Any) -> Any:
    """Keras's stft window (hann, hamming or given), zero-padded to `fft_length`; None for no
    window."""
    if window is None:
        return None
    if isinstance(window, str):
        make = tf.signal.hann_window if window == "hann" else tf.signal.hamming_window
        win = make(sequence_length, periodic=True, dtype=dtype)
    else:
        win = _convert_to_tensor(window, dtype=dtype)
    if win.shape.rank != 1 or win.shape[-1] != sequence_length:
        raise ValueError("The shape of `window` must be equal to [sequence_length]."
                         f"Received: window shape={win.shape}")
    l_pad = (fft_length - sequence_length) // 2
    return tf.pad(win, [[l_pad, fft_length - sequence_length - l_pad]])


def _stft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int,
          window: Any = "hann", center: bool = True) -> tuple:
    _check_stride(sequence_stride)
    x = _convert_to_tensor(x)
    if standardize_dtype(x.dtype) not in {"float32", "float64"}:
        raise TypeError("Invalid input type. Expected `float32` or `float64`. "
                        f"Received: input type={x.dtype}")
    if fft_length < sequence_length:
        raise ValueError("`fft_length` must equal or larger than `sequence_length`. "
                         f"Received: sequence_length={sequence_length}, "
                         f"fft_length={fft_length}")
    if isinstance(window, str) and window not in {"hann", "hamming"}:
        raise ValueError('If a string is passed to `window`, it must be one of `"hann"`, '
                         f'`"hamming"`. Received: window={window}')
    if center:
        pads = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = tf.pad(x, pads, mode="reflect")
    win = _padded_window(window, sequence_length, fft_length, x.dtype)
    result = tf.signal.stft(x, frame_length=fft_length, frame_step=sequence_stride,
                            fft_length=fft_length,
                            window_fn=None if win is None else (lambda *_, **__: win))
    return _parts(result)


def _istft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int,
           length: Optional[int] = None, window: Any = "hann", center: bool = True) -> Any:
    _check_stride(sequence_stride)
    z = _complex_from_pair(x)
    dtype = tf.math.real(z).dtype
    expected_len = fft_length + sequence_stride * (tf.shape(z)[-2] - 1)
    win = _padded_window(window, sequence_length, fft_length, dtype)
    window_fn = None if win is None else tf.signal.inverse_stft_window_fn(
        sequence_stride, lambda *_, **__: win)
    y = tf.signal.inverse_stft(z, frame_length=fft_length, frame_step=sequence_stride,
                               fft_length=fft_length, window_fn=window_fn)
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = -(fft_length // 2)
    else:
        end = expected_len
    return y[..., start:end]


def _rsqrt(x: Any) -> Any:
    return tf.math.rsqrt(_convert_to_tensor(x))


def _erf(x: Any) -> Any:
    return tf.math.erf(_convert_to_tensor(x))


def _erfc(x: Any) -> Any:
    return tf.math.erfc(_convert_to_tensor(x))


def _erfinv(x: Any) -> Any:
    x = _convert_to_tensor(x)
    if standardize_dtype(x.dtype) in ("bfloat16", "float16"):
        return tf.cast(tf.math.erfinv(tf.cast(x, tf.float32)), x.dtype)
    return tf.math.erfinv(x)


def _logdet(x: Any) -> Any:
    return tf.linalg.logdet(_convert_to_tensor(x))


def _view_as_complex(x: Any) -> Any:
    x = _convert_to_tensor(x)
    if x.shape.rank < 1 or x.shape[-1] != 2:
        raise ValueError("Last dimension of input must be size 2 (real and imaginary). "
                         f"Received shape: {x.shape}")
    return (tf.cast(x[..., 0], "complex64")
            + tf.complex(0.0, 1.0) * tf.cast(x[..., 1], "complex64"))


def _view_as_real(x: Any) -> Any:
    x = _convert_to_tensor(x)
    return tf.stack((tf.math.real(x), tf.math.imag(x)), axis=-1)


# ---------------------------------------------------------------- rearrange (einops)

_AXIS_OR_GROUP = r"\w+|\(.*?\)"


def _groups(axes: list) -> list:
    """Each output axis as the list of names it groups."""
    return [re.findall(r"\w+", a) for a in axes]


def _product(values: Any) -> Any:
    """The product of ints and scalar tensors (lengths known only at run time)."""
    result = 1
    for v in values:
        result = result * v
    return result


def _axes_map(input_axes: list, input_shape: tuple, axes_lengths: dict) -> dict:
    """Every named axis's length: given, read from the input, or inferred (one per group)."""
    lengths = dict(axes_lengths)
    found = {}
    for axis, dim in zip(input_axes, input_shape):
        if axis.startswith("("):
            inner = re.findall(r"\w+", axis)
            unknown = [a for a in inner if a not in lengths]
            if unknown:
                lengths[unknown[0]] = dim // _product(lengths[a] for a in inner if a in lengths)
            found.update({a: lengths[a] for a in inner})
        else:
            found[axis] = dim
    return found


def _rearrange(tensor: Any, pattern: str, **axes_lengths: Any) -> Any:
    """einops-style reshape and transpose: 'b (h w) c -> b h w c' (Keras's rules)."""
    tensor = _convert_to_tensor(tensor)
    input_pattern, output_pattern = re.split(r"\s*->\s*", pattern)
    input_axes = re.findall(_AXIS_OR_GROUP, input_pattern)
    output_groups = _groups(re.findall(_AXIS_OR_GROUP, output_pattern))
    lengths = _axes_map(input_axes, shape(tensor), axes_lengths)
    flat_input = [a for group in _groups(input_axes) for a in group]
    decomposed = [lengths[a] for a in flat_input]
    if len(decomposed) != len(input_axes):
        tensor = tf.reshape(tensor, decomposed)
    order = [flat_input.index(a) for group in output_groups for a in group]
    tensor = tf.transpose(tensor, order)
    return tf.reshape(tensor, [_product(lengths[a] for a in group) for group in output_groups])


# ---------------------------------------------------------------- scatter, slice, unstack


def _scatter(indices: Any, values: Any, shape: Any) -> Any:  # noqa: A002 - Keras's name
    return tf.scatter_nd(indices, values, shape)


def _scatter_multiply(inputs: Any, indices: Any, updates: Any) -> Any:
    """inputs with inputs[indices[i]] *= updates[i], one update after another (Keras's TF
    backend has no scatter-multiply either)."""
    inputs, indices = _convert_to_tensor(inputs), _convert_to_tensor(indices)
    updates = _convert_to_tensor(updates)

    def body(i: Any, result: Any) -> tuple:
        idx = indices[i:i + 1]
        return i + 1, tf.tensor_scatter_nd_update(result, idx,
                                                  tf.gather_nd(result, idx) * updates[i])
    return tf.while_loop(lambda i, _: i < tf.shape(indices)[0], body, [0, inputs])[1]


_SCATTER_REDUCTIONS = {"add": tf.tensor_scatter_nd_add, "max": tf.tensor_scatter_nd_max,
                       "min": tf.tensor_scatter_nd_min, "mul": _scatter_multiply}


def _scatter_update(inputs: Any, indices: Any, updates: Any,
                    reduction: Optional[str] = None) -> Any:
    if reduction is None:
        return tf.tensor_scatter_nd_update(inputs, indices, updates)
    return _SCATTER_REDUCTIONS[reduction](inputs, indices, updates)


def scatter_update(inputs: Any, indices: Any, updates: Any,
                   reduction: Optional[str] = None) -> Any:
    """`inputs` with `updates` written at `indices` (or combined: 'add', 'max', 'min',
    'mul')."""
    if reduction is not None:
        reduction = reduction.lower()
        if reduction not in _SCATTER_REDUCTIONS:
            raise ValueError(f"Invalid reduction: {reduction}. "
                             "Supported values are: None, 'add', 'max', 'min', 'mul'.")
    return _scatter_update_op(inputs, indices, updates, reduction=reduction)


_scatter_update_op = keras_op("ScatterUpdate", _scatter_update)


def _slice(inputs: Any, start_indices: Any, shape: Any) -> Any:  # noqa: A002
    return tf.slice(inputs, start_indices, shape)


def _slice_update(inputs: Any, start_indices: Any, updates: Any) -> Any:
    """`inputs` with the block `updates` written from `start_indices`, the start clamped so
    the block fits (XLA's dynamic_update_slice, which Keras's TF backend uses)."""
    inputs = _convert_to_tensor(inputs)
    updates = tf.convert_to_tensor(updates, dtype=inputs.dtype)  # TF's refusals (1.5 as int)
    for up, dim in zip(updates.shape, inputs.shape):
        if up is not None and dim is not None and up > dim:
            raise tf.errors.InvalidArgumentError(
                None, None, f"Update dim size {up} greater than dynamic slice dimension: {dim}.")
    in_shape, up_shape = tf.shape(inputs), tf.shape(updates)
    start = tf.clip_by_value(tf.cast(_convert_to_tensor(start_indices), tf.int32), 0,
                             in_shape - up_shape)
    rank = inputs.shape.rank
    grids = tf.meshgrid(*[tf.range(up_shape[i]) + start[i] for i in range(rank)],
                        indexing="ij")
    return tf.tensor_scatter_nd_update(inputs, tf.stack(grids, axis=-1), updates)


def _unstack(x: Any, num: Optional[int] = None, axis: int = 0) -> list:
    return tf.unstack(x, num=num, axis=axis)


def _stop_gradient(variable: Any) -> Any:
    """`variable`'s value, with no gradient flowing back through it."""
    return tf.stop_gradient(variable)


# ---------------------------------------------------------------- control flow


def _cond(pred: Any, true_fn: Callable, false_fn: Callable) -> Any:
    """true_fn() or false_fn(): chosen in Python when `pred` is known, else by tf.cond."""
    if isinstance(pred, np.ndarray):
        raise TypeError(f"unhashable type: 'numpy.ndarray' (cond's pred {pred!r}: "
                        "pass a bool or a tensor)")
    known = tf.get_static_value(pred) if tf.is_tensor(pred) else pred
    if isinstance(pred, tf.Variable) or known is None:
        return tf.cond(pred, true_fn=true_fn, false_fn=false_fn)
    return true_fn() if bool(known) else false_fn()


def _vectorized_map(function: Callable, elements: Any) -> Any:
    return tf.vectorized_map(function, elements)


def _map(f: Callable, xs: Any) -> Any:
    """f over the leading axis of xs (a tensor or a structure of them)."""
    xs = nest.map_structure(_convert_to_tensor, xs)
    first = nest.pack_sequence_as(xs, [x[0] for x in nest.flatten(xs)])
    signature = nest.map_structure(tf.TensorSpec.from_tensor, f(first))
    return tf.map_fn(f, xs, fn_output_signature=signature)


def _scan(f: Callable, init: Any, xs: Any = None, length: Optional[int] = None,
          reverse: bool = False, unroll: Any = 1) -> tuple:
    """jax.lax.scan: `carry, y = f(carry, x)` over xs's leading axis; (final carry, stacked
    ys). Built on tf.scan, whose accumulator carries (carry, y); f runs once more, on the
    first x, to learn y's structure."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError("`unroll` must be an positive integer or boolean. "
                         f"Received: unroll={unroll}")
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    init = nest.map_structure(tf.convert_to_tensor, init)
    if xs is None:
        elems, first = tf.range(int(length)), None
    else:
        elems = nest.map_structure(tf.convert_to_tensor, xs)
        first = nest.map_structure(lambda x: x[-1 if reverse else 0], elems)
    if nest.flatten(elems)[0].shape[0] == 0:
        return init, nest.map_structure(lambda c: tf.zeros([0, *c.shape], c.dtype), init)
    _, y_first = f(init, first)

    def step(acc: tuple, x: Any) -> tuple:
        return tuple(f(acc[0], None if xs is None else x))

    carries, ys = tf.scan(step, elems, reverse=reverse,
                          initializer=(init, nest.map_structure(tf.zeros_like, y_first)))
    return nest.map_structure(lambda c: c[0 if reverse else -1], carries), ys


def _slice_axis(x: Any, start: int = 0, stop: Optional[int] = None, step: int = 1,
                axis: int = 0) -> Any:
    every, part = builtins.slice(None), builtins.slice(start, stop, step)
    if axis >= 0:
        return x[(every,) * axis + (part,)]
    return x[(Ellipsis, part) + (every,) * (-1 - axis)]


def _interleave(a: Any, b: Any, axis: int) -> Any:
    """[a0 b0 a1 b1 ...] along `axis` (a may be one longer than b)."""
    na, nb = a.shape[axis], b.shape[axis]
    head = _slice_axis(a, 0, nb, axis=axis)
    pairs = tf.concat([tf.expand_dims(head, axis + 1 if axis >= 0 else axis),
                       tf.expand_dims(b, axis + 1 if axis >= 0 else axis)],
                      axis=axis + 1 if axis >= 0 else axis)
    dims = list(shape(head))
    dims[axis] = 2 * nb
    merged = tf.reshape(pairs, dims)
    if na == nb + 1:
        merged = tf.concat([merged, _slice_axis(a, nb, None, axis=axis)], axis=axis)
    return merged


def _sequential_scan(combine: Callable, flat: list, axis: int) -> list:
    """The prefix scan one element after another (tf.scan), for an axis whose length only
    the running graph knows: f sees slices that keep the axis, at length 1. The same values
    as the odd/even recursion up to rounding (the order of the combines differs)."""
    rank = flat[0].shape.rank
    axis = axis % rank
    perm = [axis] + [i for i in range(rank) if i != axis]
    moved = [tf.transpose(e, perm) for e in flat]

    def step(acc: list, x: list) -> list:
        out = combine([tf.expand_dims(v, axis) for v in acc], [tf.expand_dims(v, axis) for v in x])
        return [tf.squeeze(v, [axis]) for v in out]
    firsts = [m[0] for m in moved]
    rests = tf.scan(step, [m[1:] for m in moved], initializer=firsts)
    inverse = sorted(range(rank), key=perm.__getitem__)
    return [tf.transpose(tf.concat([first[None], rest], axis=0), inverse)
            for first, rest in zip(firsts, rests)]


def _associative_scan(f: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Parallel prefix scan of the associative `f` along `axis`: the odd/even recursion of
    Keras's TF backend where the length is known while tracing, else one after another."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    flat = [tf.convert_to_tensor(e) for e in nest.flatten(elems)]
    if reverse:
        flat = [tf.reverse(e, [axis]) for e in flat]
    lengths = [e.shape[axis] for e in flat]
    if any(n != lengths[0] for n in lengths[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[list(e.shape) for e in flat]})")

    def combine(a: list, b: list) -> list:
        return nest.flatten(f(nest.pack_sequence_as(elems, a), nest.pack_sequence_as(elems, b)))

    if lengths[0] is None:
        scanned = _sequential_scan(combine, flat, axis)
        if reverse:
            scanned = [tf.reverse(s, [axis]) for s in scanned]
        return nest.pack_sequence_as(elems, scanned)

    def scan(level: list) -> list:
        n = level[0].shape[axis]
        if n < 2:
            return level
        reduced = combine([_slice_axis(e, 0, -1, 2, axis) for e in level],
                          [_slice_axis(e, 1, None, 2, axis) for e in level])
        odd = scan(reduced)
        if n % 2 == 0:
            evens = combine([_slice_axis(o, 0, -1, axis=axis) for o in odd],
                            [_slice_axis(e, 2, None, 2, axis) for e in level])
        else:
            evens = combine(odd, [_slice_axis(e, 2, None, 2, axis) for e in level])
        evens = [tf.concat([_slice_axis(e, 0, 1, axis=axis), r], axis=axis)
                 for e, r in zip(level, evens)]
        return [_interleave(e, o, axis) for e, o in zip(evens, odd)]

    scanned = scan(flat)
    if reverse:
        scanned = [tf.reverse(s, [axis]) for s in scanned]
    return nest.pack_sequence_as(elems, scanned)


def _switch(index: Any, branches: list, *operands: Any) -> Any:
    """branches[index](*operands), the index clipped into range."""
    index = tf.clip_by_value(_convert_to_tensor(index, "int32"), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda b=b: b(*operands) for b in branches])


def _while_loop(cond: Callable, body: Callable, loop_vars: Any,
                maximum_iterations: Optional[int] = None) -> Any:
    is_tuple = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def step(*args: Any) -> tuple:
        out = body(*args)
        return tuple(out) if is_tuple else (out,)
    outputs = tf.while_loop(cond, step, loop_vars, maximum_iterations=maximum_iterations)
    return outputs if is_tuple else outputs[0]


def _fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any) -> Any:
    return tf.while_loop(lambda i, val: i < upper, lambda i, val: (i + 1, body_fun(i, val)),
                         (lower, init_val))[1]


# ---------------------------------------------------------------- the namespace

associative_scan = keras_op("AssociativeScan", _associative_scan)
cast = keras_op("Cast", _cast)
cdist = keras_op("CDist", _cdist)
cond = keras_op("Cond", _cond)
convert_to_tensor = keras_op("ConvertToTensor", _convert_to_tensor)
erf = keras_op("Erf", _erf)
erfc = keras_op("Erfc", _erfc)
erfinv = keras_op("Erfinv", _erfinv)
extract_sequences = keras_op("ExtractSequences", _extract_sequences)
fft = keras_op("FFT", _fft)
fft2 = keras_op("FFT2", _fft2)
fori_loop = keras_op("ForiLoop", _fori_loop)
ifft2 = keras_op("IFFT2", _ifft2)
in_top_k = keras_op("InTopK", _in_top_k)
irfft = keras_op("IRFFT", _irfft)
istft = keras_op("ISTFT", _istft)
logdet = keras_op("Logdet", _logdet)
logsumexp = keras_op("Logsumexp", _logsumexp)
map = keras_op("Map", _map)  # noqa: A001 - Keras's name
rearrange = keras_op("Rearrange", _rearrange)
rfft = keras_op("RFFT", _rfft)
rsqrt = keras_op("Rsqrt", _rsqrt)
saturate_cast = keras_op("SaturateCast", _saturate_cast)
scan = keras_op("Scan", _scan)
scatter = keras_op("Scatter", _scatter)
segment_max = keras_op("SegmentMax", _segment_op(tf.math.segment_max,
                                                 tf.math.unsorted_segment_max, False))
segment_min = keras_op("SegmentMin", _segment_op(tf.math.segment_min,
                                                 tf.math.unsorted_segment_min, False))
segment_prod = keras_op("SegmentProd", _segment_op(tf.math.segment_prod,
                                                   tf.math.unsorted_segment_prod, False))
segment_sum = keras_op("SegmentSum", _segment_op(tf.math.segment_sum,
                                                 tf.math.unsorted_segment_sum, True))
slice = keras_op("Slice", _slice)  # noqa: A001 - Keras's name
slice_update = keras_op("SliceUpdate", _slice_update)
stft = keras_op("STFT", _stft)
stop_gradient = keras_op("StopGradient", _stop_gradient)
switch = keras_op("Switch", _switch)
top_k = keras_op("TopK", _top_k)
unstack = keras_op("Unstack", _unstack)
vectorized_map = keras_op("VectorizedMap", _vectorized_map)
view_as_complex = keras_op("ViewAsComplex", _view_as_complex)
view_as_real = keras_op("ViewAsReal", _view_as_real)
while_loop = keras_op("WhileLoop", _while_loop)

__all__ = ["associative_scan", "cast", "cdist", "cond", "convert_to_numpy",
           "convert_to_tensor", "custom_gradient", "dtype", "erf", "erfc", "erfinv",
           "extract_sequences", "fft", "fft2", "fori_loop", "ifft2", "in_top_k", "irfft",
           "is_tensor", "istft", "logdet", "logsumexp", "map", "rearrange", "rfft", "rsqrt",
           "saturate_cast", "scan", "scatter", "scatter_update", "segment_max", "segment_min",
           "segment_prod", "segment_sum", "shape", "slice", "slice_update", "stft",
           "stop_gradient", "switch", "top_k", "unstack", "vectorized_map", "view_as_complex",
           "view_as_real", "while_loop"]
