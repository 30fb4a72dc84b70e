"""Property: every elementwise op keeps its input's float dtype (float16, float32, float64),
in its value and in its gradient, at drawn shapes and values; where TensorFlow 2.21 has no
kernel for a dtype, tapeflow raises TF's error class instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY

from _prop_common import budget
from _prop_ops import BINARY, NO_GRADIENT, TERNARY, UNARY, array
from _prop_xfail import defect_marks, marked

FLOAT_DTYPES = (np.float16, np.float32, np.float64)
# Elementwise ops whose result has the inputs' float dtype (comparisons, logical and bitwise
# ops give bool or int: tests/property/test_prop_shapes.py checks their shapes).
_COMPARISONS = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}
ELEMENTWISE = {**UNARY, **TERNARY,
               **{name: op for name, op in BINARY.items()
                  if name not in _COMPARISONS and op.kinds[0] not in ("bool", "int")}}

# TF 2.21 has no float16 kernel for these (verified): the error class it raises.
UNSUPPORTED = {
    ("Polygamma", np.float16): tf.errors.InvalidArgumentError,  # "Value for attr 'T' of half
    ("TruncateMod", np.float16): tf.errors.NotFoundError,       # is not in ..." / "Could not
    **{(name, np.float16): tf.errors.NotFoundError              # find device ..."
       for name in ("Erfinv", "Ndtri", "Dawsn", "Expint", "FresnelCos", "FresnelSin",
                    "Spence")},
    **{(name, np.float16): tf.errors.InvalidArgumentError
       for name in ("Zeta", "NextAfter")},
}
# Computed in float16, but with no float16 gradient in TF 2.21 (Digamma's is Polygamma).
NO_HALF_GRADIENT = {"Digamma"}


@pytest.mark.parametrize("name", marked(sorted(ELEMENTWISE), "dtype"))
@budget(6)
@given(data=st.data())
def test_elementwise_keeps_the_float_dtype(name, data):
    op = ELEMENTWISE[name]
    dtype = data.draw(st.sampled_from([d for d in FLOAT_DTYPES if (name, d) not in UNSUPPORTED
                                       and not (name in NO_HALF_GRADIENT and d == np.float16)]),
                      label="dtype")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=len(op.kinds), min_dims=0, max_dims=3, min_side=1, max_side=3),
        label="shapes").input_shapes
    args = [tf.constant(data.draw(array(kind, shape, dtype), label=f"input {i}"))
            for i, (kind, shape) in enumerate(zip(op.kinds, shapes))]
    floats = [a for a in args if a.dtype.is_floating]
    with tf.GradientTape() as tape:
        tape.watch(floats)
        y = op.fn(*args)
    assert y.dtype == dtype, f"{name}: {np.dtype(dtype).name} input gives {y.dtype.name}"
    if not REGISTRY[name].differentiable:
        return
    grads = tape.gradient(y, floats, output_gradients=tf.ones_like(y))
    offset = len(args) - len(floats)  # SelectV2's condition is not a float input
    for index, g in enumerate(grads, start=offset):
        if (name, index) in NO_GRADIENT:
            continue
        assert g is not None and g.dtype == dtype, (
            f"{name}: gradient {index} of a {np.dtype(dtype).name} input is "
            f"{None if g is None else g.dtype.name}")


@pytest.mark.parametrize("name,dtype", [
    pytest.param(name, dtype, id=f"{name}-{np.dtype(dtype).name}",
                 marks=defect_marks("unsupported_dtype", name))
    for name, dtype in UNSUPPORTED])
@budget(3)
@given(data=st.data())
def test_dtype_without_a_tf_kernel_raises_tf_error(name, dtype, data):
    op = ELEMENTWISE[name]
    args = [tf.constant(data.draw(array(kind, (2,), dtype), label=f"input {i}"))
            for i, kind in enumerate(op.kinds)]
    with pytest.raises(UNSUPPORTED[name, dtype]):
        op.fn(*args)
