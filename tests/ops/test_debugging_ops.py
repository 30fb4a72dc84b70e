"""tf.debugging's asserts, tf.Assert and check_numerics as TF 2.21: eager errors with TF's
data summaries, static checks at trace time, and Assert / CheckNumerics ops that check each
time a traced graph runs (never while tracing, also when their result is unused). Every
expected message is TF 2.21's answer, measured in TensorFlow."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops.debugging_ops import summarize_value

d = tf.debugging
IAE = tf.errors.InvalidArgumentError


def _message(fn, *args, error=IAE, **kwargs) -> str:
    with pytest.raises(error) as info:
        fn(*args, **kwargs)
    return str(info.value)


def _graph_message(fn, *args) -> str:
    """The kernel's text of a traced graph's error (after tapeflow's location header)."""
    text = _message(fn, *args)
    assert text.startswith("Graph execution error:")
    return text.split("\n\n")[-1].split("\n\t")[0]


# -- names -------------------------------------------------------------------------------------

def test_public_names_as_tf_2_21():
    for name in ["Assert", "assert_equal", "assert_none_equal", "assert_near", "assert_less",
                 "assert_less_equal", "assert_greater", "assert_greater_equal",
                 "assert_positive", "assert_non_negative", "assert_negative",
                 "assert_non_positive", "assert_rank", "assert_rank_at_least",
                 "assert_rank_in", "assert_shapes", "assert_type", "assert_integer",
                 "assert_scalar", "assert_all_finite", "assert_proper_iterable",
                 "assert_same_float_dtype", "is_numeric_tensor", "check_numerics",
                 "set_log_device_placement", "get_log_device_placement"]:
        assert callable(getattr(tf.debugging, name)), name
    # TF 2.21's answer: only these are also top-level; the monotonic tests live in tf.math.
    assert tf.Assert is d.Assert and tf.assert_equal is d.assert_equal
    assert tf.assert_less is d.assert_less and tf.assert_greater is d.assert_greater
    assert tf.assert_rank is d.assert_rank
    for name in ["assert_near", "assert_positive", "assert_shapes", "check_numerics"]:
        assert not hasattr(tf, name), name
    assert not hasattr(tf.debugging, "is_non_decreasing")
    assert callable(tf.math.is_non_decreasing) and callable(tf.math.is_strictly_increasing)


def test_log_device_placement_is_kept():
    assert d.set_log_device_placement(True) is None and d.get_log_device_placement() is True
    d.set_log_device_placement(False)
    assert d.get_log_device_placement() is False


# -- element-wise comparisons, eagerly ---------------------------------------------------------

def test_binary_asserts_pass_eagerly():
    assert d.assert_equal([1, 2], [1, 2]) is None
    assert d.assert_equal(tf.zeros([0]), tf.zeros([0])) is None
    assert d.assert_none_equal([1, 2], [2, 1]) is None
    assert d.assert_less([1, 2], [2, 3]) is None
    assert d.assert_less_equal([1, 3], [1, 3]) is None
    assert d.assert_greater([2, 3], [1, 2]) is None
    assert d.assert_greater_equal([2, 3], [2, 2]) is None
    x = tf.constant([1., 2.])
    assert d.assert_equal(x, x) is None


def test_assert_equal_eager_messages():
    # TF 2.21's answers.
    assert _message(d.assert_equal, [1, 2, 3], [1, 2, 4]) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\n"
        "Corresponding x values:\n[3]\nCorresponding y values:\n[4]\n"
        "First 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 4]")
    assert _message(d.assert_equal, 1, 2) == (
        "Condition x == y did not hold.\nFirst 1 elements of x:\n[1]\n"
        "First 1 elements of y:\n[2]")
    assert _message(d.assert_equal, [1, 2, 3, 4], [0, 2, 5, 7], message="my msg",
                    summarize=1) == (
        "my msg\nCondition x == y did not hold.\nIndices of first 1 different values:\n[[0]]\n"
        "Corresponding x values:\n[1]\nCorresponding y values:\n[0]\n"
        "First 1 elements of x:\n[1]\nFirst 1 elements of y:\n[0]")
    assert _message(d.assert_equal, [1, 2, 3, 4, 5], [0, 2, 5, 7, 9], summarize=-1) == (
        "Condition x == y did not hold.\nIndices of first 4 different values:\n"
        "[[0]\n [2]\n [3]\n [4]]\nCorresponding x values:\n[1 3 4 5]\n"
        "Corresponding y values:\n[0 5 7 9]\nFirst 5 elements of x:\n[1 2 3 4 5]\n"
        "First 5 elements of y:\n[0 2 5 7 9]")
    assert _message(d.assert_equal, [1, 2], [1, 3], summarize=0) == \
        "Condition x == y did not hold."
    # Shapes that differ (broadcast) give no indices.
    assert _message(d.assert_equal, [1, 2], [[1, 2], [1, 3]]) == (
        "Condition x == y did not hold.\nFirst 2 elements of x:\n[1 2]\n"
        "First 3 elements of y:\n[1 2 1]")
    assert _message(d.assert_equal, [[1, 2], [3, 4]], [[1, 2], [3, 5]]) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1 1]]\n"
        "Corresponding x values:\n[4]\nCorresponding y values:\n[5]\n"
        "First 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 3]")
    assert "Corresponding x values:\n[b'a']" in _message(d.assert_equal, ["a"], ["b"])
    assert "First 1 elements of x:\n[nan]" in _message(d.assert_equal, [np.nan], [np.nan])


