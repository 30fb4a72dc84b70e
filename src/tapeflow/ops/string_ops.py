"""`tf.strings`: ops on `tf.string` tensors (object arrays of Python bytes).

Every op is a primitive without gradients, so it runs eagerly and in `tf.function` graphs
alike; kernels work element by element on the bytes, with TensorFlow's rules (bytes or UTF-8
characters as the unit, RE2-like regexes through Python's `re` in ASCII mode, printf-style
number formatting). Ops whose TensorFlow result is ragged (`split`, `bytes_split`,
`unicode_decode`, `unicode_split`) return a 1-D tensor for a scalar input and a RaggedTensor
for a vector (traced, its row splits are known when the graph runs).
"""

from __future__ import annotations

import codecs
import re
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import AbstractArray, ShapedArray, broadcast_dims, dims_text
from tapeflow.framework.convert import cpp_name, mismatch_error
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.ragged_tensor import RaggedTensor, fallback as ragged_fallback
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import read_at_run_time, static_value
from tapeflow.ops.control_flow_ops import _format_array

_OBJECT = np.dtype(object)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


# -- shared helpers --------------------------------------------------------------------------------

def _strings(x: Any, op_name: str, index: int = 0) -> Tensor:
    """`x` as a string tensor; a tensor of another dtype raises TF's op-def error."""
    t = convert_to_tensor(x, dtype_hint=_dtypes.string) if isinstance(x, TensorLike) \
        else convert_to_tensor(x, dtype=_dtypes.string)
    if t._value.dtype != _OBJECT:
        raise mismatch_error(op_name, index, _dtypes.string, t.dtype, fixed=True)
    return t


def _map(kernel: Callable[[bytes], Any], x: np.ndarray, dtype: Any = object) -> np.ndarray:
    """`kernel` applied to every element, as an array of `x`'s shape (0-d kept 0-d)."""
    out = np.empty(x.shape, dtype=dtype)
    flat = out.reshape(-1)
    for i, item in enumerate(x.reshape(-1).tolist()):
        flat[i] = kernel(item)
    return out


def _elementwise(name: str, kernel: Callable, dtype: Any = object) -> Primitive:
    """A primitive mapping each string to one value of `dtype` (attrs passed to `kernel`)."""
    def impl(x: np.ndarray, **attrs: Any) -> np.ndarray:
        return _map(lambda s: kernel(s, **attrs), x, dtype)
    return Primitive(name, impl, differentiable=False,
                     shape_rule=lambda x, **attrs: ShapedArray(x.shape, dtype))


def _on_ragged(op: Callable) -> Callable:
    """Lets an elementwise string op take a RaggedTensor (it maps the flat values)."""
    def wrapper(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - TF's name
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(op(input.flat_values, *args, **kwargs))
        return op(input, *args, **kwargs)
    wrapper.__name__, wrapper.__doc__ = op.__name__, op.__doc__
    wrapper.__wrapped__ = op
    return wrapper


def _text(value: bytes) -> str:
    """A string as TF's error messages quote it."""
    return value.decode("utf-8", "backslashreplace")


def _check_unit(unit: str, op_name: str) -> None:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(f"Value for attr 'unit' of \"{unit}\" is not in the list "
                                   f"of allowed values: \"BYTE\", \"UTF8_CHAR\"")


def _utf8_starts(s: bytes) -> list:
    """The byte offsets where UTF-8 characters start (non-continuation bytes), as TF's
    UTF8_CHAR unit counts them."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80]


def _static_text(value: Any, what: str) -> str:
    """A Python str (or bytes, or a constant scalar string tensor) argument as str."""
    if isinstance(value, TensorLike):
        value = static_value(value, what, lambda v: np.asarray(v)[()])
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


# -- join ------------------------------------------------------------------------------------------

def _join_shape(op_name: str, shapes: Sequence) -> Any:
    """TF's StringJoin shape: every non-scalar input has the same shape."""
    out: Any = ()
    for shape in shapes:
        if shape == ():
            continue
        if out == ():
            out = shape
        elif shape is not None and out is not None and len(shape) == len(out) and all(
                a is None or b is None or a == b for a, b in zip(shape, out)):
            out = tuple(a if a is not None else b for a, b in zip(out, shape))
        elif shape is None or out is None:
            out = out if shape is None else shape
        else:
            raise InvalidArgumentError(f"Input shapes do not match: {dims_text(out)} vs. "
                                       f"{dims_text(shape)} [Op:{op_name}]")
    return out


def _join_impl(*arrays: np.ndarray, separator: bytes) -> np.ndarray:
    shape = _join_shape("StringJoin", [a.shape for a in arrays])
    parts = [np.broadcast_to(a, shape).reshape(-1).tolist() for a in arrays]
    out = np.empty(shape, dtype=object)
    out.reshape(-1)[:] = [separator.join(items) for items in zip(*parts)] if parts else [b""]
    return out


def _join_rule(*avals: ShapedArray, separator: bytes) -> ShapedArray:
    try:
        return ShapedArray(_join_shape("StringJoin", [a.shape for a in avals]), _OBJECT)
    except InvalidArgumentError as exc:
        raise ValueError(str(exc)) from None


_JOIN = Primitive("StringJoin", _join_impl, differentiable=False, shape_rule=_join_rule)


@tf_export("strings.join")
def join(inputs: Sequence[Any], separator: str = "", name: Optional[str] = None) -> Tensor:
    """The elementwise concatenation of `inputs` (string tensors of one shape, or scalars)
    with `separator` between them."""
    try:
        tensors = tuple(_strings(x, "StringJoin", i) for i, x in enumerate(inputs))
    except (TypeError, ValueError) as exc:  # RaggedTensors: their flat values joined
        return ragged_fallback(exc, "join", join, inputs, separator)
    return bind(_JOIN, tensors, {"separator": _as_bytes(separator)})


def _as_bytes(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


# -- length, substr ------------------------------------------------------------------------------

def _length(s: bytes, unit: str) -> int:
    return len(s) if unit == "BYTE" else len(_utf8_starts(s))


_LENGTH = _elementwise("StringLength", _length, _INT32)


@tf_export("strings.length")
@_on_ragged
def length(input: Any, name: Optional[str] = None, unit: str = "BYTE") -> Tensor:  # noqa: A002
    """The length of each string, in bytes (`unit="BYTE"`) or UTF-8 characters
    (`"UTF8_CHAR"`), as int32."""
    x = _strings(input, "StringLength")
    _check_unit(unit, "StringLength")
    return bind(_LENGTH, (x,), {"unit": unit})


def _substr_impl(x: np.ndarray, pos: np.ndarray, len_: np.ndarray, unit: str) -> np.ndarray:
    if pos.shape != len_.shape:
        raise InvalidArgumentError(f"pos and len should have the same shape, got: "
                                   f"{dims_text(pos.shape)} vs. {dims_text(len_.shape)} "
                                   f"[Op:Substr]")
    try:
        xs, ps, ls = np.broadcast_arrays(x, pos, len_)
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(x.shape)} vs. "
                                   f"{dims_text(pos.shape)} [Op:Substr]") from None
    out = np.empty(xs.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (s, p, n) in enumerate(zip(xs.reshape(-1).tolist(), ps.reshape(-1).tolist(),
                                      ls.reshape(-1).tolist())):
        starts = _utf8_starts(s) + [len(s)] if unit == "UTF8_CHAR" else None
        size = len(s) if starts is None else len(starts) - 1
        if abs(p) > size:
            raise InvalidArgumentError(f"pos {p} out of range for string b'{_text(s)}' at "
                                       f"index {i} [Op:Substr]")
        p = p + size if p < 0 else p
        end = min(p + max(n, 0), size)
        flat[i] = s[p:end] if starts is None else s[starts[p]:starts[end]]
    return out


def _substr_rule(x: ShapedArray, pos: ShapedArray, len_: ShapedArray,
                 unit: str) -> ShapedArray:
    return ShapedArray(broadcast_dims(x.shape, pos.shape), _OBJECT)


_SUBSTR = Primitive("Substr", _substr_impl, differentiable=False, shape_rule=_substr_rule)


@tf_export("strings.substr")
@_on_ragged
def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE",  # noqa: A002 - TF's names
           name: Optional[str] = None) -> Tensor:
    """The substrings of `len` units from `pos` (negative: from the end) of each string;
    a `pos` beyond a string raises InvalidArgumentError, as TF."""
    x = _strings(input, "Substr")
    _check_unit(unit, "Substr")
    p = convert_to_tensor(pos, dtype_hint=_dtypes.int32)
    n = convert_to_tensor(len, dtype=p.dtype) if not isinstance(len, TensorLike) \
        else convert_to_tensor(len)
    for i, t in ((1, p), (2, n)):
        if t._value.dtype.kind not in "iu":
            raise mismatch_error("Substr", i, _dtypes.int32, t.dtype)
    if p.dtype != n.dtype:
        raise mismatch_error("Substr", 2, p.dtype, n.dtype)
    return bind(_SUBSTR, (x, p, n), {"unit": unit})


