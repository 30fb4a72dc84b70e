"""Records TensorFlow 2.21's printed answers for tapeflow's ragged tests (run where TensorFlow
is installed; CI does not run it):

    python tools/record_ragged_fixtures.py   # writes tests/ragged/fixtures/ragged.json

Each case is a small program over `tf` (and `np`); its printed text is recorded, or
`ERROR <class name>` where it raises. The `guide_*` cases are the examples of TensorFlow's
guide "Ragged tensors" (tensorflow.org/guide/ragged_tensor) that need no strings, as
written there. tests/ragged/test_ragged_fixtures.py runs every program on tapeflow and
compares its printed text.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ragged" / "fixtures" / \
    "ragged.json"

DIGITS = "digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])\n"
# An error's text without TF's eager decorations, which tapeflow's messages leave out
# (the kernel's `{{function_node ...}}` prefix and the trailing ` name: ...`).
KERNEL_TEXT = """
import re
def kernel_text(e):
  return re.sub(r" name: [^\\n]*$", "", re.sub(r"^\\{\\{function_node [^}]*\\}\\} ", "", str(e)))
# Prints f()'s value, or its error's class and TF's kernel text.
def show(f):
  try:
    print(f())
  except Exception as e:
    print(type(e).__name__, kernel_text(e))
"""

CASES = {
    # -- TensorFlow's guide "Ragged tensors" --------------------------------------------------
    "guide_overview": DIGITS + """
print(tf.add(digits, 3))
print(tf.reduce_mean(digits, axis=1))
print(tf.concat([digits, [[5, 3]]], axis=0))
""",
    "guide_indexing_intro": DIGITS + """
print(digits[0])       # First row
print(digits[:, :2])   # First two values in each row.
print(digits[2:])      # Skip the first two rows
""",
    "guide_operators_intro": DIGITS + """
print(digits + 3)
print(digits + tf.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []]))
""",
    "guide_map_flat_values": DIGITS + """
times_two_plus_one = lambda x: x * 2 + 1
print(tf.ragged.map_flat_values(times_two_plus_one, digits))
""",
    "guide_to_list": DIGITS + """
print(digits.to_list())
print(digits.numpy())
""",
    "guide_factories": """
print(tf.RaggedTensor.from_value_rowids(
    values=[3, 1, 4, 1, 5, 9, 2],
    value_rowids=[0, 0, 0, 0, 2, 2, 3]))
print(tf.RaggedTensor.from_row_lengths(
    values=[3, 1, 4, 1, 5, 9, 2],
    row_lengths=[4, 0, 2, 1]))
print(tf.RaggedTensor.from_row_splits(
    values=[3, 1, 4, 1, 5, 9, 2],
    row_splits=[0, 4, 4, 6, 7]))
""",
    "guide_what_you_can_store": """
print(tf.ragged.constant([[[1, 2], [3]], [[4, 5]]]))
try:
  tf.ragged.constant([[1, 2], [[3, 4]]])  # bad: multiple nesting depths
except ValueError as exception:
  print("ValueError")
""",
    "guide_uniform_and_ragged": """
x = tf.constant([[1, 2], [3, 4], [5, 6]])
rt = tf.RaggedTensor.from_tensor(x)
print(rt)
print(rt.shape)
""",
    "guide_overloaded_operators": """
x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
y = tf.ragged.constant([[1, 1], [2], [3, 3, 3]])
print(x + y)
x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
print(x + 3)
""",
    "guide_indexing_3d": """
rt = tf.ragged.constant([[[1, 2, 3], [4]],
                         [[5], [], [6]],
                         [[7]],
                         [[8, 9], [10]]])
print(rt[1])                        # Second row (2-D RaggedTensor)
print(rt[3, 0])                     # First element of fourth row (1-D Tensor)
print(rt[:, 1:3])                   # Items 1-3 of each row (3-D RaggedTensor)
print(rt[:, -1:])                   # Last item of each row (3-D RaggedTensor)
""",
    "guide_evaluating": """
rt = tf.ragged.constant([[1, 2], [3, 4, 5], [6], [], [7]])
print("Python list:", rt.to_list())
print("NumPy array:", rt.numpy())
print("Values:", rt.values.numpy())
print("Splits:", rt.row_splits.numpy())
print("Indexed value:", rt[1].numpy())
""",
    "guide_broadcasting": """
# x       (2D ragged):  2 x (num_rows)
# y       (scalar)
# result  (2D ragged):  2 x (num_rows)
x = tf.ragged.constant([[1, 2], [3]])
y = 3
print(x + y)
# x         (2d ragged):  3 x (num_rows)
# y         (2d tensor):  3 x          1
# Result    (2d ragged):  3 x (num_rows)
x = tf.ragged.constant(
   [[10, 87, 12],
    [19, 53],
    [12, 32]])
y = [[1000], [2000], [3000]]
print(x + y)
# x      (3d ragged):  2 x (r1) x 2
# y      (2d ragged):         1 x 1
# Result (3d ragged):  2 x (r1) x 2
x = tf.ragged.constant(
    [[[1, 2], [3, 4], [5, 6]],
     [[7, 8]]],
    ragged_rank=1)
y = tf.constant([[10]])
print(x + y)
# x      (3d ragged):  2 x (r1) x (r2) x 1
# y      (1d tensor):                    3
# Result (3d ragged):  2 x (r1) x (r2) x 3
x = tf.ragged.constant(
    [
        [
            [[1], [2]],
            [],
            [[3]],
            [[4]],
        ],
        [
            [[5], [6]],
            [[7]]
        ]
    ],
    ragged_rank=2)