def test_other_binary_asserts_eager_messages():
    # TF 2.21's answers.
    assert _message(d.assert_none_equal, [1, 2, 3], [0, 2, 4]).startswith(
        "Condition x != y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
        "Corresponding x values:\n[2]\nCorresponding y values:\n[2]\n")
    assert _message(d.assert_less, [1, 2, 3], [2, 2, 4]).startswith(
        "Condition x < y did not hold.\nIndices of first 1 different values:\n[[1]]")
    assert _message(d.assert_less_equal, [1, 3], [2, 2]).endswith(
        "First 2 elements of x:\n[1 3]\nFirst 2 elements of y:\n[2 2]")
    assert _message(d.assert_greater, [1, 2], [0, 2]).startswith(
        "Condition x > y did not hold.")
    assert _message(d.assert_greater_equal, [1.5, 2.], [1.5, 2.5]) == (
        "Condition x >= y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
        "Corresponding x values:\n[2.]\nCorresponding y values:\n[2.5]\n"
        "First 2 elements of x:\n[1.5 2. ]\nFirst 2 elements of y:\n[1.5 2.5]")


def test_binary_assert_operand_errors():
    # TF 2.21's error classes: the comparison op's own errors.
    with pytest.raises(IAE, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        d.assert_equal([1, 2], [1, 2, 3])
    with pytest.raises(IAE, match="expected to be a int32 tensor but is a float tensor"):
        d.assert_equal(tf.constant([1, 2]), [1., 2.])
    # x and y convert separately, so a Python list does not take x's int64.
    with pytest.raises(IAE, match="expected to be a int64 tensor but is a int32 tensor"):
        d.assert_equal(tf.constant([1], tf.int64), [1])


def test_sign_asserts_eager():
    assert d.assert_positive([1, 2]) is None and d.assert_positive(tf.zeros([0])) is None
    assert d.assert_non_negative([0., 1.]) is None
    assert d.assert_negative([-1]) is None and d.assert_non_positive([0, -2]) is None
    # TF 2.21's answers (its data list, each tensor as a list of texts).
    assert _message(d.assert_positive, [1, -1, 0, 5]) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(4,) dtype=int32) = \n"
        "['1', '-1', '0', '...']")
    assert _message(d.assert_positive, [1, -1, 0, 5], message="pos", summarize=2) == (
        "pos.  \nCondition x > 0 did not hold element-wise:\nx (shape=(4,) dtype=int32) = \n"
        "['1', '-1', '...']")
    assert _message(d.assert_positive, -3.) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=() dtype=float32) = \n-3.0")
    assert _message(d.assert_non_negative, [1., -1.]) == (
        "\nCondition x >= 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n"
        "['1.0', '-1.0']")
    assert _message(d.assert_negative, [-1, 1]) == (
        "\nCondition x < 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n"
        "['-1', '1']")
    # TF's assert_non_positive runs its two strings together (a missing comma).
    assert _message(d.assert_non_positive, [-1, 1]) == (
        "\nCondition x <= 0 did not hold element-wise:x (shape=(2,) dtype=int32) = \n"
        "['-1', '1']")
    assert _message(d.assert_positive, [1, -1, 2], summarize=0).endswith("\n['...']")
    # TF 2.21 slices with summarize=1e9 there: a TypeError.
    with pytest.raises(TypeError, match="slice indices must be integers"):
        d.assert_positive([1, -1], summarize=-1)
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype string"):
        d.assert_positive(["a"])


