"""tapeflow's file format for `Dataset.save` / `Dataset.load` and `cache(filename)`: no code.

A file is a NumPy `.npz` archive written and read as a checkpoint is
(`framework.npz_format.write_arrays` / `read_arrays`: an atomic write; a pickle-free read that
checks each member before allocating it, and the manifest of members). Its arrays:

- `__meta__`: a JSON text, `{"format": "tapeflow-dataset" | "tapeflow-cache", "version": 2,
  "num_elements": N, "element_spec": <spec node>}`. A spec node is `{"type": "tensor" |
  "sparse" | "ragged", "shape": [dims, null unknown] | null, "dtype": <a tapeflow dtype
  name>, ...}` or a `"tuple"`, `"dict"` (key/node pairs) or `"namedtuple"` (its type name and
  field names: a new namedtuple class is made from them, as TF's `Dataset.load` does; no class
  is ever looked up by name).
- per flat leaf `j` of the spec and part `p` of its value (a tensor: itself; a SparseTensor:
  indices, values, dense_shape; a RaggedTensor: flat_values, then its row_splits outermost
  first), the N elements' arrays together: `l<j>.p<p>.ranks` (int64 [N]), `.dims` (int64, the
  shapes one after the other) and `.data` (the values raveled and concatenated; strings as
  their bytes, uint8, with `.lengths`, int64, one per string, since bytes may hold NULs).

`save(path)` writes `path/tapeflow-dataset.npz`; `cache(filename)` writes
`filename.tapeflow-cache`. Reading checks everything against `__meta__` before building an
element (format and version, dtype names, member names, ranks, shapes against the spec, sizes
against the data, string lengths, ragged row splits, sparse indices) and raises DataLossError
(TF's class for a corrupt snapshot) for any file tapeflow did not write. The files of tapeflow
before 2026-12 were Python pickles: they are refused unread, since loading one runs code.
TensorFlow cannot read these files, nor tapeflow TensorFlow's snapshots.
"""

from __future__ import annotations

import collections
import json
import keyword
import math
import os
import reprlib
from typing import Any, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from tapeflow.framework.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tapeflow.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tapeflow.framework.tensor import wrap
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.function import TensorSpec
from tapeflow.framework.npz_format import read_arrays, write_arrays

DATASET_FILE = "tapeflow-dataset.npz"
LEGACY_DATASET_FILE = "tapeflow-dataset.pickle"   # tapeflow before 2026-12: never opened
DATASET_FORMAT = "tapeflow-dataset"
CACHE_FORMAT = "tapeflow-cache"
VERSION = 2                  # 1 was the Python pickle
_META_KEY = "__meta__"
_MAX_DEPTH = 100             # spec nesting read from a file; deeper is refused, not recursed
_MAX_RANK = 64               # NumPy's most dimensions
_STRING_STORAGE = np.dtype(np.uint8)
# TF's C++ names of dtypes (DataTypeString), for TF's mismatch messages.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


class _Corrupt(Exception):
    """What is wrong with a file; reported as DataLossError with the file's path."""


# -- writing ----------------------------------------------------------------------------------

def save_dataset(directory: str, element_spec: Any, elements: list) -> None:
    """Writes `elements` (internal nests) and their spec as `directory/DATASET_FILE`."""
    write_elements(os.path.join(directory, DATASET_FILE), DATASET_FORMAT, element_spec,
                   elements)


def write_elements(path: str, fmt: str, element_spec: Any, elements: list) -> None:
    """Writes `elements` (internal nests of `element_spec`) to `path` atomically."""
    meta = {"format": fmt, "version": VERSION, "num_elements": len(elements),
            "element_spec": _spec_to_json(element_spec)}
    arrays = {_META_KEY: np.array(json.dumps(meta))}
    flat_specs = structure.flatten(element_spec)
    flat_elements = [structure.flatten(e) for e in elements]
    for j, spec in enumerate(flat_specs):
        parts = [_parts_of(spec, flat[j]) for flat in flat_elements]
        for p, dtype in enumerate(_part_dtypes(spec)):
            arrays.update(_encode_part(f"l{j}.p{p}", [e[p] for e in parts], dtype))
    write_arrays(path, arrays)


