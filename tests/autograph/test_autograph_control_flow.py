"""AutoGraph's conversion of Python control flow inside tf.function: tensor conditions become
graph control flow, Python conditions stay Python. Expected values are TF 2.21's answers for
the same programs (measured with tensorflow-cpu 2.21.0)."""

import numpy as np
import pytest

import tapeflow as tf


def value(t):
    return t.numpy() if hasattr(t, "numpy") else t


# -- if -----------------------------------------------------------------------------------------

def test_tensor_if_elif_else_picks_the_branch_per_call_from_one_trace():
    @tf.function
    def sign_class(x):
        if x < 0:
            r = -1
        elif x == 0:
            r = 0
        elif x < 10:
            r = 1
        else:
            r = 2
        return r

    assert [int(sign_class(tf.constant(v))) for v in (-3, 0, 5, 50)] == [-1, 0, 1, 2]
    assert sign_class.experimental_get_tracing_count() == 1
    assert sign_class(tf.constant(5)).dtype == tf.int32   # Python ints became int32 tensors


def test_tensor_if_traces_both_branches_python_if_only_the_taken_one():
    traced = []

    @tf.function
    def f(x, training):
        if x > 0:
            traced.append("tensor-true")
            x = x * 2.0
        else:
            traced.append("tensor-false")
            x = x - 1.0
        if training:
            traced.append("python-true")
            x = x + 100.0
        else:
            traced.append("python-false")
        return x

    assert float(f(tf.constant(3.0), True)) == 106.0
    assert float(f(tf.constant(-3.0), True)) == 96.0      # same trace, other branch
    assert traced == ["tensor-true", "tensor-false", "python-true"]
    assert float(f(tf.constant(3.0), False)) == 6.0
    assert traced[-1] == "python-false"


def test_temporaries_of_a_branch_need_not_exist_in_the_other():
    @tf.function
    def f(x):
        if x > 0:
            t = x * 2
            y = t + 1
        else:
            y = x
        return y

    assert float(f(tf.constant(3.0))) == 7.0


def test_boolean_operators_and_conditional_expressions_on_tensors():
    @tf.function
    def classify(x, y):
        if not (x > 0 or y > 0):
            r = 0
        elif x > 0 and y > 0:
            r = 1
        else:
            r = 2
        return r

    cases = [((1.0, 1.0), 1), ((-1.0, 1.0), 2), ((-1.0, -1.0), 0)]
    for (x, y), expected in cases:
        assert int(classify(tf.constant(x), tf.constant(y))) == expected
    absolute = tf.function(lambda x: x * 2 if x > 0 else x * -3)
    assert float(absolute(tf.constant(-1.0))) == 3.0


def test_and_is_lazy_on_a_tensor_condition():
    # The right operand indexes past the end when the left one is false: it must not run.
    @tf.function
    def first_positive_after(x, i):
        while i < tf.size(x) and x[tf.minimum(i, tf.size(x) - 1)] <= 0:
            i += 1
        return i

    assert int(first_positive_after(tf.constant([-1, -2, 3]), tf.constant(0))) == 2
    assert int(first_positive_after(tf.constant([-1, -2]), tf.constant(0))) == 2


def test_a_branch_of_side_effects_only_runs_when_taken():
    counter = tf.Variable(0.0)

    @tf.function
    def bump(x):
        if x > 0:
            counter.assign_add(1.0)
        return counter.read_value()

    assert float(bump(tf.constant(1.0))) == 1.0
    assert float(bump(tf.constant(-1.0))) == 1.0
    assert float(bump(tf.constant(2.0))) == 2.0


# -- while and for ------------------------------------------------------------------------------

def test_tensor_while_with_a_data_dependent_trip_count():
    @tf.function
    def collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert int(collatz(tf.constant(27))) == 111
    assert int(collatz(tf.constant(1))) == 0
    assert collatz.experimental_get_tracing_count() == 1


