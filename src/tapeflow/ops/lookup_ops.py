"""`tf.lookup`: hash tables from keys to values, as TensorFlow 2's.

A table is a Python object holding a dict (TensorFlow's resource). Its ops are primitives
that take the table as an attribute, so a `tf.function` or `dataset.map` that uses a table
captures it by reference, as TF captures the resource: lookups in a static table are pure
(the graph may fold them), while the mutable tables' find, insert and remove read or change
the table when the graph runs (they never run while tracing, are never merged or folded, and
keep their order).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.ragged_tensor import RaggedTensor
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.graph.ir import ABSTRACT_AT_TRACE
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.string_ops import to_hash_bucket_fast, as_string

_INT64 = np.dtype(np.int64)


def _find_impl(keys: np.ndarray, table: "_TableState") -> np.ndarray:
    data, default = table.data, table.default
    flat = keys.reshape(-1).tolist()
    out = np.empty(len(flat), dtype=table.value_np)
    out[:] = [data.get(k, default) for k in flat]
    return out.reshape(keys.shape)


def _find_rule(keys: ShapedArray, table: "_TableState") -> ShapedArray:
    return ShapedArray(keys.shape, table.value_np)


def _insert_impl(keys: np.ndarray, values: np.ndarray, table: "_TableState") -> tuple:
    if keys.shape != values.shape:
        raise InvalidArgumentError(f"Expected shape {list(keys.shape)} for value, got "
                                   f"{list(values.shape)} [Op:LookupTableInsertV2]")
    table.data.update(zip(keys.reshape(-1).tolist(),
                          values.astype(table.value_np).reshape(-1).tolist()))
    return ()


def _remove_impl(keys: np.ndarray, table: "_TableState") -> tuple:
    for k in keys.reshape(-1).tolist():
        table.data.pop(k, None)
    return ()


def _size_impl(table: "_TableState") -> np.ndarray:
    return np.asarray(len(table.data), np.int64)


def _export_impl(table: "_TableState") -> tuple:
    keys = np.empty(len(table.data), table.key_np)
    values = np.empty(len(table.data), table.value_np)
    keys[:] = list(table.data.keys())
    values[:] = list(table.data.values())
    return keys, values


def _export_rule(table: "_TableState") -> tuple:
    return ShapedArray((None,), table.key_np), ShapedArray((None,), table.value_np)


_no_outputs = lambda *avals, **attrs: ()  # noqa: E731
_STATIC_FIND = Primitive("LookupTableFindV2", _find_impl, differentiable=False,
                         shape_rule=_find_rule)
# A mutable table's ops read or change its state when the graph runs.
_MUTABLE_FIND = Primitive("MutableLookupTableFindV2", _find_impl, differentiable=False,
                          stateful=True, shape_rule=_find_rule)
_INSERT = Primitive("LookupTableInsertV2", _insert_impl, multiple_results=True,
                    differentiable=False, side_effect=True, shape_rule=_no_outputs)
_REMOVE = Primitive("LookupTableRemoveV2", _remove_impl, multiple_results=True,
                    differentiable=False, side_effect=True, shape_rule=_no_outputs)
_SIZE = Primitive("LookupTableSizeV2", _size_impl, differentiable=False, stateful=True,
                  shape_rule=lambda table: ShapedArray((), _INT64))
_EXPORT = Primitive("LookupTableExportV2", _export_impl, multiple_results=True,
                    differentiable=False, stateful=True, shape_rule=_export_rule)
ABSTRACT_AT_TRACE.update((_MUTABLE_FIND, _INSERT, _REMOVE, _SIZE, _EXPORT))


class _TableState:
    """A table's contents: the dict, the dtypes and the default (compared by identity, so a
    traced graph holds this table)."""

    __slots__ = ("data", "key_np", "value_np", "default")

    def __init__(self, key_dtype: _dtypes.DType, value_dtype: _dtypes.DType,
                 default: Any) -> None:
        self.data: dict = {}
        self.key_np = np.dtype(key_dtype.as_numpy_dtype)
        self.value_np = np.dtype(value_dtype.as_numpy_dtype)
        self.default = default

    def __repr__(self) -> str:
        return f"<table of {len(self.data)} entries>"


def _default_value(value: Any, dtype: _dtypes.DType) -> Any:
    """The default value as a Python scalar of `dtype` (TF's conversion errors)."""
    t = convert_to_tensor(value, dtype=dtype)
    if t.shape.rank != 0:
        raise NotImplementedError("tapeflow's lookup tables take scalar values only; got a "
                                  f"default value of shape {t.shape}")
    return np.asarray(t._value)[()].item() if dtype != _dtypes.string else \
        np.asarray(t._value)[()]


def _keys_tensor(keys: Any, dtype: _dtypes.DType) -> Tensor:
    t = keys if isinstance(keys, TensorLike) else convert_to_tensor(keys, dtype=dtype)
    t = convert_to_tensor(t)
    if t.dtype.base_dtype != dtype:
        raise TypeError(f"Dtype of argument `keys` must be {dtype}, received: {t.dtype}")
    return t


def _on_values(keys: Any, fn: Any) -> Any:
    """`fn` on a RaggedTensor's flat values (the same partition), or on the tensor."""
    if isinstance(keys, RaggedTensor):
        return keys.with_flat_values(fn(keys.flat_values))
    return fn(keys)


# -- initializers ----------------------------------------------------------------------------------

@tf_export("lookup.experimental.TableInitializerBase")
class TableInitializerBase:
    """The base of table initializers: the keys' and values' dtypes."""

    def __init__(self, key_dtype: Any, value_dtype: Any) -> None:
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> _dtypes.DType:
        """The keys' dtype."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dtypes.DType:
        """The values' dtype."""
        return self._value_dtype

    def _pairs(self) -> tuple:
        """The (keys, values) NumPy arrays to fill a table with."""
        raise NotImplementedError

    def initialize(self, table: Any) -> None:
        """Fills `table` (a StaticHashTable) with this initializer's pairs."""
        keys, values = self._pairs()
        table._state.data.update(zip(keys.tolist(), values.tolist()))


@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(TableInitializerBase):
    """A table's contents from a tensor of keys and one of values (1-D, same length)."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: Optional[str] = None) -> None:
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name or "key_value_init"
        if type(self._keys) is not Tensor or type(self._values) is not Tensor:
            raise NotImplementedError("tapeflow builds lookup tables eagerly: create the "
                                      "initializer's keys and values outside tf.function")
        super().__init__(self._keys.dtype, self._values.dtype)

    def _pairs(self) -> tuple:
        keys, values = np.asarray(self._keys._value), np.asarray(self._values._value)
        if keys.shape != values.shape:
            raise InvalidArgumentError(f"Expected shape {list(keys.shape)} for value, got "
                                       f"{list(values.shape)}")
        return keys.reshape(-1), values.reshape(-1)


@tf_export("lookup.TextFileIndex")
class TextFileIndex:
    """The special column indices of a TextFileInitializer: the whole line, the line
    number."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer(TableInitializerBase):
    """A table's contents from a text file: one entry per line, key and value taken from
    columns split by `delimiter` (or the whole line, or the line number)."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any,
                 value_index: int, vocab_size: Optional[int] = None, delimiter: str = "\t",
                 name: Optional[str] = None, value_index_offset: int = 0) -> None:
        key_dtype, value_dtype = _dtypes.as_dtype(key_dtype), _dtypes.as_dtype(value_dtype)
        for index, dtype, what in ((key_index, key_dtype, "key"),
                                   (value_index, value_dtype, "value")):
            if index < -2:
                raise ValueError(f"Invalid {what} index {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != _dtypes.int64:
                raise ValueError(f"Signature mismatch. Keys must be dtype {_dtypes.int64}, "
                                 f"got {dtype}." if what == "key" else
                                 f"Signature mismatch. Values must be dtype "
                                 f"{_dtypes.int64}, got {dtype}.")
            if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or
                                                          dtype == _dtypes.string):
                raise ValueError(f"Signature mismatch. Keys must be integer or string, got "
                                 f"{dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        if isinstance(filename, TensorLike):
            filename = np.asarray(convert_to_tensor(filename)._value)[()]
        self._filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = value_index_offset
        self._name = name
        super().__init__(key_dtype, value_dtype)

    def _column(self, line: str, number: int, index: int, dtype: _dtypes.DType,
                offset: int) -> Any:
        if index == TextFileIndex.LINE_NUMBER:
            return number + offset
        text = line if index == TextFileIndex.WHOLE_LINE else None
        if text is None:
            columns = line.split(self._delimiter)
            if index >= len(columns):
                raise InvalidArgumentError(f"Invalid number of columns in {self._filename} "
                                           f"line {number} ({line}) for the index {index}")
            text = columns[index]
        if dtype == _dtypes.string:
            return text.encode("utf-8")
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise InvalidArgumentError(f"Field {text} in line {number} is not a valid "
                                       f"{dtype.name}.") from None

    def _pairs(self) -> tuple:
        try:
            with open(self._filename, "rb") as f:
                lines = f.read().decode("utf-8").split("\n")
        except FileNotFoundError:
            raise NotFoundError(f"{self._filename}; No such file or directory") from None
        if lines and lines[-1] == "":
            lines.pop()
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise InvalidArgumentError(f"Invalid vocab_size in {self._filename}: expected "
                                           f"{self._vocab_size} lines, got {len(lines)}")
            lines = lines[:self._vocab_size]
        keys = [self._column(line, i, self._key_index, self._key_dtype, 0)
                for i, line in enumerate(lines)]
        values = [self._column(line, i, self._value_index, self._value_dtype, self._offset)
                  for i, line in enumerate(lines)]
        k = np.empty(len(keys), np.dtype(self._key_dtype.as_numpy_dtype))
        v = np.empty(len(values), np.dtype(self._value_dtype.as_numpy_dtype))
        k[:], v[:] = keys, values
        return k, v


# -- tables ----------------------------------------------------------------------------------------

class _Table:
    """What every table has: dtypes, the default value, size, lookup and export."""

    _find = _STATIC_FIND

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any,
                 name: Optional[str]) -> None:
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._state = _TableState(self._key_dtype, self._value_dtype,
                                  _default_value(default_value, self._value_dtype))
        self._name = name

    @property
    def key_dtype(self) -> _dtypes.DType:
        """The keys' dtype."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dtypes.DType:
        """The values' dtype."""
        return self._value_dtype

    @property
    def default_value(self) -> Tensor:
        """The value of a missing key."""
        return convert_to_tensor(self._state.default, dtype=self._value_dtype)

    @property
    def name(self) -> Optional[str]:
        """The table's name."""
        return self._name

    @property
    def resource_handle(self) -> "_TableState":
        """The table's state (TF's resource handle)."""
        return self._state

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of entries, an int64 scalar."""
        return bind(_SIZE, (), {"table": self._state})

    def lookup(self, keys: Any, name: Optional[str] = None) -> Any:
        """The value of each key (the default value where absent), of the keys' shape; a
        RaggedTensor's flat values are looked up."""
        def find(k: Any) -> Tensor:
            return bind(self._find, (_keys_tensor(k, self._key_dtype),),
                        {"table": self._state})
        return _on_values(keys, find)

    def export(self, name: Optional[str] = None) -> tuple:
        """(keys, values): 1-D tensors of every entry."""
        return bind(_EXPORT, (), {"table": self._state})

    def __getitem__(self, keys: Any) -> Any:
        return self.lookup(keys)


@tf_export("lookup.StaticHashTable")
class StaticHashTable(_Table):
    """A table filled once by its initializer and immutable after."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any,
                 name: Optional[str] = None, experimental_is_anonymous: bool = False) -> None:
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value, name)
        self._initializer = initializer
        initializer.initialize(self)

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of entries, an int64 scalar."""
        return convert_to_tensor(len(self._state.data), dtype=_dtypes.int64)


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable:
    """A vocabulary (string or int64 keys to int64 ids) that gives every key outside it one
    of `num_oov_buckets` ids after the vocabulary's, by its FarmHash Fingerprint64 (an
    integer key's decimal text), as TF."""

    def __init__(self, initializer: Optional[TableInitializerBase], num_oov_buckets: int,
                 lookup_key_dtype: Any = None, name: Optional[str] = None,
                 experimental_is_anonymous: bool = False) -> None:
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        self._table: Optional[StaticHashTable] = None
        if initializer is not None:
            key = _dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)
            if initializer.key_dtype not in (_dtypes.int64, _dtypes.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of "
                                f"({_dtypes.int64}, {_dtypes.string}), but got "
                                f"{initializer.key_dtype}")
            if initializer.key_dtype.is_integer != key.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if key.is_integer else 'non-integer'} but got "
                                f"{initializer.key_dtype}")
            if initializer.value_dtype != _dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {_dtypes.int64} but got "
                                f"{initializer.value_dtype}")
            self._table = StaticHashTable(initializer, -1)
        else:
            key = _dtypes.string
        if not key.is_integer and key != _dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {key}")
        self._key_dtype, self._num_oov_buckets = key, int(num_oov_buckets)
        self._name = name

    @property
    def key_dtype(self) -> _dtypes.DType:
        """The keys' dtype."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dtypes.DType:
        """int64."""
        return _dtypes.int64

    @property
    def name(self) -> Optional[str]:
        """The table's name."""
        return self._name

    @property
    def resource_handle(self) -> Any:
        """The vocabulary table's state (None without an initializer)."""
        return None if self._table is None else self._table.resource_handle

    def size(self, name: Optional[str] = None) -> Tensor:
        """The vocabulary's size plus the number of OOV buckets, an int64 scalar."""
        n = 0 if self._table is None else len(self._table._state.data)
        return convert_to_tensor(n + self._num_oov_buckets, dtype=_dtypes.int64)

    def lookup(self, keys: Any, name: Optional[str] = None) -> Any:
        """The id of each key: its vocabulary id, else vocabulary size + its hash bucket."""
        from tapeflow.ops.math_ops import add, cast, not_equal, where

        def find(k: Any) -> Tensor:
            k = _keys_tensor(k, self._key_dtype)
            if self._table is not None and self._table.key_dtype == _dtypes.int64:
                k = cast(k, _dtypes.int64)
            text = k if k.dtype == _dtypes.string else as_string(k)
            buckets = to_hash_bucket_fast(text, self._num_oov_buckets)
            if self._table is None:
                return buckets
            ids = self._table.lookup(k)
            buckets = add(buckets, self._table.size())
            return where(not_equal(ids, -1), ids, buckets)
        return _on_values(keys, find)

    def __getitem__(self, keys: Any) -> Any:
        return self.lookup(keys)


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(_Table):
    """A table that `insert` and `remove` change, eagerly and inside tf.function."""

    _find = _MUTABLE_FIND

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any,
                 name: str = "MutableHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False) -> None:
        super().__init__(key_dtype, value_dtype, default_value, name)

    def insert(self, keys: Any, values: Any, name: Optional[str] = None) -> None:
        """Sets the value of each key (keys and values of one shape)."""
        k = _keys_tensor(keys, self._key_dtype)
        v = convert_to_tensor(values, dtype=self._value_dtype)
        if v.dtype != self._value_dtype:
            raise TypeError(f"Dtype of argument `values` must be {self._value_dtype}, "
                            f"received: {v.dtype}")
        bind(_INSERT, (k, v), {"table": self._state})

    def remove(self, keys: Any, name: Optional[str] = None) -> None:
        """Removes the keys (absent ones are ignored)."""
        bind(_REMOVE, (_keys_tensor(keys, self._key_dtype),), {"table": self._state})


