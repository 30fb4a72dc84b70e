"""`tf.convert_to_tensor`: the one conversion every op and the autodiff layer use."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework.context import context
from tapeflow.framework.convert import check_dtype, constant_value
from tapeflow.framework.dtypes import as_dtype
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.variables import Variable


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: Optional[str] = None) -> Tensor:
    """A Tensor for `value`: tensors pass through, variables are read, Python and NumPy
    values are converted with TensorFlow's dtype rules."""
    if type(value) is Tensor:
        return value if dtype is None else check_dtype(value, dtype)
    if isinstance(value, Variable):
        if dtype is not None and value.dtype != as_dtype(dtype):
            raise ValueError(f"Incompatible type conversion requested to type "
                             f"{as_dtype(dtype).name} for `tf.Variable of type "
                             f"{value.dtype.name}. (Variable: {value!r})")
        return value.value()
    if isinstance(value, TensorLike):  # Tensor subclasses (symbolic tensors)
        if context.graph is None and getattr(value, "_graph", None) is not None:
            raise _out_of_scope(value)
        return value if dtype is None else check_dtype(value, dtype)
    if type(value) is IndexedSlices:  # densified: its slices summed (differentiably)
        return value._dense(dtype)
    return constant_value(value, dtype=dtype, dtype_hint=dtype_hint)


def _out_of_scope(value: Any) -> TypeError:
    """TF's error for a traced tensor used after its trace (its value was only an example)."""
    return TypeError(
        f"{value!r} is out of scope and cannot be used here. Use return values, explicit "
        f"Python locals or TensorFlow collections to access it.\nPlease see "
        f"https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
        f" for more information.")


__all__ = ["convert_to_tensor"]
