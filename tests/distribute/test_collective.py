"""distribute.collective and tapeflow.horovod in one process (no mpi4py needed): values,
dtypes, the fusion plan, the mismatch message, and the errors of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.horovod as hvd
import tapeflow.horovod.keras as hvd_keras
from tapeflow.distribute import collective


@pytest.fixture
def world(monkeypatch):
    for var in collective._LAUNCHER_SIZE_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(collective, "_world", None)
    return collective.world()


def test_one_process_group_needs_no_mpi(world):
    assert type(world) is collective.Communicator
    assert (world.rank, world.size, world.local_rank, world.local_size) == (0, 1, 0, 1)
    assert collective.world() is world


def test_launched_without_mpi4py_names_the_extra(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_mpi4py(name, *args, **kwargs):
        if name.startswith("mpi4py"):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    monkeypatch.setattr(builtins, "__import__", no_mpi4py)
    with pytest.raises(ImportError, match=r"pip install 'tapeflow\[mpi\]'"):
        collective._make_world()


@pytest.mark.parametrize("op", collective.REDUCE_OPS)
def test_allreduce_keeps_shapes_and_dtypes(world, op):
    arrays = [np.arange(6.0).reshape(2, 3), np.arange(3, dtype=np.int32),
              np.ones(2, np.float16)]
    out = world.allreduce(arrays, op=op)
    for a, b in zip(arrays, out):
        assert b.dtype == a.dtype and b.shape == a.shape
        np.testing.assert_array_equal(a, b)
        assert b is not a


def test_allreduce_errors(world):
    with pytest.raises(ValueError, match="allreduce op must be one of"):
        world.allreduce([np.ones(2)], op="prod")
    with pytest.raises(TypeError, match="tensor 'flags': bool tensors cannot be reduced"):
        world.allreduce([np.ones(2, bool)], names=["flags"])
    with pytest.raises(TypeError, match="takes a list of arrays"):
        world.allreduce(np.ones(2))
    with pytest.raises(ValueError, match="1 names for 2 arrays"):
        world.allreduce([np.ones(2), np.ones(2)], names=["a"])
    with pytest.raises(TypeError, match="'max' is not defined for complex"):
        world.allreduce([np.ones(2, np.complex64)], op="max")


def test_allgather_broadcast_objects(world):
    np.testing.assert_array_equal(world.allgather(np.ones((2, 3))), np.ones((2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="a scalar has no first axis"):
        world.allgather(np.float64(1.0))
    assert world.broadcast([np.arange(3)])[0].tolist() == [0, 1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"root rank must be in \[0, 1\)"):
        world.broadcast([np.ones(1)], root=1)
    assert world.broadcast_object({"a": [1]}) == {"a": [1]}
    assert world.allgather_object(3) == [3]
    world.barrier()


def test_fusion_plan_groups_by_dtype_under_the_threshold():
    arrays = [np.ones(4), np.ones(4, np.float32), np.ones(4), np.ones(100), np.ones(4)]
    # float64 buffers of at most 64 bytes: [0, 2] (64 bytes), then [3] alone (too big), [4]
    assert collective._fuse_plan(arrays, 64) == [[0, 2], [1], [3], [4]]
    assert collective._fuse_plan(arrays, 1 << 20) == [[0, 2, 3, 4], [1]]


def test_mismatch_message_names_the_tensor_and_each_ranks_shape():
    a = [np.ones((2, 3)), np.ones(4)]
    b = [np.ones((2, 3)), np.ones(5, np.float32)]
    sigs = [collective._signature("allreduce", "sum", x) for x in (a, b)]
    assert collective._digest(sigs[0]) != collective._digest(sigs[1])
    err = collective._mismatch_error(sigs, ["kernel", "bias"])
    assert isinstance(err, tf.errors.InvalidArgumentError)
    assert str(err) == ("allreduce: tensor 'bias' has different shapes or dtypes on different "
                        "ranks: rank 0: shape [4] dtype float64; rank 1: shape [5] dtype float32")
    other = collective._signature("broadcast", 0, a)
    assert "Ranks called different collectives" in str(
        collective._mismatch_error([sigs[0], other], ["kernel", "bias"]))


def test_mean_of_integers_floors():
    np.testing.assert_array_equal(collective._mean(np.array([-3, 3], np.int32), 2), [-2, 1])
    assert collective._mean(np.array([3.0], np.float32), 2).dtype == np.float32


# -- tapeflow.horovod -----------------------------------------------------------------------------

def test_horovod_needs_init():
    hvd.shutdown()
    assert not hvd.is_initialized()
    with pytest.raises(ValueError, match="Horovod has not been initialized; use hvd.init()"):
        hvd.rank()
    hvd.init()
    assert hvd.is_initialized()
    assert (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size()) == (0, 1, 0, 1)
    assert (hvd.cross_rank(), hvd.cross_size()) == (0, 1)
    assert hvd.join() == 0      # the one rank is the last to join


def test_horovod_allreduce_ops_and_errors():
    hvd.init()
    x = tf.constant([1.0, 2.0], tf.float64)
    assert hvd.allreduce(x).dtype == tf.float64
    np.testing.assert_array_equal(hvd.allreduce(x, op=hvd.Sum).numpy(), [1.0, 2.0])
    with pytest.raises(NotImplementedError, match="Adasum reduction is not built"):
        hvd.allreduce(x, op=hvd.Adasum)
    with pytest.raises(ValueError, match="The op parameter supersedes average"):
        hvd.allreduce(x, average=True, op=hvd.Sum)
    with pytest.warns(DeprecationWarning):
        hvd.allreduce(x, average=False)
    np.testing.assert_array_equal(hvd.allreduce(x, prescale_factor=2.0,
                                                postscale_factor=0.5).numpy(), [1.0, 2.0])


def test_horovod_allreduce_is_differentiable_and_works_in_tf_function():
    hvd.init()
    v = tf.Variable([1.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(hvd.allreduce(v * v, op=hvd.Sum))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 6.0])

    @tf.function(autograph=False)
    def reduce(a):
        out = hvd.allreduce(a)
        assert out.shape.as_list() == [2]  # the shape is known while tracing
        return out

    np.testing.assert_array_equal(reduce(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])


def test_distributed_gradient_tape_and_optimizer_in_one_process():
    hvd.init()
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    tape = hvd.DistributedGradientTape(tape)
    assert isinstance(tape, tf.GradientTape)
    (g,) = tape.gradient(loss, [v])
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    opt = hvd_keras.DistributedOptimizer(tf.keras.optimizers.SGD(0.5))
    assert type(opt).__name__ == "SGD" and isinstance(opt, tf.keras.optimizers.SGD)
    opt.apply_gradients([(g, v)])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])


def test_backward_passes_per_step_accumulates():
    hvd.init()
    v = tf.Variable([0.0], dtype=tf.float64)
    opt = hvd_keras.DistributedOptimizer(tf.keras.optimizers.SGD(1.0),
                                         backward_passes_per_step=2,
                                         average_aggregated_gradients=True)
    opt.apply_gradients([(tf.constant([1.0], tf.float64), v)])
    np.testing.assert_array_equal(v.numpy(), [0.0])  # not a communication step
    opt.apply_gradients([(tf.constant([3.0], tf.float64), v)])
    np.testing.assert_array_equal(v.numpy(), [-2.0])  # the mean of the two passes
    assert int(opt.iterations.numpy()) == 2