# -- case, whitespace ------------------------------------------------------------------------------

def _lower(s: bytes, encoding: str) -> bytes:
    # No encoding: ASCII letters only (bytes.lower is ASCII-only), as TF.
    return s.decode("utf-8").lower().encode("utf-8") if encoding else s.lower()


def _upper(s: bytes, encoding: str) -> bytes:
    return s.decode("utf-8").upper().encode("utf-8") if encoding else s.upper()


_LOWER = _elementwise("StringLower", _lower)
_UPPER = _elementwise("StringUpper", _upper)
# bytes.strip() strips exactly C's ASCII whitespace, as TF's StripAsciiWhitespace.
_STRIP = _elementwise("StringStrip", bytes.strip)


def _check_encoding(encoding: str, op_name: str) -> str:
    encoding = encoding or ""
    if encoding.lower().replace("-", "") not in ("", "utf8"):
        raise InvalidArgumentError(f"encoding must be '' or 'utf-8', got {encoding!r} "
                                   f"[Op:{op_name}]")
    return encoding


@tf_export("strings.lower")
@_on_ragged
def lower(input: Any, encoding: str = "", name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each string in lower case: ASCII letters only, or every letter with
    `encoding="utf-8"`."""
    x = _strings(input, "StringLower")
    return bind(_LOWER, (x,), {"encoding": _check_encoding(encoding, "StringLower")})


@tf_export("strings.upper")
@_on_ragged
def upper(input: Any, encoding: str = "", name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each string in upper case: ASCII letters only, or every letter with
    `encoding="utf-8"`."""
    x = _strings(input, "StringUpper")
    return bind(_UPPER, (x,), {"encoding": _check_encoding(encoding, "StringUpper")})


@tf_export("strings.strip")
@_on_ragged
def strip(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each string without leading and trailing ASCII whitespace."""
    return bind(_STRIP, (_strings(input, "StringStrip"),))


# -- regular expressions ---------------------------------------------------------------------------

def _compile(pattern: str, op_name: str) -> "re.Pattern":
    """The pattern compiled as RE2 reads it where Python agrees: over UTF-8 characters, with
    ASCII-only classes (\\w, \\d, \\s, \\b)."""
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as exc:
        raise InvalidArgumentError(f"Invalid pattern: {pattern}, error: {exc} "
                                   f"[Op:{op_name}]") from None


def _decode(s: bytes) -> str:
    return s.decode("utf-8", "surrogateescape")


def _encode(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _rewriter(rewrite: str) -> Callable:
    """RE2's rewrite string (`\\0`-`\\9` for groups, `\\\\` for a backslash) as a
    replacement function (no Python escapes are read)."""
    pieces: list = []
    i = 0
    while i < len(rewrite):
        c = rewrite[i]
        if c == "\\" and i + 1 < len(rewrite):
            nxt = rewrite[i + 1]
            if nxt.isdigit():
                pieces.append(int(nxt))
            elif nxt == "\\":
                pieces.append("\\")
            else:
                raise InvalidArgumentError(f"Invalid rewrite pattern: {rewrite} "
                                           f"[Op:StaticRegexReplace]")
            i += 2
            continue
        pieces.append(c)
        i += 1

    def replace(match: "re.Match") -> str:
        return "".join(match.group(p) or "" if isinstance(p, int) else p for p in pieces)
    return replace


def _regex_replace(s: bytes, pattern: str, rewrite: str, replace_global: bool) -> bytes:
    compiled = _compile(pattern, "StaticRegexReplace")
    return _encode(compiled.sub(_rewriter(rewrite), _decode(s),
                                count=0 if replace_global else 1))


def _regex_full_match(s: bytes, pattern: str) -> bool:
    return _compile(pattern, "StaticRegexFullMatch").fullmatch(_decode(s)) is not None


_REGEX_REPLACE = _elementwise("StaticRegexReplace", _regex_replace)
_REGEX_FULL_MATCH = _elementwise("StaticRegexFullMatch", _regex_full_match, np.bool_)


@tf_export("strings.regex_replace")
@_on_ragged
def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: Optional[str] = None) -> Tensor:
    """Each string with the matches of `pattern` replaced by `rewrite` (`\\1` for a
    group, `\\0` the whole match); only the first match unless `replace_global`."""
    x = _strings(input, "StaticRegexReplace")
    pattern = _static_text(pattern, "tf.strings.regex_replace: pattern")
    rewrite = _static_text(rewrite, "tf.strings.regex_replace: rewrite")
    _compile(pattern, "StaticRegexReplace")
    _rewriter(rewrite)
    return bind(_REGEX_REPLACE, (x,), {"pattern": pattern, "rewrite": rewrite,
                                       "replace_global": bool(replace_global)})


@tf_export("strings.regex_full_match")
@_on_ragged
def regex_full_match(input: Any, pattern: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Whether each whole string matches `pattern`, as bool."""
    x = _strings(input, "StaticRegexFullMatch")
    pattern = _static_text(pattern, "tf.strings.regex_full_match: pattern")
    _compile(pattern, "StaticRegexFullMatch")
    return bind(_REGEX_FULL_MATCH, (x,), {"pattern": pattern})


# -- numbers ---------------------------------------------------------------------------------------

_INTEGER = re.compile(rb"\s*[+-]?[0-9]+\s*\Z")
_FLOAT = re.compile(rb"\s*[+-]?([0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?"
                    rb"|inf|infinity|nan)\s*\Z", re.IGNORECASE)
# strtod's hexadecimal floats, which TF's parser takes too ("0x10" is 16).
_HEX_FLOAT = re.compile(rb"\s*[+-]?0x([0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(p[+-]?[0-9]+)?\s*\Z",
                        re.IGNORECASE)
_NUMBER_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")


def _to_number_impl(x: np.ndarray, out_type: str) -> np.ndarray:
    np_type = np.dtype(out_type)
    out = np.empty(x.shape, np_type)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1).tolist()):
        flat[i] = _parse_number(s, np_type)
    return out


