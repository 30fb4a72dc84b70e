"""Data-parallel training over MPI: step time and scaling at K ranks, the allreduce's share of
the step, and the measured cost of an allreduce against message size.

    mpiexec -n K python benchmarks/bench_distributed.py [--quick]    # one K; rank 0 prints JSON
    python benchmarks/bench_distributed.py --driver [--quick]         # K = 1, 2 and the table

The steps are the suite's seed MLP (Dense 10-64-32-1, MSE, b=32) and big MLP (Dense
784-1024-1024-10, softmax cross-entropy, b=256), Adam, with the suite's data and weights
(benchmarks/workloads.py). The global batch is fixed (strong scaling): each of K ranks takes
its b/K rows, computes its gradients (a `tf.function`), averages them across ranks with the
communicator's fused allreduce (tapeflow.distribute.collective, the one that
MultiWorkerMirroredStrategy and tapeflow.horovod use) and applies Adam (a `tf.function`).
Each phase is timed on every rank; the allreduce's time includes waiting for the slower rank.
Scaling efficiency = throughput at K / (K x throughput at 1) = t_1 / (K t_K).

The sweep times allreduce(sum) of one float32 array of 4 B to 64 MiB through the
communicator and through mpi4py alone, blocking (`Allreduce`) and non-blocking
(`Iallreduce().Wait()`, the MPI algorithm the communicator uses); the difference is
tapeflow's own work (the agreement round, the fusion copies, the polling). Each is fitted to
the ring model at p ranks, T = 2(p-1) alpha + 2(p-1)/p n beta; NumPy's `add` gives the
reduction's own cost per byte. The driver writes benchmarks/results/distributed.json;
docs/distributed.md uses it.

Every rank runs one BLAS thread (the driver sets OMP_NUM_THREADS=1 for both K), so K ranks
use K cores; on this 2-core machine K = 2 is the most that can scale.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(ROOT, "src"), ROOT]

RESULTS = os.path.join(ROOT, "benchmarks", "results", "distributed.json")
SWEEP_SIZES = [1, 16, 256, 4096, 65536, 262144, 1048576, 4194304, 16777216]  # float32 values
WORKLOADS = ("mlp", "big")


# ----------------------------------------------------------------------------------------------
# One rank of a K-rank job


def build_step(name: str, comm, tf):
    """(step, phases) for workload `name` on this rank's share of the global batch: `step()`
    runs one training step and adds its compute / allreduce / apply seconds to `phases`."""
    from benchmarks import tfapi
    from benchmarks import workloads as W
    d = W.data(name)
    sizes = W.MLP_SIZES if name == "mlp" else W.BIG_SIZES
    model = tfapi.dense_model(tf, sizes)
    model.set_weights(d["params"])
    if name == "mlp":
        loss_fn, y = tf.keras.losses.MeanSquaredError(), d["y"]
    else:
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        y = d["labels"]
    x = d["x"]
    rows = np.array_split(np.arange(len(x)), comm.size)[comm.rank]  # this rank's share
    x, y = tf.constant(x[rows]), tf.constant(y[rows])
    variables = model.trainable_variables
    optimizer = tf.keras.optimizers.Adam(learning_rate=W.LR)
    names = [v.name for v in variables]

    @tf.function
    def gradients(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        return loss, tape.gradient(loss, variables)

    @tf.function
    def apply(grads):
        optimizer.apply_gradients(zip(grads, variables))

    phases = {"compute_s": 0.0, "allreduce_s": 0.0, "apply_s": 0.0}

    def step() -> float:
        t0 = time.perf_counter()
        loss, grads = gradients(x, y)
        local = [g.numpy() for g in grads]
        t1 = time.perf_counter()
        averaged = comm.allreduce(local, op="mean", names=names)
        t2 = time.perf_counter()
        apply([tf.constant(g) for g in averaged])
        t3 = time.perf_counter()
        phases["compute_s"] += t1 - t0
        phases["allreduce_s"] += t2 - t1
        phases["apply_s"] += t3 - t2
        return float(loss)

    return step, phases


def agreed_count(fn, comm, budget_s: float) -> int:
    """How many calls of `fn()` fill about `budget_s` (at least 5), from a few timed calls:
    the slowest rank's estimate, so that every rank makes the same number of calls."""
    comm.barrier()
    start = time.perf_counter()
    for _ in range(3):
        fn()
    each = comm.allreduce([np.array([(time.perf_counter() - start) / 3])], op="max")[0][0]
    return max(5, int(budget_s / max(each, 1e-9)))


