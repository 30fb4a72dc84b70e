"""Launching test programs as MPI jobs (`mpiexec -n N python program.py`) and reading back what
each rank saved.

A program finds its output folder in the environment variable TAPEFLOW_TEST_OUT and saves
`rank{r}.npz` there (`save_rank(rank, **arrays)` below does it); `mpirun` returns the finished
process and `load_ranks` the per-rank arrays. Tests that need a launch use `requires_mpi`,
which skips with the reason when mpi4py or mpiexec is missing.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import tapeflow

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
MPIEXEC = shutil.which("mpiexec")
HAVE_MPI4PY = importlib.util.find_spec("mpi4py") is not None

requires_mpi = pytest.mark.skipif(
    not (MPIEXEC and HAVE_MPI4PY),
    reason="multi-process tests need mpi4py and mpiexec: pip install 'tapeflow[mpi]'")


def mpi_env(out_dir: os.PathLike, timeout_s: float = 60.0) -> dict:
    """The environment of a launched job: this test process's tapeflow first on the path, the
    collectives' deadline, Open MPI's permission to run as root, and one BLAS thread per rank
    (the ranks already share the cores)."""
    env = dict(os.environ)
    src = str(pathlib.Path(tapeflow.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    env["TAPEFLOW_TEST_OUT"] = str(out_dir)
    env["TAPEFLOW_COLLECTIVE_TIMEOUT"] = str(timeout_s)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def mpirun(program: str, n: int, out_dir: os.PathLike, *args: str, timeout: float = 90.0,
           collective_timeout: float = 60.0, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `mpiexec -n n python programs/<program> args...` (oversubscribed: more ranks than
    cores are allowed) and returns the finished process, with `.wall_s` added. `check`: raise
    with both outputs when it exits non-zero."""
    cmd = [MPIEXEC, "-n", str(n), "--oversubscribe", sys.executable,
           str(PROGRAMS / program), *args]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=mpi_env(out_dir, collective_timeout), capture_output=True,
                          text=True, timeout=timeout)
    proc.wall_s = time.monotonic() - start
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited with {proc.returncode}\n"
                             f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    return proc


def save_rank(rank: int, **arrays) -> None:
    """For programs: saves this rank's results as TAPEFLOW_TEST_OUT/rank{rank}.npz."""
    np.savez(os.path.join(os.environ["TAPEFLOW_TEST_OUT"], f"rank{rank}.npz"), **arrays)


def load_ranks(out_dir: os.PathLike, n: int) -> list:
    """Each rank's saved arrays, as dicts, in rank order."""
    out = []
    for r in range(n):
        with np.load(pathlib.Path(out_dir) / f"rank{r}.npz") as f:
            out.append({k: f[k] for k in f.files})
    return out
