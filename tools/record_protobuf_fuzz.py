"""Records TensorFlow 2.21's verdicts on corrupt protocol-buffer bytes, for
tests/security/test_untrusted_protobufs.py: a seeded mutator over a few valid serialized
`tf.train.Example`s and TensorProtos, each case run through `tf.io.parse_example`,
`tf.io.parse_single_example`, `tf.train.Example.FromString` (Examples) or `tf.io.parse_tensor`
(TensorProtos), with TF's accept/reject, error class and text, and the parsed values.

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_protobuf_fuzz.py

It writes tests/security/fixtures/protobuf_fuzz.json. With `--crafted` it prints instead TF's
answers on the hand-crafted cases (CRAFTED below), as the literal CASES table of that test.
"""

from __future__ import annotations

import json
import os
import pprint
import random
import struct
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "security", "fixtures", "protobuf_fuzz.json")
SEED = 20261207
EXAMPLE_CASES = 200
TENSOR_CASES = 200


# -- wire helpers (hand-built, so that unpacked and odd encodings are covered too) -----------

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
    return delimited(1, delimited(1, key) + delimited(2, feature))


def example(*entries: bytes) -> bytes:
    return delimited(1, b"".join(entries))


def unpacked_floats(values: list) -> bytes:
    return b"".join(b"\x0d" + struct.pack("<f", v) for v in values)


def unpacked_ints(values: list) -> bytes:
    return b"".join(b"\x08" + varint(v) for v in values)


def example_seeds() -> list:
    """Valid Examples: TF's own bytes, and hand-built unpacked / merged encodings."""
    feature = tf.train.Feature
    own = tf.train.Example(features=tf.train.Features(feature={
        "f": feature(float_list=tf.train.FloatList(value=[1.5, -2.0, 3.25])),
        "i": feature(int64_list=tf.train.Int64List(value=[1, -7, 300, 2 ** 40])),
        "b": feature(bytes_list=tf.train.BytesList(value=[b"ab", b"", b"xyz"])),
        "d": feature(float_list=tf.train.FloatList(value=[0.5, 4.0]))}))
    return [
        own.SerializeToString(deterministic=True),
        example(entry(b"f", delimited(2, unpacked_floats([1.0, 2.0]))),
                entry(b"i", delimited(3, unpacked_ints([5, -1, 127, 128]))),
                entry(b"d", delimited(2, delimited(1, struct.pack("<2f", 7.0, 8.0))))),
        example(entry(b"b", delimited(1, delimited(1, b"q") + delimited(1, b"rs"))),
                entry(b"i", delimited(3, delimited(1, varint(3) + varint(2 ** 63))))),
        example(entry(b"f", delimited(2, delimited(1, struct.pack("<f", 9.5)))))
        + example(entry(b"b", delimited(1, delimited(1, b"late")))),
        example(),
    ]


def tensor_seeds() -> list:
    """Valid TensorProtos: serialize_tensor's bytes and hand-built *_val encodings."""
    own = [tf.io.serialize_tensor(t).numpy() for t in (
        tf.constant([[1.5, -2.0, 3.0], [0.0, 4.0, 8.0]]),
        tf.constant([1, -2, 2 ** 40], tf.int64),
        tf.constant([b"a", b"bc", b""]),
        tf.constant([True, False]),
        tf.constant(7, tf.int32))]
    shape = delimited(2, delimited(2, varint(8) + varint(3)))   # tensor_shape {dim {size: 3}}
    float_val = varint(8) + varint(1) + shape + delimited(5, struct.pack("<3f", 1.0, 2.0, 3.0))
    int_unpacked = varint(8) + varint(3) + shape + b"".join(
        varint(7 << 3) + varint(v) for v in (4, -5, 6))
    return own + [float_val, int_unpacked]


# -- the mutator ----------------------------------------------------------------------------------

INTERESTING = (0x00, 0x01, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x12,
               0x1A, 0x22)


def mutate(data: bytes, rng: random.Random, seeds: list) -> bytes:
    """One to three random edits of `data` (bit flips, bytes set, truncation, spans deleted,
    inserted or duplicated, fields appended, another seed concatenated)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        pos = rng.randrange(len(out) + 1)
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
            out += varint(rng.randint(1, 20) << 3 | rng.choice((0, 1, 2, 3, 4, 5, 6, 7))) + \
                bytes(rng.randrange(256) for _ in range(rng.randint(0, 9)))
        else:
            out += rng.choice(seeds)
    return bytes(out)


# -- TF's answers ---------------------------------------------------------------------------------

SPEC = {"b": tf.io.VarLenFeature(tf.string),
        "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        "f": tf.io.VarLenFeature(tf.float32),
        "i": tf.io.VarLenFeature(tf.int64)}


def message(error: Exception) -> str:
    """TF's error text without the eager function-node prefix and ' name: ' suffix."""
    text = str(error).split("}} ")[-1]
    return text[:-len(" name: ")] if text.endswith(" name: ") else text