def time_steps(name: str, comm, tf, seconds: float) -> dict:
    """Per-step time of workload `name`: the slowest rank's, over a number of steps every
    rank runs; the phases averaged over the ranks."""
    step, phases = build_step(name, comm, tf)
    step()  # traces both functions
    steps = agreed_count(step, comm, seconds)
    for key in phases:
        phases[key] = 0.0
    comm.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    mine = np.array([time.perf_counter() - start] + list(phases.values()))
    slowest = comm.allreduce([mine], op="max")[0]
    mean = comm.allreduce([mine], op="mean")[0]
    return {"steps": steps, "step_s": slowest[0] / steps,
            **{k: v / steps for k, v in zip(phases, mean[1:])}}


def median_time(fn, comm, budget_s: float) -> float:
    """The median time of `fn()` over repeated calls, each from a barrier to the slowest
    rank's return."""
    times = []
    for _ in range(agreed_count(fn, comm, budget_s)):
        comm.barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(comm.allreduce([np.array(times)], op="max")[0]))


def sweep(comm, budget_s: float) -> list:
    """allreduce(sum) of one float32 array per size: tapeflow's communicator and mpi4py's."""
    mpi_comm = None
    if comm.size > 1:
        from mpi4py import MPI
        mpi_comm = MPI.COMM_WORLD
    rows = []
    for n in SWEEP_SIZES:
        a = np.ones(n, np.float32)
        out = np.empty_like(a)
        calls = {"tapeflow_s": lambda a=a: comm.allreduce([a])}
        if mpi_comm is not None:  # blocking, and non-blocking with MPI's own wait
            calls["mpi4py_s"] = lambda a=a, out=out: mpi_comm.Allreduce(a, out)
            calls["mpi4py_nonblocking_s"] = lambda a=a, out=out: \
                mpi_comm.Iallreduce(a, out).Wait()
        row = {"values": n, "bytes": 4 * n}
        row.update({key: median_time(call, comm, budget_s) for key, call in calls.items()})
        rows.append(row)
    return rows


def add_cost_per_byte() -> float:
    """Seconds per byte of one float32 vector added into another (the reduction's compute)."""
    a, b = np.ones(16777216, np.float32), np.ones(16777216, np.float32)
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        np.add(a, b, out=a)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) / a.nbytes


def rank_main(quick: bool) -> None:
    import tapeflow as tf
    from tapeflow.distribute import collective
    comm = collective.world()
    seconds = 0.5 if quick else 3.0
    result = {"ranks": comm.size}
    for name in WORKLOADS:
        result[name] = time_steps(name, comm, tf, seconds)
    if comm.size > 1:
        result["sweep"] = sweep(comm, 0.05 if quick else 0.3)
    result["add_s_per_byte"] = add_cost_per_byte()
    if comm.rank == 0:
        print("RESULT " + json.dumps(result), flush=True)


# ----------------------------------------------------------------------------------------------
# The driver: K = 1, 2, the fit and the table


def launch(k: int, quick: bool) -> dict:
    """Runs this file under `mpiexec -n k` (one BLAS thread per rank) and returns rank 0's
    results."""
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        sys.exit("the driver needs mpiexec: pip install 'tapeflow[mpi]'")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [mpiexec, "-n", str(k), sys.executable, os.path.abspath(__file__)]
    cmd += ["--quick"] if quick else []
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def fit_ring(rows: list, p: int, key: str) -> dict:
    """alpha (s) and beta (s/byte) of T = 2(p-1) alpha + 2(p-1)/p n beta, least squares on
    relative error (so the small messages fix alpha and the large ones beta)."""
    n = np.array([r["bytes"] for r in rows], float)
    t = np.array([r[key] for r in rows], float)
    design = np.stack([np.full_like(n, 2 * (p - 1)), 2 * (p - 1) / p * n], axis=1) / t[:, None]
    (alpha, beta), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    return {"alpha_s": float(alpha), "beta_s_per_byte": float(beta),
            "bandwidth_GB_s": float(1e-9 / beta) if beta > 0 else None}


