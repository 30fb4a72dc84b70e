"""A `for` over a dataset inside tf.function runs as the graph runs, as TensorFlow's: the body
is traced once and runs per element on every call, each call makes a fresh pass, `break`
stops the pass, and state whose shape grows is relaxed as TF's dataset reduce relaxes it.
Expected values are TF 2.21's answers for the same programs."""

import numpy as np
import pytest

import tapeflow as tf


def test_the_body_runs_per_element_on_every_call():
    ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
    total = tf.Variable(0, dtype=tf.int64)
    traces = []

    @tf.function
    def add_all():
        traces.append(1)
        for batch in ds:
            total.assign_add(tf.reduce_sum(batch))
        return total.read_value()

    assert int(add_all()) == 20 and int(add_all()) == 40   # TF 2.21's answers
    assert len(traces) == 1


def test_each_call_is_a_fresh_pass_through_a_shuffle():
    shuffled = tf.data.Dataset.range(6).shuffle(6, seed=3)

    @tf.function
    def order():
        acc = tf.constant([], tf.int64)
        for x in shuffled:       # acc grows: its shape is relaxed to [None]
            acc = tf.concat([acc, [x]], 0)
        return acc

    # TF 2.21's answers: a new pass per call, the shuffle reseeded per pass.
    assert order().numpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert order().numpy().tolist() == [0, 4, 1, 5, 3, 2]


def test_break_ends_the_pass_early():
    @tf.function
    def partial_sum():
        n = tf.constant(0, tf.int64)
        for x in tf.data.Dataset.range(100):
            if x > 3:
                break
            n += x
        return n

    assert int(partial_sum()) == 6 and int(partial_sum()) == 6


def test_a_training_loop_over_a_dataset_argument():
    x = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0], np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    w = tf.Variable([[0.5], [-0.25]])
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def train_epoch(data):
        total = tf.constant(0.0)
        for xb, yb in data:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.squeeze(xb @ w, 1) - yb) ** 2)
            opt.apply_gradients([(tape.gradient(loss, w), w)])
            total += loss
        return total

    losses = [float(train_epoch(ds)), float(train_epoch(ds))]
    # TF 2.21's answers (the first loss differs from TF's in its last float32 bit).
    np.testing.assert_allclose(losses, [0.92465323, 0.77152264], rtol=1e-6)
    np.testing.assert_allclose(w.numpy().ravel(), [0.64187294, -0.07699315], rtol=1e-6)


def test_python_counters_and_nested_elements():
    @tf.function
    def count():
        n = 0
        for _ in tf.data.Dataset.range(3):
            n += 1
        return n

    assert int(count()) == 3 and count().dtype == tf.int32     # TF 2.21's answer

    windows = tf.data.Dataset.range(4).window(2)

    @tf.function
    def over_windows():
        for _w in windows:
            pass
        return 0

    with pytest.raises(NotImplementedError, match="nested datasets"):
        over_windows()
