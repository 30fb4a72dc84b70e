"""Records TensorFlow 2.21's answers for tests/ragged/test_ragged_traced_ops.py (run where
TensorFlow is installed; CI does not run it):

    python tools/record_ragged_traced_ops.py   # writes tests/ragged/fixtures/ragged_traced_ops.json

Each case is a small program over `tf`: ragged ops inside a `tf.function` whose RaggedTensor
arguments come through a RaggedTensorSpec signature, so their row splits are graph values.
It prints the static shapes of the traced outputs, the values of calls with different
partitions (or the error's class and whether TF's key phrases are in its message), the
tracing count, and the gradient of a loss with respect to the input's flat values. The test
runs every program on tapeflow and compares the printed text.
"""

from __future__ import annotations

import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ragged" / "fixtures" / \
    "ragged_traced_ops.json"

# Prepended to every program: specs, inputs and the printing helpers.
PRELUDE = """
S1 = tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64)
S2 = tf.RaggedTensorSpec([None, None, None], tf.float32, 2, tf.int64)
S13 = tf.RaggedTensorSpec([None, None, 2], tf.float32, 1, tf.int64)
T = tf.TensorSpec
A = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
B = tf.ragged.constant([[7.0], [8.0, 9.0]])
A2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [], [[4.0], [], [5.0, 6.0, 7.0]]])
B2 = tf.ragged.constant([[[1.0]], [[2.0, 3.0], [4.0]]])
C = tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [], [[5.0, 6.0]]], ragged_rank=1)
D = tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0]]], ragged_rank=1)


def static(o):
    if isinstance(o, tf.RaggedTensor):
        return [static(o.values), o.row_splits.shape.as_list()]
    if isinstance(o, tf.SparseTensor):
        return [static(o.indices), static(o.values), static(o.dense_shape)]
    if isinstance(o, (tuple, list)):
        return [static(x) for x in o]
    return o.shape.as_list()


def value(o):
    if isinstance(o, tf.RaggedTensor):
        return o.to_list()
    if isinstance(o, tf.SparseTensor):
        return [value(o.indices), value(o.values), value(o.dense_shape)]
    if isinstance(o, (tuple, list)):
        return [value(x) for x in o]
    return o.numpy().tolist()


def check(name, fn, signature, calls, words=()):
    f = tf.function(fn, input_signature=signature)
    try:
        print(name, "static", static(f.get_concrete_function().structured_outputs))
    except Exception as e:
        print(name, "trace", type(e).__name__, [w in str(e) for w in words])
        return
    for args in calls:
        try:
            print("  ", value(f(*args)))
        except Exception as e:
            print("  ", type(e).__name__, [w in str(e) for w in words])
    print("  traces", f.experimental_get_tracing_count())
    return f


def loss(o):
    flat = o.flat_values if isinstance(o, tf.RaggedTensor) else \\
        o.values if isinstance(o, tf.SparseTensor) else o
    return tf.reduce_sum(flat * flat * 0.5 + flat)


def grad(f, *args):
    x = args[0]
    source = x.flat_values if isinstance(x, tf.RaggedTensor) else x
    with tf.GradientTape() as tape:
        tape.watch(source)
        y = loss(f(*args))
    print("   grad", value(tf.convert_to_tensor(tape.gradient(y, source))))
"""

