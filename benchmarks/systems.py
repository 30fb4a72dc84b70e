"""The systems compared, and how each worker process loads its library.

A system is a library in one mode ("floor", "eager" or "compiled"). Systems of one library
share a worker process (`group`), except `torch.compile`, which gets its own so that a compile
that hangs can be killed without losing PyTorch eager."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class System:
    id: str
    name: str
    group: str
    mode: str


SYSTEMS = [
    System("numpy", "NumPy (floor)", "numpy", "floor"),
    System("tapeflow", "tapeflow eager", "tapeflow", "eager"),
    System("tapeflow_fn", "tapeflow tf.function", "tapeflow", "compiled"),
    System("tensorflow", "TensorFlow eager", "tensorflow", "eager"),
    System("tensorflow_fn", "TensorFlow tf.function", "tensorflow", "compiled"),
    System("torch", "PyTorch eager", "torch", "eager"),
    System("torch_compile", "PyTorch torch.compile", "torch_compile", "compiled"),
    System("jax", "JAX eager", "jax", "eager"),
    System("jax_jit", "JAX jit", "jax", "compiled"),
    System("autograd", "autograd", "autograd", "eager"),
]
BY_ID = {s.id: s for s in SYSTEMS}
# Run only when asked for (--systems ...,torch_compile): on this 2-core CPU, compiling took
# 24 s for the seed MLP (quiet machine) and had not finished the CNN after ~400 s (loaded
# machine); the compiled MLP step ran slower than eager (0.93 ms against 0.62 ms), and the
# 100-op chain did not compile within 150 s.
OPT_IN = {"torch_compile": "PyTorch torch.compile is not run by default: its CPU compiles take "
                           "24 s to minutes per model here (add --systems all,torch_compile)"}
GROUP_MODULE = {"numpy": "numpy", "tapeflow": "tapeflow", "tensorflow": "tensorflow",
                "torch": "torch", "torch_compile": "torch", "jax": "jax", "autograd": "autograd"}
GROUP_LABEL = {"numpy": "NumPy", "tapeflow": "tapeflow", "tensorflow": "TensorFlow",
               "torch": "PyTorch", "torch_compile": "PyTorch torch.compile", "jax": "JAX",
               "autograd": "autograd"}
PEER_GROUPS = ("tensorflow", "torch", "torch_compile", "jax", "autograd")


def version(module_name: str) -> str:
    """The installed version of `module_name` (its distribution's, where it has no
    `__version__`)."""
    module = importlib.import_module(module_name)
    found = getattr(module, "__version__", None)
    if found is None:
        found = importlib.metadata.version(module_name)
    return str(found)


def load(group: str) -> Callable[[str, str], Optional[Callable]]:
    """Imports `group`'s library (ImportError where it is missing) and returns its
    `build(workload, mode)`: a zero-argument step, or None where the system has no such
    step."""
    if group == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    lib = importlib.import_module(GROUP_MODULE[group])
    if group == "numpy":
        from benchmarks import floor
        return floor.build
    if group in ("tapeflow", "tensorflow"):
        from benchmarks import tfapi
        return functools.partial(tfapi.build, lib)
    from benchmarks import peers
    build = {"torch": peers.torch_build, "torch_compile": peers.torch_build,
             "jax": peers.jax_build, "autograd": peers.autograd_build}[group]
    return build