def _spec_to_json(spec: Any) -> dict:
    if isinstance(spec, dict):
        for key in spec:
            if type(key) not in (str, int):
                raise TypeError(f"Dataset.save supports dict keys of type str and int, "
                                f"not {type(key).__name__} ({key!r}).")
        return {"type": "dict", "items": [[k, _spec_to_json(v)] for k, v in spec.items()]}
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        return {"type": "namedtuple", "name": type(spec).__name__,
                "fields": list(spec._fields), "items": [_spec_to_json(v) for v in spec]}
    if isinstance(spec, tuple):
        return {"type": "tuple", "items": [_spec_to_json(v) for v in spec]}
    shape = None if spec.shape.rank is None else spec.shape.as_list()
    if type(spec) is TensorSpec:
        return {"type": "tensor", "shape": shape, "dtype": spec.dtype.name, "name": spec.name}
    if type(spec) is SparseTensorSpec:
        return {"type": "sparse", "shape": shape, "dtype": spec.dtype.name}
    if type(spec) is RaggedTensorSpec:
        return {"type": "ragged", "shape": shape, "dtype": spec.dtype.name,
                "ragged_rank": spec.ragged_rank,
                "row_splits_dtype": spec.row_splits_dtype.name}
    raise TypeError(f"Dataset.save cannot save elements of {spec!r}.")


def _part_dtypes(spec: Any) -> list:
    """The DType of each array part of a value of leaf spec `spec`."""
    if type(spec) is SparseTensorSpec:
        return [_dtypes.int64, spec.dtype, _dtypes.int64]
    if type(spec) is RaggedTensorSpec and spec.ragged_rank > 0:
        return [spec.dtype] + [spec.row_splits_dtype] * spec.ragged_rank
    return [spec.dtype]


def _parts_of(spec: Any, value: Any) -> list:
    """The arrays of one leaf value, in `_part_dtypes` order."""
    if type(value) is SparseTensor:
        return [np.asarray(t._value) for t in (value.indices, value.values, value.dense_shape)]
    if type(value) is RaggedTensor:
        return [np.asarray(value.flat_values._value)] + \
            [np.asarray(s._value) for s in value.nested_row_splits]
    return [np.asarray(value)]


def _storage_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype a part's `.data` is stored in (bfloat16 as its uint16 bits)."""
    if dtype == _dtypes.string:
        return _STRING_STORAGE
    if dtype == _dtypes.bfloat16:
        return np.dtype(np.uint16)
    return np.dtype(dtype.as_numpy_dtype)


def _encode_part(key: str, arrays: list, dtype: Any) -> dict:
    """The arrays of one part of all elements, concatenated (see the module's docstring)."""
    out = {f"{key}.ranks": np.array([a.ndim for a in arrays], np.int64),
           f"{key}.dims": np.array([d for a in arrays for d in a.shape], np.int64)}
    if dtype == _dtypes.string:
        items = [_as_bytes(item) for a in arrays for item in a.ravel()]
        out[f"{key}.lengths"] = np.array([len(b) for b in items], np.int64)
        out[f"{key}.data"] = np.frombuffer(b"".join(items), _STRING_STORAGE)
        return out
    native = np.dtype(dtype.as_numpy_dtype)
    for a in arrays:
        if a.dtype != native:
            raise TypeError(f"Cannot save a {a.dtype} array as a {dtype.name} component.")
    flat = [a.ravel() for a in arrays]
    data = np.concatenate(flat) if flat else np.empty(0, native)
    out[f"{key}.data"] = data.view(_storage_dtype(dtype))
    return out