def test_assert_near_eager():
    assert d.assert_near([1., 2.], [1., 2.000001]) is None
    assert d.assert_near([0.], [0.]) is None
    assert d.assert_near(tf.constant([1., 2.], tf.float16), [1., 2.01]) is None  # 10 eps
    # TF 2.21's answers: the eager Assert's text, tolerances as eager tensors.
    assert _message(d.assert_near, [1., 2.], [1., 2.1]) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), "
        "dtype=float32), atol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, 2.0\n"
        "b'y (shape=(2,) dtype=float32) = '\n1.0, 2.1")
    assert "rtol = tf.Tensor(2.220446049250313e-15, shape=(), dtype=float64)" in _message(
        d.assert_near, tf.constant([1., 2.], tf.float64), [1., 2.000001])
    assert _message(d.assert_near, [1., 2.], [1., 3.], rtol=0.1, atol=0.01, message="nm",
                    summarize=1).endswith(
        "Summarized data: b'nm.  '\nb'x and y not equal to tolerance rtol = tf.Tensor(0.1, "
        "shape=(), dtype=float32), atol = tf.Tensor(0.01, shape=(), dtype=float32)'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, ...\nb'y (shape=(2,) dtype=float32) = '\n"
        "1.0, ...")
    assert "b'x (shape=(1,) dtype=complex128) = '\n(1+1j)" in _message(
        d.assert_near, tf.constant([1 + 1j]), tf.constant([1 + 2j]))
    with pytest.raises(ValueError, match=r"data type <class 'numpy.int32'> not inexact"):
        d.assert_near([1, 2], [1, 3])
    with pytest.raises(ValueError, match="rtol: Tensor conversion requested dtype float32"):
        d.assert_near([1.], [2.], rtol=tf.constant(0.1, tf.float64))
    with pytest.raises(ValueError, match="y: Tensor conversion requested dtype float32"):
        d.assert_near([1.], tf.constant([2.], tf.float64))


# -- tf.Assert -----------------------------------------------------------------------------------

def test_assert_eager():
    assert tf.Assert(True, [1]) is None
    # TF 2.21's answers.
    assert _message(tf.Assert, False, [tf.constant([1, 2, 3, 4]), "str", 3.5]) == \
        "Expected 'False' to be true. Summarized data: 1, 2, 3, ...\nb'str'\n3.5"
    assert _message(tf.Assert, tf.constant(False), [tf.constant([1., 2.])], summarize=1) == \
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: 1.0, ..."
    assert _message(tf.Assert, False, [tf.constant([1, 2, 3, 4])], summarize=-1) == \
        "Expected 'False' to be true. Summarized data: 1, 2, 3, 4"
    assert _message(tf.Assert, False, [tf.constant([1, 2, 3, 4]), 5], summarize=0) == \
        "Expected 'False' to be true. Summarized data: ...\n"
    assert _message(tf.Assert, False, [tf.constant([[1, 2], [3, 4]])]) == \
        "Expected 'False' to be true. Summarized data: 1, 2, 3, ..."
    assert _message(tf.Assert, 0, ["x"]) == "Expected '0' to be true. Summarized data: b'x'"
    assert _message(tf.Assert, False, []) == "Expected 'False' to be true. Summarized data: "
    with pytest.raises(ValueError, match="truth value of an array with more than one"):
        tf.Assert(tf.constant([True, False]), [1])
    with pytest.raises(TypeError, match="values must be a sequence."):
        tf.Assert(False, 5)


def test_assert_traced_runs_when_the_graph_runs():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        op = tf.Assert(tf.reduce_all(x > 0), [x, "s", tf.constant(7)])
        assert op.type == "Assert"
        return x

    # Traced on failing values: the error is the graph's, not the trace's.
    assert _graph_message(f, tf.constant([1, -2, 3, 4, 5])) == \
        "assertion failed: [1 -2 3...] [s] [7]"   # TF 2.21's answer
    np.testing.assert_array_equal(f(tf.constant([1, 2, 3, 4, 5])), [1, 2, 3, 4, 5])
    assert len(traces) == 1
    # TF 2.21's answer for float data (TF's guarded Assert).
    assert _graph_message(f, tf.constant([1., -2.5, 3., 4., 5.])) == \
        "assertion failed: [1 -2.5 3...] [s] [7]"


def test_assert_traced_from_a_signature():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        tf.Assert(tf.reduce_all(x > 0), [x], summarize=10)
        return x * 2

    np.testing.assert_array_equal(f(tf.constant([1., 2.])), [2., 4.])
    assert _graph_message(f, tf.constant([1., -2.5])) == "assertion failed: [1 -2.5]"


def test_unused_assert_and_control_dependencies_still_run():
    @tf.function
    def f(x):
        with tf.control_dependencies([tf.Assert(False, [x])]):
            return x

    @tf.function
    def g(x):
        d.assert_positive(x)   # the result is dropped
        return x + 1

    assert _graph_message(f, tf.zeros([2], tf.int32)) == "assertion failed: [0 0]"
    assert _graph_message(g, tf.constant([1., -2., 3., 4.])) == (
        "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] "
        "[1 -2 3...]")   # TF 2.21's answer


