"""`GradientTape.explain` (a tapeflow addition): why a gradient is None.

Every situation here was checked against TensorFlow 2.21: `tape.gradient` returns None there
too (and still does in tapeflow); the explanation is extra.
"""

import inspect
import logging
import os

import numpy as np
import pytest

import tapeflow as tf

HERE = os.path.relpath(__file__)
X = np.array([0.4, 1.6], np.float32)
WHAT_X = "the tensor of shape (2,) and dtype float32"


def _explain_one(build, persistent=False):
    """Watches X, runs `build(x)` as the target, returns (gradient, explanation)."""
    x = tf.constant(X)
    with tf.GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        y = tf.reduce_sum(build(x))
    grad = tape.gradient(y, x)
    return grad, tape.explain(x)


# -- 1. integer and boolean values ---------------------------------------------------------------

def test_integer_tensor_source():
    x = tf.constant([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert "shape (2,) and dtype int32" in why
    assert "gradients flow only through floating-point values; cast to tf.float32 first" in why


def test_integer_variable_source():
    v = tf.Variable(3, name="count")
    with tf.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    why = tape.explain(v)
    assert why.startswith("The gradient with respect to variable 'count:0' is None because "
                          "its dtype is int32")
    assert "cast to tf.float32 first" in why


def test_integer_target():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.argmax(x)
    assert tape.gradient(y, x) is None
    assert tape.explain(x).startswith("The target has dtype int64: gradients flow only through "
                                      "floating-point values")


# -- 2 and 3. never watched ----------------------------------------------------------------------

def test_constant_never_watched():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert why.startswith("The tensor of shape () and dtype float32 was never watched")
    assert "call tape.watch(x) inside the tape's context" in why


def test_non_trainable_variable():
    n = tf.Variable(2.0, trainable=False, name="scale")
    with tf.GradientTape() as tape:
        y = n * n
    assert tape.gradient(y, n) is None
    why = tape.explain(n)
    assert why.startswith("Variable 'scale:0' is not trainable (trainable=False)")
    assert "call tape.watch(n) inside the tape's context" in why  # the user's name for it


def test_variable_not_watched_without_watch_accessed_variables():
    w = tf.Variable(2.0, name="w")
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "Variable 'w:0' was not watched" in why
    assert "watch_accessed_variables=False" in why and "tape.watch(w)" in why


# -- 4. watched but not used while recording -----------------------------------------------------

def test_variable_read_before_the_with_block():
    w = tf.Variable(2.0, name="w")
    r = w * 1.0
    with tf.GradientTape() as tape:
        y = r * r
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert why.startswith("Variable 'w:0' was not read while the tape was recording")
    assert "before the `with` block" in why


def test_watched_tensor_used_only_under_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert "was watched but no tapeflow op used it while the tape was recording" in why
    assert "tape.stop_recording()" in why


def test_explicitly_watched_variable_read_before_recording():
    w = tf.Variable(2.0, name="w")
    r = w * 1.0
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = r * r
    assert tape.gradient(y, w) is None
    assert tape.explain(w).startswith("Variable 'w:0' was watched but no tapeflow op read it")


def test_target_computed_outside_the_context():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        inside = x * 2.0  # x is used while recording, but not for the target
    y = x * x
    assert tape.gradient(y, x) is None
    assert inside is not None
    why = tape.explain(x)
    assert why.startswith("The target was not computed from any watched value while the tape "
                          "was recording")
    assert "after the `with` block" in why


# -- 5. a path through an op with no gradient ----------------------------------------------------

@pytest.mark.parametrize("build, op, advice", [
    (lambda v: tf.stop_gradient(v) * 2.0, "tf.stop_gradient", "Remove it"),
    (lambda v: tf.cast(tf.cast(v, tf.int32) + 1, tf.float32) * 2.0, "tf.cast to int32",
     "Keep the value floating-point."),
    (lambda v: tf.cast(tf.argmax(v), tf.float32), "tf.math.argmax", "tf.nn.softmax"),
    (lambda v: tf.round(v) * 2.0, "tf.math.round", "straight-through estimator"),
    (lambda v: tf.floor(v), "tf.math.floor", "piecewise constant"),
    (lambda v: tf.cast(v > 1.0, tf.float32), "tf.math.greater", "tf.where(condition, a, b)"),
])
def test_path_through_op_without_gradient_names_the_op(build, op, advice):
    grad, why = _explain_one(build)
    assert grad is None
    assert why.startswith(f"The path from {WHAT_X} to the target passes through {op}, which "
                          f"has no gradient")
    assert advice in why


def test_cut_is_named_once_even_when_the_block_propagates():
    # int32 arithmetic after the cast is downstream of the cut, not a second cut.
    grad, why = _explain_one(lambda v: tf.cast(tf.cast(v, tf.int32) * 3 + 1, tf.float32))
    assert grad is None
    assert "passes through tf.cast to int32, which" in why
    assert "Mul" not in why and "AddV2" not in why


def test_only_the_first_cut_on_a_path_is_named():
    # round comes after the comparison has already cut the path.
    grad, why = _explain_one(lambda v: tf.round(tf.cast(v > 1.0, tf.float32) * 10.0))
    assert grad is None
    assert "passes through tf.math.greater, which has no gradient" in why
    assert "round" not in why.split(" The cut is at ")[0]  # the line's code names it


def test_every_cut_path_is_named():
    grad, why = _explain_one(
        lambda v: tf.stop_gradient(v) + tf.cast(tf.argmax(v), tf.float32))
    assert grad is None
    assert ("passes through tf.stop_gradient and tf.math.argmax, which have no gradient "
            "(it blocks gradients on purpose)") in why


def test_readme_example():
    line = inspect.currentframe().f_lineno + 1
    w = tf.Variable([[0.5], [-1.0]], name="w")
    b = tf.Variable([0.1], name="b", trainable=False)
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, w) + b
        label = tf.cast(logits > 0.0, tf.float32)
        loss = tf.reduce_mean(tf.round(label * 10.0))
    assert tape.gradient(loss, [w, b, x]) == [None, None, None]
    assert tape.explain([w, b, x]) == [
        "The path from variable 'w:0' to the target passes through tf.math.greater, which has "
        "no gradient (booleans carry none). Select values with tf.where(condition, a, b) "
        "instead of computing with the condition. The cut is at "
        f"{HERE}:{line + 5}: `label = tf.cast(logits > 0.0, tf.float32)`.",
        "Variable 'b:0' is not trainable (trainable=False), so the tape does not watch it "
        "automatically; call tape.watch(b) inside the tape's context, or create it with "
        f"trainable=True. It was created at {HERE}:{line + 1}: "
        "`b = tf.Variable([0.1], name=\"b\", trainable=False)`.",
        "The tensor of shape (1, 2) and dtype float32 was never watched, so the tape did not "
        "record the operations on it; call tape.watch(x) inside the tape's context (only "
        f"variables are watched automatically). It was made at {HERE}:{line + 2}: "
        "`x = tf.constant([[1.0, 2.0]])`.",
    ]


def test_numpy_round_trip_breaks_the_chain():
    grad, why = _explain_one(lambda v: tf.constant(np.sin(v.numpy())) * 2.0)
    assert grad is None
    assert ".numpy() or NumPy functions, which break the chain" in why


# -- 6. no dependence at all ---------------------------------------------------------------------

def test_target_independent_of_source():
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        y = a * 2.0
        z = b * 3.0
    line = inspect.currentframe().f_lineno + 1
    grads = tape.gradient(y, [a, b])
    assert float(grads[0]) == 2.0 and grads[1] is None
    assert z is not None
    assert tape.explain(a) is None
    assert tape.explain(b) == (
        "The target does not depend on variable 'b:0' through tapeflow ops; values taken out "
        "with .numpy() or NumPy functions break the chain, so compute the target from it with "
        "tapeflow ops inside the tape's context. The gradient call is at "
        f"{HERE}:{line}: `grads = tape.gradient(y, [a, b])`.")


# -- the method's contract -----------------------------------------------------------------------

def test_nested_structure_and_persistent_tape_follow_the_last_call():
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b", trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        y = a * b
    tape.gradient(y, {"a": a, "rest": [b]})
    why = tape.explain({"a": a, "rest": [b]})
    assert why["a"] is None and "not trainable" in why["rest"][0]
    tape.gradient(y, [a])  # a new call replaces the explanations
    assert tape.explain([a]) == [None]
    with pytest.raises(ValueError, match="was not a source"):
        tape.explain(b)


def test_explain_needs_a_gradient_call_and_a_source():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="needs a gradient or jacobian call first"):
        tape.explain(x)
    tape.gradient(y, x)
    with pytest.raises(ValueError, match="the tensor of shape \\(\\) and dtype float32 was not "
                                         "a source"):
        tape.explain(y)