def _parse_number(s: bytes, np_type: np.dtype) -> Any:
    def fail() -> InvalidArgumentError:
        return InvalidArgumentError(f"StringToNumberOp could not correctly convert string: "
                                    f"{_text(s)} [Op:StringToNumber]")
    if np_type.kind == "f":  # beyond the type's range: +-inf, as TF
        if _FLOAT.match(s):
            return float(s)
        if _HEX_FLOAT.match(s):
            return float.fromhex(s.decode("ascii").strip())
        raise fail()
    if not _INTEGER.match(s):
        raise fail()
    value = int(s)
    info = np.iinfo(np_type)
    if not info.min <= value <= info.max:
        raise fail()
    return value


_TO_NUMBER = Primitive("StringToNumber", _to_number_impl, differentiable=False,
                       shape_rule=lambda x, out_type: ShapedArray(x.shape, out_type))


@tf_export("strings.to_number")
@_on_ragged
def to_number(string_tensor: Any, out_type: Any = _dtypes.float32,
              name: Optional[str] = None) -> Tensor:
    """Each string parsed as a number of `out_type` (float32, float64, int32, int64,
    uint32, uint64); one that does not parse raises InvalidArgumentError, as TF."""
    x = _strings(string_tensor, "StringToNumber")
    dtype = _dtypes.as_dtype(out_type)
    if dtype.name not in _NUMBER_TYPES:
        raise InvalidArgumentError(
            f"Value for attr 'out_type' of {cpp_name(dtype)} is not in the list of allowed "
            f"values: float, double, int32, int64, uint32, uint64")
    return bind(_TO_NUMBER, (x,), {"out_type": dtype.name})


# -- AsString --------------------------------------------------------------------------------------

def _as_string_format(dtype: np.dtype, precision: int, scientific: bool, shortest: bool,
                      width: int, fill: str) -> str:
    """TF's AsString printf format for one element of `dtype` (its checks included)."""
    name = cpp_name(_dtypes.from_numpy(dtype))
    kind = _dtypes.kind_of(dtype)
    if kind not in "fc":
        for flag, what in ((scientific, "scientific"), (shortest, "shortest"),
                           (precision > -1, "precision")):
            if flag:
                raise InvalidArgumentError(f"{what} not supported for datatype {name} "
                                           f"[Op:AsString]")
    if scientific and shortest:
        raise InvalidArgumentError("Cannot select both scientific and shortest notation "
                                   "[Op:AsString]")
    if len(fill) > 1:
        raise InvalidArgumentError("Fill string must be one or fewer characters "
                                   "[Op:AsString]")
    if fill and fill not in " +-0#":
        raise InvalidArgumentError(f"Fill argument not supported: \"{fill}\" [Op:AsString]")
    spec = "%" + fill + (str(width) if width > -1 else "")
    if kind in "fc":
        spec += (f".{precision}" if precision > -1 else "") + \
            ("g" if shortest else "e" if scientific else "f")
    else:
        spec += "d" if kind in "iu" else "s"
    return spec


def _as_string_impl(x: np.ndarray, **attrs: Any) -> np.ndarray:
    if x.dtype == _OBJECT:
        return x.copy()  # TF 2.21 passes strings through
    spec = _as_string_format(x.dtype, **attrs)
    kind = _dtypes.kind_of(x.dtype)
    if kind == "b":  # TF writes bools without the format
        return _map(lambda v: b"true" if v else b"false", x)
    if kind == "c":
        return _map(lambda v: f"({spec % v.real},{spec % v.imag})".encode(), x)
    values = x.astype(np.float64) if kind == "f" else x
    return _map(lambda v: (spec % v).encode(), values)


_AS_STRING = Primitive("AsString", _as_string_impl, differentiable=False,
                       shape_rule=lambda x, **attrs: ShapedArray(x.shape, _OBJECT))


@tf_export("strings.as_string", "as_string")
@_on_ragged
def as_string(input: Any, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: Optional[str] = None) -> Tensor:
    """Each number (or bool) as text, printf-style as TF: `%d` for integers, `%f` for
    floats (`%e` with `scientific`, `%g` with `shortest`), `precision` digits, padded to
    `width` with `fill`."""
    x = convert_to_tensor(input)
    attrs = {"precision": int(precision), "scientific": bool(scientific),
             "shortest": bool(shortest), "width": int(width), "fill": str(fill)}
    if x._value.dtype != _OBJECT:
        _as_string_format(x._value.dtype, **attrs)  # TF's attr errors, before running
    return bind(_AS_STRING, (x,), attrs)


# -- format ----------------------------------------------------------------------------------------

