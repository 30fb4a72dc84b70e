"""`tape.explain` names the cause of each None gradient AND the user's line that cut the path.

Each test writes the cause as a user would and checks the explanation against the line of the
statement in this file (found with `inspect`, so the tests follow edits). TensorFlow 2.21
returns None for every gradient asserted None here (checked in TF; the explanation is a
tapeflow addition).
"""

import inspect
import os
import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.autodiff.diagnostics import NoneGradientWarning

HERE = os.path.relpath(__file__)


def at(marker: str) -> str:
    """`file:line: `code`` of the line of the calling test that contains `marker`."""
    lines, first = inspect.getsourcelines(inspect.currentframe().f_back.f_code)
    (index,) = [i for i, line in enumerate(lines) if marker in line
                and "at('" not in line and 'at("' not in line]
    return f"{HERE}:{first + index}: `{lines[index].strip()}`"


def test_constant_never_watched_names_where_it_was_made():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert "was never watched" in why and "call tape.watch(x)" in why
    assert why.endswith(f"It was made at {at('x = tf.constant(3.0)')}.")


def test_non_trainable_variable_names_its_creation():
    scale = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = scale * scale
    assert tape.gradient(y, scale) is None
    why = tape.explain(scale)
    assert "is not trainable (trainable=False)" in why and "tape.watch(scale)" in why
    assert at("scale = tf.Variable(2.0, trainable=False)") in why


def test_non_trainable_keras_weight_names_its_layer():
    bn = keras.layers.BatchNormalization()
    bn.build((None, 2))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(bn(tf.ones((3, 2)), training=False))
    assert tape.gradient(y, bn.moving_mean) is None
    why = tape.explain(bn.moving_mean)
    assert "not trainable" in why and "Keras layer 'batch_normalization'" in why
    assert "tape.watch(bn.moving_mean)" in why
    assert at("assert tape.gradient(y, bn.moving_mean)") in why


def test_watch_accessed_variables_false_names_the_tape():
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "watch_accessed_variables=False" in why and "tape.watch(w)" in why
    assert why.endswith(f"The tape was created at {at('watch_accessed_variables=False) as')}.")


def test_variable_read_before_the_tape_names_the_read():
    w = tf.Variable(2.0)
    r = w * 1.0
    with tf.GradientTape() as tape:
        y = r * r
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "was not read while the tape was recording" in why
    assert f"before the `with` block (or after it), at {at('r = w * 1.0')}" in why


def test_variable_read_under_stop_recording_gives_one_cause_and_the_block():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = w * w
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert f"read only under tape.stop_recording(), in the block at {at('with tape.stop_recording():')}" \
        in why
    assert "before the `with` block" not in why and ".numpy()" not in why


def test_watched_tensor_used_under_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert f"used only under tape.stop_recording(), in the block at {at('with tape.stop_recording():')}" \
        in why
    assert "before the `with` block" not in why


def test_stop_gradient_names_its_line():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(w) * 3.0
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "passes through tf.stop_gradient" in why
    assert why.endswith(f"The cut is at {at('tf.stop_gradient(w)')}.")


def test_numpy_function_on_a_variable_names_numpy_and_the_line():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.constant(np.exp(w)) * 2.0
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert f"NumPy took its value out of tapeflow at {at('np.exp(w)')}" in why
    assert "tf.exp for np.exp" in why and "was not read while" not in why


def test_dot_numpy_of_an_intermediate_names_the_line():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        h = w * 2.0
        y = tf.reduce_sum(tf.constant(np.tanh(h.numpy())))
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert f"taken out of tapeflow by .numpy() at {at('h.numpy()')}" in why


def test_float_of_a_tensor_names_the_line():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.constant(float(w * 3.0))
    assert tape.gradient(y, w) is None
    assert f"by float() at {at('float(w * 3.0)')}" in tape.explain(w)


def test_variable_replaced_by_a_tensor_in_a_training_loop():
    w = tf.Variable(1.0)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = w * w
        g = tape.gradient(loss, w)
        if g is None:
            break
        w = w - 0.1 * g
    assert g is None
    why = tape.explain(w)
    assert "is not a tf.Variable: `w` was one" in why
    assert f"{at('w = w - 0.1 * g')} replaced it with a Tensor" in why
    assert "w.assign_sub(" in why


def test_variable_passed_but_the_code_reads_its_replacement():
    x = tf.Variable(3.0)
    params = [x]
    x = x + 1
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, params) == [None]
    why = tape.explain(params[0])
    assert f"`x` was a tf.Variable, but {at('x = x + 1')} replaced it with a Tensor" in why


def test_assign_on_the_path_names_the_assign():
    x = tf.constant(3.0)
    v = tf.Variable(1.0, name="v")
    with tf.GradientTape() as tape:
        tape.watch(x)
        v.assign(x * 2.0)
        y = v * 3.0
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert f"goes through v.assign(...) at {at('v.assign(x * 2.0)')}" in why
    assert "an assignment is not differentiable" in why and "NumPy" not in why


def test_a_variable_read_only_by_an_assignment_names_that_line():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        b.assign_add(a)
        y = b * 3.0
    assert tape.gradient(y, a) is None
    why = tape.explain(a)
    assert f"was read only by b.assign_add(...) at {at('b.assign_add(a)')}" in why
    assert "an assignment is not differentiable" in why and "not read while" not in why