def test_traced_assert_condition_errors():
    cond_fn = tf.function(lambda c, x: tf.Assert(c, [x]) and x)
    # TF 2.21's answers: a guarded Assert's cond, an unguarded Assert's kernel, and the op's
    # dtype check at trace time.
    assert _graph_message(cond_fn, tf.constant([True, False]), tf.constant([1.])) == \
        "The second input must be a scalar, but it has shape [2]"
    assert _graph_message(cond_fn, tf.constant([False, True]), tf.constant([1])) == \
        "In[0] should be a scalar: [2]"
    with pytest.raises(TypeError, match="Input 'condition' of 'Assert' Op has type int32 that "
                                        "does not match expected type of bool."):
        cond_fn(tf.constant(0), tf.constant([1]))


def test_assert_in_cond_branch_and_under_a_tape():
    @tf.function
    def f(x):
        def positive():
            tf.Assert(tf.reduce_all(x > 0), [x])
            return x
        return tf.cond(tf.reduce_sum(x) > -100., positive, lambda: x)

    # Traced on failing values: the branch's trace-time run computes examples, not checks.
    assert _graph_message(f, tf.constant([-1., 2.])) == "assertion failed: [-1 2]"
    np.testing.assert_array_equal(f(tf.constant([1., 2.])), [1., 2.])
    x = tf.constant([-1., 2.])
    with tf.GradientTape() as tape:   # a taped call replays the graph op by op
        tape.watch(x)
        with pytest.raises(IAE, match=r"assertion failed: \[-1 2\]"):
            f(x)


def test_summarize_value_as_tf_kernel():
    # TF 2.21's answers (Tensor::SummarizeValue, as the Assert kernel prints data).
    assert summarize_value(np.array([[1., -2.5], [3., 4.]], np.float32), 10) == "[1 -2.5][3 4]"
    assert summarize_value(-np.ones([2, 2, 2], np.float32), 3) == "[[-1 -1][-1...]]..."
    assert summarize_value(np.array(-1.5, np.float32), 3) == "-1.5"
    assert summarize_value(np.array([1., 2.], np.float32), 0) == "..."
    assert summarize_value(np.zeros([2, 0, 3], np.float32), 3) == ""
    assert summarize_value(np.array([-1, 2, 3, 4, 5]), -1) == "-1 2 3 4 5"
    floats = np.array([1 / 3, 1e-5, 123456789., np.nan, np.inf, -np.inf, 0., -0., 1e20,
                       1e-20, 100000., 1000000., 0.0001, 1.5, 16777216., 0.1], np.float32)
    assert summarize_value(floats, 30) == (
        "0.333333343 1e-05 123456792 nan inf -inf 0 -0 1e+20 1e-20 100000 1e+06 0.0001 1.5 "
        "16777216 0.1")
    doubles = np.array([1 / 3, 1e-5, 123456789., np.nan, 1e100, 0.1 + 0.2, 1e16, 1e15,
                        123456789012345678., 1e-300, -2.5])
    assert summarize_value(doubles, 30) == (
        "0.33333333333333331 1e-05 123456789 nan 1e+100 0.30000000000000004 1e+16 1e+15 "
        "1.2345678901234568e+17 1e-300 -2.5")
    halves = np.array([1 / 3, 0.1, 65504, 1e-4, 1000, np.inf, np.nan, 2.5], np.float16)
    assert summarize_value(halves, 30) == \
        "0.333251953 0.0999755859 65504 0.000100016594 1000 inf nan 2.5"
    assert summarize_value(np.array([[True, False]]), 3) == "[1 0]"
    assert summarize_value(np.array([-1, 2], np.int8), 3) == "-1 2"
    assert summarize_value(np.array([2 ** 40]), 3) == "1099511627776"
    assert summarize_value(np.array([b"a\nb", b'q"', "é".encode()], object), 3) == \
        'a\\nb q\\" é'
    assert summarize_value(np.array([1 + 2j]), 3) == "?"


# -- static checks at trace time, run-time checks of what a trace cannot know ---------------------

def test_traced_binary_asserts():
    @tf.function
    def eq(x, y):
        op = d.assert_equal(x, y, message="mm", summarize=2)
        assert op.type == "Assert"
        return x

    # TF 2.21's answer.
    assert _graph_message(eq, tf.constant([1, 2, 3, 4]), tf.constant([1, 2, 4, 4])) == (
        "assertion failed: [mm] [Condition x == y did not hold element-wise:] [x (x:0) = ] "
        "[1 2...] [y (y:0) = ] [1 2...]")
    np.testing.assert_array_equal(eq(tf.constant([1, 2]), tf.constant([1, 2])), [1, 2])
    less = tf.function(lambda x, y: d.assert_less(x, y) and x)
    assert _graph_message(less, tf.constant([1., 2., 3., 4., 5.]), tf.ones([5])) == (
        "assertion failed: [Condition x < y did not hold element-wise:] [x (x:0) = ] "
        "[1 2 3...] [y (y:0) = ] [1 1 1...]")
    nonpos = tf.function(lambda x: d.assert_non_positive(x, message="np") and x)
    assert _graph_message(nonpos, tf.constant([1, -2])) == (
        "assertion failed: [np.  ] [Condition x <= 0 did not hold element-wise:x (x:0) = ] "
        "[1 -2]")


