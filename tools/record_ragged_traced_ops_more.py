"""Records TensorFlow 2.21's answers for tests/ragged/test_ragged_traced_ops_more.py (run where
TensorFlow is installed; CI does not run it):

    python tools/record_ragged_traced_ops_more.py
    # writes tests/ragged/fixtures/ragged_traced_ops_more.json

The programs use the prelude and printing helpers of tools/record_ragged_traced_ops.py
(`check` prints a traced function's static output shapes, the values or error classes of
calls with different partitions, and its tracing count; `grad` the gradient to the input's
flat values): slicing with tensor bounds, to_tensor(shape=...) over inner dims,
stack_dynamic_partitions, boolean_mask with ragged masks, inner dense dims unknown while
tracing, DynamicRaggedShape equality and the ragged dispatch of expand_dims, ones_like,
zeros_like and broadcast_to.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tools.record_ragged_traced_ops import PRELUDE  # noqa: E402 - after the path

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "ragged" / "fixtures" / \
    "ragged_traced_ops_more.json"

PRELUDE_MORE = PRELUDE + """
I = T([], tf.int32)
L = T([], tf.int64)
c = tf.constant
S1u = tf.RaggedTensorSpec([None, None, None], tf.float32, 1, tf.int64)
S2u = tf.RaggedTensorSpec([None, None, None, None], tf.float32, 2, tf.int64)
"""

PROGRAMS = {
    "slice_rows": """
f = check("rows", lambda r, a, b: r[a:b], [S1, I, I],
          [(A, c(1), c(3)), (B, c(0), c(1)), (A, c(-2), c(5)), (B, c(2), c(0))])
grad(f, A, c(1), c(3))
check("rows_start", lambda r, a: r[a:], [S2, L], [(A2, c(1, tf.int64)), (B2, c(-1, tf.int64))])
check("rows_int_step", lambda r, a, b: r[a:b:2], [S1, I, I],
      [(A, c(0), c(3)), (B, c(-1), c(5))])
f = check("rows_neg_step", lambda r, a: r[a::-1], [S1, I], [(A, c(1)), (B, c(5))])
grad(f, A, c(1))
# TF 2.21 refuses a tensor step for rows (a Python `if` on it)
check("rows_step", lambda r, a, b, k: r[a:b:k], [S1, I, I, I],
      [(A, c(0), c(3), c(2))])
check("rows_only_step", lambda r, k: r[::k], [S1, I], [(A, c(-1)), (B, c(2))])
""",
    "slice_items": """
f = check("items", lambda r, a, b: r[:, a:b], [S1, I, I],
          [(A, c(1), c(3)), (B, c(0), c(1)), (A, c(-2), c(5))])
grad(f, A, c(1), c(3))
check("items_step", lambda r, a, k: r[:, a::k], [S1, I, I],
      [(A, c(0), c(2)), (B, c(-1), c(-1))])
check("items_nested", lambda r, a: r[:, a:], [S2, I], [(A2, c(1)), (B2, c(-1))])
check("items_inner", lambda r, a: r[:, :a, 1], [S13, I], [(C, c(1)), (D, c(3))])
f = check("row_items", lambda r, i, a, b: r[i, a:b], [S1, I, I, I],
          [(A, c(2), c(1), c(3)), (B, c(-1), c(0), c(1)), (B, c(5), c(0), c(1))],
          ("out of bounds",))
grad(f, A, c(2), c(1), c(3))
check("row_items_nested", lambda r, i, a: r[i, a:], [S2, I, I],
      [(A2, c(2), c(1)), (B2, c(0), c(0))])
""",
    "to_tensor": """
# TF pads and cuts the ragged dims only: inner dims of `shape` must equal the flat values'
# (a ValueError while tracing where both are static, else InvalidArgumentError as it runs)
words = ("are incompatible",)
f = check("same_inner", lambda r: r.to_tensor(default_value=9.0, shape=[2, 3, 2]), [S13],
          [(C,), (D,)])
