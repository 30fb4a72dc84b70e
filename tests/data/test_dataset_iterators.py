"""tf.data iterators: next/get_next, checkpointing, and datasets inside tf.function (expected
texts measured in TF 2.21)."""

import os

import pytest

import tapeflow as tf

D = tf.data.Dataset


def test_iterator_protocol():
    it = iter(D.range(3))
    assert repr(it).startswith("<tensorflow.python.data.ops.iterator_ops.OwnedIterator object")
    assert it.element_spec == tf.TensorSpec([], tf.int64)
    first = next(it)
    assert repr(first) == "<tf.Tensor: shape=(), dtype=int64, numpy=0>"
    assert int(it.get_next()) == 1
    opt = it.get_next_as_optional()
    assert bool(opt.has_value()) and int(opt.get_value()) == 2
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()
    with pytest.raises(StopIteration):
        next(iter(D.range(0)))
    assert repr(D.range(2).as_numpy_iterator()).startswith("NumpyIterator(iterator=")


def test_checkpoint_restores_position_inside_shuffle_repeat_batch(tmp_path):
    ds = D.range(20).shuffle(5, seed=3).batch(3).repeat()
    it = iter(ds)
    for _ in range(4):
        next(it)
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(os.path.join(tmp_path, "c"))
    after = [next(it).numpy().tolist() for _ in range(6)]
    ckpt.restore(path)
    assert [next(it).numpy().tolist() for _ in range(6)] == after
    fresh = iter(ds)   # a new iterator restored from the same checkpoint
    tf.train.Checkpoint(iterator=fresh).restore(path)
    assert [next(fresh).numpy().tolist() for _ in range(6)] == after


def test_checkpoint_refuses_unseeded_shuffle(tmp_path):
    it = iter(D.range(5).shuffle(5))
    with pytest.raises(tf.errors.UnimplementedError, match="without a seed"):
        tf.train.Checkpoint(iterator=it).save(os.path.join(tmp_path, "c"))


def test_for_over_dataset_inside_function():
    ds = D.from_tensor_slices([1., 2., 3.]).map(lambda x: x * 2).batch(2)

    @tf.function
    def total(ds):
        s = tf.constant(0.)
        for x in ds:
            s += tf.reduce_sum(x)
        return s

    assert float(total(ds)) == 12.0

    @tf.function
    def first_two():
        it = iter(D.range(5))
        return next(it) + next(it)

    assert int(first_two()) == 1


def test_a_random_map_draws_anew_on_every_call_of_the_function():
    @tf.function
    def f():
        s = tf.constant(0.)
        for x in D.range(3).map(lambda x: tf.random.uniform([])):
            s += x
        return s

    first, second = float(f()), float(f())
    assert first != second and 0 <= first < 3 and 0 <= second < 3