y = tf.constant([10, 20, 30])
print(x + y)
""",
    "guide_broadcasting_errors": """
# x      (2d ragged): 3 x (r1)
# y      (2d tensor): 3 x    4  # trailing dimensions do not match
x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
try:
  x + y
except tf.errors.InvalidArgumentError as exception:
  print("InvalidArgumentError")
# x      (2d ragged): 3 x (r1)
# y      (2d ragged): 3 x (r2)  # ragged dimensions do not match.
x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
y = tf.ragged.constant([[10, 20], [30, 40], [50]])
try:
  x + y
except tf.errors.InvalidArgumentError as exception:
  print("InvalidArgumentError")
""",
    "guide_encoding": """
rt = tf.RaggedTensor.from_row_splits(
    values=[3, 1, 4, 1, 5, 9, 2],
    row_splits=[0, 4, 4, 6, 7])
print(rt)
""",
    "guide_multiple_ragged_dims": """
rt = tf.RaggedTensor.from_row_splits(
    values=tf.RaggedTensor.from_row_splits(
        values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        row_splits=[0, 3, 3, 5, 9, 10]),
    row_splits=[0, 1, 1, 5])
print(rt)
print("Shape: {}".format(rt.shape))
print("Number of partitioned dimensions: {}".format(rt.ragged_rank))
rt = tf.RaggedTensor.from_nested_row_splits(
    flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
    nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
print(rt)
""",
    "guide_uniform_non_inner": """
rt = tf.RaggedTensor.from_uniform_row_length(
    values=tf.RaggedTensor.from_row_splits(
        values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        row_splits=[0, 3, 5, 9, 10]),
    uniform_row_length=2)
print(rt)
print("Shape: {}".format(rt.shape))
print("Number of partitioned dimensions: {}".format(rt.ragged_rank))
""",
    "guide_uniform_inner": """
rt = tf.RaggedTensor.from_row_splits(
    values=[[1, 3], [0, 0], [1, 3], [5, 3], [3, 3], [1, 2]],
    row_splits=[0, 3, 4, 6])
print(rt)
print("Shape: {}".format(rt.shape))
print("Number of partitioned dimensions: {}".format(rt.ragged_rank))
print("Flat values shape: {}".format(rt.flat_values.shape))
print("Flat values:\\n{}".format(rt.flat_values))
""",
    # -- the API, case by case ---------------------------------------------------------------
    "constant_dtypes": """
print(tf.ragged.constant([[1.0, 2.5], [3.0]]))
print(tf.ragged.constant([[1.0, 2.5], [3.0]]).dtype)
print(tf.ragged.constant([[1, 2], [3]], dtype=tf.float64))
print(tf.ragged.constant([[0.1], []]))
print(tf.ragged.constant([[True], [False, True]]))
print(tf.ragged.constant([[], []]), tf.ragged.constant([[], []]).dtype)
print(tf.ragged.constant([[1], [2, 3]], row_splits_dtype=tf.int32).row_splits)
print(tf.ragged.constant([1, 2, 3]))
""",
    "constant_ragged_rank_inner_shape": """
rt = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
print(rt, rt.shape, rt.ragged_rank)
rt = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,))
print(rt, rt.shape, rt.ragged_rank)
rt = tf.ragged.constant([[[1, 2], [3]], [[4]]])
print(rt.shape, rt.ragged_rank, rt.flat_values)
""",
    "constant_errors": """
try:
    tf.ragged.constant([1, [2, 3]])
except ValueError:
    print("ValueError")
""",
    "properties": """
rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
print(rt.values)
print(rt.row_splits)
print(rt.flat_values)
print(rt.nested_row_splits)
print(rt.row_lengths())
print(rt.value_rowids())
print(rt.nrows())
print(rt.row_starts(), rt.row_limits())
print(rt.bounding_shape())
print(rt.shape, rt.dtype, rt.ragged_rank, rt.row_splits.dtype)
print(rt.nrows(out_type=tf.int32))
print(len(rt.shape), rt.shape.as_list())
""",
    "properties_3d": """
rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
print(rt.nested_row_splits)
print(rt.row_lengths(), rt.row_lengths(axis=2))
print(rt.nested_row_lengths())
print(rt.bounding_shape())
print(rt.values)
""",
    "factories_more": """
print(tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 2], nrows=5))
print(tf.RaggedTensor.from_row_starts([1, 2, 3, 4], [0, 1, 1]))
print(tf.RaggedTensor.from_row_limits([1, 2, 3, 4], [2, 2, 4]))
print(tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4, 5], [[2, 1], [2, 0, 3]]))
print(tf.RaggedTensor.from_row_lengths(tf.constant([1., 2., 3.]), tf.constant([1, 2])))
print(tf.RaggedTensor.from_row_lengths([1, 2, 3], tf.constant([1, 2], tf.int32)).row_splits)
""",
    "factory_errors": """
for make in (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 2]),
             lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 2, 3]),
             lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 1])):
    try:
        make()
    except tf.errors.InvalidArgumentError:
        print("InvalidArgumentError")
""",
    "from_tensor": """
t = tf.constant([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
print(tf.RaggedTensor.from_tensor(t))
print(tf.RaggedTensor.from_tensor(t, lengths=[1, 0, 2]))
print(tf.RaggedTensor.from_tensor(t, padding=0))
print(tf.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 2], [0, 0]]], padding=[0, 0]))
print(tf.RaggedTensor.from_tensor(tf.reshape(tf.range(12), [2, 3, 2]), ragged_rank=2))
print(tf.RaggedTensor.from_tensor(tf.reshape(tf.range(12), [2, 3, 2]), ragged_rank=2).shape)
""",
    "to_tensor": """
