"""tf.experimental.numpy against TensorFlow 2.21's answers (tests/experimental/fixtures/
tnp.json, recorded by tools/record_tnp_fixtures.py): every case's dtype, shape and values
(or error class) in TF's three modes: defaults, NumPy behaviour, and NumPy behaviour with
prefer_float32."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.experimental.numpy as tnp
from tapeflow.experimental.numpy import _behavior
from tapeflow.ops import operators

from _tnp_fixture import FIXTURE, answer, environment, same  # noqa: I001

# Where TF 2.21 fails through a bug of its own, tapeflow gives NumPy's answer instead:
# without NumPy behaviour TF's tnp calls `.astype` (an ndarray method that exists only once
# enabled) in its unary math, `around`, `average`, `hypot`... (AttributeError): there the
# answer must be TF's own once NumPy behaviour is on. And in every mode:
NUMPY_WHERE_TF_FAILS = {
    "tnp.var(f, ddof=1)": lambda f: np.var(f, ddof=1),                 # TF: TypeError
    "tnp.var(f, 1, ddof=1, keepdims=True)": lambda f: np.var(f, 1, ddof=1, keepdims=True),
    "tnp.cumsum(b)": lambda f: np.cumsum([True, False, True]),         # TF: InvalidArgument
    "tnp.around(ii, -1)": lambda f: np.around([[3, 1, 2], [0, 5, 4]], -1),  # TF: [0, 9, 0]
    "tnp.take_along_axis(g, tnp.asarray([2, 0]), None)": lambda f: np.array([-2.5, 0.5]),
}


@pytest.fixture
def numpy_behavior():
    def enable(prefer_float32: bool) -> None:
        tnp.experimental_enable_numpy_behavior(prefer_float32=prefer_float32)
    yield enable
    _behavior._disable_numpy_behavior()


def _mismatches(mode: str) -> list:
    env, bad = environment(), []
    for case in FIXTURE["cases"]:
        expected = FIXTURE["answers"][mode][case]
        ours = answer(case, env)
        if case in NUMPY_WHERE_TF_FAILS:
            f = env["f"].numpy()
            ok = "error" not in ours and np.allclose(ours["value"], NUMPY_WHERE_TF_FAILS[case](f))
        elif case == "round(tf.constant(2.567))" and mode == "default":
            # TF's Tensor always has a __round__ (failing as above); tapeflow's only once
            # NumPy behaviour is on: round() raises Python's TypeError until then.
            ok = ours == {"error": "TypeError"}
        elif expected.get("error") == "AttributeError" and mode == "default":
            ok = ours == expected or same(ours, FIXTURE["answers"]["numpy"][case]) or \
                ours == {"error": "TypeError"} == FIXTURE["answers"]["numpy"][case]
        else:
            ok = same(ours, expected)
        if not ok:
            bad.append(f"{case}: tapeflow {ours} != TF {expected}")
    return bad


def test_fixture_covers_every_tnp_name():
    names = [n for n in tnp.__all__ if n not in ("ndarray", "random")]
    text = " ".join(FIXTURE["cases"])
    missing = [n for n in names if f"tnp.{n}" not in text and n not in SCALAR_TYPES]
    assert missing == []
    assert len(tnp.__all__) == 229  # TF 2.21's dir(tf.experimental.numpy), every name


SCALAR_TYPES = {"bool_": np.bool_, "complex64": np.complex64, "complex128": np.complex128,
                "float16": np.float16, "float32": np.float32, "float64": np.float64,
                "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
                "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
                "uint64": np.uint64, "inexact": np.inexact,
                "experimental_enable_numpy_behavior": None}


def test_scalar_types_are_numpy_s_as_tf():
    for name, value in SCALAR_TYPES.items():
        if value is not None:
            assert getattr(tnp, name) is value, name


def test_answers_without_numpy_behavior_are_tf_s():
    assert _mismatches("default") == []


def test_answers_with_numpy_behavior_are_tf_s(numpy_behavior):
    numpy_behavior(False)
    assert _mismatches("numpy") == []


def test_answers_with_prefer_float32_are_tf_s(numpy_behavior):
    numpy_behavior(True)
    assert _mismatches("numpy_f32") == []


def test_numpy_behavior_is_off_until_enabled_and_costs_nothing_then():
    # Disabled, the tensor classes hold the operators module's functions themselves.
    for name in ("__add__", "__radd__", "__lt__", "__eq__", "__getitem__"):
        assert tf.Tensor.__dict__[name] is operators.OPERATORS[name]
    assert not hasattr(tf.constant(1), "T")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + tf.constant(1.5)


def test_enable_then_restore(numpy_behavior):
    numpy_behavior(False)
    x = tf.constant([[1, 2], [3, 4]])
    assert x.T.numpy().tolist() == [[1, 3], [2, 4]]
    y = x + 1.5
    assert y.dtype == tf.float64 and y.numpy().tolist() == [[2.5, 3.5], [4.5, 5.5]]
    v = tf.Variable(1)
    assert (v + 1.5).dtype == tf.float64  # variables' operators promote as TF's
    # tnp.ndarray is tf.Tensor: its numpy methods come with it
    assert isinstance(tnp.ones(2), tnp.ndarray)
    _behavior._disable_numpy_behavior()
    assert not hasattr(x, "T") and x.ndim == 2
    assert tf.Tensor.__dict__["__add__"] is operators.OPERATORS["__add__"]


def test_no_sum_method_as_tf(numpy_behavior):
    # TF 2.21 adds no `.sum`: AttributeError even with NumPy behaviour.
    numpy_behavior(False)
    with pytest.raises(AttributeError):
        tf.constant([1, 2]).sum()


def test_unsupported_conversion_mode_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="legacy"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")


def test_printing_as_tf(numpy_behavior):
    # TF 2.21 prints these (checked in TF).
    assert str(tnp.asarray([1, 2])) == "tf.Tensor([1 2], shape=(2,), dtype=int64)"
    assert repr(tnp.linspace(0, 1, 3)) == (
        "<tf.Tensor: shape=(3,), dtype=float64, numpy=array([0. , 0.5, 1. ])>")
    numpy_behavior(False)
    x = tnp.arange(24).reshape(2, 3, 4)
    assert str(x[1, (0, 0, 1), tnp.asarray([0, 1, 1])]) == (
        "tf.Tensor([12 13 17], shape=(3,), dtype=int64)")


def test_mutation_is_a_type_error(numpy_behavior):
    numpy_behavior(False)
    with pytest.raises(TypeError):
        tnp.arange(6)[1] = -1


def test_index_errors_are_tf_s_class(numpy_behavior):
    numpy_behavior(False)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2, 3\]"):
        tnp.ones([2, 3])[[0, 5]]