def test_python_loops_unroll_while_tracing():
    traced = []

    @tf.function
    def f(x):
        for i in range(3):
            traced.append(i)
            x = x * 2
        k = 0
        while k < 2:
            x = x + 1
            k += 1
        return x, k

    x, k = f(tf.constant(1.0))
    assert (float(x), int(k)) == (10.0, 2)
    assert traced == [0, 1, 2]


def test_for_over_tf_range_including_a_negative_step():
    @tf.function
    def total(n):
        s = 0
        for i in tf.range(n, 0, -2):
            s += i
        return s

    assert int(total(tf.constant(9))) == 25
    assert int(total(tf.constant(0))) == 0


def test_for_over_builtin_range_and_len_of_a_tensor():
    @tf.function
    def total(x):
        s = 0
        for i in range(len(x)):
            s += x[i]
        return s

    assert int(total(tf.constant([1, 2, 3]))) == 6
    unknown = total.get_concrete_function(tf.TensorSpec([None], tf.int32))
    assert int(unknown(tf.constant([1, 2, 3, 4]))) == 10


def test_for_over_the_rows_of_a_tensor_of_unknown_length():
    @tf.function
    def column_sums(x):
        s = tf.zeros([3])
        for row in x:
            s = s + row
        return s

    concrete = column_sums.get_concrete_function(tf.TensorSpec([None, 3]))
    np.testing.assert_array_equal(concrete(tf.ones([4, 3])).numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(concrete(tf.ones([0, 3])).numpy(), [0.0, 0.0, 0.0])


def test_for_over_a_python_list_of_tensors_and_enumerate():
    @tf.function
    def f(values, x):
        total = 0.0
        for v in values:
            total += v
        for i, v in enumerate([x, x * 2]):
            total += v * i
        return total

    assert float(f([tf.constant(1.0), tf.constant(2.0)], tf.constant(1.0))) == 5.0


def test_break_and_continue_in_tensor_loops():
    @tf.function
    def odd_sum_until(n):
        s = 0
        for i in tf.range(n):
            if i > 3:
                break
            if i % 2 == 0:
                continue
            s += i
        return s

    @tf.function
    def nested(n):
        total = tf.constant(0)
        for i in tf.range(n):
            for j in tf.range(i):
                if j % 2 == 0:
                    continue
                total += j
        return total

    @tf.function
    def count_up(n):
        i = tf.constant(0)
        while i < 100:
            i += 1
            if i >= n:
                break
        return i

    assert int(odd_sum_until(tf.constant(10))) == 4
    assert int(nested(tf.constant(6))) == 10
    assert int(count_up(tf.constant(5))) == 5


def test_break_in_a_python_loop():
    @tf.function
    def f(x):
        for i in range(10):
            if i == 3:
                break
            x = x + i
        return x

    assert float(f(tf.constant(1.0))) == 4.0


def test_early_returns_under_tensor_conditions():
    @tf.function
    def f(x):
        if x > 0:
            return x
        x = x * 2
        if x < -5:
            return x + 100
        return x - 100

    assert [float(f(tf.constant(v))) for v in (3.0, -4.0, -1.0)] == [3.0, 92.0, -102.0]


def test_loop_options_maximum_iterations_and_shape_invariants():
    @tf.function
    def doubling(x):
        i = 0
        while x < 100.0:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            x = x * 2.0
            i += 1
        return x, i

    @tf.function
    def growing(n):
        x = tf.zeros([1])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x], 0)
        return x

    x, i = doubling(tf.constant(1.0))
    assert (float(x), int(i)) == (8.0, 3)
    assert growing(tf.constant(3)).shape == (8,)


def test_loop_state_undefined_before_the_loop_starts_as_zeros():
    @tf.function
    def last_double(n):
        i = 0
        while i < n:
            y = i * 2
            i += 1
        return y

    @tf.function
    def last_index(n):
        for i in tf.range(n):  # noqa: B007 - the loop variable is what is returned
            pass
        return i

    @tf.function
    def last_list(n):
        for i in tf.range(n):
            y = [i]
        return y

    assert int(last_double(tf.constant(3))) == 4
    assert int(last_index(tf.constant(3))) == 2
    assert [int(v) for v in last_list(tf.constant(3))] == [2]