def _format_impl(*arrays: np.ndarray, pieces: tuple, summarize: int) -> np.ndarray:
    values = iter(arrays)
    text = "".join(_format_array(np.asarray(next(values)), summarize) if p is None else p
                   for p in pieces)
    return np.array(text.encode("utf-8"), dtype=object)


_FORMAT = Primitive("StringFormat", _format_impl, differentiable=False,
                    shape_rule=lambda *inputs, **attrs: ShapedArray((), _OBJECT))


@tf_export("strings.format")
def format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,  # noqa: A001
           name: Optional[str] = None) -> Tensor:
    """A scalar string: `template` with each `placeholder` replaced by the next tensor of
    `inputs`, printed as `tf.print` prints it (`summarize` entries at each end)."""
    if isinstance(inputs, (list, tuple)):
        tensors = tuple(convert_to_tensor(t) for t in inputs)
    else:
        tensors = (convert_to_tensor(inputs),)
    parts = template.split(placeholder)
    if len(parts) - 1 != len(tensors):
        raise ValueError(f"The template expects {len(parts) - 1} tensors, but the inputs only "
                         f"has {len(tensors)}. Please ensure the number of placeholders in "
                         f"template matches inputs length.")
    pieces: list = [parts[0]]
    for part in parts[1:]:
        pieces += [None, part]
    return bind(_FORMAT, tensors, {"pieces": tuple(pieces), "summarize": int(summarize)})


# -- reductions ------------------------------------------------------------------------------------

def _reduce_join_impl(x: np.ndarray, *run_time_axis: np.ndarray, axes: Optional[tuple],
                      keepdims: bool, separator: bytes) -> np.ndarray:
    # TF joins with the first listed axis varying fastest (axis=None: in row-major order).
    if run_time_axis:   # the axis input of a traced graph, checked as TF's kernel
        axes = tuple(int(a) for a in np.ravel(run_time_axis[0]))
        _check_join_axes(axes, x.ndim)
    if axes is None:
        axes = order = tuple(range(x.ndim))
    else:
        axes = tuple(a % max(x.ndim, 1) for a in axes)
        order = axes[::-1]
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + list(order)).reshape(
        [x.shape[d] for d in kept] + [-1] if x.size else [x.shape[d] for d in kept] + [0])
    out = _map(lambda row: row, np.empty(moved.shape[:-1], object))
    flat = out.reshape(-1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.shape[-1] else \
        np.empty((flat.size, 0), object)
    for i, row in enumerate(rows):
        flat[i] = separator.join(row.tolist())
    if keepdims:
        out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return out


def _reduce_join_rule(x: ShapedArray, *run_time_axis: ShapedArray, axes: Optional[tuple],
                      keepdims: bool, separator: bytes) -> ShapedArray:
    if x.shape is None or run_time_axis and not keepdims:
        return ShapedArray(None, _OBJECT)
    if run_time_axis:   # which dims are joined is known only as the graph runs
        return ShapedArray((None,) * len(x.shape), _OBJECT)
    axes = tuple(range(len(x.shape))) if axes is None else \
        tuple(a % max(len(x.shape), 1) for a in axes)
    dims = [1 if d in axes else n for d, n in enumerate(x.shape)] if keepdims else \
        [n for d, n in enumerate(x.shape) if d not in axes]
    return ShapedArray(tuple(dims), _OBJECT)


_REDUCE_JOIN = Primitive("ReduceJoin", _reduce_join_impl, differentiable=False,
                         shape_rule=_reduce_join_rule)


@tf_export("strings.reduce_join")
def reduce_join(inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: Optional[str] = None) -> Tensor:
    """The strings joined with `separator` over `axis` (every axis when None)."""
    x = _strings(inputs, "ReduceJoin")
    attrs = {"axes": None, "keepdims": bool(keepdims), "separator": _as_bytes(separator)}
    if read_at_run_time(axis):   # read when the graph runs, as TF's reduction_indices
        return bind(_REDUCE_JOIN, (x, convert_to_tensor(axis, dtype_hint=_dtypes.int32)), attrs)
    if axis is not None:
        attrs["axes"] = tuple(int(a) for a in np.ravel(static_value(
            axis, "tf.strings.reduce_join: axis", np.asarray)))
        rank = x._value.ndim if not isinstance(x._value, AbstractArray) or \
            x._value.shape is not None else None
        if rank is not None:
            _check_join_axes(attrs["axes"], rank)
    return bind(_REDUCE_JOIN, (x,), attrs)


def _check_join_axes(axes: tuple, rank: int) -> None:
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise InvalidArgumentError(f"Invalid reduction dimension {a} for input with "
                                       f"{rank} dimensions. [Op:ReduceJoin]")


def _segment_join_impl(x: np.ndarray, ids: np.ndarray, num_segments: np.ndarray,
                       separator: bytes) -> np.ndarray:
    n = int(num_segments)
    if x.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(f"segment_ids.shape = {dims_text(ids.shape)} is not a "
                                   f"prefix of input.shape = {dims_text(x.shape)} "
                                   f"[Op:UnsortedSegmentJoin]")
    rows = x.reshape((ids.size,) + x.shape[ids.ndim:])
    groups: list = [[] for _ in range(n)]
    for i, segment in enumerate(ids.reshape(-1).tolist()):
        if segment >= n:
            raise InvalidArgumentError(f"segment_ids[{i}] = {segment} is out of range "
                                       f"[0, {n}) [Op:UnsortedSegmentJoin]")
        if segment >= 0:   # negative ids are dropped, as TF
            groups[segment].append(rows[i])
    out = np.empty((n,) + rows.shape[1:], dtype=object)
    for segment, members in enumerate(groups):
        out[segment, ...] = _join_impl(*(np.asarray(m, dtype=object) for m in members),
                                  separator=separator) if members else b""
    return out


def _segment_join_rule(x: ShapedArray, ids: ShapedArray, num_segments: ShapedArray,
                       separator: bytes) -> ShapedArray:
    if x.shape is None or ids.shape is None:
        return ShapedArray(None, _OBJECT)
    return ShapedArray((None,) + x.shape[len(ids.shape):], _OBJECT)


_SEGMENT_JOIN = Primitive("UnsortedSegmentJoin", _segment_join_impl, differentiable=False,
                          shape_rule=_segment_join_rule)


@tf_export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any,
                          separator: str = "", name: Optional[str] = None) -> Tensor:
    """The strings of each segment joined with `separator` in input order (empty for a
    segment with none)."""
    x = _strings(inputs, "UnsortedSegmentJoin")
    ids = convert_to_tensor(segment_ids, dtype_hint=_dtypes.int32)
    n = convert_to_tensor(num_segments, dtype_hint=_dtypes.int32)
    return bind(_SEGMENT_JOIN, (x, ids, n), {"separator": _as_bytes(separator)})


