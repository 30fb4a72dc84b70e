"""Reading the pickles inside Keras's dataset files without running any of their code.

The CIFAR batches are Python pickles of a dict holding one uint8 array, and IMDB/Reuters store
ragged sequences as NumPy object arrays, which `.npy` keeps as a pickle. Rebuilding those
arrays names exactly three globals: `numpy.core.multiarray._reconstruct` (`numpy._core` since
NumPy 2), `numpy.ndarray` and `numpy.dtype`; any other global is refused before anything runs,
with Keras's `pickle.UnpicklingError`.

Stricter than Keras: NumPy never sees the file's values. The three names resolve to inert
stand-ins that only record their arguments and BUILD states; an array is then built here from
checked pieces (a plain numeric or object dtype, a shape whose size matches the data, raw
bytes through `np.frombuffer` or a list of Python objects), so a crafted state cannot reach
`ndarray.__setstate__` or `dtype.__setstate__`.
"""

from __future__ import annotations

import io
import math
import pickle
import tokenize
import zipfile
from typing import Any, BinaryIO

import numpy as np

_REFUSAL = ("Refusing to deserialize `{}` while loading a Keras dataset. The file may be "
            "corrupted or malicious.")
# Plain dtypes an array in a dataset pickle may have: object (IMDB/Reuters sequences) and
# fixed-size numbers (CIFAR's uint8 pixels). Structured or subarray dtypes are refused.
_DTYPE_CODES = frozenset({"O4", "O8", "b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8",
                          "f2", "f4", "f8"})
_MAX_RANK = 64


def _text(value: Any) -> Any:
    """A py2 `str` read with encoding='bytes' arrives as bytes; compare it as text."""
    return value.decode("latin1") if isinstance(value, bytes) else value


def _refuse(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"Not an array a Keras dataset pickle holds: {what}.")


class _DtypeSpec:
    """What `numpy.dtype(code, align, copy)` and its BUILD state asked for."""

    __slots__ = ("dtype",)

    def __init__(self, code: Any) -> None:
        code = _text(code)
        if code not in _DTYPE_CODES:
            raise _refuse(f"dtype {code!r}")
        self.dtype = np.dtype(code)

    def __setstate__(self, state: Any) -> None:
        # (version, byte order, subarray, names, fields, elsize, alignment, flags[, metadata])
        if not isinstance(state, tuple) or len(state) not in (8, 9) or state[0] not in (3, 4):
            raise _refuse(f"dtype state {state!r}")
        if any(part is not None for part in state[2:5] + state[8:]) or state[5:7] != (-1, -1):
            raise _refuse("a structured, subarray or sized dtype")
        order = _text(state[1])
        single = self.dtype.itemsize == 1 or self.dtype.kind == "O"
        if order not in (("|", "=") if single else ("<", ">", "=")):
            raise _refuse(f"byte order {order!r} for dtype {self.dtype}")
        if not single:
            self.dtype = self.dtype.newbyteorder(order)


class _ArraySpec:
    """An array `numpy.core.multiarray._reconstruct` began; its BUILD state fills it."""

    __slots__ = ("array",)

    def __init__(self) -> None:
        self.array = None

    def __setstate__(self, state: Any) -> None:
        if self.array is not None:
            raise _refuse("an array built twice")
        self.array = _build_array(state)


def _dtype_stand_in(code: Any, align: Any = False, copy: Any = False) -> _DtypeSpec:
    return _DtypeSpec(code)


_NDARRAY = object()  # numpy.ndarray: only ever the first argument of _reconstruct


def _reconstruct_stand_in(subtype: Any, shape: Any, typecode: Any) -> _ArraySpec:
    # NumPy pickles every array as _reconstruct(ndarray, (0,), b'b') followed by BUILD.
    if subtype is not _NDARRAY or shape != (0,) or _text(typecode) != "b":
        raise _refuse(f"_reconstruct{(subtype, shape, typecode)!r}")
    return _ArraySpec()


_STAND_INS = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct_stand_in,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct_stand_in,
    ("numpy", "ndarray"): _NDARRAY,
    ("numpy", "dtype"): _dtype_stand_in,
}


def _element(item: Any) -> Any:
    """An object array's element: a nested array is used built; no other stand-in passes."""
    if isinstance(item, _ArraySpec):
        return _array_of(item)
    if isinstance(item, _DtypeSpec) or item is _NDARRAY or callable(item):
        raise _refuse("a bare numpy dtype or function as an element")
    return item


