"""tf.random.categorical and stateless_categorical give TensorFlow 2.21's samples: the fixture
(tools/record_random_categorical.py) holds TF's results for intra-op pools of 1, 2, 4 and 8
threads (TF's CPU kernel splits the batch rows into blocks for the pool, each block reading
the stream from its own offset) and for TF's default pool."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import random_ops

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "random_categorical.json").read_text())
RUNS = {run["threads"]: run for run in FIXTURE["runs"]}


@pytest.fixture(autouse=True)
def _clear_global_seed():
    yield
    tf.random.set_seed(None)


def logits(batch: int, classes: int, dtype: str) -> np.ndarray:
    """The recording script's logits: [-5, 5) with some -inf."""
    i, j = np.meshgrid(np.arange(batch), np.arange(classes), indexing="ij")
    values = ((i * 7919 + j * 104729) % 1000) / 100.0 - 5.0
    values[((i + 2 * j) % 11 == 0) & (j > 0)] = -np.inf
    return values.astype(dtype)


def packed(array: np.ndarray) -> dict:
    if array.size <= 64:
        return {"values": array.reshape(-1).tolist()}
    return {"sha256": hashlib.sha256(array.astype(np.int64).tobytes()).hexdigest()}


def _draw(step: list) -> tf.Tensor:
    batch, classes, num, dtype, out, seed = step
    return tf.random.categorical(tf.constant(logits(batch, classes, dtype)), num, dtype=out,
                                 seed=seed)


def _pool(monkeypatch, run: dict) -> None:
    threads = run["threads"] or run["cpus"]   # TF's default: the CPUs it could run on
    monkeypatch.setattr(random_ops, "_intra_op_threads", lambda: threads)


@pytest.mark.parametrize("threads", sorted(RUNS))
def test_stateful_program_matches_tf(monkeypatch, threads):
    run = RUNS[threads]
    _pool(monkeypatch, run)
    for record in run["program"]:
        step = record["step"]
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
        elif step[0] == "function":   # a graph's stream carries from call to call
            fn = tf.function(lambda s=step[1]: _draw(s))
            assert [packed(fn().numpy()) for _ in range(2)] == record["results"], step
        else:
            result = _draw(step)
            assert result.dtype.name == step[4] and result.shape == (step[0], step[2])
            got = packed(result.numpy())
            assert got == {k: record[k] for k in got}, (threads, step)


@pytest.mark.parametrize("threads", sorted(RUNS))
def test_stateless_matches_tf(monkeypatch, threads):
    run = RUNS[threads]
    _pool(monkeypatch, run)
    for record in run["stateless"]:
        batch, classes, num, dtype, out, seed = record["step"]
        result = tf.random.stateless_categorical(tf.constant(logits(batch, classes, dtype)),
                                                 num, seed=seed, dtype=out)
        got = packed(result.numpy())
        assert result.dtype.name == out and got == {k: record[k] for k in got}, record["step"]
        again = tf.function(lambda step=record["step"]: tf.random.stateless_categorical(
            tf.constant(logits(*step[:2], step[3])), step[2], seed=tf.constant(step[5]),
            dtype=step[4]))
        assert packed(again().numpy()) == got


