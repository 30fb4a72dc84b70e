"""Seeded fuzzing of the protocol-buffer readers: a few hundred mutations of valid serialized
Examples, SequenceExamples and TensorProtos per reader. Each reader returns or raises only its
documented class (TF's: InvalidArgumentError for the parse ops, DecodeError for FromString),
never a Python internal error, and its memory stays bounded (tracemalloc peak, generous margin).
TF's exact answers on such mutations are replayed in test_untrusted_protobufs.py.
"""

from __future__ import annotations

import random
import struct
import tracemalloc

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.train.example import DecodeError

from _protobuf_bytes import delimited, entry, example, mutate, own_example, own_tensors, tensor_head

CASES_PER_READER = 400
SEED = 5150
# memory a parse may use beyond the input: its outputs and TF-shaped bookkeeping
PEAK_BASE, PEAK_PER_BYTE = 2 << 20, 64


def example_seeds() -> list:
    unpacked = example(entry(b"f", delimited(2, b"\x0d" + struct.pack("<f", 1.0) * 1)),
                       entry(b"i", delimited(3, b"\x08\x05\x08\x7f\x08\x80\x01")))
    return [own_example(tf).SerializeToString(), unpacked, b""]


def sequence_seeds() -> list:
    seq = tf.train.SequenceExample()
    seq.context.feature["c"].float_list.value.extend([1.0, 2.0])
    steps = seq.feature_lists.feature_list["s"]
    steps.feature.add().int64_list.value.extend([5, 6])
    steps.feature.add().int64_list.value.extend([7, 8])
    return [seq.SerializeToString()]


def tensor_seeds() -> list:
    own = [(bytes(tf.io.serialize_tensor(t).numpy()), t.dtype) for t in own_tensors(tf)]
    float_val = (tensor_head(1, 3) + delimited(5, struct.pack("<3f", 1, 2, 3)), tf.float32)
    int_val = (tensor_head(3, 3) + b"\x38\x04\x38\x05\x38\x06", tf.int32)
    return own + [float_val, int_val]


SPEC = {"b": tf.io.VarLenFeature(tf.string),
        "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        "f": tf.io.VarLenFeature(tf.float32),
        "i": tf.io.RaggedFeature(tf.int64),
        "s": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}
VALID_EXAMPLE = example_seeds()[0]
SEQUENCE_SPEC = ({"c": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0])},
                 {"s": tf.io.VarLenFeature(tf.int64)})

READERS = {
    "parse_example": (lambda data, _: tf.io.parse_example([VALID_EXAMPLE, data], SPEC),
                      tf.errors.InvalidArgumentError, example_seeds),
    "parse_single_example": (lambda data, _: tf.io.parse_single_example(data, SPEC),
                             tf.errors.InvalidArgumentError, example_seeds),
    "Example.FromString": (lambda data, _: tf.train.Example.FromString(data), DecodeError,
                           example_seeds),
    "parse_single_sequence_example": (
        lambda data, _: tf.io.parse_single_sequence_example(data, *SEQUENCE_SPEC),
        tf.errors.InvalidArgumentError, sequence_seeds),
    "SequenceExample.FromString": (lambda data, _: tf.train.SequenceExample.FromString(data),
                                   DecodeError, sequence_seeds),
    "parse_tensor": (lambda data, dtype: tf.io.parse_tensor(data, dtype),
                     tf.errors.InvalidArgumentError, tensor_seeds),
}


def _cases(reader: str) -> list:
    rng = random.Random(f"{SEED}-{reader}")
    seeds = READERS[reader][2]()
    pairs = [s if isinstance(s, tuple) else (s, None) for s in seeds]
    raw = [data for data, _ in pairs]
    out = list(pairs)
    while len(out) < CASES_PER_READER:
        data, dtype = rng.choice(pairs)
        out.append((mutate(data, rng, raw), dtype))
    return out


@pytest.mark.parametrize("reader", sorted(READERS))
def test_mutated_bytes_raise_only_the_readers_class_with_bounded_memory(reader):
    run, documented, _ = READERS[reader]
    outcomes = {"accepted": 0, "refused": 0}
    for data, dtype in _cases(reader):
        tracemalloc.start()
        try:
            result = run(data, dtype)
            outcomes["accepted"] += 1
            del result
        except documented as error:
            # a Python error inside a kernel reaches the user as InvalidArgumentError naming
            # the inputs' shapes: TF's own refusals never read so
            assert "(inputs: " not in str(error), (reader, data.hex(), str(error))
            outcomes["refused"] += 1
        except Exception as error:   # noqa: BLE001 - the point: nothing else may escape
            pytest.fail(f"{reader} raised {type(error).__name__}: {error} on {data.hex()}")
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak < PEAK_BASE + PEAK_PER_BYTE * len(data), (reader, data.hex(), peak)
    assert outcomes["accepted"] and outcomes["refused"], outcomes


def test_parse_tensor_values_from_mutations_have_the_declared_type():
    # whatever is accepted comes back as the requested dtype, never silently another
    for data, dtype in _cases("parse_tensor"):
        try:
            value = tf.io.parse_tensor(data, dtype)
        except tf.errors.InvalidArgumentError:
            continue
        assert value.dtype == dtype
        assert np.asarray(value).size == int(np.prod(value.shape))