def test_traced_constant_operands_fail_at_trace_time():
    @tf.function
    def f():
        d.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
        return 1

    # TF 2.21's answer: the static check's text, constants by value.
    text = _message(f)
    assert text.startswith("in user code:")
    assert "InvalidArgumentError: Condition x == y did not hold element-wise:\n" \
           "    x (Const:0) = \n    [1 2]\n    y (Const_1:0) = \n    [1 3]" in text


def test_traced_assert_near_names_its_tolerances():
    near = tf.function(lambda x, y: d.assert_near(x, y) and x)
    text = _graph_message(near, tf.constant([1., 2.]), tf.constant([1., 2.5]))
    # TF 2.21 prints the tolerances as graph tensors (TF names them assert_near/rtol:0).
    assert text.startswith("assertion failed: [] [x and y not equal to tolerance rtol = "
                           "Tensor(\\\"")
    assert text.endswith('dtype=float32)] [x (x:0) = ] [1 2] [y (y:0) = ] [1 2.5]')


def test_rank_asserts():
    assert d.assert_rank([1, 2], 1) is None
    assert d.assert_rank_at_least([[1, 2]], 1) is None
    assert d.assert_rank_in([1, 2], (0, 1)) is None
    # TF 2.21's answers.
    assert _message(d.assert_rank, [1, 2], 2, error=ValueError) == \
        "Tensor  must have rank 2.  Received rank 1, shape (2,)"
    assert _message(d.assert_rank, [1, 2], 2, message="rk", error=ValueError) == \
        "rk.  Tensor  must have rank 2.  Received rank 1, shape (2,)"
    assert _message(d.assert_rank, [1, 2], [1], error=ValueError) == "Rank must be a scalar."
    assert _message(d.assert_rank, [1, 2], 1., error=TypeError) == \
        "tensor must be of type tf.int32; got tf.float32"
    assert _message(d.assert_rank_at_least, [1, 2], 2, error=ValueError) == \
        "Tensor  must have rank at least 2.  Received rank 1, shape (2,)"
    assert _message(d.assert_rank_in, [1, 2], (0, 2), message="ri", error=ValueError) == \
        "ri.  Tensor  must have rank in (0, 2).  Received rank 1, shape (2,)"
    assert _message(d.assert_rank_in, [1, 2], [], error=ValueError) == \
        "Tensor  must have rank in ().  Received rank 1, shape (2,)"
    assert _message(d.assert_rank_in, [1], [tf.constant(1, tf.int64)], error=TypeError) == \
        "tensor must be of type tf.int32; got tf.int64"


def test_rank_asserts_traced():
    @tf.function
    def known(x):
        assert d.assert_rank(x, 1).type == "NoOp"
        d.assert_rank(x, 2)
        return x

    assert "ValueError: Tensor x:0 must have rank 2.  Received rank 1, shape (1,)" in \
        _message(known, tf.constant([1.]), error=ValueError)   # TF 2.21's answer

    unknown = tf.TensorSpec(None, tf.float32)
    rank = tf.function(lambda x: d.assert_rank(x, 2) and x, input_signature=[unknown])
    at_least = tf.function(lambda x: d.assert_rank_at_least(x, 2, message="al") and x,
                           input_signature=[unknown])
    rank_in = tf.function(lambda x: d.assert_rank_in(x, [0, 2]) and x,
                          input_signature=[unknown])
    np.testing.assert_array_equal(rank(tf.ones([1, 2])), [[1., 1.]])
    # TF 2.21's answers.
    assert _graph_message(rank, tf.constant([1.])) == \
        "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [1]"
    assert _graph_message(at_least, tf.constant([1.])) == \
        "assertion failed: [al.  ] [Tensor x:0 must have rank at least] [2] " \
        "[Received shape: ] [1]"
    assert _graph_message(rank_in, tf.constant([1.])) == \
        "assertion failed: [] [Tensor x:0 must have rank in] [0] [2] [Received shape: ] [1]"


