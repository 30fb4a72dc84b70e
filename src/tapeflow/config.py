"""`tf.config`: the devices tapeflow runs on (one CPU), threading, and function execution.

The settings behave as TensorFlow's: visible devices and thread pools can change only until
the runtime initializes (the first op, `list_logical_devices`, or an eager `tf.device`
scope; `framework/device.py`), after which a change raises TensorFlow's RuntimeError.
`tf.config.experimental`, `.threading` and `.optimizer` are namespaces filled below.
"""

# Imported under private names: this module is the `tf.config` namespace.
import operator as _operator
import sys as _sys
import types as _types
from typing import Any as _Any
from typing import Optional as _Optional

import tapeflow.function as _function  # noqa: F401 - declares tf.config.run_functions_eagerly
from tapeflow.framework.device import CPU as _CPU
from tapeflow.framework.device import LOGICAL_CPU as _LOGICAL_CPU
from tapeflow.framework.device import PhysicalDevice  # tf.config.PhysicalDevice
from tapeflow.framework.device import runtime as _runtime
from tapeflow.framework.exports import exported as _exported
from tapeflow.framework.exports import populate as _populate
from tapeflow.framework.exports import tf_export as _tf_export

_PHYSICAL_DEVICES = (_CPU,)


def _of_type(devices: _Any, device_type: _Optional[str]) -> list:
    return [d for d in devices if device_type is None or d.device_type == device_type]


def _unrecognized(device: _Any) -> ValueError:
    return ValueError(f"Unrecognized device: {device!r}")


# ---------------------------------------------------------------------------------------
# devices


@_tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type: _Optional[str] = None) -> list:
    """The physical devices of `device_type` (`"CPU"`, `"GPU"`, ...; all when None): the one
    CPU, `[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]`."""
    return _of_type(_PHYSICAL_DEVICES, device_type)


@_tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type: _Optional[str] = None) -> list:
    """The logical devices of `device_type` the runtime places ops on (initializes it, as
    in TensorFlow): `[LogicalDevice(name='/device:CPU:0', device_type='CPU')]`."""
    _runtime.initialize()
    return _of_type((_LOGICAL_CPU,), device_type)


@_tf_export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type: _Optional[str] = None) -> list:
    """The physical devices of `device_type` the runtime may use."""
    return _of_type(_runtime.visible_devices, device_type)


@_tf_export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices: _Any, device_type: _Optional[str] = None) -> None:
    """Sets the visible devices of `device_type` (all types when None) to `devices` (a
    PhysicalDevice or a list of them). Hiding the CPU leaves nothing to run on (ops then
    raise NotFoundError, as in TensorFlow). Raises ValueError for a device that is not one
    of `list_physical_devices(device_type)`, and RuntimeError for a change once the runtime
    has initialized."""
    if not isinstance(devices, list):
        devices = [devices]
    for d in devices:
        if d not in _PHYSICAL_DEVICES or device_type is not None and \
                d.device_type != device_type:
            raise _unrecognized(d)
    kept = [] if device_type is None else \
        [d for d in _runtime.visible_devices if d.device_type != device_type]
    visible = kept + devices
    if visible == _runtime.visible_devices:
        return
    if _runtime.initialized:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    _runtime.visible_devices = visible


def _check_physical(device: _Any) -> None:
    if device not in _PHYSICAL_DEVICES:
        raise _unrecognized(device)


@_tf_export("config.experimental.get_memory_growth")
def get_memory_growth(device: PhysicalDevice) -> bool:
    """Whether memory growth is on for a GPU. A CPU has no such setting: KeyError, as in
    TensorFlow."""
    _check_physical(device)
    raise KeyError(device)


@_tf_export("config.experimental.set_memory_growth")
def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    """Memory growth is a GPU setting; for the CPU this raises TensorFlow's ValueError."""
    _check_physical(device)
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