rt = tf.ragged.constant([[9, 8, 7], [], [6, 5], [4]])
print(rt.to_tensor())
print(rt.to_tensor(default_value=-1))
print(rt.to_tensor(shape=[2, 2]))
print(rt.to_tensor(shape=[5, 4]))
print(rt.to_tensor(shape=[None, 2]))
rt = tf.ragged.constant([[[1, 2], [3]], [[4]]])
print(rt.to_tensor())
rt = tf.ragged.constant([[[1., 2.], [3., 4.]], [[5., 6.]]], ragged_rank=1)
print(rt.to_tensor(default_value=9.))
""",
    "indexing": """
rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
print(rt[2], rt[-1], rt[1:3], rt[::2], rt[:, 1:], rt[2, 1], rt[:, -2:])
print(rt[0:2, 0:1])
try:
    tf.ragged.constant([[1, 2], [3, 4, 5]])[:, 0]
except ValueError:
    print("ValueError")
try:
    rt[7]
except IndexError:
    print("IndexError")
u = tf.RaggedTensor.from_tensor([[1, 2, 3], [4, 5, 6]])
print(u[1:].shape, (u + 1).shape, u[:, :2].shape, u[:, :2])
print(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 3).shape)
""",
    "elementwise": """
x = tf.ragged.constant([[1.0, 2.0], [3.0]])
y = tf.ragged.constant([[4.0, 5.0], [6.0]])
print(tf.add(x, y), tf.subtract(x, 1.0), tf.multiply(2.0, x), tf.divide(x, y))
print(tf.math.square(x), tf.math.floor(x / 2), tf.math.sqrt(x), tf.math.abs(-x))
print(x - y, x * y, x / y, x ** 2, -x, 1 + x, 2 * x, 10 - x, x // 2, x % 2)
print(x > 1.5, tf.math.maximum(x, 2.0), tf.math.less(x, y))
print(tf.math.logical_not(x > 1.5), (x > 1.5) & (x < 3.0))
i = tf.ragged.constant([[1, 2], [3]])
print(i / 2, i * 3, tf.math.floordiv(i, 2))
""",
    "reduce": DIGITS + """
print(tf.reduce_sum(digits, axis=0))
print(tf.reduce_sum(digits, axis=1))
print(tf.reduce_sum(digits))
print(tf.reduce_mean(digits))
print(tf.reduce_mean(digits, axis=0))
print(tf.reduce_max(digits, axis=1))
print(tf.reduce_max(digits, axis=0))
print(tf.reduce_min(digits, axis=1))
print(tf.reduce_max(tf.cast(tf.ragged.constant([[1, 2], []]), tf.float32) if False else
                    tf.ragged.constant([[1., 2.], []]), axis=1))
print(tf.reduce_sum(digits, axis=-1))
print(tf.reduce_sum(digits, axis=[0, 1]))
print(tf.reduce_any(tf.ragged.constant([[True, False], [], [False]]), axis=1))
print(tf.reduce_all(tf.ragged.constant([[True, False], [], [True]]), axis=1))
""",
    "reduce_3d": """
rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
print(tf.reduce_sum(rt, axis=2))
rt = tf.ragged.constant([[[1., 2.], [3., 4.]], [[5., 6.]]], ragged_rank=1)
print(tf.reduce_sum(rt, axis=2))
print(tf.reduce_sum(rt, axis=1))
print(tf.reduce_mean(rt, axis=1))
""",
    "concat_stack": DIGITS + """
print(tf.concat([digits, digits], axis=1))
print(tf.concat([digits, digits], axis=0))
print(tf.stack([digits, digits], axis=0))
print(tf.stack([digits, digits], axis=1))
a = tf.ragged.constant([[1, 2], [3]])
print(tf.concat([a, tf.constant([[7, 8, 9], [0, 0, 0]])], axis=1))
print(tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])]))
""",
    "ragged_range": """
print(tf.ragged.range([3, 5, 2]))
print(tf.ragged.range([0, 5, 8], [3, 3, 12]))
print(tf.ragged.range(0, [3, 3, 5], 2))
print(tf.ragged.range([1.0, 2.0], 4.0, 0.5))
print(tf.ragged.range(3, dtype=tf.int64))
""",
    "boolean_mask": """
