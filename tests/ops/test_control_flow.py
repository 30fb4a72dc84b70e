"""tf.cond, tf.case, tf.switch_case, tf.while_loop: eager, traced, and their gradients."""

import numpy as np
import pytest

import tapeflow as tf


def _both(fn):
    """fn run eagerly and as a tf.function."""
    return [fn, tf.function(fn)]


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_cond_values_and_gradients(mode):
    def f(x):
        return tf.cond(x > 0.0, lambda: x * x, lambda: -3.0 * x)
    f = tf.function(f) if mode == "traced" else f
    for value, expected, grad in ((2.0, 4.0, 4.0), (-2.0, 6.0, -3.0)):
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(y) == expected
        assert float(tape.gradient(y, x)) == grad


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(tf.constant(True), 1.0, lambda: 2.0)

    @tf.function
    def mismatched(x):
        return tf.cond(x > 0.0, lambda: x, lambda: tf.cast(x, tf.int32))

    with pytest.raises(TypeError, match="same dtypes"):
        mismatched(tf.constant(1.0))


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_switch_case_and_case(mode):
    def s(i, x):
        return tf.switch_case(i, [lambda: x, lambda: x * 2.0, lambda: x * 3.0])

    def c(x):
        return tf.case([(x > 10.0, lambda: x * 0.0), (x > 1.0, lambda: x * 2.0)],
                       default=lambda: x)
    if mode == "traced":
        s, c = tf.function(s), tf.function(c)
    five = tf.constant(5.0)
    assert float(s(tf.constant(1), five)) == 10.0
    assert float(s(tf.constant(7), five)) == 15.0     # out of range: the last branch
    assert [float(c(tf.constant(v))) for v in (5.0, 50.0, 0.5)] == [10.0, 0.0, 0.5]


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_while_loop_values_first_and_second_derivatives(mode):
    def f(x):
        return tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x),
                             (tf.constant(0), tf.constant(1.0)))[1]
    f = tf.function(f) if mode == "traced" else f
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    assert float(y) == 8.0 and float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_while_loop_gradient_traced_inside_the_function():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) + x),
                              (tf.constant(0), x))[1]
        return tape.gradient(y, x)

    def eager(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            a = x
            for _ in range(4):
                a = tf.sin(a) + x
        return tape.gradient(a, x)

    x = tf.constant(0.7, tf.float64)
    np.testing.assert_allclose(float(grad(x)), float(eager(x)), rtol=1e-12)


def test_while_loop_maximum_iterations_and_data_dependent_trip_count():
    @tf.function
    def collatz_steps(n):
        def body(n, steps):
            return tf.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1
        return tf.while_loop(lambda n, s: n > 1, body, (n, tf.constant(0)))[1]

    assert int(collatz_steps(tf.constant(6))) == 8
    assert int(collatz_steps(tf.constant(27))) == 111
    assert collatz_steps.experimental_get_tracing_count() == 1
    out = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)],
                        maximum_iterations=5)
    assert int(out[0]) == 5


def test_cond_assigning_a_variable_runs_only_the_taken_branch():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        return tf.cond(x > 0.0, lambda: v.assign_add(x).read_value(), lambda: v.read_value())

    f(tf.constant(2.0))
    f(tf.constant(-5.0))
    f(tf.constant(1.0))
    assert float(v.numpy()) == 3.0
    assert "If(" in str(f.get_concrete_function(tf.constant(1.0)).graph)


# -- while_loop under tf.function: the trip count is a value of each run (issue 4) -------------
#
# Expected numbers are TensorFlow 2.21's for the same programs (float64).

def _close(actual, expected, rtol=1e-12):
    np.testing.assert_allclose([float(a) for a in actual], expected, rtol=rtol, atol=1e-13)


@tf.function
def _loop_value_grad_hessian(x, n):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.while_loop(lambda i, a: i < n,
                              lambda i, a: (i + 1, tf.sin(a) * x + a * a * 0.1),
                              (tf.constant(0), x))[1]
        dy = inner.gradient(y, x)
    return y, dy, outer.gradient(dy, x)


