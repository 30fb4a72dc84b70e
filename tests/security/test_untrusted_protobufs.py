"""Protocol-buffer bytes from strangers: tf.io.parse_tensor, tf.io.parse_example /
parse_single_example and tf.train.Example.FromString decide every corrupt input as TensorFlow
2.21 does (accept or reject, error class and text, parsed values), and never fail with a Python
internal error or allocate what a declared shape claims before the content is checked.

The crafted cases' answers below were measured with TF 2.21 / Keras 3.15.1 (tf.io.parse_example
and parse_single_example run TF's own fast Example parser, FromString runs upb, parse_tensor
runs C++ protobuf: they disagree with each other, and tapeflow follows each). The fixture
tests/security/fixtures/protobuf_fuzz.json holds TF's answers on ~400 seeded mutations of valid
Examples and TensorProtos, recorded once by tools/record_protobuf_fuzz.py.
"""

from __future__ import annotations

import json
import pathlib
import re
import tracemalloc

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.train.example import DecodeError

from _protobuf_bytes import delimited, entry, message_values, parsed_values, values_of
from _protobuf_bytes import example as example_bytes

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "protobuf_fuzz.json"

# The parse spec the fixture and the crafted Example cases were run with in TF.
SPEC = {"b": tf.io.VarLenFeature(tf.string),
        "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        "f": tf.io.VarLenFeature(tf.float32),
        "i": tf.io.VarLenFeature(tf.int64)}
CLASSES = {"InvalidArgumentError": tf.errors.InvalidArgumentError, "DecodeError": DecodeError,
           "UnicodeDecodeError": UnicodeDecodeError}


def run(reader: str, data: bytes, dtype: str = "float32"):
    """What one reader makes of `data`, in the fixture's terms."""
    if reader == "batch":
        return parsed_values(tf.io.parse_example([data], SPEC), tf.SparseTensor)
    if reader == "single":
        return parsed_values(tf.io.parse_single_example(data, SPEC), tf.SparseTensor)
    if reader == "message":
        return message_values(tf.train.Example.FromString(data))
    tensor = tf.io.parse_tensor(data, dtype)
    return {"shape": list(tensor.shape), "values": values_of(tensor)}


def normalized(text: str) -> str:
    """TF's text without what varies from run to run: protobuf's random debug-string marker
    (goo.gle/debugonly, debugstr, ... and 3 or 4 spaces), and a UnicodeDecodeError's position
    (it counts TF's function-node prefix, which tapeflow's message has not)."""
    text = re.sub(r"goo\.gle/debug\w* *\n", "goo.gle/debug\n", text)
    return re.sub(r"in position \d+(-\d+)?:", "in position N:", text)


def check(reader: str, data: bytes, expected, dtype: str = "float32") -> None:
    if isinstance(expected, tuple):
        name, text = expected
        with pytest.raises(CLASSES[name]) as info:
            run(reader, data, dtype)
        assert normalized(str(info.value)) == normalized(text)
    else:
        assert run(reader, data, dtype) == expected


# -- crafted cases, TF 2.21's answers --------------------------------------------------------------
# Printed by `tools/record_protobuf_fuzz.py --crafted` (TF 2.21 / Keras 3.15.1), protobuf's random
# debug-string marker written as goo.gle/debug. Readers: batch = parse_example([x]), single =
# parse_single_example, message = Example.FromString, tensor = parse_tensor(x, dtype); values as in
# the fixture (float bits, bytes in hex).