T, F = (True, False)
print(tf.ragged.boolean_mask(
    data=[[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    mask=[[T, F, T], [F, F, F], [T, F, F]]))
print(tf.ragged.boolean_mask(
    tf.ragged.constant([[1, 2, 3], [4], [5, 6]]),
    tf.ragged.constant([[F, F, T], [F], [T, T]])))
print(tf.ragged.boolean_mask(
    tf.ragged.constant([[1, 2, 3], [4], [5, 6]]),
    tf.constant([True, False, True])))
print(tf.ragged.boolean_mask([1, 2, 3], [True, False, True]))
""",
    "spec": """
rt = tf.ragged.constant([[1, 2], [3]])
spec = tf.RaggedTensorSpec.from_value(rt)
print(spec)
print(spec.shape, spec.dtype, spec.ragged_rank, spec.row_splits_dtype)
print(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
print(tf.RaggedTensorSpec([2, None, None], tf.int64, ragged_rank=1))
print(spec.is_compatible_with(rt), spec == tf.RaggedTensorSpec([2, None], tf.int32, 1))
print(tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(rt))
""",
    "gradient": """
x = tf.ragged.constant([[1.0, 2.0], [3.0]])
with tf.GradientTape() as tape:
    tape.watch(x.flat_values)
    y = tf.reduce_sum(tf.math.square(x) * 2.0 + tf.math.sin(x))
print(tape.gradient(y, x.flat_values))
v = tf.constant([1.0, 2.0, 3.0, 4.0])
with tf.GradientTape() as tape:
    tape.watch(v)
    rt = tf.RaggedTensor.from_row_lengths(v, [3, 1])
    dense = rt.to_tensor(default_value=5.0)
    loss = tf.reduce_sum(dense * tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
print(dense)
print(tf.convert_to_tensor(tape.gradient(loss, v)))  # TF: IndexedSlices of these values
with tf.GradientTape() as tape:
    tape.watch(v)
    rt = tf.RaggedTensor.from_row_lengths(v, [3, 1])
    m = tf.reduce_max(rt, axis=1) + tf.reduce_mean(rt, axis=1)
    s = tf.reduce_sum(m * tf.constant([1.0, 10.0]))
print(tape.gradient(s, v))
with tf.GradientTape() as tape:
    tape.watch(v)
    rt = tf.RaggedTensor.from_row_lengths(v, [3, 1])
    s = tf.reduce_sum(rt[:, 1:] * 3.0) + tf.reduce_sum(rt[0])
print(tape.gradient(s, v))
""",
    "function": """
@tf.function
def f(x):
    return x * 2.0 + 1.0
rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
print(f(rt))
print(f(tf.ragged.constant([[1.0], [2.0, 3.0, 4.0], []])))
@tf.function
def g(x):
    return tf.reduce_sum(x, axis=1)
print(g(rt))
@tf.function
def h(v):
    return tf.RaggedTensor.from_row_lengths(v, [1, 2])
print(h(tf.constant([1, 2, 3])))
""",
    "segment_ids_and_partitions": """
def t(f):
    try:
        print(f())
    except Exception as e:
        print("ERROR", type(e).__name__)

t(lambda: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]))
t(lambda: tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 2, 5], tf.int32)))
t(lambda: tf.ragged.row_splits_to_segment_ids([0, 1], out_type=tf.int32))
t(lambda: tf.ragged.row_splits_to_segment_ids([[0, 1]]))
t(lambda: tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2]))
t(lambda: tf.ragged.segment_ids_to_row_splits(tf.constant([0, 0, 2], tf.int32)))
t(lambda: tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2], num_segments=5, out_type=tf.int32))
t(lambda: tf.ragged.segment_ids_to_row_splits([]))
t(lambda: tf.ragged.stack_dynamic_partitions([10, 20, 30, 40, 50], [0, 2, 0, 1, 0], 3))
t(lambda: tf.ragged.stack_dynamic_partitions(tf.ragged.constant([[1], [2, 3], [4]]), [1, 0, 1], 2))
t(lambda: tf.ragged.stack_dynamic_partitions([[1., 2.], [3., 4.]], [1, 1], 3))
t(lambda: tf.ragged.stack_dynamic_partitions([1, 2], [0, 5], 3))
x = tf.constant([1., 2., 3.])
with tf.GradientTape() as g:
    g.watch(x)
    parts = tf.ragged.stack_dynamic_partitions(x, [1, 0, 1], 2)
    y = tf.reduce_sum(parts.flat_values * [1., 2., 3.])
print(tf.convert_to_tensor(g.gradient(y, x)))
""",
    "cross": """
def t(f):
    try:
        print(f())
    except Exception as e:
        print("ERROR", type(e).__name__)

a = tf.ragged.constant([['a', 'b'], ['c']])
b = tf.ragged.constant([[1, 2, 3], []], dtype=tf.int64)
c = tf.constant([['x'], ['y']])
t(lambda: tf.ragged.cross([a, b]))
t(lambda: tf.ragged.cross([a, c]))
t(lambda: tf.ragged.cross([a, b, c]).to_list())
t(lambda: tf.ragged.cross_hashed([a, c]))
t(lambda: tf.ragged.cross_hashed([a, b, c], num_buckets=100))
t(lambda: tf.ragged.cross_hashed([a, c], num_buckets=100, hash_key=123))
t(lambda: tf.ragged.cross_hashed([tf.constant([[5, -3]], tf.int64)]))
t(lambda: tf.ragged.cross([tf.constant([[5, -3]], tf.int32), tf.constant([[7]])]))
t(lambda: tf.ragged.cross([a, tf.sparse.from_dense(tf.constant([['p', ''], ['q', 'r']]))]))
t(lambda: tf.ragged.cross([tf.constant([1])]))
t(lambda: tf.ragged.cross([a, tf.constant([['x']])]))
t(lambda: tf.ragged.cross([tf.constant([[1.0]])]))
t(lambda: tf.ragged.cross([tf.ragged.constant([[[1]]], dtype=tf.int64)]))
""",
    "merge_dims_to_sparse": """
def t(f):
    try:
        print(f())
    except Exception as e:
        print("ERROR", type(e).__name__)

r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
r2 = tf.ragged.constant([[1, 2], [], [3]])
rd = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(12), [6, 2]), [2, 0, 4])
rd3 = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(24), [6, 2, 2]), [2, 0, 4])
u = tf.RaggedTensor.from_uniform_row_length(
    tf.RaggedTensor.from_row_lengths(tf.range(6), [1, 2, 0, 3]), 2)
