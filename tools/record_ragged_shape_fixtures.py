"""Records TensorFlow 2.21's printed answers for tapeflow's ragged-shape tests (run where
TensorFlow is installed; CI does not run it):

    python tools/record_ragged_shape_fixtures.py   # writes tests/ragged/fixtures/ragged_shape.json

Each case is a small program over `tf` (and `np`) about `tf.shape` of a RaggedTensor,
`tf.experimental.DynamicRaggedShape` and `tf.experimental.RowPartition`; its printed text is
recorded (`show(f)` prints `repr(f())`, or the error's class and message). The `guide_*`
cases are the section "Ragged shapes" of TensorFlow's guide "Ragged tensors", as written
there. tests/ragged/test_ragged_shape.py runs every program on tapeflow and compares.
"""

from __future__ import annotations

import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ragged" / "fixtures" / \
    "ragged_shape.json"

# Prepended to every program: prints a value's repr, or its error's class and message.
SHOW = """
def show(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)
D = tf.experimental.DynamicRaggedShape
R = tf.experimental.RowPartition
"""

PROGRAMS = {
    # -- TensorFlow's guide "Ragged tensors", section "Ragged shapes" --------------------------
    "guide_ragged_shapes": """
x = tf.constant([['a', 'b'], ['c', 'd'], ['e', 'f']])
print(repr(tf.shape(x)))
rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
rt_shape = tf.shape(rt)
print(rt_shape)
print(f'tf.reshape(x, rt_shape) = {tf.reshape(x, rt_shape)}')
print(f'tf.zeros(rt_shape) = {tf.zeros(rt_shape)}')
print(f'tf.ones(rt_shape) = {tf.ones(rt_shape)}')
print(f"tf.fill(rt_shape, 9) = {tf.fill(rt_shape, 'x')}")
print(repr(rt_shape[0]))
try:
  rt_shape[1]
except ValueError as e:
  print("Got expected ValueError:", e)
print(repr(rt_shape[:1]))
print(repr(tf.experimental.DynamicRaggedShape(
    row_partitions=[tf.experimental.RowPartition.from_row_lengths([5, 3, 2])],
    inner_shape=[10, 8])))
print(repr(tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])))
""",
    # -- tf.shape of a RaggedTensor ---------------------------------------------------------
    "shape_of_ragged": """
rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
s = tf.shape(rt)
print(s.dtype, s.rank, s.num_row_partitions, s.inner_rank)
print(repr(s.inner_shape))
print(s.row_partitions)
print(s.row_partitions[0].dtype, repr(s.row_partitions[0].row_splits()))
print(s.static_lengths(), s.static_lengths(ragged_lengths=False))
print(s.is_uniform(0), s.is_uniform(1))
show(lambda: tf.shape(rt, out_type=tf.int64).dtype)
show(lambda: tf.shape(rt, out_type=tf.float32))
show(lambda: tf.shape(tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32)).dtype)
show(lambda: tf.shape(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)))
show(lambda: tf.shape(tf.ragged.constant([[[1, 2]], [[3, 4], [5]]])))
u = tf.shape(tf.RaggedTensor.from_tensor(tf.zeros([2, 3])))
show(lambda: u)
show(lambda: u[1])
show(lambda: u.static_lengths())
show(lambda: u.row_partitions)
show(lambda: list(u))
show(lambda: tf.zeros(u))
show(lambda: rt._row_partition)
show(lambda: rt._row_partition.dtype)
""",
    "getitem": """
for lengths, n in [([4, (1, 3, 0, 2)], None), ([4, 3, (2, 1, 0, 8, 1, 1, 1, 1, 1, 1, 1, 1)], None),
                   ([2, 3, 4], None), ([2, (1, 2), 2], None), ([2, (1, 2), 3, 4], 3),
                   ([2, 3, 4], 2), ([2, (1, 2), 3, 4], None)]:
    s = D.from_lengths(lengths, num_row_partitions=n)
    print(s)
    for k in range(-s.rank - 2, s.rank + 3):
        print(k, end=' ')
        show(lambda: s[k])
s = D.from_lengths([2, 3, 4])
for key in ['a', 1.0, True, tf.constant(0), np.int64(1)]:
    show(lambda: s[key])
show(lambda: list(s))
show(lambda: len(s))
""",
    "slicing": """
for lengths, n in [([4, (1, 3, 0, 2)], None), ([2, 3, (1, 1, 1, 1, 1, 2), 4], None),
                   ([2, (1, 2), 3, 4], None), ([2, (1, 2), 3, 4], 3), ([2, 3, 4], None),
                   ([2, 3, 4], 1), ([2, 3, 4], 2)]:
    s = D.from_lengths(lengths, num_row_partitions=n)
    print(s)
    for a in [None, 0, 1, 2, 3, 4, 5, -1, -2, -7]:
        for b in [None, 0, 1, 2, 3, 4, 5, -1]:
            print(a, b, end=' ')
            show(lambda: s[a:b])
s = D.from_lengths([2, (1, 2), 2])
show(lambda: s[0:2:1])
show(lambda: s[::2])
show(lambda: s[::-1])
show(lambda: s[0:2].row_partitions)
show(lambda: s[0:2].inner_shape)
show(lambda: D.from_lengths([2, 3, 4], num_row_partitions=1)[1:].dtype)
show(lambda: tf.shape(tf.ragged.constant([[1], [2, 3]]))[:1].dtype)
""",
    "from_lengths": """
for args in [([4, (2, 1, 0, 8), 12],), ([2, 3],), ([3, (1, 2, 3), (1, 1, 1, 1, 1, 1)],),
             ([3, (1, 2, 3), 2, (1,) * 12],), ([4, (2, 1, 0, 8), 12], 2), ([4, 3, 12], 2),
             ([4, (2, 1, 0)],), ([(2, 1, 0)],), ([],), ([4, -1],), ([4, None],), ([4, 2.0],),
             (4,), ([4, (1, 2)],), ([2, (1, -2)],), ([2, (1, 2)], 0), ([2, 3], 2), ([2, 3], 1),
             ([2, [1, 2]],), ([2, np.int64(3)],), ([2, (1, 2), 3], 0), ([2, (1, 2), (1,)],),
             ([2, (1, 2), 2, (1,)],), ([1, (3,)],), ([1, (3,), 2],), ([0, ()],), ([0, (), 5],),
             ([2, (0, 0), 5],)]:
    print(args, end=' ')
    show(lambda: D.from_lengths(*args))
show(lambda: D.from_lengths([4, (2, 1, 0, 8)], dtype=tf.int32).row_partitions)
show(lambda: D.from_lengths([4, (2, 1, 0, 8)], dtype=tf.int32).dtype)
show(lambda: D.from_lengths([4, (2, 1, 0, 8)], dtype=tf.float32))
s = D.from_lengths([4, 3, (2, 1, 0, 8, 1, 1, 1, 1, 1, 1, 1, 1)])
show(lambda: s.static_lengths())
show(lambda: s.static_lengths(False))
show(lambda: s.row_partitions)
show(lambda: s.inner_shape)
c = D.from_lengths([2, (1, 2), 3, 4], num_row_partitions=3)
show(lambda: c.row_partitions)
show(lambda: c.static_lengths())
show(lambda: c.inner_shape)
show(lambda: D.from_lengths([4, -1]).static_lengths())
show(lambda: D.from_lengths([4, -1]).inner_shape)
""",
    "constructor": """
p = R.from_row_lengths([5, 3, 2])
show(lambda: D(row_partitions=[p], inner_shape=[10, 8]))
show(lambda: D(row_partitions=[p], inner_shape=[10, 8]).dtype)
show(lambda: D(row_partitions=[p], inner_shape=[10, 8]).inner_shape)
show(lambda: D(row_partitions=[p], inner_shape=[11, 8]))
show(lambda: D(row_partitions=[p], inner_shape=[11, 8], validate=True))
show(lambda: D(row_partitions=[p], inner_shape=[10, 8], dtype=tf.int32).row_partitions)
show(lambda: D(row_partitions=[p.with_dtype(tf.int32)], inner_shape=[10, 8]).dtype)
show(lambda: D(row_partitions=[p, R.from_row_lengths([1, 1])], inner_shape=[10, 8]))
show(lambda: D(row_partitions=[p, R.from_row_lengths([1, 1])], inner_shape=[10, 8],
               validate=True))
show(lambda: D(row_partitions=[R.from_row_lengths([1]), p], inner_shape=[10, 8],
               validate=True))
show(lambda: D(row_partitions=[p], inner_shape=5))
show(lambda: D(row_partitions=[[1, 2]], inner_shape=[5]))
show(lambda: D(row_partitions=[], inner_shape=[]))
show(lambda: D(row_partitions=[], inner_shape=[]).rank)
show(lambda: D(row_partitions=[], inner_shape=[2.0]))
show(lambda: D(row_partitions=[], inner_shape=[[2]]))
show(lambda: D([], [2, 3]))
show(lambda: D([], [2, 3])[0])
show(lambda: D([], [2, 3]).dtype)
show(lambda: D([], [2, 3], dtype=tf.int32).dtype)
show(lambda: D([], tf.constant([2, 3], tf.int32)).dtype)
show(lambda: D([], [2, 3], dtype=tf.float32))
show(lambda: D.from_row_partitions([p]))
show(lambda: D.from_row_partitions([p, R.from_row_lengths([1] * 10)]))
show(lambda: D.from_row_partitions([]))
""",
    "from_tensor_and_properties": """
show(lambda: D.from_tensor(tf.zeros([2, 3])))
show(lambda: D.from_tensor(tf.zeros([2, 3])).dtype)
show(lambda: D.from_tensor([[1, 2], [3, 4]], dtype=tf.int32).dtype)
rt = tf.ragged.constant([[1, 2], [3]])
show(lambda: D.from_tensor(rt))
show(lambda: D.from_tensor(rt).dtype)
show(lambda: D.from_tensor(rt, dtype=tf.int32).dtype)
show(lambda: D.from_tensor(3.0))
show(lambda: D.from_tensor(3.0)[:])
show(lambda: D.from_tensor(3.0)[0])
s = D.from_lengths([2, (1, 2), 2])
show(lambda: s.with_dtype(tf.int32).row_partitions)
show(lambda: s.with_dtype(tf.int32).inner_shape)
show(lambda: s.with_dtype(tf.float32))
show(lambda: (s.rank, s.inner_rank, s.num_row_partitions))
for axis in [0, 1, 2, 3, -1, 'a']:
    show(lambda: s.is_uniform(axis))
""",
    "equality": """
show(lambda: D.from_lengths([4, (2, 1, 0, 8), 12]) == D.from_lengths([4, (2, 1, 0, 8), 12]))
show(lambda: D.from_lengths([2, (1, 2)]) == D.from_lengths([2, (2, 1)]))
show(lambda: D.from_lengths([2, (1, 2)]) == D.from_lengths([2, 3]))
show(lambda: D.from_lengths([2, (1, 2)]) == D.from_lengths([3, (1, 1, 2)]))
show(lambda: D.from_lengths([2, (1, 2)]) == 3)
show(lambda: D.from_lengths([2, (1, 2)]) != D.from_lengths([2, (1, 2)]))
show(lambda: D.from_lengths([2, 3]) == D.from_lengths([2, 3, 4]))
show(lambda: D.from_lengths([2, 3]) == D.from_lengths([2, 4]))
show(lambda: D.from_lengths([2, 3]) == D.from_lengths([2, 3], dtype=tf.int32))
rt = tf.ragged.constant([[1, 2], [3]])
show(lambda: tf.shape(rt, out_type=tf.int64) == tf.shape(rt))
""",
    "values_of_a_shape": """
s = D.from_lengths([2, (1, 2), 2])
show(lambda: tf.zeros(s))
show(lambda: tf.zeros(s, dtype=tf.int32))
show(lambda: tf.zeros(s, dtype=tf.string))
show(lambda: tf.ones(s, dtype=tf.bool))
show(lambda: tf.fill(s, 1.5))
show(lambda: tf.reshape(tf.range(6), s))
try:  # TF's message names its function node here: the class is what is compared
    tf.reshape(tf.range(5), s)
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__)
show(lambda: tf.reshape(tf.range(6), D.from_lengths([2, 3])))
show(lambda: tf.zeros(D.from_lengths([2, 3])))
show(lambda: tf.ones(D.from_lengths([2, 3], num_row_partitions=1)))
show(lambda: tf.reshape(tf.ragged.constant([[1, 2], [3, 4, 5, 6]]), D.from_lengths([2, (1, 5)])))
show(lambda: tf.zeros(tf.shape(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]],
                                                   ragged_rank=1))))
show(lambda: tf.ones(tf.shape(tf.ragged.constant([[[1], [2]], [[3, 4], [5, 6]]]))))
show(lambda: tf.zeros(tf.shape(tf.ragged.constant([[1], [2, 3]]))).row_splits)
show(lambda: tf.zeros(D.from_lengths([2, (1, 2)], dtype=tf.int32)).row_splits)
show(lambda: tf.zeros(D.from_lengths([3, 2], num_row_partitions=1)).uniform_row_length)
""",
    # -- RowPartition -------------------------------------------------------------------------
    "row_partition_encodings": """
for p in [R.from_row_lengths([5, 3, 2]), R.from_row_splits([0, 2, 2, 5]),
          R.from_uniform_row_length(3, nvals=12), R.from_value_rowids([0, 0, 2, 2, 3], nrows=6),
          R.from_row_starts([0, 2, 2], nvals=5), R.from_row_limits([2, 2, 5]),
          R.from_row_lengths([]), R.from_uniform_row_length(0, nvals=0, nrows=5)]:
    print(p)
    for m in ['row_splits', 'row_lengths', 'nrows', 'nvals', 'value_rowids', 'row_starts',
              'row_limits', 'uniform_row_length', 'offsets_in_rows', 'is_uniform']:
        print(m, end=' ')
        show(getattr(p, m))
    for a in ['dtype', 'static_nrows', 'static_nvals', 'static_uniform_row_length']:
        print(a, end=' ')
        show(lambda: getattr(p, a))
    show(lambda: p.with_dtype(tf.int32).row_splits())
""",
    "row_partition_factories": """
show(lambda: R.from_row_splits([1, 2, 2, 5]))
show(lambda: R.from_row_splits([0, 2, 1, 5]))
show(lambda: R.from_row_splits([0, 2, 1, 3, 4, 5, 6, 7, 8]))
show(lambda: R.from_row_splits([0, 2, 1, 3, 4, 5, 6, 7, 8], dtype=tf.int32))
show(lambda: R.from_row_splits([1, 3, 3], validate=False))
show(lambda: R.from_row_splits([]))
show(lambda: R.from_row_splits([[0]]))
show(lambda: R.from_row_splits([0, 2.0]))
show(lambda: R.from_row_splits([0, 1], dtype=tf.float32))
show(lambda: R.from_row_splits(tf.constant([0, 2, 3], tf.int32)).dtype)
show(lambda: R.from_row_splits([0, 2, 3], dtype=tf.int32).dtype)
show(lambda: R.from_row_splits([0, 2, 3], dtype_hint=tf.int32).dtype)
show(lambda: R.from_row_splits(tf.constant([0, 2, 3], tf.int32), dtype=tf.int64))
show(lambda: R.from_row_splits(tf.constant([0, 1], tf.int64), dtype_hint=tf.int32).dtype)
show(lambda: R.from_row_splits(tf.constant([0.0, 1.0])))
show(lambda: R.from_row_lengths(np.array([1, 2], 'int32')).dtype)
show(lambda: R.from_row_lengths(tf.constant([3, 3, 3], tf.uint8)))
show(lambda: R.from_row_lengths([2, -1]))
show(lambda: R.from_row_lengths([2, -1, 3, 4, 5, -6, 7, 8, 9]))
show(lambda: R.from_row_lengths([[1]]))
show(lambda: R.from_row_lengths(3))
show(lambda: R.from_row_lengths([3, 3, 3], validate=False))
show(lambda: R.from_value_rowids([0, 0, 2, 2, 3]))
show(lambda: R.from_value_rowids([0, 0, 2, 2, 3], nrows=2))
show(lambda: R.from_value_rowids([0, 2, 1]))
show(lambda: R.from_value_rowids([-1, 2]))
show(lambda: R.from_value_rowids([-1, -2]))
show(lambda: R.from_value_rowids([]))
show(lambda: R.from_value_rowids([]).nrows())
show(lambda: R.from_value_rowids([0, 1], nrows=tf.constant(3, tf.int32)))
show(lambda: R.from_row_starts([0, 2, 2], nvals=1))
show(lambda: R.from_row_starts([1, 2, 2], nvals=5))
show(lambda: R.from_row_starts([0, 3, 2], nvals=5))
show(lambda: R.from_row_starts([], nvals=5))
show(lambda: R.from_row_limits([2, 1, 5]))
show(lambda: R.from_row_limits([-1, 1, 5]))
show(lambda: R.from_row_limits([]))
show(lambda: R.from_uniform_row_length(3, nvals=13))
show(lambda: R.from_uniform_row_length(3, nrows=4))
show(lambda: R.from_uniform_row_length(3, nrows=4).nvals())
show(lambda: R.from_uniform_row_length(3, nrows=4, nvals=11))
show(lambda: R.from_uniform_row_length(3))
show(lambda: R.from_uniform_row_length(0, nvals=0))
show(lambda: R.from_uniform_row_length(-1, nvals=0))
show(lambda: R.from_uniform_row_length([3], nvals=12))
show(lambda: R.from_uniform_row_length(tf.constant(3, tf.int32), nvals=12).dtype)
show(lambda: R.from_uniform_row_length(3, nvals=12).with_dtype(tf.int32))
show(lambda: R.from_uniform_row_length(3, nvals=12).with_dtype(tf.int32)
     .static_uniform_row_length)
show(lambda: R.from_row_lengths([1]).with_dtype(tf.float32))
show(lambda: R(row_splits=[0, 1]))
""",
}

CASES = {name: SHOW + program for name, program in PROGRAMS.items()}


def main() -> None:
    # The runner of tools/record_ragged_fixtures.py (same JSON layout), over these programs.
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from tools import record_ragged_fixtures as runner
    runner.main(CASES, OUT)


if __name__ == "__main__":
    main()