# The ring allreduce model on a network (docs/distributed.md). Assumed, not measured here:
# the network's per-message latency and line rate, and the ResNet-50 step's compute time.
NET_ALPHA_S = 25e-6                 # one message over TCP on 25 GbE, MPI to MPI (assumed)
NET_BETA_S_PER_BYTE = 8 / 25e9      # 25 Gbit/s line rate (assumed)
RESNET50 = {"values": 25_583_592, "tensors": 214,   # Keras ResNet50's trainable weights
            "compute_s": 64 / 400.0,                # 64 images at 400 images/s (assumed)
            "backward_fraction": 2 / 3}             # backward ~2x the forward (assumed)
BIG_MLP_BACKWARD_FRACTION = 1.495 / 2.449           # backward's GEMM FLOPs / the step's
MODEL_WORKERS = (8, 64, 512)


def ring_s(p: int, nbytes: float, gamma: float, messages: int = 1) -> dict:
    """The terms of a ring allreduce of `nbytes` in `messages` separate calls at p workers:
    latency 2(p-1) alpha per call, bandwidth 2(p-1)/p n beta, reduction (p-1)/p n gamma."""
    terms = {"latency_s": messages * 2 * (p - 1) * NET_ALPHA_S,
             "bandwidth_s": 2 * (p - 1) / p * nbytes * NET_BETA_S_PER_BYTE,
             "reduction_s": (p - 1) / p * nbytes * gamma}
    return {**terms, "total_s": sum(terms.values())}


def ring_model(big_step: dict, gamma: float) -> list:
    """Per gradient and worker count: the allreduce's time, fused (one call) and one call per
    tensor, and the step's efficiency t_c / (t_c + exposed communication) fused without
    overlap, unfused, and fused with the allreduce overlapping the backward pass (exposed:
    what the backward does not hide). Weak scaling: each worker's batch, so t_c, is fixed."""
    from benchmarks import workloads as W
    big_values = sum(i * o + o for i, o in W.BIG_SIZES)
    cases = [("big MLP", big_values, 2 * len(W.BIG_SIZES),
              big_step["compute_s"] + big_step["apply_s"],
              BIG_MLP_BACKWARD_FRACTION * big_step["compute_s"], "measured here (1 rank)"),
             ("ResNet-50", RESNET50["values"], RESNET50["tensors"], RESNET50["compute_s"],
              RESNET50["backward_fraction"] * RESNET50["compute_s"], "assumed")]
    rows = []
    for name, values, tensors, t_c, t_bwd, source in cases:
        for p in MODEL_WORKERS:
            fused = ring_s(p, 4 * values, gamma)
            unfused = ring_s(p, 4 * values, gamma, messages=tensors)
            rows.append({
                "gradient": name, "values": values, "tensors": tensors, "workers": p,
                "compute_s": t_c, "backward_s": t_bwd, "compute_source": source,
                **fused, "unfused_total_s": unfused["total_s"],
                "efficiency_fused": t_c / (t_c + fused["total_s"]),
                "efficiency_unfused": t_c / (t_c + unfused["total_s"]),
                "efficiency_overlap": t_c / (t_c + max(0.0, fused["total_s"] - t_bwd)),
                # where the fused allreduce takes as long as the compute (50% efficiency)
                "half_efficiency_workers": 1 + (t_c - fused["bandwidth_s"]
                                                - fused["reduction_s"]) / (2 * NET_ALPHA_S)})
    return rows


def summarize(runs: dict) -> dict:
    """Scaling efficiency and allreduce share per workload and K; the fits of the sweep."""
    from benchmarks import workloads as W
    from benchmarks.report import machine
    one = runs[1]
    table = {}
    for name in WORKLOADS:
        batch = W.MLP_BATCH if name == "mlp" else W.BIG_BATCH
        table[name] = {}
        for k, run in runs.items():
            r = run[name]
            table[name][k] = {
                "step_s": r["step_s"], "compute_s": r["compute_s"],
                "allreduce_s": r["allreduce_s"], "apply_s": r["apply_s"],
                "allreduce_share": r["allreduce_s"] / r["step_s"],
                "examples_per_s": batch / r["step_s"],
                "efficiency": one[name]["step_s"] / (k * r["step_s"])}
    two = runs.get(2, {})
    fits = {}
    if "sweep" in two:
        fits = {who: fit_ring(two["sweep"], 2, f"{who}_s")
                for who in ("tapeflow", "mpi4py", "mpi4py_nonblocking")}
    return {"machine": machine({}), "runs": {str(k): v for k, v in runs.items()},
            "scaling": {n: {str(k): v for k, v in t.items()} for n, t in table.items()},
            "sweep": two.get("sweep", []), "fit_p2": fits,
            "add_s_per_byte": one["add_s_per_byte"],
            "network_assumed": {"alpha_s": NET_ALPHA_S,
                                "beta_s_per_byte": NET_BETA_S_PER_BYTE},
            "ring_model": ring_model(one["big"], one["add_s_per_byte"])}


