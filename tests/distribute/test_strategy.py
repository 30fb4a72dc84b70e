"""tf.distribute in one process: the strategies, contexts, reductions, printed values,
distributed datasets, compute_average_loss and Keras under a strategy.

The expected texts, values and errors are TensorFlow 2.21's, checked there on a CPU-only
machine (MirroredStrategy has one replica). Several workers are simulated with a
communicator that answers as if every other worker held the same values, which checks the
arithmetic of the multi-worker paths (loss scaling, gradient sums, batch shares) in one
process; the real MPI jobs are in test_strategy_mpi.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.distribute import distribute_lib
from tapeflow.distribute.input_lib import batch_share
from tapeflow.distribute.strategies import MultiWorkerMirroredStrategy


def test_default_strategy_and_contexts():
    strategy = tf.distribute.get_strategy()
    assert type(strategy).__name__ == "_DefaultDistributionStrategy"
    assert isinstance(strategy, tf.distribute.Strategy)
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    context = tf.distribute.get_replica_context()
    assert type(context).__name__ == "_DefaultReplicaContext"
    assert context.replica_id_in_sync_group == 0 and context.num_replicas_in_sync == 1
    assert context.strategy is strategy
    np.testing.assert_array_equal(context.all_reduce("sum", tf.constant([1., 2.])), [1., 2.])
    assert float(strategy.run(lambda x: x * 2, args=(tf.constant(3.),))) == 6.0
    assert float(strategy.reduce("SUM", tf.constant([1., 2.]), axis=0)) == 3.0


def test_mirrored_strategy_scope_and_variables():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert type(strategy.extended).__name__ == "MirroredExtended"
    with strategy.scope():
        assert tf.distribute.has_strategy() and tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_strategy() is strategy
        assert tf.distribute.get_replica_context() is None
        v = tf.Variable(1.0)
    outside = tf.Variable(2.0)
    # TF 2.21's text of a variable made in the scope
    assert repr(v) == ("MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() "
                       "dtype=float32, numpy=1.0>\n}")
    assert type(v).__name__ == "MirroredVariable" and isinstance(v, tf.Variable)
    assert v.name == "Variable:0" and float(v + 1) == 2.0
    assert strategy.extended.variable_created_in_scope(v)
    assert not strategy.extended.variable_created_in_scope(outside)
    assert type(outside) is tf.Variable
    assert not tf.distribute.has_strategy()


def test_run_gives_a_replica_context():
    strategy = tf.distribute.MirroredStrategy()

    def step(x):
        context = tf.distribute.get_replica_context()
        return (context.replica_id_in_sync_group, context.num_replicas_in_sync,
                context.all_reduce(tf.distribute.ReduceOp.SUM, x),
                tf.distribute.in_cross_replica_context(), tf.distribute.has_strategy())
    replica_id, replicas, reduced, cross, has = strategy.run(step, args=(tf.constant([1., 2.]),))
    # TF 2.21: (<tf.Tensor: shape=(), dtype=int32, numpy=0>, 1, [1., 2.], False, True)
    assert replica_id.dtype == tf.int32 and int(replica_id) == 0
    assert (replicas, cross, has) == (1, False, True)
    np.testing.assert_array_equal(reduced, [1., 2.])
    assert int(strategy.run(lambda x=1: x, kwargs={"x": tf.constant(5)})) == 5


def test_reduce_and_reduce_op():
    strategy = tf.distribute.MirroredStrategy()
    # TF 2.21's answers
    np.testing.assert_array_equal(strategy.reduce("sum", tf.constant([1., 2.]), axis=None),
                                  [1., 2.])
    assert float(strategy.reduce(tf.distribute.ReduceOp.MEAN, tf.constant([1., 2.]),
                                 axis=0)) == 1.5
    np.testing.assert_array_equal(
        strategy.reduce("SUM", tf.constant([[1., 2.], [3., 4.]]), axis=0), [4., 6.])
    with pytest.raises(ValueError, match="'MAX' is not a valid ReduceOp"):
        strategy.reduce("max", tf.constant([1., 2.]), axis=None)
    assert repr(tf.distribute.ReduceOp.SUM) == "<ReduceOp.SUM: 'SUM'>"
    assert tf.distribute.ReduceOp.MEAN.value == "MEAN"


def test_mixing_strategies_is_an_error():
    mirrored, one = tf.distribute.MirroredStrategy(), tf.distribute.OneDeviceStrategy("/cpu:0")
    with mirrored.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy "
                                               "objects: .* is not .*"):
            one.scope().__enter__()
        with mirrored.scope():  # the same one again is fine
            assert tf.distribute.get_strategy() is mirrored


def test_one_device_strategy_keeps_plain_variables():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    assert strategy.num_replicas_in_sync == 1
    with strategy.scope():
        v = tf.Variable(1.)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert isinstance(strategy.run(tf.distribute.get_replica_context),
                      tf.distribute.ReplicaContext)


def test_per_replica_prints_as_tensorflow():
    from tapeflow.distribute.values import PerReplica
    value = PerReplica((tf.constant(1.), tf.constant(2.)))
    # TF 2.21's str and repr of values.PerReplica((tf.constant(1.), tf.constant(2.)))
    assert str(value) == ("PerReplica:{\n  0: tf.Tensor(1.0, shape=(), dtype=float32),\n"
                          "  1: tf.Tensor(2.0, shape=(), dtype=float32)\n}")
    assert repr(value) == ("PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=float32, "
                           "numpy=1.0>,\n  1: <tf.Tensor: shape=(), dtype=float32, numpy=2.0>\n}")
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.experimental_local_results(value) == value.values
    local = strategy.experimental_local_results((tf.constant(3.), 2))
    assert len(local) == 1 and local[0][1] == 2


def test_distributed_datasets_one_replica():
    strategy = tf.distribute.MirroredStrategy()
    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(4))
    assert type(dist).__name__ == "DistributedDataset"
    assert [x.numpy().tolist() for x in dist] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert dist.element_spec == tf.TensorSpec(shape=(None,), dtype=tf.int64)
    seen = []

    def dataset_fn(context):
        seen.append((str(context), context.num_input_pipelines, context.input_pipeline_id,
                     context.num_replicas_in_sync, context.get_per_replica_batch_size(8)))
        return tf.data.Dataset.range(6).batch(context.get_per_replica_batch_size(4))
    dist = strategy.distribute_datasets_from_function(dataset_fn)
    assert type(dist).__name__ == "DistributedDatasetsFromFunction"
    assert [x.numpy().tolist() for x in dist] == [[0, 1, 2, 3], [4, 5]]
    assert seen == [("tf.distribute.InputContext(input pipeline id 0, total: 1)", 1, 0, 1, 8)]


def test_input_context():
    context = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1,
                                         num_replicas_in_sync=4)
    assert str(context) == "tf.distribute.InputContext(input pipeline id 1, total: 2)"
    assert context.get_per_replica_batch_size(8) == 2
    with pytest.raises(ValueError, match="The `global_batch_size` 7 is not divisible by "
                                         "`num_replicas_in_sync` 4 "):
        context.get_per_replica_batch_size(7)
    default = tf.distribute.InputContext()
    assert (default.num_input_pipelines, default.input_pipeline_id,
            default.num_replicas_in_sync) == (1, 0, 1)


def test_batch_shares_follow_tf_rebatching():
    # TF 2.21: range(10).batch(4).rebatch([2, 2]).shard(2, 1) gives [2, 3], [6, 7] (worker 1;
    # TF's distributed iterator then gives it an empty last batch); rebatch([2, 2, 1]) of
    # range(10).batch(5) splits each batch as [0, 1], [2, 3], [4].
    batches = [np.arange(0, 4), np.arange(4, 8), np.arange(8, 10)]
    assert [batch_share(b, 0, 2, 4).tolist() for b in batches] == [[0, 1], [4, 5], [8, 9]]
    assert [batch_share(b, 1, 2, 4).tolist() for b in batches] == [[2, 3], [6, 7], []]
    assert [batch_share(np.arange(5), r, 3).tolist() for r in range(3)] == \
        [[0, 1], [2, 3], [4]]


def test_gather_one_replica():
    strategy = tf.distribute.MirroredStrategy()
    np.testing.assert_array_equal(strategy.gather(tf.constant([[1., 2.]]), axis=0), [[1., 2.]])


def test_compute_average_loss():
    # TF 2.21's answers
    assert float(tf.nn.compute_average_loss(tf.constant([1., 2., 3.]))) == 2.0
    assert float(tf.nn.compute_average_loss(tf.constant([1., 2., 3.]),
                                            global_batch_size=6)) == 1.0
    weighted = tf.nn.compute_average_loss(tf.constant([1., 2., 3.]),
                                          sample_weight=tf.constant([1., 0., 2.]))
    assert weighted.dtype == tf.float32 and np.isclose(float(weighted), 2.3333333)
    assert float(tf.nn.compute_average_loss(tf.constant([1., 2., 3.]), sample_weight=2.)) == 4.
    assert float(tf.nn.compute_average_loss(tf.constant([[1., 2.], [3., 4.]]),
                                            sample_weight=tf.constant([1., 2.]))) == 8.5
    assert float(tf.nn.compute_average_loss(tf.constant([[1., 2.], [3., 4.]]))) == 5.0
    assert tf.nn.compute_average_loss(tf.constant([1., 2.], tf.float64)).dtype == tf.float64
    as_int = tf.nn.compute_average_loss(tf.constant([1, 2, 3]))
    assert as_int.dtype == tf.float64 and float(as_int) == 2.0
    assert float(tf.nn.compute_average_loss(tf.constant([1., 2.]), global_batch_size=0)) == 0
    with pytest.raises(ValueError, match="Expected a tensor with at least rank 1. Received "
                                         "per_example_loss=3.0 with rank 0"):
        tf.nn.compute_average_loss(tf.constant(3.))
    with pytest.raises(TypeError, match="global_batch_size must be an integer"):
        tf.nn.compute_average_loss(tf.constant([1., 2.]), global_batch_size=2.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        tf.nn.compute_average_loss(tf.constant([1., 2.]), global_batch_size=-1)


def test_losses_need_a_replica_context_under_a_strategy():
    strategy = tf.distribute.MirroredStrategy()
    assert float(tf.nn.scale_regularization_loss([tf.constant(3.), tf.constant(1.)])) == 4.
    with strategy.scope():
        with pytest.raises(RuntimeError, match="You are calling `compute_average_loss` in "
                                               "cross replica context"):
            tf.nn.compute_average_loss(tf.constant([1., 2., 3.]))
        with pytest.raises(RuntimeError, match="You are calling `scale_regularization_loss`"):
            tf.nn.scale_regularization_loss(tf.constant(3.))
        loss = strategy.run(lambda: tf.nn.compute_average_loss(tf.constant([1., 2., 3.])))
    assert float(loss) == 2.0


def test_multi_worker_strategy_in_one_process(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    # TF 2.21 without TF_CONFIG: one replica, a TFConfigClusterResolver without a task
    assert strategy.num_replicas_in_sync == 1
    assert type(strategy.cluster_resolver).__name__ == "TFConfigClusterResolver"
    assert strategy.cluster_resolver.task_type is None
    assert strategy.extended.should_checkpoint
    with strategy.scope():
        v = tf.Variable(1.)
    assert type(v).__name__ == "MirroredVariable"


def test_tf_config_must_match_the_mpi_job(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"worker": ["host1:2222", "host2:2222"]},
        "task": {"type": "worker", "index": 1}}))
    with pytest.raises(ValueError, match=r"2 workers; this task 'worker' 1.*does not match "
                                         r"the MPI job \(size 1, this process rank 0\)"):
        tf.distribute.MultiWorkerMirroredStrategy()
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["h:1"]},
                                                "task": {"type": "chief", "index": 0}}))
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert (strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id) == \
        ("chief", 0)
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        tf.distribute.MultiWorkerMirroredStrategy()


class _Twin:
    """A communicator of rank 0 in a group of 2 whose other worker always holds the same
    values as this one: sums double, means and broadcasts keep, gathers repeat."""

    rank, size = 0, 2

    def allreduce(self, arrays, op="sum", names=None):
        return [np.asarray(a) * (2 if op == "sum" else 1) for a in arrays]

    def allgather(self, array, name=None):
        return np.concatenate([array, array])

    def broadcast(self, arrays, root=0, names=None):
        return [np.array(a) for a in arrays]

    def barrier(self):
        pass


def _twin_strategy(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    monkeypatch.setattr(distribute_lib, "_world", lambda: _Twin())
    return MultiWorkerMirroredStrategy()


def test_two_workers_sum_gradients_in_a_traced_step(monkeypatch):
    """Each (simulated) worker's loss is its half of the global batch's mean, so the summed
    gradients are the full batch's: the step equals one plain SGD step on that batch."""
    strategy = _twin_strategy(monkeypatch)
    assert strategy.num_replicas_in_sync == 2
    x = np.linspace(-1, 1, 8).reshape(4, 2)
    with strategy.scope():
        w = tf.Variable([[0.5], [-0.25]], dtype=tf.float64)
        optimizer = keras.optimizers.SGD(0.1)

    @tf.function
    def train_step(xb):
        def step(xb):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.matmul(xb, w) ** 2, 1))
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])
            return loss
        return strategy.reduce("SUM", strategy.run(step, args=(xb,)), axis=None)
    loss = train_step(tf.constant(x))
    w0 = np.array([[0.5], [-0.25]])
    # the twin holds the same 4 rows: the global batch is x twice, its mean gradient x's
    expected = w0 - 0.1 * (2 * x.T @ (x @ w0)) / 4
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-8)  # lr is float32
    np.testing.assert_allclose(float(loss), np.mean((x @ w0) ** 2), rtol=1e-12)
    gathered = strategy.gather(tf.constant([[1.]]), axis=0)
    np.testing.assert_array_equal(gathered, [[1.], [1.]])