grad(f, C)
check("unknown_inner", lambda r: r.to_tensor(default_value=9.0, shape=[2, 3, 2]), [S1u],
      [(C,), (D,)])
check("none_inner", lambda r: r.to_tensor(shape=[4, 1, None]), [S1u], [(C,), (D,)])
f = check("default_vector", lambda r: r.to_tensor(default_value=[5.0, 6.0], shape=[4, 1, 2]),
          [S13], [(C,), (D,)])
grad(f, D)
check("default_traced", lambda r, d: r.to_tensor(default_value=d, shape=[None, 3, None]),
      [S1u, T([None], tf.float32)], [(C, c([7.0, 8.0])), (D, c([-1.0, 1.0]))])
check("traced_shape", lambda r, s: r.to_tensor(shape=s), [S13, T([3], tf.int64)],
      [(C, c([2, 1, 3], tf.int64)), (D, c([-1, 3, -1], tf.int64)),
       (C, c([3, 1, 2], tf.int64))], words)
check("cut_inner", lambda r: r.to_tensor(shape=[2, 3, 1]), [S13], [(C,)], words)
check("pad_inner", lambda r: r.to_tensor(shape=[None, 3, 3]), [S13], [(C,)], words)
check("pad_unknown_inner", lambda r: r.to_tensor(shape=[None, None, 3]), [S1u],
      [(C,), (tf.ragged.constant([[[1.0, 2.0, 3.0]]], ragged_rank=1),)], words)
for shape in ([2, 3, 1], [None, None, 3]):
    try:
        print("eager", value(C.to_tensor(shape=shape)))
    except Exception as e:
        print("eager", type(e).__name__, [w in str(e) for w in words])
""",
    "stack_dynamic_partitions": """
words = ("partitions must be less than num_partitions",)
f = check("ragged", lambda r, p: tf.ragged.stack_dynamic_partitions(r, p, 3),
          [S1, T([None], tf.int32)],
          [(A, c([2, 0, 2])), (B, c([1, 1])), (B, c([3, 0])), (A, c([0, 1]))], words)
grad(f, A, c([2, 0, 2]))
check("nested", lambda r, p: tf.ragged.stack_dynamic_partitions(r, p, 2),
      [S2, T([None], tf.int64)], [(A2, c([1, 0, 1], tf.int64)), (B2, c([0, 0], tf.int64))])
