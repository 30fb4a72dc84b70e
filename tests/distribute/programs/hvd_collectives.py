"""Collectives under `mpiexec -n N`: saves each rank's results as rank{r}.npz in
TAPEFLOW_TEST_OUT (values, dtypes, error messages, the number of MPI calls a fused gradient
allreduce made)."""

import os

import numpy as np

import tapeflow as tf
import tapeflow.horovod as hvd

hvd.init()
r, n = hvd.rank(), hvd.size()
out = {"rank": np.array(r), "size": np.array(n), "local_rank": np.array(hvd.local_rank()),
       "local_size": np.array(hvd.local_size())}

base = np.arange(6, dtype=np.float64).reshape(2, 3) * (r + 1)
out["avg"] = hvd.allreduce(tf.constant(base)).numpy()
out["sum_i32"] = hvd.allreduce(tf.constant(np.arange(3, dtype=np.int32) + r), op=hvd.Sum).numpy()
out["max"] = hvd.allreduce(tf.constant([float(r), -float(r)]), op=hvd.Max).numpy()
out["min"] = hvd.allreduce(tf.constant([float(r), -float(r)]), op=hvd.Min).numpy()
out["f16"] = hvd.allreduce(tf.constant(np.full(2, 0.5 + r, np.float16))).numpy()
out["gather"] = hvd.allgather(tf.constant(np.full((r + 1, 2), r, np.int64))).numpy()
out["bcast"] = hvd.broadcast(tf.constant([r, r], tf.int32), root_rank=n - 1).numpy()
out["obj"] = np.array(hvd.broadcast_object({"from": r}, root_rank=n - 1)["from"])
out["objs"] = np.array(hvd.allgather_object(r * 10))
grouped = hvd.grouped_allreduce([tf.constant(base), tf.constant(np.ones(2, np.float32) * r)],
                                op=hvd.Sum)
out["grouped0"], out["grouped1"] = grouped[0].numpy(), grouped[1].numpy()
sparse = hvd.allreduce(tf.IndexedSlices(tf.constant([[1.0 + r, 2.0]]), tf.constant([r])))
out["sparse_values"], out["sparse_indices"] = sparse.values.numpy(), sparse.indices.numpy()
out["dtypes"] = np.array([str(hvd.allreduce(tf.constant(base)).dtype), str(sparse.values.dtype),
                          str(hvd.allreduce(tf.constant(np.int32(r)), op=hvd.Sum).dtype)])

# Tensor fusion: a tape's six gradients travel in one allreduce (plus the agreement check).
comm = hvd._world()._comm if n > 1 else None
variables = [tf.Variable(np.full((3,), float(i + r))) for i in range(6)]
with tf.GradientTape() as tape:
    loss = tf.add_n([tf.reduce_sum(v * v) for v in variables])
calls = []
if comm is not None:
    mpi_comm = hvd._world()._comm

    class Counting:
        def __getattr__(self, name):
            if name.startswith("I"):
                calls.append(name)
            return getattr(mpi_comm, name)
    hvd._world()._comm = Counting()
grads = hvd.DistributedGradientTape(tape).gradient(loss, variables)
if comm is not None:
    hvd._world()._comm = mpi_comm
out["tape_calls"] = np.array(calls)
out["tape_grads"] = np.stack([g.numpy() for g in grads])

# Mismatched shapes: every rank raises, naming the tensor; nothing is reduced.
try:
    hvd.allreduce(tf.ones([2 + r]), name="the_weights")
    out["mismatch"] = np.array("no error")
except tf.errors.InvalidArgumentError as e:
    out["mismatch"] = np.array(str(e))
out["after_mismatch"] = hvd.allreduce(tf.constant(1.0), op=hvd.Sum).numpy()

np.savez(os.path.join(os.environ["TAPEFLOW_TEST_OUT"], f"rank{r}.npz"), **out)