def test_two_workers_fit_scales_the_loss_and_splits_batches(monkeypatch):
    """`fit` on rank 0 of 2 trains on the first half of each global batch, each replica's loss
    scaled by 1/2; the twin's gradient doubles it back: the one-worker step on that half."""
    strategy = _twin_strategy(monkeypatch)
    x = np.linspace(-1, 1, 16).reshape(8, 2)
    y = x @ np.array([[1.], [-2.]])

    def train(strategy, xs, ys, batch_size):
        keras.utils.set_random_seed(1)
        with (strategy.scope() if strategy else _nothing()):
            model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
            model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(xs, ys, batch_size=batch_size, epochs=1, shuffle=False, verbose=0)
        return [w.numpy() for w in model.weights], history.history["loss"]
    weights, loss = train(strategy, x, y, 4)
    halves = np.concatenate([x[0:2], x[4:6]]), np.concatenate([y[0:2], y[4:6]])
    expected, expected_loss = train(None, *halves, 2)
    for got, want in zip(weights, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # the logged loss is the metric summed over both (identical) workers: the local mean
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-6)


def _nothing():
    import contextlib
    return contextlib.nullcontext()


def test_fit_under_mirrored_strategy_equals_plain_fit():
    x = np.linspace(-1, 1, 24).reshape(12, 2)
    y = np.sin(x[:, :1])

    def train(strategy):
        keras.utils.set_random_seed(4)
        with (strategy.scope() if strategy else _nothing()):
            model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3),
                                      keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
        return ([w.numpy() for w in model.weights], history.history,
                model.evaluate(x, y, verbose=0), model.predict(x, verbose=0))
    strategy = tf.distribute.MirroredStrategy()
    got, want = train(strategy), train(None)
    for a, b in zip(got[0], want[0]):
        np.testing.assert_array_equal(a, b)
    assert got[1] == want[1] and got[2] == want[2]
    np.testing.assert_array_equal(got[3], want[3])


