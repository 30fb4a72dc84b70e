"""`keras.layers.EinsumDense`: a dense layer whose product with the kernel is an einsum, with
Keras 3's parsing of the equation into kernel and bias shapes (MultiHeadAttention's
projections are made of it)."""

from __future__ import annotations

import re
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, constraints, initializers, regularizers
from tapeflow.keras.layers.core import (_check_lora, _finish_lora, _init_lora, _lora_config,
                                        _lora_merged, _refuse_quantization)
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import linalg_ops

__all__ = ["EinsumDense"]


class EinsumDense(Layer):
    """`activation(einsum(equation, inputs, kernel) + bias)`.

    Args:
      equation: 'ab,bc->ac' style, optionally with '...' on the left of the input and output
        ('...b,bc->...c') or on their right ('ab...,bc->ac...').
      output_shape: the output's shape without the batch axis (None for axes taken from the
        input); an int for a rank-2 output.
      bias_axes: the output letters that get a bias (None: no bias).
      activation, kernel_/bias_ initializer, regularizer, constraint: as Dense's.
    """

    def __init__(self, equation: str, output_shape: Any, activation: Any = None,
                 bias_axes: Optional[str] = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, lora_rank: Optional[int] = None,
                 lora_alpha: Optional[float] = None,
                 gptq_unpacked_column_size: Optional[int] = None,
                 quantization_config: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _refuse_quantization("EinsumDense", quantization_config)
        _init_lora(self, lora_rank, lora_alpha)
        # Keras keeps it for a GPTQ-quantized kernel's unpacking (and in the config); tapeflow
        # has no GPTQ kernels, so it is kept for the config only (`quantize` refuses).
        self.gptq_unpacked_column_size = gptq_unpacked_column_size
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) \
            else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any) -> None:
        kernel_shape, bias_shape, _, in_axes, out_axes = analyze_einsum_string(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        self._kernel = self.add_weight(
            name="kernel", shape=tuple(kernel_shape),
            initializer=_axes_initializer(self.kernel_initializer, kernel_shape, in_axes,
                                          out_axes),
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None if bias_shape is None else self.add_weight(
            name="bias", shape=tuple(bias_shape), initializer=self.bias_initializer,
            regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    @property
    def kernel(self) -> Any:
        """The kernel; with LoRA enabled, `kernel + lora_alpha / lora_rank * a @ b`."""
        return _lora_merged(self, "kernel", "lora_kernel")

    @kernel.setter
    def kernel(self, value: Any) -> None:
        self._kernel = value

    def enable_lora(self, rank: int, lora_alpha: Optional[float] = None,
                    a_initializer: Any = "he_uniform", b_initializer: Any = "zeros") -> None:
        """Freezes the kernel and adds the trainable low-rank update `lora_kernel_a`
        (kernel_shape[:-1] + (rank,)) @ `lora_kernel_b` (rank, kernel_shape[-1]), scaled by
        `lora_alpha / rank`."""
        _check_lora(self, self.kernel_constraint, "kernel")
        shape = tuple(self._kernel.shape)
        self.lora_kernel_a = self.add_weight(name="lora_kernel_a", shape=shape[:-1] + (rank,),
                                             initializer=initializers.get(a_initializer),
                                             dtype="float32",
                                             regularizer=self.kernel_regularizer)
        self.lora_kernel_b = self.add_weight(name="lora_kernel_b", shape=(rank, shape[-1]),
                                             initializer=initializers.get(b_initializer),
                                             dtype="float32",
                                             regularizer=self.kernel_regularizer)
        _finish_lora(self, self._kernel, rank, lora_alpha)

    def call(self, inputs: Any, training: Any = None) -> Any:
        x = linalg_ops.einsum(self.equation, convert_to_tensor(inputs), self.kernel)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(analyze_einsum_string(self.equation, self.bias_axes, tuple(input_shape),
                                           self.partial_output_shape)[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "output_shape": self.partial_output_shape,
                "equation": self.equation,
                "activation": activations.serialize(self.activation),
                "bias_axes": self.bias_axes,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "quantization_config": None, **_lora_config(self),
                **({"gptq_unpacked_column_size": self.gptq_unpacked_column_size}
                   if self.gptq_unpacked_column_size else {})}



def _axes_initializer(initializer: Any, shape: Any, in_axes: list, out_axes: list) -> Any:
    """Keras 3.15 gives a VarianceScaling kernel initializer the kernel's input and output
    axes, so its fans are the products of those dims (not a conv kernel's receptive-field
    fans). The same draw with the scale rescaled gives that variance exactly."""
    if not isinstance(initializer, initializers.VarianceScaling) or len(shape) <= 2:
        return initializer
    conv_in, conv_out = initializers.compute_fans(shape)
    fan_in = _prod(shape[i] for i in in_axes)
    fan_out = _prod(shape[i] for i in out_axes)
    conv = {"fan_in": conv_in, "fan_out": conv_out, "fan_avg": (conv_in + conv_out) / 2.0}
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
    mode = initializer.mode
    scale = initializer.scale * max(1.0, conv[mode]) / max(1.0, fan[mode])
    return initializers.VarianceScaling(scale, mode, initializer.distribution,
                                        seed=initializer.seed)


def _prod(values: Any) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def analyze_einsum_string(equation: str, bias_axes: Optional[str], input_shape: tuple,
                          output_shape: tuple) -> tuple:
    """(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes) of an
    EinsumDense equation, as Keras 3's `_analyze_einsum_string`; ValueError for an equation
    of another form."""
    dotted = re.sub(r"\.\.\.", "0", equation)
    for pattern, left in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
                          ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
                          ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False)):
        match = re.match(pattern, dotted)
        if match:
            return _analyze_split_string(match, bias_axes, input_shape, output_shape, left)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze_split_string(match: Any, bias_axes: Optional[str], input_shape: tuple,
                          output_shape: Any, left_elided: bool) -> tuple:
    input_spec, weight_spec, output_spec = match.group(1), match.group(2), match.group(3)
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_dim_map = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        output_dim_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_dim_map = {d: i for i, d in enumerate(input_spec)}
        output_dim_map = {d: i for i, d in enumerate(output_spec)}
    for dim in input_spec:
        in_size = input_shape[input_dim_map[dim]]
        if dim in output_dim_map:
            out_size = output_shape[output_dim_map[dim]]
            if out_size is not None and out_size != in_size:
                raise ValueError(f"Input shape and output shape do not match at shared "
                                 f"dimension '{dim}'. Input shape is {in_size}, and output "
                                 f"shape is {out_size}.")
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(f"Dimension '{dim}' was specified in the output '{output_spec}' "
                             f"but has no corresponding dim in the input spec '{input_spec}' "
                             f"or weight spec '{output_spec}'")
    weight_shape, input_axes, output_axes = [], [], []
    for i, dim in enumerate(weight_spec):
        if dim in output_dim_map:
            weight_shape.append(output_shape[output_dim_map[dim]])
            output_axes.append(i)
        elif dim in input_dim_map:
            weight_shape.append(input_shape[input_dim_map[dim]])
            input_axes.append(i)
        else:
            raise ValueError(f"Weight dimension '{dim}' did not have a match in either the "
                             f"input spec '{input_spec}' or the output spec '{output_spec}'. "
                             f"For this layer, the weight must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {c: output_shape[i + offset] for i, c in enumerate(output_spec)}
        for char in bias_axes:
            if char not in output_spec:
                raise ValueError(f"Bias dimension '{char}' was requested, but is not part of "
                                 f"the output spec '{output_spec}'")
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * elided)
    return weight_shape, bias_shape, output_shape, input_axes, output_axes