for x in [r3, r2, rd, rd3, u]:
    rank = x.shape.rank
    for o in range(rank):
        for i in range(o, rank):
            print(o, i, end=" ")
            t(lambda: x.merge_dims(o, i))
    t(lambda: x.merge_dims(-2, -1))
    t(lambda: x.to_sparse())
t(lambda: r2.merge_dims(1, 0))
t(lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 3])))
t(lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [2, 0]], [1, 3], [3, 3]),
                                      row_splits_dtype=tf.int32).row_splits)
t(lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [1, 2, 3], [4, 3])))
t(lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0, 0]], [1], [4, 3, 2])))
t(lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [4, 3])))
t(lambda: tf.RaggedTensor.from_sparse(tf.constant([1])))
t(lambda: tf.ragged.constant([['a', 'b'], []]).to_sparse())
x = tf.constant([1., 2., 3.])
with tf.GradientTape() as g:
    g.watch(x)
    rt = tf.RaggedTensor.from_row_lengths(x, [2, 1])
    y = tf.reduce_sum(tf.sparse.to_dense(rt.to_sparse()) * [[1., 2.], [3., 4.]])
print(g.gradient(y, x))
with tf.GradientTape() as g:
    g.watch(x)
    rt = tf.RaggedTensor.from_row_lengths(x, [2, 1])
    y = tf.reduce_sum(rt.merge_dims(0, 1) * [1., 2., 3.])
print(g.gradient(y, x))
""",
    "data": """
def t(f):
    try:
        print(f())
    except Exception as e:
        print("ERROR", type(e).__name__)

rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])
ds = tf.data.Dataset.from_tensor_slices(rt)
print(ds.element_spec)
print(ds)
print(list(ds))
print(list(ds.batch(2)), ds.batch(2).element_spec)
print(list(ds.batch(3, drop_remainder=True)), ds.batch(3, drop_remainder=True).element_spec)
print(list(ds.batch(2).unbatch()))
print(list(ds.shuffle(4, seed=1).batch(4).map(lambda x: x.row_lengths())))
print(list(tf.data.Dataset.from_tensors(rt)), tf.data.Dataset.from_tensors(rt).element_spec)
print(list(tf.data.Dataset.from_tensors(rt).unbatch()))
dsr = tf.data.Dataset.range(5).map(lambda x: tf.range(x))
print(dsr.element_spec)
print(list(dsr.ragged_batch(2)), dsr.ragged_batch(2).element_spec)
print(list(dsr.ragged_batch(2, drop_remainder=True)))
print(list(dsr.ragged_batch(2, row_splits_dtype=tf.int32))[1].row_splits)
print(list(dsr.apply(tf.data.experimental.dense_to_ragged_batch(2))))
t(lambda: list(dsr.batch(2)))
ds2 = tf.data.Dataset.range(4).map(lambda x: tf.fill([x, 2], x))
print(ds2.element_spec, ds2.ragged_batch(2).element_spec, list(ds2.ragged_batch(2)))
ds3 = tf.data.Dataset.range(3).map(lambda x: tf.fill([2, x], x))
print(ds3.ragged_batch(3).element_spec, list(ds3.ragged_batch(3)))
ds4 = tf.data.Dataset.range(3).map(lambda x: (tf.range(x), x))
print(ds4.ragged_batch(2).element_spec, list(ds4.ragged_batch(2)))
print(list(ds.batch(2).map(lambda x: x * 2)))
mk = tf.data.Dataset.range(3).map(
    lambda x: tf.RaggedTensor.from_row_lengths(tf.range(x * 2), [x, x]))
print(mk.element_spec, list(mk))
print(list(mk.batch(2)), mk.batch(2).element_spec)
print(list(ds.batch(2).map(lambda x: x.to_tensor())))
print(list(ds.map(lambda x: tf.reduce_sum(x))))
print(list(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]]))))
print(list(tf.data.Dataset.from_tensor_slices({'a': rt, 'b': [1, 2, 3, 4]}).batch(3)))
print(tf.data.Dataset.from_tensor_slices({'a': rt, 'b': [1, 2, 3, 4]}).batch(3).element_spec)
""",
    # The guide's tf.data section (its features built with tf.ragged.constant rather than
    # parsed from tf.train.Example protos) and its concrete-function example.
    "guide_tf_data": """
def print_dictionary_dataset(dataset):
  for i, element in enumerate(dataset):
    print("Element {}:".format(i))
    for (feature_name, feature_value) in element.items():
      print('{:>14} = {}'.format(feature_name, feature_value))
feature_tensors = {
    'colors': tf.ragged.constant([[b'red', b'blue'], [b'blue', b'green'], [b'red'],
                                  [b'orange', b'red']]),
    'lengths': tf.ragged.constant([[7], [], [3, 6], [3, 1]])}
dataset = tf.data.Dataset.from_tensor_slices(feature_tensors)
print_dictionary_dataset(dataset)
batched_dataset = dataset.batch(2)
print_dictionary_dataset(batched_dataset)
unbatched_dataset = batched_dataset.unbatch()
print_dictionary_dataset(unbatched_dataset)
non_ragged_dataset = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8])
non_ragged_dataset = non_ragged_dataset.map(tf.range)
batched_non_ragged_dataset = non_ragged_dataset.apply(
    tf.data.experimental.dense_to_ragged_batch(2))
for element in batched_non_ragged_dataset:
  print(element)
def transform_lengths(features):
  return {
      'mean_length': tf.math.reduce_mean(features['lengths']),
      'length_ranges': tf.ragged.range(features['lengths'])}