CASES = {'truncated_packed_float': {'hex': '0a0f0a0d0a0166120812060a080000803f',
                            'batch': ('InvalidArgumentError',
                                      "Name: <unknown>, Key: f, Index: 0.  Can't parse serialized Example. "
                                      '[Op:ParseExampleV2]'),
                            'single': ('InvalidArgumentError',
                                       "Key: f.  Can't parse serialized Example: Parsing float_list failed. "
                                       '[Op:ParseExampleV2]'),
                            'message': ('DecodeError',
                                        "Error parsing message with type 'tensorflow.Example': Wire format was "
                                        'corrupt')},
 'packed_float_len5': {'hex': '0a100a0e0a0166120912070a050000803f00',
                       'batch': {'b': [], 'd': [0, 0], 'f': [1065353216], 'i': []},
                       'single': {'b': [], 'd': [0, 0], 'f': [1065353216], 'i': []},
                       'message': ('DecodeError',
                                   "Error parsing message with type 'tensorflow.Example': Wire format was "
                                   'corrupt')},
 'unpacked_then_packed_float': {'hex': '0a140a120a0166120d120b0d000000400a040000803f',
                                'batch': ('InvalidArgumentError',
                                          "Name: <unknown>, Key: f, Index: 0.  Can't parse serialized Example. "
                                          '[Op:ParseExampleV2]'),
                                'single': ('InvalidArgumentError',
                                           "Key: f.  Can't parse serialized Example: Parsing float_list "
                                           'failed. [Op:ParseExampleV2]'),
                                'message': {'f': ['float_list', [1073741824, 1065353216]]}},
 'varint_11_bytes': {'hex': '0a160a140a0169120f1a0d0a0bffffffffffffffffffff01',
                     'batch': ('InvalidArgumentError',
                               "Name: <unknown>, Key: i, Index: 0.  Can't parse serialized Example. "
                               '[Op:ParseExampleV2]'),
                     'single': ('InvalidArgumentError',
                                "Key: i.  Can't parse serialized Example: Parsing int64_list failed. "
                                '[Op:ParseExampleV2]'),
                     'message': ('DecodeError',
                                 "Error parsing message with type 'tensorflow.Example': Wire format was "
                                 'corrupt')},
 'varint_10_bytes_high': {'hex': '0a150a130a0169120e1a0c0a0affffffffffffffffff7f',
                          'batch': {'b': [], 'd': [0, 0], 'f': [], 'i': [-1]},
                          'single': {'b': [], 'd': [0, 0], 'f': [], 'i': [-1]},
                          'message': {'i': ['int64_list', [-1]]}},
 'field_zero_top': {'hex': '00000a0f0a0d0a0166120812060a040000c03f',
                    'batch': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                    'single': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                    'message': ('DecodeError',
                                "Error parsing message with type 'tensorflow.Example': Wire format was "
                                'corrupt')},
 'unknown_group_top': {'hex': '1b08011c0a0f0a0d0a0166120812060a040000c03f',
                       'batch': ('InvalidArgumentError',
                                 "Could not parse example input, value: '\x1b\x08\x01\x1c"
                                 '\n'
                                 '\x0f\n'
                                 '\r\n'
                                 '\x01f\x12\x08\x12\x06\n'
                                 '\x04 [Op:ParseExampleV2]'),
                       'single': ('InvalidArgumentError',
                                  "Could not parse example input, value: '\x1b\x08\x01\x1c"
                                  '\n'
                                  '\x0f\n'
                                  '\r\n'
                                  '\x01f\x12\x08\x12\x06\n'
                                  '\x04 [Op:ParseExampleV2]'),
                       'message': {'f': ['float_list', [1069547520]]}},
 'wiretype6_top': {'hex': '1e0a0f0a0d0a0166120812060a040000c03f',
                   'batch': ('InvalidArgumentError',
                             "Could not parse example input, value: '\x1e"
                             '\n'
                             '\x0f\n'
                             '\r\n'
                             '\x01f\x12\x08\x12\x06\n'
                             '\x04 [Op:ParseExampleV2]'),
                   'single': ('InvalidArgumentError',
                              "Could not parse example input, value: '\x1e"
                              '\n'
                              '\x0f\n'
                              '\r\n'
                              '\x01f\x12\x08\x12\x06\n'
                              '\x04 [Op:ParseExampleV2]'),
                   'message': ('DecodeError',
                               "Error parsing message with type 'tensorflow.Example': Wire format was "
                               'corrupt')},
 'truncated_unknown_delimited_top': {'hex': '0a0f0a0d0a0166120812060a040000c03f1a096162',
                                     'batch': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                                     'single': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                                     'message': ('DecodeError',
                                                 "Error parsing message with type 'tensorflow.Example': Wire "
                                                 'format was corrupt')},
 'unknown_in_features': {'hex': '0a0f10010a0166120812060a040000c03f',
                         'batch': ('InvalidArgumentError',
                                   "Could not parse example input, value: '\n"
                                   '\x0f\x10\x01\n'
                                   '\x01f\x12\x08\x12\x06\n'
                                   '\x04 [Op:ParseExampleV2]'),
                         'single': ('InvalidArgumentError',
                                    "Could not parse example input, value: '\n"
                                    '\x0f\x10\x01\n'
                                    '\x01f\x12\x08\x12\x06\n'
                                    '\x04 [Op:ParseExampleV2]'),
                         'message': ('DecodeError',
                                     "Error parsing message with type 'tensorflow.Example': Wire format was "
                                     'corrupt')},
 'unknown_in_entry': {'hex': '0a110a0f18010a0166120812060a040000c03f',
                      'batch': ('InvalidArgumentError',
                                "Could not parse example input, value: '\n"
                                '\x11\n'
                                '\x0f\x18\x01\n'
                                '\x01f\x12\x08\x12\x06\n'
                                '\x04 [Op:ParseExampleV2]'),
                      'single': ('InvalidArgumentError',
                                 "Could not parse example input, value: '\n"
                                 '\x11\n'
                                 '\x0f\x18\x01\n'
                                 '\x01f\x12\x08\x12\x06\n'
                                 '\x04 [Op:ParseExampleV2]'),
                      'message': {}},
 'unknown_in_feature_first': {'hex': '0a110a0f0a0166120a200112060a040000c03f',
                              'batch': ('InvalidArgumentError', 'Unsupported datatype. [Op:ParseExampleV2]'),
                              'single': ('InvalidArgumentError', 'Unsupported datatype. [Op:ParseExampleV2]'),
                              'message': {'f': ['float_list', [1069547520]]}},
 'features_length_huge': {'hex': '0affffffff0f0a0d0a0166120812060a040000c03f',
                          'batch': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                          'single': {'b': [], 'd': [0, 0], 'f': [1069547520], 'i': []},
                          'message': ('DecodeError',
                                      "Error parsing message with type 'tensorflow.Example': Wire format was "
                                      'corrupt')},
 'entry_key_only': {'hex': '0a050a030a0166',
                    'batch': ('InvalidArgumentError',
                              "Could not parse example input, value: '\n"
                              '\x05\n'
                              '\x03\n'
                              "\x01f' [Op:ParseExampleV2]"),
                    'single': ('InvalidArgumentError',
                               "Could not parse example input, value: '\n"
                               '\x05\n'
                               '\x03\n'
                               "\x01f' [Op:ParseExampleV2]"),
                    'message': {'f': [None, []]}},
 'duplicate_key_last_empty': {'hex': '0a160a0d0a0166120812060a040000803f0a050a01661200',
                              'batch': {'b': [], 'd': [0, 0], 'f': [], 'i': []},
                              'single': {'b': [], 'd': [0, 0], 'f': [1065353216], 'i': []},
                              'message': {'f': [None, []]}},
 'two_kinds_in_feature': {'hex': '0a140a120a0166120d12060a040000803f1a030a0103',
                          'batch': {'b': [], 'd': [0, 0], 'f': [1065353216], 'i': []},
                          'single': {'b': [], 'd': [0, 0], 'f': [1065353216], 'i': []},
                          'message': {'f': ['int64_list', [3]]}},
 'bad_utf8_key': {'hex': '0a100a0e0a0266ff120812060a040000803f',
                  'batch': {'b': [], 'd': [0, 0], 'f': [], 'i': []},
                  'single': {'b': [], 'd': [0, 0], 'f': [], 'i': []},
                  'message': ('DecodeError',
                              "Error parsing message with type 'tensorflow.Example': String field had bad "
                              'UTF-8')},
 'bytes_list_wrong_tag': {'hex': '0a0d0a0b0a016212060a0412026162',
                          'batch': ('InvalidArgumentError',
                                    "Name: <unknown>, Key: b, Index: 0.  Can't parse serialized Example. "
                                    '[Op:ParseExampleV2]'),
                          'single': ('InvalidArgumentError',
                                     "Key: b.  Can't parse serialized Example: Could not get num elements in "
                                     'bytes_list. [Op:ParseExampleV2]'),
                          'message': {'b': ['bytes_list', []]}},
 'dense_packed_len7': {'hex': '0a120a100a0164120b12090a070000803f000000',
                       'batch': ('InvalidArgumentError',
                                 'Name: <unknown>, Key: d, Index: 0.  Number of float values != expected.  '
                                 'Values size: 1 but output shape: [2] [Op:ParseExampleV2]'),
                       'single': ('InvalidArgumentError',
                                  "Key: d.  Can't parse serialized Example: Some float_list slice was not "
                                  'parsed. [Op:ParseExampleV2]'),
                       'message': ('DecodeError',
                                   "Error parsing message with type 'tensorflow.Example': Wire format was "
                                   'corrupt')},
 't_truncated_packed_float_val': {'hex': '08011204120208032a0c0000803f00000040',
                                  'tensor': ('InvalidArgumentError',
                                             'Could not parse `serialized` as TensorProto, base64: '
                                             'CAESBBICCAMqDAAAgD8AAABA [Op:ParseTensor]'),
                                  'dtype': 'float32'},
 't_packed_float_val_len_not_4': {'hex': '08011204120208032a090000803f0000004000',
                                  'tensor': ('InvalidArgumentError',
                                             'Could not parse `serialized` as TensorProto, base64: '
                                             'CAESBBICCAMqCQAAgD8AAABAAA== [Op:ParseTensor]'),
                                  'dtype': 'float32'},
 't_truncated_packed_int_val': {'hex': '08031204120208033a050102',
                                'tensor': ('InvalidArgumentError',
                                           'Could not parse `serialized` as TensorProto, base64: '
                                           'CAMSBBICCAM6BQEC [Op:ParseTensor]'),
                                'dtype': 'int32'},
 't_huge_dims_one_value': {'hex': '0801120b12090880808080808080022a040000803f',
                           'tensor': ('InvalidArgumentError',
                                      'Cannot parse tensor from proto: goo.gle/debug\n'
                                      'dtype: DT_FLOAT\n'
                                      'tensor_shape {\n'
                                      '  dim {\n'
                                      '    size: 1125899906842624\n'
                                      '  }\n'
                                      '}\n'
                                      'float_val: 1\n'
                                      ' [Op:ParseTensor]'),
                           'dtype': 'float32'},
 't_huge_dims_no_values': {'hex': '0801120b1209088080808080808002',
                           'tensor': ('InvalidArgumentError',
                                      'Cannot parse tensor from proto: goo.gle/debug\n'
                                      'dtype: DT_FLOAT\n'
                                      'tensor_shape {\n'
                                      '  dim {\n'
                                      '    size: 1125899906842624\n'
                                      '  }\n'
                                      '}\n'
                                      ' [Op:ParseTensor]'),
                           'dtype': 'float32'},
 't_huge_dims_content': {'hex': '0801120b1209088080808080808002220400000000',
                         'tensor': ('InvalidArgumentError',
                                    'Cannot parse tensor from proto: goo.gle/debug\n'
                                    'dtype: DT_FLOAT\n'
                                    'tensor_shape {\n'
                                    '  dim {\n'
                                    '    size: 1125899906842624\n'
                                    '  }\n'
                                    '}\n'
                                    'tensor_content: "\\000\\000\\000\\000"\n'
                                    ' [Op:ParseTensor]'),
                         'dtype': 'float32'},
 't_dims_overflow': {'hex': '080112121207088080808080201207088080808080202a040000803f',
                     'tensor': ('InvalidArgumentError',
                                'Cannot parse tensor from proto: goo.gle/debug\n'
                                'dtype: DT_FLOAT\n'
                                'tensor_shape {\n'
                                '  dim {\n'
                                '    size: 1099511627776\n'
                                '  }\n'
                                '  dim {\n'
                                '    size: 1099511627776\n'
                                '  }\n'
                                '}\n'
                                'float_val: 1\n'
                                ' [Op:ParseTensor]'),
                     'dtype': 'float32'},
 't_negative_dim': {'hex': '0801120d120b08ffffffffffffffffff01',
                    'tensor': ('InvalidArgumentError',
                               'Cannot parse tensor from proto: goo.gle/debug\n'
                               'dtype: DT_FLOAT\n'
                               'tensor_shape {\n'
                               '  dim {\n'
                               '    size: -1\n'
                               '  }\n'
                               '}\n'
                               ' [Op:ParseTensor]'),
                    'dtype': 'float32'},
 't_content_wrong_size': {'hex': '080112041202080222050000000000',
                          'tensor': ('InvalidArgumentError',
                                     'Cannot parse tensor from proto: goo.gle/debug\n'
                                     'dtype: DT_FLOAT\n'
                                     'tensor_shape {\n'
                                     '  dim {\n'
                                     '    size: 2\n'
                                     '  }\n'
                                     '}\n'
                                     'tensor_content: "\\000\\000\\000\\000\\000"\n'
                                     ' [Op:ParseTensor]'),
                          'dtype': 'float32'},
 't_truncated_content': {'hex': '0801120412020802220800000000',
                         'tensor': ('InvalidArgumentError',
                                    'Could not parse `serialized` as TensorProto, base64: CAESBBICCAIiCAAAAAA= '
                                    '[Op:ParseTensor]'),
                         'dtype': 'float32'},
 't_wiretype6': {'hex': '08011204120208010e',
                 'tensor': ('InvalidArgumentError',
                            'Could not parse `serialized` as TensorProto, base64: CAESBBICCAEO '
                            '[Op:ParseTensor]'),
                 'dtype': 'float32'},
 't_field_zero': {'hex': '00000801120412020801220400000000',
                  'tensor': ('InvalidArgumentError',
                             'Could not parse `serialized` as TensorProto, base64: AAAIARIEEgIIASIEAAAAAA== '
                             '[Op:ParseTensor]'),
                  'dtype': 'float32'},
 't_dtype_wrong_wiretype': {'hex': '0d01000000120412020801220400000000',
                            'tensor': ('InvalidArgumentError',
                                       'Cannot parse tensor from proto: goo.gle/debug\n'
                                       'tensor_shape {\n'
                                       '  dim {\n'
                                       '    size: 1\n'
                                       '  }\n'
                                       '}\n'
                                       'tensor_content: "\\000\\000\\000\\000"\n'
                                       '1: UNKNOWN_FIXED32 [REDACTED]\n'
                                       ' [Op:ParseTensor]'),
                            'dtype': 'float32'},
 't_varint_11': {'hex': '088180808080808080808000120412020801',
                 'tensor': ('InvalidArgumentError',
                            'Could not parse `serialized` as TensorProto, base64: CIGAgICAgICAgIAAEgQSAggB '
                            '[Op:ParseTensor]'),
                 'dtype': 'float32'},
 't_bad_dtype': {'hex': '08e707120412020801',
                 'tensor': ('InvalidArgumentError',
                            'Cannot parse tensor from proto: goo.gle/debug\n'
                            'dtype: 999\n'
                            'tensor_shape {\n'
                            '  dim {\n'
                            '    size: 1\n'
                            '  }\n'
                            '}\n'
                            ' [Op:ParseTensor]'),
                 'dtype': 'float32'},
 't_float_val_fewer': {'hex': '08011204120208042a080000803f00000040',
                       'tensor': {'shape': [4], 'values': [1065353216, 1073741824, 1073741824, 1073741824]},
                       'dtype': 'float32'},
 't_int_val_mixed': {'hex': '080312041202080338053a020607',
                     'tensor': {'shape': [3], 'values': [5, 6, 7]},
                     'dtype': 'int32'},
 't_group': {'hex': '0801120412020801fb010801fc01220400000000',
             'tensor': {'shape': [1], 'values': [0]},
             'dtype': 'float32'},
 't_unknown_rank': {'hex': '080112021801', 'tensor': {'shape': [], 'values': [0]}, 'dtype': 'float32'},
 't_string_fewer': {'hex': '080712041202080342026162',
                    'tensor': {'shape': [3], 'values': ['6162', '6162', '6162']},
                    'dtype': 'string'}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_bytes_are_decided_as_tf_decides_them(name):
    case = CASES[name]
    for reader in ("batch", "single", "message", "tensor"):
        if reader in case:
            check(reader, bytes.fromhex(case["hex"]), case[reader], case.get("dtype", "float32"))


def test_truncated_packed_field_is_tfs_error_not_struct_error():
    # float_val declares 12 bytes, 8 follow: TF's parse error, never struct.error
    data = bytes.fromhex(CASES["t_truncated_packed_float_val"]["hex"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as "
                                                             "TensorProto, base64: CAES"):
        tf.io.parse_tensor(data, tf.float32)


@pytest.mark.parametrize("name", ["t_huge_dims_one_value", "t_huge_dims_no_values",
                                  "t_huge_dims_content", "t_dims_overflow"])
def test_huge_declared_shape_is_refused_before_anything_is_allocated(name):
    data = bytes.fromhex(CASES[name]["hex"])
    tracemalloc.start()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot parse tensor from proto"):
            tf.io.parse_tensor(data, tf.float32)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20       # 2**50 floats were declared


def test_refused_bytes_leave_the_message_as_it_was():
    example = tf.train.Example()
    example.features.feature["kept"].int64_list.value.append(7)
    before = example.SerializeToString()
    with pytest.raises(DecodeError, match="Wire format was corrupt"):
        example.MergeFromString(bytes.fromhex(CASES["wiretype6_top"]["hex"]))
    assert example.SerializeToString() == before


def test_merged_bytes_replace_map_entries_as_protobuf_does():
    # TF 2.21: an entry of the same key replaces the message's (f == [2.0]), others are added
    example = tf.train.Example()
    example.features.feature["f"].float_list.value.append(1.0)
    other = tf.train.Example()
    other.features.feature["f"].float_list.value.append(2.0)
    other.features.feature["g"].int64_list.value.append(3)
    example.MergeFromString(other.SerializeToString())
    assert list(example.features.feature["f"].float_list.value) == [2.0]
    assert list(example.features.feature["g"].int64_list.value) == [3]


def test_non_utf8_corrupt_record_raises_as_tf_and_as_invalid_argument():
    # TF cannot decode its own "Could not parse example input" message for these bytes and raises
    # UnicodeDecodeError; tapeflow's error is that, and an InvalidArgumentError as well
    data = bytes.fromhex("bf750a")
    for reader in ("batch", "single"):
        with pytest.raises(UnicodeDecodeError, match="can't decode byte 0xbf") as info:
            run(reader, data)
        assert isinstance(info.value, tf.errors.InvalidArgumentError)


def test_large_example_parses_with_bounded_memory():
    # ~3.9 MB: 700k unpacked floats and 100k unpacked int64s, the encodings that cost a Python
    # object per value before
    floats = np.arange(700_000, dtype=np.float32)
    float_list = np.concatenate([np.full((floats.size, 1), 0x0D, np.uint8),
                                 floats.view(np.uint8).reshape(-1, 4)], axis=1).tobytes()
    data = example_bytes(entry(b"f", delimited(2, float_list)))
    tracemalloc.start()
    try:
        out = tf.io.parse_single_example(data, {"f": tf.io.VarLenFeature(tf.float32)})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(np.asarray(out["f"].values), floats)
    assert peak < 12 * len(data)
    message = tf.train.Example.FromString(data)
    assert len(message.features.feature["f"].float_list.value) == floats.size


# -- the fuzz fixture: TF's answers on seeded mutations --------------------------------------------

def _fixture_checks() -> list:
    cases = json.loads(FIXTURE.read_text())["cases"]
    readers = {"parse_example": "batch", "parse_single_example": "single",
               "from_string": "message", "parse_tensor": "tensor"}
    out = []
    for case in cases:
        for key, reader in readers.items():
            if key in case:
                answer = case[key]
                expected = answer["values"] if answer["ok"] else (answer["class"], answer["text"])
                out.append((reader, bytes.fromhex(case["hex"]), expected, case.get("dtype", "")))
    return out


def test_fixture_replay_agrees_with_tf_on_every_case():
    checks = _fixture_checks()
    disagreements = []
    for reader, data, expected, dtype in checks:
        try:
            check(reader, data, expected, dtype or "float32")
        except AssertionError as error:        # collect them all, then report
            disagreements.append((reader, data.hex(), str(error)[:300]))
    assert len(checks) > 800
    assert not disagreements, disagreements[:5]
