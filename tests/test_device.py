"""tf.device and tf.DeviceSpec: scopes, the devices tensors report, TensorFlow's errors.

Every expected text is TF 2.21's answer, measured on a machine without a GPU.
"""

import pytest

import tapeflow as tf
from tapeflow.framework import device as device_module

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture
def soft_placement():
    """Restores soft placement after a test that turns it off."""
    yield
    device_module.runtime.soft_placement = True


@pytest.mark.parametrize("name", ["/CPU:0", "/GPU:0", "/device:GPU:3", "cpu:0", "GPU", "/TPU:0",
                                  "/CPU:1", "/job:localhost", "", None, "/gpu:*",
                                  "/device:XLA_CPU:0", CPU0, "/job:localhost/device:GPU:0"])
def test_tensors_and_variables_made_in_a_scope_report_the_cpu(name):
    # TF 2.21's answer: soft placement puts everything on the one CPU, whatever the scope.
    x = tf.constant(1.0)
    with tf.device(name) as entered:
        y, z, v = tf.constant(2.0), x + 1, tf.Variable(1.0)
    assert entered is None
    assert (y.device, z.device, v.device) == (CPU0, CPU0, CPU0)
    assert float(z) == 2.0


@pytest.mark.parametrize("name, message", [
    ("bad", "Unknown attribute 'bad' is encountered while parsing the device spec: 'bad'."),
    ("/foo:0", "Unknown attribute 'foo' is encountered while parsing the device spec: '/foo:0'."),
    ("CPU:0:1", "Unknown attribute 'CPU' is encountered while parsing the device spec: 'CPU:0:1'."),
    ("/device:CPU", "Unknown attribute 'device' is encountered while parsing the device spec: "
                    "'/device:CPU'."),
    (" /CPU:0", "Unknown attribute ' ' is encountered while parsing the device spec: ' /CPU:0'."),
    ("/physical_device:CPU:0", "Unknown attribute 'physical_device' is encountered while parsing "
                               "the device spec: '/physical_device:CPU:0'."),
    ("/cpu:zero", "invalid literal for int() with base 10: 'zero'"),
    ("/job:a/task:x", "invalid literal for int() with base 10: 'x'"),
    ("/device:CPU:0/device:GPU:0", "Multiple device types are not allowed while parsing the device "
                                   "spec: /device:CPU:0/device:GPU:0."),
    (3, "Expecting a string device name. Got <class 'int'>(3)"),
])
def test_a_malformed_name_raises_tf_value_error_on_entering(name, message):
    scope = tf.device(name)  # TF 2.21 parses on entering, not on creating
    with pytest.raises(ValueError) as info:
        with scope:
            pass
    assert str(info.value) == message


def test_a_malformed_name_inside_tf_function_raises_the_same_error():
    @tf.function
    def f(x):
        with tf.device("bad"):
            return x + 1
    with pytest.raises(ValueError, match="Unknown attribute 'bad' is encountered while parsing"):
        f(tf.constant(1.0))


@pytest.mark.parametrize("name, message", [
    ("/job:worker", "/job:worker/replica:0/task:0/device:CPU:0 unknown device."),
    ("/replica:1", "/job:localhost/replica:1/task:0/device:CPU:0 unknown device."),
    ("/task:1", "/job:localhost/replica:0/task:1/device:CPU:0 unknown device."),
    ("/job:", "/job:/replica:0/task:0/device:CPU:0 unknown device."),
    ("/CPU:-1", "Malformed device specification '/job:localhost/replica:0/task:0/device:CPU:-1' "
                "in eager op"),
])
def test_a_device_of_another_task_raises_invalid_argument(name, message):
    # TF 2.21's error class and message (TF raises it at the scope's first op).
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        with tf.device(name):
            tf.constant(1.0) + 1
    assert str(info.value) == message


