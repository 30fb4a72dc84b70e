"""tapeflow.horovod under `mpiexec -n 2` (and `-n 4 --oversubscribe`): the collectives' values
on every rank, a mismatched-shape allreduce, a failing rank, and Horovod-style training that
must equal one process on the global batch (float64, to 1e-6)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from _mpi import PROGRAMS, load_ranks, mpi_env, mpirun, requires_mpi

pytestmark = requires_mpi

TRAIN_MODES = ("tape_sgd", "tape_adam", "fit_sgd", "fit_adam", "fit_warmup")


@pytest.mark.parametrize("n", [2])
def test_collectives_give_every_rank_the_same_values(tmp_path, n):
    mpirun("hvd_collectives.py", n, tmp_path)
    ranks = load_ranks(tmp_path, n)
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    for r, got in enumerate(ranks):
        assert (got["rank"], got["size"]) == (r, n)
        assert got["local_size"] == n and got["local_rank"] == r  # one machine
        np.testing.assert_array_equal(got["avg"], base * (n + 1) / 2)
        np.testing.assert_array_equal(got["sum_i32"], n * np.arange(3) + n * (n - 1) // 2)
        np.testing.assert_array_equal(got["max"], [n - 1, 0])
        np.testing.assert_array_equal(got["min"], [0, -(n - 1)])
        np.testing.assert_array_equal(got["f16"], [0.5 + (n - 1) / 2] * 2)
        np.testing.assert_array_equal(
            got["gather"], np.concatenate([np.full((q + 1, 2), q) for q in range(n)]))
        np.testing.assert_array_equal(got["bcast"], [n - 1, n - 1])
        assert got["obj"] == n - 1
        np.testing.assert_array_equal(got["objs"], 10 * np.arange(n))
        np.testing.assert_array_equal(got["grouped0"], base * n * (n + 1) / 2)
        np.testing.assert_array_equal(got["grouped1"], [n * (n - 1) / 2] * 2)
        # IndexedSlices: allgathered, averaged values divided by size (Horovod's rule)
        np.testing.assert_array_equal(
            got["sparse_values"], [[(1.0 + q) / n, 2.0 / n] for q in range(n)])
        np.testing.assert_array_equal(got["sparse_indices"], np.arange(n))
        assert got["dtypes"].tolist() == ["<dtype: 'float64'>", "<dtype: 'float32'>",
                                          "<dtype: 'int32'>"]
        # six gradients, fused: one data allreduce plus the shape/dtype agreement
        assert got["tape_calls"].tolist() == ["Iallreduce", "Iallreduce"]
        np.testing.assert_array_equal(
            got["tape_grads"][:, 0], [2 * i + (n - 1) for i in range(6)])
        assert ("tensor 'the_weights' has different shapes or dtypes on different ranks: "
                "rank 0: shape [2] dtype float32; rank 1: shape [3] dtype float32") \
            in str(got["mismatch"])
        assert got["after_mismatch"] == n  # the group stays usable after the error
    for got in ranks[1:]:  # every rank holds the same bits
        for key in ("avg", "f16", "tape_grads", "sparse_values"):
            assert got[key].tobytes() == ranks[0][key].tobytes()


@pytest.mark.parametrize("mode, message", [
    ("kill", "exited on\nsignal 9"),
    ("hang", "DeadlineExceededError: allreduce on rank 0 of 2 did not complete within 3 s"),
    ("raise", "RuntimeError: rank 1 failed on purpose"),
])
def test_a_failed_rank_ends_the_job_in_bounded_time(tmp_path, mode, message):
    proc = mpirun("hvd_failure.py", 2, tmp_path, mode, check=False, timeout=60,
                  collective_timeout=3)
    assert proc.returncode != 0
    assert "rank 0 finished the allreduce" not in proc.stdout
    assert message in proc.stderr + proc.stdout
    assert proc.wall_s < 30


def _one_process(tmp_path) -> dict:
    """The reference: the same script alone (a job of one) on the whole global batch."""
    out = tmp_path / "one"
    out.mkdir()
    subprocess.run([sys.executable, str(PROGRAMS / "hvd_train.py"), *TRAIN_MODES],
                   env=mpi_env(out), check=True, capture_output=True, timeout=120)
    return load_ranks(out, 1)[0]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return _one_process(tmp_path_factory.mktemp("reference"))


@pytest.mark.parametrize("n", [2, 4])
def test_training_equals_one_process_on_the_global_batch(tmp_path, reference, n):
    mpirun("hvd_train.py", n, tmp_path, *TRAIN_MODES, timeout=120)
    ranks = load_ranks(tmp_path, n)
    for mode in ("tape_sgd", "tape_adam", "fit_sgd", "fit_adam"):
        weights = [k for k in reference if k.startswith(mode + "/w")]
        assert weights
        for key in weights:
            assert reference[key].dtype == np.float64
            for got in ranks:
                np.testing.assert_allclose(got[key], reference[key], rtol=0, atol=1e-6,
                                           err_msg=f"{key} with {n} ranks")
                assert got[key].tobytes() == ranks[0][key].tobytes()
    assert str(ranks[0]["tape_sgd/dtype"]) == "<dtype: 'float64'>"
    # MetricAverageCallback: the epoch losses are the ranks' average, the same everywhere
    for got in ranks:
        np.testing.assert_array_equal(got["fit_sgd/loss"], ranks[0]["fit_sgd/loss"])
    # LearningRateWarmupCallback: lr = initial_lr / size * (epoch * (size - 1) / warmup + 1),
    # epoch counted per batch and shifted by one batch (Horovod's formula)
    steps = 6  # STEPS in the program: the batches of an epoch
    epochs = np.array([e + b / steps for e in range(2) for b in range(steps)])
    for size, rates in ((1, reference["fit_warmup/rates"]), (n, ranks[0]["fit_warmup/rates"])):
        expected = 0.1 / size * ((epochs + 1 / steps) * (size - 1) / 2 + 1)
        np.testing.assert_allclose(rates, expected, rtol=1e-6)