def test_while_loop_gradients_in_graph_follow_the_run_trip_count():
    x = tf.constant(0.7, tf.float64)
    expected = {  # n -> value, first and second derivative (TF 2.21)
        2: [0.360563862293823, 1.42199798851795, 2.99353108680685],
        3: [0.259961955802251, 1.38673862382464, 4.74276263360758],
        0: [0.7, 1.0, 0.0],
        5: [0.133409555321567, 1.10457965939948, 7.08010696729177],
        1: [0.499952381066384, 1.31960721833683, 1.27873199350259],
    }
    for n, values in expected.items():   # traced with n=2, then longer, empty, shorter runs
        _close(_loop_value_grad_hessian(x, tf.constant(n)), values)
    assert _loop_value_grad_hessian.experimental_get_tracing_count() == 1


def test_while_loop_gradient_outer_tape_over_traced_function_any_trip_count():
    def f(x, n):
        return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.sin(a) * x),
                             (tf.constant(0), x))[1]
    traced = tf.function(f)
    x = tf.constant(0.4, tf.float64)
    for n in (3, 5, 1):
        grads = []
        for fn in (f, traced):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(x, tf.constant(n))
            grads.append(float(tape.gradient(y, x)))
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-13)


def test_while_loop_tensor_maximum_iterations_read_at_run_time():
    @tf.function
    def f(x, m):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 100, lambda i, a: (i + 1, tf.cos(a) + x),
                              (tf.constant(0), x), maximum_iterations=m)[1]
        return y, tape.gradient(y, x)
    x = tf.constant(0.7, tf.float64)
    expected = {2: [0.805756005624546, 0.646212875518394],
                4: [0.877288128541039, 0.474605268468592],
                0: [0.7, 1.0],
                3: [1.39256608498135, 0.533851477616791]}
    for m, values in expected.items():
        _close(f(x, tf.constant(m)), values)
    assert f.experimental_get_tracing_count() == 1


def test_nested_while_loops_gradients_with_varying_trip_counts():
    @tf.function
    def f(x, n):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)

                def step(i, a):   # the inner loop runs i + 1 times
                    inner = tf.while_loop(lambda j, b: j < i + 1,
                                          lambda j, b: (j + 1, tf.sin(b) * x),
                                          (tf.constant(0), a))[1]
                    return i + 1, inner + 0.5 * a
                y = tf.while_loop(lambda i, a: i < n, step, (tf.constant(0), x))[1]
            dy = tape.gradient(y, x)
        return y, dy, outer.gradient(dy, x)
    x = tf.constant(0.7, tf.float64)
    expected = {1: [0.800952381066384, 1.67960721833683, 1.07873199350259],
                3: [0.587387044405914, 2.51140765596612, 6.71927739698416],
                2: [0.73767841732385, 2.26396285910475, 3.32299983141058],
                0: [0.7, 1.0, 0.0]}
    for n, values in expected.items():
        _close(f(x, tf.constant(n)), values)


def test_while_loop_in_cond_branch_gradients_with_varying_trip_count(caplog):
    @tf.function
    def f(x, n):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.cond(x > 0.0,
                            lambda: tf.while_loop(lambda i, a: i < n,
                                                  lambda i, a: (i + 1, a * x + 1.0),
                                                  (tf.constant(0), x))[1],
                            lambda: x * x)
            dy = tape.gradient(y, x)
        return y, dy, outer.gradient(dy, x)
    x = tf.constant(0.7, tf.float64)
    _close(f(x, tf.constant(2)), [2.043, 2.47, 4.2])
    _close(f(x, tf.constant(4)), [2.70107, 5.0705, 13.06])
    _close(f(x, tf.constant(1)), [1.49, 1.4, 2.0])
    _close(f(-x, tf.constant(3)), [0.49, -1.4, 2.0])
    # The branch's integer capture (n) is not watched: no dtype warning, as in TensorFlow.
    assert "must be floating" not in caplog.text


