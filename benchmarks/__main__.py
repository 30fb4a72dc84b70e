"""`python -m benchmarks`: every workload on every installed system, in one run.

Each library runs in its own worker process (benchmarks/worker.py). For each workload, every
system builds its step from the same data and initial weights, then the systems are timed in
interleaved rounds (round 1: A, B, C, ...; round 2: A, B, C, ...), so that the machine's
drifts hit all alike; the table gives the median over rounds. Then the big step's peak memory
and each library's import time, in fresh subprocesses. Writes DIR/latest.json, DIR/latest.png
(where matplotlib imports); `--readme` then puts its table into README.md.

    python -m benchmarks [--quick] [--only chain,mlp,...] [--systems tapeflow,numpy,...]
                         [--out DIR] [--rounds N]
    python -m benchmarks --markdown    # print README's Speed section from DIR/latest.json
    python -m benchmarks --readme      # rewrite README.md's Speed section from it
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import report, systems
from benchmarks import workloads as W

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETUP_TIMEOUT_S = 150      # a first call (trace, compile) that takes longer is skipped
MEMORY_PARALLEL = 3        # memory runs at once (RSS is theirs alone; time does not count)
TIME_TIMEOUT_S = 120


def child_env() -> dict:
    """The workers' environment: this checkout's src/ first, quiet TensorFlow."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    paths = [os.path.join(ROOT, "src"), ROOT] + env.get("PYTHONPATH", "").split(os.pathsep)
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return env


def load_avg() -> list:
    """The 1-minute load average (other jobs on a shared machine show here), or []."""
    try:
        return [round(os.getloadavg()[0], 2)]
    except OSError:
        return []


def progress(text: str) -> None:
    """A line that the next overwrites, on a terminal only."""
    if sys.stdout.isatty():
        print(text, end="\r", flush=True)


class WorkerProcess:
    """A worker subprocess and its request/reply pipe (one JSON line each way)."""

    def __init__(self, group: str, logdir: str) -> None:
        self.group = group
        self.log_path = os.path.join(logdir, f"{group}.log")
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.worker", group], cwd=ROOT, env=child_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.hello = None

    def read(self, timeout: float) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            why = f"worker {'timed out' if not ready else 'exited'} ({self.tail()})"
            self.close(kill=True)
            return {"ok": False, "error": why, "dead": True}
        return json.loads(line)

    def started(self, timeout: float = 120) -> dict:
        if self.hello is None:
            self.hello = self.read(timeout)
        return self.hello

    def request(self, timeout: float, **msg) -> dict:
        if self.proc.poll() is not None:
            return {"ok": False, "error": "worker gone", "dead": True}
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self.read(timeout)

    def tail(self) -> str:
        self.log.flush()
        with open(self.log_path) as f:
            lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
        return lines[-1][:200] if lines else "no output"

    def close(self, kill: bool = False) -> None:
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                try:
                    self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                    self.proc.stdin.flush()
                    self.proc.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
        self.proc.wait()
        self.log.close()