PROGRAMS = {
    "tile": """
f = check("tile23", lambda r: tf.tile(r, [2, 3]), [S1], [(A,), (B,)])
grad(f, A)
grad(f, B)
words = ("Expected multiples[0] >= 0, but got -1",)
f = check("tile_traced_multiples", lambda r, m: tf.tile(r, m), [S1, T([2], tf.int32)],
          [(A, tf.constant([2, 1])), (B, tf.constant([0, 2])), (B, tf.constant([-1, 2]))],
          words)
grad(f, A, tf.constant([1, 2]))
f = check("tile_nested", lambda r: tf.tile(r, [2, 1, 2]), [S2], [(A2,), (B2,)])
grad(f, A2)
check("tile_nested_items", lambda r: tf.tile(r, [1, 2, 1]), [S2], [(A2,), (B2,)])
f = check("tile_inner", lambda r: tf.tile(r, [1, 2, 3]), [S13], [(C,), (D,)])
grad(f, C)
check("tile_rows", lambda r: tf.tile(r, [3, 1]), [S1], [(A,), (B,)])
check("tile_none", lambda r: tf.tile(r, [1, 0]), [S1], [(A,), (B,)])
check("tile_matrix", lambda r: tf.tile(r, [[1, 2]]), [S1], [(A,)], ("must have rank 1",))
""",
    "merge_dims": """
for outer, inner in [(1, 2), (0, 1), (0, 2), (-2, -1)]:
    f = check(f"merge_{outer}_{inner}", lambda r: r.merge_dims(outer, inner), [S2],
              [(A2,), (B2,)])
    grad(f, A2)
for outer, inner in [(1, 2), (0, 1), (0, 2)]:
    f = check(f"merge_dense_{outer}_{inner}", lambda r: r.merge_dims(outer, inner), [S13],
              [(C,), (D,)])
    grad(f, C)
""",
    "to_sparse": """
for name, spec, calls in [("rank2", S1, [(A,), (B,)]), ("nested", S2, [(A2,), (B2,)]),
                          ("inner", S13, [(C,), (D,)])]:
    f = check(name, lambda r: r.to_sparse(), [spec], calls)
    grad(f, *calls[0])
""",
    "shape": """
def shape_ops(r):
    s = tf.shape(r)
    p = s.row_partitions[0]
    print(repr(s), s.rank, s.num_row_partitions, s.dtype, s.static_lengths(),
          s.is_uniform(1), p.static_nrows, p.static_nvals, p.static_uniform_row_length)
    try:
        s[1]
    except ValueError as e:
        print("ValueError", e)
    print(repr(s[:1]), repr(s[:2]))
    return (s[0], p.row_lengths(), p.row_splits(), p.nrows(), p.nvals(), p.value_rowids(),
            p.offsets_in_rows(), s.inner_shape, tf.zeros(s), tf.ones(s, tf.int32),
            tf.fill(s, 3.0), tf.reshape(r.flat_values * 2.0, s), s[:1].inner_shape)


check("shape", shape_ops, [S1], [(A,), (B,)])
S2d = tf.RaggedTensorSpec([None, None, None, 2], tf.float32, 2, tf.int64)
E = tf.ragged.constant([[[[1.0, 2.0]], []], [[[3.0, 4.0], [5.0, 6.0]]]], ragged_rank=2)
F = tf.ragged.constant([[[[1.0, 2.0]]]], ragged_rank=2)


def nested_shape(r):
    s = tf.shape(r, out_type=tf.int64)
    print(repr(s), s.static_lengths(), s.dtype)
    return (s[0], s[3], tf.fill(s, 3.0), s.row_partitions[1].offsets_in_rows(),
            tf.reshape(r, s), s.inner_shape)


check("nested_shape", nested_shape, [S2d], [(E,), (F,)])
""",
    "broadcast": """
words = ("Condition x == y did not hold", "Last row partition does not match flat_values.")
f = check("column", lambda r, t: r + t, [S1, T([None, 1], tf.float32)],
          [(A, tf.constant([[1.0], [2.0], [3.0]])), (B, tf.constant([[10.0], [20.0]])),
           (B, tf.constant([[1.0], [2.0], [3.0]]))], words)
grad(f, A, tf.constant([[1.0], [2.0], [3.0]]))
check("column_static", lambda r: r * tf.constant([[1.0], [2.0], [3.0]]), [S1],
      [(A,), (B,)], words)
check("one_by_one", lambda r: r - tf.constant([[5.0]]), [S1], [(A,), (B,)])
check("uniform_row", lambda r: r + tf.constant([[1.0, 2.0]]), [S1],
      [(A,), (tf.ragged.constant([[1.0, 1.0], [2.0, 2.0]]),)], words)
f = check("leading", lambda r: r + tf.constant([[[1.0]], [[2.0]]]), [S1], [(A,), (B,)])
grad(f, A)
f = check("nested_column", lambda r, t: r * t, [S2, T([None, 1, 1], tf.float32)],
          [(A2, tf.constant([[[1.0]], [[2.0]], [[3.0]]])),
           (B2, tf.constant([[[10.0]], [[20.0]]]))], words)
grad(f, A2, tf.constant([[[1.0]], [[2.0]], [[3.0]]]))
check("nested_middle", lambda r, t: r + t, [S2, T([None, 1], tf.float32)],
      [(A2, tf.constant([[1.0], [2.0], [3.0]])), (B2, tf.constant([[10.0], [20.0]]))],
      words)
f = check("inner_dims", lambda r, t: r + t, [S13, T([None, 1, 2], tf.float32)],
          [(C, tf.constant([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]])),
           (D, tf.constant([[[10.0, 20.0]], [[30.0, 40.0]]]))])
grad(f, C, tf.constant([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]))
check("dense_first", lambda r, t: t - r, [S1, T([None, 1], tf.float32)],
      [(A, tf.constant([[1.0], [2.0], [3.0]]))])
check("traced_leading", lambda r, t: r * t, [S1, T([None, None, 1], tf.float32)],
      [(A, tf.ones([2, 3, 1])), (B, tf.ones([1, 2, 1]))])
""",
    "from_tensor": """
X = T([None, None, None], tf.float32)
P = tf.constant([[[1.0, 0.0], [0.0, 0.0]], [[2.0, 3.0], [0.0, 4.0]]])
f = check("uniform", lambda t: tf.RaggedTensor.from_tensor(t, ragged_rank=2), [X],
          [(tf.ones([2, 2, 3]),), (tf.reshape(tf.range(6.0), [3, 1, 2]),)])
grad(f, P)
f = check("padding", lambda t: tf.RaggedTensor.from_tensor(t, padding=0.0, ragged_rank=2),
          [X], [(P,), (tf.zeros([1, 2, 2]),)])
grad(f, P)
check("lengths_matrix", lambda t, l: tf.RaggedTensor.from_tensor(t, lengths=l, ragged_rank=2),
      [X, T([None, None], tf.int64)], [(P, tf.constant([[1, 0], [2, 1]], tf.int64))],
      ("must have rank 1",))
f = check("lengths", lambda t, l: tf.RaggedTensor.from_tensor(t, lengths=l, ragged_rank=2),
          [X, T([None], tf.int64)], [(P, tf.constant([1, 0, 2, 1], tf.int64))])
grad(f, P, tf.constant([1, 0, 2, 1], tf.int64))
check("static_shape", lambda t: tf.RaggedTensor.from_tensor(t, ragged_rank=2),
      [T([2, 2, 3], tf.float32)], [(tf.ones([2, 2, 3]),)])
check("inner_dim", lambda t: tf.RaggedTensor.from_tensor(t, ragged_rank=2),
      [T([None, None, None, 2], tf.float32)], [(tf.ones([2, 2, 1, 2]),)])
check("rank3", lambda t: tf.RaggedTensor.from_tensor(t, ragged_rank=3),
      [T([None, None, None, None], tf.float32)], [(tf.reshape(tf.range(8.0), [2, 1, 2, 2]),)])
""",
    "keepdims": """
for name, op, axis, spec, calls in [
        ("sum_2", tf.reduce_sum, 2, S2, [(A2,), (B2,)]),
        ("sum_1", tf.reduce_sum, 1, S2, [(A2,), (B2,)]),
        ("sum_0", tf.reduce_sum, 0, S2, [(A2,), (B2,)]),
        ("sum_1_rank2", tf.reduce_sum, 1, S1, [(A,), (B,)]),
        ("mean_2", tf.reduce_mean, 2, S2, [(A2,), (B2,)]),
        ("max_1", tf.reduce_max, 1, S2, [(A2,), (B2,)]),
        ("sum_axes", tf.reduce_sum, [1, 2], S2, [(A2,), (B2,)]),
        ("sum_inner", tf.reduce_sum, 1, S13, [(C,), (D,)])]:
    f = check(name, lambda r: op(r, axis=axis, keepdims=True), [spec], calls)
    grad(f, *calls[0])
# tf.stack inside rows: each input given a new axis of length 1 there
f = check("stack_1", lambda r: tf.stack([r, r * 2.0], axis=1), [S1], [(A,), (B,)])
grad(f, A)
check("stack_2", lambda r: tf.stack([r, r * 2.0], axis=2), [S1], [(A,), (B,)])
check("stack_nested", lambda r: tf.stack([r, r], axis=1), [S2], [(A2,), (B2,)])
""",
    "map_fn": """
# TF 2.21 cannot differentiate its traced map_fn over ragged rows (ZerosLike of a variant):
# `grad` here is of the eager calls; the test checks tapeflow's traced gradients equal them.
dense_rows = lambda r: tf.map_fn(tf.reduce_sum, r, fn_output_signature=tf.float32)
check("dense_rows", dense_rows, [S1], [(A,), (B,)])
grad(dense_rows, A)
check("default_signature", lambda r: tf.map_fn(lambda x: x * 2.0, r), [S1], [(A,)],
      ("as_list() is not defined on an unknown TensorShape.",))
ragged_rows = lambda r: tf.map_fn(
    lambda x: x[:1] * 3.0, r, fn_output_signature=tf.RaggedTensorSpec([None], tf.float32, 0))
check("ragged_rows", ragged_rows, [S1], [(A,), (B,)])
grad(ragged_rows, A)
nested_rows = lambda r: tf.map_fn(
    lambda x: tf.reduce_sum(x, axis=1), r,
    fn_output_signature=tf.RaggedTensorSpec([None], tf.float32, 0))
check("nested_rows", nested_rows, [S2], [(A2,), (B2,)])
grad(nested_rows, A2)
nested_ragged_rows = lambda r: tf.map_fn(
    lambda x: x * x, r, fn_output_signature=tf.RaggedTensorSpec([None, None], tf.float32, 1))
check("nested_ragged_rows", nested_ragged_rows, [S2], [(A2,), (B2,)])
grad(nested_ragged_rows, B2)
check("vector_rows", lambda r: tf.map_fn(
    lambda x: tf.stack([tf.reduce_sum(x), tf.reduce_max(x)]), r,
    fn_output_signature=tf.TensorSpec([2], tf.float32)), [S1], [(A,), (B,)])
two_inputs = lambda r, t: tf.map_fn(
    lambda xs: tf.reduce_sum(xs[0]) * xs[1], (r, t), fn_output_signature=tf.float32)
check("two_inputs", two_inputs, [S1, T([None], tf.float32)],
      [(A, tf.constant([1.0, 2.0, 3.0])), (B, tf.constant([2.0, 1.0]))])
grad(two_inputs, A, tf.constant([1.0, 2.0, 3.0]))
check("no_rows", dense_rows, [S1], [(tf.ragged.constant([], tf.float32, ragged_rank=1),)])
""",
    "cross": """
SS = tf.RaggedTensorSpec([None, None], tf.string, 1, tf.int64)
SI = tf.RaggedTensorSpec([None, None], tf.int64, 1, tf.int64)
sa = tf.ragged.constant([["a", "b"], [], ["c"]])
sb = tf.ragged.constant([["x"], ["y", "z"], ["w"]])
ia = tf.ragged.constant([[1, 2], [3], [4]], tf.int64)
words = ("inputs must all have the same batch dimension size.",)
check("strings", lambda a, b: tf.ragged.cross([a, b]), [SS, SS],
      [(sa, sb), (sb, sa), (sa, tf.ragged.constant([["x"]]))], words)
check("with_dense", lambda a, b: tf.ragged.cross([a, b]), [SS, T([None, 1], tf.string)],
      [(sa, tf.constant([["q"], ["r"], ["s"]]))])
check("hashed", lambda a, b: tf.ragged.cross_hashed([a, b], num_buckets=100), [SS, SI],
      [(sa, ia), (sb, ia)])
check("hashed_key", lambda a: tf.ragged.cross_hashed([a, a], hash_key=7), [SI], [(ia,)])
check("with_sparse", lambda a, s: tf.ragged.cross([a, s]),
      [SS, tf.SparseTensorSpec([None, None], tf.string)],
      [(sa, tf.sparse.from_dense(tf.constant([["p", ""], ["", "q"], ["r", "s"]])))])
""",
}

CASES = {name: PRELUDE + program for name, program in PROGRAMS.items()}


def main() -> None:
    # The runner of tools/record_ragged_fixtures.py (same JSON layout), over these programs.
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from tools import record_ragged_fixtures as runner
    runner.main(CASES, OUT)


if __name__ == "__main__":
    main()
