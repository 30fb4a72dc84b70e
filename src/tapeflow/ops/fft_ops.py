"""Fast Fourier transforms over the innermost 1, 2 or 3 axes (`tf.signal.fft`, `rfft`, ...).

The kernels are SciPy's pocketfft (`scipy.fft`, imported on first use), which computes
complex64 in single precision as TensorFlow's own FFT does (the bits may differ in the last
place). Every transform is linear, so forward mode pushes tangents through the op itself.

Reverse mode, in the backward pass's holomorphic form (complex cotangents are the conjugates
of TensorFlow's, see `autodiff.tape`): a complex-linear op's cotangent is its transpose
applied to g, and the DFT matrix is symmetric, so FFT's rule is FFT and IFFT's is IFFT. RFFT
(real in) takes the real part of the transpose: zero-pad g to the full spectrum, FFT, real.
IRFFT's rule is TensorFlow's (the RFFT of g, times 1 or 2 for the bins Hermitian symmetry
counts once or twice, over the size), conjugated. The wrappers crop or zero-pad the input to
`fft_length` with ops of their own, so the primitives see exactly `fft_length` (the half
spectrum on IRFFT's last axis) and their rules are exact adjoints; TensorFlow's rules are the
same numbers where they apply, and fail when the input is longer than `fft_length`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind, dims_text
from tapeflow.framework.abstract import ShapedArray, shape_error
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import read_at_run_time, reads_static, static_value
from tapeflow.ops.array_ops import (range as range_, shape as shape_of, slice as slice_,
                                    slice_tensor, stack, transpose)
from tapeflow.ops.manip_ops import pad
from tapeflow.ops.math_ops import (cast, conj, equal, floordiv, logical_and, logical_or, minimum,
                                   multiply, real, where)
from tapeflow.ops.reduce_ops import reduce_prod

_SUFFIX = {1: "", 2: "2D", 3: "3D"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _scipy_fft():
    import scipy.fft  # first use only: keeps `import tapeflow` fast
    return scipy.fft


def _axes(rank: int) -> tuple:
    return tuple(range(-rank, 0))


def _check_rank(op_name: str, rank: int, avals: tuple) -> None:
    x = avals[0]
    if x.shape is not None and len(x.shape) < rank:
        raise shape_error(op_name, avals, f"Shape must be at least rank {rank} but is rank "
                                          f"{len(x.shape)}")


# -- complex to complex ----------------------------------------------------------------------------

def _c2c_kernel(rank: int, inverse: bool):
    def kernel(x: np.ndarray) -> np.ndarray:
        if x.size == 0:
            return np.zeros(x.shape, x.dtype)
        transform = _scipy_fft().ifftn if inverse else _scipy_fft().fftn
        return transform(x, axes=_axes(rank))
    return kernel


def _c2c_rule(op_name: str, rank: int):
    def rule(x: ShapedArray) -> ShapedArray:
        _check_rank(op_name, rank, (x,))
        return ShapedArray(x.shape, x.dtype)
    return rule


def _c2c(rank: int, inverse: bool) -> Primitive:
    name = ("IFFT" if inverse else "FFT") + _SUFFIX[rank]
    prim = Primitive(name, _c2c_kernel(rank, inverse), shape_rule=_c2c_rule(name, rank),
                     linear=True, batch_safe=True)
    return prim.defvjp(lambda g, ans, x: bind(prim, (g,)))   # the DFT matrix is symmetric


_FFT = {rank: _c2c(rank, False) for rank in (1, 2, 3)}
_IFFT = {rank: _c2c(rank, True) for rank in (1, 2, 3)}


# -- real to complex and back ------------------------------------------------------------------

def _half(fft_length: tuple) -> tuple:
    """The dims of a real signal's half spectrum: the last one is n // 2 + 1."""
    return fft_length[:-1] + (fft_length[-1] // 2 + 1,)


def _rfft_kernel(rank: int):
    def kernel(x: np.ndarray, fft_length: tuple) -> np.ndarray:
        if x.size == 0:
            return np.zeros(x.shape[:-rank] + _half(fft_length), _COMPLEX_OF[x.dtype])
        return _scipy_fft().rfftn(x, s=fft_length, axes=_axes(rank))
    return kernel


def _irfft_kernel(rank: int):
    def kernel(y: np.ndarray, fft_length: tuple) -> np.ndarray:
        if y.size == 0:
            return np.zeros(y.shape[:-rank] + fft_length, _REAL_OF[y.dtype])
        return _scipy_fft().irfftn(y, s=fft_length, axes=_axes(rank))
    return kernel


def _r2c_rule(op_name: str, rank: int, inverse: bool):
    def rule(x: ShapedArray, fft_length: tuple) -> ShapedArray:
        _check_rank(op_name, rank, (x,))
        dtype = _REAL_OF[x.dtype] if inverse else _COMPLEX_OF[x.dtype]
        if x.shape is None:
            return ShapedArray(None, dtype)
        dims = fft_length if inverse else _half(fft_length)
        return ShapedArray(x.shape[:-rank] + dims, dtype)
    return rule


def _rfft_vjp(rank: int):
    def rule(g: Tensor, ans: Tensor, x: Tensor, fft_length: tuple) -> Tensor:
        # The transpose of "keep the half spectrum": zeros for the dropped bins.
        paddings = [[0, 0]] * (g._value.ndim - 1) + [[0, fft_length[-1] - g._value.shape[-1]]]
        return real(bind(_FFT[rank], (pad(g, paddings),)))
    return rule


def _irfft_vjp(rank: int):
    def rule(g: Tensor, ans: Tensor, y: Tensor, fft_length: tuple) -> Tensor:
        n = fft_length[-1]
        weights = np.full(n // 2 + 1, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        weights = (weights / np.prod(fft_length)).astype(y._value.dtype)
        spectrum = bind(_RFFT[rank], (g,), {"fft_length": fft_length})
        return conj(multiply(spectrum, weights))   # (this order gives TF's +0 imaginary parts)
    return rule


def _r2c(rank: int, inverse: bool) -> Primitive:
    name = ("IRFFT" if inverse else "RFFT") + _SUFFIX[rank]
    kernel = _irfft_kernel(rank) if inverse else _rfft_kernel(rank)
    prim = Primitive(name, kernel, shape_rule=_r2c_rule(name, rank, inverse), linear=True,
                     batch_safe=True)
    return prim.defvjp(_irfft_vjp(rank) if inverse else _rfft_vjp(rank))


_RFFT = {rank: _r2c(rank, False) for rank in (1, 2, 3)}
_IRFFT = {rank: _r2c(rank, True) for rank in (1, 2, 3)}


# -- fft_length read when a traced graph runs ---------------------------------------------------
# The same transforms with fft_length a run-time input (TF's): the kernel crops or zero-pads the
# input itself (SciPy's `s`, as TF's kernels), so the rules add the transpose of that fit: the
# cotangent cropped or zero-padded back to the input's shape.

def _run_time_length(length: np.ndarray, op_name: str) -> tuple:
    return _positive(tuple(int(d) for d in np.asarray(length).reshape(-1)), op_name)


def _run_time_rule(op_name: str, rank: int, inverse: bool):
    def rule(x: ShapedArray, length: ShapedArray) -> ShapedArray:
        _check_rank(op_name, rank, (x,))
        dtype = _REAL_OF[x.dtype] if inverse else _COMPLEX_OF[x.dtype]
        return ShapedArray(None if x.shape is None else x.shape[:-rank] + (None,) * rank, dtype)
    return rule


def _fit_back(t: Tensor, like: Tensor) -> Tensor:
    """`t` cropped or zero-padded at the end of each axis to `like`'s shape (as the graph
    runs): the transpose of the kernel's own fit of `like`."""
    common = minimum(shape_of(t), shape_of(like))
    kept = slice_(t, 0 * common, common)
    return pad(kept, stack([0 * common, shape_of(like) - common], axis=1))


def _hermitian_weights(length: Tensor, dtype: Any) -> Tensor:
    """IRFFT's rule's weights as ops: 1 for bin 0 (and bin n / 2 of an even n), else 2,
    over the transform's size."""
    n = length[-1]
    bins = range_(floordiv(n, 2) + 1)
    once = logical_or(equal(bins, 0), logical_and(equal(n % 2, 0), equal(bins, n // 2)))
    weights = where(once, 1.0, 2.0)
    return cast(weights / cast(reduce_prod(length), weights.dtype), dtype)


def _r2c_run_time(rank: int, inverse: bool) -> Primitive:
    name = ("IRFFT" if inverse else "RFFT") + _SUFFIX[rank]
    transform = _irfft_kernel(rank) if inverse else _rfft_kernel(rank)

    def kernel(x: np.ndarray, length: np.ndarray) -> np.ndarray:
        return transform(x, _run_time_length(length, name))

    return Primitive(name, kernel, shape_rule=_run_time_rule(name, rank, inverse),
                     register=False)   # a variant of the registered RFFT/IRFFT primitive


_RFFT_RUN_TIME = {rank: _r2c_run_time(rank, False) for rank in (1, 2, 3)}
_IRFFT_RUN_TIME = {rank: _r2c_run_time(rank, True) for rank in (1, 2, 3)}


def _rfft_run_time_vjp(rank: int):
    def rule(g: Tensor, ans: Tensor, x: Tensor, length: Tensor) -> tuple:
        extra = length[-1] - shape_of(g)[-1]     # the dropped bins: zeros
        full = pad(g, [[0, 0]] * (len(g.shape) - 1) + [[0, extra]])
        return _fit_back(real(bind(_FFT[rank], (full,))), x), None
    return rule


def _irfft_run_time_vjp(rank: int):
    def rule(g: Tensor, ans: Tensor, y: Tensor, length: Tensor) -> tuple:
        spectrum = bind(_RFFT_RUN_TIME[rank], (g, length))
        weights = _hermitian_weights(length, y.dtype)
        return _fit_back(conj(multiply(spectrum, weights)), y), None
    return rule


for _rank in (1, 2, 3):
    _RFFT_RUN_TIME[_rank].defvjp(_rfft_run_time_vjp(_rank))
    _IRFFT_RUN_TIME[_rank].defvjp(_irfft_run_time_vjp(_rank))


def _bind_run_time(prims: dict, x: Tensor, fft_length: Any, rank: int) -> Tensor:
    length = convert_to_tensor(fft_length, dtype_hint=np.int32)
    if length._value.shape is not None and length._value.shape != (rank,):
        raise ValueError(f"Shape must be rank 1 but is rank {len(length._value.shape)} for "
                         f"'{prims[rank].name}'" if len(length._value.shape) != 1 else
                         f"Dimension must be {rank} but is {length._value.shape[0]} for "
                         f"'{prims[rank].name}'")
    return bind(prims[rank], (x, length))


# -- the public ops ------------------------------------------------------------------------------

def _complex_op(prim: Primitive, rank: int):
    def op(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF's name
        x = convert_to_tensor(input, dtype_hint=np.complex64)
        if x._value.dtype.kind != "c":
            raise InvalidArgumentError(
                f"Value for attr 'Tcomplex' of {cpp_name(x.dtype)} is not in the list of "
                f"allowed values: complex64, complex128\n\t; NodeDef: {{{{node {prim.name}}}}}"
                f"; Op<name={prim.name}; signature=input:Tcomplex -> output:Tcomplex; "
                f"attr=Tcomplex:type,default=DT_COMPLEX64,allowed=[DT_COMPLEX64, "
                f"DT_COMPLEX128]> [Op:{prim.name}]")
        shape = x._value.shape
        if shape is not None and len(shape) < rank and not hasattr(x, "_graph"):
            raise InvalidArgumentError(f"Input must have rank of at least {rank} but got: "
                                       f"{dims_text(shape)} [Op:{prim.name}]")
        return bind(prim, (x,))
    return op


def _fft_length(fft_length: Any, inferred: Any, rank: int, op_name: str) -> tuple:
    """`fft_length` as a tuple of `rank` positive ints (`inferred()` when None)."""
    if fft_length is None:
        return inferred()
    value = static_value(fft_length, f"{op_name}: fft_length", np.asarray)
    if value.ndim == 0:
        raise TypeError("'numpy.int32' object is not iterable")  # TF's wrapper's failure
    if value.shape != (rank,):
        raise InvalidArgumentError(f"fft_length must have shape [{rank}] [Op:{op_name}]")
    return _positive(tuple(int(d) for d in value), op_name)


def _positive(fft_length: tuple, op_name: str) -> tuple:
    # TensorFlow's kernel aborts the process on an empty transform; tapeflow refuses it.
    if any(d <= 0 for d in fft_length):
        raise InvalidArgumentError(f"fft_length must be positive, got {list(fft_length)} "
                                   f"[Op:{op_name}]")
    return fft_length


def _inner_dims(x: Tensor, rank: int, op_name: str) -> tuple:
    dims = x._value.shape[-rank:]
    if None in dims:
        raise NotImplementedError(
            f"{op_name}: tapeflow needs fft_length where the input's inner dims are unknown "
            f"while tracing (input shape {dims_text(x._value.shape)}); pass fft_length.")
    return tuple(dims)


def _fit(x: Tensor, dims: tuple) -> Tensor:
    """`x` cropped or zero-padded at the end of its innermost axes to `dims` (as the
    kernels of TensorFlow's RFFT and IRFFT do), with differentiable ops. An axis of unknown
    size is padded by its target and then cropped."""
    shape = x._value.shape
    rank = len(shape)
    paddings = [[0, 0] for _ in shape]
    crop = False
    for axis, target in zip(range(rank - len(dims), rank), dims):
        size = shape[axis]
        if size is None or size < target:
            paddings[axis][1] = target if size is None else target - size
        crop = crop or size is None or size > target
    if any(after for _, after in paddings):
        x = pad(x, paddings)
    if crop:
        key = (slice(None),) * (rank - len(dims)) + tuple(slice(0, d) for d in dims)
        x = slice_tensor(x, key)
    return x


def _check_input(x: Tensor, rank: int, allowed: dict, what: str) -> None:
    if x._value.dtype not in allowed:
        raise ValueError(f"{what} requires tf.{' or tf.'.join(d.name for d in allowed)} "
                         f"inputs, got: {x!s}")
    shape = x._value.shape
    if shape is not None and len(shape) < rank:
        raise ValueError(f"Shape {tuple(shape)} must have rank at least {rank}")


def _rfft_op(rank: int):
    prim = _RFFT[rank]

    @reads_static
    def op(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input_tensor, dtype_hint=np.float32)
        _check_input(x, rank, _COMPLEX_OF, "RFFT")
        if read_at_run_time(fft_length):   # TF's run-time input
            return _bind_run_time(_RFFT_RUN_TIME, x, fft_length, rank)
        length = _fft_length(fft_length, lambda: _positive(_inner_dims(x, rank, prim.name),
                                                           prim.name), rank, prim.name)
        return bind(prim, (_fit(x, length),), {"fft_length": length})
    return op


def _irfft_op(rank: int):
    prim = _IRFFT[rank]

    def inferred(y: Tensor) -> tuple:
        dims = _inner_dims(y, rank, prim.name)
        return _positive(dims[:-1] + (2 * (dims[-1] - 1),), prim.name)

    @reads_static
    def op(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
        y = convert_to_tensor(input_tensor, dtype_hint=np.complex64)
        _check_input(y, rank, _REAL_OF, "IRFFT")
        if read_at_run_time(fft_length):   # TF's run-time input
            return _bind_run_time(_IRFFT_RUN_TIME, y, fft_length, rank)
        length = _fft_length(fft_length, lambda: inferred(y), rank, prim.name)
        return bind(prim, (_fit(y, _half(length)),), {"fft_length": length})
    return op


fft = tf_export("signal.fft")(_complex_op(_FFT[1], 1))
ifft = tf_export("signal.ifft")(_complex_op(_IFFT[1], 1))
fft2d = tf_export("signal.fft2d")(_complex_op(_FFT[2], 2))
ifft2d = tf_export("signal.ifft2d")(_complex_op(_IFFT[2], 2))
fft3d = tf_export("signal.fft3d")(_complex_op(_FFT[3], 3))
ifft3d = tf_export("signal.ifft3d")(_complex_op(_IFFT[3], 3))
rfft = tf_export("signal.rfft")(_rfft_op(1))
irfft = tf_export("signal.irfft")(_irfft_op(1))
rfft2d = tf_export("signal.rfft2d")(_rfft_op(2))
irfft2d = tf_export("signal.irfft2d")(_irfft_op(2))
rfft3d = tf_export("signal.rfft3d")(_rfft_op(3))
irfft3d = tf_export("signal.irfft3d")(_irfft_op(3))

_DOCS = {
    "fft": "The discrete Fourier transform over the innermost axis of a complex tensor.",
    "ifft": "The inverse discrete Fourier transform over the innermost axis.",
    "rfft": "The Fourier transform of a real signal over its innermost axis: the "
            "fft_length // 2 + 1 non-negative frequencies (float32 gives complex64).",
    "irfft": "The real signal of length fft_length (default 2 * (n - 1)) whose half "
             "spectrum over the innermost axis is the input (complex64 gives float32).",
}
for _rank, _suffix in ((1, ""), (2, "2d"), (3, "3d")):
    _over = "" if _rank == 1 else f" (over the innermost {_rank} axes)"
    for _base, _doc in _DOCS.items():
        _fn = globals()[_base + _suffix]
        _fn.__doc__ = _doc if _rank == 1 else _doc.replace(" over the innermost axis", "") \
            .replace(" over its innermost axis", "").rstrip(".") + _over + "."
        _fn.__name__ = _fn.__qualname__ = _base + _suffix


# -- N-D transforms over chosen axes (tf.signal.fftnd, ...) ------------------------------------
# Composites of the 1-D primitives, one axis at a time (the N-D DFT is separable), so their
# gradients are the 1-D rules'. The argument handling is TensorFlow's Python wrapper's: the
# default fft_length is the whole input shape, the input is zero-padded on its innermost
# len(axes) dims to fft_length first (TF's `_maybe_pad_for_rfft`, applied whatever the axes),
# then the kernel crops or pads each transformed axis to its length. TensorFlow 2.21 has no CPU
# kernel for FFTND/RFFTND (NotFoundError); its GPU kernels compute numpy.fft.fftn's values.

_NORMS = (None, "backward", "forward", "ortho")


def _nd_axes(x: Tensor, axes: Any, op_name: str) -> tuple:
    """The transformed axes, non-negative (default: all of them)."""
    rank = len(x._value.shape)
    if axes is None:
        return tuple(range(rank))
    values = np.asarray(static_value(axes, f"{op_name}: axes", np.asarray)).reshape(-1)
    if len(values) > rank:
        raise ValueError(f"Shape {tuple(x._value.shape)} must have rank at least "
                         f"{len(values)}")
    out = []
    for a in values.tolist():
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"axes {values.tolist()} out of range for an input "
                                       f"of rank {rank} [Op:{op_name}]")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise InvalidArgumentError(f"axes {values.tolist()} must not repeat an axis "
                                   f"[Op:{op_name}]")
    return tuple(out)


def _nd_lengths(x: Tensor, fft_length: Any, axes: tuple, op_name: str,
                inverse_real: bool = False) -> tuple:
    if fft_length is None:
        dims = _inner_dims(x, len(x._value.shape), op_name) if x._value.shape else ()
        if inverse_real and dims:
            dims = dims[:-1] + (max(0, 2 * (dims[-1] - 1)),)
    else:
        dims = tuple(int(d) for d in np.asarray(
            static_value(fft_length, f"{op_name}: fft_length", np.asarray)).reshape(-1))
    if len(dims) != len(axes):
        raise InvalidArgumentError(f"fft_length {list(dims)} and axes {list(axes)} must have "
                                   f"the same length [Op:{op_name}]")
    return _positive(dims, op_name)


def _pad_inner(x: Tensor, dims: tuple) -> Tensor:
    """TensorFlow's wrapper's padding: the innermost len(dims) axes zero-padded (never
    cropped) up to `dims`, unless the input is empty."""
    shape = x._value.shape
    if not dims or 0 in shape or None in shape[-len(dims):]:
        return x
    extra = [max(d - s, 0) for d, s in zip(dims, shape[-len(dims):])]
    if not any(extra):
        return x
    return pad(x, [[0, 0]] * (len(shape) - len(dims)) + [[0, e] for e in extra])


def _normalized(x: Tensor, lengths: tuple, norm: Optional[str], inverse: bool) -> Tensor:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         f'"forward".')
    if norm in (None, "backward"):
        return x
    n = float(np.prod(lengths))
    scale = np.sqrt(n) if norm == "ortho" else n
    if inverse:
        scale = 1.0 / scale
    return multiply(x, cast(1.0 / scale, x.dtype))


def _along(x: Tensor, axis: int, transform: Any) -> Tensor:
    """`transform` (over the innermost axis) applied along `axis`."""
    rank = len(x._value.shape)
    if axis == rank - 1:
        return transform(x)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(transform(transpose(x, perm)), perm)


def _c2c_along(prim: Primitive, length: int) -> Any:
    return lambda t: bind(prim, (_fit(t, (length,)),))


def _complex_nd(inverse: bool) -> Any:
    prim = (_IFFT if inverse else _FFT)[1]
    op_name = "IFFTND" if inverse else "FFTND"

    def op(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
           name: Optional[str] = None) -> Tensor:
        x = convert_to_tensor(input_tensor, dtype_hint=np.complex64)
        if x._value.dtype.kind != "c":
            return _complex_op(prim, 1)(x)    # TF's dtype error
        if read_at_run_time([fft_length, axes]) and x._value.shape is not None:
            return _nd_at_run_time(x, fft_length, axes, norm, "c2c", inverse, op_name)
        axes_ = _nd_axes(x, axes, op_name)
        lengths = _nd_lengths(x, fft_length, axes_, op_name)
        x = _normalized(_pad_inner(x, lengths), lengths, norm, inverse)
        for axis, length in zip(axes_, lengths):
            x = _along(x, axis, _c2c_along(prim, length))
        return x
    return op


def _rfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
            name: Optional[str] = None) -> Tensor:
    x = convert_to_tensor(input_tensor, dtype_hint=np.float32)
    _check_input(x, 0, _COMPLEX_OF, "RFFT")
    if read_at_run_time([fft_length, axes]) and x._value.shape is not None:
        return _nd_at_run_time(x, fft_length, axes, norm, "r2c", False, "RFFTND")
    axes_ = _nd_axes(x, axes, "RFFTND")
    lengths = _nd_lengths(x, fft_length, axes_, "RFFTND")
    x = _normalized(_pad_inner(x, lengths), lengths, norm, False)
    if not axes_:
        return cast(x, _COMPLEX_OF[x._value.dtype])
    last = lengths[-1]
    x = _along(x, axes_[-1], lambda t: bind(_RFFT[1], (_fit(t, (last,)),),
                                            {"fft_length": (last,)}))
    for axis, length in zip(axes_[:-1], lengths[:-1]):
        x = _along(x, axis, _c2c_along(_FFT[1], length))
    return x


def _irfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
             name: Optional[str] = None) -> Tensor:
    y = convert_to_tensor(input_tensor, dtype_hint=np.complex64)
    _check_input(y, 0, _REAL_OF, "IRFFT")
    if read_at_run_time([fft_length, axes]) and y._value.shape is not None:
        return _nd_at_run_time(y, fft_length, axes, norm, "c2r", True, "IRFFTND")
    axes_ = _nd_axes(y, axes, "IRFFTND")
    lengths = _nd_lengths(y, fft_length, axes_, "IRFFTND", inverse_real=True)
    y = _normalized(_pad_inner(y, _half(lengths) if lengths else ()), lengths, norm, True)
    if not axes_:
        return real(y)
    for axis, length in zip(axes_[:-1], lengths[:-1]):
        y = _along(y, axis, _c2c_along(_IFFT[1], length))
    last = lengths[-1]
    return _along(y, axes_[-1], lambda t: bind(_IRFFT[1], (_fit(t, (last // 2 + 1,)),),
                                               {"fft_length": (last,)}))


# -- N-D transforms with fft_length or axes read when a traced graph runs -----------------------
# One primitive runs the whole transform (SciPy's fftn/rfftn/irfftn after TF's wrapper's
# padding); its rule is a second primitive that computes the adjoint the per-axis rules
# above compose to (first derivatives only).

def _nd_run_time_args(x: np.ndarray, axes: np.ndarray, lengths: tuple, kind: str,
                      op_name: str) -> tuple:
    """(axes, lengths) as TF's wrapper and kernel check them; default lengths: x's shape
    (2 * (n - 1) on the last axis of an inverse real transform)."""
    rank = x.ndim
    axes_list = np.asarray(axes).reshape(-1).tolist()
    for a in axes_list:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"axes {axes_list} out of range for an input of rank "
                                       f"{rank} [Op:{op_name}]")
    out_axes = tuple(a % rank for a in axes_list)
    if len(set(out_axes)) != len(out_axes):
        raise InvalidArgumentError(f"axes {axes_list} must not repeat an axis [Op:{op_name}]")
    if lengths:
        dims = tuple(int(d) for d in np.asarray(lengths[0]).reshape(-1))
    else:
        dims = tuple(x.shape)
        if kind == "c2r" and dims:
            dims = dims[:-1] + (max(0, 2 * (dims[-1] - 1)),)
    if len(dims) != len(out_axes):
        raise InvalidArgumentError(f"fft_length {list(dims)} and axes {axes_list} must have "
                                   f"the same length [Op:{op_name}]")
    return out_axes, _positive(dims, op_name)


def _inner_padded(x: np.ndarray, dims: tuple) -> np.ndarray:
    """TF's wrapper's padding (`_pad_inner`) on an array."""
    if not dims or 0 in x.shape:
        return x
    extra = [max(d - s, 0) for d, s in zip(dims, x.shape[-len(dims):])]
    return np.pad(x, [(0, 0)] * (x.ndim - len(dims)) + [(0, e) for e in extra]) \
        if any(extra) else x


def _overlap(t: np.ndarray, shape: tuple, dtype: Any) -> np.ndarray:
    """`t` cropped or zero-padded at the end of each axis to `shape`."""
    out = np.zeros(shape, dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(t.shape, shape))
    out[common] = t[common]
    return out


def _nd_kernel(x: np.ndarray, axes: np.ndarray, *lengths: np.ndarray, kind: str,
               inverse: bool, norm: Optional[str], op_name: str) -> np.ndarray:
    axes, dims = _nd_run_time_args(x, axes, lengths, kind, op_name)
    fft = _scipy_fft()
    norm = norm or "backward"
    if kind == "c2c":
        return (fft.ifftn if inverse else fft.fftn)(_inner_padded(x, dims), s=dims, axes=axes,
                                                    norm=norm).astype(x.dtype)
    if kind == "r2c":
        return fft.rfftn(_inner_padded(x, dims), s=dims, axes=axes, norm=norm).astype(
            _COMPLEX_OF[x.dtype])
    return fft.irfftn(_inner_padded(x, _half(dims)), s=dims, axes=axes, norm=norm).astype(
        _REAL_OF[x.dtype])


def _nd_grad_kernel(g: np.ndarray, x: np.ndarray, axes: np.ndarray, *lengths: np.ndarray,
                    kind: str, inverse: bool, norm: Optional[str], op_name: str) -> np.ndarray:
    """The adjoint of the transform (the holomorphic form of the per-axis rules), cropped or
    zero-padded back to x's shape."""
    axes, dims = _nd_run_time_args(x, axes, lengths, kind, op_name)
    fft, norm = _scipy_fft(), norm or "backward"
    if kind == "c2c":
        t = (fft.ifftn if inverse else fft.fftn)(g, axes=axes, norm=norm)
    elif kind == "r2c":   # zeros for the dropped bins, the full transform, its real part
        full = _overlap(g, g.shape[:axes[-1]] + (dims[-1],) + g.shape[axes[-1] + 1:], g.dtype)
        t = np.real(fft.fftn(full, axes=axes, norm=norm))
    else:   # IRFFT's rule on the last axis, then the inverse transforms' on the others
        n = dims[-1]
        weights = np.full(n // 2 + 1, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        shape = [1] * g.ndim
        shape[axes[-1]] = -1
        t = np.conj(fft.rfft(g, axis=axes[-1]) * weights.reshape(shape) / n)
        if len(axes) > 1:
            t = fft.ifftn(t, axes=axes[:-1])
        total = float(np.prod(dims))
        t = t * {"backward": 1.0, "ortho": np.sqrt(total), "forward": total}[norm]
    return _overlap(t, x.shape, x.dtype)


def _nd_rule(x: ShapedArray, axes: ShapedArray, *lengths: ShapedArray, kind: str,
             inverse: bool, norm: Optional[str], op_name: str) -> ShapedArray:
    dtype = {"c2c": x.dtype, "r2c": _COMPLEX_OF.get(x.dtype, x.dtype),
             "c2r": _REAL_OF.get(x.dtype, x.dtype)}[kind]
    return ShapedArray(None if x.shape is None else (None,) * len(x.shape), dtype)


def _nd_second_order(*_: Any, **__: Any) -> None:
    raise NotImplementedError(
        "The second derivative of an N-D FFT whose fft_length or axes are known only when the "
        "traced graph runs is not built (its first derivative is a NumPy kernel); give them as "
        "Python values to differentiate twice.")


# The first derivative is a kernel of its own; differentiating it again raises (rather than
# giving None, which a non-differentiable primitive would).
_ND_GRAD = Primitive("FFTNDGrad", _nd_grad_kernel, register=False,
                     shape_rule=lambda g, x, *rest, **attrs: ShapedArray(x.shape, x.dtype)
                     ).defvjp(_nd_second_order)
_ND = Primitive("FFTND", _nd_kernel, shape_rule=_nd_rule, register=False).defvjp(
    lambda g, ans, x, axes, *lengths, **attrs: (
        bind(_ND_GRAD, (g, x, axes) + lengths, attrs), None) + (None,) * len(lengths))


def _nd_at_run_time(x: Tensor, fft_length: Any, axes: Any, norm: Optional[str], kind: str,
                    inverse: bool, op_name: str) -> Tensor:
    """The N-D transform with fft_length or axes read when the graph runs (TF's inputs)."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         f'"forward".')
    rank = len(x._value.shape)
    axes = convert_to_tensor(list(range(rank)) if axes is None else axes,
                             dtype_hint=np.int32)
    lengths = () if fft_length is None else (convert_to_tensor(fft_length, dtype_hint=np.int32),)
    return bind(_ND, (x, axes) + lengths, {"kind": kind, "inverse": inverse, "norm": norm,
                                           "op_name": op_name})


fftnd = tf_export("signal.fftnd")(_complex_nd(False))
ifftnd = tf_export("signal.ifftnd")(_complex_nd(True))
rfftnd = tf_export("signal.rfftnd")(_rfftnd)
irfftnd = tf_export("signal.irfftnd")(_irfftnd)
fftnd.__doc__ = ("The N-D discrete Fourier transform of a complex tensor over `axes` (default "
                 "all), each cropped or zero-padded to `fft_length`; `norm` 'backward' "
                 "(default), 'forward' or 'ortho'.")
ifftnd.__doc__ = "The inverse of fftnd (the same arguments)."
rfftnd.__doc__ = ("The N-D Fourier transform of a real tensor over `axes`: the last axis "
                  "keeps fft_length[-1] // 2 + 1 bins (float32 gives complex64).")
irfftnd.__doc__ = ("The real tensor whose rfftnd over `axes` is the input (default "
                   "fft_length: the input shape, 2 * (n - 1) on the last axis).")
for _fn, _name in ((fftnd, "fftnd"), (ifftnd, "ifftnd"), (rfftnd, "rfftnd"),
                   (irfftnd, "irfftnd")):
    _fn.__name__ = _fn.__qualname__ = _name


# TensorFlow's raw ops at the top level (tf.fftnd(input, fft_length, axes)): no norm.
@tf_export("fftnd")
def raw_fftnd(input: Any, fft_length: Any, axes: Any, name: Optional[str] = None  # noqa: A002
              ) -> Tensor:
    """The raw FFTND op: fftnd over `axes` with `fft_length` (TF's tf.fftnd)."""
    return fftnd(input, fft_length, axes)


@tf_export("ifftnd")
def raw_ifftnd(input: Any, fft_length: Any, axes: Any, name: Optional[str] = None  # noqa: A002
               ) -> Tensor:
    """The raw IFFTND op (TF's tf.ifftnd)."""
    return ifftnd(input, fft_length, axes)


@tf_export("rfftnd")
def raw_rfftnd(input: Any, fft_length: Any, axes: Any, Tcomplex: Any = None,  # noqa: A002,N803
               name: Optional[str] = None) -> Tensor:
    """The raw RFFTND op (TF's tf.rfftnd); Tcomplex must match the input's precision."""
    out = rfftnd(input, fft_length, axes)
    _check_pair(Tcomplex, out, "RFFTND")
    return out


@tf_export("irfftnd")
def raw_irfftnd(input: Any, fft_length: Any, axes: Any, Treal: Any = None,  # noqa: A002,N803
                name: Optional[str] = None) -> Tensor:
    """The raw IRFFTND op (TF's tf.irfftnd); Treal must match the input's precision."""
    out = irfftnd(input, fft_length, axes)
    _check_pair(Treal, out, "IRFFTND")
    return out


def _check_pair(dtype: Any, out: Tensor, op_name: str) -> None:
    from tapeflow.framework import dtypes as _dtypes
    if dtype is not None and _dtypes.as_dtype(dtype) != out.dtype:
        raise InvalidArgumentError(f"{op_name}: the output dtype {_dtypes.as_dtype(dtype).name} "
                                   f"does not match the input's precision ({out.dtype.name}) "
                                   f"[Op:{op_name}]")


__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftnd", "ifftnd", "rfftnd", "irfftnd"]