class Run:
    """One run of the suite: its workers, options and results."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.logdir = tempfile.mkdtemp(prefix="benchmarks-")
        self.systems = [s for s in systems.SYSTEMS if s.id in args.systems
                        or s.group in args.systems
                        or ("all" in args.systems and s.group not in systems.OPT_IN)]
        self.workers: dict = {}
        self.versions: dict = {}
        self.missing: dict = {}
        self.notes: list = []

    def note(self, text: str) -> None:
        print(f"  note: {text}", flush=True)
        self.notes.append(text)

    def start_workers(self) -> None:
        """Starts every group's worker at once (imports overlap), then collects hellos."""
        for group, why in systems.OPT_IN.items():
            if group not in (s.group for s in self.systems):
                self.note(why)
        groups = dict.fromkeys(s.group for s in self.systems)
        pending = {g: WorkerProcess(g, self.logdir) for g in groups}
        for group, worker in pending.items():
            hello = worker.started()
            if hello.get("ok"):
                self.workers[group] = worker
                self.versions[group] = hello["version"]
            else:
                worker.close(kill=True)
                self.missing[group] = hello["error"]
                self.note(f"{systems.GROUP_LABEL[group]} skipped: {hello['error']}")

    def worker(self, group: str):
        """The group's live worker, restarted if an earlier timeout killed it."""
        if group in self.missing:
            return None
        worker = self.workers[group]
        if worker.proc.poll() is not None:
            worker = self.workers[group] = WorkerProcess(group, self.logdir)
            if not worker.started().get("ok"):
                return None
        return worker

    def timed(self, workload: W.Workload) -> dict:
        """Sets up every system's step for `workload`, times them in interleaved rounds."""
        print(f"{workload.title}", flush=True)
        cells, skipped, results = [], {}, {}
        for s in self.systems:
            if s.mode not in workload.modes and s.mode != "floor":
                continue
            worker = self.worker(s.group)
            if worker is None:
                continue
            progress(f"  {s.name:24s} setting up")
            reply = worker.request(SETUP_TIMEOUT_S, cmd="setup", workload=workload.name,
                                   mode=s.mode, warm_s=self.args.sample_s)
            progress(" " * 40)
            if reply.get("unsupported"):
                skipped[s.id] = "not available"
            elif not reply["ok"]:
                skipped[s.id] = reply["error"][:300]
                self.note(f"{s.name} on {workload.name} failed: {skipped[s.id]}")
                if "timed out" in reply["error"]:      # too slow to set up here: drop it
                    self.missing[s.group] = reply["error"]
            else:
                number = max(1, round(self.args.sample_s / max(reply["per_call_s"], 1e-9)))
                results[s.id] = {"number": number, "samples_s": [],
                                 "first_call_s": reply["first_call_s"],
                                 "check": reply["check"]}
                cells.append(s)
        for _ in range(self.args.rounds):
            for s in list(cells):
                entry = results[s.id]
                time.sleep(self.args.settle_s)   # the last worker's BLAS threads stop spinning
                reply = self.workers[s.group].request(
                    TIME_TIMEOUT_S, cmd="time", workload=workload.name, mode=s.mode,
                    number=entry["number"])
                if reply["ok"]:
                    entry["samples_s"].append(reply["seconds"])
                else:
                    skipped[s.id] = reply["error"][:300]
                    self.note(f"{s.name} on {workload.name} failed: {skipped[s.id]}")
                    cells.remove(s)
                    del results[s.id]
        for s in cells:
            results[s.id]["median_s"] = statistics.median(results[s.id]["samples_s"])
        self.check_agreement(workload, results)
        for group in dict.fromkeys(s.group for s in cells):
            self.workers[group].request(60, cmd="drop", workload=workload.name)
        entry = {"title": workload.title, "results": results, "skipped": skipped}
        report.add_ratios(entry)
        report.print_workload(entry, systems.BY_ID)
        return entry

    def check_agreement(self, workload: W.Workload, results: dict) -> None:
        """Notes a system whose first result (loss, gradient, Hessian sum) differs from the
        others' beyond float32 noise: its step is not the same computation."""
        checks = {sid: r["check"] for sid, r in results.items()}
        if len(checks) < 2:
            return
        middle = statistics.median(checks.values())
        for sid, value in checks.items():
            if abs(value - middle) > 1e-3 * max(abs(middle), 1e-6):
                self.note(f"{systems.BY_ID[sid].name} on {workload.name}: first result "
                          f"{value:.6g}, the others' median {middle:.6g}")

    def memory(self, ran_big: dict) -> dict:
        """Peak RSS growth of the big step, each system in a fresh subprocess."""
        print(W.EXTRA["memory"], flush=True)
        steps = 2 if self.args.quick else 3
        chosen = [s for s in self.systems if s.group not in self.missing
                  and (not ran_big or s.id in ran_big["results"])]

        def measure(s: systems.System) -> dict:
            try:
                proc = subprocess.run(
                    [sys.executable, "-m", "benchmarks.worker", s.group, "--memory", s.id,
                     str(steps)], cwd=ROOT, env=child_env(), capture_output=True, text=True,
                    timeout=SETUP_TIMEOUT_S)
                return json.loads(proc.stdout.strip().splitlines()[-1])
            except (subprocess.TimeoutExpired, IndexError, ValueError) as e:
                return {"ok": False, "error": type(e).__name__}
        with concurrent.futures.ThreadPoolExecutor(MEMORY_PARALLEL) as pool:
            replies = list(pool.map(measure, chosen))
        results, skipped = {}, {}
        for s, reply in zip(chosen, replies):
            if not reply.get("ok"):
                skipped[s.id] = reply["error"]
                self.note(f"{s.name}: memory measurement failed ({skipped[s.id]})")
                continue
            results[s.id] = {"growth_mib": reply["growth_mib"], "setup_mib": reply["setup_mib"]}
            print(f"  {s.name:24s} {reply['growth_mib']:8.1f} MiB", flush=True)
        return {"title": W.EXTRA["memory"], "steps": steps, "results": results,
                "skipped": skipped}

    def imports(self) -> dict:
        """`python -c "import X"` wall time, min of 4 with bytecode cached as an installed package
        has it (the first run writes it), for each library (and bare Python)."""
        print(W.EXTRA["import"], flush=True)
        modules = {"python": None}
        for s in self.systems:
            if s.group not in self.missing and s.group != "torch_compile":
                modules.setdefault(s.group, systems.GROUP_MODULE[s.group])
        results = {}
        # As an installed package imports: with its bytecode cached (a warm-up run writes it).
        env = {k: v for k, v in child_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
        for label, module in modules.items():
            code = f"import {module}" if module else "pass"
            times = []
            for _ in range(2 if self.args.quick else 4):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                               capture_output=True, check=True)
                times.append(time.perf_counter() - start)
            results[label] = min(times)
            print(f"  {label:24s} {results[label]:8.3f} s", flush=True)
        return {"title": W.EXTRA["import"], "results": results}

    def execute(self) -> dict:
        start, date, load = time.perf_counter(), time.strftime("%Y-%m-%d %H:%M %Z"), load_avg()
        names = self.args.only or [w.name for w in W.WORKLOADS] + list(W.EXTRA)
        self.start_workers()
        timed = {}
        try:
            for workload in W.WORKLOADS:
                if workload.name in names:
                    timed[workload.name] = self.timed(workload)
        finally:
            for worker in self.workers.values():
                worker.close()
        result = {"date": date,
                  "command": " ".join(["python -m benchmarks"] + sys.argv[1:]),
                  "quick": self.args.quick, "rounds": self.args.rounds,
                  "sample_s": self.args.sample_s,
                  "machine": report.machine(self.versions),
                  "systems": {s.id: {"name": s.name, "mode": s.mode, "group": s.group,
                                     "version": self.versions.get(s.group)}
                              for s in self.systems if s.group in self.versions},
                  "workloads": timed, "not_yet": W.NOT_YET}
        if "memory" in names:
            result["memory"] = self.memory(timed.get("big"))
        if "import" in names:
            result["import"] = self.imports()
        result["notes"] = self.notes
        result["wall_s"] = time.perf_counter() - start
        result["machine"]["load_average"] = {"start": load, "end": load_avg()}
        return result


