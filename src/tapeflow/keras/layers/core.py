"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, Lambda, Embedding."""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, backend, constraints, initializers, regularizers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.ops._dtypes import result_type
from tapeflow.ops import array_ops, index_ops, manip_ops, math_ops, sparse_ops


class Dense(Layer):
    """`activation(inputs @ kernel + bias)` on the last axis.

    Args:
      units: output size. activation: a name, a function, or None (linear).
      use_bias: add a bias. kernel_initializer ('glorot_uniform'), bias_initializer ('zeros').
    """

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, lora_rank: Optional[int] = None,
                 lora_alpha: Optional[float] = None, quantization_config: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True   # a timestep's mask passes on (Keras 3)
        _refuse_quantization("Dense", quantization_config)
        _init_lora(self, lora_rank, lora_alpha)
        if not isinstance(units, (int, np.integer)) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        in_dim = input_shape[-1]
        if in_dim is None:
            raise ValueError(f"The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self._kernel = self.add_weight(name="kernel", shape=(in_dim, self.units),
                                       initializer=self.kernel_initializer,
                                       regularizer=self.kernel_regularizer,
                                       constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=(self.units,),
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: in_dim})
        self.built = True
        if self.lora_rank:   # Keras 3.15 passes no lora_alpha here: it becomes the rank
            self.enable_lora(self.lora_rank)

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
        (inputs, rank) @ `lora_kernel_b` (rank, units), scaled by `lora_alpha / rank`."""
        _check_lora(self, self.kernel_constraint, "kernel")
        shape = tuple(self._kernel.shape)
        self.lora_kernel_a = self.add_weight(name="lora_kernel_a", shape=(shape[0], rank),
                                             initializer=initializers.get(a_initializer),
                                             dtype="float32",
                                             regularizer=self.kernel_regularizer)
        self.lora_kernel_b = self.add_weight(name="lora_kernel_b", shape=(rank, shape[1]),
                                             initializer=initializers.get(b_initializer),
                                             dtype="float32",
                                             regularizer=self.kernel_regularizer)
        _finish_lora(self, self._kernel, rank, lora_alpha)

    def call(self, inputs: Any) -> Any:
        if isinstance(inputs, SparseTensor):
            y = sparse_matmul(inputs, self.kernel)
            if self.bias is not None:
                y = y + self.bias
            return self.activation(y)
        x = convert_to_tensor(inputs)
        shape = x._value.shape
        if len(shape) == 2:
            y = math_ops.matmul(x, self.kernel)
        else:  # matmul over the last axis of an N-D input
            flat = array_ops.reshape(x, (-1, shape[-1]))
            y = array_ops.reshape(math_ops.matmul(flat, self.kernel),
                                  backend.dynamic_shape(x)[:-1] + (self.units,))
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **_weight_config(self, "kernel"), **_weight_config(self, "bias"),
                "quantization_config": None, **_lora_config(self)}


def _refuse_quantization(layer: str, config: Any) -> None:
    """Keras 3.15 writes `quantization_config: None` in every config; tapeflow has no
    quantized kernels, so any other value is refused."""
    if config is not None:
        raise NotImplementedError(f"{layer}: tapeflow does not quantize layers. Received: "
                                  f"quantization_config={config}")


def _init_lora(layer: Layer, rank: Optional[int], alpha: Optional[float]) -> None:
    """The LoRA settings of a new layer (`lora_alpha` defaults to the rank); `build` enables
    LoRA where a rank is set."""
    layer.lora_rank = rank
    layer.lora_alpha = alpha if alpha is not None else rank
    layer.lora_enabled = False


def _check_lora(layer: Layer, constraint: Any, weight: str) -> None:
    """Keras's checks before `enable_lora` (ValueError, its messages)."""
    if constraint:
        names = {"kernel": "kernel constraints", "embeddings": "embedding constraints"}
        raise ValueError(f"Lora is incompatible with {names[weight]}. In order to enable lora "
                         f"on this layer, remove the `{weight}_constraint` argument.")
    if not layer.built:
        raise ValueError("Cannot enable lora on a layer that isn't yet built.")
    if layer.lora_enabled:
        raise ValueError("lora is already enabled. This can only be done once per layer.")


