"""Protocol-buffer bytes for the protobuf security tests and tools/record_protobuf_fuzz.py (which
imports this module with tests/security on sys.path): wire encoders built by hand, so that
unpacked and odd encodings are covered too, the seeded byte mutator, the valid Example and
tensors the fuzzing starts from (built by `lib`: tapeflow in the tests, TensorFlow in the tool),
and values written as the fixture writes them."""

from __future__ import annotations

import random

import numpy as np

# -- wire encoders ------------------------------------------------------------------------------


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def delimited(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def entry(key: bytes, feature: bytes) -> bytes:
    """One entry of an Example's feature map."""
    return delimited(1, delimited(1, key) + delimited(2, feature))


def example(*entries: bytes) -> bytes:
    return delimited(1, b"".join(entries))


def dims(*sizes: int) -> bytes:
    """A TensorProto's tensor_shape {dim {size: s} ...}."""
    return delimited(2, b"".join(delimited(2, varint(8) + varint(s)) for s in sizes))


def tensor_head(dtype: int, *sizes: int) -> bytes:
    """A TensorProto's dtype enum and shape, before its values."""
    return varint(8) + varint(dtype) + dims(*sizes)


# -- valid messages to mutate -------------------------------------------------------------------


def own_example(lib):
    """An Example with a feature of each kind, as `lib.train` builds it."""
    train = lib.train
    return train.Example(features=train.Features(feature={
        "f": train.Feature(float_list=train.FloatList(value=[1.5, -2.0, 3.25])),
        "i": train.Feature(int64_list=train.Int64List(value=[1, -7, 300, 2 ** 40])),
        "b": train.Feature(bytes_list=train.BytesList(value=[b"ab", b"", b"xyz"])),
        "d": train.Feature(float_list=train.FloatList(value=[0.5, 4.0]))}))


def own_tensors(lib) -> list:
    """Tensors of several dtypes and ranks, for `lib.io.serialize_tensor`."""
    return [lib.constant([[1.5, -2.0, 3.0], [0.0, 4.0, 8.0]]),
            lib.constant([1, -2, 2 ** 40], lib.int64),
            lib.constant([b"a", b"bc", b""]),
            lib.constant([True, False]),
            lib.constant(7, lib.int32)]


# -- the mutator --------------------------------------------------------------------------------

INTERESTING = (0x00, 0x01, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x12,
               0x1A, 0x22)


def mutate(data: bytes, rng: random.Random, seeds: list) -> bytes:
    """One to three random edits of `data`: bit flips, bytes set, truncation, spans deleted,
    inserted or duplicated, a random field appended, another seed concatenated."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op, pos = rng.randrange(9), rng.randrange(len(out) + 1)
        if op == 0 and out:
            out[min(pos, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and out:
            out[min(pos, len(out) - 1)] = rng.randrange(256)
        elif op == 2:
            del out[pos:]
        elif op == 3:
            del out[pos:pos + rng.randint(1, 4)]
        elif op == 4:
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif op == 5 and out:
            start = rng.randrange(len(out))
            out[pos:pos] = out[start:start + rng.randint(1, 8)]
        elif op == 6 and out:
            out[min(pos, len(out) - 1)] = rng.choice(INTERESTING)
        elif op == 7:
            out += varint(rng.randint(1, 20) << 3 | rng.randrange(8)) + bytes(
                rng.randrange(256) for _ in range(rng.randint(0, 9)))
        else:
            out += rng.choice(seeds)
    return bytes(out)


# -- values as the fixture writes them ----------------------------------------------------------


def values_of(array) -> list:
    """Floats by their bits (exact, NaN too), bytes as hex, integers as int64."""
    array = np.asarray(array)
    if array.dtype.kind in "OS":
        return [bytes(v).hex() for v in array.reshape(-1)]
    if array.dtype == np.float32:
        return array.reshape(-1).view(np.uint32).tolist()
    if array.dtype == np.float64:
        return array.reshape(-1).view(np.uint64).tolist()
    return array.reshape(-1).astype(np.int64).tolist()


def parsed_values(result: dict, sparse_class) -> dict:
    """A parse_example result (`sparse_class`: the library's SparseTensor) as fixture values."""
    return {key: values_of(value.values if isinstance(value, sparse_class) else value)
            for key, value in sorted(result.items())}


def message_values(message) -> dict:
    """An Example message's features as {key: [kind, fixture values]} ([None, []] if unset)."""
    out = {}
    for key in sorted(message.features.feature):
        feature = message.features.feature[key]
        kind = feature.WhichOneof("kind")
        items = list(getattr(feature, kind).value) if kind else []
        if kind == "float_list":
            items = values_of(np.array(items, np.float32))
        elif kind == "bytes_list":
            items = [v.hex() for v in items]
        out[key] = [kind, items]
    return out
