"""`tf.train.Example` and friends: the protocol-buffer messages of example.proto/feature.proto.

Small pure-Python message classes that behave as protobuf's (upb) Python messages do under
TensorFlow 2.21: keyword constructors, lazily created sub-messages whose first change marks
them present in their parent, the `kind` oneof of `Feature`, map and repeated containers,
`SerializeToString`/`FromString`, `==`, and `str()` in protobuf's text format.

Map order: protobuf writes map entries in its hash table's order, which is seeded per process,
so TF's bytes for a map of several keys differ from run to run. Here both `SerializeToString()`
and `SerializeToString(deterministic=True)` write TF's deterministic order (upb's map sorter);
the text format prints entries in the order upb's text encoder sorts them (the reverse).
"""

from __future__ import annotations

import functools
import operator
import struct
from typing import Any, Iterable, Iterator, Optional

import numpy as np

from tapeflow.io import _wire

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample", "DecodeError"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class DecodeError(Exception):
    """Bytes that do not parse as the message (google.protobuf.message.DecodeError)."""


class _Field:
    """One field of a message class: its name, number, kind and value class."""

    __slots__ = ("name", "number", "kind", "cls", "oneof")

    def __init__(self, name: str, number: int, kind: str, cls: Any = None,
                 oneof: Optional[str] = None) -> None:
        self.name, self.number, self.kind, self.cls, self.oneof = name, number, kind, cls, oneof

    def __repr__(self) -> str:
        return f"<FieldDescriptor {self.name}>"


# -- element checks, as upb converts Python values -------------------------------------------------

def _check_int64(owner: "_Message", value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError(f"Field {owner._FULL_NAME}.value: Expected an int, got a boolean.")
    if isinstance(value, np.bool_):  # NumPy < 2.1 still lets operator.index take it
        raise TypeError("'numpy.bool' object cannot be interpreted as an integer")
    value = operator.index(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"Value out of range: {value}")
    return value


_F32 = struct.Struct("<f")


def _check_float(owner: "_Message", value: Any) -> float:
    if isinstance(value, (str, bytes)) or not (hasattr(type(value), "__float__")
                                               or hasattr(type(value), "__index__")):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    value = float(value)
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except OverflowError:             # beyond float32's range: the C cast gives +-inf
        return float("inf") if value > 0 else float("-inf")


def _check_bytes(owner: "_Message", value: Any) -> bytes:
    if not isinstance(value, bytes):
        raise TypeError(f"expected bytes, {type(value).__name__} found")
    return bytes(value)


_CHECKS = {"int64": _check_int64, "float": _check_float, "bytes": _check_bytes}


# -- containers ------------------------------------------------------------------------------------

class _Repeated:
    """What both repeated-field containers share: a list's reads, and `==` with their own
    kind or a list."""

    __slots__ = ()

    def __delitem__(self, index: Any) -> None:
        del self._items[index]

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator:
        return iter(self._items)

    def __eq__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._items == other._items
        return self._items == other if isinstance(other, list) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._items)


class RepeatedScalarContainer(_Repeated):
    """A repeated int64/float/bytes field: a list that checks and converts its elements."""

    __slots__ = ("_owner", "_check", "_items")

    def __init__(self, owner: "_Message", kind: str) -> None:
        self._owner, self._check, self._items = owner, _CHECKS[kind], []

    def _converted(self, values: Iterable) -> list:
        return [self._check(self._owner, v) for v in values]

    def append(self, value: Any) -> None:
        """Appends one value."""
        self._items.append(self._check(self._owner, value))
        self._owner._modified()

    def extend(self, values: Iterable) -> None:
        """Appends every value of an iterable."""
        self._items.extend(self._converted(values))
        self._owner._modified()

    def insert(self, index: int, value: Any) -> None:
        """Inserts one value before `index`."""
        self._items.insert(index, self._check(self._owner, value))
        self._owner._modified()

    def pop(self, index: int = -1) -> Any:
        """Removes and returns the value at `index`."""
        return self._items.pop(index)

    def remove(self, value: Any) -> None:
        """Removes the first occurrence of `value`."""
        self._items.remove(value)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        """Sorts the values in place."""
        self._items.sort(*args, **kwargs)

    def reverse(self) -> None:
        """Reverses the values in place."""
        self._items.reverse()

    def MergeFrom(self, other: Iterable) -> None:  # noqa: N802 - protobuf's name
        """Appends the values of another container."""
        self.extend(other)

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            self._items[index] = self._converted(value)
        else:
            self._items[index] = self._check(self._owner, value)
        self._owner._modified()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        # upb's containers hand NumPy their field's type: float32 for FloatList
        kind = {_check_float: np.float32, _check_int64: np.int64}.get(self._check)
        return np.asarray(self._items, dtype if dtype is not None else kind)


