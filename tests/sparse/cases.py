# ruff: noqa: E501 - each snippet on one line, as recorded
"""Snippets run under TensorFlow 2.21 (tools/record_sparse_fixtures.py records what they
print into fixtures/tf221.json) and under tapeflow (test_sparse_tf.py compares). Each runs
with `tf` bound; an exception ends it and is recorded as its class name."""

SETUP = """
st = tf.SparseTensor(indices=[[0, 1], [1, 0], [2, 3]], values=[1., 2., 3.], dense_shape=[3, 4])
u = tf.SparseTensor(indices=[[2, 1], [0, 3], [1, 1]], values=[4., 5., 6.], dense_shape=[3, 4])
"""

CASES = {
    "print": "print(st); print(repr(st)); print(st.shape, st.dtype, st.indices.dtype)",
    "spec": "print(tf.SparseTensorSpec.from_value(st)); print(tf.SparseTensorSpec([None, 3], tf.int64))",
    "with_values": "print(st.with_values(tf.constant([7, 8, 9])))",
    "bad_rank": "tf.SparseTensor(indices=[0, 0], values=[1], dense_shape=[3, 4])",
    "bad_n": "tf.SparseTensor(indices=[[0, 0]], values=[1, 2], dense_shape=[3, 4])",
    "to_dense_default": "print(tf.sparse.to_dense(st, default_value=-1.))",
    "to_dense_unordered": "print(tf.sparse.to_dense(u))",
    "to_dense_unordered_novalidate": "print(tf.sparse.to_dense(u, validate_indices=False))",
    "to_dense_repeated": "print(tf.sparse.to_dense(tf.SparseTensor([[0, 0], [0, 0]], [1, 2], [2, 2])))",
    "to_dense_oob": "print(tf.sparse.to_dense(tf.SparseTensor([[0, 0], [5, 0]], [1, 2], [2, 2])))",
    "from_dense_float": "print(tf.sparse.from_dense(tf.constant([[0., 1.5], [2., 0.]])))",
    "matmul": "print(tf.sparse.sparse_dense_matmul(st, tf.reshape(tf.range(8.), [4, 2])))",
    "matmul_adjoint_a": "print(tf.sparse.sparse_dense_matmul(st, tf.reshape(tf.range(6.), [3, 2]), adjoint_a=True))",
    "matmul_adjoint_b": "print(tf.sparse.sparse_dense_matmul(st, tf.reshape(tf.range(8.), [2, 4]), adjoint_b=True))",
    "matmul_dense_sparse": "print(tf.sparse.sparse_dense_matmul(tf.reshape(tf.range(6.), [2, 3]), st))",
    "matmul_inner": "print(tf.sparse.sparse_dense_matmul(st, tf.ones([3, 2])))",
    "reduce_sum": "print(tf.sparse.reduce_sum(st)); print(tf.sparse.reduce_sum(st, axis=1)); print(tf.sparse.reduce_sum(st, axis=0, keepdims=True))",
    "reduce_sum_sparse": "print(tf.sparse.reduce_sum(st, axis=1, output_is_sparse=True)); print(tf.sparse.reduce_sum(u, axis=0, output_is_sparse=True)); tf.sparse.reduce_sum_sparse",
    "reduce_max": "print(tf.sparse.reduce_max(st, axis=1)); print(tf.sparse.reduce_max(st))",
    "reduce_max_sparse": "print(tf.sparse.reduce_max(u, axis=1, keepdims=True, output_is_sparse=True)); print(tf.sparse.reduce_max(tf.SparseTensor([[0, 0]], [-2.], [2, 2]), axis=1))",
    "add_threshold": "print(tf.sparse.add(st, tf.SparseTensor([[0, 1], [2, 2]], [-0.5, 0.25], [3, 4]), threshold=0.6))",
    "add_sparse": "print(tf.sparse.add(st, tf.sparse.reorder(u)))",
    "add_dense": "print(tf.sparse.add(st, tf.ones([3, 4])))",
    "add_shape_mismatch": "print(tf.sparse.add(st, tf.SparseTensor([[0, 0]], [1.], [3, 5])))",
    "reorder": "print(tf.sparse.reorder(u))",
    "shape_size_rank": "print(tf.shape(st)); print(tf.shape(st, out_type=tf.int64)); print(tf.size(st)); print(tf.rank(st))",
    "shape_size_rank_traced": "print(tf.function(lambda s: (tf.shape(s), tf.size(s), tf.rank(s)))(st))",
    "reshape": "print(tf.sparse.reshape(st, [2, -1])); print(tf.sparse.reshape(st, [-1]))",
    "reshape_bad": "print(tf.sparse.reshape(st, [5, 2]))",
    "slice": "print(tf.sparse.slice(st, [1, 0], [5, 2]))",
    "concat": "print(tf.sparse.concat(0, [st, u]))",
    "concat_expand": "print(tf.sparse.concat(1, [st, tf.SparseTensor([[4, 0]], [9.], [5, 1])], expand_nonconcat_dims=True))",
    "retain": "print(tf.sparse.retain(st, [True, False, True]))",
    "fill_empty_rows": "r, e = tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0], [1, 2], [3, 1]], [1, 2, 3], [5, 4]), -7); print(r); print(e)",
    "transpose": "print(tf.sparse.transpose(st)); print(tf.sparse.transpose(tf.sparse.reshape(st, [3, 2, 2]), [1, 2, 0]))",
    "to_indicator": "print(tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 0, 3], tf.int64), [2, 3]), 4))",
    "expand_dims": "print(tf.sparse.expand_dims(st, 1)); print(tf.sparse.expand_dims(st))",
    "eye": "print(tf.sparse.eye(2, 3)); print(tf.sparse.eye(2, dtype=tf.int32))",
    "maximum_minimum": "v = tf.SparseTensor([[0, 1], [2, 2]], [-1., 7.], [3, 4]); print(tf.sparse.maximum(st, v)); print(tf.sparse.minimum(st, v))",
    "softmax": "print(tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1]], [1., 2., 3., 0.5, -1.], [3, 3])))",
    "segment_sum": "d = tf.constant([[1., 2.], [3., 4.], [5., 6.]]); print(tf.sparse.segment_sum(d, [0, 2, 1], [0, 0, 1])); print(tf.sparse.segment_mean(d, [0, 2, 1, 1], [0, 0, 2, 2])); print(tf.sparse.segment_sqrt_n(d, [0, 1, 2], [0, 0, 0])); print(tf.sparse.segment_sum(d, [0, 1], [1, 0], num_segments=3))",
    "map_values": "print(tf.sparse.map_values(tf.square, st)); print(tf.sparse.map_values(tf.add, st, st))",
    "operators": "print(st * 2.); print(st * tf.constant([[1.], [10.], [100.]])); print(st / 2.); print(-st)",
    "function_io": """
@tf.function
def f(s):
    print("trace", s, s.shape)
    return tf.sparse.map_values(tf.multiply, s, 2.), tf.sparse.to_dense(s)
print(f(st)); print(f(u)); f(tf.SparseTensor([[0, 0]], [1.], [2, 2]))
print(f.experimental_get_tracing_count())
print(f.get_concrete_function(st).pretty_printed_signature())
""",
    "function_signature": """
@tf.function(input_signature=[tf.SparseTensorSpec([3, 4], tf.float32)])
def g(s):
    return tf.sparse.to_dense(tf.sparse.reorder(s))
print(g(u)); print(g.get_concrete_function().pretty_printed_signature())
""",
    "grad_matmul": """
b = tf.reshape(tf.range(8.), [4, 2])
with tf.GradientTape(persistent=True) as tape:
    tape.watch([st.values, b])
    y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(st, b) ** 2)
    y2 = tf.reduce_sum(tf.sparse.sparse_dense_matmul(st, tf.transpose(b), adjoint_a=False, adjoint_b=True) * tf.constant([[1., 2.], [3., 4.], [5., 6.]]))
print(tape.gradient(y, [st.values, b])); print(tape.gradient(y2, [st.values, b]))
""",
    "grad_dense_values": """
x = tf.constant([[0., 2.], [3., 0.]])
with tf.GradientTape(persistent=True) as tape:
    tape.watch([st.values, x])
    d = tf.sparse.to_dense(st, default_value=0.5)
    y = tf.reduce_sum(d * tf.reshape(tf.range(12.), [3, 4]))
    s = tf.sparse.from_dense(x)
    z = tf.reduce_sum(s.values ** 2)
    r = tf.reduce_sum(tf.sparse.reduce_sum(st, axis=1) * tf.constant([1., 2., 3.]))
    a = tf.sparse.add(st, tf.sparse.reorder(u).with_values(u.values * 1.))
    w = tf.reduce_sum(a.values * tf.range(6.))
print(tape.gradient(y, st.values)); print(tape.gradient(z, x)); print(tape.gradient(r, st.values)); print(tape.gradient(w, st.values))
""",
    # bincount, split, reset_shape, mask, cross, cross_hashed, sampled_addmm
    "bincount": """
b = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], [3, 1, 3, 7], [3, 4])
print(tf.sparse.bincount(b)); print(tf.sparse.bincount(b, axis=-1)); print(tf.sparse.bincount(b, axis=-1, binary_output=True))
print(tf.sparse.bincount(b, weights=tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], [0.5, 1., 2., 3.], [3, 4]), axis=-1))
print(tf.sparse.bincount(b, minlength=9)); print(tf.sparse.bincount(b, maxlength=3)); print(tf.sparse.bincount(b, maxlength=20))
print(tf.sparse.bincount([[1, 2, 2], [0, 0, 5]], axis=-1)); print(tf.sparse.bincount([1, 2, 2, 5])); print(tf.sparse.bincount(tf.constant([1, 2, 2, 5], tf.int64)))
print(tf.sparse.bincount(tf.ragged.constant([[1, 2, 2], [5]]), axis=-1)); print(tf.sparse.bincount(tf.constant([1, 2, 2, 5], tf.int64), weights=[1., 2., 3., 4.]))
print(tf.sparse.bincount([[1, 2, 2], [0, 0, 5]], axis=-1, minlength=2, maxlength=4))
""",
    "bincount_negative": "tf.sparse.bincount([[-1, 2]], axis=-1)",
    "bincount_axis": "tf.sparse.bincount(st, axis=1)",
    "bincount_float": "tf.sparse.bincount(tf.constant([1.5]))",
    "split": """
b = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], [3, 1, 3, 7], [3, 4])
print(tf.sparse.split(sp_input=b, num_split=2, axis=1)); print(tf.sparse.split(sp_input=b, num_split=2, axis=0))
print(tf.sparse.split(sp_input=b, num_split=3, axis=1)); print(tf.sparse.split(sp_input=b, num_split=2, axis=-1))
print([tf.sparse.to_dense(p) for p in tf.sparse.split(sp_input=u, num_split=4, axis=1)])
""",
    "split_too_many": "tf.sparse.split(sp_input=st, num_split=5, axis=1)",
    "split_bad_axis": "tf.sparse.split(sp_input=st, num_split=2, axis=2)",
    "reset_shape": """
print(tf.sparse.reset_shape(st)); print(tf.sparse.reset_shape(st, [4, 5]))
print(tf.sparse.reset_shape(tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0]), [5, 5])))
""",
    "reset_shape_smaller": "tf.sparse.reset_shape(st, [2, 5])",
    "reset_shape_rank": "tf.sparse.reset_shape(st, [4, 5, 1])",
    "mask": """
a = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([12, 26, 37]), tf.constant([50, 2]))
print(tf.sparse.mask(a, [12, 45])); print(tf.sparse.mask(a, tf.constant([26], tf.int32)))
print(tf.sparse.mask(tf.IndexedSlices(tf.constant([1., 2.]), tf.constant([1, 2])), [1]))
""",
    "cross": """
print(tf.sparse.cross([tf.sparse.from_dense(tf.constant([['a', 'b'], ['c', '']])), tf.constant([['x'], ['y']])]))
print(tf.sparse.cross([tf.constant([['a', 'b'], ['c', 'd']]), tf.constant([['x'], ['y']])], separator='-'))
print(tf.sparse.cross_hashed([tf.constant([['a', 'b'], ['c', 'd']]), tf.constant([['x'], ['y']])], num_buckets=10))
print(tf.sparse.cross_hashed([tf.constant([[1, 2]], tf.int64), tf.constant([['x']])], hash_key=7))
print(tf.sparse.cross([tf.constant([[1, 2], [3, 4]], tf.int64), tf.SparseTensor([[1, 0]], [5], [2, 1])]))
""",
    "sampled_addmm": """
idx = tf.constant([[0, 0], [1, 1], [1, 2]], tf.int64)
m1 = tf.reshape(tf.range(6.), [2, 3]); m2 = tf.reshape(tf.range(12.), [3, 4]) / 10
print(tf.sparse.sampled_addmm(idx, tf.constant([1., 2., 3.]), [2, 4], m1, m2))
print(tf.sparse.sampled_addmm(idx, tf.constant([1., 2., 3.]), [2, 4], m1, m2, beta=0.5, alpha=2.0))
v = tf.constant([1., 2., 3.])
with tf.GradientTape(persistent=True) as g:
    g.watch([m1, m2, v]); r = tf.sparse.sampled_addmm(idx, v, [2, 4], m1, m2, beta=0.5, alpha=2.0); y = tf.reduce_sum(r[1] * [1., 2., 3.])
print(tf.convert_to_tensor(g.gradient(y, m1)), g.gradient(y, m2), g.gradient(y, v))
print(tf.sparse.sampled_addmm(tf.constant([[[0, 0]], [[1, 1]]], tf.int64), tf.constant([[1.], [2.]]), [2, 4], tf.stack([m1, m1 + 1]), tf.stack([m2, m2 * 2])))
""",
    "sampled_addmm_shape": "tf.sparse.sampled_addmm(tf.constant([[0, 0]], tf.int64), tf.constant([1.]), [2, 5], tf.ones([2, 3]), tf.ones([3, 4]))",
}
