"""`tf.device`, `tf.DeviceSpec` and the device runtime: tapeflow has one device, the local CPU.

As TensorFlow's eager context, the runtime is configurable (visible devices, thread pools)
until it initializes: at the first kernel that runs, at `tf.config.list_logical_devices`, or
at the first eager `tf.device` scope. `tf.config` (the api layer) reads and sets `runtime`.
"""

from __future__ import annotations

import collections
import functools
import threading
from typing import Any, Optional

from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.exports import tf_export

# The device every eager tensor and variable reports (TensorFlow's name for the local CPU).
CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

PhysicalDevice = tf_export("config.PhysicalDevice")(
    collections.namedtuple("PhysicalDevice", ["name", "device_type"]))
PhysicalDevice.__doc__ = "A local device the process can see (`tf.config.PhysicalDevice`)."
LogicalDevice = tf_export("config.LogicalDevice")(
    collections.namedtuple("LogicalDevice", ["name", "device_type"]))
LogicalDevice.__doc__ = "A device the runtime places ops on (`tf.config.LogicalDevice`)."

CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
LOGICAL_CPU = LogicalDevice("/device:CPU:0", "CPU")


class _Runtime:
    """The process's device settings, fixed once `initialize` has run (TF's eager context)."""

    __slots__ = ("initialized", "visible_devices", "soft_placement", "intra_op_threads")

    def __init__(self) -> None:
        self.initialized = False
        self.visible_devices = [CPU]
        self.soft_placement = True
        # tf.config.threading's intra-op pool size (0: the system picks); kernels whose
        # numbers depend on TF's sharding across that pool (Multinomial) read it.
        self.intra_op_threads = 0

    def initialize(self) -> None:
        """TensorFlow's `ensure_initialized`: the settings become fixed. With the CPU hidden
        (`tf.config.set_visible_devices([], "CPU")`) nothing can run, as in TensorFlow."""
        if not self.initialized:
            if CPU not in self.visible_devices:
                raise NotFoundError("No CPU devices are available in this process")
            self.initialized = True


runtime = _Runtime()


def _initialize_at_first_kernel() -> None:
    """Makes the importing thread's first kernel initialize the runtime. The kernel runner
    is swapped for a one-shot one that puts the plain runner back, so later ops pay nothing.
    (Kernels of other threads do not initialize it: the main thread is the case that
    matters, as programs configure devices before their first op.)"""
    state = context.state
    quiet = state.run_kernel

    def first_kernel(fn: Any, *args: Any, **kwargs: Any) -> Any:
        runtime.initialize()  # raises while the CPU is hidden, keeping this runner
        state.run_kernel = quiet
        return quiet(fn, *args, **kwargs)

    state.run_kernel = first_kernel


_initialize_at_first_kernel()

_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


@functools.lru_cache(maxsize=256)
def _string_to_components(spec: Optional[str]) -> tuple:
    """(job, replica, task, device_type, device_index) of a device string, parsed as
    TensorFlow's DeviceSpec parses it (with its ValueErrors)."""
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for y in (part.split(":") for part in spec.split("/")):
        ly = len(y)
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] == "replica":
            replica = y[1]
        elif ly == 2 and y[0] == "task":
            task = y[1]
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES or ly == 3 and \
                y[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the "
                                 f"device spec: {spec}.")
            device_type, index = (y[0].upper(), y[1:]) if ly < 3 else (y[1], y[2:])
            if index and index[0] != "*":
                device_index = int(index[0])
        elif y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the "
                             f"device spec: '{spec}'.")
    return job, replica, task, device_type, device_index


@tf_export("DeviceSpec")
class DeviceSpec:
    """A (possibly partial) device specification: job, replica, task, device type and index
    (`tf.DeviceSpec`). Immutable; inner `tf.device` scopes merge over outer ones."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string")

    def __init__(self, job: Optional[str] = None, replica: Optional[int] = None,
                 task: Optional[int] = None, device_type: Optional[str] = None,
                 device_index: Optional[int] = None) -> None:
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = device_type.upper() if device_type in ("cpu", "gpu") else \
            None if device_type is None else str(device_type)
        self._device_index = None if device_index is None else int(device_index)
        parts = [f"/{key}:{value}" for key, value in
                 (("job", self._job), ("replica", self._replica), ("task", self._task))
                 if value is not None]
        if self._device_type is not None:
            index = "*" if self._device_index is None else self._device_index
            parts.append(f"/device:{self._device_type}:{index}")
        self._as_string = "".join(parts)

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        """Parses `/job:<name>/replica:<id>/task:<id>/device:<type>:<id>` (every part
        optional; `/CPU:0` is short for `/device:CPU:0`)."""
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec: str) -> "DeviceSpec":
        """A new DeviceSpec parsed from `spec` (as `from_string`; this one is unchanged)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        """This spec with every part that `dev` specifies taken from `dev`."""
        mine, theirs = self._components(), dev._components()
        return DeviceSpec(*(b if b is not None else a for a, b in zip(mine, theirs)))

    def replace(self, **kwargs: Any) -> "DeviceSpec":
        """This spec with the parts named in `kwargs` replaced."""
        names = ("job", "replica", "task", "device_type", "device_index")
        return DeviceSpec(**{**dict(zip(names, self._components())), **kwargs})

    def _components(self) -> tuple:
        return self._job, self._replica, self._task, self._device_type, self._device_index

    job = property(lambda self: self._job, doc="The job name, or None.")
    replica = property(lambda self: self._replica, doc="The replica index, or None.")
    task = property(lambda self: self._task, doc="The task index, or None.")
    device_type = property(lambda self: self._device_type, doc="The device type, or None.")
    device_index = property(lambda self: self._device_index, doc="The device index, or None.")

    def to_string(self) -> str:
        """The canonical string, `/job:<name>/replica:<id>/task:<id>/device:<type>:<id>`."""
        return self._as_string

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DeviceSpec) and self._as_string == other._as_string

    def __hash__(self) -> int:
        return hash(self._as_string)

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, "
                f"device_type={self._device_type}, device_index={self._device_index})>")