@_tf_export("config.experimental.get_device_details")
def get_device_details(device: PhysicalDevice) -> dict:
    """Details of a physical device (`{}` for a CPU, as in TensorFlow)."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"device must be a tf.config.PhysicalDevice, but got: {device}")
    if device not in _PHYSICAL_DEVICES:
        raise ValueError(f"The PhysicalDevice must be one obtained from calling "
                         f"`tf.config.list_physical_devices`, but got: {device}")
    return {}


@_tf_export("config.set_soft_device_placement")
def set_soft_device_placement(enabled: bool) -> None:
    """Whether ops under `tf.device` of a device that is not there run on the CPU (the
    default) instead of raising InvalidArgumentError."""
    _runtime.soft_placement = bool(enabled)


@_tf_export("config.get_soft_device_placement")
def get_soft_device_placement() -> bool:
    """Whether soft device placement is on (True by default)."""
    return _runtime.soft_placement


# ---------------------------------------------------------------------------------------
# threading: the intra-op pool is the BLAS library's (NumPy's matmuls and decompositions);
# tapeflow runs one op at a time, so the inter-op setting is recorded only.

_threads = {"intra": 0, "inter": 0}
_blas_limiter: list = []  # the threadpoolctl limiter in force, if any


def _limit_blas_threads(num_threads: int) -> None:
    """Caps the BLAS pools at `num_threads` (0 or less: their own default again)."""
    from threadpoolctl import threadpool_limits  # here, so `import tapeflow` stays fast
    while _blas_limiter:
        _blas_limiter.pop().restore_original_limits()
    if num_threads > 0:
        _blas_limiter.append(threadpool_limits(limits=num_threads, user_api="blas"))


def _set_threads(kind: str, num_threads: _Any, what: str) -> None:
    num_threads = _operator.index(num_threads)  # TF's TypeError for 2.5 or "2"
    if num_threads == _threads[kind]:
        return
    if _runtime.initialized:
        raise RuntimeError(f"{what} parallelism cannot be modified after initialization.")
    if kind == "intra":
        _limit_blas_threads(num_threads)
        _runtime.intra_op_threads = num_threads
    _threads[kind] = num_threads


@_tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets the threads one op may use (0: the system picks): tapeflow caps NumPy's BLAS
    thread pools (matmul, linear algebra) with threadpoolctl. Only before the first op, as
    in TensorFlow (RuntimeError after)."""
    _set_threads("intra", num_threads, "Intra op")


@_tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads() -> int:
    """The threads one op may use (0: the system picks)."""
    return _threads["intra"]


@_tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Sets how many ops may run at once (0: the system picks). Recorded, with TensorFlow's
    checks, but without effect: tapeflow runs one op at a time."""
    _set_threads("inter", num_threads, "Inter op")


@_tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads() -> int:
    """How many ops may run at once (0: the system picks)."""
    return _threads["inter"]


# ---------------------------------------------------------------------------------------
# flags tapeflow accepts and reports, with no effect on what it computes

_flags = {"jit": False, "op_determinism": False, "tensor_float_32": True}


@_tf_export("config.optimizer.set_jit")
def set_jit(enabled: _Any) -> None:
    """Turns XLA auto-clustering on (True or `"autoclustering"`) or off. Accepted with no
    effect: tapeflow has no XLA; tf.function compiles its graphs to NumPy either way."""
    _flags["jit"] = enabled in (True, "autoclustering")


@_tf_export("config.optimizer.get_jit")
def get_jit() -> str:
    """`"autoclustering"` when `set_jit` turned it on, else `""` (as TensorFlow)."""
    return "autoclustering" if _flags["jit"] else ""


@_tf_export("config.experimental.enable_op_determinism")
def enable_op_determinism() -> None:
    """Asks for deterministic ops. tapeflow's NumPy kernels already are (the same inputs
    and seeds give the same numbers), so this records the request only; TensorFlow
    additionally refuses some ops that have no deterministic kernel."""
    _flags["op_determinism"] = True


@_tf_export("config.experimental.enable_tensor_float_32_execution")
def enable_tensor_float_32_execution(enabled: bool) -> None:
    """TensorFloat-32 is a GPU matmul mode; float32 on the CPU is exact float32 either way,
    so this only sets what `tensor_float_32_execution_enabled` reports."""
    _flags["tensor_float_32"] = bool(enabled)


@_tf_export("config.experimental.tensor_float_32_execution_enabled")
def tensor_float_32_execution_enabled() -> bool:
    """Whether TensorFloat-32 is allowed (True by default, as TensorFlow)."""
    return _flags["tensor_float_32"]


# ---------------------------------------------------------------------------------------
# the namespaces


def _namespace(name: str) -> _types.ModuleType:
    """`tf.config.<name>` as a module filled from the `config.<name>.*` declarations (also
    importable as `tapeflow.config.<name>`)."""
    module = _types.ModuleType(f"{__name__}.{name}", f"`tf.config.{name}`.")
    _populate(vars(module), f"config.{name}")
    _sys.modules[module.__name__] = module
    return module


experimental = _namespace("experimental")
threading = _namespace("threading")
optimizer = _namespace("optimizer")

# The functions defined above that TensorFlow has only in a sub-namespace
# (tf.config.optimizer.get_jit, not tf.config.get_jit) leave this one.
for _name in {name for module in (experimental, threading, optimizer) for name in
              module.__all__} - set(_exported("config")):
    del globals()[_name]

_populate(globals(), "config")
__all__ += ["experimental", "threading", "optimizer"]  # noqa: F821 - populate made __all__