def _build_array(state: Any) -> np.ndarray:
    """The array an `ndarray.__setstate__` state describes, from checked pieces."""
    if not isinstance(state, tuple) or len(state) != 5 or state[0] != 1:
        raise _refuse("an ndarray state that is not (1, shape, dtype, is_fortran, data)")
    _, shape, spec, fortran, data = state
    if not (isinstance(shape, tuple) and len(shape) <= _MAX_RANK
            and all(type(d) is int and d >= 0 for d in shape)):
        raise _refuse(f"shape {shape!r}")
    if not isinstance(spec, _DtypeSpec) or fortran not in (0, 1):
        raise _refuse("an ndarray state without a dtype and a fortran flag")
    size, order = math.prod(shape), "F" if fortran else "C"
    if spec.dtype.kind == "O":
        if not isinstance(data, list) or len(data) != size:
            raise _refuse(f"{size} objects for shape {shape}")
        flat = np.empty(size, dtype=object)
        for i, item in enumerate(data):  # item by item: a list must stay one element
            flat[i] = _element(item)
        # NumPy lists an object array's items in C order whatever its layout.
        array = flat.reshape(shape)
        return np.asfortranarray(array) if fortran else array
    if isinstance(data, str):
        data = data.encode("latin1")  # a py2 str read with encoding='latin1'
    if not isinstance(data, bytes) or len(data) != size * spec.dtype.itemsize:
        raise _refuse(f"{size} items of {spec.dtype} for shape {shape}")
    # A writable copy in native byte order, as NumPy's own unpickling gives.
    array = np.frombuffer(bytearray(data), dtype=spec.dtype).reshape(shape, order=order)
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def built(value: Any) -> Any:
    """`value` with its array stand-ins replaced by their arrays: the value itself, or a
    dict's values (a CIFAR batch); deeper ones are left inert (no dataset nests arrays)."""
    if isinstance(value, dict):
        return {key: _array_of(item) for key, item in value.items()}
    return _array_of(value)


def _array_of(value: Any) -> Any:
    if isinstance(value, _ArraySpec):
        if value.array is None:
            raise _refuse("an ndarray without its state")
        return value.array
    return value


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        stand_in = _STAND_INS.get((module, name))
        if stand_in is None:
            raise pickle.UnpicklingError(_REFUSAL.format(f"{module}.{name}"))
        return stand_in

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("A Keras dataset pickle holds no persistent ids.")


def restricted_load(data: bytes, encoding: str = "ASCII") -> Any:
    """The object a dataset pickle holds, arrays built, without running its code.

    Raises `pickle.UnpicklingError` for a refused global and for any stream that is not such a
    pickle (its own error's text, as Keras shows it, for truncated or malformed streams)."""
    try:
        return built(_Unpickler(io.BytesIO(data), encoding=encoding).load())
    except pickle.UnpicklingError:
        raise
    except MemoryError:
        raise
    except Exception as e:  # EOFError, ValueError, ... from a malformed stream
        raise pickle.UnpicklingError(str(e)) from e


def _read_header(fp: BinaryIO) -> tuple:
    """(shape, fortran_order, dtype) of an `.npy` stream, left just after its header."""
    version = np.lib.format.read_magic(fp)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"we only support format version (1,0), (2,0), and (3,0), not "
                         f"{version}")
    # 3.0 differs from 2.0 only in the header's text encoding (UTF-8, not latin1), and the
    # header of a plain array is ASCII in both.
    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
            else np.lib.format.read_array_header_2_0)
    try:
        return read(fp)
    except tokenize.TokenError as e:  # NumPy's parser of Python 2 headers lets it through
        raise ValueError(f"Cannot parse header: {e}") from e


def read_npy(data: bytes) -> np.ndarray:
    """One `.npy` member: numbers with NumPy's reader and pickling off; an object array
    through `restricted_load`, checked against the shape its header declares."""
    fp = io.BytesIO(data)
    shape, fortran, dtype = _read_header(fp)
    if not dtype.hasobject:
        declared, present = math.prod(shape) * dtype.itemsize, len(data) - fp.tell()
        if declared > present:  # refused before NumPy allocates what the header claims
            raise ValueError(f"EOF: reading array data, expected {declared} bytes got "
                             f"{present}")
        fp.seek(0)
        return np.lib.format.read_array(fp, allow_pickle=False)
    if dtype != np.dtype(object):
        raise _refuse(f"the structured object dtype {dtype}")
    array = restricted_load(fp.read())
    if not isinstance(array, np.ndarray) or array.dtype != dtype or array.shape != shape:
        raise _refuse(f"an object array other than the {shape} its header declares")
    return array


def load_npz(path: str) -> dict:
    """Every `.npy` member of an `.npz` archive by name, object arrays read safely (the
    drop-in for `np.load(path, allow_pickle=True)` that IMDB and Reuters need)."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith(".npy"):
                arrays[name[:-len(".npy")]] = read_npy(archive.read(name))
    return arrays
