"""Keras 3's layers around other layers: Wrapper (around one), SpectralNormalization (a
wrapper that, in training, divides the wrapped layer's kernel by its largest singular value,
estimated by power iteration) and Pipeline (layers applied in sequence)."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.framework import nest
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, initializers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer, _plain_shape, get_keras_mask
from tapeflow.ops import array_ops, control_flow_ops, math_ops, reduce_ops

__all__ = ["Wrapper", "SpectralNormalization", "Pipeline"]


class Wrapper(Layer):
    """The base of layers that wrap one other layer (`layer`), building it with themselves
    and saving it in their config; subclasses define `call`."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. "
                             f"Please ensure wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
            self.layer._build_shapes = _plain_shape(input_shape)  # Keras saves it with the layer
        self.built = True

    def get_config(self) -> dict:
        from tapeflow.keras.saving import serialize_keras_object
        return {**super().get_config(), "layer": serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Wrapper":
        from tapeflow.keras.saving import deserialize_keras_object
        config = dict(config)
        layer = deserialize_keras_object(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


def _unit(x: Any) -> Any:
    """Keras's `normalize(x, axis=None)`: x over its L2 norm (the norm at least epsilon)."""
    inv_norm = math_ops.rsqrt(reduce_ops.reduce_sum(math_ops.square(x)))
    return x * math_ops.minimum(inv_norm, 1.0 / backend.epsilon())


class SpectralNormalization(Wrapper):
    """Wraps a layer with a `kernel` (or `embeddings`): in training each call first runs
    `power_iterations` steps of power iteration from the non-trainable `vector_u` and
    assigns the kernel divided by its estimated spectral norm (an all-zero kernel is left
    as it is), then calls the layer.

    Args:
      layer: the wrapped layer.
      power_iterations: steps of power iteration per training call (> 0).
    """

    def __init__(self, layer: Layer, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' "
                             f"nor 'embeddings'")
        self.kernel_shape = tuple(self.kernel.shape.as_list())
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02), trainable=False,
            name="vector_u", dtype=self.kernel.dtype)

    def call(self, inputs: Any, training: Any = False) -> Any:
        inputs = convert_to_tensor(inputs)
        if training:
            kernel = self.kernel.read_value()
            is_zero = reduce_ops.reduce_all(math_ops.equal(kernel, 0))
            new_u, new_kernel = control_flow_ops.cond(
                is_zero, lambda: (self.vector_u.read_value(), kernel),
                self.normalized_weights)
            self.vector_u.assign(new_u)
            self.kernel.assign(new_kernel)
        return math_ops.cast(self.layer(inputs), inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.layer.compute_output_shape(input_shape)

    def normalized_weights(self) -> tuple:
        """(the next `vector_u`, the kernel over its estimated largest singular value)."""
        weights = array_ops.reshape(self.kernel.read_value(), [-1, self.kernel_shape[-1]])
        vector_u = self.vector_u.read_value()
        for _ in range(self.power_iterations):
            vector_v = _unit(math_ops.matmul(vector_u, weights, transpose_b=True))
            vector_u = _unit(math_ops.matmul(vector_v, weights))
        vector_u = math_ops.stop_gradient(vector_u)
        vector_v = math_ops.stop_gradient(vector_v)
        sigma = math_ops.matmul(math_ops.matmul(vector_v, weights), vector_u, transpose_b=True)
        kernel = array_ops.reshape(self.kernel.read_value() / sigma, self.kernel_shape)
        return (math_ops.cast(vector_u, self.vector_u.dtype),
                math_ops.cast(kernel, self.kernel.dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}


class Pipeline(Layer):
    """Applies `layers` in sequence, as a single layer (Keras 3's, for preprocessing
    pipelines): each layer gets the previous one's outputs, their Keras mask as `mask` where
    it takes one, and `training` (default True) where it takes one. Inputs pass unconverted
    (strings, dicts, ragged and sparse tensors alike)."""

    _allow_non_tensor_positional_args = True

    def __init__(self, layers: list, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        self._pipeline_layers = layers
        self.built = True

    @property
    def layers(self) -> list:
        """The layers, in the order they are applied."""
        return self._pipeline_layers

    def _convert_inputs(self, inputs: Any) -> Any:
        return inputs

    def call(self, inputs: Any, training: Any = True, mask: Any = None) -> Any:
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if layer._call_has_mask:
                kwargs["mask"] = mask
            if layer._call_has_training and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            inputs = outputs
            mask = nest.map_structure(get_keras_mask, outputs)
        return outputs

    @classmethod
    def from_config(cls, config: dict) -> "Pipeline":
        from tapeflow.keras.saving import deserialize_keras_object
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f"`Pipeline` config must contain a `layers` key mapping to a list "
                             f"of serialized layers. Received config with layers={layers}.")
        return cls(**{**config, "layers": [deserialize_keras_object(x) for x in layers]})

    def get_config(self) -> dict:
        """Keras 3's: the serialized layers and the name (no dtype or trainable)."""
        from tapeflow.keras.saving import serialize_keras_object
        return {"layers": serialize_keras_object(self._pipeline_layers), "name": self.name}