# -- splitting into ragged rows --------------------------------------------------------------------

def _rows_impl(split: Callable[[bytes], list], out_dtype: Any) -> Callable:
    def impl(x: np.ndarray, **attrs: Any) -> tuple:
        rows = [split(s, **attrs) for s in x.reshape(-1).tolist()]
        splits = np.zeros(len(rows) + 1, np.int64)
        np.cumsum([len(r) for r in rows], out=splits[1:])
        values = np.empty(int(splits[-1]), dtype=out_dtype)
        values[:] = [item for row in rows for item in row]
        return values, splits
    return impl


def _rows_rule(out_dtype: Any) -> Callable:
    def rule(x: ShapedArray, **attrs: Any) -> tuple:
        n = None if x.shape is None or None in x.shape else int(np.prod(x.shape)) + 1
        return ShapedArray((None,), out_dtype), ShapedArray((n,), _INT64)
    return rule


def _rows_primitive(name: str, split: Callable, out_dtype: Any) -> Primitive:
    """A primitive splitting each string into a row: (flat values, int64 row splits)."""
    return Primitive(name, _rows_impl(split, out_dtype), multiple_results=True,
                     differentiable=False, shape_rule=_rows_rule(out_dtype))


def _ragged_rows(prim: Primitive, x: Tensor, attrs: dict, op: str) -> Any:
    """The rows of a scalar (a 1-D tensor) or a vector (a RaggedTensor)."""
    shape = x._value.shape
    if shape is None or len(shape) > 1:
        raise NotImplementedError(f"tf.strings.{op}: tapeflow splits scalars and vectors "
                                  f"only; got an input of shape {dims_text(shape)}.")
    values, splits = bind(prim, (x,), attrs)
    if len(shape) == 0:
        return values
    # Traced, the row splits are the op's output, read when the graph runs.
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _split(s: bytes, sep: Optional[bytes], maxsplit: int) -> list:
    return s.split(sep, maxsplit)


_SPLIT = _rows_primitive("StringSplitV2", _split, object)
_BYTES_SPLIT = _rows_primitive("StringBytesSplit", lambda s: [s[i:i + 1] for i in
                                                              range(len(s))], object)


@tf_export("strings.split")
def split(input: Any, sep: Any = None, maxsplit: int = -1,  # noqa: A002 - TF's name
          name: Optional[str] = None) -> Any:
    """Each string split at `sep` (at runs of whitespace when None), at most `maxsplit`
    times: a 1-D tensor for a scalar input, a RaggedTensor for a vector."""
    x = _strings(input, "StringSplitV2")
    sep = _static_text(sep, "tf.strings.split: sep") if sep is not None else ""
    return _ragged_rows(_SPLIT, x, {"sep": _as_bytes(sep) or None,
                                    "maxsplit": int(maxsplit)}, "split")


@tf_export("strings.bytes_split")
def bytes_split(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002
    """Each string split into its bytes: a 1-D tensor for a scalar input, a RaggedTensor
    for a vector."""
    return _ragged_rows(_BYTES_SPLIT, _strings(input, "StringBytesSplit"), {}, "bytes_split")


# -- Unicode ---------------------------------------------------------------------------------------

_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_BAD = "\udfff"  # a lone surrogate: never the result of decoding, so it marks an error


def _mark_error(exc: UnicodeError) -> tuple:
    return _BAD, exc.end


codecs.register_error("tapeflow.strings.mark", _mark_error)


def _codec(encoding: str) -> str:
    if encoding not in _CODECS:
        raise InvalidArgumentError(f"Could not create converter for input encoding: "
                                   f"{encoding}")
    return _CODECS[encoding]


def _code_points(s: bytes, encoding: str, errors: str, replacement_char: int,
                 replace_control_characters: bool) -> list:
    text = s.decode(_CODECS[encoding], "tapeflow.strings.mark")
    out = []
    for ch in text:
        if ch == _BAD:
            if errors == "strict":
                raise InvalidArgumentError("Invalid formatting on input string "
                                           "[Op:UnicodeDecode]")
            if errors == "ignore":
                continue
            out.append(replacement_char)
        elif replace_control_characters and ord(ch) < 0x20:
            out.append(replacement_char)
        else:
            out.append(ord(ch))
    return out


def _chars(s: bytes, encoding: str, **attrs: Any) -> list:
    return [chr(c).encode(_CODECS[encoding], "surrogatepass")
            for c in _code_points(s, encoding, **attrs)]


_DECODE = _rows_primitive("UnicodeDecode", _code_points, np.int32)
_UNICODE_SPLIT = _rows_primitive("UnicodeSplit", _chars, object)


def _decode_attrs(encoding: str, errors: str, replacement_char: int,
                  replace_control_characters: bool) -> dict:
    _codec(encoding)
    if errors not in ("strict", "replace", "ignore"):
        raise InvalidArgumentError(f"Value for attr 'errors' of \"{errors}\" is not in the "
                                   f"list of allowed values: \"strict\", \"replace\", "
                                   f"\"ignore\"")
    return {"encoding": encoding, "errors": errors, "replacement_char": int(replacement_char),
            "replace_control_characters": bool(replace_control_characters)}


@tf_export("strings.unicode_decode")
def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: Optional[str] = None) -> Any:
    """The code points (int32) of each string in `input_encoding` (UTF-8, UTF-16-BE,
    UTF-32-BE): a 1-D tensor for a scalar, a RaggedTensor for a vector."""
    attrs = _decode_attrs(input_encoding, errors, replacement_char, replace_control_characters)
    return _ragged_rows(_DECODE, _strings(input, "UnicodeDecode"), attrs, "unicode_decode")


@tf_export("strings.unicode_split")
def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: Optional[str] = None) -> Any:
    """Each string split into its characters (as strings in the same encoding)."""
    attrs = _decode_attrs(input_encoding, errors, replacement_char, False)
    return _ragged_rows(_UNICODE_SPLIT, _strings(input, "UnicodeSplit"), attrs,
                        "unicode_split")


def _encode_row(row: list, codec: str, errors: str, replacement_char: int) -> bytes:
    chars = []
    for c in row:
        if not (0 <= c <= 0x10FFFF) or 0xD800 <= c <= 0xDFFF:
            if errors == "strict":
                raise InvalidArgumentError("Code point is out of range for Unicode, or is a "
                                           "surrogate. [Op:UnicodeEncode]")
            if errors == "ignore":
                continue
            c = replacement_char
        chars.append(chr(c))
    return "".join(chars).encode(codec)


