"""MultiWorkerMirroredStrategy across MPI processes: 2- and 4-rank jobs train to the weights
of one process on the full global batch (float64, to 1e-6), with a custom loop
(strategy.run + compute_average_loss) and with `fit`, SGD and Adam; only the chief prints
and keeps checkpoints; BackupAndRestore resumes every worker after one fails.

The programs are tests/distribute/programs/strategy_*.py; their `run()` is also called here,
in this one process, for the reference.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from tests.distribute._mpi import PROGRAMS, load_ranks, mpirun, requires_mpi

pytestmark = requires_mpi


def _program(name: str):
    spec = importlib.util.spec_from_file_location(f"_strategy_{name}", PROGRAMS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def train_reference():
    """The one-process results of every configuration of strategy_train.py."""
    from tapeflow import keras
    try:
        return _program("strategy_train").run()
    finally:
        keras.backend.set_floatx("float32")


def _assert_same(reference: dict, ranks: list, configs: tuple) -> None:
    keys = [k for k in reference if k.rsplit("_", 1)[0] in configs]  # not coll_*
    assert keys
    for rank, got in enumerate(ranks):
        for key in keys:
            np.testing.assert_allclose(got[key], reference[key], rtol=0, atol=1e-6,
                                       err_msg=f"rank {rank}: {key}")


def _assert_collectives(ranks: list) -> None:
    """strategy.reduce / gather / ReplicaContext.all_reduce of rank-dependent values."""
    n = len(ranks)
    counts = np.arange(1, n + 1)
    gathered = np.concatenate([np.full((r + 1, 2), float(r)) for r in range(n)])
    for rank, got in enumerate(ranks):
        np.testing.assert_array_equal(got["coll_sum"], [counts.sum()])
        np.testing.assert_allclose(got["coll_mean_axis"],
                                   np.sum(np.arange(n) * counts) / counts.sum())
        np.testing.assert_array_equal(got["coll_gather"], gathered)
        np.testing.assert_allclose(got["coll_context_mean"], (n - 1) / 2)
        assert int(got["coll_replica_id"]) == rank


def test_two_ranks_train_as_one_process_on_the_global_batch(tmp_path, train_reference):
    proc = mpirun("strategy_train.py", 2, tmp_path)
    ranks = load_ranks(tmp_path, 2)
    assert [int(r["replicas"]) for r in ranks] == [2, 2]
    _assert_collectives(ranks)
    _assert_same(train_reference, ranks, ("loop_sgd", "fit_sgd", "loop_adam", "fit_adam"))
    # Only the chief prints fit's progress (verbose=2: one line per epoch, two fits).
    assert proc.stdout.count("Epoch 1/2") == 2, proc.stdout


def test_four_ranks_oversubscribed(tmp_path, train_reference):
    mpirun("strategy_train.py", 4, tmp_path, "loop_sgd", "fit_adam")
    ranks = load_ranks(tmp_path, 4)
    assert [int(r["replicas"]) for r in ranks] == [4] * 4
    _assert_collectives(ranks)
    _assert_same(train_reference, ranks, ("loop_sgd", "fit_adam"))


def test_backup_and_restore_resumes_every_worker(tmp_path):
    from tapeflow import keras
    program = _program("strategy_backup")
    try:
        *reference, epochs = program.run(str(tmp_path / "ref_backup"), str(tmp_path / "ref_ck"))
    finally:
        keras.backend.set_floatx("float32")
    assert list(epochs) == [0, 1, 2, 3]
    backup, checkpoints = str(tmp_path / "backup"), str(tmp_path / "ckpt")
    failed = mpirun("strategy_backup.py", 2, tmp_path, backup, checkpoints, "2", check=False)
    assert failed.returncode != 0
    assert "worker 1 fails at epoch 2" in failed.stderr
    assert sorted(os.listdir(backup)) == ["latest.data-00000-of-00001", "latest.index",
                                          "training_metadata.json"]
    mpirun("strategy_backup.py", 2, tmp_path, backup, checkpoints)
    for rank, got in enumerate(load_ranks(tmp_path, 2)):
        assert list(got["epochs"]) == [2, 3], f"rank {rank} did not resume at epoch 2"
        for i, expected in enumerate(reference):
            np.testing.assert_allclose(got[f"w{i}"], expected, rtol=0, atol=1e-6)
    # The backup is deleted at the end; only the chief's checkpoint is kept (no worker temps).
    assert not os.path.exists(backup)
    assert os.listdir(checkpoints) == ["model.weights.h5"]