def _as_bytes(item: Any) -> bytes:
    return item if isinstance(item, bytes) else str(item).encode("utf-8")


# -- reading ----------------------------------------------------------------------------------

def load_dataset(directory: str) -> tuple:
    """(element_spec, elements) of the dataset `save_dataset` wrote to `directory`."""
    path = os.path.join(directory, DATASET_FILE)
    if not os.path.isfile(path):
        if os.path.exists(os.path.join(directory, LEGACY_DATASET_FILE)):
            raise DataLossError(None, None, _legacy_message(directory))
        hint = " (it holds a TensorFlow snapshot, which tapeflow cannot read)" \
            if os.path.exists(os.path.join(directory, "dataset_spec.pb")) else ""
        raise NotFoundError(None, None, f"Could not find metadata file [{directory}] "
                            f"[Op:LoadDataset]{hint}")
    return read_elements(path, DATASET_FORMAT)


def read_cache(path: str, element_spec: Any) -> list:
    """The elements of the `cache(filename)` file `path`, checked against the dataset's
    `element_spec` (InvalidArgumentError, as TF, where they do not fit it)."""
    spec, elements = read_elements(path, CACHE_FORMAT)
    return fit_element_spec(element_spec, spec, elements)


def read_elements(path: str, fmt: str) -> tuple:
    """(element_spec, elements) of the file `write_elements(path, fmt, ...)` wrote.

    NotFoundError when there is no file; DataLossError when it is not such a file, is
    truncated or corrupt, or is in the pickle format of tapeflow before 2026-12."""
    if not os.path.isfile(path):
        raise NotFoundError(None, None, f"Could not find metadata file [{path}] "
                            f"[Op:LoadDataset]")
    if _is_pickle(path):
        raise DataLossError(None, None, _legacy_message(path))
    try:
        arrays = _read_archive(path)
        meta = _read_meta(arrays, fmt)
        spec = _read_spec(meta["element_spec"])
        return spec, _decode_elements(arrays, spec, meta["num_elements"])
    except _Corrupt as e:
        raise DataLossError(None, None, f"Unable to read the dataset file {path}: {e}") from None


def _legacy_message(path: str) -> str:
    return (f"{path} holds a dataset in tapeflow's old file format (a Python pickle, before "
            f"2026-12). The format changed: tapeflow no longer reads pickles, since loading "
            f"one can run any code it contains. Save the dataset again with this tapeflow.")


def _is_pickle(path: str) -> bool:
    """Whether a file starts as the pickles of the old format did (protocol 2 to 5)."""
    with open(path, "rb") as f:
        head = f.read(2)
    return len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def _read_archive(path: str) -> dict:
    """The arrays of the `.npz` at `path`, read as a checkpoint is (pickle-free, each member
    checked before it is allocated, the manifest matched)."""
    try:
        return dict(read_arrays(path))
    except DataLossError as e:
        raise _Corrupt(f"it is not a readable tapeflow archive ({e.message})") from None


def _read_meta(arrays: dict, fmt: str) -> dict:
    """The checked `__meta__` JSON of a file that must be in format `fmt`."""
    text = arrays.get(_META_KEY)
    if text is None or text.dtype.kind != "U" or text.ndim != 0:
        raise _Corrupt("it is not a tapeflow dataset file (no __meta__ text).")
    try:
        meta = json.loads(str(text[()]))
    except (ValueError, RecursionError) as e:
        raise _Corrupt(f"its __meta__ is not JSON ({e}).") from None
    _expect_keys(meta, {"format", "version", "num_elements", "element_spec"}, "__meta__")
    if meta["format"] != fmt:
        raise _Corrupt(f"it is a {_excerpt(meta['format'])} file, not a {fmt!r} file.")
    if meta["version"] != VERSION:
        raise _Corrupt(f"it is of format version {_excerpt(meta['version'])}; this tapeflow "
                       f"reads version {VERSION}.")
    if not _is_int(meta["num_elements"]) or meta["num_elements"] < 0:
        raise _Corrupt(f"its element count {_excerpt(meta['num_elements'])} is not a count.")
    return meta


