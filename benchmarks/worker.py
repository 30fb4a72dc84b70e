"""A worker process: one library, its steps built and timed on request.

    python -m benchmarks.worker GROUP            # JSON requests on stdin, one reply a line
    python -m benchmarks.worker GROUP --memory SYSTEM STEPS   # peak RSS growth of the big step

Each library runs in its own process, so that none pays for another's runtime (TensorFlow's,
once loaded, slows Python code and turns on flush-to-zero in its process). Replies go to the
original stdout; anything the libraries print goes to stderr.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback

from benchmarks import systems


def first_value(result) -> float:
    """A float from a step's result (a loss, a gradient, a sum), to compare across systems."""
    if hasattr(result, "detach"):
        result = result.detach()
    return float(result)


class Worker:
    def __init__(self, group: str) -> None:
        self.build = systems.load(group)
        self.steps: dict = {}

    def setup(self, workload: str, mode: str, warm_s: float = 0.2) -> dict:
        """Builds the step and runs it: the first call (trace or compile included), then
        warm calls for about `warm_s` seconds; replies with the per-call estimate."""
        start = time.perf_counter()
        step = self.build(workload, mode)
        if step is None:
            return {"ok": False, "unsupported": True}
        check = first_value(step())
        first = time.perf_counter() - start
        calls, start = 0, time.perf_counter()
        while calls < 2 or time.perf_counter() - start < warm_s:
            step()
            calls += 1
        self.steps[workload, mode] = step
        return {"ok": True, "check": check, "first_call_s": first,
                "per_call_s": (time.perf_counter() - start) / calls}

    def time(self, workload: str, mode: str, number: int) -> dict:
        step = self.steps[workload, mode]
        start = time.perf_counter()
        for _ in range(number):
            step()
        return {"ok": True, "seconds": (time.perf_counter() - start) / number}

    def drop(self, workload: str) -> dict:
        for key in [k for k in self.steps if k[0] == workload]:
            del self.steps[key]
        import gc
        gc.collect()
        return {"ok": True}


def serve(group: str, out) -> None:
    try:
        worker = Worker(group)
        reply = {"ok": True, "version": systems.version(systems.GROUP_MODULE[group])}
    except Exception as e:  # noqa: BLE001 - a missing or broken peer is reported, not raised
        reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        worker = None
    print(json.dumps(reply), file=out, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request.pop("cmd")
        if cmd == "quit" or worker is None:
            break
        try:
            reply = getattr(worker, cmd)(**request)
        except Exception as e:  # noqa: BLE001 - a step that fails is reported as skipped
            traceback.print_exc()
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), file=out, flush=True)


def memory(system_id: str, steps: int, out) -> None:
    """Peak RSS growth over `steps` big steps (the first included), after setup."""
    system = systems.BY_ID[system_id]
    step = systems.load(system.group)("big", system.mode)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(steps):
        step()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"ok": True, "setup_mib": before / 1024,       # ru_maxrss is in KiB
                      "growth_mib": (after - before) / 1024}), file=out, flush=True)


def main(argv: list) -> None:
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)                 # stray prints (Python or C) go to stderr, not the replies
    sys.stdout = sys.stderr
    if "--memory" in argv:
        memory(argv[2], int(argv[3]), out)
    else:
        serve(argv[0], out)


if __name__ == "__main__":
    main(sys.argv[1:])
