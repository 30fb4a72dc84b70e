"""`keras.Input` and `keras.layers.InputLayer`: the symbolic entry points of a model."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.keras import backend
from tapeflow.keras.layers.layer import KerasTensor, Layer, Node


class InputLayer(Layer):
    """Holds a model input: its output is a KerasTensor of `batch_shape`
    (`(batch_size,) + shape`)."""

    def __init__(self, shape: Any = None, batch_size: Optional[int] = None, dtype: Any = None,
                 sparse: Any = None, ragged: Any = None, batch_shape: Any = None,
                 input_tensor: Any = None, optional: bool = False, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        _check_ragged(ragged, sparse)
        kwargs.pop("input_shape", None) if shape is not None else None
        if shape is None and "input_shape" in kwargs:
            shape = kwargs.pop("input_shape")
        super().__init__(name=name or backend.unique_name("input_layer"), dtype=dtype,
                         **kwargs)
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size,) + backend.standardize_shape(shape)
        self._batch_shape = backend.standardize_shape(batch_shape)
        if isinstance(input_tensor, KerasTensor):
            if sparse is not None and bool(sparse) != input_tensor.sparse:
                raise ValueError("When providing the `input_tensor` argument, you cannot "
                                 "provide an incompatible `sparse` argument.")
            sparse = input_tensor.sparse
        self.sparse = bool(sparse)
        self.ragged = False
        self.built = True
        output = input_tensor if isinstance(input_tensor, KerasTensor) else \
            KerasTensor(self._batch_shape, self._dtype, name=name, sparse=self.sparse)
        node = Node(self, (), {}, output)
        self._inbound_nodes.append(node)
        output._keras_history = (self, 0, 0)
        self._output_shape = output.shape
        self.output_tensor = output

    @property
    def batch_shape(self) -> tuple:
        """The input shape including the batch dimension (None if unknown)."""
        return self._batch_shape

    def call(self, inputs: Any = None) -> Any:
        return inputs

    def get_config(self) -> dict:
        return {"batch_shape": self._batch_shape, "dtype": self._dtype, "sparse": self.sparse,
                "ragged": self.ragged, "name": self.name}


def _check_ragged(ragged: Any, sparse: Any) -> None:
    """Keras's checks of `ragged`; tapeflow's functional models carry no RaggedTensor input,
    so `ragged=True` is refused rather than densified or mis-run."""
    if not ragged:
        return
    if sparse:
        raise ValueError("KerasTensor cannot have `sparse=True` and `ragged=True` at the same "
                         "time.")
    raise NotImplementedError("Input(ragged=True): tapeflow's functional models do not carry "
                              "RaggedTensor inputs; pass padded dense inputs (with a mask) or "
                              "call the layers on RaggedTensors outside a functional model.")


def Input(shape: Any = None, batch_size: Optional[int] = None, dtype: Any = None,  # noqa: N802
          sparse: Any = None, ragged: Any = None, batch_shape: Any = None,
          name: Optional[str] = None, tensor: Any = None,
          optional: bool = False) -> KerasTensor:
    """A symbolic input of `shape` (without the batch dimension), for the functional API;
    `sparse=True` makes it a SparseTensor input (a dense model input densifies one).
    `ragged=True` (a RaggedTensor input) is not built: NotImplementedError."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       ragged=ragged, batch_shape=batch_shape, name=name, input_tensor=tensor)
    return layer.output_tensor


__all__ = ["InputLayer", "Input"]