def _expect_keys(node: Any, keys: set, what: str) -> None:
    if not isinstance(node, dict) or set(node) != keys:
        raise _Corrupt(f"{what} {_excerpt(node)} does not have exactly the keys "
                       f"{sorted(keys)}.")


def _excerpt(value: Any) -> str:
    """A short repr of a value from a file (depth and length bounded: it may be huge)."""
    return _EXCERPT.repr(value)


_EXCERPT = reprlib.Repr()
_EXCERPT.maxlevel, _EXCERPT.maxstring, _EXCERPT.maxother = 3, 60, 60


def _is_int(value: Any) -> bool:
    return type(value) is int


def _read_spec(node: Any) -> Any:
    """The element spec of a file; the spec classes' own checks (a ragged_rank that does not
    fit its shape) count as corruption too."""
    try:
        return _spec_from_json(node, 0)
    except (ValueError, TypeError) as e:
        raise _Corrupt(f"its element_spec is invalid ({e}).") from None


def _spec_from_json(node: Any, depth: int) -> Any:
    """The element spec a JSON node describes, every field checked."""
    if depth > _MAX_DEPTH:
        raise _Corrupt(f"its element_spec is nested deeper than {_MAX_DEPTH} levels.")
    kind = node.get("type") if isinstance(node, dict) else None
    if kind in _LEAF_READERS:
        return _LEAF_READERS[kind](node)
    if kind == "tuple":
        _expect_keys(node, {"type", "items"}, "spec node")
        return tuple(_spec_from_json(v, depth + 1) for v in _as_list(node["items"]))
    if kind == "namedtuple":
        _expect_keys(node, {"type", "name", "fields", "items"}, "spec node")
        items = [_spec_from_json(v, depth + 1) for v in _as_list(node["items"])]
        cls = _namedtuple_class(node["name"], node["fields"])
        if len(items) != len(cls._fields):
            raise _Corrupt(f"namedtuple {node['name']!r} has {len(cls._fields)} fields but "
                           f"{len(items)} items.")
        return cls(*items)
    if kind == "dict":
        _expect_keys(node, {"type", "items"}, "spec node")
        return _dict_spec(_as_list(node["items"]), depth)
    raise _Corrupt(f"spec node {_excerpt(node)} is of no known type.")


def _as_list(value: Any) -> list:
    if not isinstance(value, list):
        raise _Corrupt(f"{_excerpt(value)} is not a list.")
    return value


def _dict_spec(pairs: list, depth: int) -> dict:
    spec = {}
    for pair in pairs:
        if not isinstance(pair, list) or len(pair) != 2 or type(pair[0]) not in (str, int) \
                or pair[0] in spec:
            raise _Corrupt(f"dict item {_excerpt(pair)} is not a new [key, spec] pair.")
        spec[pair[0]] = _spec_from_json(pair[1], depth + 1)
    if len({type(k) for k in spec}) > 1:   # nest sorts a dict's keys: one type only
        raise _Corrupt(f"dict keys {_excerpt(list(spec))} mix strings and ints.")
    return spec


def _namedtuple_class(name: Any, fields: Any) -> type:
    """A new namedtuple class `name(fields)` (TF's `Dataset.load` makes one too): the file's
    names are only checked identifiers, never looked up."""
    names = [name] + (fields if isinstance(fields, list) else [None])
    if not all(isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n)
               and not n.startswith("_") for n in names) or len(set(fields)) != len(fields):
        raise _Corrupt(f"namedtuple {_excerpt(name)} with fields {_excerpt(fields)} has a "
                       f"name that is not a public identifier, or a field twice.")
    return collections.namedtuple(name, fields)


