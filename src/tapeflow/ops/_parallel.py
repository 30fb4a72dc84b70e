"""One large op's batch split across the machine's cores.

NumPy runs an elementwise pass or a copy on one core, and a BLAS product on the BLAS pool,
whose threads wait for a busy core on a loaded machine. A convolution is mostly such passes
(im2col copies, scatters, masks) around one product per call, so splitting its batch into
one part per core, each part's product on a single BLAS thread, keeps every core busy for the
whole op. NumPy releases the GIL in both, so plain Python threads suffice.

While parts run the BLAS pool is capped at one thread (else each part's product would start a
pool of its own on the same cores), and restored when the last concurrent split ends.
`tf.config.threading.set_intra_op_parallelism_threads(1)` turns splitting off.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Optional, Sequence

from tapeflow.framework.device import runtime

# Below this many multiply-adds (or element visits) per part, handing a part to a thread
# costs more than the part saves (a hand-off is ~20 us; a part of 2**20 takes ~1 ms).
MIN_WORK_PER_PART = 1 << 20

_lock = threading.Lock()
_pool: Any = None             # a concurrent.futures.ThreadPoolExecutor, made on first use
_pool_threads: set = set()   # the pool's threads, which run kernels only
_blas: Optional[list] = None  # threadpoolctl's BLAS controllers, found on first use
_capped = 0                   # splits running now; the first caps BLAS, the last restores
_saved: list = []


def intra_op_threads() -> int:
    """The size of TensorFlow's intra-op thread pool: the count tf.config.threading set
    (kept on the framework's runtime), else TF_NUM_INTRAOP_THREADS, else the CPUs this
    process may run on."""
    threads = runtime.intra_op_threads
    if threads > 0:
        return threads
    try:
        threads = int(os.environ.get("TF_NUM_INTRAOP_THREADS", "0"))
    except ValueError:
        threads = 0
    if threads > 0:
        return threads
    if hasattr(os, "sched_getaffinity"):     # Linux: the CPUs this process may run on
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def part_count(batch: int, work: int) -> int:
    """How many parts to split a batch of `batch` items into, for an op doing `work`
    multiply-adds (or element visits) in all (1: run it whole)."""
    return max(min(intra_op_threads(), batch, work // MIN_WORK_PER_PART), 1)


def batch_slices(batch: int, parts: int) -> list:
    """`parts` contiguous slices covering range(batch), as even as can be."""
    bounds = [batch * i // parts for i in range(parts + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def run_parts(fn: Callable[[slice], Any], slices: Sequence[slice]) -> list:
    """`[fn(s) for s in slices]`, the parts at once: all but the last on the pool, the last on
    this thread. An exception in any part is raised here, after every part has ended. From a
    pool thread (a part splitting again) the parts run one after another: no thread waits
    for a pool it belongs to."""
    if len(slices) == 1 or threading.current_thread() in _pool_threads:
        return [fn(s) for s in slices]
    pool = _ensure_pool()
    _cap_blas()
    try:
        futures = [pool.submit(_in_pool, fn, s) for s in slices[:-1]]
        try:
            last = fn(slices[-1])
        finally:
            for future in futures:
                future.exception()  # waits for it to end
        return [f.result() for f in futures] + [last]
    finally:
        _restore_blas()


def other_threads_running() -> bool:
    """Whether a thread other than this one and the split pool's may be running Python (and
    so could take a reference to an array in place updates are about to write)."""
    return threading.active_count() != 1 + len(_pool_threads)


def _ensure_pool() -> Any:
    """The pool, made once with a thread per core but this one (the thread count is fixed
    from the first op on, as TensorFlow's)."""
    global _pool
    from concurrent.futures import ThreadPoolExecutor  # here: `import tapeflow` stays fast
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(intra_op_threads() - 1, 1),
                                       thread_name_prefix="tapeflow-part")
        return _pool


def _in_pool(fn: Callable[[slice], Any], part: slice) -> Any:
    _pool_threads.add(threading.current_thread())  # started lazily: noted on first task
    return fn(part)


def _cap_blas() -> None:
    global _capped, _blas
    with _lock:
        if _capped == 0:
            if _blas is None:
                from threadpoolctl import ThreadpoolController  # here: import stays fast
                _blas = ThreadpoolController().select(user_api="blas").lib_controllers
            _saved[:] = [lib.get_num_threads() for lib in _blas]
            for lib in _blas:
                lib.set_num_threads(1)
        _capped += 1


def _restore_blas() -> None:
    global _capped
    with _lock:
        _capped -= 1
        if _capped == 0:
            for lib, threads in zip(_blas, _saved):
                lib.set_num_threads(threads)