transformed_dataset = dataset.map(transform_lengths)
print_dictionary_dataset(transformed_dataset)
@tf.function
def increment(x):
  return x + 1
rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
cf = increment.get_concrete_function(rt)
print(cf(rt))
""",
    # -- the guide's ragged ops (tile, map_fn, embedding_lookup, strings, broadcasting errors)
    "guide_ragged_ops_overview": DIGITS + """
words = tf.ragged.constant([['So', 'long'], ['thanks', 'for', 'all', 'the', 'fish']])
print(tf.tile(digits, [1, 2]))
print(tf.strings.substr(words, 0, 2))
print(tf.map_fn(tf.math.square, digits))
""",
    "guide_tile_variants": DIGITS + KERNEL_TEXT + """
r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
rd = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
show(lambda: tf.tile(digits, [2, 1]))
show(lambda: tf.tile(digits, [2, 3]))
show(lambda: tf.tile(digits, [0, 2]))
show(lambda: tf.tile(r3, [1, 2, 2]))
show(lambda: (tf.tile(rd, [2, 2, 3]).shape, tf.tile(rd, [2, 2, 3])))
show(lambda: tf.tile(digits, [1, 2, 3]))
show(lambda: tf.tile(digits, [-1, 1]))
show(lambda: tf.tile(tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32),
                     [2, 2]).row_splits)
""",
    "guide_map_fn_variants": DIGITS + KERNEL_TEXT + """
r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
rd = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
words = tf.ragged.constant([['So', 'long'], ['thanks', 'for', 'all', 'the', 'fish']])
spec = tf.RaggedTensorSpec([None], tf.int32)
show(lambda: tf.map_fn(tf.math.square, digits, fn_output_signature=spec))
show(lambda: tf.map_fn(tf.math.square, digits,
                       fn_output_signature=tf.RaggedTensorSpec([None], tf.int32, ragged_rank=0)))
show(lambda: tf.map_fn(tf.reduce_sum, digits, fn_output_signature=tf.int32))
show(lambda: tf.map_fn(lambda x: tf.size(x), digits,
                       fn_output_signature=tf.TensorSpec([], tf.int32)))
show(lambda: tf.map_fn(tf.math.square, r3))
show(lambda: (tf.map_fn(lambda x: x, r3).shape, tf.map_fn(lambda x: x, rd).shape))
show(lambda: tf.map_fn(tf.math.square, rd))
show(lambda: tf.map_fn(lambda x: tf.reduce_sum(x, axis=1), r3, fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: x[0] + x[1], (digits, digits), fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: x[:1], digits))
show(lambda: tf.map_fn(lambda w: tf.strings.length(w), words, fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2, 3]), fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2, 3]),
                       fn_output_signature=spec).row_splits)
show(lambda: tf.map_fn(lambda x: tf.ragged.range(x), tf.constant([[1, 2], [3, 0]]),
                       fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32)))
show(lambda: tf.map_fn(lambda x: tf.fill([x, 2], x), tf.constant([1, 2]),
    fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32, ragged_rank=0)).shape)
show(lambda: tf.map_fn(lambda x: tf.range(x), tf.constant([], tf.int32),
                       fn_output_signature=spec))
e = tf.ragged.constant([], ragged_rank=1, dtype=tf.int32)
show(lambda: (e.shape, tf.map_fn(tf.math.square, e)))
show(lambda: tf.map_fn(tf.math.square, tf.ragged.constant(
    [[1, 2], [3]], dtype=tf.int64, row_splits_dtype=tf.int32)).row_splits)
show(lambda: tf.map_fn(tf.math.square, tf.ragged.constant(
    [[1, 2], [3]], dtype=tf.int64, row_splits_dtype=tf.int32),
    fn_output_signature=tf.RaggedTensorSpec([None], tf.int64)).row_splits)
# fn's output must fit a RaggedTensorSpec exactly: TF's ValueError texts
show(lambda: tf.map_fn(lambda w: tf.strings.length(w), words))
show(lambda: tf.map_fn(lambda x: x, r3, fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: x, digits,
                       fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32)))
show(lambda: tf.map_fn(lambda x: tf.reduce_sum(x), digits, fn_output_signature=spec))
show(lambda: tf.map_fn(lambda x: x, digits, fn_output_signature=tf.RaggedTensorSpec([3], tf.int32)))
show(lambda: tf.map_fn(lambda x: x, tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]],
                       row_splits_dtype=tf.int32),
                       fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32)))
show(lambda: tf.map_fn(lambda x: x, digits, fn_output_signature=tf.int64))
show(lambda: tf.map_fn(lambda x: x, digits, fn_output_signature=tf.TensorSpec([None], tf.int32)))
show(lambda: tf.map_fn(lambda x: tf.reduce_sum(x, axis=1), r3, fn_output_signature=tf.int32))
show(lambda: type(tf.map_fn(tf.reduce_sum, digits)))
show(lambda: tf.map_fn(lambda x: x[0] * x[1], (digits, tf.constant([1, 2, 3, 4]))))
x = tf.ragged.constant([[1., 2.], [3.]])
with tf.GradientTape() as t:
  t.watch(x.flat_values)
  s = tf.reduce_sum(tf.map_fn(lambda r: r * r, x))
print(t.gradient(s, x.flat_values))
""",
    # The guide's word and bigram embeddings (cell 20, without its tf.strings.join of
    # ragged slices), seeded: the numbers, and the gradient, are TF's.
    "guide_ragged_embeddings": """