def _shape(node: dict) -> TensorShape:
    dims = node["shape"]
    if dims is None:
        return TensorShape(None)
    if not isinstance(dims, list) or len(dims) > _MAX_RANK or \
            not all(d is None or (_is_int(d) and 0 <= d < 2**63) for d in dims):
        raise _Corrupt(f"shape {_excerpt(dims)} is not a list of sizes.")
    return TensorShape(dims)


def _dtype(name: Any, allowed: Optional[tuple] = None) -> Any:
    """The tapeflow DType of a name from a file: only tapeflow's dtype names."""
    if not isinstance(name, str) or name not in _DTYPE_NAMES or \
            (allowed is not None and name not in allowed):
        raise _Corrupt(f"dtype {_excerpt(name)} is not one of tapeflow's dtypes.")
    return _dtypes.as_dtype(name)


_DTYPE_NAMES = frozenset(d.name for d in vars(_dtypes).values() if isinstance(d, _dtypes.DType))


def _tensor_spec(node: dict) -> TensorSpec:
    _expect_keys(node, {"type", "shape", "dtype", "name"}, "tensor spec")
    if node["name"] is not None and not isinstance(node["name"], str):
        raise _Corrupt(f"tensor spec name {_excerpt(node['name'])} is not a string.")
    return TensorSpec(_shape(node), _dtype(node["dtype"]), node["name"])


def _sparse_spec(node: dict) -> SparseTensorSpec:
    _expect_keys(node, {"type", "shape", "dtype"}, "sparse spec")
    return SparseTensorSpec(_shape(node), _dtype(node["dtype"]))


def _ragged_spec(node: dict) -> RaggedTensorSpec:
    _expect_keys(node, {"type", "shape", "dtype", "ragged_rank", "row_splits_dtype"},
                 "ragged spec")
    shape, rank = _shape(node), node["ragged_rank"]
    if not _is_int(rank) or rank < 0 or rank > _MAX_RANK or \
            (shape.rank is not None and rank >= max(shape.rank, 1)):
        raise _Corrupt(f"ragged_rank {_excerpt(rank)} does not fit shape {shape}.")
    return RaggedTensorSpec(shape, _dtype(node["dtype"]), rank,
                            _dtype(node["row_splits_dtype"], ("int32", "int64")))


_LEAF_READERS: dict = {"tensor": _tensor_spec, "sparse": _sparse_spec, "ragged": _ragged_spec}


def _decode_elements(arrays: dict, spec: Any, n: int) -> list:
    """The N elements of `spec` from the file's arrays, each part checked."""
    flat_specs = structure.flatten(spec)
    expected = {_META_KEY}
    for j, leaf in enumerate(flat_specs):
        for p, dtype in enumerate(_part_dtypes(leaf)):
            expected.update(f"l{j}.p{p}.{s}" for s in _suffixes(dtype))
    if set(arrays) != expected:
        raise _Corrupt(f"its arrays {_excerpt(sorted(set(arrays) ^ expected))} do not "
                       f"match its element_spec.")
    columns = []
    for j, leaf in enumerate(flat_specs):
        parts = [_decode_part(arrays, f"l{j}.p{p}", n, dtype)
                 for p, dtype in enumerate(_part_dtypes(leaf))]
        if len(parts) == 1:   # a tensor: its arrays are the values
            _check_dense_shapes(leaf, parts[0])
            columns.append(parts[0])
        else:
            build = _LEAF_BUILDERS[type(leaf)]
            columns.append([build(leaf, [part[i] for part in parts]) for i in range(n)])
    return [structure.pack(spec, [column[i] for column in columns]) for i in range(n)]


def _suffixes(dtype: Any) -> tuple:
    return ("ranks", "dims", "data", "lengths") if dtype == _dtypes.string else \
        ("ranks", "dims", "data")


