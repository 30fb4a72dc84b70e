# ruff: noqa: E501 - the recorded programs are kept as written
"""Records TF 2.21's output of the tf.train.Example / tf.io parsing programs as fixtures.

Each program runs with `tf` bound to TensorFlow; its stdout is saved beside its source in
tests/io/fixtures/example_<name>.json, and tests/io/test_*example.py run the same source
with `tf` bound to tapeflow and compare the text. Run with TensorFlow's interpreter:

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_example_fixtures.py
"""

import contextlib
import io
import json
import pathlib

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "tests" / "io" / "fixtures"

# Example messages: constructors, oneof presence, text format, bytes (TF's deterministic map
# order), parsing back, container behaviour and TF's errors.
MESSAGES = r'''import numpy as np
T = tf.train


def tryit(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, str(e).split('}} ')[-1])


ex = T.Example(features=T.Features(feature={'b': T.Feature(int64_list=T.Int64List(value=[1,2])), 'a': T.Feature(float_list=T.FloatList(value=[1.5, 0.1])), 'c': T.Feature(bytes_list=T.BytesList(value=[b'x']))}))
print(ex.SerializeToString(deterministic=True))
print(ex)
e2 = T.Example.FromString(ex.SerializeToString())
print(e2 == ex, e2.features.feature['a'].float_list.value)
s = T.SequenceExample()
s.context.feature['c'].float_list.value.extend([1,2])
fl = s.feature_lists.feature_list['seq']
fl.feature.add().int64_list.value.append(5)
fl.feature.add().int64_list.value.extend([6,-7])
print(s); print(s.SerializeToString(deterministic=True))
print(T.SequenceExample.FromString(s.SerializeToString()) == s)
f = T.Feature()
print(repr(f), f.WhichOneof("kind"), f.HasField("int64_list"), f.SerializeToString())
x = f.int64_list
print(f.WhichOneof("kind"), f.HasField("int64_list"))
x.value.append(1)
print(f.WhichOneof("kind"), f.HasField("int64_list"))
f.float_list.value.append(2)
print(f.WhichOneof("kind"), f.HasField("int64_list"), f)
print(T.Feature(int64_list=T.Int64List()).SerializeToString())
ex = T.Example()
ex.features.feature['']
print(ex.HasField("features"), ex.SerializeToString(), repr(str(ex)))
print(T.BytesList(value=[b"h\xc3\xa9llo", b"\x00\xff'\"\\\n\t\r\x7f "]))
print(T.Features(feature={"é\n": T.Feature()}))
print(T.FloatList(value=[0.1, -2.5, float('nan'), float('inf'), -float('inf'), 1e20, 1e-7, 0.1234567, 123456789.0, 1.0, 100.0, 1e6, 1e-5,-0.0, 3.4e38, 1.0e-45]))
tryit(lambda: T.Int64List(value=[1.5]))
tryit(lambda: T.Int64List(value=[2**63]))
tryit(lambda: T.Int64List(value=["a"]))
tryit(lambda: T.Int64List(value=[np.int32(3), tf.constant(4)]))
tryit(lambda: T.Int64List(value=[True]))
tryit(lambda: T.Int64List(value=[np.True_]))
tryit(lambda: T.Int64List(value=[np.uint64(2**64-1)]))
tryit(lambda: T.Int64List(value=[np.float32(2)]))
tryit(lambda: T.FloatList(value=["a"]))
tryit(lambda: T.FloatList(value=[tf.constant(1.5), np.float64(0.1), 3]).value)
tryit(lambda: T.BytesList(value=["héllo", b"\x00\xff'\"\\\n"]))
print(T.BytesList(value=[b"h\xc3\xa9llo", b"\x00\xff'\"\\\n\t\r\x7f "]))
tryit(lambda: T.BytesList(value=[1]))
tryit(lambda: T.Feature(foo=1))
tryit(lambda: T.Feature(int64_list=T.Int64List(value=[1]), float_list=T.FloatList(value=[1])).WhichOneof("kind"))
f = T.Feature()
print(repr(f), f.WhichOneof("kind"), f.HasField("int64_list"), f.SerializeToString())
x = f.int64_list
print(f.WhichOneof("kind"), f.HasField("int64_list"))
x.value.append(1)
print(f.WhichOneof("kind"), f.HasField("int64_list"))
print(T.Feature(int64_list=T.Int64List()).SerializeToString(), T.Feature(int64_list=T.Int64List()).WhichOneof("kind"))
print(T.Int64List(value=[-1, 0, 300]).SerializeToString())
print(T.FloatList(value=[0.1, -2.5, float('nan'), float('inf'), -float('inf'), 1e20, 1e-7, 0.1234567, 123456789.0, 1.0, 100.0, 1e6, 1e-5,-0.0, 3.4e38, 1.0e-45]))
print(T.FloatList(value=[0.1, 2.5]).value)
print(repr(T.FloatList(value=[0.1, 2.5]).value[0]))
ex = T.Example()
print(ex.HasField("features"), ex.SerializeToString(), repr(str(ex)))
ex.features.feature['']
print(ex.HasField("features"), ex.SerializeToString(), repr(str(ex)))
ex.features.feature['a'].bytes_list.value.append(b'')
print(ex.SerializeToString(deterministic=True), repr(str(ex)))
tryit(lambda: T.Example(features={'feature': {'a': {'int64_list': {'value': [1]}}}}))
tryit(lambda: T.Example.FromString(b'\xff'))
tryit(lambda: T.Example.FromString(b'\n\x0c\n\n\n\x01a\x12\x05\x1a\x03\x08\x01\x08\x02').SerializeToString())
tryit(lambda: T.Example(features=T.Features(feature={'a': T.Feature()})) == T.Example(features=T.Features(feature={'a': T.Feature()})))
tryit(lambda: T.Example() == 1)
tryit(lambda: hash(T.Example()))
tryit(lambda: T.Example().ByteSize())
tryit(lambda: T.Example().ListFields())
tryit(lambda: T.Example().HasField("foo"))
tryit(lambda: T.Feature().WhichOneof("foo"))
tryit(lambda: T.Int64List().HasField("value"))
s = T.SequenceExample()
s.context.feature['c'].float_list.value.extend([1,2])
fl = s.feature_lists.feature_list['seq']
fl.feature.add().int64_list.value.append(5)
fl.feature.add().int64_list.value.extend([6,7])
print(s); print(s.SerializeToString())
tryit(lambda: repr(s.feature_lists.feature_list['seq'].feature))
tryit(lambda: s.feature_lists.feature_list['seq'].feature.append(T.Feature()))
tryit(lambda: s.feature_lists.feature_list['seq'].feature.extend([T.Feature()]))
tryit(lambda: len(s.feature_lists.feature_list['seq'].feature))
tryit(lambda: T.Int64List(value=np.array([1,2])))
tryit(lambda: T.FloatList(value=np.array([1,2.5])))
tryit(lambda: T.BytesList(value=np.array([b'a'])))
tryit(lambda: T.Int64List(value=1))
l = T.Int64List(value=[1,2,3]); tryit(lambda: l.value[1:]); tryit(lambda: l.value == [1,2,3])
l.value[0] = 9; del l.value[1]; print(l.value); tryit(lambda: l.value.pop()); tryit(lambda: l.value.insert(0, 7)); print(l.value); l.value.sort(); print(l.value)
tryit(lambda: T.Feature(int64_list=T.Int64List(value=[1])).int64_list is None)
ff = T.Features(feature={'a': T.Feature()})
tryit(lambda: ff.feature.get('b')); tryit(lambda: 'b' in ff.feature); tryit(lambda: ff.feature['b']); tryit(lambda: len(ff.feature))
tryit(lambda: ff.feature.__setitem__('c', T.Feature()))
tryit(lambda: ff.feature.get_or_create('d'))
tryit(lambda: ff.feature.pop('d'))
print(sorted(ff.feature))  # TF iterates maps in hash order
tryit(lambda: ff.feature.update({'q': T.Feature()}))
tryit(lambda: ff.feature.setdefault('r', T.Feature()))
tryit(lambda: ff.feature[1])
print(repr(T.Example().features))
'''

