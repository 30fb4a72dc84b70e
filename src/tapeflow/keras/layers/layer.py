"""`keras.layers.Layer`: weights, building on first call, `training` propagation, and the
symbolic calls (on `KerasTensor`s) that the functional API and `summary()` are made of."""

from __future__ import annotations

import contextlib
import inspect
import itertools
import math
from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.errors import OpError
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.graph.ir import Graph, tracing
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, initializers, mixed_precision
from tapeflow.keras.backend import to_snake_case
from tapeflow.keras.layers.input_spec import assert_input_compatibility
from tapeflow.keras.metrics import Metric
from tapeflow.keras.variables import Variable
from tapeflow.ops import array_ops, math_ops

# The `training` value of the call being run, so nested layers inherit it (Keras's
# CallContext): a layer called without `training=` takes the innermost enclosing value.
_TRAINING_STACK: list = []
_NODE_IDS = itertools.count()
# Nonzero while a symbolic call runs `call` on stand-in zeros: losses added then are dropped.
_INFERRING = [0]
_LOSSES_ADDED = [False]   # whether any layer ever added a loss (else there are none to clear)
# Keras's `_keras_mask` attribute.
_MASKS = backend._TensorAttributes()


def get_keras_mask(x: Any) -> Any:
    """The mask `set_keras_mask` attached to the tensor `x` (a Masking or
    `Embedding(mask_zero=True)` output), or None."""
    return _MASKS.get(x)


def set_keras_mask(x: Any, mask: Any) -> None:
    """Attaches `mask` to the tensor `x`, as Keras 3's `backend.set_keras_mask`."""
    _MASKS.set(x, mask)


def _masks_of(x: Any) -> Any:
    """The masks attached to `x` (a tensor, or a list of them), None when there are none."""
    if isinstance(x, (list, tuple)):
        masks = [get_keras_mask(t) for t in x]
        return masks if any(m is not None for m in masks) else None
    return get_keras_mask(x)