def _unicode_encode_impl(values: np.ndarray, splits: np.ndarray, encoding: str, errors: str,
                         replacement_char: int) -> np.ndarray:
    codec = _CODECS[encoding]
    flat = values.tolist()
    bounds = splits.tolist()
    out = np.empty(len(bounds) - 1, dtype=object)
    out[:] = [_encode_row(flat[a:b], codec, errors, replacement_char)
              for a, b in zip(bounds[:-1], bounds[1:])]
    return out


def _unicode_encode_dense_impl(values: np.ndarray, **attrs: Any) -> np.ndarray:
    rows = values.reshape(-1, values.shape[-1]) if values.shape[-1] else \
        np.zeros((int(np.prod(values.shape[:-1])), 0), values.dtype)
    n = rows.shape[1]
    splits = np.arange(0, rows.size + 1, max(n, 1), dtype=np.int64)[:rows.shape[0] + 1] \
        if n else np.zeros(rows.shape[0] + 1, np.int64)
    return _unicode_encode_impl(rows.reshape(-1), splits, **attrs).reshape(values.shape[:-1])


_ENCODE = Primitive("UnicodeEncode", _unicode_encode_impl, differentiable=False,
                    shape_rule=lambda values, splits, **attrs: ShapedArray(
                        (None if splits.shape is None or splits.shape[0] is None
                         else splits.shape[0] - 1,), _OBJECT))
_ENCODE_DENSE = Primitive("UnicodeEncodeDense", _unicode_encode_dense_impl,
                          differentiable=False,
                          shape_rule=lambda values, **attrs: ShapedArray(
                              None if values.shape is None else values.shape[:-1], _OBJECT))