def _vector(arrays: dict, key: str, dtype: np.dtype) -> np.ndarray:
    """The 1-D array `key` of exactly `dtype` (native byte order)."""
    array = arrays[key]
    if array.ndim != 1 or array.dtype != dtype:
        raise _Corrupt(f"{key} is a {array.dtype} array of shape {array.shape}, not a "
                       f"vector of {dtype}.")
    return array


def _decode_part(arrays: dict, key: str, n: int, dtype: Any) -> list:
    """The N arrays of one part, their shapes and sizes checked against the data."""
    shapes = _shapes(arrays, key, n)
    sizes = [math.prod(s) for s in shapes]   # Python ints: no overflow
    ends = np.cumsum([0] + sizes, dtype=object)
    if dtype == _dtypes.string:
        flat = _strings(arrays, key, int(ends[-1]))
    else:
        flat = _vector(arrays, f"{key}.data", _storage_dtype(dtype))
        if flat.size != ends[-1]:
            raise _Corrupt(f"{key}.data holds {flat.size} values; its shapes need {ends[-1]}.")
        if dtype == _dtypes.bfloat16:
            flat = flat.view(dtype.as_numpy_dtype)
    return [flat[ends[i]:ends[i + 1]].reshape(shape) for i, shape in enumerate(shapes)]


def _shapes(arrays: dict, key: str, n: int) -> list:
    ranks = _vector(arrays, f"{key}.ranks", np.dtype(np.int64))
    dims = _vector(arrays, f"{key}.dims", np.dtype(np.int64))
    if ranks.size != n or np.any(ranks < 0) or np.any(ranks > _MAX_RANK) or np.any(dims < 0):
        raise _Corrupt(f"{key}: its ranks or dims are not {n} shapes.")
    if int(ranks.sum()) != dims.size:
        raise _Corrupt(f"{key}: its ranks add up to {int(ranks.sum())} dims; it has "
                       f"{dims.size}.")
    starts = np.concatenate([[0], np.cumsum(ranks)])
    return [tuple(int(d) for d in dims[starts[i]:starts[i + 1]]) for i in range(n)]


def _strings(arrays: dict, key: str, count: int) -> np.ndarray:
    """The `count` strings of a part: an object array of bytes."""
    lengths = _vector(arrays, f"{key}.lengths", np.dtype(np.int64))
    data = _vector(arrays, f"{key}.data", _STRING_STORAGE)
    if lengths.size != count or np.any(lengths < 0) or np.any(lengths > data.size):
        raise _Corrupt(f"{key}: {lengths.size} string lengths for {count} strings, or a "
                       f"length out of [0, {data.size}].")
    ends = np.cumsum(lengths)   # each step <= data.size: an overflow shows as a decrease
    if count and (ends[-1] != data.size or np.any(np.diff(ends) < 0)):
        raise _Corrupt(f"{key}: the string lengths do not add up to its {data.size} bytes.")
    if not count and data.size:
        raise _Corrupt(f"{key}: {data.size} bytes for no strings.")
    buffer = data.tobytes()
    strings = np.empty(count, object)
    strings[:] = [buffer[end - size:end] for end, size in zip(ends.tolist(), lengths.tolist())]
    return strings


def _check_dense_shapes(spec: Any, values: list) -> None:
    for shape in {value.shape for value in values}:   # each distinct shape once
        if not spec.shape.is_compatible_with(TensorShape(shape)):
            raise _Corrupt(f"an element of shape {shape} does not match its spec {spec}.")


def _sparse_leaf(spec: SparseTensorSpec, parts: list) -> SparseTensor:
    indices, values, dense_shape = parts
    rank = dense_shape.size
    if dense_shape.ndim != 1 or values.ndim != 1 or indices.shape != (values.size, rank) or \
            not spec.shape.is_compatible_with(TensorShape(dense_shape.tolist())) or \
            np.any(indices < 0) or np.any(indices >= dense_shape):
        raise _Corrupt(f"a sparse element (indices {indices.shape}, values {values.shape}, "
                       f"dense_shape {dense_shape.tolist()}) does not match its spec {spec} "
                       f"or has an index out of bounds.")
    return SparseTensor(wrap(indices), wrap(values), wrap(dense_shape))