def test_a_variable_condition_loops_in_the_graph():
    @tf.function
    def fill(v):
        while v < 5.0:
            v.assign_add(2.0)
        return v.read_value()

    assert float(fill(tf.Variable(0.0))) == 6.0


def test_python_values_the_loop_only_reads_stay_python():
    @tf.function
    def f(n, params):
        total = tf.constant(0.0)
        i = 0
        while i < n:
            total += params["w"]
            i += 1
        return total

    assert float(f(tf.constant(3), {"w": 2.0})) == 6.0


def test_tensor_array_accumulates_in_a_converted_loop():
    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i * i, tf.float32))
        return ta.stack()

    np.testing.assert_array_equal(squares(tf.constant(4)).numpy(), [0.0, 1.0, 4.0, 9.0])


def test_print_runs_while_tracing_tf_print_on_every_call(capsys):
    @tf.function
    def f(n):
        for i in tf.range(n):
            print("traced")
            tf.print("run", i)
        return n

    f(tf.constant(2))
    f(tf.constant(1))
    captured = capsys.readouterr()
    assert captured.out.count("traced") == 1
    assert captured.err == "run 0\nrun 1\nrun 0\n"


# -- the Python fallback --------------------------------------------------------------------------

def test_autograph_false_and_do_not_convert_leave_python_control_flow():
    @tf.function(autograph=False)
    def plain(x):
        if x > 0:
            return x
        return -x

    @tf.autograph.experimental.do_not_convert
    def marked(x):
        if x > 0:
            return x
        return -x

    caller = tf.function(lambda x: marked(x))
    for fn in (plain, caller):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError if hasattr(
                tf.errors, "OperatorNotAllowedInGraphError") else TypeError):
            fn(tf.constant(1.0))


def test_unconvertible_code_runs_as_is_with_tensorflows_warning(caplog):
    @tf.function
    def while_else(n):
        i = 0
        while i < 3:
            i += 1
        else:
            i = i + 100
        return n + i

    with caplog.at_level("WARNING", logger="tapeflow"):
        assert int(while_else(tf.constant(1))) == 104
    assert "AutoGraph could not transform" in caplog.text
    assert "while/else statement not yet supported" in caplog.text
    assert "do_not_convert" in caplog.text


def test_a_function_without_source_runs_as_is(caplog):
    namespace = {}
    exec("def f(x):\n    return x * 2\n", namespace)   # no file: no source to convert
    with caplog.at_level("WARNING", logger="tapeflow"):
        assert float(tf.function(namespace["f"])(tf.constant(2.0))) == 4.0
    assert "could not get source code" in caplog.text


def test_for_over_tf_range_with_float_bounds_of_mixed_dtypes():
    @tf.function
    def total(start, limit, delta):
        s = tf.constant(0.0)
        for i in tf.range(start, limit, delta):   # TF casts the int32 limit to float32
            s += i
        return s

    assert float(total(tf.constant(2.5), tf.constant(0), tf.constant(-1.0))) == 4.5


def test_a_name_a_closure_reads_later_keeps_the_value_a_branch_gave_it():
    # TF 2.21's answer: 2 (the closure sees the branch's assignment).
    @tf.function
    def f(x, flag):
        def read():
            return y
        y = 0
        if flag:
            y = 1
        return read() + x

    assert int(f(tf.constant(1), True)) == 2


def test_names_read_through_locals_are_kept():
    @tf.function
    def f(x):
        y = 0
        for _ in range(2):
            y = y + 1
        return x + locals()["y"]

    assert int(f(tf.constant(1))) == 3


def test_for_over_tf_range_with_a_traced_step_of_either_sign():
    @tf.function
    def total(n, step):
        s = 0
        for i in tf.range(0, n, step):
            s += i
        return s

    results = [int(total(tf.constant(n), tf.constant(d))) for n, d in
               [(10, 2), (10, 3), (-10, -3)]]
    assert results == [20, 18, -18]
    assert total.experimental_get_tracing_count() == 1