def test_assert_shapes_eager():
    x, y, p = tf.zeros([10, 3]), tf.ones([10, 7]), tf.Variable([1., 2., 3.])
    assert d.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (p, ("Q",)), (1.0, ())]) is None
    assert d.assert_shapes([(tf.zeros([2, 3, 4]), (..., 4)), (tf.zeros([4]), ("*", 4))]) is None
    assert d.assert_shapes([(tf.constant(1.), (1,)), (tf.zeros([1]), ())]) is None
    assert d.assert_shapes([(x, (None, ".")), (x, None), (x, tf.TensorShape([10, 3])),
                            (x, "NQ")]) is None
    # TF 2.21's answers.
    cases = [
        ([(x, ("N", "D")), (y, ("N", "D"))], None,
         "Specified by tensor shape=(10, 3) dtype=float32 dimension 1.  Tensor shape=(10, 7) "
         "dtype=float32 dimension 1 must have size 3.  Received size 7, shape (10, 7)"),
        ([(x, ("N",))], None,
         "Tensor  must have rank in (0, 1).  Received rank 2, shape (10, 3)"),
        ([(x, ("N", "Q", "R"))], "sm", "sm.  Tensor  must have rank 3.  Received rank 2, "
                                       "shape (10, 3)"),
        ([(x, (10, 4))], "em",
         "em.  Specified explicitly.  Tensor shape=(10, 3) dtype=float32 dimension 1 must "
         "have size 4.  Received size 3, shape (10, 3)"),
        ([(tf.zeros([2, 3, 4]), (..., 5))], None,
         "Specified explicitly.  Tensor shape=(2, 3, 4) dtype=float32 dimension -1 must have "
         "size 5.  Received size 4, shape (2, 3, 4)"),
        ([(tf.zeros([4]), (..., 3, 4))], None,
         "Tensor  must have rank at least 2.  Received rank 1, shape (4,)"),
        ([(x, ("N", ...))], None,
         "Tensor shape=(10, 3) dtype=float32 specified shape index 1.  Symbol `...` or `*` "
         "for a variable number of unspecified dimensions is only allowed as the first entry"),
        ([(x, 3)], None,
         "Tensor shape=(10, 3) dtype=float32.  Specified shape must be an iterable.  An "
         "iterable has the attribute `__iter__` or `__getitem__`.  Received specified "
         "shape: 3"),
        ([(tf.constant(1.), (2,))], None,
         "Specified explicitly.  Tensor shape=() dtype=float32 dimension 0 must have size 2.  "
         "Received size 1, shape ()"),
    ]
    for shapes, message, expected in cases:
        assert _message(d.assert_shapes, shapes, message=message, error=ValueError) == expected


def test_assert_shapes_traced():
    @tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([None, 7])])
    def f(a, b):
        assert d.assert_shapes([(a, ("N", "Q")), (b, ("N", "D"))]) is None
        return a

    f(tf.zeros([2, 3]), tf.zeros([2, 7]))
    # TF 2.21's answers.
    assert _graph_message(f, tf.zeros([2, 3]), tf.zeros([4, 7])) == (
        "assertion failed: [] [Specified by tensor a:0 dimension 0] [Tensor b:0 dimension] "
        "[0] [must have size] [2] [Received shape: ] [4 7]")
    explicit = tf.function(lambda a: d.assert_shapes([(a, (5, "Q"))]) or a,
                           input_signature=[tf.TensorSpec([None, 3])])
    assert _graph_message(explicit, tf.zeros([2, 3])) == (
        "assertion failed: [] [Specified explicitly] [Tensor a:0 dimension] [0] "
        "[must have size] [5] [Received shape: ] [2 3]")
    any_rank = tf.function(lambda a: d.assert_shapes([(a, ("N", "Q"))]) or a,
                           input_signature=[tf.TensorSpec(None)])
    assert _graph_message(any_rank, tf.zeros([2])) == \
        "assertion failed: [] [Tensor a:0 must have rank] [2] [Received shape: ] [2]"
    any_rank(tf.zeros([2, 5]))
    static = tf.function(lambda a: d.assert_shapes([(a, ("N", 4))]) or a,
                         input_signature=[tf.TensorSpec([None, 3])])
    assert "ValueError: Specified explicitly.  Tensor a:0 dimension 1 must have size 4.  " \
           "Received size 3, shape (None, 3)" in _message(static, tf.zeros([2, 3]),
                                                         error=ValueError)


# -- dtypes and static properties ----------------------------------------------------------------

