"""tf.debugging.enable_check_numerics / disable_check_numerics, and gradient_report.

The expected texts are TensorFlow 2.21's (measured with its check_numerics_callback); lines
tapeflow adds (where the op was made in eager mode, which derivative rule made a backward op)
are checked separately.
"""

import sys
import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff import backprop
from tapeflow.framework.context import context

PREFIX = ("{{function_node __wrapped__CheckNumericsV2_device_/job:localhost/replica:0/task:0/"
          "device:CPU:0}} ")


@pytest.fixture
def checking():
    tf.debugging.enable_check_numerics()
    try:
        yield
    finally:
        tf.debugging.disable_check_numerics()


def _error(fn):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        fn()
    return info.value.message


def test_eager_log_of_zero_gives_tf_message(checking):
    line = sys._getframe().f_lineno + 1
    message = _error(lambda: tf.math.log(tf.constant([0., 1.])))
    # TF 2.21's text, up to the input tensor
    assert message.startswith(
        PREFIX + "\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"Log\" "
        "(# of outputs: 1) !!!\n  dtype: <dtype: 'float32'>\n  shape: (2,)\n"
        "  # of -Inf elements: 1\n\n  Input tensor: tf.Tensor([0. 1.], shape=(2,), "
        "dtype=float32)\n")
    assert message.endswith("\n : Tensor had -Inf values [Op:CheckNumericsV2] name: ")
    # tapeflow adds the user's line that ran the op
    assert f"test_check_numerics_mode.py (L{line}) <lambda>\n -> |   message = _error(" \
           f"lambda: tf.math.log(" in message


def test_eager_division_counts_every_kind(checking):
    message = _error(lambda: tf.constant([0., -1., 1., np.nan]) / tf.constant([0., 0., 0., 1.]))
    # TF 2.21's counts, inputs and CheckNumericsV2 summary
    assert '"RealDiv" (# of outputs: 1)' in message
    assert ("  shape: (4,)\n  # of -Inf elements: 1\n  # of +Inf elements: 1\n"
            "  # of +NaN elements: 2\n\n  Input tensors (2):\n"
            "         0: tf.Tensor([ 0. -1.  1. nan], shape=(4,), dtype=float32)\n"
            "         1: tf.Tensor([0. 0. 0. 1.], shape=(4,), dtype=float32)\n") in message
    assert message.endswith(" : Tensor had -Inf, +Inf, and NaN values [Op:CheckNumericsV2] "
                            "name: ")


def test_eager_zero_over_zero_and_exp_overflow(checking):
    message = _error(lambda: tf.constant([0., 1.]) / tf.constant([0., 1.]))
    assert "  # of +NaN elements: 1\n" in message and "Tensor had NaN values" in message
    message = _error(lambda: tf.exp(tf.constant([1000.], tf.float64)))
    assert '"Exp" (# of outputs: 1) !!!\n  dtype: <dtype: \'float64\'>\n  shape: (1,)\n' \
           '  # of +Inf elements: 1\n' in message
    assert "Input tensor: tf.Tensor([1000.], shape=(1,), dtype=float64)" in message


def test_backward_op_names_the_forward_rule(checking):
    x = tf.Variable([0., 4.])
    with tf.GradientTape() as tape:
        y = tf.sqrt(x)
    # TF 2.21 stops at its SqrtGrad kernel (+Inf at 0); tapeflow's rule is written with
    # tapeflow ops, so the op is RealDiv, and the message names the rule it belongs to.
    message = _error(lambda: tape.gradient(y, x))
    assert "eagerly-executing op" in message and "  # of +Inf elements: 1\n" in message
    assert 'In the backward pass: made by the derivative rule of op "Sqrt"' in message


def test_forward_ops_are_not_marked_backward(checking):
    message = _error(lambda: tf.math.log(tf.constant(0.)))
    assert "In the " + "backward pass" not in message   # (split: the quoted line holds it)


def test_traced_while_enabled_checks_each_graph_op(checking):
    @tf.function
    def f(a):
        return tf.math.log(a)

    message = _error(lambda: f(tf.constant([0., 1.])))
    # TF 2.21's graph form
    assert message.startswith("Graph execution error:\n\nDetected at node Log/CheckNumericsV2 "
                              "defined at (most recent call last):\n")
    assert ("\n\n!!! Detected Infinity or NaN in output 0 of graph op \"Log\" (# of outputs: 1)"
            " !!!\n  dtype: <dtype: 'float32'>\n  shape: (2,)\n\n  Input tensor: "
            "Tensor(\"a:0\", shape=(2,), dtype=float32)\n  Graph name: \"f\"\n\n"
            "  Stack trace of op's creation (\"->\": inferred user code):\n") in message
    assert " -> |   return tf.math.log(a)\n" in message
    assert message.endswith(" : Tensor had -Inf values\n\t [[{{node Log/CheckNumericsV2}}]] "
                            "[Op:__inference_f]")
    assert f(tf.constant([1., 2.])).numpy().tolist() == [0.0, pytest.approx(np.log(2.))]