def test_while_loop_vector_state_and_captured_matrix_gradients():
    @tf.function
    def f(v, w, n):
        with tf.GradientTape() as tape:
            tape.watch([v, w])
            y = tf.while_loop(lambda i, a: i < n,
                              lambda i, a: (i + 1, tf.tanh(tf.linalg.matvec(w, a)) + v),
                              (tf.constant(0), v))[1]
            s = tf.reduce_sum(y * y)
        return (s, *tape.gradient(s, [v, w]))
    v = tf.constant([0.3, -0.6], tf.float64)
    w = tf.constant([[0.5, -0.3], [0.2, 0.8]], tf.float64)
    expected = {
        3: [2.47646281494532, 1.8761307572112, -5.34536483166634, 1.00955561102455,
            -1.42905077565394, -2.0188410067935, 3.08945484760308],
        1: [1.37643823771824, 1.45686589064527, -3.67109839264217, 0.333461070781424,
            -0.666922141562848, -0.50391617169397, 1.00783234338794],
        6: [2.64119732739678, 1.92983416210504, -5.05414999375658, 0.990023294560422,
            -1.23186033248764, -2.68743903519805, 3.47581214797629],
    }
    for n, values in expected.items():
        s, gv, gw = f(v, w, tf.constant(n))
        _close([s, *gv.numpy(), *gw.numpy().ravel()], values)


def test_traced_rnn_training_over_sequences_of_varying_length():
    """An RNN written with tf.while_loop over time steps, trained by a tf.function step."""
    rng = np.random.default_rng(3)
    w0, u0, v0 = rng.normal(0, 0.5, (3, 4)), rng.normal(0, 0.5, (4, 4)), rng.normal(0, 0.5, (4, 1))
    xs, ys = rng.normal(0, 1, (6, 2, 3)), rng.normal(0, 1, (2, 1))

    def train(traced):
        w, u, v, b = (tf.Variable(w0), tf.Variable(u0), tf.Variable(v0),
                      tf.Variable(np.zeros(4)))
        opt = tf.keras.optimizers.SGD(learning_rate=0.1)

        def step(x, y, length):
            with tf.GradientTape() as tape:
                def cell(t, h):
                    return t + 1, tf.tanh(tf.matmul(x[t], w) + tf.matmul(h, u) + b)
                h = tf.while_loop(lambda t, h: t < length, cell,
                                  (tf.constant(0), tf.zeros([2, 4], tf.float64)))[1]
                loss = tf.reduce_mean(tf.square(tf.matmul(h, v) - y))
            grads = tape.gradient(loss, [w, u, v, b])
            opt.apply_gradients(zip(grads, [w, u, v, b]))
            return loss
        if traced:
            step = tf.function(step)
        losses = [float(step(tf.constant(xs), tf.constant(ys), tf.constant(n)))
                  for n in (3, 6, 1, 4, 5, 2)]
        if traced:
            assert step.experimental_get_tracing_count() == 1
        return losses, w.numpy()

    graph_losses, graph_w = train(traced=True)
    eager_losses, eager_w = train(traced=False)
    tf_losses = [3.60236904046433, 3.6316600153908, 2.30290269257608, 2.64795999195404,
                 1.64008432369516, 1.92894066772317]   # TF 2.21
    np.testing.assert_allclose(graph_losses, tf_losses, rtol=1e-12)
    np.testing.assert_allclose(eager_losses, tf_losses, rtol=1e-12)
    np.testing.assert_allclose(graph_w.ravel()[:4], [0.968664305588605, -1.2982934707129,
                                                     0.126747138406785, -0.182702019761398],
                               rtol=1e-12)
    np.testing.assert_allclose(graph_w, eager_w, rtol=1e-13)


def _grow(x, n, **kwargs):
    return tf.while_loop(lambda i, a: i < n,
                         lambda i, a: (i + 1, tf.concat([a, a[-1:] * x], 0)),
                         (tf.constant(0), tf.reshape(x, [1])), **kwargs)[1]