def values_of(array: np.ndarray) -> list:
    """Values as JSON: floats by their bits (exact, NaN too), bytes as hex."""
    array = np.asarray(array)
    if array.dtype.kind in "OS":
        return [bytes(v).hex() for v in array.reshape(-1)]
    if array.dtype == np.float32:
        return array.reshape(-1).view(np.uint32).tolist()
    if array.dtype == np.float64:
        return array.reshape(-1).view(np.uint64).tolist()
    return array.reshape(-1).astype(np.int64).tolist()


def parsed_values(result: dict) -> dict:
    out = {}
    for key, value in sorted(result.items()):
        out[key] = values_of((value.values if isinstance(value, tf.SparseTensor) else
                              value).numpy())
    return out


def message_values(ex: tf.train.Example) -> dict:
    out = {}
    for key in sorted(ex.features.feature):
        feature = ex.features.feature[key]
        kind = feature.WhichOneof("kind")
        if kind is None:
            out[key] = [None, []]
            continue
        items = list(getattr(feature, kind).value)
        if kind == "float_list":
            items = values_of(np.array(items, np.float32))
        elif kind == "bytes_list":
            items = [v.hex() for v in items]
        out[key] = [kind, items]
    return out


def verdict(run) -> dict:
    try:
        return {"ok": True, "values": run()}
    except Exception as error:   # noqa: BLE001 - recording whatever TF raises
        return {"ok": False, "class": type(error).__name__, "text": message(error)}


def example_case(data: bytes) -> dict:
    return {"kind": "example", "hex": data.hex(),
            "parse_example": verdict(lambda: parsed_values(tf.io.parse_example([data], SPEC))),
            "parse_single_example": verdict(
                lambda: parsed_values(tf.io.parse_single_example(data, SPEC))),
            "from_string": verdict(lambda: message_values(tf.train.Example.FromString(data)))}


TENSOR_DTYPES = [tf.float32, tf.int64, tf.string, tf.bool, tf.int32, tf.float32, tf.int32]


def tensor_case(data: bytes, dtype: tf.DType) -> dict:
    def run() -> dict:
        tensor = tf.io.parse_tensor(data, dtype)
        return {"shape": tensor.shape.as_list(), "values": values_of(tensor.numpy())}
    return {"kind": "tensor", "hex": data.hex(), "dtype": dtype.name, "parse_tensor": verdict(run)}


# -- hand-crafted cases: one protobuf rule each ---------------------------------------------

def _float_feature(*values: float) -> bytes:
    return delimited(2, delimited(1, struct.pack(f"<{len(values)}f", *values)))


def _dims(*sizes: int) -> bytes:
    return delimited(2, b"".join(delimited(2, varint(8) + varint(s)) for s in sizes))


def _tensor_head(dtype: int, *sizes: int) -> bytes:
    return varint(8) + varint(dtype) + _dims(*sizes)