@tf_export("strings.unicode_encode")
def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, name: Optional[str] = None) -> Tensor:
    """The strings encoded in `output_encoding` from int32 code points: the innermost
    (possibly ragged) dimension becomes one string."""
    _codec(output_encoding)
    attrs = {"encoding": output_encoding, "errors": errors,
             "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        if input.ragged_rank != 1:
            raise NotImplementedError("tf.strings.unicode_encode: tapeflow encodes "
                                      "RaggedTensors of ragged rank 1 only.")
        values = convert_to_tensor(input.flat_values, dtype=_dtypes.int32)
        return bind(_ENCODE, (values, convert_to_tensor(input.row_splits)), attrs)
    values = convert_to_tensor(input, dtype_hint=_dtypes.int32)
    if values._value.dtype != _INT32:
        raise mismatch_error("UnicodeEncode", 0, _dtypes.int32, values.dtype, fixed=True)
    if values._value.shape is not None and len(values._value.shape) == 0:
        raise ValueError("Rank of input must be known and at least 1.")
    return bind(_ENCODE_DENSE, (values,), attrs)


# -- hashing ---------------------------------------------------------------------------------------

_M64 = (1 << 64) - 1
_K0, _K1, _K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def _rot(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & _M64 if shift else v


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M64
        b = _fetch64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M64
        d = ((_rot(a, 25) + b) * mul) & _M64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _hash_len16(n + (_fetch32(s, 0) << 3), _fetch32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    return _hash_len16((_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64,
                       (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    y = (_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64
    z = _hash_len16(y, (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_fetch64(s, 16) * mul) & _M64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M64
    h = ((z + _fetch64(s, n - 24)) * mul) & _M64
    return _hash_len16((_rot((e + f) & _M64, 43) + _rot(g, 30) + h) & _M64,
                       (e + _rot((f + a) & _M64, 18) + g) & _M64, mul)


def _weak_hash32(s: bytes, i: int, a: int, b: int) -> tuple:
    w, x, y, z = (_fetch64(s, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _M64
    b = _rot((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rot(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 (farmhashna::Hash64) of `s`: TF's string fingerprint."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M64
    z = (_shift_mix((y * _K2 + 113) & _M64) * _K2) & _M64
    v = w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * _K1) & _M64
        y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * _K1) & _M64
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M64
        z = (_rot((z + w[0]) & _M64, 33) * _K1) & _M64
        v = _weak_hash32(s, i, (v[1] * _K1) & _M64, (x + w[0]) & _M64)
        w = _weak_hash32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M64, w[1])
    v = ((v[0] + w[0]) & _M64, v[1])
    w = ((w[0] + v[0]) & _M64, w[1])
    x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * mul) & _M64
    y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * mul) & _M64
    x ^= (w[1] * 9) & _M64
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M64
    z = (_rot((z + w[0]) & _M64, 33) * mul) & _M64
    v = _weak_hash32(s, i, (v[1] * mul) & _M64, (x + w[0]) & _M64)
    w = _weak_hash32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
    z, x = x, z
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M64,
                       (_hash_len16(v[1], w[1], mul) + x) & _M64, mul)


_HASH_FAST = _elementwise("StringToHashBucketFast",
                          lambda s, num_buckets: fingerprint64(s) % num_buckets, _INT64)


@tf_export("strings.to_hash_bucket_fast")
@_on_ragged
def to_hash_bucket_fast(input: Any, num_buckets: int,  # noqa: A002 - TF's name
                        name: Optional[str] = None) -> Tensor:
    """Each string's FarmHash Fingerprint64 modulo `num_buckets`, as int64 (TF's values)."""
    if int(num_buckets) < 1:
        raise InvalidArgumentError("Number of buckets must be at least 1 "
                                   "[Op:StringToHashBucketFast]")
    x = _strings(input, "StringToHashBucketFast")
    return bind(_HASH_FAST, (x,), {"num_buckets": int(num_buckets)})



def _hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's legacy Hash64 (core/lib/hash/hash.cc: MurmurHash64A with TF's seed), which
    StringToHashBucket uses."""
    mul, n = 0xc6a4a7935bd1e995, len(s)
    h = (seed ^ (n * mul)) & _M64
    end = n - n % 8
    for i in range(0, end, 8):
        k = (_fetch64(s, i) * mul) & _M64
        k = ((k ^ (k >> 47)) * mul) & _M64
        h = ((h ^ k) * mul) & _M64
    if end < n:
        h = ((h ^ int.from_bytes(s[end:], "little")) * mul) & _M64
    h = ((h ^ (h >> 47)) * mul) & _M64
    return h ^ (h >> 47)


def _rotl(v: int, b: int) -> int:
    return ((v << b) | (v >> (64 - b))) & _M64


def _sip_rounds(v: list, rounds: int) -> None:
    v0, v1, v2, v3 = v
    for _ in range(rounds):
        v0 = (v0 + v1) & _M64
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _M64
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M64
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M64
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    v[:] = [v0, v1, v2, v3]


def siphash24(k0: int, k1: int, s: bytes) -> int:
    """SipHash-2-4 of `s` under the 128-bit key (k0, k1): TF's StrongKeyedHash."""
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]
    n = len(s)
    end = n - n % 8
    for i in list(range(0, end, 8)) + [None]:
        m = _fetch64(s, i) if i is not None else \
            ((n & 0xFF) << 56) | int.from_bytes(s[end:], "little")
        v[3] ^= m
        _sip_rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _check_buckets(num_buckets: Any, op_name: str) -> int:
    if int(num_buckets) < 1:
        raise InvalidArgumentError(f"Number of buckets must be at least 1 [Op:{op_name}]")
    return int(num_buckets)


_HASH_LEGACY = _elementwise("StringToHashBucket",
                            lambda s, num_buckets: _hash64(s) % num_buckets, _INT64)
_HASH_STRONG = _elementwise("StringToHashBucketStrong",
                            lambda s, num_buckets, key: siphash24(key[0], key[1], s)
                            % num_buckets, _INT64)


@tf_export("strings.to_hash_bucket")
@_on_ragged
def to_hash_bucket(string_tensor: Any, num_buckets: int,
                   name: Optional[str] = None) -> Tensor:
    """Each string's legacy Hash64 (TF's MurmurHash64A variant) modulo `num_buckets`, as
    int64; prefer `to_hash_bucket_fast`."""
    n = _check_buckets(num_buckets, "StringToHashBucket")
    return bind(_HASH_LEGACY, (_strings(string_tensor, "StringToHashBucket"),),
                {"num_buckets": n})


@tf_export("strings.to_hash_bucket_strong")
@_on_ragged
def to_hash_bucket_strong(input: Any, num_buckets: int, key: Sequence[int],  # noqa: A002
                          name: Optional[str] = None) -> Tensor:
    """Each string's keyed SipHash-2-4 (the key: two integers) modulo `num_buckets`, as
    int64 (TF's values)."""
    n = _check_buckets(num_buckets, "StringToHashBucketStrong")
    key = [int(k) for k in key]
    if len(key) != 2:
        raise InvalidArgumentError("Key must have 2 elements [Op:StringToHashBucketStrong]")
    x = _strings(input, "StringToHashBucketStrong")
    return bind(_HASH_STRONG, (x,), {"num_buckets": n,
                                     "key": tuple(k & _M64 for k in key)})


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's FingerprintCat64: combines two 64-bit fingerprints (the hashed feature cross)."""
    mul = 0xc6a4a7935bd1e995
    result = fp1 ^ mul
    result ^= (_shift_mix((fp2 * mul) & _M64) * mul) & _M64
    result = (result * mul) & _M64
    result = (_shift_mix(result) * mul) & _M64
    return _shift_mix(result)


def _hash_cross_impl(*columns: np.ndarray, num_buckets: int, hash_key: int) -> np.ndarray:
    """The hashed cross of dense [batch, 1] columns (one feature per row each), as TF's
    SparseCrossHashed for that case: FingerprintCat64 over the features' hashes (strings
    fingerprinted, integers as their 64-bit pattern), modulo `num_buckets`."""
    rows = [c.reshape(-1).tolist() for c in columns]
    out = np.empty(len(rows[0]), np.int64)
    for i, features in enumerate(zip(*rows)):
        h = hash_key
        for f in features:
            h = fingerprint_cat64(h, fingerprint64(f) if isinstance(f, bytes) else f & _M64)
        out[i] = (h % num_buckets if num_buckets > 0 else h) - (
            1 << 64 if num_buckets <= 0 and h >= 1 << 63 else 0)
    return out.reshape(columns[0].shape)


_HASH_CROSS = Primitive("HashedCrossDense", _hash_cross_impl, differentiable=False,
                        shape_rule=lambda *cols, **attrs: ShapedArray(cols[0].shape, _INT64))


def hashed_cross_dense(columns: Sequence[Tensor], num_buckets: int,
                       hash_key: int = 0xDECAFCAFFE) -> Tensor:
    """The hashed feature cross of equally shaped dense columns of one feature per row
    (TF's `tf.sparse.cross_hashed` on [batch, 1] inputs, densified)."""
    return bind(_HASH_CROSS, tuple(columns), {"num_buckets": int(num_buckets),
                                              "hash_key": int(hash_key)})


# -- ngrams ----------------------------------------------------------------------------------------

def _row_ngrams(row: list, widths: tuple, separator: bytes, pad: tuple, padding_width: int,
                preserve_short: bool) -> list:
    """TF's StringNGrams for one row: every ngram of each width in turn."""
    out = []
    for width in widths:
        pw = width - 1 if padding_width < 0 else padding_width
        left, right = [pad[0]] * min(pw, width - 1), [pad[1]] * min(pw, width - 1)
        items = left + row + right if pw else row
        count = len(items) - width + 1
        out += [separator.join(items[i:i + width]) for i in range(max(count, 0))]
    if not out and preserve_short and row:
        out = [separator.join(left + row + right if padding_width else row)]
    return out


def _ngrams_impl(values: np.ndarray, splits: np.ndarray, **attrs: Any) -> tuple:
    flat, bounds = values.tolist(), splits.tolist()
    rows = [_row_ngrams(flat[a:b], **attrs) for a, b in zip(bounds[:-1], bounds[1:])]
    out_splits = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=out_splits[1:])
    out = np.empty(int(out_splits[-1]), object)
    out[:] = [g for r in rows for g in r]
    return out, out_splits.astype(splits.dtype)


_NGRAMS = Primitive("StringNGrams", _ngrams_impl, multiple_results=True, differentiable=False,
                    shape_rule=lambda values, splits, **attrs: (
                        ShapedArray((None,), _OBJECT), ShapedArray(splits.shape, splits.dtype)))


def ngram_rows(values: Tensor, splits: Tensor, ngram_width: Any, separator: str = " ",
               pad_values: Any = None, padding_width: Optional[int] = None,
               preserve_short_sequences: bool = False) -> tuple:
    """StringNGrams on rows given as (flat values, row splits): the ngrams' (values,
    splits). Runs eagerly and traced (the rows need not be known)."""
    widths = (int(ngram_width),) if not isinstance(ngram_width, (tuple, list)) else \
        tuple(int(w) for w in ngram_width)
    if any(w < 1 for w in widths):
        raise InvalidArgumentError(f"ngram_width must be greater than 0, got {widths}")
    if pad_values is None:
        pad, pw = (b"", b""), 0
    else:
        pad = (pad_values, pad_values) if isinstance(pad_values, (str, bytes)) else \
            tuple(pad_values)
        if len(pad) != 2:
            raise ValueError("pad_values must be a string, tuple or list.")
        pad = tuple(_as_bytes(p) for p in pad)
        pw = -1 if padding_width is None else int(padding_width)
        if pw == 0:
            raise ValueError("padding_width must be greater than 0.")
    return bind(_NGRAMS, (values, splits), {
        "widths": widths, "separator": _as_bytes(separator), "pad": pad,
        "padding_width": pw, "preserve_short": bool(preserve_short_sequences)})


@tf_export("strings.ngrams")
def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None,
           padding_width: Optional[int] = None, preserve_short_sequences: bool = False,
           name: Optional[str] = None) -> Any:
    """The ngrams of each row (the innermost dimension) of `data`, joined with
    `separator`: a RaggedTensor for ragged `data`, a Tensor for dense `data` (whose rows
    must then all give the same number of ngrams)."""
    attrs = dict(ngram_width=ngram_width, separator=separator, pad_values=pad_values,
                 padding_width=padding_width,
                 preserve_short_sequences=preserve_short_sequences)
    if isinstance(data, RaggedTensor):
        if data.ragged_rank != 1:
            return data.with_values(ngrams(data.values, **attrs))
        values, splits = ngram_rows(_strings(data.flat_values, "StringNGrams"),
                                    data.row_splits, **attrs)
        return RaggedTensor.from_row_splits(values, splits, validate=False)
    x = _strings(data, "StringNGrams")
    shape = x._value.shape
    if shape is None or len(shape) == 0 or None in shape:
        raise ValueError("tf.strings.ngrams: tapeflow needs a dense input of known shape "
                         f"and rank >= 1, got {dims_text(shape)}")
    n = shape[-1]
    rows = int(np.prod(shape[:-1]))
    splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * n)
    from tapeflow.ops.array_ops import reshape
    values, out_splits = ngram_rows(reshape(x, [-1]), splits, **attrs)
    width = _uniform_width(out_splits)
    return reshape(values, list(shape[:-1]) + [width])


def _uniform_width(splits: Tensor) -> int:
    """The one row length of dense ngrams (TF requires the rows to agree)."""
    s = static_value(splits, "tf.strings.ngrams of a dense tensor", np.asarray)
    lengths = np.unique(np.diff(s))
    if lengths.size > 1:
        raise InvalidArgumentError("tf.strings.ngrams: the rows of a dense input give "
                                   "different numbers of ngrams")
    return int(lengths[0]) if lengths.size else 0


# -- ragged rows as dense outputs (TextVectorization inside tf.function) ---------------------------

def split_rows(x: Tensor, sep: Optional[str] = None, maxsplit: int = -1) -> tuple:
    """`tf.strings.split` of a vector as (flat values, int64 row splits): unlike the
    RaggedTensor, works traced as well."""
    sep_b = _as_bytes(sep) if sep else None
    return bind(_SPLIT, (x,), {"sep": sep_b, "maxsplit": int(maxsplit)})


def unicode_split_rows(x: Tensor) -> tuple:
    """`tf.strings.unicode_split(x, "UTF-8")` of a vector as (flat values, row splits)."""
    attrs = _decode_attrs("UTF-8", "replace", 65533, False)
    return bind(_UNICODE_SPLIT, (x,), attrs)


def _rows_to_dense_impl(values: np.ndarray, splits: np.ndarray, length: int,
                        default: Any) -> np.ndarray:
    lengths = np.diff(splits)
    width = (int(lengths.max()) if lengths.size else 0) if length < 0 else length
    out = np.full((len(lengths), width), default, dtype=values.dtype)
    for i, (a, b) in enumerate(zip(splits[:-1].tolist(), splits[1:].tolist())):
        take = min(b - a, width)
        out[i, :take] = values[a:a + take]
    return out


_ROWS_TO_DENSE = Primitive("RaggedTensorToTensorRows", _rows_to_dense_impl,
                           differentiable=False,
                           shape_rule=lambda values, splits, length, default: ShapedArray(
                               (None if splits.shape is None or splits.shape[0] is None
                                else splits.shape[0] - 1, None if length < 0 else length),
                               values.dtype))


def rows_to_dense(values: Tensor, splits: Tensor, length: Optional[int] = None,
                  default: Any = 0) -> Tensor:
    """Rows (flat values, row splits) as a dense [rows, length] tensor: cut or padded
    with `default` (length None: the longest row's)."""
    return bind(_ROWS_TO_DENSE, (values, splits),
                {"length": -1 if length is None else int(length), "default": default})


def _row_bincount_impl(ids: np.ndarray, splits: np.ndarray, depth: int,
                       binary: bool) -> np.ndarray:
    rows = len(splits) - 1
    out = np.zeros((rows, depth), np.int64)
    row_of = np.repeat(np.arange(rows), np.diff(splits))
    keep = (ids >= 0) & (ids < depth)
    np.add.at(out, (row_of[keep], ids[keep]), 1)
    return np.minimum(out, 1) if binary else out


_ROW_BINCOUNT = Primitive("RaggedBincountRows", _row_bincount_impl, differentiable=False,
                          shape_rule=lambda ids, splits, depth, binary: ShapedArray(
                              (None if splits.shape is None or splits.shape[0] is None
                               else splits.shape[0] - 1, depth), _INT64))


def row_bincount(ids: Tensor, splits: Tensor, depth: int, binary: bool) -> Tensor:
    """Per-row counts (or presence, `binary`) of the ids in [0, depth) of rows (flat ids,
    row splits), as int64 [rows, depth]: TF's RaggedBincount."""
    return bind(_ROW_BINCOUNT, (ids, splits), {"depth": int(depth), "binary": bool(binary)})


__all__ = ["join", "length", "substr", "lower", "upper", "strip", "regex_replace",
           "regex_full_match", "to_number", "as_string", "format", "reduce_join",
           "unsorted_segment_join", "split", "bytes_split", "unicode_decode", "unicode_split",
           "unicode_encode", "to_hash_bucket_fast", "fingerprint64", "to_hash_bucket",
           "to_hash_bucket_strong", "ngrams", "siphash24", "fingerprint_cat64",
           "hashed_cross_dense", "ngram_rows", "split_rows", "unicode_split_rows",
           "rows_to_dense", "row_bincount"]