def test_static_asserts():
    assert d.assert_type(tf.constant(1), tf.int32) is None
    assert d.assert_type(tf.constant(1), "int32") is None
    assert d.assert_integer(tf.constant(1)) is None
    assert d.assert_scalar(3) is None
    # TF 2.21's answers.
    assert _message(d.assert_type, tf.constant(1), tf.float32, message="ty",
                    error=TypeError) == "ty.  tensor must be of type tf.float32; got tf.int32"
    assert _message(d.assert_type, tf.Variable(1.), tf.int32, error=TypeError) == \
        "tensor must be of type tf.int32; got tf.float32"
    assert _message(d.assert_integer, tf.constant(1.), message="in", error=TypeError) == \
        "in.  Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>"
    assert _message(d.assert_scalar, [1], message="sc", error=ValueError) == \
        "sc.  Expected scalar shape, saw shape: (1,)."

    @tf.function
    def f(x):
        for check in (lambda: d.assert_scalar(x), lambda: d.assert_type(x, tf.int32),
                      lambda: d.assert_integer(x)):
            with pytest.raises((TypeError, ValueError)) as info:
                check()
            texts.append(str(info.value))
        return x

    texts = []
    f(tf.constant([1.]))
    assert texts == ["Expected scalar shape for x:0, saw shape: (1,).",
                     "x:0 must be of type tf.int32; got tf.float32",
                     "Expected \"x\" to be integer type.  Found: x:0 of dtype <dtype: "
                     "'float32'>"]
    unknown = tf.function(lambda a: d.assert_scalar(a), input_signature=[tf.TensorSpec(None)])
    assert "Expected scalar shape for a:0, saw shape: <unknown>." in _message(
        unknown.get_concrete_function, error=ValueError)


def test_assert_proper_iterable():
    assert d.assert_proper_iterable([1]) is None and d.assert_proper_iterable((1,)) is None
    for value, found in [(np.array([1]), "<class 'numpy.ndarray'>"), ("ab", "<class 'str'>")]:
        assert _message(d.assert_proper_iterable, value, error=TypeError) == \
            f'Expected argument "values" to be a "proper" iterable.  Found: {found}'
    assert "\"proper\" iterable" in _message(d.assert_proper_iterable, tf.constant([1]),
                                             error=TypeError)
    assert _message(d.assert_proper_iterable, 3, error=TypeError) == \
        "Expected argument \"values\" to be iterable.  Found: <class 'int'>"


def test_assert_same_float_dtype():
    assert d.assert_same_float_dtype([tf.constant(1.)]) == tf.float32
    assert d.assert_same_float_dtype() == tf.float32
    assert d.assert_same_float_dtype(None, tf.float64) == tf.float64
    # TF 2.21's answers.
    assert _message(d.assert_same_float_dtype, [tf.constant(1)], error=ValueError) == \
        "Expected floating point type, got <dtype: 'int32'>."
    assert _message(d.assert_same_float_dtype, [tf.constant(1.), tf.constant(1., tf.float64)],
                    error=ValueError) == (
        "tf.Tensor(1.0, shape=(), dtype=float64), type=<dtype: 'float64'>, must be of the "
        "same type (<dtype: 'float32'>) as tf.Tensor(1.0, shape=(), dtype=float32).")


def test_is_numeric_and_monotonic():
    # TF 2.21's answers.
    assert [d.is_numeric_tensor(tf.constant(v)) for v in [1, 1., 1j, True, "s"]] == \
        [True, True, True, False, False]
    assert d.is_numeric_tensor(tf.constant(1, tf.uint64))
    assert not d.is_numeric_tensor(1) and not d.is_numeric_tensor(np.array(1.))
    assert not d.is_numeric_tensor(tf.Variable(1.))
    nondec, strict = tf.math.is_non_decreasing, tf.math.is_strictly_increasing
    assert [bool(nondec(v)) for v in ([1, 1, 3], [3, 1], [5], [[1, 2], [2, 3]],
                                      [[1, 3], [2, 4]], [1., np.nan, 2.])] == \
        [True, False, True, True, False, False]
    assert [bool(strict(v)) for v in ([1, 1, 3], [1, 2, 3], [])] == [False, True, True]
    assert nondec([1, 2]).dtype == tf.bool and nondec([1, 2]).shape == ()
    assert _message(nondec, ["a"], error=TypeError) == \
        "Expected x to be numeric, instead found: tf.Tensor([b'a'], shape=(1,), dtype=string)"
    traced = tf.function(lambda x: (nondec(x), strict(x)))
    assert [bool(t) for t in traced(tf.constant([1, 2, 2]))] == [True, False]
    assert [bool(t) for t in traced(tf.constant([1]))] == [True, True]


# -- check_numerics and assert_all_finite --------------------------------------------------------

_PREFIX = ("{{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/"
           "device:CPU:0}} ")


