"""Large convolutions split their batch across the cores (ops/_parallel.py): the parts give
the whole op's result (the filter gradient within float rounding: its sum over the batch is
added in two halves), a failing part raises, and the split pool's threads do not count as
other threads for in-place variable updates."""

import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import _parallel


@pytest.fixture
def two_parts(monkeypatch):
    """Two cores, whatever this machine has."""
    monkeypatch.setattr(_parallel, "intra_op_threads", lambda: 2)


def _whole(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(_parallel, "part_count", lambda batch, work: 1)
        return fn()


def _conv_step(x, w):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tf.nn.conv2d(x, w, 1, "SAME")
        loss = tf.reduce_sum(y * y)
    return [y] + tape.gradient(loss, [x, w])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_convolution_equals_the_whole(two_parts, monkeypatch, dtype):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(16, 20, 20, 16)).astype(dtype))
    w = tf.constant(rng.normal(size=(3, 3, 16, 32)).astype(dtype))
    assert _parallel.part_count(16, 16 * 400 * 9 * 16 * 32) == 2
    split = _conv_step(x, w)
    whole = _whole(monkeypatch, lambda: _conv_step(x, w))
    np.testing.assert_array_equal(split[0].numpy(), whole[0].numpy())   # rows apart
    np.testing.assert_array_equal(split[1].numpy(), whole[1].numpy())
    rtol = 1e-5 if dtype == np.float32 else 1e-12                         # two partial sums
    np.testing.assert_allclose(split[2].numpy(), whole[2].numpy(), rtol=rtol)


def test_small_ops_and_other_dtypes_run_whole(two_parts):
    assert _parallel.part_count(64, _parallel.MIN_WORK_PER_PART) == 1
    assert _parallel.part_count(1, 1 << 30) == 1          # one image: nothing to split


def test_a_failing_part_raises_and_restores_blas_threads(two_parts):
    def part(rows):
        if rows.start == 0:
            raise ValueError("part failed")
        return rows.stop
    with pytest.raises(ValueError, match="part failed"):
        _parallel.run_parts(part, _parallel.batch_slices(4, 2))
    assert _parallel._capped == 0
    assert _parallel.run_parts(lambda rows: rows.stop, _parallel.batch_slices(4, 2)) == [2, 4]


def test_intra_op_threads_of_one_turns_splitting_off(monkeypatch):
    monkeypatch.setattr(_parallel.runtime, "intra_op_threads", 1)
    assert _parallel.part_count(64, 1 << 30) == 1


def test_pool_threads_leave_in_place_updates_on(two_parts):
    _parallel.run_parts(lambda rows: None, _parallel.batch_slices(2, 2))
    if threading.active_count() != 1 + len(_parallel._pool_threads):
        pytest.skip("another thread runs")
    assert not _parallel.other_threads_running()
    w = tf.Variable(np.ones((2, 3), np.float32))
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.ones((2, 3)), w)])
    address = w._value.__array_interface__["data"][0]
    opt.apply_gradients([(tf.ones((2, 3)), w)])
    assert w._value.__array_interface__["data"][0] == address