_GOOD = entry(b"f", _float_feature(1.5))
_F32 = struct.Struct("<f")
CRAFTED = {   # name: (bytes, dtype for parse_tensor or None for the Example readers)
    "truncated_packed_float": (example(entry(b"f", delimited(2, b"\x0a\x08" + _F32.pack(1)))),
                               None),
    "packed_float_len5": (example(entry(b"f", delimited(2, b"\x0a\x05" + _F32.pack(1) + b"\0"))),
                          None),
    "unpacked_then_packed_float": (example(entry(b"f", delimited(
        2, b"\x0d" + _F32.pack(2) + delimited(1, _F32.pack(1))))), None),
    "varint_11_bytes": (example(entry(b"i", delimited(3, delimited(1, b"\xff" * 10 + b"\x01")))),
                        None),
    "varint_10_bytes_high": (example(entry(b"i", delimited(3, delimited(
        1, b"\xff" * 9 + b"\x7f")))), None),
    "field_zero_top": (b"\0\0" + example(_GOOD), None),
    "unknown_group_top": (b"\x1b\x08\x01\x1c" + example(_GOOD), None),
    "wiretype6_top": (b"\x1e" + example(_GOOD), None),
    "truncated_unknown_delimited_top": (example(_GOOD) + b"\x1a\x09ab", None),
    "unknown_in_features": (delimited(1, b"\x10\x01" + _GOOD[2:]), None),
    "unknown_in_entry": (delimited(1, delimited(1, b"\x18\x01" + delimited(1, b"f")
                                                + delimited(2, _float_feature(1.5)))), None),
    "unknown_in_feature_first": (example(entry(b"f", b"\x20\x01" + _float_feature(1.5))), None),
    "features_length_huge": (b"\x0a\xff\xff\xff\xff\x0f" + _GOOD, None),
    "entry_key_only": (delimited(1, delimited(1, delimited(1, b"f"))), None),
    "duplicate_key_last_empty": (example(entry(b"f", _float_feature(1)), entry(b"f", b"")), None),
    "two_kinds_in_feature": (example(entry(b"f", _float_feature(1) + delimited(3, delimited(
        1, b"\x03")))), None),
    "bad_utf8_key": (example(entry(b"f\xff", _float_feature(1))), None),
    "bytes_list_wrong_tag": (example(entry(b"b", delimited(1, b"\x12\x02ab"))), None),
    "dense_packed_len7": (example(entry(b"d", delimited(2, delimited(1, struct.pack(
        "<2f", 1, 2)[:7])))), None),
    "t_truncated_packed_float_val": (_tensor_head(1, 3) + b"\x2a\x0c" + struct.pack("<2f", 1, 2),
                                     tf.float32),
    "t_packed_float_val_len_not_4": (_tensor_head(1, 3) + delimited(5, struct.pack("<2f", 1, 2)
                                                                    + b"\0"), tf.float32),
    "t_truncated_packed_int_val": (_tensor_head(3, 3) + b"\x3a\x05\x01\x02", tf.int32),
    "t_huge_dims_one_value": (_tensor_head(1, 1 << 50) + delimited(5, _F32.pack(1)), tf.float32),
    "t_huge_dims_no_values": (_tensor_head(1, 1 << 50), tf.float32),
    "t_huge_dims_content": (_tensor_head(1, 1 << 50) + delimited(4, bytes(4)), tf.float32),
    "t_dims_overflow": (_tensor_head(1, 1 << 40, 1 << 40) + delimited(5, _F32.pack(1)), tf.float32),
    "t_negative_dim": (_tensor_head(1, (1 << 64) - 1), tf.float32),
    "t_content_wrong_size": (_tensor_head(1, 2) + delimited(4, bytes(5)), tf.float32),
    "t_truncated_content": (_tensor_head(1, 2) + b"\x22\x08" + bytes(4), tf.float32),
    "t_wiretype6": (_tensor_head(1, 1) + b"\x0e", tf.float32),
    "t_field_zero": (b"\0\0" + _tensor_head(1, 1) + delimited(4, bytes(4)), tf.float32),
    "t_dtype_wrong_wiretype": (b"\x0d\x01\0\0\0" + _dims(1) + delimited(4, bytes(4)), tf.float32),
    "t_varint_11": (b"\x08\x81" + b"\x80" * 9 + b"\0" + _dims(1), tf.float32),
    "t_bad_dtype": (_tensor_head(999, 1), tf.float32),
    "t_float_val_fewer": (_tensor_head(1, 4) + delimited(5, struct.pack("<2f", 1, 2)), tf.float32),
    "t_int_val_mixed": (_tensor_head(3, 3) + b"\x38\x05" + delimited(7, b"\x06\x07"), tf.int32),
    "t_group": (_tensor_head(1, 1) + b"\xfb\x01\x08\x01\xfc\x01" + delimited(4, bytes(4)),
                tf.float32),
    "t_unknown_rank": (varint(8) + varint(1) + delimited(2, b"\x18\x01"), tf.float32),
    "t_string_fewer": (_tensor_head(7, 3) + delimited(8, b"ab"), tf.string),
}


def crafted_table() -> str:
    """TF's answers on CRAFTED, as the test's CASES literal (readers: batch = parse_example,
    single = parse_single_example, message = Example.FromString, tensor = parse_tensor)."""
    short = {"parse_example": "batch", "parse_single_example": "single",
             "from_string": "message", "parse_tensor": "tensor"}
    table = {}
    for name, (data, dtype) in CRAFTED.items():
        case = example_case(data) if dtype is None else tensor_case(data, dtype)
        row = {"hex": case["hex"]}
        for reader, key in short.items():
            if reader in case:
                answer = case[reader]
                row[key] = answer["values"] if answer["ok"] else (answer["class"], answer["text"])
        if dtype is not None:
            row["dtype"] = dtype.name
        table[name] = row
    return "CASES = " + pprint.pformat(table, width=112, sort_dicts=False)


def main() -> None:
    if "--crafted" in sys.argv:
        print(crafted_table())
        return
    rng = random.Random(SEED)
    examples, tensors = example_seeds(), tensor_seeds()
    cases = [example_case(s) for s in examples]
    cases += [tensor_case(s, d) for s, d in zip(tensors, TENSOR_DTYPES)]
    for _ in range(EXAMPLE_CASES):
        cases.append(example_case(mutate(rng.choice(examples), rng, examples)))
    for _ in range(TENSOR_CASES):
        index = rng.randrange(len(tensors))
        cases.append(tensor_case(mutate(tensors[index], rng, tensors), TENSOR_DTYPES[index]))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "seed": SEED, "cases": cases}, f, indent=0)
    rejected = sum(not v["ok"] for c in cases for k, v in c.items() if isinstance(v, dict))
    print(f"{len(cases)} cases, {rejected} reader verdicts are rejections -> {OUT}")


if __name__ == "__main__":
    main()