import math
tf.random.set_seed(0)
queries = tf.ragged.constant([['Who', 'is', 'Dan', 'Smith'], ['Pause'],
                              ['Will', 'it', 'rain', 'later', 'today']])
num_buckets = 1024
embedding_size = 4
embedding_table = tf.Variable(
    tf.random.truncated_normal([num_buckets, embedding_size],
                               stddev=1.0 / math.sqrt(embedding_size)))
word_buckets = tf.strings.to_hash_bucket_fast(queries, num_buckets)
word_embeddings = tf.nn.embedding_lookup(embedding_table, word_buckets)
marker = tf.fill([queries.nrows(), 1], '#')
padded = tf.concat([marker, queries, marker], axis=1)
print(marker)
print(padded)
padded_buckets = tf.strings.to_hash_bucket_fast(padded, num_buckets)
padded_embeddings = tf.nn.embedding_lookup(embedding_table, padded_buckets)
all_embeddings = tf.concat([word_embeddings, padded_embeddings], axis=1)
print(all_embeddings.shape)
print(tf.reduce_mean(all_embeddings, axis=1))
with tf.GradientTape() as tape:
  e = tf.nn.embedding_lookup(embedding_table, word_buckets)
  loss = tf.reduce_sum(tf.reduce_mean(e, axis=1))
g = tape.gradient(loss, embedding_table)
print(type(g).__name__)
print(g)
table = tf.constant(embedding_table.numpy()[:10])
ids = tf.ragged.constant([[1, 2, 3], [], [4, 1]])
with tf.GradientTape() as tape:
  tape.watch(table)
  loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids).flat_values *
                       tf.constant([[1., 2., 3., 4.]]))
print(tape.gradient(loss, table))
print(tf.nn.embedding_lookup(table, tf.ragged.constant([[[1, 2], [3]], [[4]]])))
print(tf.nn.embedding_lookup(table, ids, max_norm=0.5))
print(tf.nn.embedding_lookup(table, tf.ragged.constant([[1, 2]], row_splits_dtype=tf.int32)))
try:
  tf.nn.embedding_lookup(table, tf.ragged.constant([[1.0]]))
except ValueError as e:
  print(e)
""",
    "guide_ragged_strings": """
queries = tf.ragged.constant([['Who', 'is'], ['Pause']])
padded = tf.concat([tf.fill([queries.nrows(), 1], '#'), queries], axis=1)
print(padded)
try:
  tf.concat([queries, tf.fill([3, 1], '#')], axis=1)
except tf.errors.InvalidArgumentError as e:
  print(e)
ragged_x = tf.ragged.constant([['John'], ['a', 'big', 'dog'], ['my', 'cat']])
ragged_y = tf.ragged.constant([['fell', 'asleep'], ['barked'], ['is', 'fuzzy']])
sparse_result = tf.sparse.concat(sp_inputs=[ragged_x.to_sparse(), ragged_y.to_sparse()],
                                 axis=1)
print(tf.sparse.to_dense(sparse_result, ''))
print(tf.sparse.to_dense(sparse_result, 'x'))
print(tf.sparse.to_dense(sparse_result))
print(tf.scatter_nd([[0], [2]], ['a', 'b'], [3]))
print(tf.scatter_nd([[0], [0]], ['a', 'b'], [3]))
print(tf.tensor_scatter_nd_update(tf.constant([['x', 'y'], ['z', 'w']]), [[1]], [['a', 'b']]))
for call in (lambda: tf.sparse.to_dense(sparse_result, 1),
             lambda: tf.sparse.to_dense(tf.sparse.SparseTensor([[0]], [1], [2]), 1.5),
             lambda: tf.tensor_scatter_nd_add(tf.constant(['x', 'y']), [[0]], ['a'])):
  try:
    print(call())
  except Exception as e:
    print(type(e).__name__)
""",
    "guide_reductions_any_axis": KERNEL_TEXT + """
r = tf.ragged.constant([[[1., 2.], [3., 4.]], [], [[5., 6.]]], ragged_rank=1)
r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
for axis in (0, 1, 2, [1, 2]):
  show(lambda: tf.reduce_mean(r, axis=axis))
show(lambda: tf.reduce_max(r, axis=1))
show(lambda: tf.reduce_prod(r, axis=1))
show(lambda: tf.math.reduce_logsumexp(r, axis=1))
show(lambda: tf.reduce_sum(r, axis=1, keepdims=True))
show(lambda: tf.reduce_mean(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
                            axis=1))
for axis in (0, 1, 2, [0, 1], [0, 2], [1, 2]):
  show(lambda: tf.reduce_sum(r3, axis=axis))
  show(lambda: tf.reduce_mean(r3, axis=axis))
for axis in (0, 1, 2):
  show(lambda: tf.reduce_sum(r3, axis=axis, keepdims=True))
show(lambda: tf.reduce_mean(r3, axis=None, keepdims=True))
show(lambda: tf.reduce_min(tf.ragged.constant([[[1, 2], []], [[4, 5, 6]]]), axis=1))
show(lambda: tf.reduce_any(tf.ragged.constant([[[True], [False, False]], [[False]]]), axis=1))
x = tf.ragged.constant([[[1., 2.], [3.]], [[4.]]])
with tf.GradientTape() as t:
  t.watch(x.flat_values)
  s = tf.reduce_sum(tf.reduce_mean(x, axis=1) * 2.0)
print(t.gradient(s, x.flat_values))
""",
    "guide_concat_stack_any_axis": KERNEL_TEXT + """