def test_zero_mode_still_explains_the_zeros():
    a, b = tf.Variable(1.0), tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        y = a * 2.0
    grads = tape.gradient(y, [a, b], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(grads[1]) == 0.0
    assert tape.explain(b).startswith("Variable 'b:0' was not read while the tape was recording")


def test_jacobian_is_explained():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.round(x) * 2.0
    assert tape.jacobian(y, x) is None
    assert "passes through tf.math.round" in tape.explain(x)


def test_reason_logged_at_debug(caplog):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    with caplog.at_level(logging.DEBUG, logger="tapeflow"):
        assert tape.gradient(y, x) is None
    records = [r for r in caplog.records if r.name == "tapeflow" and r.levelno == logging.DEBUG]
    assert len(records) == 1 and "was never watched" in records[0].getMessage()


def test_nothing_logged_or_kept_when_every_gradient_exists(caplog):
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * w
    with caplog.at_level(logging.DEBUG, logger="tapeflow"):
        assert float(tape.gradient(y, w)) == 4.0
    assert not caplog.records
    assert tape.explain(w) is None


def test_blocked_values_do_not_change_gradients():
    # The marker map must never make a blocked value look differentiable.
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        mask = tf.cast(x > 1.0, tf.float32)
        y = tf.reduce_sum(mask * x * x + tf.stop_gradient(x) * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.4, 2 * 1.6 + 1.6], rtol=1e-6)
    assert tape.explain(x) is None