# parse_single_example / parse_example / parse_*sequence_example: values and TF's errors.
PARSE = r'''import numpy as np
T = tf.train


def tryit(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, str(e).split('}} ')[-1])


def ex(**kw):
    feats = {}
    for k, v in kw.items():
        if isinstance(v, list) and v and isinstance(v[0], bytes): feats[k] = T.Feature(bytes_list=T.BytesList(value=v))
        elif isinstance(v, list) and v and isinstance(v[0], float): feats[k] = T.Feature(float_list=T.FloatList(value=v))
        elif isinstance(v, list): feats[k] = T.Feature(int64_list=T.Int64List(value=v))
        else: feats[k] = T.Feature(**v)
    return T.Example(features=T.Features(feature=feats)).SerializeToString()
s = ex(a=[1,2], b=[1.5, 2.5], c=[b'x', b'yy'], e={'int64_list': T.Int64List()}, d={})
P1, PB = tf.io.parse_single_example, tf.io.parse_example
F, V, R = tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.RaggedFeature
tryit(lambda: P1(s, {'a': F([2], tf.int64), 'c': V(tf.string), 'b': F([], tf.float32, default_value=3), 'z': F([], tf.int64, default_value=7), 'r': R(tf.string, value_key='c2'), 'A': F([2], tf.int64, default_value=[0, 0])}))
tryit(lambda: PB([s, ex(a=[3,4], b=[2.0], A=[1,1], c2=[b'q'])], {'a': F([2], tf.int64), 'c': V(tf.string), 'b': F([], tf.float32, default_value=3), 'z': F([], tf.int64, default_value=7), 'r': R(tf.string, value_key='c2'), 'A': F([2], tf.int64, default_value=[0, 0])}))
for k, dt in [('a', tf.int64), ('b', tf.float32), ('c', tf.string)]:
    tryit(lambda: P1(s, {k: F([3], dt)}))
    tryit(lambda: P1(s, {k: F([1], dt)}))
    tryit(lambda: PB([s], {k: F([3], dt)}))
    tryit(lambda: P1(s, {k: tf.io.FixedLenSequenceFeature([3], dt, allow_missing=True)}))
    tryit(lambda: P1(s, {k: F([2], tf.string if dt != tf.string else tf.int64)}))
    tryit(lambda: P1(s, {k: V(tf.string if dt != tf.string else tf.int64)}))
for k in 'de':
    tryit(lambda: P1(s, {k: F([2], tf.int64)}))
    tryit(lambda: P1(s, {k: F([2], tf.int64, default_value=[5,5])}))
    tryit(lambda: P1(s, {k: F([0], tf.int64)}))
    tryit(lambda: P1(s, {k: V(tf.float32)}))
    tryit(lambda: P1(s, {k: R(tf.float32)}))
    tryit(lambda: PB([s], {k: tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}))
tryit(lambda: P1(b'garbage', {'a': F([2], tf.int64)}))
tryit(lambda: PB([b'', b'garbage'], {'a': F([2], tf.int64)}))
tryit(lambda: PB([b'', b'garbage'], {'a': V(tf.int64)}))
tryit(lambda: P1(b'', {'a': F([2], tf.int64, default_value=[1,1])}))
tryit(lambda: PB([ex(a=[1,2,3,4]), ex(a=[5])], {'a': tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}))
tryit(lambda: PB([ex(a=[1,2,3,4]), ex(a=[5,6])], {'a': tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True, default_value=-1)}))
tryit(lambda: PB([ex(v=[1,2,3,4,5], l=[2,3]), ex(v=[6], l=[0, 1])], {'r': R(tf.int64, value_key='v', partitions=[R.RowLengths('l')])}))
tryit(lambda: P1(ex(v=[1,2,3,4,5], l=[2,3]), {'r': R(tf.int64, value_key='v', partitions=[R.RowLengths('l')])}))
tryit(lambda: P1(ex(v=[1,2,3,4,5], l=[0, 2, 5]), {'r': R(tf.int64, value_key='v', partitions=[R.RowSplits('l')])}))
tryit(lambda: PB([ex(a=[1,2,3,4]), ex(a=[5,6])], {'a': R(tf.int64, row_splits_dtype=tf.int64)})['a'].row_splits)
tryit(lambda: PB([ex(a=[1,2,3]), ex(a=[])], {'a': V(tf.int64)}))
tryit(lambda: PB([s], {'c': F([2], tf.string)}, example_names=['ex0']))
tryit(lambda: PB([s], {'q': F([2], tf.string)}, example_names=['ex0']))
tryit(lambda: PB(tf.constant([], tf.string), {'c': F([2], tf.string), 'v': V(tf.int64)}))
tryit(lambda: P1(s, {'a': F([1,2], tf.int64)}))
tryit(lambda: PB([s], {'a': F([2], tf.int64, default_value=[9,9]), 'q': F([2,1], tf.int64, default_value=[[9],[8]])}))
tryit(lambda: P1(s, {'z': F([2], tf.string, default_value='q')}))
tryit(lambda: P1(s, {'z': F([1,2], tf.int64, default_value=5)}))
tryit(lambda: P1(s, {'a': F([], tf.int32)}))
tryit(lambda: P1(s, {}))
tryit(lambda: P1([s], {'a': F([2], tf.int64)}))
tryit(lambda: PB([[s]], {'a': F([2], tf.int64)}))
tryit(lambda: P1(s, {'a': tf.io.FixedLenSequenceFeature([], tf.int64)}))
tryit(lambda: P1(s, {'z': F([None], tf.string, default_value='q')}))
tryit(lambda: P1(s, {'c': V(tf.string), 'r': R(tf.string, value_key='c')}))
tryit(lambda: (F([], tf.int64), V(tf.int64), R(tf.int64), tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True), R.RowLengths('x')))
se = T.SequenceExample()
se.context.feature['c'].float_list.value.extend([1,2])
se.context.feature['n'].int64_list.value.extend([3])
fl = se.feature_lists.feature_list['seq']
fl.feature.add().int64_list.value.extend([5, 6])
fl.feature.add().int64_list.value.extend([7, 8])
fl = se.feature_lists.feature_list['tok']
fl.feature.add().bytes_list.value.extend([b'a'])
fl.feature.add().bytes_list.value.extend([b'b', b'c'])
fl.feature.add().bytes_list.value.extend([])
ss = se.SerializeToString()
se2 = T.SequenceExample(); se2.feature_lists.feature_list['seq'].feature.add().int64_list.value.extend([1, 1]); se2.context.feature['n'].int64_list.value.append(4)
ss2 = se2.SerializeToString()
cf = {'c': F([2], tf.float32, default_value=[0, 0]), 'n': F([], tf.int64)}
sf = {'seq': tf.io.FixedLenSequenceFeature([2], tf.int64), 'tok': V(tf.string)}
tryit(lambda: tf.io.parse_single_sequence_example(ss, cf, sf))
tryit(lambda: tf.io.parse_sequence_example([ss, ss2], cf, sf))
tryit(lambda: tf.io.parse_single_sequence_example(ss, None, {'seq': tf.io.FixedLenSequenceFeature([3], tf.int64)}))
'''