def test_the_pool_size_comes_from_tf_config():
    # A fresh process: the setting is taken only before the first op, as in TensorFlow. The
    # case's samples differ for pools of 1, 2 and 4 threads in TF.
    record = next(r for r in RUNS[4]["stateless"]
                  if r["step"] == [400, 10, 5, "float32", "int64", [1, 2]])
    assert len({RUNS[k]["stateless"][RUNS[4]["stateless"].index(record)]["sha256"]
                for k in (1, 2, 4)}) == 3
    code = f"""
import sys
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
import tapeflow as tf
from test_random_categorical import logits, packed
tf.config.threading.set_intra_op_parallelism_threads(4)
print(packed(tf.random.stateless_categorical(logits(400, 10, "float32"), 5,
                                             seed=[1, 2]).numpy())["sha256"])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-1] == record["sha256"]


def test_default_pool_is_tf_intraop_env_then_schedulable_cpus(monkeypatch):
    monkeypatch.setattr(random_ops, "runtime", types.SimpleNamespace(intra_op_threads=0))
    monkeypatch.delenv("TF_NUM_INTRAOP_THREADS", raising=False)
    assert random_ops._intra_op_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "3")
    assert random_ops._intra_op_threads() == 3
    random_ops.runtime.intra_op_threads = 5   # what tf.config.threading set
    assert random_ops._intra_op_threads() == 5


def test_non_finite_logits_have_no_mass():
    # TF 2.21: +inf and NaN logits are skipped like -inf; a row with no finite logit gives
    # num_classes (one past the last class), as TF's CPU kernel.
    assert tf.random.categorical([[np.inf, 0.0]], 5, seed=1).numpy().tolist() == [[1] * 5]
    assert tf.random.categorical([[np.nan, 0.0]], 5, seed=1).numpy().tolist() == [[1] * 5]
    assert tf.random.categorical([[-np.inf, -np.inf]], 3, seed=1).numpy().tolist() == \
        [[2, 2, 2]]
    assert tf.random.stateless_categorical([[-np.inf, -np.inf, -np.inf]], 2, seed=[1, 2]) \
        .numpy().tolist() == [[3, 3]]


def test_empty_results():
    # TF 2.21: shapes (1, 0) and (0, 2), int64.
    assert tf.random.categorical([[np.nan, 0.0]], 0, seed=1).shape == (1, 0)
    empty = tf.random.stateless_categorical(tf.zeros([0, 3]), 2, seed=[1, 2], dtype=tf.int32)
    assert empty.shape == (0, 2) and empty.dtype == tf.int32


_KERNELS = ("  device='CPU'; T in [DT_DOUBLE]; output_dtype in [DT_INT64]\n"
            "  device='CPU'; T in [DT_DOUBLE]; output_dtype in [DT_INT32]\n"
            "  device='CPU'; T in [DT_FLOAT]; output_dtype in [DT_INT64]\n"
            "  device='CPU'; T in [DT_FLOAT]; output_dtype in [DT_INT32]\n"
            "  device='CPU'; T in [DT_BFLOAT16]; output_dtype in [DT_INT64]\n"
            "  device='CPU'; T in [DT_BFLOAT16]; output_dtype in [DT_INT32]\n"
            "  device='CPU'; T in [DT_HALF]; output_dtype in [DT_INT64]\n"
            "  device='CPU'; T in [DT_HALF]; output_dtype in [DT_INT32]\n")


def _stateless_seed_type_message() -> str:
    return ("Value for attr 'Tseed' of float is not in the list of allowed values: int32, "
            "int64\n\t; NodeDef: {{node StatelessMultinomial}}; Op<name=StatelessMultinomial; "
            "signature=logits:T, num_samples:int32, seed:Tseed -> output:output_dtype; "
            "attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, "
            "DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64]; "
            "attr=Tseed:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]; "
            "attr=output_dtype:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]> "
            "[Op:StatelessMultinomial]")


# TF 2.21's error classes and messages (less its " name: " suffix).
@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.random.categorical([1.0, 2.0], 2), tf.errors.InvalidArgumentError,
     "logits should be a matrix, got shape [2] [Op:Multinomial]"),
    (lambda: tf.random.categorical([[1.0, 2.0]], -1), tf.errors.InvalidArgumentError,
     "num_samples should be non-negative, got -1 [Op:Multinomial]"),
    (lambda: tf.random.categorical(tf.zeros([2, 0]), 2), tf.errors.InvalidArgumentError,
     "num_classes should be positive, got 0 [Op:Multinomial]"),
    (lambda: tf.random.categorical([[1.0, 2.0]], 2, dtype=tf.int16), ValueError,
     "Argument `dtype` got invalid value <dtype: 'int16'>. Accepted dtypes are (tf.int32, "
     "tf.int64)."),
    (lambda: (tf.random.set_seed(None), tf.random.categorical([[1, 2]], 2, seed=3)),
     tf.errors.NotFoundError,
     "Could not find device for node: {{node Multinomial}} = Multinomial[T=DT_INT32, "
     "output_dtype=DT_INT64, seed=87654321, seed2=3]\nAll kernels registered for op "
     "Multinomial:\n  device='XLA_CPU_JIT'; output_dtype in [DT_INT32, DT_INT64]; T in "
     "[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, "
     "DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64]\n" + _KERNELS + " [Op:Multinomial]"),
    (lambda: tf.random.stateless_categorical([[1, 2]], 2, seed=[1, 2]),
     tf.errors.NotFoundError,
     "Could not find device for node: {{node StatelessMultinomial}} = StatelessMultinomial"
     "[T=DT_INT32, Tseed=DT_INT32, output_dtype=DT_INT64]\nAll kernels registered for op "
     "StatelessMultinomial:\n  device='XLA_CPU_JIT'; output_dtype in [DT_INT32, DT_INT64]; "
     "Tseed in [DT_INT32]; T in [DT_FLOAT, DT_DOUBLE, DT_BFLOAT16]\n" + _KERNELS +
     " [Op:StatelessMultinomial]"),
    (lambda: tf.random.stateless_categorical([[1, 2]], 2, seed=[1.0, 2.0]),
     tf.errors.InvalidArgumentError, _stateless_seed_type_message()),
    (lambda: tf.random.stateless_categorical([[1.0, 2.0]], 2, seed=[[1, 2]]),
     tf.errors.InvalidArgumentError,
     "seed must have shape [2], not [1,2] [Op:StatelessMultinomial]"),
    (lambda: tf.random.stateless_categorical([[1.0, 2.0]], -2, seed=[1, 2]),
     tf.errors.InvalidArgumentError,
     "num_samples should be non-negative, got -2 [Op:StatelessMultinomial]"),
    (lambda: tf.random.stateless_categorical(tf.zeros([3]), 2, seed=[1, 2]),
     tf.errors.InvalidArgumentError,
     "logits should be a matrix, got shape [3] [Op:StatelessMultinomial]"),
    (lambda: tf.random.stateless_categorical([[1.0]], 2, seed=[1, 2], dtype=tf.float32),
     ValueError, "Argument `dtype` got invalid value <dtype: 'float32'>."),
    (lambda: tf.function(lambda: tf.random.categorical([[[1.0, 2.0]]], 2))(), ValueError,
     "Shape must be rank 2 but is rank 3 for 'Multinomial'"),
    (lambda: tf.function(lambda: tf.random.categorical([[1.0, 2.0]], -2))(), ValueError,
     "Dimension size, given by scalar input 1, must be non-negative but is -2"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


# -- tf.random.experimental.index_shuffle ---------------------------------------------------------

@pytest.mark.parametrize("case", FIXTURE["index_shuffle"], ids=lambda c: "-".join(
    map(str, c["case"][:2] + [c["case"][3]])))
def test_index_shuffle_matches_tf(case):
    dtype, seed_dtype, seed, top, indices = case["case"]
    shuffle = tf.random.experimental.index_shuffle
    seed_t = tf.constant(seed, seed_dtype)
    vector = shuffle(tf.constant(indices, dtype), seed_t, tf.constant(top, dtype))
    assert vector.dtype.name == dtype and vector.shape == (len(indices),)
    assert vector.numpy().tolist() == case["values"]
    scalar = shuffle(tf.constant(indices[-1], dtype), seed_t, tf.constant(top, dtype))
    assert scalar.shape == () and scalar.numpy().tolist() == case["scalar"]
    if top < 200:   # a permutation of [0, max_index]
        assert sorted(case["values"]) == list(range(top + 1))


def test_index_shuffle_broadcasts_and_traces():
    # TF 2.21: index_shuffle(tf.range(4), [5, 9], 3) is [2, 0, 1, 3]; with a vector max_index
    # of 2s, range(3) gives [2, 0, 1] (the doc's examples and TF's answers).
    shuffle = tf.random.experimental.index_shuffle
    assert shuffle(tf.range(4), [5, 9], 3).numpy().tolist() == [2, 0, 1, 3]
    assert [int(shuffle(i, [5, 8], 9)) for i in range(10)] == [3, 8, 0, 1, 2, 7, 6, 9, 4, 5]
    assert shuffle(tf.range(3), [1, 2], tf.constant([2, 2, 2])).numpy().tolist() == [2, 0, 1]
    traced = tf.function(lambda i, s: shuffle(i, s, 3))
    assert traced(tf.range(4), tf.constant([5, 9])).numpy().tolist() == [2, 0, 1, 3]


def _attr_message(attr: str, kind: str) -> str:
    return (f"Value for attr '{attr}' of {kind} is not in the list of allowed values: int32, "
            f"uint32, int64, uint64\n\t; NodeDef: {{{{node RandomIndexShuffle}}}}; "
            f"Op<name=RandomIndexShuffle; signature=index:dtype, seed:Tseed, max_index:dtype "
            f"-> output:dtype; attr=rounds:int,default=4; attr=dtype:type,allowed=[DT_INT32, "
            f"DT_UINT32, DT_INT64, DT_UINT64]; attr=Tseed:type,allowed=[DT_INT32, DT_UINT32, "
            f"DT_INT64, DT_UINT64]> [Op:RandomIndexShuffle]")


# TF 2.21's errors (a seed of shape [n, 2] fails in TF too: its first axis is padded).
@pytest.mark.parametrize("call, message", [
    (lambda s: s(tf.range(3), [[1, 2], [3, 4], [5, 6]], 2),
     "Seed must be a vector of size [3] or a matrix of size [3, 3] but got [4,2]. "
     "[Op:RandomIndexShuffle]"),
    (lambda s: s(tf.range(3), [1, 2, 3], 2),
     "Seed must be a vector of size [3] or a matrix of size [3, 3] but got [4]. "
     "[Op:RandomIndexShuffle]"),
    (lambda s: s(tf.constant([1, 2], tf.int64), [1, 2], tf.constant(5, tf.int32)),
     "cannot compute RandomIndexShuffle as input #2(zero-based) was expected to be a int64 "
     "tensor but is a int32 tensor [Op:RandomIndexShuffle]"),
    (lambda s: s(1.0, [1, 2], 3.0), _attr_message("dtype", "float")),
    (lambda s: s(1, [1.0, 2.0], 3), _attr_message("Tseed", "float")),
    (lambda s: s(tf.constant([0, 1], tf.int16), [1, 2], tf.constant(3, tf.int16)),
     _attr_message("dtype", "int16")),
    (lambda s: s(tf.zeros([2, 2], tf.int32), [1, 2], 3),
     "Index bust be a scalar or vector. [Op:RandomIndexShuffle]"),
    (lambda s: s(tf.range(3), [1, 2], tf.constant([2, 2])),
     "Maxval must be a scalar or a vector of the same size as index but got [2] "
     "[Op:RandomIndexShuffle]"),
])
def test_index_shuffle_errors(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call(tf.random.experimental.index_shuffle)
    assert str(info.value) == message
