"""Top-level ops and names: reverse_sequence, dynamic_partition/stitch, bitcast,
parallel_stack, fingerprint, timestamp, edit_distance, the v2 initializers, the variable
distribution enums and the small framework helpers. Every expected value here is
TensorFlow 2.21's answer."""

import time

import numpy as np
import pytest

import tapeflow as tf

T = tf.constant
X = [[1., 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
IAE = tf.errors.InvalidArgumentError


def test_reverse_sequence_values_and_gradient():
    x = T(X)
    want = [[2, 1, 3, 4], [8, 7, 6, 5], [9, 10, 11, 12]]
    assert tf.reverse_sequence(x, [2, 4, 0], seq_axis=1).numpy().tolist() == want
    assert tf.reverse_sequence(x, T([2, 4, 0], tf.int64), 1, 0).numpy().tolist() == want
    y = tf.reverse_sequence(tf.reshape(tf.range(24), (2, 3, 4)), [2, 1, 2, 0], 0, 2)
    assert y.numpy()[:, 0].tolist() == [[12, 1, 14, 3], [0, 13, 2, 15]]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reverse_sequence(x, [2, 4, 0], seq_axis=1) * T([1., 2, 3, 4])
    assert tape.gradient(y, x).numpy().tolist() == [[2, 1, 3, 4], [4, 3, 2, 1], [1, 2, 3, 4]]


@pytest.mark.parametrize("lengths, seq, batch, message", [
    ([2, 5, 1], 1, 0, r"seq_lens\(1\) > input.dims\(1\)"),
    ([2, -1, 1], 1, 0, r"seq_lens\(1\) < 0"),
    ([2, 1], 1, 0, r"Length of seq_lengths != input.dims\(0\), \(2 vs. 3\)"),
    ([2, 1, 1], 0, 0, "batch_dim == seq_dim == 0"),
    ([2, 4, 0], -1, 0, "Invalid seq_dim -1"),
    ([2., 1, 1], 1, 0, "attr 'Tlen' of float is not")])
def test_reverse_sequence_errors(lengths, seq, batch, message):
    with pytest.raises(IAE, match=message):
        tf.reverse_sequence(T(X), lengths, seq_axis=seq, batch_axis=batch)


def test_reverse_sequence_traced_checks_lengths_when_run():
    f = tf.function(lambda x, n: tf.reverse_sequence(x, n, seq_axis=1))
    assert f(T(X), T([1, 2, 3])).numpy()[2].tolist() == [11, 10, 9, 12]
    with pytest.raises(IAE, match=r"seq_lens\(0\) > input.dims\(1\)"):
        f(T(X), T([5, 2, 3]))


def test_dynamic_partition():
    d = T([10, 20, 30, 40, 50.])
    parts = tf.dynamic_partition(d, [0, 1, 0, 2, 1], 3)
    assert [p.numpy().tolist() for p in parts] == [[10, 30], [20, 50], [40]]
    two = tf.dynamic_partition(tf.reshape(tf.range(12.), (2, 3, 2)), [[0, 1, 0], [1, 1, 0]], 2)
    assert two[0].numpy().tolist() == [[0, 1], [4, 5], [10, 11]]
    scalar = tf.dynamic_partition(T(5.), 0, 2)
    assert [p.shape for p in scalar] == [(1,), (0,)]
    with tf.GradientTape() as tape:
        tape.watch(d)
        p = tf.dynamic_partition(d, [0, 1, 0, 2, 1], 3)
        y = tf.reduce_sum(p[0] * 2.) + tf.reduce_sum(p[2] * 5.)
    assert tape.gradient(y, d).numpy().tolist() == [2, 0, 2, 5, 0]


@pytest.mark.parametrize("partitions, n, message", [
    ([0, 1, 0, 3, 1], 3, r"partitions\[3\] = 3 is not in \[0, 3\)"),
    ([0, 1, 0, -1, 1], 3, r"partitions\[3\] = -1 is not in \[0, 3\)"),
    ([0, 1, 0], 3, r"data.shape must start with partitions.shape, got data.shape = \[5\], "
                   r"partitions.shape = \[3\]"),
    (T([0, 1, 0, 2, 1], tf.int64), 3, "expected to be a int32 tensor but is a int64 tensor"),
    ([0, 0, 0, 0, 0], 0, "'num_partitions' of 0 must be at least minimum 1")])
def test_dynamic_partition_errors(partitions, n, message):
    with pytest.raises(IAE, match=message):
        tf.dynamic_partition(T([10, 20, 30, 40, 50.]), partitions, n)


def test_dynamic_partition_traced():
    f = tf.function(lambda d, p: tf.dynamic_partition(d, p, 2))
    out = f(T([1., 2, 3]), T([1, 0, 1]))
    assert [o.numpy().tolist() for o in out] == [[2], [1, 3]]
    with pytest.raises(IAE, match=r"partitions\[1\] = 2 is not in \[0, 2\)"):
        f(T([1., 2, 3]), T([1, 2, 1]))


def test_dynamic_stitch():
    assert tf.dynamic_stitch([[0, 2], [1, 3]], [[1., 2], [3, 4]]).numpy().tolist() == [1, 3, 2, 4]
    dup = tf.dynamic_stitch([[0, 2], [2, 1]], [[1., 2], [3, 4]])  # the last index 2 wins
    assert dup.dtype == tf.float32 and dup.numpy().tolist() == [1, 4, 3]
    assert tf.dynamic_stitch([[0], [3]], [[1.], [4]]).numpy().tolist() == [1, 0, 0, 4]
    assert tf.dynamic_stitch([[0, 1], [2]], [[[1., 1], [2, 2]], [[3., 3]]]).shape == (3, 2)
    assert tf.dynamic_stitch([0, 1], [5., 6.]).numpy().tolist() == [5, 6]
    assert tf.dynamic_stitch([[]], [tf.zeros([0])]).shape == (0,)


def test_dynamic_stitch_gradient_reaches_overwritten_slices():
    a, b = T([1., 2]), T([3., 4])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = tf.dynamic_stitch([[0, 2], [2, 1]], [a, b])
        z = tf.reduce_sum(y * T([1., 10, 100]))
    ga, gb = tape.gradient(z, [a, b])
    assert ga.numpy().tolist() == [1, 100] and gb.numpy().tolist() == [100, 10]


@pytest.mark.parametrize("indices, data, error, message", [
    ([[0, -1]], [[1., 2]], IAE, r"indices\[1\] is out of range"),
    ([[0, 1]], [[1., 2, 3]], IAE, r"data\[0\].shape = \[3\] does not start with indices\[0\]"),
    ([[0], [1]], [T([1.]), T([2])], IAE, "input #3.* a float tensor but is a int32"),
    ([T([0, 1], tf.int64)], [[1., 2]], IAE, "input #0.* a int32 tensor but is a int64"),
    ([[0, 1], [2]], [[[1.], [2]], [3.]], IAE, r"Need data\[0\].shape\[1:\] = data\[1\]"),
    ([[0, 1], [2]], [[1., 2]], ValueError, "with length 1 must match length 2")])
def test_dynamic_stitch_errors(indices, data, error, message):
    with pytest.raises(error, match=message):
        tf.dynamic_stitch(indices, data)


def test_dynamic_stitch_traced_has_unknown_length():
    shapes = []

    @tf.function
    def f(p, a):
        out = tf.dynamic_stitch([p, p], [a, a * 2.])
        shapes.append(out.shape.as_list())
        return out

    assert f(T([1, 0]), T([1., 2])).numpy().tolist() == [4, 2]
    assert shapes == [[None]]


def test_bitcast():
    assert tf.bitcast(T([1., 2.]), tf.int32).numpy().tolist() == [1065353216, 1073741824]
    assert tf.bitcast(T([1, 2], tf.int32), tf.uint8).numpy().tolist() == [[1, 0, 0, 0],
                                                                             [2, 0, 0, 0]]
    assert tf.bitcast(T([[1, 2, 3, 4]], tf.uint8), tf.int32).numpy().tolist() == [67305985]
    assert tf.bitcast(T([1.], tf.float64), tf.complex64).numpy().tolist() == [1.875j]
    assert tf.bitcast(T([1., 2]), tf.complex64).numpy() == 1 + 2j
    assert tf.bitcast(T(1.5), tf.uint16).numpy().tolist() == [0, 16320]
    assert tf.bitcast(T([1.], tf.bfloat16), tf.uint16).numpy().tolist() == [16256]
    with pytest.raises(IAE, match="Cannot bitcast from 4 to 5"):
        tf.bitcast(T([1, 2, 3], tf.uint8), tf.int16)
    with pytest.raises(IAE, match="Cannot bitcast from 6 to 5"):
        tf.bitcast(T(1, tf.int8), tf.int16)
    with pytest.raises(IAE, match="attr 'T' of bool"):
        tf.bitcast(T([True]), tf.int8)
    with pytest.raises(IAE, match="attr 'type' of bool"):
        tf.bitcast(T([1], tf.int8), tf.bool)


def test_parallel_stack():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tf.parallel_stack([T([1, 2]), T([3, 4])])
    f = tf.function(lambda a, b: tf.parallel_stack([a, b]))
    assert f(T([1, 2]), T([3, 4])).numpy().tolist() == [[1, 2], [3, 4]]
    g = tf.function(lambda a: tf.parallel_stack([a, 2.]))
    assert g(T(1.)).numpy().tolist() == [1, 2]
    h = tf.function(lambda a: tf.parallel_stack([a]),
                    input_signature=[tf.TensorSpec([None])])
    with pytest.raises(ValueError, match="shape attr must be fully defined"):
        h(T([1.]))


def test_fingerprint():
    out = tf.fingerprint([4, 1])
    assert out.dtype == tf.uint8 and out.numpy().tolist() == [
        [178, 113, 27, 7, 149, 125, 165, 247], [84, 24, 96, 84, 195, 82, 124, 105]]
    assert tf.fingerprint(T([[1., 2], [3, 4]])).numpy()[1].tolist() == [
        174, 215, 15, 51, 84, 145, 74, 9]
    assert tf.fingerprint(T(["hello", "x"])).numpy().tolist() == [
        [232, 12, 56, 49, 169, 229, 139, 180], [2, 104, 255, 236, 186, 253, 126, 193]]
    assert tf.fingerprint(T([[b"ab", b"c"]])).numpy().tolist() == [
        [65, 83, 39, 149, 164, 245, 170, 22]]
    assert tf.fingerprint(tf.zeros([0, 3])).shape == (0, 8)
    assert tf.fingerprint(tf.zeros([2, 0])).numpy()[1].tolist() == [
        79, 64, 144, 47, 59, 106, 225, 154]
    with pytest.raises(IAE, match="should have at least one dimension"):
        tf.fingerprint(T(1))
    with pytest.raises(IAE, match="Unsupported fingerprint method: x"):
        tf.fingerprint([1], method="x")


def test_timestamp_reads_the_clock_each_run():
    now = tf.timestamp()
    assert now.dtype == tf.float64 and abs(float(now) - time.time()) < 5
    f = tf.function(lambda: tf.timestamp())
    first = f()
    time.sleep(0.02)
    assert float(f() - first) >= 0.015


def test_edit_distance():
    hyp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    truth = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "c", "d"], [2, 2])
    out = tf.edit_distance(hyp, truth)
    assert out.dtype == tf.float32 and out.numpy().tolist() == [1, 0.5]
    assert tf.edit_distance(hyp, truth, normalize=False).numpy().tolist() == [1, 1]
    # TF's documented example: an empty truth row gives inf.
    h = tf.SparseTensor([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    t = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"],
                        (2, 2, 2))
    assert tf.edit_distance(h, t).numpy().tolist() == [[np.inf, 1], [0.5, 1]]
    ints = tf.edit_distance(tf.SparseTensor([[0, 0]], [1], [1, 1]),
                            tf.SparseTensor([[0, 0], [0, 1]], [1, 2], [1, 2]))
    assert ints.numpy().tolist() == [0.5]
    with pytest.raises(IAE, match="input #4.* a int32 tensor but is a float tensor"):
        tf.edit_distance(tf.SparseTensor([[0, 0]], [1], [1, 1]),
                         tf.SparseTensor([[0, 0]], [1.], [1, 1]))
    with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor."):
        tf.edit_distance(T([[1]]), T([[1]]))
    with pytest.raises(IAE, match=r"matching ranks, but their shapes are: \[2\] and \[1\]"):
        tf.edit_distance(tf.SparseTensor([[0]], [1], [1]), tf.SparseTensor([[0, 0]], [1], [1, 1]))


def test_random_initializers_draw_tfs_numbers():
    init = tf.random_normal_initializer(0., 1., seed=3)
    np.testing.assert_allclose(init((2, 3)), [[-0.6715848, 1.6760504, -0.94424546],
                                              [0.60793895, 1.2527851, 1.3524525]], rtol=1e-6)
    np.testing.assert_allclose(init((2,)), [-0.6715848, 1.6760504], rtol=1e-6)  # stateless
    np.testing.assert_allclose(tf.random_uniform_initializer(-1., 1., seed=3)((2, 2)),
                               [[-0.6081743, 0.8786905], [0.0645504, 0.68208265]], rtol=1e-6)
    ints = tf.random_uniform_initializer(0, 10, seed=3)((3,), tf.int32)
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [8, 7, 2]
    np.testing.assert_allclose(tf.random_normal_initializer(seed=1)([2], dtype=tf.float64),
                               [-0.12660433, 0.04319612], rtol=1e-7)
    np.testing.assert_allclose(tf.random_uniform_initializer(seed=1)([2], tf.float64),
                               [-0.0472094, 0.03023309], rtol=1e-6)
    assert tf.random_uniform_initializer(0, 10)((3,), tf.int32).dtype == tf.int32
    with pytest.raises(ValueError, match="expected to be floating point. Received: <dtype"):
        tf.random_normal_initializer(seed=1)((3,), tf.int32)
    assert tf.random_normal_initializer(1., 2., seed=3).get_config() == {
        "mean": 1.0, "stddev": 2.0, "seed": 3}
    assert tf.random_uniform_initializer().get_config() == {
        "minval": -0.05, "maxval": 0.05, "seed": None}
    assert tf.random_normal_initializer.from_config({"mean": 1., "stddev": 2.,
                                                     "seed": None}).mean == 1.


def test_constant_zeros_ones_initializers():
    c = tf.constant_initializer(3)((2,))
    assert c.dtype == tf.int32 and c.numpy().tolist() == [3, 3]
    assert tf.constant_initializer([1, 2, 3, 4])((2, 2)).numpy().tolist() == [[1, 2], [3, 4]]
    assert tf.constant_initializer([1, 2])((2,), tf.int64).dtype == tf.int64
    assert tf.constant_initializer(2).get_config() == {"value": 2}
    z = tf.zeros_initializer()((2,), tf.int32)
    assert z.dtype == tf.int32 and z.numpy().tolist() == [0, 0]
    assert tf.ones_initializer()((2,)).dtype == tf.float32
    assert tf.zeros_initializer()([2], dtype="float64").dtype == tf.float64
    assert tf.zeros_initializer()(T([2, 2])).shape == (2, 2)
    assert tf.zeros_initializer().get_config() == {}
    v = tf.Variable(lambda: tf.ones_initializer()((2,)))
    assert v.numpy().tolist() == [1, 1]
    with pytest.raises(TypeError, match="has 3 elements, but got `shape` \\(2, 2\\)"):
        tf.constant_initializer([1, 2, 3])((2, 2))
    with pytest.raises(TypeError, match="Invalid type for initial value: EagerTensor"):
        tf.constant_initializer(T([1., 2]))
    with pytest.raises(ValueError, match="expected to be numeric or boolean. Received <dtype"):
        tf.zeros_initializer()((2,), tf.string)
    with pytest.raises(TypeError, match="Received: partition_info"):
        tf.zeros_initializer()((4,), partition_info=None)


def test_variable_aggregation_and_synchronization():
    v = tf.Variable(1.)
    assert v.aggregation is tf.VariableAggregation.NONE
    assert v.synchronization is tf.VariableSynchronization.AUTO
    assert [m.value for m in tf.VariableAggregation] == [0, 1, 2, 3]
    assert str(tf.VariableAggregation.MEAN) == "VariableAggregationV2.MEAN"
    assert [m.name for m in tf.VariableSynchronization] == ["AUTO", "NONE", "ON_WRITE",
                                                           "ON_READ"]
    w = tf.Variable(1., aggregation=tf.VariableAggregation.SUM,
                    synchronization=tf.VariableSynchronization.ON_READ)
    assert w.aggregation is tf.VariableAggregation.SUM and not w.trainable  # ON_READ: as TF
    assert tf.Variable(1., synchronization=tf.VariableSynchronization.ON_READ,
                       trainable=True).trainable
    with pytest.raises(ValueError, match="Invalid variable aggregation mode: sum for variable"):
        tf.Variable(1., aggregation="sum")
    with pytest.raises(ValueError, match="Invalid variable synchronization mode: x"):
        tf.Variable(1., synchronization="x")


def test_framework_helpers():
    assert tf.get_logger().name == "tensorflow"
    assert not tf.inside_function() and not tf.is_symbolic_tensor(T(1.))
    assert not tf.is_symbolic_tensor(tf.Variable(1.)) and not tf.is_symbolic_tensor(1.)
    seen = []

    @tf.function
    def f(x):
        seen.append((tf.inside_function(), tf.is_symbolic_tensor(x)))
        return x

    f(T(1.))
    assert seen == [(True, True)]
    assert (tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT,
            tf.AggregationMethod.EXPERIMENTAL_TREE,
            tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N) == (0, 0, 1, 2)
    assert tf.no_gradient("MyCustomOp") is None
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.no_gradient(3)


def test_grad_pass_through():
    x = T(3.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.round)(x * 2.5)
    assert float(y) == 8. and float(tape.gradient(y, x)) == 2.5
    v = tf.Variable(2.)
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(v.assign)(T(5.) * 1.)
    assert float(y) == 5. and tape.gradient(y, v) is None


def test_saturate_cast_in_dtypes_and_no_stray_bitwise_names():
    assert tf.dtypes.saturate_cast([300., -5], tf.uint8).numpy().tolist() == [255, 0]
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert"):
        assert not hasattr(tf, name)  # TF has these in tf.bitwise only
    assert not hasattr(tf.math, "invert")
