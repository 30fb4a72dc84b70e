"""tf.function: concurrent variable updates, variable arguments, input_signature errors and
reduce_retracing, against TensorFlow 2.21's answers (hard-coded below)."""

import pytest

import tapeflow as tf


def test_concurrent_calls_assigning_a_variable_lose_no_update(hammer):
    # TF 2.21: 2 threads x 5,000 calls of a tf.function doing v.assign_add(1.) -> 10,000.
    v = tf.Variable(0.0)

    @tf.function
    def step():
        v.assign_add(1.0)

    hammer(step)
    assert float(v.numpy()) == 10000.0


def test_concurrent_calls_with_a_variable_argument_and_a_branch(hammer):
    v = tf.Variable(0.0)

    @tf.function
    def step(var, p):
        tf.cond(p > 0, lambda: var.assign_add(1.0), lambda: var.assign_sub(1.0))

    hammer(lambda: step(v, tf.constant(1.0)), times=2000)
    assert float(v.numpy()) == 4000.0


def test_variable_arguments_trace_by_spec_and_run_on_each_calls_variable():
    traces = []

    @tf.function
    def f(v):
        traces.append(1)
        v.assign_add(tf.ones_like(v))
        return v.read_value() * 2

    v1, v2 = tf.Variable(1.0), tf.Variable(10.0)
    # TF 2.21: 4.0 then 22.0, one trace; v1 == 2.0 and v2 == 11.0 afterwards.
    assert float(f(v1).numpy()) == 4.0
    assert float(f(v2).numpy()) == 22.0
    assert float(f(v1).numpy()) == 6.0
    assert len(traces) == 1 and f.experimental_get_tracing_count() == 1
    assert (float(v1.numpy()), float(v2.numpy())) == (3.0, 11.0)
    # A new trace for another shape, dtype, trainability or static shape (TF 2.21: 6 in all).
    f(tf.Variable([1.0, 2.0]))
    f(tf.Variable(1.0, dtype=tf.float64))
    f(tf.Variable(1.0, trainable=False))
    f(tf.Variable([1.0, 2.0], shape=tf.TensorShape(None)))
    f(tf.Variable([5.0, 6.0]))
    assert len(traces) == 5


def test_the_same_variable_twice_is_its_own_trace():
    traces = []

    @tf.function
    def g(a, b):
        traces.append(1)
        a.assign_add(1.0)
        b.assign_add(10.0)
        return a + b

    w1, w2 = tf.Variable(0.0), tf.Variable(0.0)
    # TF 2.21: 11.0, 24.0, 33.0 with 2 traces; w1 == 22.0, w2 == 11.0.
    assert [float(g(*args).numpy()) for args in ((w1, w2), (w1, w1), (w2, w1))] == \
        [11.0, 24.0, 33.0]
    assert len(traces) == 2
    assert (float(w1.numpy()), float(w2.numpy())) == (22.0, 11.0)


def test_variable_argument_assigned_in_a_branch_hits_the_right_variable():
    @tf.function
    def g(v, p):
        tf.cond(p > 0, lambda: v.assign_add(1.0), lambda: v.assign_sub(1.0))

    v1, v2 = tf.Variable(2.0), tf.Variable(3.0)
    g(v1, tf.constant(1.0))
    g(v2, tf.constant(-1.0))
    assert (float(v1.numpy()), float(v2.numpy())) == (3.0, 2.0)   # TF 2.21


def test_a_concrete_function_runs_on_the_variable_it_is_given():
    @tf.function
    def f(v, x):
        return v * x

    v1, v2 = tf.Variable(2.0), tf.Variable(3.0)
    cf = f.get_concrete_function(v1, tf.constant(1.0))
    assert float(cf(v1, tf.constant(2.0)).numpy()) == 4.0   # TF 2.21: 4.0
    assert float(cf(v2, tf.constant(2.0)).numpy()) == 6.0   # TF 2.21: 6.0


def test_variable_argument_gradients_follow_the_call():
    @tf.function
    def f(v, x):
        return v.read_value() * x

    v1, v2 = tf.Variable(2.0), tf.Variable(3.0)
    f(v1, tf.constant(1.0))
    with tf.GradientTape() as tape:
        tape.watch([v1, v2])
        y = f(v2, tf.constant(7.0))
    g1, g2 = tape.gradient(y, [v1, v2])
    assert g1 is None and float(g2.numpy()) == 7.0


SIG = "for signature: (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None))."


@pytest.mark.parametrize("args, reason", [
    ((tf.constant([1.0]), tf.constant([1.0])), "`too many positional arguments`"),
    ((None,), "`Attempt to convert a value (None) with an unsupported type "
              "(<class 'NoneType'>) to a Tensor.`"),
    ((tf.constant([[1.0]]),), "`Can not cast TensorSpec(shape=(1, 1), dtype=tf.float32, "
                             "name=None) to TensorSpec(shape=(None,), dtype=tf.float32, "
                             "name=None)`"),
])
def test_input_signature_mismatches_raise_tfs_type_error(args, reason):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x

    with pytest.raises(TypeError) as info:
        f(*args)
    text = str(info.value)
    assert text.startswith("Binding inputs to tf.function failed due to " + reason)
    assert text.endswith(SIG)


def test_input_signature_converts_a_list_argument():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2

    assert f([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]   # TF 2.21: [2., 4.]


def test_reduce_retracing_relaxes_to_unknown_rank():
    @tf.function(reduce_retracing=True)
    def f(x):
        return tf.shape(x)

    shapes = ([2], [3], [4], [2, 2], [3, 3], [2, 2, 2])
    assert [f(tf.zeros(s)).numpy().tolist() for s in shapes] == list(shapes)
    # TF 2.21: (2,), then (None,), then unknown rank: 3 traces.
    assert f.experimental_get_tracing_count() == 3