def test_two_workers_dataset_shares_and_shard_policies(monkeypatch):
    from tapeflow.distribute.input_lib import AutoShardPolicy
    strategy = _twin_strategy(monkeypatch)
    dataset = tf.data.Dataset.range(10).batch(4)
    shares = [x.numpy().tolist() for x in strategy.experimental_distribute_dataset(dataset)]
    assert shares == [[0, 1], [4, 5], [8, 9]]  # rank 0's half of each global batch
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    every = strategy.experimental_distribute_dataset(dataset.with_options(options))
    assert [x.numpy().tolist() for x in every] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], []]
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.FILE
    with pytest.raises(NotImplementedError, match="AutoShardPolicy.FILE is not implemented"):
        strategy.experimental_distribute_dataset(dataset.with_options(options))
    with pytest.raises(ValueError, match="needs batched elements"):
        list(strategy.experimental_distribute_dataset(tf.data.Dataset.range(3)))

    def dataset_fn(context):
        assert (context.num_input_pipelines, context.input_pipeline_id,
                context.num_replicas_in_sync) == (2, 0, 2)
        return tf.data.Dataset.range(4).batch(context.get_per_replica_batch_size(4))
    from_fn = strategy.distribute_datasets_from_function(dataset_fn)
    assert [x.numpy().tolist() for x in from_fn] == [[0, 1], [2, 3]]


def test_two_workers_fit_reads_dataset_batches_as_global(monkeypatch):
    strategy = _twin_strategy(monkeypatch)
    x = np.linspace(-1, 1, 16).reshape(8, 2)
    y = x @ np.array([[1.], [-2.]])

    def train(data):
        keras.utils.set_random_seed(1)
        with strategy.scope():
            model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
            model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
        model.fit(data, epochs=1, shuffle=False, verbose=0)
        return [w.numpy() for w in model.weights]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).prefetch(1)
    from_dataset = train(dataset)
    distributed = train(strategy.experimental_distribute_dataset(dataset))
    keras.utils.set_random_seed(1)
    with strategy.scope():
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    for a, b, c in zip(from_dataset, distributed, model.weights):
        np.testing.assert_array_equal(a, c.numpy())
        np.testing.assert_array_equal(b, c.numpy())