@pytest.mark.parametrize("name", ["/GPU:0", "/CPU:1"])
def test_without_soft_placement_a_missing_device_raises(name, soft_placement):
    tf.config.set_soft_device_placement(False)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        with tf.device(name):
            tf.constant(1.0) + 1
    # TF 2.21's message, less the op it names ("[Op:AddV2] name: ").
    assert str(info.value) == (
        f"Could not satisfy device specification '/job:localhost/replica:0/task:0/device:"
        f"{name[1:]}'. enable_soft_placement=0. Supported device types [CPU]. All available "
        f"devices [{CPU0}].")
    with tf.device("/CPU:0"):  # the CPU itself is always there
        assert float(tf.constant(1.0) + 1) == 2.0


def test_tf_device_refuses_a_function():
    with pytest.raises(RuntimeError, match="^tf.device does not support functions.$"):
        tf.device(lambda op: "/CPU:0")


def test_scopes_nest_and_unwind():
    outer, inner = tf.device("/job:localhost"), tf.device("/GPU:0")
    with outer:
        with inner:
            assert device_module._scopes.stack[-1][1].to_string() == \
                "/job:localhost/replica:0/task:0/device:GPU:0"
        assert device_module._scopes.stack[-1][1].to_string() == CPU0
    assert device_module._scopes.stack == []
    with pytest.raises(ZeroDivisionError):
        with tf.device("/GPU:0"):
            raise ZeroDivisionError
    assert device_module._scopes.stack == []


def test_exiting_out_of_order_raises_tf_runtime_error():
    a, b = tf.device("/CPU:0"), tf.device("/GPU:0")
    a.__enter__()
    b.__enter__()
    with pytest.raises(RuntimeError, match="^Exiting device scope without proper scope nesting$"):
        a.__exit__(None, None, None)
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)
    assert device_module._scopes.stack == []


def test_scope_device_in_a_trace_is_the_scope_tf_gives_graph_tensors():
    # Inside tf.function TF 2.21 gives a tensor '' outside any scope, '/device:GPU:0' under
    # tf.device('/GPU:0') (an eager scope around the call does not reach the graph), the
    # full name when the scope gave it.
    seen = []

    @tf.function
    def f(x):
        graph = device_module.context.graph
        seen.append(device_module.scope_device(graph))
        with tf.device("/GPU:0"):
            seen.append(device_module.scope_device(graph))
            with tf.device("/job:localhost"):
                seen.append(device_module.scope_device(graph))
        with tf.device("/cpu:0"):
            seen.append(device_module.scope_device(graph))
        return x * 2

    with tf.device("/GPU:0"):
        result = f(tf.constant(3.0))
    assert float(result) == 6.0 and result.device == CPU0
    assert seen == ["", "/device:GPU:0", "/job:localhost/device:GPU:0", "/device:CPU:0"]


def test_device_spec_parses_merges_and_prints_as_tf():
    spec = tf.DeviceSpec.from_string("/GPU:0")
    # TF 2.21's repr and to_string
    assert repr(spec) == "<DeviceSpec(job=None, replica=None, task=None, device_type=GPU, " \
        "device_index=0)>"
    assert spec.to_string() == "/device:GPU:0"
    full = tf.DeviceSpec.from_string("/job:ps/replica:1/task:2/device:cpu:*")
    assert (full.job, full.replica, full.task, full.device_type, full.device_index) == \
        ("ps", 1, 2, "CPU", None)
    assert full.to_string() == "/job:ps/replica:1/task:2/device:CPU:*"
    assert full.make_merged_spec(spec).to_string() == "/job:ps/replica:1/task:2/device:GPU:0"
    assert spec.replace(device_type="TPU").to_string() == "/device:TPU:0"
    assert tf.DeviceSpec(job="ps", device_type="gpu", device_index=0) == \
        tf.DeviceSpec.from_string("/job:ps/GPU:0")
    assert len({spec, tf.DeviceSpec.from_string("/device:GPU:0")}) == 1


def test_graph_tensors_report_their_device_scope():
    # TF 2.21's answers: '' outside any tf.device scope, the scope's device inside one.
    seen = {}

    @tf.function
    def f(x):
        a = x + 1
        with tf.device("/GPU:0"):
            b = x * 2
        seen.update(x=x.device, a=a.device, b=b.device)
        return a + b

    f(tf.constant(1.0))
    assert seen == {"x": "", "a": "", "b": "/device:GPU:0"}
