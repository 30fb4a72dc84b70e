"""Test configuration: make `src/` importable when tapeflow is not installed; shared fixtures."""

import os
import sys
import threading

import pytest

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
try:
    import tapeflow  # noqa: F401
except ImportError:  # running from a checkout without `pip install .`
    sys.path.insert(0, _SRC)


def _hammer(update, threads: int = 2, times: int = 5000) -> None:
    """Runs `update()` `times` times in each of `threads` threads, switching threads as often
    as the interpreter allows (a lost update shows within a few hundred calls)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=lambda: [update() for _ in range(times)])
                   for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)


@pytest.fixture
def hammer():
    """`hammer(update, threads=2, times=5000)`: concurrent calls, for atomicity tests."""
    return _hammer


@pytest.fixture(autouse=True)
def _global_state_reset_after_each_test():
    """A test that sets global state (the global seed, Keras's floatx or dtype policy) does
    not decide what the tests after it see: results that depend on test order hide. (Keras
    fixes its global policy when the first layer is made, so a later set_floatx alone would
    not reach the next test's layers.)"""
    yield
    from tapeflow.keras import backend, mixed_precision
    from tapeflow.ops.random_ops import get_global_seed, set_seed
    if get_global_seed() is not None:
        set_seed(None)
    if backend.floatx() != "float32":
        backend.set_floatx("float32")
    mixed_precision._GLOBAL[0] = None