def test_assign_add_on_the_path_names_it():
    x = tf.constant(3.0)
    v = tf.Variable(1.0, name="v")
    with tf.GradientTape() as tape:
        tape.watch(x)
        v.assign_add(x * 2.0)
        y = v * 3.0
    assert tape.gradient(y, x) is None
    assert f"v.assign_add(...) at {at('v.assign_add(')}" in tape.explain(x)


def test_cast_to_int_names_its_line():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.cast(tf.cast(w, tf.int32) * 2, tf.float32)
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "passes through tf.cast to int32, which has no gradient" in why
    assert why.endswith(f"The cut is at {at('tf.cast(w, tf.int32)')}.")


def test_argmax_names_its_line():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.cast(tf.argmax(w), tf.float32)
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "passes through tf.math.argmax, which has no gradient" in why
    assert why.endswith(f"The cut is at {at('tf.argmax(w)')}.")


def test_comparison_names_its_line():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.cast(w > 1.0, tf.float32)
    assert tape.gradient(y, w) is None
    why = tape.explain(w)
    assert "passes through tf.math.greater, which has no gradient" in why
    assert why.endswith(f"The cut is at {at('w > 1.0')}.")


def test_integer_target_names_the_op_that_made_it():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        i = tf.argmax(w)
    assert tape.gradient(i, w) is None
    assert tape.explain(w).endswith(
        f"The target is the output of tf.math.argmax at {at('i = tf.argmax(w)')}.")


def test_op_without_gradient_names_its_line():
    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.round(x) * 2.0)
    assert tape.gradient(y, x) is None
    why = tape.explain(x)
    assert "tf.math.round, which has no gradient" in why
    assert why.endswith(f"The cut is at {at('tf.round(x)')}.")


def test_target_independent_of_source_names_the_gradient_call():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = a * 2.0
        z = b * 3.0
    grads = tape.gradient(y, [a, b])
    assert grads[1] is None and z is not None
    why = tape.explain(b)
    assert why.startswith("The target does not depend on variable")
    assert why.endswith(f"The gradient call is at {at('grads = tape.gradient(y, [a, b])')}.")


def test_identity_copy_of_a_variable_names_the_copy():
    v = tf.Variable(2.0)
    c = tf.identity(v)
    with tf.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, c) is None
    why = tape.explain(c)
    assert f"is a copy of variable 'Variable:0' made at {at('c = tf.identity(v)')}" in why
    assert "Pass `v` itself as the source." in why


def test_watched_convert_to_tensor_copy_names_the_copy():
    v = tf.Variable(2.0)
    c = tf.convert_to_tensor(v)
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = v * v
    assert tape.gradient(y, c) is None
    assert f"made at {at('tf.convert_to_tensor(v)')}" in tape.explain(c)


# -- the whole report and the opt-in warning -----------------------------------------------------

def _two_nones(**kwargs):
    w = tf.Variable(1.0)
    n = tf.Variable(1.0, trainable=False)
    with tf.GradientTape(**kwargs) as tape:
        y = tf.round(w) * n + w * 0.0
    grads = tape.gradient(y, [w, n])
    return tape, grads


def test_explain_without_argument_reports_every_none():
    w = tf.Variable(1.0)
    n = tf.Variable(1.0, trainable=False)
    k = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.round(w) * n + k
    grads = tape.gradient(y, [w, n, k])
    assert grads[0] is None and grads[1] is None and float(grads[2]) == 1.0
    text = tape.explain()
    lines = text.splitlines()
    assert lines[0] == (f"2 of 3 gradients of the gradient call at "
                        f"{at('grads = tape.gradient(y, [w, n, k])')} are None:")
    assert lines[1].startswith("- `w` (variable 'Variable:0'): The path from")
    assert at("tf.round(w)") in lines[1]
    assert lines[2].startswith("- `n` (variable 'Variable:0'): Variable 'Variable:0' is not "
                               "trainable")
    assert len(lines) == 3


def test_explain_without_argument_when_nothing_is_none():
    w = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = w * w
    tape.gradient(y, w)
    assert tape.explain() == "Every gradient of the last gradient call exists (none is None)."


def test_explain_none_warns_once_at_the_gradient_call():
    w = tf.Variable(1.0)
    with tf.GradientTape(explain_none=True) as tape:
        y = tf.stop_gradient(w) * 2.0
    with pytest.warns(NoneGradientWarning) as caught:
        assert tape.gradient(y, w) is None
    assert len(caught) == 1
    assert caught[0].filename == __file__
    assert str(caught[0].message) == tape.explain()
    assert at("tf.stop_gradient(w)") in str(caught[0].message)


def test_no_warning_without_the_opt_in_or_without_a_none():
    w = tf.Variable(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with tf.GradientTape() as tape:
            y = tf.stop_gradient(w) * 2.0
        assert tape.gradient(y, w) is None
        with tf.GradientTape(explain_none=True) as tape:
            y = w * 2.0
        assert float(tape.gradient(y, w)) == 2.0


# -- the events never change a gradient or fire outside tapes ------------------------------------

def test_numpy_and_assign_outside_tapes_record_nothing():
    w = tf.Variable(2.0)
    np.exp(w), w.numpy(), float(w)
    w.assign(w * 2.0)
    with tf.GradientTape() as tape:
        y = w * w
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), 8.0)
    assert tape._cuts is None


def test_numpy_read_of_a_used_value_keeps_its_gradient():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * w
        print_value = y.numpy()  # a look at the value, not on the path
    assert print_value == 4.0
    assert float(tape.gradient(y, w)) == 4.0
    assert tape.explain(w) is None