def _finish_lora(layer: Layer, frozen: Any, rank: int, alpha: Optional[float]) -> None:
    """The base weight stops training; the LoRA factors train in its place."""
    frozen.trainable = False
    layer.lora_enabled = True
    layer.lora_rank = rank
    layer.lora_alpha = alpha if alpha is not None else rank


def _lora_merged(layer: Layer, name: str, prefix: str) -> Any:
    """The weight `_<name>`, plus the scaled LoRA product `<prefix>_a @ <prefix>_b` once
    enabled; Keras's AttributeError before the layer is built."""
    weight = layer.__dict__.get(f"_{name}")
    if weight is None:
        raise AttributeError(f"You must build the layer before accessing `{name}`.")
    if not getattr(layer, "lora_enabled", False):
        return weight
    update = (layer.lora_alpha / layer.lora_rank) * math_ops.matmul(
        getattr(layer, f"{prefix}_a"), getattr(layer, f"{prefix}_b"))
    weight = convert_to_tensor(weight)
    # Keras adds in the promoted dtype (a float16 kernel plus the float32 factors: float32),
    # then casts to the compute dtype.
    dtype = result_type(weight.dtype, update.dtype)
    merged = math_ops.cast(weight, dtype) + math_ops.cast(update, dtype)
    return math_ops.cast(merged, layer.compute_dtype)


def _lora_config(layer: Layer) -> dict:
    """Keras writes lora_rank and lora_alpha only for a layer with a LoRA rank."""
    return {"lora_rank": layer.lora_rank, "lora_alpha": layer.lora_alpha} \
        if layer.lora_rank else {}


def sparse_matmul(sp: SparseTensor, kernel: Any) -> Any:
    """`sp @ kernel` for a rank-2 SparseTensor, as Keras 3's TF backend computes it (an
    embedding lookup of the kernel rows the entries name, weighted by their values and summed
    per row): the kernel's gradient is IndexedSlices of the rows used, as in Keras."""
    if sp.shape.rank != 2:
        raise ValueError(f"Dense: a SparseTensor input must be of rank 2 (Keras 3 multiplies "
                         f"no other rank by a kernel); received shape {sp.shape}")
    sp = sp.with_values(math_ops.cast(sp.values, kernel.dtype)) \
        if sp.dtype != kernel.dtype else sp
    sp, _ = sparse_ops.fill_empty_rows(sp, 0)     # an empty row still gets an output row
    rows, cols = sp.indices[:, 0], sp.indices[:, 1]
    ids, position = manip_ops.unique(cols)
    rows_used = array_ops.gather(array_ops.gather(kernel, ids), position)
    weighted = rows_used * array_ops.expand_dims(sp.values, -1)
    num_rows = sp.shape.as_list()[0] if sp.shape.as_list()[0] is not None else \
        sp.dense_shape[0]
    return index_ops.unsorted_segment_sum(weighted, rows, num_rows)


def _weight_config(layer: Layer, weight: str, prefix: str = None) -> dict:
    """The `<weight>_initializer/_regularizer/_constraint` config entries, serialized (the
    keys are named `prefix` when the constructor spells them differently)."""
    prefix = prefix or weight
    return {f"{prefix}_initializer": initializers.serialize(
                getattr(layer, f"{weight}_initializer")),
            f"{prefix}_regularizer": regularizers.serialize(
                getattr(layer, f"{weight}_regularizer", None)),
            f"{prefix}_constraint": constraints.serialize(
                getattr(layer, f"{weight}_constraint", None))}