@tf_export("lookup.experimental.DenseHashTable")
class DenseHashTable(MutableHashTable):
    """A mutable table with reserved `empty_key` and `deleted_key` (TF's open-addressing
    table): insert, remove, lookup, size. `export` is refused: TF exports its bucket array,
    whose layout tapeflow does not reproduce."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, empty_key: Any,
                 deleted_key: Any, initial_num_buckets: Optional[int] = None,
                 name: str = "MutableDenseHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False) -> None:
        super().__init__(key_dtype, value_dtype, default_value, name)
        self._empty = _default_value(empty_key, self._key_dtype)
        self._deleted = _default_value(deleted_key, self._key_dtype)
        if self._empty == self._deleted:
            raise InvalidArgumentError("Empty and deleted keys must have different values")

    def _check_keys(self, keys: Any, op: str) -> Tensor:
        k = _keys_tensor(keys, self._key_dtype)
        if type(k) is Tensor:  # eagerly: TF's check of the reserved keys
            flat = np.asarray(k._value).reshape(-1).tolist()
            if self._empty in flat:
                raise InvalidArgumentError(f"Using the empty_key as a table key is not "
                                           f"allowed [Op:{op}]")
            if self._deleted in flat:
                raise InvalidArgumentError(f"Using the deleted_key as a table key is not "
                                           f"allowed [Op:{op}]")
        return k

    def insert(self, keys: Any, values: Any, name: Optional[str] = None) -> None:
        """Sets the value of each key."""
        super().insert(self._check_keys(keys, "LookupTableInsertV2"), values)

    def remove(self, keys: Any, name: Optional[str] = None) -> None:
        """Removes the keys (absent ones are ignored)."""
        super().remove(self._check_keys(keys, "LookupTableRemoveV2"))

    def export(self, name: Optional[str] = None) -> tuple:
        """Refused: TF exports its bucket array (tapeflow keeps no such layout)."""
        raise NotImplementedError("tf.lookup.experimental.DenseHashTable.export: TF exports "
                                  "its open-addressing bucket array, whose layout tapeflow "
                                  "does not reproduce; use MutableHashTable to export.")


__all__ = ["KeyValueTensorInitializer", "TextFileInitializer", "TextFileIndex",
           "TableInitializerBase", "StaticHashTable", "StaticVocabularyTable",
           "MutableHashTable", "DenseHashTable"]