def test_while_loop_shape_change_without_invariants_raises_tensorflows_error():
    # Eagerly the loop is Python and the shape may grow, as in TensorFlow.
    np.testing.assert_array_equal(_grow(tf.constant(2.0), tf.constant(3)).numpy(),
                                  [2.0, 4.0, 8.0, 16.0])
    with pytest.raises(ValueError, match=r"Input tensor `Reshape:0` enters the loop with shape "
                                         r"\(1,\), but has shape \(2,\) after one iteration\. "
                                         r"To allow the shape to vary across iterations, use "
                                         r"the `shape_invariants` argument"):
        tf.function(_grow)(tf.constant(2.0), tf.constant(3))
    # An invariant that does not admit the body's shape is reported the same way.
    with pytest.raises(ValueError, match=r"enters the loop with shape \(3,\), but has shape"):
        tf.function(lambda x: tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0,
                                            lambda a: tf.concat([a, a], 0), [x],
                                            shape_invariants=[tf.TensorShape([3])]))(
            tf.ones([2]))


def test_while_loop_shape_invariants():
    # A less specific invariant is accepted when the body keeps the shape.
    f = tf.function(lambda x: tf.while_loop(lambda a: a[0] < 10.0, lambda a: a * 2.0, [x],
                                            shape_invariants=[tf.TensorShape([None])]))
    np.testing.assert_array_equal(f(tf.ones([2]))[0].numpy(), [16.0, 16.0])
    # A shape that really changes between iterations, as the invariant allows: the body's
    # graph holds for every size (TF 2.21 gives the same).
    grow = tf.function(lambda x, n: _grow(x, n, shape_invariants=(tf.TensorShape([]),
                                                                  tf.TensorShape([None]))))
    np.testing.assert_array_equal(grow(tf.constant(2.0), tf.constant(3)).numpy(),
                                  [2.0, 4.0, 8.0, 16.0])
    np.testing.assert_array_equal(grow(tf.constant(3.0), tf.constant(1)).numpy(), [3.0, 9.0])
    # Its gradient replays the body at each iteration's own shape (a padded history): the
    # first and second derivatives of x + x^2 + x^3 + x^4 at x = 2, tapes outside and inside
    # the function.
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            total = tf.reduce_sum(grow(x, tf.constant(3)))
        first = tape.gradient(total, x)
    assert (float(first), float(outer.gradient(first, x))) == (49.0, 62.0)

    @tf.function
    def derivatives(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                total = tf.reduce_sum(_grow(x, tf.constant(3), shape_invariants=(
                    tf.TensorShape([]), tf.TensorShape([None]))))
            first = tape.gradient(total, x)
        return first, outer.gradient(first, x)
    assert [float(d) for d in derivatives(x)] == [49.0, 62.0]


def test_while_loop_argument_errors():
    with pytest.raises(TypeError, match=r"Loop var x:0 enters the loop with type <dtype: "
                                        r"'float32'> but has type <dtype: 'int32'> after 1 "
                                        r"iteration\. x:0 type should remain constant\."):
        tf.function(lambda x: tf.while_loop(lambda a: a < 10.0, lambda a: tf.cast(a, tf.int32),
                                            [x]))(tf.ones([]))
    with pytest.raises(ValueError, match=r"'maximum_iterations' must be a scalar\. Received "
                                         r"shape: \(2,\)"):
        tf.while_loop(lambda a: a < 10.0, lambda a: a + 1.0, [tf.ones([])],
                      maximum_iterations=[2, 3])


def test_while_loop_jacobian_in_graph_any_trip_count():
    # jacobian's vectorized pass slices the unused history's zero cotangent per row.
    @tf.function
    def jac(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.sin(a) * x[::-1]),
                              (tf.constant(0), x))[1]
        return tape.jacobian(y, x)
    x = tf.constant([0.7, 0.2], tf.float64)
    expected = {2: [0.0303401, 0.25626292, 0.2763466, 0.47559624],   # TF 2.21
                3: [0.00606602, 0.07693031, 0.28941492, 0.33135127],
                0: [1.0, 0.0, 0.0, 1.0]}
    for n, values in expected.items():
        np.testing.assert_allclose(jac(x, tf.constant(n)).numpy().ravel(), values, atol=1e-8)


def _printed(capsys, *inputs, **kwargs):
    import sys
    tf.print(*inputs, output_stream=sys.stdout, **kwargs)
    return capsys.readouterr().out