class Activation(Layer):
    """Applies an activation function (by name or callable)."""

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True  # elementwise: the input's mask passes on (Keras 3)
        self.built = True  # no weights: built at construction, as Keras 3

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def get_config(self) -> dict:
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class Dropout(Layer):
    """In training, zeroes each input with probability `rate` and scales the rest by
    1/(1 - rate); at inference, the identity."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True   # the input's mask passes on (Keras 3)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float "
                             f"value between 0 and 1. Received: rate={rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed
        # Each call draws a new mask from the layer's own seed stream, as Keras 3 (whose
        # generator takes a default seed now when none is given).
        self._seed_generator = backend.SeedGenerator(seed) if rate > 0 else None
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        x = convert_to_tensor(inputs)
        if not training or self.rate == 0:
            return x
        shape = None
        if self.noise_shape is not None:
            dims = backend.dynamic_shape(x)
            shape = tuple(dims[i] if d is None else d for i, d in enumerate(self.noise_shape))
        return backend.dropout(x, self.rate, shape, self._seed_generator)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}


class Flatten(Layer):
    """Flattens every axis but the batch axis (a channels_first input is moved channels-last
    first, as Keras 3; a SparseTensor stays sparse)."""

    def __init__(self, data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self.built = True

    def call(self, inputs: Any) -> Any:
        sparse = isinstance(inputs, SparseTensor)
        x = inputs if sparse else convert_to_tensor(inputs)
        rank = x.shape.rank
        if self.data_format == "channels_first" and rank > 1:
            perm = (0, *range(2, rank), 1)
            x = sparse_ops.transpose(x, perm) if sparse else array_ops.transpose(x, perm)
        if sparse:
            dims = x.shape.as_list()[1:]
            return _sparse_reshape_examples(x, (-1 if None in dims else math.prod(dims),))
        batch, *inner = backend.dynamic_shape(x)
        if all(isinstance(d, int) for d in inner):
            return array_ops.reshape(x, (batch, math.prod(inner)))
        return array_ops.reshape(x, (0, -1) if isinstance(batch, int) and batch == 0 else
                                 (batch, -1))

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


def _sparse_reshape_examples(x: SparseTensor, shape: tuple) -> SparseTensor:
    """Each example of SparseTensor `x` reshaped to `shape`, the batch size kept (read as the
    graph runs where the trace does not know it)."""
    batch = x.shape.as_list()[0]
    if batch is None:
        return sparse_ops.reshape(x, array_ops.concat(
            [x.dense_shape[:1], np.array(shape, np.int64)], 0))
    return sparse_ops.reshape(x, (batch,) + tuple(shape))


class Reshape(Layer):
    """Reshapes each example to `target_shape` (one entry may be -1); a SparseTensor stays
    sparse, as Keras 3."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        self.built = True

    def call(self, inputs: Any) -> Any:
        if isinstance(inputs, SparseTensor):
            return _sparse_reshape_examples(inputs, self.target_shape)
        x = convert_to_tensor(inputs)
        return array_ops.reshape(x, (backend.dynamic_shape(x)[0],) + self.target_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": self.target_shape}


class Lambda(Layer):
    """Wraps a function of tensors as a layer (`arguments` are extra keyword arguments)."""

    def __init__(self, function: Callable, output_shape: Any = None, mask: Any = None,
                 arguments: Optional[dict] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function, self.arguments = function, dict(arguments or {})
        self._fn_takes_training = "training" in inspect.signature(function).parameters
        self.built = True

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def get_config(self) -> dict:
        """Keras 3's Lambda config: a Python lambda as its marshalled code (read back only
        with `safe_mode=False`), a named function by name."""
        from tapeflow.keras.saving import serialize_keras_object
        from tapeflow.keras.saving._code import func_dump
        function: Any = serialize_keras_object(self.function)
        if getattr(self.function, "__name__", None) == "<lambda>":
            code, defaults, closure = func_dump(self.function)
            function = {"class_name": "__lambda__",
                        "config": {"code": code, "defaults": defaults, "closure": closure}}
        return {**super().get_config(), "function": function,
                "arguments": serialize_keras_object(self.arguments)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None,
                    safe_mode: Optional[bool] = None) -> "Lambda":
        """Refuses a stored Python lambda unless `safe_mode=False` (here or in the loading
        call), as Keras 3: loading it would run code from the file."""
        from tapeflow.keras.saving import deserialize_keras_object, serialization
        from tapeflow.keras.saving._code import func_load
        config = dict(config)
        function = config["function"]
        if isinstance(function, dict) and function.get("class_name") == "__lambda__":
            unsafe = safe_mode is False or (safe_mode is None and
                                            not serialization.in_safe_mode())
            if not unsafe:
                raise ValueError(LAMBDA_REFUSED)
            inner = function["config"]
            config["function"] = func_load(inner["code"], inner["defaults"], inner["closure"])
        else:
            config["function"] = deserialize_keras_object(function, custom_objects)
        config["arguments"] = deserialize_keras_object(config.get("arguments") or {},
                                                       custom_objects)
        return cls(**config)


LAMBDA_REFUSED = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. "
    "This carries a potential risk of arbitrary code execution and thus it is disallowed by "
    "default. If you trust the source of the artifact, you can override this error by "
    "passing `safe_mode=False` to the loading function, or calling "
    "`keras.config.enable_unsafe_deserialization().")


class Embedding(Layer):
    """Maps integer ids to rows of an `(input_dim, output_dim)` table named 'embeddings'
    (initialized uniform in +-0.05, as Keras)."""

    def __init__(self, input_dim: int, output_dim: int, embeddings_initializer: Any = "uniform",
                 embeddings_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, weights: Any = None, lora_rank: Optional[int] = None,
                 lora_alpha: Optional[float] = None, quantization_config: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _refuse_quantization(type(self).__name__, quantization_config)
        _init_lora(self, lora_rank, lora_alpha)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        init = "random_uniform" if embeddings_initializer == "uniform" else \
            embeddings_initializer
        self.embeddings_initializer = initializers.get(init)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self._initial_weights = weights

    def build(self, input_shape: Any = None) -> None:
        self._embeddings = self.add_weight(name="embeddings",
                                           shape=(self.input_dim, self.output_dim),
                                           initializer=self.embeddings_initializer,
                                           regularizer=self.embeddings_regularizer,
                                           constraint=self.embeddings_constraint)
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
        self.built = True
        if self.lora_rank:   # Keras 3.15 passes no lora_alpha here: it becomes the rank
            self.enable_lora(self.lora_rank)

    @property
    def embeddings(self) -> Any:
        """The table; with LoRA enabled, `embeddings + lora_alpha / lora_rank * a @ b`."""
        return _lora_merged(self, "embeddings", "lora_embeddings")

    @embeddings.setter
    def embeddings(self, value: Any) -> None:
        self._embeddings = value

    def enable_lora(self, rank: int, lora_alpha: Optional[float] = None,
                    a_initializer: Any = "he_uniform", b_initializer: Any = "zeros") -> None:
        """Freezes the table and adds the trainable low-rank update `lora_embeddings_a`
        (input_dim, rank) @ `lora_embeddings_b` (rank, output_dim), scaled by
        `lora_alpha / rank`."""
        _check_lora(self, self.embeddings_constraint, "embeddings")
        self.lora_embeddings_a = self.add_weight(
            name="lora_embeddings_a", shape=(self.input_dim, rank),
            initializer=initializers.get(a_initializer), dtype="float32",
            regularizer=self.embeddings_regularizer)
        self.lora_embeddings_b = self.add_weight(
            name="lora_embeddings_b", shape=(rank, self.output_dim),
            initializer=initializers.get(b_initializer), dtype="float32",
            regularizer=self.embeddings_regularizer)
        _finish_lora(self, self._embeddings, rank, lora_alpha)

    def _convert_inputs(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        return x if x.dtype.is_integer else math_ops.cast(x, "int32")

    def call(self, inputs: Any) -> Any:
        ids = convert_to_tensor(inputs)
        if not ids.dtype.is_integer:
            ids = math_ops.cast(ids, "int32")
        return array_ops.gather(self.embeddings, ids)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """With `mask_zero`, True where the id is not 0 (padding), as Keras 3."""
        return math_ops.not_equal(inputs, 0) if self.mask_zero else None

    def get_config(self) -> dict:
        weights = _weight_config(self, "embeddings")
        return {**super().get_config(), "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                "embeddings_initializer": weights["embeddings_initializer"],
                "embeddings_regularizer": weights["embeddings_regularizer"],
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "embeddings_constraint": weights["embeddings_constraint"],
                "mask_zero": self.mask_zero, "quantization_config": None,
                **_lora_config(self)}


__all__ = ["Dense", "Activation", "Dropout", "Flatten", "Reshape", "Lambda", "Embedding"]