class KerasTensor:
    """A symbolic tensor: a shape (None for unknown dims) and a dtype, produced by `Input` or
    by calling a layer on KerasTensors. The functional API wires layers through them."""

    def __init__(self, shape: Any, dtype: Any = "float32", name: Optional[str] = None,
                 sparse: bool = False) -> None:
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = str(getattr(dtype, "name", dtype))
        self.name = name or backend.unique_name("keras_tensor")   # Keras's automatic names
        self.sparse = bool(sparse)  # a SparseTensor (Input(sparse=True), a sparse layer's)
        self._keras_history: Optional[tuple] = None  # (layer, node_index, tensor_index)

    @property
    def ndim(self) -> int:
        """The rank of the symbolic tensor."""
        return len(self.shape)

    def __repr__(self) -> str:
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse={self.sparse}, "
                f"ragged=False, name={self.name}>")

    def __tf_tensor__(self, dtype: Any = None, name: Any = None) -> Any:
        raise ValueError(_TF_FUNCTION_ERROR)

    # Operators become operation nodes of the functional graph, as Keras 3's keras.ops.
    def __add__(self, other: Any) -> Any:
        return _operation("Add", math_ops.add, self, other)

    def __radd__(self, other: Any) -> Any:
        return _operation("Add", math_ops.add, other, self)

    def __sub__(self, other: Any) -> Any:
        return _operation("Subtract", math_ops.subtract, self, other)

    def __rsub__(self, other: Any) -> Any:
        return _operation("Subtract", math_ops.subtract, other, self)

    def __mul__(self, other: Any) -> Any:
        return _operation("Multiply", math_ops.multiply, self, other)

    def __rmul__(self, other: Any) -> Any:
        return _operation("Multiply", math_ops.multiply, other, self)

    def __truediv__(self, other: Any) -> Any:
        return _operation("TrueDivide", math_ops.truediv, self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _operation("TrueDivide", math_ops.truediv, other, self)

    def __matmul__(self, other: Any) -> Any:
        return _operation("Matmul", math_ops.matmul, self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _operation("Matmul", math_ops.matmul, other, self)

    def __pow__(self, other: Any) -> Any:
        return _operation("Power", math_ops.pow, self, other)

    def __rpow__(self, other: Any) -> Any:
        return _operation("Power", math_ops.pow, other, self)

    def __neg__(self) -> Any:
        return _operation("Negative", math_ops.negative, self)

    def __abs__(self) -> Any:
        return _operation("Absolute", math_ops.abs, self)

    def __lt__(self, other: Any) -> Any:
        return _operation("Less", math_ops.less, self, other)

    def __le__(self, other: Any) -> Any:
        return _operation("LessEqual", math_ops.less_equal, self, other)

    def __gt__(self, other: Any) -> Any:
        return _operation("Greater", math_ops.greater, self, other)

    def __ge__(self, other: Any) -> Any:
        return _operation("GreaterEqual", math_ops.greater_equal, self, other)

    def __getitem__(self, key: Any) -> Any:
        return _operation("GetItem", _get_item, self, key)

    __hash__ = object.__hash__


_TF_FUNCTION_ERROR = """A KerasTensor cannot be used as input to a TensorFlow function. A \
KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras \
Functional models or Keras Functions. You can only use it as input to a Keras layer or a Keras \
operation (from the namespaces `keras.layers` and `keras.ops`). You are likely doing something \
like:

```
x = Input(...)
...
tf_fn(x)  # Invalid.
```

What you should do instead is wrap `tf_fn` in a layer:

```
class MyLayer(Layer):
    def call(self, x):
        return tf_fn(x)

x = MyLayer()(x)
```
"""


def _get_item(x: Any, key: Any) -> Any:
    return convert_to_tensor(x)[key]


class Node:
    """One call of a layer on KerasTensors: its arguments and its output KerasTensors."""

    def __init__(self, layer: "Layer", args: tuple, kwargs: dict, outputs: Any) -> None:
        self.id = next(_NODE_IDS)  # creation order is a topological order
        self.layer, self.args, self.kwargs, self.outputs = layer, args, kwargs, outputs
        self.input_tensors = [t for t in nest.flatten((args, kwargs))
                              if isinstance(t, KerasTensor)]
        self.output_tensors = nest.flatten(outputs)


class Layer:
    """The base class of all layers.

    Subclasses create weights in `build(input_shape)` with `add_weight` and compute in
    `call(inputs, ...)`; a `training` argument of `call` receives the caller's value (or the
    enclosing call's). Layers and `keras.Variable`s assigned as attributes are tracked (plain
    `tf.Variable`s are not, as in Keras 3).

    Args:
      trainable: whether the layer's weights are trained (settable later).
      dtype: the dtype policy (a name such as 'float32' or 'mixed_float16', a DTypePolicy):
        the weights' and the computations' dtypes; the global policy by default.
      name: a unique name; by default the snake_case class name, numbered ('dense_1').
      input_shape / input_dim / batch_size: the input shape (without the batch dimension),
        so a Sequential model can build at once.
    """

    def __init__(self, *, activity_regularizer: Any = None, trainable: bool = True,
                 dtype: Any = None, autocast: bool = True, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        self._init_tracking()
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        batch_shape = kwargs.pop("batch_input_shape", kwargs.pop("batch_shape", None))
        kwargs.pop("input_length", None)
        # Keras names the layer before checking the arguments (a failed call uses a name).
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        self.name = name or backend.unique_name(to_snake_case(type(self).__name__))
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                             f"{kwargs}")
        if input_shape is None and input_dim is not None:
            input_shape = (input_dim,)
        if batch_shape is None and input_shape is not None:
            batch_shape = (batch_size,) + tuple(input_shape)
        self._batch_input_shape = None if batch_shape is None else tuple(batch_shape)
        self._trainable = bool(trainable)
        self._dtype_policy = mixed_precision.get(dtype)
        self._dtype = self._dtype_policy.variable_dtype
        self._build_shapes: Any = None  # the input shape `build` got, for get_build_config
        self.autocast = autocast
        self.built = False
        # As Keras 3: a layer that defines `compute_mask` passes masks on.
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        from tapeflow.keras import regularizers
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._losses: list = []
        self._inbound_nodes: list = []
        self._output_shape: Any = None
        params = inspect.signature(self.call).parameters
        self._call_has_training = "training" in params
        self._call_training_default = (params["training"].default
                                       if self._call_has_training else None)
        self._call_has_mask = "mask" in params
        first = next(iter(params.values()), None)
        # The argument Keras 3 takes as the inputs when it is passed by keyword.
        self._call_input_name = first.name if first is not None and \
            first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD else None

    _input_spec: Any = None
    # Keras 3 takes only tensors (arrays, None) positionally; other values go by keyword.
    _allow_non_tensor_positional_args = False

    @property
    def input_spec(self) -> Any:
        """The `InputSpec`(s) the first call argument is checked against (None: no check)."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        self._input_spec = value

    def _init_tracking(self) -> None:
        if "_layers" not in self.__dict__:
            object.__setattr__(self, "_layers", [])
            object.__setattr__(self, "_trainable_variables", [])
            object.__setattr__(self, "_non_trainable_variables", [])
            object.__setattr__(self, "_tracked", [])
            object.__setattr__(self, "_metrics", [])

    # -- attribute tracking -------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        # A Model's `_untracked_attributes` (Trainer's) hold compile's state, not its own.
        if not name.startswith("__") and name not in ("_layers", "_tracked") and \
                name not in getattr(type(self), "_untracked_attributes", ()):
            self._init_tracking()
            for leaf in (nest.flatten(value) if isinstance(value, (list, tuple, dict))
                         else [value]):
                self._track(leaf)
        object.__setattr__(self, name, value)

    def _track(self, value: Any) -> None:
        if isinstance(value, Layer) and value is not self:
            if not any(value is layer for layer in self._layers):
                self._layers.append(value)
        elif isinstance(value, Metric):  # Keras 3 lists it in `metrics`; fit resets it
            if not any(value is m for m in self._metrics):
                self._metrics.append(value)
        elif isinstance(value, Variable):  # a keras.Variable; a plain tf.Variable is not
            # tracked (Keras 3 with the TF backend leaves it out of `weights` and training)
            if not any(value is v for v in self._all_own_variables()):
                self._track_variable(value)

    def _track_variable(self, variable: Any) -> None:
        """Files a variable by its `trainable`; a frozen layer's new weight is frozen too."""
        (self._trainable_variables if variable.trainable
         else self._non_trainable_variables).append(variable)
        if not self.__dict__.get("_trainable", True) and isinstance(variable, Variable):
            variable.trainable = False

    def _all_own_variables(self) -> list:
        return self._trainable_variables + self._non_trainable_variables

    # -- weights ----------------------------------------------------------------------------
    def add_weight(self, shape: Any = None, initializer: Any = None, dtype: Any = None,
                   trainable: bool = True, autocast: bool = True, regularizer: Any = None,
                   constraint: Any = None, aggregation: str = "none",
                   overwrite_with_gradient: bool = False, name: Optional[str] = None) -> Variable:
        """Creates a weight of this layer (a Variable), tracked in `weights`.

        `initializer` is a name, an initializer or a callable `(shape, dtype)`; the default
        is 'glorot_uniform' for floats and 'zeros' otherwise, as Keras. `aggregation`
        ('none', 'mean', 'sum', 'only_first_replica') is how a distribution strategy
        combines replicas' updates; `overwrite_with_gradient`: the optimizer assigns the
        gradient instead of applying it (Keras 3's float8 scales): tapeflow's optimizers do
        not, so True is refused rather than trained wrongly.
        """
        self._init_tracking()
        aggregation_mode = _aggregation_mode(aggregation)
        if overwrite_with_gradient:
            raise NotImplementedError(
                "tapeflow's optimizers do not implement `overwrite_with_gradient=True` (they "
                "would apply the gradient as an update); create the weight without it.")
        dtype = str(getattr(dtype, "name", dtype) or self._dtype)
        shape = _weight_shape(shape)
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        initializer = initializers.get(initializer)
        from tapeflow.keras import constraints, regularizers
        # A mixed policy's float weights read in the compute dtype inside `call`.
        cls = mixed_precision.AutocastVariable if autocast and "float" in dtype and \
            self._dtype_policy.compute_dtype != self._dtype else Variable
        with backend.name_scope(self.name, caller=self):
            variable = cls(initializer, shape=shape, dtype=dtype, trainable=trainable,
                           name=name)
        # The optimizer applies `variable.constraint` after each update; `losses` calls the
        # regularizer on the current value at every read.
        variable.regularizer = regularizers.get(regularizer)
        variable._constraint = constraints.get(constraint)
        variable._aggregation = aggregation_mode
        variable.overwrite_with_gradient = bool(overwrite_with_gradient)
        self._track_variable(variable)
        return variable

    @property
    def trainable(self) -> bool:
        """Whether the layer's weights are updated by training."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """Freezes or unfreezes the layer, its weights and its sublayers (as Keras 3)."""
        value = bool(value)
        self._trainable = value
        for v in self._trainable_variables:
            if isinstance(v, Variable):
                v.trainable = value
        for layer in self._layers:
            layer.trainable = value

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights (alias of `variable_dtype`)."""
        return self._dtype

    @property
    def dtype_policy(self) -> Any:
        """The layer's DTypePolicy."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value: Any) -> None:
        self._dtype_policy = mixed_precision.get(value)
        self._dtype = self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computations (its float inputs are cast to it)."""
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights."""
        return self._dtype

    @property
    def input_dtype(self) -> str:
        """The dtype float inputs are converted to (the compute dtype)."""
        return self._dtype_policy.compute_dtype

    @property
    def layers(self) -> list:
        """The sublayers this layer tracks, in order."""
        return list(self._layers)

    @property
    def metrics(self) -> list:
        """The metrics assigned as attributes of this layer, then its sublayers' (Keras 3)."""
        metrics = list(self.__dict__.get("_metrics", ()))
        for layer in self._layers:
            metrics.extend(layer.metrics)
        return metrics

    @property
    def weights(self) -> list:
        """Own weights (trainable first), then each sublayer's, without repeats."""
        seen, out = set(), []
        for w in self._all_own_variables():
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        for layer in self._layers:
            for w in layer.weights:
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
        return out

    variables = weights

    @property
    def trainable_weights(self) -> list:
        """The trainable weights, own then sublayers'; [] if frozen."""
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        """The non-trainable weights; all weights if the layer is frozen."""
        return [v for v in self.weights if not v.trainable] if self.trainable else self.weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def quantize(self, mode: Optional[str] = None, type_check: bool = True,
                 config: Any = None) -> None:
        """Keras 3 quantizes a layer's kernel (int8, int4, float8, GPTQ, AWQ) in place:
        tapeflow has no quantized kernels, so this raises instead of computing otherwise."""
        raise NotImplementedError(
            f"{type(self).__name__}.quantize(mode={mode!r}): tapeflow has no quantized layer "
            f"kernels (int8, int4, float8, GPTQ, AWQ); the layer keeps its float weights.")

    # -- losses -------------------------------------------------------------------------------
    def add_loss(self, loss: Any) -> None:
        """Adds scalar loss tensor(s) to `losses`; call it from `call()`. The list is cleared
        at the start of each outermost call, as Keras 3."""
        if _INFERRING[0]:
            return
        for x in nest.flatten(loss):
            if not isinstance(x, TensorLike):
                raise ValueError(f"`add_loss()` can only be called from inside `build()` or "
                                 f"`call()`, on a tensor input. Received invalid value: {x}")
            self._losses.append(x)
            _LOSSES_ADDED[0] = True

    def _flatten_layers(self) -> list:
        """Every sublayer, depth first, without repeats (not `self`)."""
        seen, out, stack = {id(self)}, [], list(reversed(self._layers))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            stack.extend(reversed(layer._layers))
        return out

    @property
    def losses(self) -> list:
        """Losses added during the last call (`add_loss`, activity regularizers) by this
        layer and its sublayers, then the weight regularizers' penalties, computed now."""
        losses = list(self.__dict__.get("_losses", ()))
        for layer in self._flatten_layers():
            losses.extend(layer.__dict__.get("_losses", ()))
        for variable in self.trainable_weights:
            regularizer = getattr(variable, "regularizer", None)
            if regularizer is not None:
                losses.append(regularizer(variable))
        return losses

    def _clear_losses(self) -> None:
        self.__dict__.get("_losses", []).clear()
        for layer in self._flatten_layers():
            layer.__dict__.get("_losses", []).clear()

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays, in `weights` order."""
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights: list) -> None:
        """Assigns NumPy values to the weights, in `weights` order (shapes must match)."""
        own = self.weights
        if len(weights) != len(own):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a "
                             f"weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(own)} weights.")
        for variable, value in zip(own, weights):
            value = np.asarray(value)
            if tuple(variable.shape.as_list()) != value.shape:
                raise ValueError(f"Layer {self.name} weight shape "
                                 f"{tuple(variable.shape.as_list())} is not compatible with "
                                 f"provided weight shape {value.shape}.")
            variable.assign(value.astype(variable._value.dtype, copy=False))

    def count_params(self) -> int:
        """The number of scalars in the weights; the layer must be built."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but "
                             f"the layer isn't built. You can build it manually via: "
                             f"`layer.build(input_shape)`.")
        return int(sum(math.prod(w.shape.as_list()) for w in self.weights))

    # -- building and calling -------------------------------------------------------------------
    def build(self, input_shape: Any = None) -> None:
        """Creates the weights for inputs of `input_shape` (override in subclasses)."""
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation (override in subclasses)."""
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call` method "
                                  f"implemented.")

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The mask of the outputs (Keras 3's default: the input's mask)."""
        return previous_mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape, found by running `call` on zeros of that shape."""
        dummy = nest.map_structure(lambda s: KerasTensor(s, self.compute_dtype),
                                   _shape_structure(input_shape))
        out = _infer_outputs(self, (dummy,), {})
        return nest.map_structure(lambda t: t.shape, out)

    def _maybe_build(self, shapes: Any) -> None:
        if not self.built:
            with backend.name_scope(self.name, caller=self):
                self.build(shapes)
            self.built = True
            self._build_shapes = _plain_shape(shapes)

    def _build_and_check(self, inputs: Any, shapes: Any) -> None:
        """Builds an unbuilt layer, then checks `inputs` against the `input_spec` that
        `build` may have set (Dense's last axis), as Keras 3."""
        if self.built:
            return
        self._maybe_build(shapes)
        if self.input_spec is not None:
            assert_input_compatibility(self.input_spec, inputs, self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._init_tracking()
        if not args:
            args, kwargs = self._inputs_from_keywords(kwargs)
        flat_args = args if len(args) == 1 and isinstance(args[0], TensorLike) else \
            nest.flatten(args)
        if not self._allow_non_tensor_positional_args:
            _check_positional(flat_args)
        if any(isinstance(t, KerasTensor) for t in flat_args) or \
                (kwargs and _holds_keras_tensor(kwargs.values())):
            return self._symbolic_call(args, kwargs)
        previous_mask = _masks_of(args[0]) if _MASKS else None
        if kwargs.get("mask") is not None:
            previous_mask = kwargs["mask"]
        elif previous_mask is not None and self._call_has_mask:
            kwargs["mask"] = previous_mask
        inputs = self._convert_inputs(args[0])
        args = (inputs,) + (self._convert_inputs(args[1:]) if len(args) > 1 else ())
        if self.input_spec is not None:  # before building: a failed call builds nothing
            assert_input_compatibility(self.input_spec, inputs, self.name)
        if self._call_has_training:
            training = kwargs.get("training")
            if training is None:
                training = _TRAINING_STACK[-1] if _TRAINING_STACK else \
                    self._call_training_default
            kwargs["training"] = training
        else:
            training = kwargs.pop("training", None)
            if training is None and _TRAINING_STACK:
                training = _TRAINING_STACK[-1]
        if not self.built:
            self._build_and_check(inputs, nest.map_structure(
                lambda t: tuple(t.shape.as_list()), inputs))
        if _LOSSES_ADDED[0] and not _TRAINING_STACK and not _INFERRING[0]:
            self._clear_losses()  # an outermost call starts a fresh list, as Keras 3
        _TRAINING_STACK.append(training)
        try:
            with backend.name_scope(self.name, caller=self), self._autocast_scope():
                outputs = self.call(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - re-raised with the call's arguments
            raise _with_call_arguments(exc, self, args, kwargs) from None
        finally:
            _TRAINING_STACK.pop()
        if self.activity_regularizer is not None:
            self._add_activity_loss(outputs)
        if self.supports_masking:
            self._set_output_masks(inputs, outputs, previous_mask)
        if self._output_shape is None:
            self._output_shape = nest.map_structure(
                lambda t: (None,) + tuple(t.shape.as_list())[1:] if isinstance(t, TensorLike)
                and t.shape.rank else None, outputs)
        return outputs

    def stateless_call(self, trainable_variables: list, non_trainable_variables: list,
                       *args: Any, return_losses: bool = False, **kwargs: Any) -> tuple:
        """Calls the layer with its variables holding the given values and leaves them as
        they were: `(outputs, non-trainable values after the call)` (and `losses` with
        `return_losses=True`), as Keras 3. tapeflow swaps the values in and back out, so a
        tape does not differentiate through the given values (Keras-on-TF does)."""
        if not self.built:
            raise ValueError(f"To call stateless_call, {type(self).__name__} must be built "
                             "(i.e. its variables must have been already created). You can "
                             "build it by calling it on some data.")
        own = {"trainable_variables": list(self.trainable_variables),
               "non_trainable_variables": list(self.non_trainable_variables)}
        given = {"trainable_variables": list(trainable_variables),
                 "non_trainable_variables": list(non_trainable_variables)}
        for kind, variables in own.items():
            if len(given[kind]) != len(variables):
                raise ValueError(
                    f"Argument `{kind}` must be a list of tensors corresponding 1:1 to "
                    f"{type(self).__name__}().{kind}. Received list with length "
                    f"{len(given[kind])}, but expected {len(variables)} variables.")
        variables = own["trainable_variables"] + own["non_trainable_variables"]
        saved = [np.array(v.numpy()) for v in variables]  # copies: updates may be in place
        try:
            for variable, value in zip(variables, given["trainable_variables"]
                                       + given["non_trainable_variables"]):
                variable.assign(value)
            outputs = self(*args, **kwargs)
            new_state = [v.read_value() for v in own["non_trainable_variables"]]
            losses = list(self.losses)
        finally:
            for variable, value in zip(variables, saved):
                variable.assign(value)
        return (outputs, new_state, losses) if return_losses else (outputs, new_state)

    def _inputs_from_keywords(self, kwargs: dict) -> tuple:
        """(args, kwargs) of a call made with keywords only: the first argument of `call`,
        passed by its name (`layer(inputs=x)`, `layer(logits=x)`), is the inputs (Keras 3)."""
        name = self.__dict__.get("_call_input_name")
        if name is None:
            raise ValueError(f"Layer {self.name} was called without inputs.")
        if name not in kwargs:  # inspect's text, which Keras's CallSpec raises
            raise TypeError(f"missing a required argument: '{name}'")
        kwargs = dict(kwargs)
        return (kwargs.pop(name),), kwargs

    def _set_output_masks(self, inputs: Any, outputs: Any, previous_mask: Any) -> None:
        """Attaches `compute_mask`'s masks to the outputs that have none (Keras's
        `_set_mask_metadata`)."""
        if previous_mask is None and type(self).compute_mask is Layer.compute_mask:
            return
        flat = [t for t in nest.flatten(outputs) if isinstance(t, TensorLike)]
        if all(get_keras_mask(t) is not None for t in flat):
            return
        masks = self.compute_mask(inputs, previous_mask)
        if masks is None:
            return
        for tensor, mask in zip(flat, nest.flatten(masks) if isinstance(masks, (list, tuple))
                                else [masks]):
            if mask is not None and get_keras_mask(tensor) is None:
                set_keras_mask(tensor, mask)

    def _add_activity_loss(self, outputs: Any) -> None:
        """The activity penalty of each output, divided by the batch size (as Keras 3)."""
        for output in nest.flatten(outputs):
            if isinstance(output, TensorLike):
                loss = self.activity_regularizer(output)
                if output.shape.rank:
                    batch = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                    loss = math_ops.divide_no_nan(loss, batch)
                self.add_loss(loss)

    def _autocast_scope(self) -> Any:
        """Keras's AutocastScope for `call`: weights read in the compute dtype where the
        policy mixes dtypes; an enclosing scope is updated or cleared, as Keras 3."""
        compute, outer = self._dtype_policy.compute_dtype, mixed_precision.get_autocast_dtype()
        if outer is not None:
            if not self.autocast or "float" not in compute:
                return mixed_precision.AutocastScope(None)
            if outer != compute:
                return mixed_precision.AutocastScope(compute)
        elif compute != self._dtype:
            return mixed_precision.AutocastScope(compute)
        return contextlib.nullcontext()

    # Whether a call casts floating inputs to the compute dtype (Keras's autocast of the
    # call's arguments; a functional model gives each input its Input's dtype instead).
    _autocasts_inputs = True

    def _convert_inputs(self, inputs: Any) -> Any:
        """Arrays become tensors; floating inputs take the compute dtype (Keras's autocast)."""
        compute = self._dtype_policy.compute_dtype
        autocast = self.autocast and self._autocasts_inputs

        def convert(x: Any) -> Any:
            if x is None:
                return x
            if isinstance(x, SparseTensor):   # stays sparse; float values autocast
                values = x.values
                if autocast and values.dtype.is_floating and \
                        values.dtype.name != compute and "float" in compute:
                    return x.with_values(math_ops.cast(values, compute))
                return x
            t = x if isinstance(x, TensorLike) else convert_to_tensor(x)
            if autocast and t.dtype.is_floating and t.dtype.name != compute and \
                    "float" in compute:
                t = math_ops.cast(t, compute)
            return t
        if isinstance(inputs, TensorLike):  # the common case, without nest's walk
            return convert(inputs)
        return nest.map_structure(convert, inputs)

    def _symbolic_call(self, args: tuple, kwargs: dict) -> Any:
        inputs = args[0]
        if self.input_spec is not None:
            assert_input_compatibility(self.input_spec, inputs, self.name)
        shapes = nest.map_structure(lambda t: t.shape if isinstance(t, KerasTensor)
                                    else tuple(np.shape(t)), inputs)
        self._build_and_check(inputs, shapes)
        outputs = _infer_outputs(self, args, kwargs)
        node = Node(self, args, kwargs, outputs)
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for i, t in enumerate(node.output_tensors):
            t._keras_history = (self, index, i)
        self._output_shape = nest.map_structure(lambda t: t.shape, outputs)
        return outputs

    @property
    def input(self) -> Any:
        """The input KerasTensor(s) of the layer's first symbolic call."""
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has "
                                 f"no defined input.")
        node = self._inbound_nodes[0]
        return node.input_tensors[0] if len(node.input_tensors) == 1 else node.input_tensors

    @property
    def output(self) -> Any:
        """The output KerasTensor(s) of the layer's first symbolic call."""
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has "
                                 f"no defined output.")
        return self._inbound_nodes[0].outputs

    @property
    def input_shape(self) -> Any:
        """The shape(s) of `input`."""
        return nest.map_structure(lambda t: t.shape, self.input)

    @property
    def output_shape(self) -> Any:
        """The output shape(s) of the layer's first call; AttributeError before."""
        if self._output_shape is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has "
                                 f"no defined output shape.")
        return self._output_shape

    def get_config(self) -> dict:
        """The layer's constructor arguments (name, trainable, dtype, ...) as a dict; the
        dtype as Keras 3's DTypePolicy config."""
        return {"name": self.name, "trainable": self.trainable,
                "dtype": dtype_policy_config(self._dtype_policy.name)}

    @classmethod
    def from_config(cls, config: dict) -> "Layer":
        """A layer built from the dict `get_config()` returns; a config the constructor refuses
        raises TypeError naming the class and the config, as Keras."""
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config}.\n\nException encountered: {e}") from e

    def get_build_config(self) -> Optional[dict]:
        """`{'input_shape': ...}`: the shape the layer was built for (None if unbuilt or
        built without one), as Keras 3 stores it in saved configs."""
        if getattr(self, "_build_shapes", None) is None:
            return None
        return {"input_shape": self._build_shapes}

    def build_from_config(self, config: Optional[dict]) -> None:
        """Builds the layer (creates its weights) for the input shape `get_build_config`
        recorded."""
        if config and config.get("input_shape") is not None and not self.built:
            shape = config["input_shape"]
            self._maybe_build(tuple(shape) if not _is_shape_list(shape)
                              else [tuple(s) for s in shape])

    def __reduce__(self) -> tuple:
        """Pickles through Keras's `.keras` format (config and weights), as Keras 3."""
        from tapeflow.keras.saving import archive
        return (archive.unpickle, (archive.to_bytes(self),))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_AGGREGATIONS = {None: "NONE", "none": "NONE", "mean": "MEAN", "sum": "SUM",
                 "only_first_replica": "ONLY_FIRST_REPLICA"}