_DEFAULT_SPEC = DeviceSpec.from_string(CPU_DEVICE)
_EMPTY_SPEC = DeviceSpec()


class _Scopes(threading.local):
    """This thread's open device scopes, innermost last: (graph, merged spec) pairs, where
    graph is the trace the scope was entered in (None for eager)."""

    def __init__(self) -> None:
        self.stack: list = []


_scopes = _Scopes()


def _innermost(graph: Any) -> Optional[DeviceSpec]:
    """The spec of the innermost scope entered in `graph` (None: eager), or None."""
    for entry_graph, spec in reversed(_scopes.stack):
        if entry_graph is graph:
            return spec
    return None


def scope_device(graph: Any) -> str:
    """The device string TensorFlow gives a tensor made now inside the trace `graph`: the
    merged `tf.device` scopes entered in that trace (`""` outside any, `"/device:GPU:0"`
    under `tf.device("/GPU:0")`)."""
    spec = _innermost(graph)
    return "" if spec is None else spec.to_string()


def _check_placement(spec: DeviceSpec) -> None:
    """Refuses an eager scope no op could run in, with TensorFlow's errors (TensorFlow
    raises them at the scope's first op; tapeflow, at the scope)."""
    name = spec.to_string()
    if spec.job != "localhost" or spec.replica != 0 or spec.task != 0:
        raise InvalidArgumentError(f"{name} unknown device.")
    if spec.device_index is not None and spec.device_index < 0:
        raise InvalidArgumentError(f"Malformed device specification '{name}' in eager op")
    if spec.device_type != "CPU" or spec.device_index not in (None, 0):
        if not runtime.soft_placement:
            raise InvalidArgumentError(
                f"Could not satisfy device specification '{name}'. enable_soft_placement=0. "
                f"Supported device types [CPU]. All available devices [{CPU_DEVICE}].")


class _DeviceScope:
    """The context manager `tf.device` returns. Every op runs on the CPU whatever the scope
    (TensorFlow's soft placement); eager tensors made inside report the CPU as TensorFlow's
    do, and tensors traced by tf.function report the scope (`scope_device`)."""

    __slots__ = ("_device_name", "_entered")

    def __init__(self, device_name: Any) -> None:
        self._device_name = device_name
        self._entered: list = []

    def _spec(self, graph: Any) -> DeviceSpec:
        name = self._device_name
        if name is None:
            return _EMPTY_SPEC
        if isinstance(name, DeviceSpec) and graph is not None:  # graphs take specs too
            return name
        if not isinstance(name, str):
            raise ValueError(f"Expecting a string device name. Got {type(name)}({name})")
        return DeviceSpec.from_string(name)

    def __enter__(self) -> None:
        graph = context.graph
        spec = self._spec(graph)
        outer = _innermost(graph)
        if self._device_name is None:
            merged = spec
        elif outer is not None and outer.to_string():
            merged = outer.make_merged_spec(spec)
        elif graph is None:  # an eager scope starts from the default device
            runtime.initialize()
            merged = _DEFAULT_SPEC.make_merged_spec(spec)
        else:
            merged = spec
        if graph is None and merged is not _EMPTY_SPEC:
            _check_placement(merged)
        entry = (graph, merged)
        _scopes.stack.append(entry)
        self._entered.append(entry)

    def __exit__(self, *exc_info: Any) -> None:
        entry = self._entered[-1]
        if not _scopes.stack or _scopes.stack[-1] is not entry:
            raise RuntimeError("Exiting device scope without proper scope nesting")
        self._entered.pop()
        _scopes.stack.pop()


@tf_export("device")
def device(device_name: Any) -> _DeviceScope:
    """`tf.device(device_name)`: a context manager naming the device for the ops inside,
    such as `"/CPU:0"`, `"/GPU:0"` or `"/job:localhost/replica:0/task:0/device:CPU:0"`.

    tapeflow runs everything on the local CPU: a scope for another local device (a GPU that
    is not there) places its ops on the CPU, as TensorFlow's soft placement does; with soft
    placement off (`tf.config.set_soft_device_placement(False)`), or for a device of another
    job, replica or task, entering the scope raises TensorFlow's InvalidArgumentError.
    A malformed name raises ValueError when the scope is entered, as in TensorFlow.
    """
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions.")
    return _DeviceScope(device_name)


__all__ = ["device", "DeviceSpec", "PhysicalDevice", "LogicalDevice", "CPU", "LOGICAL_CPU",
           "CPU_DEVICE", "runtime", "scope_device"]
