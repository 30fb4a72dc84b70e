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

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "security"))
from _protobuf_bytes import (delimited, dims, entry, example, message_values,  # noqa: E402
                             mutate, own_example, own_tensors, parsed_values, tensor_head,
                             values_of, varint)

OUT = os.path.join(ROOT, "tests", "security", "fixtures", "protobuf_fuzz.json")
SEED = 20261207
EXAMPLE_CASES = 200
TENSOR_CASES = 200


# -- wire helpers (tests/security/_protobuf_bytes.py has varint, delimited, entry, example) --

def unpacked_floats(values: list) -> bytes:
    return b"".join(b"\x0d" + struct.pack("<f", v) for v in values)


def unpacked_ints(values: list) -> bytes:
    return b"".join(b"\x08" + varint(v) for v in values)


def example_seeds() -> list:
    """Valid Examples: TF's own bytes, and hand-built unpacked / merged encodings."""
    return [
        own_example(tf).SerializeToString(deterministic=True),
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
    own = [tf.io.serialize_tensor(t).numpy() for t in own_tensors(tf)]
    float_val = tensor_head(1, 3) + delimited(5, struct.pack("<3f", 1.0, 2.0, 3.0))
    int_unpacked = tensor_head(3, 3) + b"".join(varint(7 << 3) + varint(v) for v in (4, -5, 6))
    return own + [float_val, int_unpacked]


# -- TF's answers ---------------------------------------------------------------------------------

SPEC = {"b": tf.io.VarLenFeature(tf.string),
        "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        "f": tf.io.VarLenFeature(tf.float32),
        "i": tf.io.VarLenFeature(tf.int64)}


def message(error: Exception) -> str:
    """TF's error text without the eager function-node prefix and ' name: ' suffix."""
    text = str(error).split("}} ")[-1]
    return text[:-len(" name: ")] if text.endswith(" name: ") else text


def verdict(run) -> dict:
    try:
        return {"ok": True, "values": run()}
    except Exception as error:   # noqa: BLE001 - recording whatever TF raises
        return {"ok": False, "class": type(error).__name__, "text": message(error)}


def example_case(data: bytes) -> dict:
    return {"kind": "example", "hex": data.hex(),
            "parse_example": verdict(
                lambda: parsed_values(tf.io.parse_example([data], SPEC), tf.SparseTensor)),
            "parse_single_example": verdict(
                lambda: parsed_values(tf.io.parse_single_example(data, SPEC), tf.SparseTensor)),
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
    "t_truncated_packed_float_val": (tensor_head(1, 3) + b"\x2a\x0c" + struct.pack("<2f", 1, 2),
                                     tf.float32),
    "t_packed_float_val_len_not_4": (tensor_head(1, 3) + delimited(5, struct.pack("<2f", 1, 2)
                                                                    + b"\0"), tf.float32),
    "t_truncated_packed_int_val": (tensor_head(3, 3) + b"\x3a\x05\x01\x02", tf.int32),
    "t_huge_dims_one_value": (tensor_head(1, 1 << 50) + delimited(5, _F32.pack(1)), tf.float32),
    "t_huge_dims_no_values": (tensor_head(1, 1 << 50), tf.float32),
    "t_huge_dims_content": (tensor_head(1, 1 << 50) + delimited(4, bytes(4)), tf.float32),
    "t_dims_overflow": (tensor_head(1, 1 << 40, 1 << 40) + delimited(5, _F32.pack(1)), tf.float32),
    "t_negative_dim": (tensor_head(1, (1 << 64) - 1), tf.float32),
    "t_content_wrong_size": (tensor_head(1, 2) + delimited(4, bytes(5)), tf.float32),
    "t_truncated_content": (tensor_head(1, 2) + b"\x22\x08" + bytes(4), tf.float32),
    "t_wiretype6": (tensor_head(1, 1) + b"\x0e", tf.float32),
    "t_field_zero": (b"\0\0" + tensor_head(1, 1) + delimited(4, bytes(4)), tf.float32),
    "t_dtype_wrong_wiretype": (b"\x0d\x01\0\0\0" + dims(1) + delimited(4, bytes(4)), tf.float32),
    "t_varint_11": (b"\x08\x81" + b"\x80" * 9 + b"\0" + dims(1), tf.float32),
    "t_bad_dtype": (tensor_head(999, 1), tf.float32),
    "t_float_val_fewer": (tensor_head(1, 4) + delimited(5, struct.pack("<2f", 1, 2)), tf.float32),
    "t_int_val_mixed": (tensor_head(3, 3) + b"\x38\x05" + delimited(7, b"\x06\x07"), tf.int32),
    "t_group": (tensor_head(1, 1) + b"\xfb\x01\x08\x01\xfc\x01" + delimited(4, bytes(4)),
                tf.float32),
    "t_unknown_rank": (varint(8) + varint(1) + delimited(2, b"\x18\x01"), tf.float32),
    "t_string_fewer": (tensor_head(7, 3) + delimited(8, b"ab"), tf.string),
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
