"""`keras.layers.InputSpec` and the input check Keras 3 runs at each layer call
(`assert_input_compatibility`): rank, dtype and axis sizes of the first call argument, with
Keras's error messages."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework import nest


def _standardize_dtype(dtype: Any) -> str:
    return str(getattr(dtype, "name", dtype))


class InputSpec:
    """The rank, dtype and shape a layer accepts for each input, as Keras 3's `InputSpec`.

    Args:
      dtype: the expected dtype. shape: the expected shape (batch included; None matches any
        size); sets `ndim`. ndim / max_ndim / min_ndim: the rank, exactly or as a bound.
      axes: `{axis: size}` for specific axes. allow_last_axis_squeeze: accept rank N+1 with a
        last axis of 1 (and rank N-1 when the spec's last axis is 1).
      name: the key of this input when inputs come as a dict. optional: None is accepted.
    """

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: Optional[int] = None,
                 max_ndim: Optional[int] = None, min_ndim: Optional[int] = None,
                 axes: Optional[dict] = None, allow_last_axis_squeeze: bool = False,
                 name: Optional[str] = None, optional: bool = False) -> None:
        self.dtype = _standardize_dtype(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = tuple(None if d is None else int(d) for d in shape)
            self.ndim = len(self.shape)
        else:
            self.ndim, self.shape = ndim, None
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. "
                            f"Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > max_dim:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed "
                                 f"value: {max_dim}")

    def __repr__(self) -> str:
        spec = [f"dtype={self.dtype}" if self.dtype else "",
                f"shape={self.shape}" if self.shape else "",
                f"ndim={self.ndim}" if self.ndim else "",
                f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                f"min_ndim={self.min_ndim}" if self.min_ndim else "",
                f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self) -> dict:
        """The constructor arguments (without `name` and `allow_last_axis_squeeze`, as
        Keras)."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config: dict) -> "InputSpec":
        """An InputSpec from `get_config()`'s dict."""
        return cls(**config)


def _shape_of(x: Any) -> tuple:
    shape = getattr(x, "_value", x).shape  # a tensor's array, a KerasTensor's tuple
    if isinstance(shape, tuple):
        return shape
    return tuple(getattr(shape, "as_list", lambda: list(shape))())


def _dtype_of(x: Any) -> str:
    return _standardize_dtype(getattr(x, "dtype", None))  # DType and np.dtype have `.name`


def _named_inputs(input_spec: list, inputs: dict) -> Any:
    """Dict inputs in the specs' order, when every spec is named (as Keras)."""
    names = [spec.name for spec in input_spec]
    if not all(names):
        return inputs
    for name in names:
        if name not in inputs:
            raise ValueError(f'Missing data for input "{name}". You passed a data dictionary '
                             f"with keys {list(inputs.keys())}. Expected the following keys: "
                             f"{names}")
    return [inputs[name] for name in names]


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Raises Keras 3's ValueError when `inputs` do not match the layer's `input_spec`."""
    if not input_spec:
        return
    if isinstance(input_spec, InputSpec) and hasattr(inputs, "_value"):
        return _check_one(input_spec, inputs, 0, layer_name)  # the common case: one tensor
    input_spec = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        inputs = _named_inputs(input_spec, inputs)
    inputs = nest.flatten(inputs)
    if len(inputs) != len(input_spec):
        names = [spec.name for spec in input_spec if spec is not None]
        if len(names) == len(input_spec) and all(names):
            raise ValueError(f'Layer "{layer_name}" expects {len(input_spec)} named input(s) '
                             f"with keys {names}, but it received {len(inputs)} input tensors. "
                             f"Pass inputs as a dict, e.g. `layer({{"
                             + ", ".join(f"'{n}': ..." for n in names) + "})`.")
        raise ValueError(f'Layer "{layer_name}" expects {len(input_spec)} input(s), but it '
                         f"received {len(inputs)} input tensors. Inputs received: {inputs}")
    for index, (x, spec) in enumerate(zip(inputs, input_spec)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type "
                             f"{type(x)}) as input for layer '{layer_name}'.")
        _check_one(spec, x, index, layer_name)


class _Prefix:
    """The start of an input-check message, formatted only when an error is raised."""

    def __init__(self, index: int, name: Optional[str], layer_name: str) -> None:
        self.index, self.name, self.layer_name = index, name, layer_name

    def __format__(self, spec: str) -> str:
        return (f"Input {self.index} with name '{self.name}' of layer '{self.layer_name}' is "
                f"incompatible with the layer: ")


def _check_one(spec: InputSpec, x: Any, index: int, layer_name: str) -> None:
    shape = _shape_of(x)
    ndim = len(shape)
    prefix = _Prefix(index, spec.name, layer_name)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(f"{prefix}expected ndim={spec.ndim}, found ndim={ndim}. Full shape "
                         f"received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full "
                         f"shape received: {shape}")
    if spec.dtype is not None and _dtype_of(x) != spec.dtype:
        raise ValueError(f"{prefix}expected dtype={spec.dtype}, found dtype={_dtype_of(x)}")
    for axis, value in spec.axes.items():
        if value is not None and -ndim <= axis < ndim and shape[axis] not in (value, None):
            raise ValueError(f"{prefix}expected axis {axis} of input shape to have value "
                             f"{value}, but received input with shape {shape}")
    if spec.shape is not None:
        spec_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            shape = shape[:-1] if shape and shape[-1] == 1 else shape
            spec_shape = spec_shape[:-1] if spec_shape and spec_shape[-1] == 1 else spec_shape
        for spec_dim, dim in zip(spec_shape, shape):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise ValueError(f"{prefix}expected shape={spec.shape}, found shape={shape}")


__all__ = ["InputSpec", "assert_input_compatibility"]