f = check("dense", lambda t, p: tf.ragged.stack_dynamic_partitions(t, p, 2),
          [T([None, 2], tf.float32), T([None], tf.int32)],
          [(c([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), c([1, 0, 1])), (c([[1.0, 2.0]]), c([1]))])
f = check("dense_constant_parts", lambda t: tf.ragged.stack_dynamic_partitions(t, [1, 0, 1], 2),
          [T([None, 2], tf.float32)], [(c([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),),
                                       (c([[1.0, 2.0]]),)])
print("   splits", f.get_concrete_function().structured_outputs.row_splits.dtype)
check("traced_count", lambda r, p, n: tf.ragged.stack_dynamic_partitions(r, p, n),
      [S1, T([None], tf.int32), I], [(A, c([2, 0, 2]), c(3)), (B, c([1, 1]), c(2))], words)
""",
    "boolean_mask": """
f = check("nested_mask", lambda r: tf.ragged.boolean_mask(r, r > 2.5), [S2], [(A2,), (B2,)])
grad(f, A2)
f = check("inner_mask", lambda r: tf.ragged.boolean_mask(r, r > 2.5), [S13], [(C,), (D,)])
grad(f, C)
check("ragged_rank2_mask", lambda r, m: tf.ragged.boolean_mask(r, m),
      [S2, tf.RaggedTensorSpec([None, None], tf.bool, 1, tf.int64)],
      [(A2, tf.ragged.constant([[True, False], [], [False, True, True]])),
       (B2, tf.ragged.constant([[False], [True, True]]))])
f = check("dense_mask_2d", lambda r, m: tf.ragged.boolean_mask(r, m),
          [S13, T([None, None], tf.bool)],
          [(C, c([[True, False], [False, False], [True, True]])),
           (D, c([[False], [True]]))], ("Condition x == y did not hold",))
check("dense_data_ragged_mask", lambda t, m: tf.ragged.boolean_mask(t, m),
      [T([None, None], tf.float32), tf.RaggedTensorSpec([None, None], tf.bool, 1, tf.int64)],
      [(c([[1.0, 2.0], [3.0, 4.0]]), tf.ragged.constant([[True, False], [True, True]]))])
check("dense_data_matrix_mask", lambda t, m: tf.ragged.boolean_mask(t, m),
      [T([None, None], tf.float32), T([None, None], tf.bool)],
      [(c([[1.0, 2.0], [3.0, 4.0]]), c([[True, False], [True, True]]))])
""",
    "unknown_inner": """
f = check("merge_1_2", lambda r: r.merge_dims(1, 2), [S1u], [(C,), (D,)])
grad(f, C)
check("merge_0_2", lambda r: r.merge_dims(0, 2), [S1u], [(C,), (D,)])
check("merge_nested", lambda r: r.merge_dims(1, 3), [S2u],
      [(tf.RaggedTensor.from_nested_row_lengths(tf.ones([3, 2]), [[2, 0], [1, 2]]),)])
f = check("to_sparse", lambda r: r.to_sparse(), [S1u], [(C,), (D,)])
grad(f, C)
check("from_tensor", lambda t: tf.RaggedTensor.from_tensor(t, padding=0.0),
      [T([None, None, None], tf.float32)],
      [(c([[[1.0, 0.0], [0.0, 0.0]], [[2.0, 3.0], [0.0, 4.0]]]),), (tf.ones([1, 3, 1]),)])
check("from_tensor_uniform", lambda t: tf.RaggedTensor.from_tensor(t),
      [T([None, None, None], tf.float32)], [(tf.ones([2, 3, 2]),)])
check("from_tensor_lengths", lambda t, l: tf.RaggedTensor.from_tensor(t, lengths=l),
      [T([None, None, None], tf.float32), T([None], tf.int64)],
      [(tf.ones([2, 3, 2]), c([1, 3], tf.int64))])
""",
    "shape_equality": """
def same(a, b):
    return tf.shape(a) == tf.shape(b)


# TF compares each component (inner shape, row splits) with Equal and reduce_all: splits of
# different lengths fail to reduce as the graph runs; same lengths give False or True
check("equal", same, [S1, S1],
      [(A, A), (A, B), (B, A * 2.0), (A, tf.ragged.constant([[1.0], [2.0, 3.0], [4.0, 5.0]]))],
      ("Invalid reduction dimension",))
check("not_equal", lambda a, b: tf.shape(a) != tf.shape(b), [S1, S1], [(A, A), (A, B)])
check("equal_nested", same, [S2, S2], [(A2, A2), (A2, B2)])
""",
    "expand_dims": """
for name, axis in [("expand_0", 0), ("expand_1", 1), ("expand_2", 2), ("expand_neg", -1)]:
    op = lambda r: tf.expand_dims(r, axis)
    print(name, "eager", value(op(A)), value(op(A2)))
    check(name, op, [S1], [(A,), (B,)])
    check(name + "_2", op, [S2], [(A2,), (B2,)])
f = check("expand_grad", lambda r: tf.expand_dims(r, 1) * 2.0, [S1], [(A,)])
grad(f, A)
try:
    tf.expand_dims(B, 3)
except Exception as e:
    print("out of range", type(e).__name__, str(e))
""",
    "like": """
for name, op in [("ones_like", lambda r: tf.ones_like(r)),
                 ("zeros_like", lambda r: tf.zeros_like(r, dtype=tf.int32)),
                 ("ones_like_int", lambda r: tf.ones_like(r, tf.int64))]:
    print(name, "eager", value(op(A)), value(op(A2)))
    check(name, op, [S1], [(A,), (B,)])
    check(name + "_2", op, [S2], [(A2,), (B2,)])
""",
    "broadcast_to": """
for shape in ([2, 1], [3, 2, 1]):
    try:
        print("ragged input", value(tf.broadcast_to(B, shape)))
    except Exception as e:
        print("ragged input", type(e).__name__)
print("dense to ragged shape", value(tf.broadcast_to(c([1.0]), tf.shape(A))))
f = check("scalar_to_shape", lambda r, x: tf.broadcast_to(x, tf.shape(r)),
          [S1, T([], tf.float32)], [(A, c(2.0)), (B, c(-1.0))])
check("row_to_shape", lambda r: tf.broadcast_to(c([[1.0]]), tf.shape(r)), [S1], [(A,), (B,)])
check("column_to_shape", lambda r, x: tf.broadcast_to(x, tf.shape(r)),
      [S1, T([None, 1], tf.float32)],
      [(A, c([[1.0], [2.0], [3.0]])), (B, c([[4.0], [5.0]])), (B, c([[1.0], [2.0], [3.0]]))],
      ("Condition x == y did not hold",))
check("nested_to_shape", lambda r: tf.broadcast_to(c(5.0), tf.shape(r)), [S2], [(A2,), (B2,)])
check("inner_to_shape", lambda r: tf.broadcast_to(c([1.0, 2.0]), tf.shape(r)), [S13],
      [(C,), (D,)])
check("own_shape_int32", lambda r: tf.broadcast_to(r, tf.shape(r)), [S1], [(A,)],
      ("Cannot coerce row_splits.dtype",))
""",
    "eager": """
# the same ops eagerly: masks of rank > 2, the ragged dispatch, to_tensor of no values
for name, f in [
        ("nested_mask", lambda: tf.ragged.boolean_mask(A2, A2 > 2.5)),
        ("inner_mask", lambda: tf.ragged.boolean_mask(C, C > 2.5)),
        ("dense_rank3", lambda: tf.ragged.boolean_mask(
            tf.reshape(tf.range(8.0), [2, 2, 2]), tf.reshape(tf.range(8), [2, 2, 2]) % 3 == 0)),
        ("dense_mask_2d", lambda: tf.ragged.boolean_mask(
            C, c([[True, False], [False, False], [True, True]]))),
        ("expand_dims", lambda: tf.expand_dims(C, 1)),
        ("broadcast_column", lambda: tf.broadcast_to(c([[1.0], [2.0], [3.0]]), tf.shape(A))),
        ("broadcast_nested", lambda: tf.broadcast_to(c([[1.0], [2.0], [3.0]]), tf.shape(A2))),
        ("to_tensor_no_values", lambda: tf.RaggedTensor.from_nested_row_lengths(
            tf.zeros([0]), [[2], [0, 0]]).to_tensor(shape=[2, None, 3])),
        ("slice_tensor_bounds", lambda: (A[c(1):c(3)], A[:, c(-2):], A2[c(2), c(1):]))]:
    try:
        print(name, value(f()))
    except Exception as e:
        print(name, type(e).__name__)
# stack_dynamic_partitions' row splits: data's dtype, else the partitions'
print("splits dtypes", [tf.ragged.stack_dynamic_partitions(d, p, 2).row_splits.dtype.name
                        for d, p in [(c([[1.0], [2.0]]), [1, 0]), (B, [1, 0]),
                                     (c([1.0, 2.0]), c([1, 0], tf.int64))]])
""",
}

CASES = {name: PRELUDE_MORE + program for name, program in PROGRAMS.items()}


def main() -> None:
    # The runner of tools/record_ragged_fixtures.py (same JSON layout), over these programs.
    from tools import record_ragged_fixtures as runner
    runner.main(CASES, OUT)


if __name__ == "__main__":
    main()