class RepeatedCompositeContainer(_Repeated):
    """A repeated message field (FeatureList.feature): `add()`, `append`, `extend`, indexing."""

    __slots__ = ("_owner", "_cls", "_items")

    def __init__(self, owner: "_Message", cls: type) -> None:
        self._owner, self._cls, self._items = owner, cls, []

    def add(self, **kwargs: Any) -> "_Message":
        """Appends a new message (built from `kwargs`) and returns it."""
        item = self._cls(**kwargs)
        self._items.append(item)
        self._owner._modified()
        return item

    def append(self, message: "_Message") -> "_Message":
        """Appends a copy of `message` and returns the copy (as upb does)."""
        item = self.add()
        item.CopyFrom(message)
        return item

    def extend(self, messages: Iterable) -> None:
        """Appends a copy of every message."""
        for message in messages:
            self.append(message)

    def MergeFrom(self, other: Iterable) -> None:  # noqa: N802 - protobuf's name
        """Appends copies of another container's messages."""
        self.extend(other)

    def pop(self, index: int = -1) -> "_Message":
        """Removes and returns the message at `index`."""
        return self._items.pop(index)

    def remove(self, message: "_Message") -> None:
        """Removes the first message equal to `message`."""
        self._items.remove(message)


def _check_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError("bad argument type for built-in operation")
    return key


class MessageMap:
    """A `map<string, Message>` field: reading a missing key creates its entry, as protobuf."""

    __slots__ = ("_owner", "_cls", "_items")

    def __init__(self, owner: "_Message", cls: type) -> None:
        self._owner, self._cls, self._items = owner, cls, {}

    def __getitem__(self, key: str) -> "_Message":
        item = self._items.get(_check_key(key))
        if item is None:
            item = self._items[key] = self._cls()
            self._owner._modified()
        return item

    def get_or_create(self, key: str) -> "_Message":
        """The entry of `key`, created if missing."""
        return self[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The entry of `key`, or `default` (no entry is created)."""
        return self._items.get(_check_key(key), default)

    def __setitem__(self, key: str, value: Any) -> None:
        raise ValueError("Message objects may not be assigned")

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Not allowed for message values, as in protobuf."""
        raise ValueError("Message objects may not be assigned")

    def setdefault(self, key: str, default: Any = None) -> None:
        """Not allowed for message values, as in protobuf."""
        raise NotImplementedError("Set message map value directly is not supported.")

    def pop(self, key: str, *default: Any) -> Any:
        """Removes `key`'s entry and returns it (or `default`)."""
        return self._items.pop(_check_key(key), *default)

    def clear(self) -> None:
        """Removes every entry."""
        self._items.clear()

    def MergeFrom(self, other: "MessageMap") -> None:  # noqa: N802 - protobuf's name
        """Merges another map's entries into this one's (an entry of the same key replaces
        this map's, as protobuf does)."""
        for key, value in other.items():
            self[key].CopyFrom(value)

    def __delitem__(self, key: str) -> None:
        del self._items[_check_key(key)]

    def __contains__(self, key: Any) -> bool:
        return _check_key(key) in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def keys(self) -> Any:
        """The keys, in insertion order."""
        return self._items.keys()

    def values(self) -> Any:
        """The entries' messages."""
        return self._items.values()

    def items(self) -> Any:
        """(key, message) pairs."""
        return self._items.items()

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, MessageMap):
            return self._items == other._items
        return self._items == other if isinstance(other, dict) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._items)