def parse(argv: list) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="few short rounds: a smoke run")
    p.add_argument("--only", type=lambda v: v.split(","), default=None,
                   help="workloads to run: " + ",".join([w.name for w in W.WORKLOADS]
                                                        + list(W.EXTRA)))
    p.add_argument("--systems", type=lambda v: v.split(","), default=["all"],
                   help="systems or libraries (default: all but torch_compile): "
                        + ",".join(s.id for s in systems.SYSTEMS))
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results"))
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (default 7)")
    p.add_argument("--markdown", action="store_true",
                   help="print README's Speed section from OUT/latest.json, without running")
    p.add_argument("--readme", action="store_true",
                   help="rewrite README.md's Speed section from OUT/latest.json, without running")
    args = p.parse_args(argv)
    known = {w.name for w in W.WORKLOADS} | set(W.EXTRA)
    for name in args.only or []:
        if name not in known:
            p.error(f"unknown workload {name!r}; known: {', '.join(sorted(known))}")
    args.rounds = args.rounds or (3 if args.quick else 7)
    args.sample_s = 0.02 if args.quick else 0.2
    args.settle_s = 0.01 if args.quick else 0.1   # pause between samples: idle OpenBLAS
    # threads spin ~0.1 s, which would steal a core from the next system's sample
    return args


def main(argv: list) -> None:
    args = parse(argv)
    json_path = os.path.join(args.out, "latest.json")
    if args.markdown or args.readme:
        with open(json_path) as f:
            result = json.load(f)
        if args.markdown:
            print(report.markdown(result))
        else:
            report.update_readme(os.path.join(ROOT, "README.md"), report.markdown(result))
            print("README.md: Speed section rewritten from", json_path)
        return
    result = Run(args).execute()
    os.makedirs(args.out, exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(result, f, indent=1)
    chart = report.chart(result, os.path.join(args.out, "latest.png"))
    report.print_summary(result)
    print(f"wrote {json_path}" + (f", {chart}" if chart else " (no matplotlib: no chart)")
          + f" in {result['wall_s']:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
