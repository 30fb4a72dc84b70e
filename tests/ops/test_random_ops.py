"""tf.random: seeding rules, shapes/dtypes, distributions, gradients through the scaling, and
errors (messages as TensorFlow 2.21 prints them). TensorFlow's exact streams are not
reproduced, so numbers are checked for reproducibility and distribution, not TF's values."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.fixture(autouse=True)
def _clear_global_seed():
    yield
    tf.random.set_seed(None)


def _program():
    return [tf.random.normal([3]).numpy(), tf.random.uniform([2, 2]).numpy(),
            tf.random.normal([2], seed=7).numpy(), tf.random.normal([2], seed=7).numpy(),
            tf.random.uniform([4], maxval=100, dtype=tf.int64).numpy(),
            tf.random.truncated_normal([3]).numpy(), tf.random.shuffle(tf.range(6)).numpy(),
            tf.random.categorical(tf.zeros([2, 5]), 4).numpy()]


def test_same_program_after_same_global_seed_is_reproducible():
    tf.random.set_seed(1)
    first = _program()
    tf.random.set_seed(1)
    second = _program()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    tf.random.set_seed(2)
    third = _program()
    assert not np.array_equal(first[0], third[0])


def test_successive_unseeded_calls_differ():
    tf.random.set_seed(3)
    assert not np.array_equal(tf.random.normal([4]).numpy(), tf.random.normal([4]).numpy())


def test_op_seed_stream_advances_and_restarts():
    # As in TF eager: the same op seed twice gives different numbers, and set_seed restarts.
    tf.random.set_seed(5)
    a, b = tf.random.normal([3], seed=1).numpy(), tf.random.normal([3], seed=1).numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.random.normal([3], seed=1).numpy(), a)
    # The op seed alone (no global seed) also determines the stream.
    tf.random.set_seed(None)
    c = tf.random.uniform([3], seed=4).numpy()
    tf.random.set_seed(None)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=4).numpy(), c)


def test_op_seed_stream_does_not_depend_on_other_ops():
    tf.random.set_seed(9)
    a = tf.random.normal([3], seed=2).numpy()
    tf.random.set_seed(9)
    tf.random.uniform([10])  # an unseeded op in between
    np.testing.assert_array_equal(tf.random.normal([3], seed=2).numpy(), a)


@pytest.mark.parametrize("fn", [tf.random.normal, tf.random.truncated_normal,
                                tf.random.uniform])
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_float_shapes_and_dtypes(fn, dtype):
    y = fn([2, 3], dtype=dtype)
    assert y.shape == (2, 3) and y.dtype == dtype
    assert fn(tf.constant([4]), dtype=dtype).shape == (4,)


def test_distributions():
    tf.random.set_seed(0)
    n = tf.random.normal([20000], mean=2.0, stddev=3.0, dtype=tf.float64).numpy()
    assert abs(n.mean() - 2.0) < 0.1 and abs(n.std() - 3.0) < 0.1
    t = tf.random.truncated_normal([20000], mean=1.0, stddev=0.5, dtype=tf.float64).numpy()
    assert t.min() >= 0.0 and t.max() <= 2.0 and abs(t.mean() - 1.0) < 0.02
    u = tf.random.uniform([20000], minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    i = tf.random.uniform([20000], minval=-2, maxval=3, dtype=tf.int32)
    assert i.dtype == tf.int32
    assert sorted(np.unique(i.numpy()).tolist()) == [-2, -1, 0, 1, 2]


def test_shuffle_permutes_the_first_axis():
    x = tf.reshape(tf.range(12), [6, 2])
    y = tf.random.shuffle(x, seed=3).numpy()
    assert y.shape == (6, 2) and y.dtype == np.int32
    assert sorted(y[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    np.testing.assert_array_equal(y[:, 1], y[:, 0] + 1)  # rows stay whole
    assert float(tf.random.shuffle(tf.constant(3.0))) == 3.0


def test_categorical():
    tf.random.set_seed(0)
    logits = tf.math.log(tf.constant([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]]))
    s = tf.random.categorical(logits, 4000)
    assert s.shape == (2, 4000) and s.dtype == tf.int64
    counts = np.bincount(s.numpy()[0], minlength=3)
    assert counts[2] == 0 and abs(counts[1] / 4000 - 0.8) < 0.03
    assert set(s.numpy()[1].tolist()) == {0}
    assert tf.random.categorical(logits, 2, dtype=tf.int32).dtype == tf.int32


def test_gradients_flow_to_mean_stddev_and_bounds():
    m, s = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([m, s])
        y = tf.random.normal([3], mean=m, stddev=s, seed=3)
        u = tf.random.uniform([3], m, s + 3.0)
    dm, ds = tape.gradient(y, [m, s])
    assert float(dm) == 3.0
    np.testing.assert_allclose(float(ds), np.sum((y.numpy() - 1.0) / 2.0), rtol=1e-5)
    du_low, du_high = tape.gradient(u, [m, s])
    np.testing.assert_allclose(float(du_low) + float(du_high), 3.0, rtol=1e-6)


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.random.normal([2], dtype=tf.int32), TypeError,
     "Cannot convert 0.0 to EagerTensor of dtype int32"),
    (lambda: tf.random.uniform([2], dtype=tf.int32), ValueError,
     "Must specify maxval for integer dtype tf.int32"),
    (lambda: tf.random.uniform([2], 5, 5, dtype=tf.int32), tf.errors.InvalidArgumentError,
     "Need minval < maxval, got 5 >= 5 [Op:RandomUniformInt]"),
    (lambda: tf.random.uniform([2], dtype=tf.bool), ValueError,
     "Argument `dtype` got invalid value <dtype: 'bool'>. Accepted dtypes are (tf.float16, "
     "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64)."),
    (lambda: tf.random.normal([-1]), tf.errors.InvalidArgumentError,
     "Dimension -1 must be >= 0 [Op:RandomStandardNormal]"),
    (lambda: tf.random.categorical(tf.constant([1.0, 2.0]), 3), tf.errors.InvalidArgumentError,
     "logits should be a matrix, got shape [2] [Op:Multinomial]"),
    (lambda: tf.random.normal([2], mean=tf.constant(1.0, tf.float64)), ValueError,
     "mean: Tensor conversion requested dtype float32 for Tensor with dtype float64"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


def test_random_ops_are_not_recorded():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = tf.random.shuffle(tf.stack([x, x]))
    assert tape.gradient(z, x) is None  # shuffle is not differentiable, as in TF