_CONTAINERS = {"map": MessageMap, "repeated_message": RepeatedCompositeContainer}


# -- upb's map orders ------------------------------------------------------------------------------

def _upb_text_cmp(a: bytes, b: bytes) -> int:
    """upb's map sorter for string keys: bytes compared descending, a prefix before longer."""
    n = min(len(a), len(b))
    if a[:n] != b[:n]:
        return -1 if a[:n] > b[:n] else 1
    return len(a) - len(b)


_TEXT_ORDER = functools.cmp_to_key(_upb_text_cmp)


def _text_sorted(items: Iterable) -> list:
    return sorted(items, key=lambda kv: _TEXT_ORDER(kv[0].encode("utf-8")))


# -- the message base ------------------------------------------------------------------------------

class _Message:
    """What every message class shares; subclasses declare `_FIELDS` and `_FULL_NAME`."""

    _FIELDS: tuple = ()
    _FULL_NAME = ""
    _BY_NAME: dict = {}
    _BY_NUMBER: dict = {}
    _ONEOFS: dict = {}

    __slots__ = ("_values", "_present", "_oneof", "_parent", "_unknown")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._BY_NAME = {f.name: f for f in cls._FIELDS}
        cls._BY_NUMBER = {f.number: f for f in cls._FIELDS}
        cls._ONEOFS = {}
        for f in cls._FIELDS:
            if f.oneof:
                cls._ONEOFS.setdefault(f.oneof, []).append(f.name)

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_present", set())
        object.__setattr__(self, "_oneof", {})
        object.__setattr__(self, "_parent", None)
        object.__setattr__(self, "_unknown", [])
        for name, value in kwargs.items():
            field = self._field(name)
            if value is not None:
                self._init_field(field, value)

    @classmethod
    def _field(cls, name: str) -> _Field:
        field = cls._BY_NAME.get(name)
        if field is None:
            raise ValueError(f'Protocol message {cls.__name__} has no "{name}" field.')
        return field

    def _init_field(self, field: _Field, value: Any) -> None:
        if field.kind == "message":
            if isinstance(value, dict):
                value = field.cls(**value)
            elif not isinstance(value, field.cls):
                raise TypeError(f"Parameter to initialize message field must be dict or "
                                f"instance of same class: expected {field.cls} got "
                                f"{type(value)}.")
            getattr(self, field.name).CopyFrom(value)
            self._set_present(field.name)
        elif field.kind == "map":
            target = getattr(self, field.name)
            for key, item in dict(value).items():
                entry = target[key]
                entry.CopyFrom(field.cls(**item) if isinstance(item, dict) else item)
        elif field.kind == "repeated_message":
            target = getattr(self, field.name)
            for item in value:
                target.add().CopyFrom(field.cls(**item) if isinstance(item, dict) else item)
        else:
            try:
                iter(value)
            except TypeError:
                raise TypeError("must assign iterable") from None
            getattr(self, field.name).extend(value)

    # fields are created on first read
    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: fields live in `_values`
        if name[0] == "_":
            raise AttributeError(name)
        values = self._values
        if name in values:
            return values[name]
        field = type(self)._BY_NAME.get(name)
        if field is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if field.kind == "message":
            value = field.cls()
            object.__setattr__(value, "_parent", (self, name))
        elif field.kind in _CONTAINERS:
            value = _CONTAINERS[field.kind](self, field.cls)
        else:
            value = RepeatedScalarContainer(self, field.kind)
        self._values[name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        field = type(self)._BY_NAME.get(name)
        if field is None:
            raise AttributeError(f'Assignment not allowed (no field "{name}" in protocol '
                                 f'message object).')
        if field.kind == "message":
            raise AttributeError(f'Assignment not allowed to field "{name}" in protocol '
                                 f'message object.')
        raise AttributeError(f'Assignment not allowed to repeated field "{name}" in protocol '
                             f'message object.')

    # presence: a change anywhere below marks the path to it present
    def _modified(self) -> None:
        parent = self._parent
        if parent is not None:
            parent[0]._set_present(parent[1])

    def _set_present(self, name: str) -> None:
        field = type(self)._BY_NAME[name]
        if field.oneof:
            current = self._oneof.get(field.oneof)
            if current is not None and current != name:
                self._clear(current)
            self._oneof[field.oneof] = name
        if name not in self._present:
            self._present.add(name)
        self._modified()

    def _clear(self, name: str) -> None:
        value = self._values.pop(name, None)
        if isinstance(value, _Message):
            object.__setattr__(value, "_parent", None)
        self._present.discard(name)
        field = type(self)._BY_NAME[name]
        if field.oneof and self._oneof.get(field.oneof) == name:
            del self._oneof[field.oneof]

    def _has(self, field: _Field) -> bool:
        """Whether the field holds anything to write (presence, or a non-empty container)."""
        if field.kind == "message":
            return field.name in self._present
        value = self._values.get(field.name)
        return value is not None and len(value) > 0

    # -- protobuf's message API
    def HasField(self, field_name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether a sub-message field (or oneof) is set."""
        if field_name in self._ONEOFS:
            return field_name in self._oneof
        field = self._field(field_name)
        if field.kind != "message":
            raise ValueError(f"Field {self._FULL_NAME}.{field_name} does not have presence.")
        return field_name in self._present

    def WhichOneof(self, oneof_group: str) -> Optional[str]:  # noqa: N802 - protobuf's name
        """The name of the field set in the oneof `oneof_group`, or None."""
        if oneof_group not in self._ONEOFS:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{oneof_group}" '
                             f'field.')
        return self._oneof.get(oneof_group)

    def ClearField(self, field_name: str) -> None:  # noqa: N802 - protobuf's name
        """Clears one field (or the field set in a oneof)."""
        if field_name in self._ONEOFS:
            current = self._oneof.get(field_name)
            if current is not None:
                self._clear(current)
            return
        self._clear(self._field(field_name).name)

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Clears every field."""
        for name in list(self._values):
            self._clear(name)
        self._present.clear()
        self._oneof.clear()
        self._unknown.clear()

    def ListFields(self) -> list:  # noqa: N802 - protobuf's name
        """(field, value) for each field that is set, in field-number order."""
        return [(f, getattr(self, f.name)) for f in self._FIELDS if self._has(f)]

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf's name
        """True: proto3 messages have no required fields."""
        return True

    def CopyFrom(self, other: "_Message") -> None:  # noqa: N802 - protobuf's name
        """Makes this message a copy of `other`."""
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to CopyFrom() must be instance of same class: "
                            f"expected {type(self)} got {type(other)}.")
        if other is self:
            return
        self.Clear()
        self.MergeFrom(other)

    def MergeFrom(self, other: "_Message") -> None:  # noqa: N802 - protobuf's name
        """Merges `other` in: sub-messages merge, repeated fields append, maps merge."""
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to MergeFrom() must be instance of same class: "
                            f"expected {type(self)} got {type(other)}.")
        for field in other._FIELDS:
            if other._has(field):
                getattr(self, field.name).MergeFrom(other._values[field.name])
        self._unknown.extend(other._unknown)
        self._modified()

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802
        """The message's wire bytes (map entries in TF's deterministic order)."""
        return b"".join(self._encode())

    SerializePartialToString = SerializeToString

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of the serialized message."""
        return len(self.SerializeToString())

    def _encode(self) -> list:
        parts: list = []
        for field in self._FIELDS:
            if not self._has(field):
                continue
            value = self._values[field.name]
            number = field.number
            if field.kind == "message":
                parts.append(_wire.length_delimited(number, value.SerializeToString()))
            elif field.kind == "int64":
                parts.append(_wire.packed_varints(number, value))
            elif field.kind == "float":
                parts.append(_wire.packed_fixed(number, value, "f"))
            elif field.kind == "bytes":
                parts.extend(_wire.length_delimited(number, v) for v in value)
            elif field.kind == "repeated_message":
                parts.extend(_wire.length_delimited(number, v.SerializeToString())
                             for v in value)
            else:   # map<string, Message>: upb's deterministic order
                for key, item in reversed(_text_sorted(value.items())):
                    entry = (_wire.length_delimited(1, key.encode("utf-8"))
                             + _wire.length_delimited(2, item.SerializeToString()))
                    parts.append(_wire.length_delimited(number, entry))
        parts.extend(self._unknown)
        return parts

    @classmethod
    def FromString(cls, s: bytes) -> "_Message":  # noqa: N802 - protobuf's name
        """A new message parsed from wire bytes."""
        message = cls()
        message.MergeFromString(s)
        return message

    def ParseFromString(self, serialized: bytes) -> int:  # noqa: N802 - protobuf's name
        """Replaces the message by the one parsed from `serialized`; returns its length."""
        self.Clear()
        return self.MergeFromString(serialized)

    def MergeFromString(self, serialized: bytes) -> int:  # noqa: N802 - protobuf's name
        """Merges the message parsed from `serialized` in; returns its length. Bytes that do not
        parse raise DecodeError and leave the message as it was."""
        data = bytes(memoryview(serialized))
        parsed = type(self)()
        try:
            parsed._decode(data, 0, len(data), 0)
        except _BadUTF8:
            raise DecodeError(f"Error parsing message with type '{self._FULL_NAME}': String "
                              f"field had bad UTF-8") from None
        except _wire.WireError:
            raise DecodeError(f"Error parsing message with type '{self._FULL_NAME}': Wire "
                              f"format was corrupt") from None
        if self._values or self._unknown:
            self.MergeFrom(parsed)
        else:
            self._adopt(parsed)
        return len(data)

    def _adopt(self, other: "_Message") -> None:
        """Takes over the fields of `other` (a freshly parsed message: no copy, no checks)."""
        for name in ("_values", "_present", "_oneof", "_unknown"):
            object.__setattr__(self, name, getattr(other, name))
        for name, value in self._values.items():
            if isinstance(value, _Message):
                object.__setattr__(value, "_parent", (self, name))
            else:
                value._owner = self
        if self._present or any(len(v) for v in self._values.values()) or self._unknown:
            self._modified()

    def _decode(self, data: bytes, pos: int, end: int, depth: int) -> None:
        """Reads the fields of `data[pos:end]` into this message, by upb's rules: a field of
        an unexpected wire type is kept as an unknown field, packed and unpacked values are
        both read, sub-messages merge, a map entry replaces an earlier one of its key."""
        if depth >= _wire.MAX_DEPTH:
            raise _wire.WireError("messages nested too deeply")
        by_number = self._BY_NUMBER
        while pos < end:
            start = pos
            number, wiretype, pos = _wire.read_tag(data, pos, end)
            field = by_number.get(number)
            kind = field.kind if field is not None else None
            if kind in _SCALAR_READERS and wiretype in _SCALAR_WIRETYPES[kind]:
                pos = _SCALAR_READERS[kind](data, start, pos, end, wiretype,
                                            self._scalars(field))
                continue
            if kind is None or wiretype != _wire.LENGTH_DELIMITED:
                pos = _wire.skip_value(data, pos, end, number, wiretype, depth)
                self._unknown.append(data[start:pos])
                continue
            first, pos = _wire.read_length(data, pos, end)
            if kind == "message":
                getattr(self, field.name)._decode(data, first, pos, depth + 1)
                self._set_present(field.name)
            elif kind == "repeated_message":
                getattr(self, field.name).add()._decode(data, first, pos, depth + 1)
            elif not self._decode_map_entry(field, data, first, pos, depth + 1):
                self._unknown.append(data[start:pos])

    def _decode_map_entry(self, field: _Field, data: bytes, pos: int, end: int,
                          depth: int) -> bool:
        """Reads one map entry (key 1, value 2, any order, a missing one the default); False
        when it holds any other field, which makes upb keep the whole entry unknown."""
        text, value, known = "", field.cls(), True
        while pos < end:
            number, wiretype, pos = _wire.read_tag(data, pos, end)
            if wiretype != _wire.LENGTH_DELIMITED or number not in (1, 2):
                pos = _wire.skip_value(data, pos, end, number, wiretype, depth)
                known = False
            elif number == 1:
                text, pos = _map_key(data, pos, end)
            else:
                first, pos = _wire.read_length(data, pos, end)
                value._decode(data, first, pos, depth + 1)   # a repeated value merges
        if not known:
            return False
        container = getattr(self, field.name)
        container.pop(text, None)                           # a later entry replaces
        container[text]._adopt(value)
        return True

    def _scalars(self, field: _Field) -> Any:
        container = getattr(self, field.name)
        return container._items

    # -- Python protocol
    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, _Message):
            return NotImplemented
        if type(other) is not type(self):
            return False
        return all(self._field_value(f) == other._field_value(f) for f in self._FIELDS)

    def _field_value(self, field: _Field) -> Any:
        if not self._has(field):
            return None
        value = self._values[field.name]
        return value._items if hasattr(value, "_items") else value

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return "".join(self._text(""))

    __repr__ = __str__

    def _text(self, indent: str) -> list:
        out: list = []
        for field in self._FIELDS:
            if not self._has(field):
                continue
            value, name = self._values[field.name], field.name
            if field.kind == "message":
                out += [f"{indent}{name} {{\n", *value._text(indent + "  "), f"{indent}}}\n"]
            elif field.kind == "repeated_message":
                for item in value:
                    out += [f"{indent}{name} {{\n", *item._text(indent + "  "),
                            f"{indent}}}\n"]
            elif field.kind == "map":
                inner = indent + "  "
                for key, item in _text_sorted(value.items()):
                    out += [f"{indent}{name} {{\n", f"{inner}key: {_text_string(key)}\n",
                            f"{inner}value {{\n", *item._text(inner + "  "), f"{inner}}}\n",
                            f"{indent}}}\n"]
            else:
                text = _TEXT_SCALAR[field.kind]
                out += [f"{indent}{name}: {text(v)}\n" for v in value]
        return out

    def __deepcopy__(self, memo: Any = None) -> "_Message":
        clone = type(self)()
        clone.MergeFrom(self)
        return clone

    def __copy__(self) -> "_Message":
        return self.__deepcopy__()

    def __reduce__(self) -> tuple:
        return (type(self).FromString, (self.SerializeToString(),))


class _BadUTF8(Exception):
    """A map key that is not UTF-8 (upb's "String field had bad UTF-8")."""


def _map_key(data: bytes, pos: int, end: int) -> tuple:
    """A map entry's string key, checked as upb checks it: for UTF-8 first, even where its
    length runs past the entry (but not past the buffer), then for that overrun."""
    size, pos = _wire.decode_varint(data, pos, end)
    try:
        text = data[pos:pos + size].decode("utf-8") if size <= len(data) - pos else ""
    except UnicodeDecodeError:
        raise _BadUTF8() from None
    if size > end - pos:
        raise _wire.WireError("truncated string")
    return text, pos + size


def _read_int64s(data: bytes, start: int, pos: int, end: int, wiretype: int,
                 out: list) -> int:
    """Int64List.value: one varint, or a packed run (decoded with NumPy)."""
    if wiretype == _wire.VARINT:
        value, pos = _wire.decode_varint(data, pos, end)
        out.append(_wire.to_signed64(value))
        return pos
    first, pos = _wire.read_length(data, pos, end)
    out.extend(_wire.varint_array(data[first:pos]).view(np.int64).tolist())
    return pos


_UNPACKED_FLOAT = 0x0D          # the tag of FloatList.value as a single fixed32


def _read_floats(data: bytes, start: int, pos: int, end: int, wiretype: int,
                 out: list) -> int:
    """FloatList.value: a packed run, or the whole run of unpacked values that starts here."""
    if wiretype == _wire.LENGTH_DELIMITED:
        first, pos = _wire.read_length(data, pos, end)
        out.extend(_wire.fixed_array(data[first:pos], "<f4").tolist())
        return pos
    if data[start] != _UNPACKED_FLOAT:                   # an unusual (overlong) tag: one value
        if pos + 4 > end:
            raise _wire.WireError("truncated fixed32")
        out.append(_F32.unpack_from(data, pos)[0])
        return pos + 4
    values, pos = _wire.fixed_run(data, start, end, 4, "<f4")
    out.extend(values.tolist())
    return pos


def _read_bytes(data: bytes, start: int, pos: int, end: int, wiretype: int,
                out: list) -> int:
    """BytesList.value: this value and the run of values right after it (same tag byte)."""
    tag = data[start] if pos == start + 1 else None       # a one-byte tag repeats cheaply
    while True:
        first, pos = _wire.read_length(data, pos, end)
        out.append(data[first:pos])
        if pos >= end or data[pos] != tag:
            return pos
        pos += 1


_SCALAR_READERS = {"int64": _read_int64s, "float": _read_floats, "bytes": _read_bytes}
_SCALAR_WIRETYPES = {"int64": (_wire.VARINT, _wire.LENGTH_DELIMITED),
                     "float": (_wire.FIXED32, _wire.LENGTH_DELIMITED),
                     "bytes": (_wire.LENGTH_DELIMITED,)}


# -- text format, as upb's encoder writes it -------------------------------------------------------

def _text_float(value: float) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    short = "%.6g" % value            # upb: FLT_DIG digits if they round-trip, else 9
    return short if _F32.unpack(_F32.pack(float(short)))[0] == value else "%.9g" % value


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _text_bytes(value: bytes, raw_utf8: bool = False) -> str:
    out = ['"']
    for b in value:
        if b in _ESCAPES:
            out.append(_ESCAPES[b])
        elif 0x20 <= b < 0x7F or (raw_utf8 and b >= 0x80):
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    out.append('"')
    text = "".join(out)
    return text.encode("latin-1").decode("utf-8") if raw_utf8 else text


def _text_string(value: str) -> str:
    """A `string` field: non-ASCII UTF-8 is written as is, other unprintables escaped."""
    return _text_bytes(value.encode("utf-8"), raw_utf8=True)


_TEXT_SCALAR = {"int64": str, "float": _text_float, "bytes": _text_bytes}


# -- the messages ----------------------------------------------------------------------------------

class BytesList(_Message):
    """`tf.train.BytesList`: `value`, a repeated bytes field."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.BytesList"
    _FIELDS = (_Field("value", 1, "bytes"),)


class FloatList(_Message):
    """`tf.train.FloatList`: `value`, a packed repeated float (float32) field."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.FloatList"
    _FIELDS = (_Field("value", 1, "float"),)


class Int64List(_Message):
    """`tf.train.Int64List`: `value`, a packed repeated int64 field."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.Int64List"
    _FIELDS = (_Field("value", 1, "int64"),)


class Feature(_Message):
    """`tf.train.Feature`: one of `bytes_list`, `float_list`, `int64_list` (oneof `kind`)."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.Feature"
    _FIELDS = (_Field("bytes_list", 1, "message", BytesList, "kind"),
               _Field("float_list", 2, "message", FloatList, "kind"),
               _Field("int64_list", 3, "message", Int64List, "kind"))


class Features(_Message):
    """`tf.train.Features`: `feature`, a map from names to `Feature`s."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.Features"
    _FIELDS = (_Field("feature", 1, "map", Feature),)


class FeatureList(_Message):
    """`tf.train.FeatureList`: `feature`, a repeated `Feature` (one per time step)."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.FeatureList"
    _FIELDS = (_Field("feature", 1, "repeated_message", Feature),)


class FeatureLists(_Message):
    """`tf.train.FeatureLists`: `feature_list`, a map from names to `FeatureList`s."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.FeatureLists"
    _FIELDS = (_Field("feature_list", 1, "map", FeatureList),)


class Example(_Message):
    """`tf.train.Example`: `features`, a `Features` message."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.Example"
    _FIELDS = (_Field("features", 1, "message", Features),)


class SequenceExample(_Message):
    """`tf.train.SequenceExample`: `context` (`Features`) and `feature_lists`
    (`FeatureLists`)."""

    __slots__ = ()
    _FULL_NAME = "tensorflow.SequenceExample"
    _FIELDS = (_Field("context", 1, "message", Features),
               _Field("feature_lists", 2, "message", FeatureLists))
