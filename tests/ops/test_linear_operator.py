"""tf.linalg.LinearOperator and its subclasses against TF 2.21's recorded answers
(tools/record_linear_operator_fixtures.py): values, dtypes, result classes, hints, errors and
gradients, each case the same expression evaluated in TF and here."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import errors

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "linear_operator.json")
with open(FIXTURE) as _f:
    _DATA = json.load(_f)
CASES = _DATA["cases"]

_ERRORS = {"ValueError": ValueError, "TypeError": TypeError,
           "NotImplementedError": NotImplementedError,
           "InvalidArgumentError": errors.InvalidArgumentError}


@pytest.fixture(scope="module")
def scope():
    namespace = {"tf": tf, "L": tf.linalg, "np": np}
    exec(_DATA["setup"], namespace)
    exec(_DATA["grad"], namespace)
    return namespace


def _check(got, want, name):
    kind = want["kind"]
    if kind == "operator":
        assert isinstance(got, tf.linalg.LinearOperator), name
        assert type(got).__name__ == want["class"], name
        assert got.shape.as_list() == want["shape"], name
        _check(got.to_dense(), want["dense"], name)
    elif kind == "tensor":
        assert tf.is_tensor(got), name
        assert got.dtype.name == want["dtype"], name
        if "imag" in want:
            expected = np.asarray(want["real"]) + 1j * np.asarray(want["imag"])
        else:
            expected = np.asarray(want["value"])
        np.testing.assert_allclose(got.numpy(), expected, rtol=2e-5, atol=2e-5, err_msg=name)
    elif kind == "shape":
        assert isinstance(got, tf.TensorShape) and got.as_list() == want["value"], name
    elif kind == "tuple":
        assert len(got) == len(want["items"]), name
        for item, expected in zip(got, want["items"]):
            _check(item, expected, name)
    else:
        assert got == want["value"] and type(got) is type(want["value"]), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name, scope):
    case = CASES[name]
    want = case["answer"]
    if want["kind"] == "error":
        with pytest.raises(_ERRORS[want["class"]]) as info:
            eval(case["expr"], scope)
        if want["class"] != "InvalidArgumentError":  # TF's kernel text names its device
            assert str(info.value) == want["message"]
        return
    _check(eval(case["expr"], scope), want, name)


def test_classes_are_tf_linalg_names():
    import tapeflow.ops.linear_operator  # noqa: F401
    from tapeflow.framework.exports import exported

    declared = sorted(n for n in exported("linalg") if n.startswith("LinearOperator"))
    assert declared == sorted(tf.linalg._LINEAR_OPERATORS)
    assert issubclass(tf.linalg.LinearOperatorDiag, tf.linalg.LinearOperator)


def test_variables_stay_trainable_through_the_operator():
    m = tf.Variable([[2., 1.], [0., 3.]])
    op = tf.linalg.LinearOperatorFullMatrix(m)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(op.solvevec([1., 1.]))
    # d/dM sum(M^-1 b) = -M^-T 1 (M^-1 b)^T; TF 2.21: [[-1/6, -1/9], [-1/12, -1/18]] * ...
    grad = tape.gradient(y, m).numpy()
    inv = np.linalg.inv(np.array([[2., 1.], [0., 3.]]))
    expected = -np.outer(inv.T @ np.ones(2), inv @ np.ones(2))
    np.testing.assert_allclose(grad, expected, rtol=1e-6)