def test_check_numerics_eager():
    x = tf.constant([1., 2.])
    np.testing.assert_array_equal(d.check_numerics(x, "cn"), [1., 2.])
    # TF 2.21's answers (" name: " where a tensor was passed, as TF's slow path).
    assert _message(d.check_numerics, [1., np.nan], "cn") == \
        _PREFIX + "cn : Tensor had NaN values [Op:CheckNumerics]"
    assert _message(d.check_numerics, [1., -np.inf], "cn") == \
        _PREFIX + "cn : Tensor had Inf values [Op:CheckNumerics]"
    assert _message(d.check_numerics, [np.inf, np.nan], "cn") == \
        _PREFIX + "cn : Tensor had Inf and NaN values [Op:CheckNumerics]"
    for dtype in (tf.float16, tf.float64):
        assert _message(d.check_numerics, tf.constant([np.nan], dtype), "cn") == \
            _PREFIX + "cn : Tensor had NaN values [Op:CheckNumerics] name: "
    assert _message(d.check_numerics, [1, 2], "cn") == (
        "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
        "float, double\n\t; NodeDef: {{node CheckNumerics}}; Op<name=CheckNumerics; "
        "signature=tensor:T -> output:T; attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, "
        "DT_DOUBLE]; attr=message:string; is_stateful=true> [Op:CheckNumerics]")


def test_assert_all_finite_eager():
    np.testing.assert_array_equal(d.assert_all_finite([1., 2.], "fin"), [1., 2.])
    assert _message(d.assert_all_finite, [1., np.nan], "fin") == \
        _PREFIX + "fin : Tensor had NaN values [Op:CheckNumerics] name: "   # TF 2.21's answer


def test_check_numerics_traced_runs_even_unused():
    @tf.function
    def used(x):
        return d.check_numerics(x, "cnm")

    @tf.function
    def unused(x):
        d.check_numerics(x, "unused")
        d.assert_all_finite(x, "afm")
        return x + 1

    np.testing.assert_array_equal(used(tf.constant([1., 2.])), [1., 2.])
    # TF 2.21's answers: the kernel's text, without the eager prefix.
    assert _graph_message(used, tf.constant([1., np.nan])) == "cnm : Tensor had NaN values"
    assert _graph_message(unused, tf.constant([1., np.inf])) == "unused : Tensor had Inf values"
    with pytest.raises(TypeError, match="Value passed to parameter 'tensor' has DataType "
                                        "int32 not in list of allowed values: bfloat16, "
                                        "float16, float32, float64"):
        tf.function(lambda x: d.check_numerics(x, "m"))(tf.constant([1]))


def test_check_numerics_gradient():
    v = tf.constant([1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(v)
        z = d.check_numerics(v, "gm")
        w = tf.reduce_sum(z * z)
    np.testing.assert_array_equal(tape.gradient(w, v), [2., 4.])
    v = tf.constant([1., 0.])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(v)
        w = tf.reduce_sum(tf.math.log(d.check_numerics(v, "gm")))
        w2 = tf.reduce_sum(tf.math.log(d.assert_all_finite(v, "af")))
    # TF 2.21's answers: CheckNumerics checks its gradient too, naming its message as bytes;
    # assert_all_finite returns an identity, so its gradient is not checked.
    assert _message(tape.gradient, w, v) == (
        _PREFIX + "Not a number (NaN) or infinity (Inf) values detected in gradient. b'gm' : "
        "Tensor had Inf values [Op:CheckNumerics] name: ")
    np.testing.assert_array_equal(tape.gradient(w2, v), [1., np.inf])


def test_check_numerics_forward_mode():
    x = tf.constant([1., 2.])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1., 3.])) as acc:
        y = d.check_numerics(x * x, "m")
    np.testing.assert_array_equal(acc.jvp(y), [2., 12.])
    # TF 2.21's answer: forward mode checks the tangent with the gradient's gradient's message.
    with pytest.raises(IAE) as info:
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1., np.nan])):
            d.check_numerics(x * x, "m")
    assert str(info.value) == (
        _PREFIX + "Not a number (NaN) or infinity (Inf) values detected in gradient. "
        "b\"Not a number (NaN) or infinity (Inf) values detected in gradient. b'm'\" : "
        "Tensor had NaN values [Op:CheckNumerics] name: ")


def test_a_traced_assert_names_a_python_operand_in_its_scope_as_tf():
    """TF 2.21's texts: a Python operand is converted inside the assert's name scope
    ('assert_less/y:0', numbered per call; assert_equal takes two scope names per call)."""
    @tf.function
    def two_less(x, z):
        tf.debugging.assert_less(z, x)
        tf.debugging.assert_less(x, [2])
        return x

    @tf.function
    def two_equal(x):
        tf.debugging.assert_equal(x, [3], message="a")
        tf.debugging.assert_equal(x, [2], message="b")
        return x

    @tf.function
    def named(x):
        tf.debugging.assert_greater([0], x, name="mine")
        return x

    cases = [(lambda: two_less(tf.constant([3]), tf.constant([1])), "[y (assert_less_1/y:0) = ]"),
             (lambda: two_equal(tf.constant([3])), "[y (assert_equal_3/y:0) = ]"),
             (lambda: named(tf.constant([3])), "[x (mine/x:0) = ] [0] [y (x:0) = ]")]
    for call, words in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            call()
        assert words in str(info.value)