a = tf.ragged.constant([[1, 2], [3]])
b = tf.ragged.constant([[1], [2], [3]])
r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
r3b = tf.ragged.constant([[[1], [3]], [[2]], [[4, 5, 6]]])
r = tf.ragged.constant([[[1., 2.], [3., 4.]], [], [[5., 6.]]], ragged_rank=1)
show(lambda: tf.concat([a, a, b], axis=1))
show(lambda: tf.concat([a, tf.constant([[1.]])], axis=0))
show(lambda: tf.concat([tf.ragged.constant([[1, 2], [3]], dtype=tf.int64), [[5, 3]]], axis=0))
show(lambda: tf.concat([a, tf.constant([[7, 8], [9, 10]])], axis=1))
show(lambda: tf.concat([r3, r3], axis=2))
show(lambda: tf.concat([r3, r3], axis=1))
show(lambda: tf.concat([r3, r3b], axis=1))
show(lambda: tf.concat([r3, r3b], axis=2))
show(lambda: tf.concat([r, r], axis=2))
show(lambda: tf.concat([r, tf.ones([3, 1, 2])], axis=1))
show(lambda: tf.concat([r, tf.ragged.constant([[[1., 2.]], [[1., 1.]], []], ragged_rank=1)],
                       axis=2))
show(lambda: tf.stack([a, b], axis=1))
show(lambda: tf.stack([a, a, b], axis=1))
show(lambda: tf.stack([a, a], axis=2))
show(lambda: tf.stack([r3, r3], axis=2))
show(lambda: tf.stack([r3, r3], axis=3))
show(lambda: tf.stack([a, a], axis=0))
show(lambda: tf.stack([a, a], axis=-1))
""",
    # The guide's broadcasting errors (its cells print the messages) and variants.
    "guide_broadcasting_error_messages": """
def show(f):
  try:
    print(f())
  except (tf.errors.InvalidArgumentError, ValueError) as e:
    print(type(e).__name__)
    print(e)
x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
show(lambda: x + y)
show(lambda: y + x)
show(lambda: x + tf.constant([1, 2, 3, 4]))
show(lambda: x + tf.constant([[1, 2, 3, 4]]))
show(lambda: x + tf.constant([[1], [2]]))
show(lambda: x + tf.constant([[1, 2]]))
show(lambda: x + tf.RaggedTensor.from_tensor(y))
show(lambda: x + tf.ones([3, 4, 1], tf.int32))
show(lambda: x + tf.ones([2, 3, 1], tf.int32))
show(lambda: tf.ragged.constant([[1, 2], [3, 4], [7, 8]]) + y)
show(lambda: tf.ragged.constant([[1, 2], [3, 4]]) + tf.constant([[10, 20], [30, 40]]))
show(lambda: tf.ragged.constant([[1, 2], [3, 4]]) + tf.constant([[10, 20]]))
show(lambda: tf.ragged.constant([[1, 2, 3], [4], [5, 6]]) +
     tf.ragged.constant([[10, 20], [30, 40], [50]]))
show(lambda: tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]]) +
     tf.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]]))
show(lambda: tf.ragged.constant([[1], [2]]) + tf.ragged.constant([[1], [2], [3]]))
show(lambda: tf.ragged.constant([[[1], [2]], [[3]]]) +
     tf.ragged.constant([[[1], [2, 3]], [[3]]]))
show(lambda: tf.ragged.constant([[1, 2, 3, 4, 5, 6, 7]] * 5) +
     tf.ragged.constant([[1, 2, 3, 4, 5, 6]] * 5))
show(lambda: tf.math.multiply(x, tf.ragged.constant([[1, 2, 3], [3], [7]])))
show(lambda: tf.ragged.constant([[1., 2.], [3.]]) - tf.ragged.constant([[1., 2.], [3., 4.]]))
show(lambda: tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32) +
     tf.ragged.constant([[1, 2], [3]]))
show(lambda: tf.ragged.constant([[[1, 2]], [[3, 4]]], ragged_rank=1) +
     tf.constant([[[10], [20]]]))
show(lambda: tf.ragged.constant([[[1], [2]], [[3]]]) + tf.constant([[[1]], [[2]]]))
show(lambda: tf.ragged.constant([[[1], [2]], [[3]]]) + tf.constant([[[1, 2]], [[2, 3]]]))
show(lambda: tf.ragged.constant([[[1, 2], [2, 3]], [[3, 3], [1, 1]]]) +
     tf.constant([[[1, 2]], [[2, 3]]]))
show(lambda: tf.ragged.constant([[[1, 2], [2, 3]], [[3, 3], [1, 1]]]) +
     tf.constant([[[1], [2]], [[2], [3]]]))
show(lambda: tf.RaggedTensorSpec([None], tf.int32, 1))
""",
}


def record(cases: dict) -> dict:
    import numpy as np  # noqa: F401 - for the programs
    import tensorflow as tf
    answers = {}
    for name, program in cases.items():
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(program, {"tf": tf, "np": np})  # noqa: S102 - our own programs
            text = out.getvalue()
        except Exception as exc:  # noqa: BLE001 - recorded as TF's answer
            text = out.getvalue() + f"ERROR {type(exc).__name__}\n"
        answers[name] = {"program": program, "printed": text}
    return answers


def main(cases: dict = CASES, out: pathlib.Path = OUT) -> None:
    """Records `cases` (name -> program) into the JSON file `out`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    answers = {"tensorflow": tf.__version__, "cases": record(cases)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} ({len(answers['cases'])} cases)")


if __name__ == "__main__":
    main()
