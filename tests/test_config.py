"""tf.config: devices, visibility, memory growth, threading (wired to BLAS), flags.

Every expected value and text is TF 2.21's answer, measured on a machine without a GPU. The
runtime initializes at the first op, after which TensorFlow refuses changes: the tests of the
settings before that run on a fresh runtime (`fresh_runtime`) or in a fresh interpreter.
"""

import subprocess
import sys
import textwrap

import pytest

import tapeflow as tf
from tapeflow import config as config_module
from tapeflow.framework import device as device_module

CPU = "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
GPU = tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")


@pytest.fixture
def fresh_runtime():
    """The runtime as before the first op; restored (thread pools included) afterwards."""
    runtime = device_module.runtime
    saved = (runtime.initialized, list(runtime.visible_devices), runtime.soft_placement,
             dict(config_module._threads), dict(config_module._flags))
    runtime.initialized = False
    yield runtime
    config_module._limit_blas_threads(0)
    (runtime.initialized, runtime.visible_devices, runtime.soft_placement, threads,
     flags) = saved
    config_module._threads.update(threads)
    config_module._flags.update(flags)


def _run_fresh(code: str) -> str:
    """Runs `code` in a new interpreter (a runtime no op has initialized); its stdout."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_devices_list_the_one_cpu_with_tf_reprs():
    cpu = tf.config.list_physical_devices()[0]
    assert repr(tf.config.list_physical_devices()) == f"[{CPU}]"
    assert tf.config.list_physical_devices("CPU") == [cpu]
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_physical_devices("cpu") == []  # TF 2.21: types are case-sensitive
    assert tf.config.list_physical_devices(3) == []
    assert repr(tf.config.list_logical_devices()) == \
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert tf.config.list_logical_devices("GPU") == []
    assert repr(tf.config.get_visible_devices()) == f"[{CPU}]"
    assert tf.config.get_visible_devices("GPU") == []
    assert (cpu.name, cpu.device_type, cpu._fields) == \
        ("/physical_device:CPU:0", "CPU", ("name", "device_type"))
    assert isinstance(cpu, tuple) and isinstance(tf.config.list_logical_devices()[0], tuple)


def test_experimental_names_are_the_same_functions():
    for name in ("list_physical_devices", "list_logical_devices", "get_visible_devices",
                 "set_visible_devices"):
        assert getattr(tf.config.experimental, name) is getattr(tf.config, name)
    # TF 2.21 has these only in their sub-namespaces
    for name in ("get_jit", "set_memory_growth", "set_intra_op_parallelism_threads"):
        assert not hasattr(tf.config, name)


def test_set_visible_devices_before_initialization(fresh_runtime):
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_visible_devices([], "GPU")
    tf.config.set_visible_devices(cpu)  # a lone device is accepted
    tf.config.set_visible_devices([cpu], "CPU")
    tf.config.set_visible_devices([], "cpu")  # hides nothing: no device is of type 'cpu'
    assert tf.config.get_visible_devices() == [cpu]
    tf.config.set_visible_devices([], "CPU")
    assert tf.config.get_visible_devices() == []
    # TF 2.21: with the CPU hidden the runtime cannot start
    with pytest.raises(tf.errors.NotFoundError, match="^No CPU devices are available in this "
                                                      "process$"):
        tf.config.list_logical_devices()
    tf.config.set_visible_devices([cpu])
    assert tf.config.list_logical_devices() and fresh_runtime.initialized


@pytest.mark.parametrize("devices, device_type, shown", [
    ("cpu", "GPU", CPU), (["x"], None, "'x'"), (("x",), None, "('x',)"), (None, None, "None"),
    ([GPU], None, repr(GPU)),
])
def test_set_visible_devices_refuses_unknown_devices(devices, device_type, shown):
    if devices == "cpu":
        devices = tf.config.list_physical_devices("CPU")
    with pytest.raises(ValueError) as info:
        tf.config.set_visible_devices(devices, device_type)
    assert str(info.value) == f"Unrecognized device: {shown}"


def test_changes_after_initialization_raise_tf_runtime_error(fresh_runtime):
    fresh_runtime.initialized = True
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_visible_devices([], "GPU")  # no change: allowed
    tf.config.set_visible_devices([cpu])
    with pytest.raises(RuntimeError, match="^Visible devices cannot be modified after being "
                                           "initialized$"):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(RuntimeError, match="^Intra op parallelism cannot be modified after "
                                           "initialization.$"):
        tf.config.threading.set_intra_op_parallelism_threads(4)
    with pytest.raises(RuntimeError, match="^Inter op parallelism cannot be modified after "
                                           "initialization.$"):
        tf.config.threading.set_inter_op_parallelism_threads(4)
    tf.config.threading.set_intra_op_parallelism_threads(0)  # unchanged: allowed
    tf.config.set_soft_device_placement(False)  # soft placement may change at any time
    assert tf.config.get_soft_device_placement() is False


def test_the_first_op_and_an_eager_device_scope_initialize_the_runtime():
    out = _run_fresh("""
        import tapeflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(2)
        x = tf.constant(1.0) + 1
        try:
            tf.config.threading.set_intra_op_parallelism_threads(3)
        except RuntimeError as e:
            print(e)
        print(tf.config.threading.get_intra_op_parallelism_threads())
    """)
    assert out == "Intra op parallelism cannot be modified after initialization.\n2\n"
    out = _run_fresh("""
        import tapeflow as tf
        with tf.device("/CPU:0"):
            pass
        try:
            tf.config.set_visible_devices([], "CPU")
        except RuntimeError as e:
            print(e)
    """)
    assert out == "Visible devices cannot be modified after being initialized\n"


def test_ops_with_the_cpu_hidden_raise_not_found_every_time():
    out = _run_fresh("""
        import tapeflow as tf
        tf.config.set_visible_devices([], "CPU")
        for _ in range(2):
            try:
                tf.constant([1.0]) + 1
            except tf.errors.NotFoundError as e:
                print(e)
    """)
    assert out == "No CPU devices are available in this process\n" * 2


def test_memory_growth_and_device_details_of_the_cpu():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(KeyError) as info:
        tf.config.experimental.get_memory_growth(cpu)
    assert str(info.value) == CPU
    with pytest.raises(ValueError, match="^Cannot set memory growth on non-GPU and "
                                         "non-Pluggable devices$"):
        tf.config.experimental.set_memory_growth(cpu, True)
    for function in (tf.config.experimental.get_memory_growth,
                     lambda d: tf.config.experimental.set_memory_growth(d, True)):
        with pytest.raises(ValueError, match=r"^Unrecognized device: 'x'$"):
            function("x")
        with pytest.raises(ValueError, match=r"^Unrecognized device: PhysicalDevice\(name="
                                             r"'/physical_device:GPU:0'"):
            function(GPU)
    assert tf.config.experimental.get_device_details(cpu) == {}
    with pytest.raises(ValueError, match="^device must be a tf.config.PhysicalDevice, but got: "
                                         "x$"):
        tf.config.experimental.get_device_details("x")
    with pytest.raises(ValueError) as info:
        tf.config.experimental.get_device_details(GPU)
    assert str(info.value) == ("The PhysicalDevice must be one obtained from calling "
                               f"`tf.config.list_physical_devices`, but got: {GPU!r}")


def _blas_threads() -> list:
    from threadpoolctl import threadpool_info
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_intra_op_threads_cap_the_blas_pools(fresh_runtime):
    default = _blas_threads()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    assert _blas_threads() == [1] * len(default)
    tf.config.threading.set_intra_op_parallelism_threads(0)  # the system's choice again
    assert _blas_threads() == default
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_thread_counts_before_initialization(fresh_runtime):
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    tf.config.threading.set_inter_op_parallelism_threads(3)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 3
    tf.config.threading.set_intra_op_parallelism_threads(-1)  # TF 2.21 accepts it
    assert tf.config.threading.get_intra_op_parallelism_threads() == -1
    # TF 2.21 takes 2.5 and fails with this TypeError once the runtime starts; tapeflow at once
    for bad, kind in ((2.5, "float"), ("2", "str")):
        with pytest.raises(TypeError, match=f"^'{kind}' object cannot be interpreted as an "
                                            f"integer$"):
            tf.config.threading.set_intra_op_parallelism_threads(bad)


@pytest.mark.parametrize("enabled, reported", [
    (True, "autoclustering"), ("autoclustering", "autoclustering"), (1, "autoclustering"),
    (False, ""), ("bad", ""), (None, ""),
])
def test_jit_setting_reports_as_tf(enabled, reported, fresh_runtime):
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(enabled)
    assert tf.config.optimizer.get_jit() == reported


def test_soft_placement_and_flags(fresh_runtime):
    assert tf.config.get_soft_device_placement() is True
    tf.config.set_soft_device_placement(0)
    assert tf.config.get_soft_device_placement() is False
    assert tf.config.experimental.tensor_float_32_execution_enabled() is True
    tf.config.experimental.enable_tensor_float_32_execution(False)
    assert tf.config.experimental.tensor_float_32_execution_enabled() is False
    assert tf.config.experimental.enable_op_determinism() is None


def test_version_is_tapeflows_own():
    assert tf.version.VERSION == tf.__version__
    assert not tf.version.VERSION.startswith("2.21")  # never TensorFlow's
    assert isinstance(tf.version.GIT_VERSION, str) and tf.version.COMPILER_VERSION