def test_traced_exp_overflow_and_backward(checking):
    @tf.function
    def g(a):
        return tf.exp(a)

    assert 'graph op "Exp"' in _error(lambda: g(tf.constant([1000.])))
    x = tf.Variable([0., 4.])

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            y = tf.sqrt(x)
        return tape.gradient(y, x)

    message = _error(grad)
    assert "of graph op" in message
    assert 'In the backward pass: made by the derivative rule of op "Sqrt"' in message
    assert "Tensor had +Inf values" in message


def test_function_traced_before_enabling_is_checked_as_one_op():
    @tf.function
    def f(a):
        return tf.math.log(a)

    f(tf.constant([1., 1.]))
    tf.debugging.enable_check_numerics()
    try:
        message = _error(lambda: f(tf.constant([0., 1.])))
    finally:
        tf.debugging.disable_check_numerics()
    # TF 2.21 checks the call's outputs as an eager op named after the function
    assert message.startswith(PREFIX + "\n\n!!! Detected Infinity or NaN in output 0 of "
                              "eagerly-executing op \"__inference_f")
    assert "  # of -Inf elements: 1\n\n  Input tensor: tf.Tensor([0. 1.], shape=(2,), " \
           "dtype=float32)\n" in message


def test_function_traced_while_enabled_keeps_its_checks():
    tf.debugging.enable_check_numerics()
    try:
        @tf.function
        def h(a):
            return tf.math.log(a)
        h(tf.constant([1., 1.]))
    finally:
        tf.debugging.disable_check_numerics()
    # as TF 2.21: the traced CheckNumericsV2 ops stay in the graph
    assert 'graph op "Log"' in _error(lambda: h(tf.constant([0., 1.])))


def test_disable_restores_the_plain_runner_and_values():
    runner = context.state.run_kernel
    hook = backprop.hooks["compiled_backprop"]
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()   # idempotent
    assert context.state.run_kernel is not runner
    tf.debugging.disable_check_numerics()
    tf.debugging.disable_check_numerics()
    assert context.state.run_kernel is runner
    assert backprop.hooks["compiled_backprop"] is hook
    assert tf.math.log(tf.constant([0.])).numpy()[0] == -np.inf


def test_integer_and_pass_through_ops_are_not_checked(checking):
    assert (tf.constant([1, 2]) // tf.constant([1, 1])).numpy().tolist() == [1, 2]
    assert tf.cast(tf.constant([1.5]), tf.int32).numpy().tolist() == [1]
    # TF 2.21 skips its SAFE_OPS: Maximum and Reshape of a NaN pass
    assert np.isnan(tf.maximum(tf.constant([np.nan]), 0.).numpy()[0])
    assert np.isnan(tf.reshape(tf.constant([np.nan]), [1]).numpy()[0])
    assert tf.math.log(tf.constant([1.])).numpy().tolist() == [0.0]


def test_mode_is_per_thread(checking):
    results = []
    thread = threading.Thread(target=lambda: results.append(
        tf.math.log(tf.constant([0.])).numpy()[0]))
    thread.start()
    thread.join()
    assert results == [-np.inf]


def test_gradient_report_table():
    kernel = tf.Variable([[3., 4.]], name="kernel")
    bias = tf.Variable([0.], name="bias")
    unused = tf.Variable(1., name="unused")
    grads = [tf.constant([[3., -4.]]), tf.constant([np.nan]), None]
    report = tf.debugging.gradient_report(grads, [kernel, bias, unused])
    lines = str(report).splitlines()
    assert lines[0] == "Gradient report: 3 variables"
    assert lines[1].split() == ["variable", "shape", "norm", "max", "|g|", "NaN", "Inf"]
    assert lines[2].split() == ["kernel:0", "(1,", "2)", "5", "4", "0", "0", "<-", "largest"]
    assert lines[3].split() == ["bias:0", "(1,)", "nan", "nan", "1", "0"]
    assert lines[4].split() == ["unused:0", "()", "None"]
    assert lines[5] == "global norm: nan"
    assert repr(report) == str(report)


def test_gradient_report_keras_names_and_global_norm():
    tf.keras.backend.clear_session()   # the automatic names count layers made by earlier tests
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.build((None, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.constant([[1., 2., 3.]])) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    report = tf.debugging.gradient_report(grads, model.trainable_variables)
    assert [r["name"] for r in report.rows] == ["sequential/dense/kernel",
                                                "sequential/dense/bias"]
    assert report.global_norm == pytest.approx(float(tf.linalg.global_norm(grads)), rel=1e-6)
    with pytest.raises(ValueError):
        tf.debugging.gradient_report(grads, model.trainable_variables[:1])