def _aggregation_mode(aggregation: Any) -> Any:
    """`add_weight`'s `aggregation` as the variable's VariableAggregation (Keras 3's
    ValueError for any other value)."""
    from tapeflow.framework.variables import VariableAggregation
    if not isinstance(aggregation, (str, type(None))) or aggregation not in _AGGREGATIONS:
        raise ValueError("Invalid value for argument `aggregation`. Expected one of `None`, "
                         "`'none'`, `'mean'`, `'sum'`, `'only_first_replica'`. Received: "
                         f"aggregation={aggregation}")
    return getattr(VariableAggregation, _AGGREGATIONS[aggregation])


def _weight_shape(shape: Any) -> tuple:
    """`add_weight`'s shape as a tuple of ints (Keras 3's ValueError for a negative dim)."""
    dims = () if shape is None else tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"Cannot convert '{tuple(shape)}' to a shape. Negative dimensions "
                         "are not allowed.")
    return dims


def dtype_policy_config(dtype: str) -> dict:
    """Keras 3's serialized DTypePolicy for a dtype name."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtype},
            "registered_name": None}


def _is_shape_list(shape: Any) -> bool:
    return isinstance(shape, (list, tuple)) and bool(shape) and \
        isinstance(shape[0], (list, tuple))


def _plain_shape(shapes: Any) -> Any:
    """A build shape as JSON-ready lists (TensorShape-like items become tuples)."""
    if _is_shape_list(shapes):
        return [list(s) for s in shapes]
    if isinstance(shapes, (list, tuple)):
        return [None if d is None else int(d) for d in shapes]
    return None


def _holds_keras_tensor(values: Any) -> bool:
    """Whether any of `values` (a call's keyword arguments) is or holds a KerasTensor."""
    for value in values:
        if isinstance(value, KerasTensor):
            return True
        if nest.is_nested(value) and any(isinstance(t, KerasTensor)
                                         for t in nest.flatten(value)):
            return True
    return False


def _check_positional(flat_args: Any) -> None:
    """Keras 3's ValueError for a positional argument that is not a tensor, an array or None
    (`layer(x, 3)`: the 3 must be passed as a keyword argument)."""
    for arg in flat_args:
        if not (arg is None or isinstance(arg, (TensorLike, KerasTensor, SparseTensor))
                or hasattr(arg, "__array__")):
            raise ValueError(f"Only input tensors may be passed as positional arguments. The "
                             f"following argument value should be passed as a keyword "
                             f"argument: {arg} (of type {type(arg)})")


def _shape_structure(shape: Any) -> Any:
    """A shape (tuple of ints/None) or a list of shapes, as nest leaves (tuples -> lists)."""
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        return [tuple(s) for s in shape]
    return tuple(shape)


def _infer_outputs(layer: Layer, args: tuple, kwargs: dict) -> Any:
    """Output KerasTensors of `layer` on KerasTensor arguments: traces `call` twice on
    zeros, with unknown dims set to 2 and then 3; output dims that differ are unknown (None).
    Where such small stand-ins are invalid (a strided 7x7 convolution of an image of unknown
    size), one trace with the unknown dims abstract gives the shapes from the shape rules.
    Tracing (not running) the call means a Python `if` on a tensor fails here, as in Keras."""
    try:
        return _traced_outputs(layer, args, kwargs, fills=(2, 3))
    except Exception as small_fill_error:  # noqa: BLE001 - any: re-raised unless abstract works
        if not any(isinstance(t, KerasTensor) and None in t.shape
                   for t in nest.flatten((args, kwargs))):
            raise
        try:
            return _traced_outputs(layer, args, kwargs, fills=(None,))
        except Exception:  # noqa: BLE001 - the first error is the one that explains
            raise small_fill_error from None


def _traced_outputs(layer: Layer, args: tuple, kwargs: dict, fills: tuple) -> Any:
    """`_infer_outputs`'s traces: one per fill of the unknown dims (None: left unknown)."""
    results = []
    for fill in fills:
        graph = Graph(f"{layer.name}_output_spec")
        count = itertools.count()

        def concrete(t: Any, fill: int = fill, graph: Graph = graph,
                     count: Any = count) -> Any:
            if not isinstance(t, KerasTensor):
                return t
            shape = tuple((fill or 1) if d is None else d for d in t.shape)
            dtype = t.dtype
            if layer.autocast and "float" in dtype and "float" in layer.compute_dtype:
                dtype = layer.compute_dtype  # as __call__ casts float inputs
            np_dtype = _dtypes.as_dtype(dtype)._np
            if t.sparse:
                return _sparse_stand_in(graph, shape, np_dtype, next(count))
            # String stand-ins hold empty strings (zeros of dtype object would be ints 0).
            example = np.full(shape, b"", object) if np_dtype.kind == "O" else \
                np.zeros(shape, np_dtype)
            return graph.placeholder(example, f"keras_tensor_{next(count)}",
                                     t.shape if fill is None else shape)
        c_args = nest.map_structure(concrete, list(args))
        c_kwargs = {k: nest.map_structure(concrete, v) for k, v in kwargs.items()}
        if layer._call_has_training:
            c_kwargs["training"] = False
        else:
            c_kwargs.pop("training", None)
        _TRAINING_STACK.append(False)
        _INFERRING[0] += 1
        try:
            with tracing(graph), backend.name_scope(layer.name, caller=layer), \
                    layer._autocast_scope(), np.errstate(all="ignore"):
                results.append(layer.call(*c_args, **c_kwargs))
        except Exception as exc:  # noqa: BLE001 - re-raised as Keras words it
            raise _output_spec_error(exc, layer, args, kwargs) from None
        finally:
            _INFERRING[0] -= 1
            _TRAINING_STACK.pop()
    if len(results) == 1:
        results.append(results[0])
    return nest.map_structure(
        lambda a, b: KerasTensor(tuple(x if x == y else None
                                       for x, y in zip(a.shape.as_list(), b.shape.as_list())),
                                 a.dtype.name, sparse=isinstance(a, SparseTensor)),
        results[0], results[1])


def _sparse_stand_in(graph: Graph, shape: tuple, np_dtype: Any, k: int) -> SparseTensor:
    """A sparse KerasTensor's stand-in: a SparseTensor of `shape` whose indices and values
    are placeholders (no explicit values known) and whose dense shape is a constant."""
    indices = graph.placeholder(np.zeros((0, len(shape)), np.int64),
                                f"keras_tensor_{k}_indices", (None, len(shape)))
    values = graph.placeholder(np.zeros((0,), np_dtype), f"keras_tensor_{k}_values", (None,))
    with tracing(graph):
        return SparseTensor(indices, values, list(shape))


class Operation(Layer):
    """A keras.ops operation applied to KerasTensors (`x + y`, `x[:, 0]`, `keras.ops.relu`):
    a weightless node of the functional graph. As in Keras 3, it shows in `summary()` but
    not in `Model.layers`."""

    def __init__(self, class_name: str, function: Any, **kwargs: Any) -> None:
        self._class_name, self.function, self._kwargs = class_name, function, kwargs
        super().__init__(name=backend.unique_name(to_snake_case(class_name)))
        self.built = True

    def call(self, *args: Any) -> Any:
        return self.function(*args, **self._kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(t, KerasTensor) for t in nest.flatten((args, kwargs))):
            outputs = _infer_outputs(self, args, kwargs)
            node = Node(self, args, kwargs, outputs)
            self._inbound_nodes.append(node)
            for i, t in enumerate(node.output_tensors):
                t._keras_history = (self, len(self._inbound_nodes) - 1, i)
            self._output_shape = nest.map_structure(lambda t: t.shape, outputs)
            return outputs
        return self.call(*args, **kwargs)

    def count_params(self) -> int:
        return 0


def _output_spec_error(exc: Exception, layer: "Layer", args: tuple, kwargs: dict) -> Exception:
    """A failed symbolic call, as Keras 3 reports it: its own framing of the error, then the
    arguments (Keras passes them on as `*args, **kwargs`)."""
    if getattr(exc, "_keras_call_info_injected", False):
        return exc.with_traceback(exc.__traceback__)
    cls = type(layer).__name__
    original = exc.message if isinstance(exc, OpError) else exc.args[0] if exc.args else ""
    inner = (f"Could not automatically infer the output shape / dtype of '{layer.name}' (of type "
             f"{cls}). Either the `{cls}.call()` method is incorrect, or you need to implement "
             f"the `{cls}.compute_output_spec() / compute_output_shape()` method. Error "
             f"encountered:\n\n{original}")
    shown_args = tuple(repr(a) if isinstance(a, KerasTensor) else a for a in args)
    received = [f"  \u2022 args={shown_args!r}",
                f"  \u2022 kwargs={kwargs if kwargs else inspect.Parameter.empty}"]
    return _reraised(exc, f"{cls}.call()", inner, received)


def _reraised(exc: Exception, name: str, original: str, received: list) -> Exception:
    message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{original}\x1b[0m\n\n"
               f"Arguments received by {name}:\n" + "\n".join(received))
    try:
        new = type(exc)(exc.node_def, exc.op, message) if isinstance(exc, OpError) \
            else type(exc)(message)
    except Exception:  # noqa: BLE001 - an error class with its own signature, as Keras
        new = RuntimeError(message)
    new._keras_call_info_injected = True
    return new.with_traceback(exc.__traceback__)


def _argument_text(value: Any) -> str:
    if isinstance(value, TensorLike) and not isinstance(value, KerasTensor):
        return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
    return repr(value)


def _with_call_arguments(exc: Exception, layer: "Layer", args: tuple, kwargs: dict) -> Exception:
    """The error of a failed `call`, as Keras 3 re-raises it: its message framed by the layer's
    name and the arguments the call received (only the innermost failing layer adds them)."""
    if getattr(exc, "_keras_call_info_injected", False):
        return exc.with_traceback(exc.__traceback__)
    try:
        signature = inspect.signature(layer.call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return exc.with_traceback(exc.__traceback__)
    lines = []
    for param in signature.parameters.values():
        value = bound.arguments.get(param.name, param.default)
        if param.name in bound.arguments:
            value = nest.map_structure(_argument_text, value)
        lines.append(f"  \u2022 {param.name}={value}")
    original = exc.message if isinstance(exc, OpError) else exc.args[0] if exc.args else ""
    return _reraised(exc, f"{type(layer).__name__}.call()", original, lines)


def _operation(class_name: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """Applies `function` to `args` as a new Operation node (symbolic when any is a
    KerasTensor, eager otherwise)."""
    return Operation(class_name, function, **kwargs)(*args)


def is_keras_tensor(x: Any) -> bool:
    return isinstance(x, KerasTensor)


__all__ = ["Layer", "KerasTensor", "Node", "Operation", "is_keras_tensor", "get_keras_mask",
           "set_keras_mask"]