def print_table(result: dict) -> None:
    from benchmarks.report import fmt_time
    print(f"{'workload':10s} {'ranks':>5s} {'step':>9s} {'compute':>9s} {'allreduce':>9s} "
          f"{'apply':>9s} {'share':>6s} {'examples/s':>11s} {'efficiency':>10s}")
    for name, per_k in result["scaling"].items():
        for k, r in per_k.items():
            print(f"{name:10s} {k:>5s} {fmt_time(r['step_s']):>9s} "
                  f"{fmt_time(r['compute_s']):>9s} {fmt_time(r['allreduce_s']):>9s} "
                  f"{fmt_time(r['apply_s']):>9s} {r['allreduce_share']:6.1%} "
                  f"{r['examples_per_s']:11.0f} {r['efficiency']:10.1%}")
    if result["sweep"]:
        print("\nallreduce(sum) of float32, 2 ranks:")
        print(f"{'bytes':>10s} {'tapeflow':>10s} {'Allreduce':>10s} {'Iallreduce':>10s}")
        for r in result["sweep"]:
            print(f"{r['bytes']:10d} {fmt_time(r['tapeflow_s']):>10s} "
                  f"{fmt_time(r['mpi4py_s']):>10s} {fmt_time(r['mpi4py_nonblocking_s']):>10s}")
        for who, f in result["fit_p2"].items():
            print(f"ring fit ({who}): alpha {fmt_time(f['alpha_s'])}, beta "
                  f"{f['beta_s_per_byte'] * 1e9:.3f} ns/B ({f['bandwidth_GB_s']:.2f} GB/s)")
    print(f"reduction (NumPy add, float32): {result['add_s_per_byte'] * 1e9:.3f} ns/B")
    print(f"\nring allreduce at 25 Gbit/s (alpha {fmt_time(NET_ALPHA_S)} assumed):")
    print(f"{'gradient':10s} {'p':>4s} {'latency':>9s} {'bandwidth':>9s} {'reduce':>9s} "
          f"{'total':>9s} {'unfused':>9s} {'compute':>9s} {'eff':>5s} {'unfused':>7s} "
          f"{'overlap':>7s} {'p at 50%':>8s}")
    for r in result["ring_model"]:
        print(f"{r['gradient']:10s} {r['workers']:4d} {fmt_time(r['latency_s']):>9s} "
              f"{fmt_time(r['bandwidth_s']):>9s} {fmt_time(r['reduction_s']):>9s} "
              f"{fmt_time(r['total_s']):>9s} {fmt_time(r['unfused_total_s']):>9s} "
              f"{fmt_time(r['compute_s']):>9s} {r['efficiency_fused']:5.0%} "
              f"{r['efficiency_unfused']:7.0%} {r['efficiency_overlap']:7.0%} "
              f"{r['half_efficiency_workers']:8.0f}")


def driver(quick: bool) -> None:
    load_start = os.getloadavg()[0]
    start = time.perf_counter()
    runs = {k: launch(k, quick) for k in (1, 2)}
    result = summarize(runs)
    result["machine"]["load_average"] = {"start": [round(load_start, 2)],
                                         "end": [round(os.getloadavg()[0], 2)]}
    result.update(date=time.strftime("%Y-%m-%d %H:%M"), quick=quick,
                  command="python benchmarks/bench_distributed.py --driver"
                  + (" --quick" if quick else ""), wall_s=time.perf_counter() - start)
    print_table(result)
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.relpath(RESULTS)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", action="store_true",
                        help="launch K = 1 and 2 under mpiexec and write the results")
    parser.add_argument("--quick", action="store_true", help="short timings (a smoke run)")
    args = parser.parse_args()
    if args.driver:
        driver(args.quick)
    else:
        rank_main(args.quick)


if __name__ == "__main__":
    main()