def test_print_formats_nested_structures_strings_and_floats_as_tensorflow(capsys):
    # Expected text from TensorFlow 2.21.
    assert _printed(capsys, 1, 2.5, None, [1, "s"], {"b": 1, "a": tf.constant(2)}) == \
        "1 2.5 None [1, 's'] {'a': 2, 'b': 1}\n"
    assert _printed(capsys, [tf.constant(1), "a"], sep=",") == "[1, 'a']\n"
    assert _printed(capsys, tf.constant("hi"), tf.constant([["a"], ["b"]])) == \
        'hi [["a"]\n ["b"]]\n'
    assert _printed(capsys, tf.constant(1 / 3), tf.constant(1 / 3, tf.float64),
                    tf.constant(1 / 3, tf.float16), tf.constant(0.1)) == \
        "0.333333343 0.33333333333333331 0.333251953 0.1\n"
    assert _printed(capsys, tf.constant([1 + 2j])) == "[?]\n"


def test_print_summarizes_every_dimension_and_empty_tensors_as_tensorflow(capsys):
    out = _printed(capsys, tf.constant(np.arange(120).reshape(2, 3, 4, 5)), summarize=1)
    assert out == ("[[[[0 ... 4]\n   ...\n   [15 ... 19]]\n\n  ...\n\n  [[40 ... 44]\n   ...\n"
                   "   [55 ... 59]]]\n\n\n [[[60 ... 64]\n   ...\n   [75 ... 79]]\n\n  ...\n\n"
                   "  [[100 ... 104]\n   ...\n   [115 ... 119]]]]\n")
    assert _printed(capsys, tf.zeros([0]), tf.zeros([0, 2])) == "[] []\n"
    assert _printed(capsys, tf.zeros([2, 0])) == "[\n ...]\n"
    assert _printed(capsys, tf.zeros([3, 0, 2])) == "[\n\n ...]\n"


# -- variables assigned inside traced control flow (TF 2.21's answers) -------------------------

def test_read_after_a_cond_that_assigns_sees_the_new_value():
    v = tf.Variable(2.0)

    @tf.function
    def f(flag):
        before = v.read_value()
        tf.cond(flag, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0))
        return before, v.read_value()     # two reads of v must not merge across the cond

    before, after = f(tf.constant(True))
    assert (before.numpy(), after.numpy()) == (2.0, 3.0)


def _loop_program(v: tf.Variable, w: tf.Variable):
    def increments_in_body():
        tf.while_loop(lambda i: i < 2, lambda i: [(v.assign_add(1.0), i + 1)[1]],
                      [tf.constant(0)])
        return v.read_value()

    def condition_reads_assigned():
        return tf.while_loop(lambda i: v < 40.0, lambda i: [(v.assign(v * 2.0), i + 1)[1]],
                             [tf.constant(0)])[0]

    def cond_in_body():
        tf.while_loop(lambda i: i < 3, lambda i: [(tf.cond(
            i > 0, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0)), i + 1)[1]],
            [tf.constant(0)])
        return v.read_value()

    def nested_loops():
        def outer_body(j):
            tf.while_loop(lambda k: k < 2, lambda k: [(w.assign_add(1.0), k + 1)[1]],
                          [tf.constant(0)])
            return [j + 1]
        tf.while_loop(lambda j: j < 3, outer_body, [tf.constant(0)])
        return w.read_value()

    return [increments_in_body, condition_reads_assigned, cond_in_body, nested_loops]


@pytest.mark.parametrize("traced", [False, True])
def test_loops_that_assign_variables_read_them_anew_each_iteration(traced):
    v, w = tf.Variable(3.0), tf.Variable(0.0)
    results = []
    for program in _loop_program(v, w):
        run = tf.function(program) if traced else program
        results.append(int(run().numpy()))
    # 3 -> 5; 5 -> 10 -> 20 -> 40 in 3 iterations; 40 -> 42; 3 x 2 increments of w.
    assert results == [5, 3, 42, 6]
    assert (v.numpy(), w.numpy()) == (42.0, 6.0)