def _ragged_leaf(spec: RaggedTensorSpec, parts: list) -> RaggedTensor:
    flat_values, splits = parts[0], parts[1:]
    inner = spec.shape[spec.ragged_rank + 1:] if spec.shape.rank is not None else None
    if flat_values.ndim < 1 or any(s.ndim != 1 for s in splits) or \
            (inner is not None and not inner.is_compatible_with(flat_values.shape[1:])):
        raise _Corrupt(f"a ragged element (flat_values {flat_values.shape}) does not match "
                       f"its spec {spec}.")
    try:
        value = RaggedTensor.from_nested_row_splits(wrap(flat_values), [wrap(s) for s in splits])
    except (InvalidArgumentError, ValueError) as e:
        raise _Corrupt(f"a ragged element's row splits are invalid ({e}).") from None
    if spec.shape.rank is not None and not spec.shape[:1].is_compatible_with([value.shape[0]]):
        raise _Corrupt(f"a ragged element of {value.shape[0]} rows does not match {spec}.")
    return value


# A ragged leaf of ragged_rank 0 has one part, its dense array (see structure): a tensor's.
_LEAF_BUILDERS: dict = {SparseTensorSpec: _sparse_leaf, RaggedTensorSpec: _ragged_leaf}


# -- a requested element_spec -----------------------------------------------------------------

def fit_element_spec(requested: Any, stored: Any, elements: list) -> list:
    """`elements` (of the file's `stored` spec) in the `requested` spec's structure, as TF's
    `load(path, element_spec)` and `cache` give them; InvalidArgumentError, with TF's text,
    where a component's kind, dtype or shape does not fit (TF checks each element as it reads
    it)."""
    want, have = structure.flatten(requested), structure.flatten(stored)
    # TF reads the first components when fewer are requested; a dropped component is refused.
    if len(want) != len(have):
        raise InvalidArgumentError(None, None, f"Number of components mismatch: expected "
                                   f"{len(want)} but got {len(have)}. [Op:IteratorGetNext]")
    for i, (w, h) in enumerate(zip(want, have)):
        if _kind(w) != _kind(h):
            raise InvalidArgumentError(None, None, f"Data type mismatch at component {i}: "
                                       f"expected {_tf_type(w)} but got {_tf_type(h)}. "
                                       f"[Op:IteratorGetNext]")
    flat_elements = [structure.flatten(e) for e in elements]
    _check_shapes(want, flat_elements)
    return [structure.pack(requested, flat) for flat in flat_elements]


def _kind(spec: Any) -> tuple:
    """What a component is, shape aside: its spec class, dtype and ragged partition."""
    if type(spec) is RaggedTensorSpec:
        return type(spec), spec.dtype, spec.ragged_rank, spec.row_splits_dtype
    return type(spec), spec.dtype


def _check_shapes(want: list, flat_elements: list) -> None:
    for flat in flat_elements:
        for i, (spec, value) in enumerate(zip(want, flat)):
            shape = TensorShape(value.shape)
            if not spec.shape.is_compatible_with(shape):
                raise InvalidArgumentError(None, None, f"Incompatible shapes at component "
                                           f"{i}: expected {structure.shape_text(spec.shape)} "
                                           f"but got {structure.shape_text(shape)}. "
                                           f"[Op:IteratorGetNext]")


def _tf_type(spec: Any) -> str:
    name = _TF_TYPE_NAMES.get(spec.dtype.name, spec.dtype.name)
    return name if type(spec) is TensorSpec else repr(spec)


__all__ = ["DATASET_FILE", "DATASET_FORMAT", "CACHE_FORMAT", "VERSION", "save_dataset",
           "load_dataset", "write_elements", "read_elements", "read_cache",
           "fit_element_spec"]
