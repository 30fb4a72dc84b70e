"""While tracing, operands of dtypes an op does not take raise the TypeError TF 2.21's op
builder raises (its text recorded from TF 2.21 by running the same calls in tf.function);
eagerly they keep the kernel's InvalidArgumentError. A converted lambda's frame shows as TF
shows it (`in None`, the lambda's own source)."""

from __future__ import annotations

import pytest

import tapeflow as tf

A = tf.constant([[1.0]])
B = tf.constant([[1.0]], tf.float64)
I32, I64 = tf.constant([1]), tf.constant([1], tf.int64)

# name -> (the call, TF 2.21's message inside tf.function)
CASES = {
    "add": (lambda: I32 + I64, "Input 'y' of 'AddV2' Op has type int64 that does not match "
                               "type int32 of argument 'x'."),
    "matmul": (lambda: tf.matmul(A, B), "Input 'b' of 'MatMul' Op has type float64 that does "
                                        "not match type float32 of argument 'a'."),
    "atan2": (lambda: tf.math.atan2(A, B), "Input 'x' of 'Atan2' Op has type float64 that "
                                           "does not match type float32 of argument 'y'."),
    "where": (lambda: tf.where(tf.constant([[True]]), A, B),
              "Input 'e' of 'SelectV2' Op has type float64 that does not match type float32 "
              "of argument 't'."),
    "zeta": (lambda: tf.math.zeta(A, B), "Input 'q' of 'Zeta' Op has type float64 that does "
                                         "not match type float32 of argument 'x'."),
    "solve": (lambda: tf.linalg.solve(A, B), "Input 'rhs' of 'MatrixSolve' Op has type "
                                             "float64 that does not match type float32 of "
                                             "argument 'matrix'."),
    "nextafter": (lambda: tf.math.nextafter(A, B),
                  "Input 'x2' of 'NextAfter' Op has type float64 that does not match type "
                  "float32 of argument 'x1'."),
    "less": (lambda: I32 < I64, "Input 'y' of 'Less' Op has type int64 that does not match "
                                "type int32 of argument 'x'."),
    "stack": (lambda: tf.stack([I32, I64, I32]),
              "Tensors in list passed to 'values' of 'Pack' Op have types "
              "[int32, int64, int32] that don't all match."),
    "concat": (lambda: tf.concat([I32, I64], 0),
               "Tensors in list passed to 'values' of 'ConcatV2' Op have types "
               "[int32, int64] that don't all match."),
    "add_n": (lambda: tf.add_n([I32, I64]),
              "Tensors in list passed to 'inputs' of 'AddN' Op have types [int32, int64] "
              "that don't all match."),
    "in_top_k": (lambda: tf.math.in_top_k(I32, tf.constant([[1.0]], tf.float64), 1),
                 "Input 'predictions' of 'InTopKV2' Op has type float64 that does not match "
                 "expected type of float32."),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_traced_dtype_mismatch_raises_tfs_type_error(name):
    call, message = CASES[name]
    with pytest.raises(TypeError) as info:
        tf.function(tf.autograph.experimental.do_not_convert(call))()
    assert str(info.value).strip().splitlines()[-1].strip() == f"TypeError: {message}" or \
        str(info.value) == message


def test_eagerly_the_kernel_error_stays():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AddV2 as input #1"):
        I32 + I64


def test_a_traced_condition_of_another_dtype_names_the_input_as_tf():
    traced = tf.function(lambda c: tf.where(c, c, c), input_signature=[tf.TensorSpec([1])])
    with pytest.raises(TypeError, match="Input 'condition' of 'SelectV2' Op has type float32 "
                                        "that does not match expected type of bool."):
        traced(tf.constant([1.0]))


def test_dataset_reduce_with_an_int32_initial_state_names_the_lambda_as_tf():
    with pytest.raises(TypeError) as info:
        tf.data.Dataset.range(5).reduce(0, lambda s, x: s + x)
    lines = str(info.value).splitlines()
    assert lines[2].endswith(", in None  *")
    assert lines[3].strip() == "lambda s, x: s + x"
    assert lines[-1].strip() == ("TypeError: Input 'y' of 'AddV2' Op has type int64 that does "
                                 "not match type int32 of argument 'x'.")