# The tutorial "TFRecord and tf.train.Example", without its downloaded images.
TUTORIAL = r'''# TF's tutorial "TFRecord and tf.train.Example" (tensorflow.org/tutorials/load_data/tfrecord),
# the parts without downloaded images; seeded, 100 observations, bytes printed in TF's
# deterministic map order (its default order is its hash table's, seeded per process).
import os
import tempfile

import numpy as np


def _bytes_feature(value):
    """Returns a bytes_list from a string / byte."""
    if isinstance(value, type(tf.constant(0))):
        value = value.numpy()  # BytesList won't unpack a string from an EagerTensor.
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def _float_feature(value):
    """Returns a float_list from a float / double."""
    return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))


def _int64_feature(value):
    """Returns an int64_list from a bool / enum / int / uint."""
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


print(_bytes_feature(b'test_string'))
print(_bytes_feature(u'test_bytes'.encode('utf-8')))
print(_float_feature(np.exp(1)))
try:
    print(_int64_feature(True))   # protobuf 7 (TF 2.21's) refuses bools in int64 fields
except TypeError as e:
    print("TypeError", e)
print(_int64_feature(1))
feature = _float_feature(np.exp(1))
print(feature.SerializeToString())

np.random.seed(0)
n_observations = 100
feature0 = np.random.choice([0, 1], n_observations)
feature1 = np.random.randint(0, 5, n_observations)
strings = np.array([b'cat', b'dog', b'chicken', b'horse', b'goat'])
feature2 = strings[feature1]
feature3 = np.random.randn(n_observations)


def serialize_example(feature0, feature1, feature2, feature3):
    feature = {
        'feature0': _int64_feature(feature0),
        'feature1': _int64_feature(feature1),
        'feature2': _bytes_feature(feature2),
        'feature3': _float_feature(feature3),
    }
    example_proto = tf.train.Example(features=tf.train.Features(feature=feature))
    return example_proto.SerializeToString(deterministic=True)


serialized_example = serialize_example(0, 4, b'goat', 0.9876)
print(serialized_example)
example_proto = tf.train.Example.FromString(serialized_example)
print(repr(example_proto))
print(example_proto == tf.train.Example.FromString(example_proto.SerializeToString()))

features_dataset = tf.data.Dataset.from_tensor_slices((feature0, feature1, feature2, feature3))
print(features_dataset)
for f0, f1, f2, f3 in features_dataset.take(1):
    print(f0)
    print(f1)
    print(f2)
    print(f3)
print(serialize_example(f0, f1, f2, f3))


def generator():
    for features in features_dataset:
        yield serialize_example(*features)


serialized_features_dataset = tf.data.Dataset.from_generator(
    generator, output_types=tf.string, output_shapes=())
print(serialized_features_dataset)

filename = os.path.join(tempfile.mkdtemp(), 'test.tfrecord')
with tf.io.TFRecordWriter(filename) as writer:
    for record in serialized_features_dataset:
        writer.write(record.numpy())

filenames = [filename]
raw_dataset = tf.data.TFRecordDataset(filenames)
print(raw_dataset)
for raw_record in raw_dataset.take(10):
    print(repr(raw_record))

feature_description = {
    'feature0': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature1': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature2': tf.io.FixedLenFeature([], tf.string, default_value=''),
    'feature3': tf.io.FixedLenFeature([], tf.float32, default_value=0.0),
}


def _parse_function(example_proto):
    # Parse the input `tf.train.Example` proto using the dictionary above.
    return tf.io.parse_single_example(example_proto, feature_description)


parsed_dataset = raw_dataset.map(_parse_function)
print(parsed_dataset)
for parsed_record in parsed_dataset.take(10):
    print(repr(parsed_record))

# TFRecord files in Python
with tf.io.TFRecordWriter(filename) as writer:
    for i in range(n_observations):
        example = serialize_example(feature0[i], feature1[i], feature2[i], feature3[i])
        writer.write(example)

raw_dataset = tf.data.TFRecordDataset(filenames)
for raw_record in raw_dataset.take(1):
    example = tf.train.Example()
    example.ParseFromString(raw_record.numpy())
    print(example)

result = {}
for key, feature in example.features.feature.items():
    kind = feature.WhichOneof('kind')
    result[key] = np.array(getattr(feature, kind).value)
print({k: result[k] for k in sorted(result)})

# batched parsing and compressed files
batched = raw_dataset.batch(4).map(lambda r: tf.io.parse_example(r, feature_description))
print(batched.element_spec)
print(next(iter(batched)))
for kind in ['GZIP', 'ZLIB']:
    path = filename + '.' + kind
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=kind)) as writer:
        for i in range(3):
            writer.write(serialize_example(feature0[i], feature1[i], feature2[i], feature3[i]))
    ds = tf.data.TFRecordDataset(path, compression_type=kind).map(_parse_function)
    print([r['feature2'].numpy() for r in ds])
'''

PROGRAMS = {"messages": MESSAGES, "parse": PARSE, "tutorial": TUTORIAL}


def run(source: str, tf) -> str:
    """The stdout of `source` run with `tf` as its TensorFlow module."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<program>", "exec"), {"tf": tf, "__name__": "__program__"})
    return out.getvalue()


def main() -> None:
    import tensorflow as tf
    for name, source in PROGRAMS.items():
        output = run(source, tf)
        path = FIXTURES / f"example_{name}.json"
        path.write_text(json.dumps({"program": source, "output": output}, indent=1) + "\n")
        print(f"wrote {path} ({len(output.splitlines())} lines)")


if __name__ == "__main__":
    main()
