"""Attention layers as Keras 3 defines them: MultiHeadAttention (EinsumDense projections,
Keras masks, causal and sliding-window masks, attention scores), Attention (dot or concat
scores) and AdditiveAttention.

MultiHeadAttention computes as Keras does on TensorFlow, including its choice of path: with
no dropout, no returned scores and 3-D inputs Keras runs `ops.dot_product_attention` (masked
logits at -0.7 * 3.4e38, fully masked rows averaging the values); otherwise the einsum path
with its masked Softmax layer (masked logits at -1e9, masked probabilities 0)."""

from __future__ import annotations

import math
import string
from typing import Any, Optional

from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, constraints, initializers, regularizers
from tapeflow.keras.layers.activation import Softmax
from tapeflow.keras.layers.core import Dropout
from tapeflow.keras.layers.einsum_dense import EinsumDense
from tapeflow.keras.layers.layer import KerasTensor, Layer, get_keras_mask, set_keras_mask
from tapeflow.ops import array_ops, linalg_ops, manip_ops, math_ops, nn_ops, reduce_ops

__all__ = ["MultiHeadAttention", "GroupQueryAttention", "GroupedQueryAttention", "Attention",
           "AdditiveAttention"]

# Keras's `_get_large_negative` for float32 logits of dot_product_attention.
_LARGE_NEGATIVE = -0.7 * 3.38953e38


def _shape_of(x: Any) -> Optional[tuple]:
    if x is None:
        return None
    if isinstance(x, KerasTensor):
        return tuple(x.shape)
    if isinstance(x, TensorLike):
        return tuple(x.shape.as_list())
    return tuple(convert_to_tensor(x).shape.as_list())


def _positive_int(value: Any, name: str, allow_none: bool = False) -> None:
    if allow_none and value is None:
        return
    if not isinstance(value, int) or value <= 0:
        extra = " or `None`" if allow_none else ""
        raise ValueError(f"Received an invalid value for argument `{name}`, expected a "
                         f"positive integer{extra}. Received: {name}={value}")


def _read_only(attribute: str, doc: str) -> property:
    return property(lambda self: getattr(self, attribute), doc=doc)


class _QueryValueLayer(Layer):
    """A layer called as `layer(query, value, key=None, ...)` and built, as Keras builds a
    multi-input layer, from all their shapes (`build(query_shape, value_shape,
    key_shape)`), which its build config records as Keras's shapes dict."""

    _build_shapes_dict: Optional[dict] = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Builds for the shapes of query, value and key (Keras builds a multi-input layer
        from all of them), then calls."""
        if not self.built and args:
            query = args[0]
            value = args[1] if len(args) > 1 else kwargs.get("value")
            key = args[2] if len(args) > 2 else kwargs.get("key")
            shapes = {"query_shape": _shape_of(query), "value_shape": _shape_of(value)}
            if key is not None:
                shapes["key_shape"] = _shape_of(key)
            with backend.name_scope(self.name, caller=self):
                self.build(**shapes)
            self.built = True
            self._build_shapes_dict = dict(shapes)
        return super().__call__(*args, **kwargs)

    def get_build_config(self) -> Optional[dict]:
        """`{'shapes_dict': {'query_shape': ..., 'value_shape': ...}}`, as Keras 3."""
        return None if self._build_shapes_dict is None else \
            {"shapes_dict": self._build_shapes_dict}

    def build_from_config(self, config: Optional[dict]) -> None:
        if config and "shapes_dict" in config and not self.built:
            shapes = {k: tuple(v) if v is not None else None
                      for k, v in config["shapes_dict"].items()}
            with backend.name_scope(self.name, caller=self):
                self.build(**shapes)
            self.built = True
            self._build_shapes_dict = shapes


class MultiHeadAttention(_QueryValueLayer):
    """Multi-head attention (Vaswani et al., 2017) as Keras 3's layer.

    `query`, `key` and `value` are projected by EinsumDense layers named 'query', 'key' and
    'value' (kernels `(dim, num_heads, key_dim)` / `(dim, num_heads, value_dim)`), attended
    over `attention_axes`, and projected back by 'attention_output' (kernel
    `(num_heads, value_dim, out)`). Call: `layer(query, value, key=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)`; the Keras masks of
    query, value and key (from Masking or `Embedding(mask_zero=True)`) are applied too.
    """

    def __init__(self, num_heads: int, key_dim: int, value_dim: Optional[int] = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape: Any = None,
                 attention_axes: Any = None, sliding_window: Optional[int] = None,
                 flash_attention: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 use_gate: bool = False, seed: Optional[int] = None, **kwargs: Any) -> None:
        _positive_int(num_heads, "num_heads")
        _positive_int(key_dim, "key_dim")
        _positive_int(value_dim, "value_dim", allow_none=True)
        super().__init__(**kwargs)
        if flash_attention:
            raise ValueError("Flash attention is not supported in tensorflow backend.")
        self.supports_masking = True
        self._num_heads, self._key_dim = num_heads, key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout, self._use_bias, self._use_gate = dropout, use_bias, use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, "
                                 f"the `output_shape` should be of type tuple, list, or "
                                 f"int.") from None
        # (not `_output_shape`: Layer keeps the call's output shape there)
        self._projection_shape = output_shape
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"`attention_axes` must be an int, list, or tuple."
                             f"Received: attention_axes={attention_axes}")
        self._attention_axes = attention_axes
        if sliding_window is not None and (not isinstance(sliding_window, int)
                                           or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self._key_dim))

    num_heads = _read_only("_num_heads", "The number of attention heads.")
    key_dim = _read_only("_key_dim", "The size of each head for query and key.")
    value_dim = _read_only("_value_dim", "The size of each head for value.")
    dropout = _read_only("_dropout", "The dropout rate of the attention probabilities.")
    use_bias = _read_only("_use_bias", "Whether the projections have biases.")
    attention_axes = _read_only("_attention_axes", "The axes attention runs over.")
    query_dense = _read_only("_query_dense", "The query projection (an EinsumDense).")
    key_dense = _read_only("_key_dense", "The key projection (an EinsumDense).")
    value_dense = _read_only("_value_dense", "The value projection (an EinsumDense).")
    output_dense = _read_only("_output_dense", "The output projection (an EinsumDense).")

    def get_config(self) -> dict:
        return {**super().get_config(), "num_heads": self._num_heads,
                "key_dim": self._key_dim, "value_dim": self._value_dim,
                "dropout": self._dropout, "use_bias": self._use_bias,
                "use_gate": self._use_gate, "output_shape": self._projection_shape,
                "attention_axes": self._attention_axes,
                "sliding_window": self._sliding_window,
                "kernel_initializer": initializers.serialize(self._kernel_initializer),
                "bias_initializer": initializers.serialize(self._bias_initializer),
                "kernel_regularizer": regularizers.serialize(self._kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self._bias_regularizer),
                "activity_regularizer": regularizers.serialize(self._activity_regularizer),
                "kernel_constraint": constraints.serialize(self._kernel_constraint),
                "bias_constraint": constraints.serialize(self._bias_constraint),
                "seed": self.seed}

    # -- building ----------------------------------------------------------------------------
    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        """Creates the query/key/value/output projections for these input shapes."""
        if value_shape is None:
            raise ValueError("MultiHeadAttention is built from the shapes of query and value "
                             "(call it on both, or call build(query_shape, value_shape)).")
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={value_shape} and "
                             f"key_shape={key_shape}")
        self._query_dense = self._projection(len(query_shape), self._key_dim, "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._projection(len(key_shape), self._key_dim, "key")
        self._key_dense.build(key_shape)
        if self._use_gate:
            self._gate_dense = self._projection(len(query_shape), self._value_dim, "gate",
                                                activation="sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection(len(value_shape), self._value_dim, "value")
        self._value_dense.build(value_shape)
        self._build_attention(len(query_shape) + 1)
        out_shape = self._projection_shape or [query_shape[-1]]
        equation, bias_axes, rank = _build_proj_equation(len(query_shape) - 1, bound_dims=2,
                                                         output_dims=len(out_shape))
        self._output_dense = EinsumDense(equation, output_shape=_get_output_shape(
            rank - 1, out_shape), bias_axes=bias_axes if self._use_bias else None,
            name="attention_output", **self._sublayer_kwargs())
        projected = list(self._query_dense.compute_output_shape(query_shape))
        projected[-1] = self._value_dim
        self._output_dense.build(tuple(projected))
        self.built = True

    def _projection(self, rank: int, size: int, name: str, activation: Any = None) -> Any:
        equation, bias_axes, out_rank = _build_proj_equation(rank - 1, bound_dims=1,
                                                             output_dims=2)
        return EinsumDense(equation,
                           output_shape=_get_output_shape(out_rank - 1,
                                                          [self._num_heads, size]),
                           bias_axes=bias_axes if self._use_bias else None,
                           activation=activation, name=name, **self._sublayer_kwargs())

    def _sublayer_kwargs(self) -> dict:
        """The projections' shared arguments; each gets its own copy of the initializers
        (an unseeded one then draws its own seed, as Keras)."""
        def fresh(init: Any) -> Any:
            return type(init).from_config(init.get_config())
        return dict(kernel_regularizer=self._kernel_regularizer,
                    bias_regularizer=self._bias_regularizer,
                    activity_regularizer=self._activity_regularizer,
                    kernel_constraint=self._kernel_constraint,
                    bias_constraint=self._bias_constraint, dtype=self.dtype,
                    kernel_initializer=fresh(self._kernel_initializer),
                    bias_initializer=fresh(self._bias_initializer))

    def _build_attention(self, rank: int) -> None:
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a
                                         for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = \
            _build_attention_equation(rank, self._attention_axes)
        norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        self._softmax = Softmax(axis=norm_axes, dtype=self.dtype)
        self._dropout_layer = Dropout(rate=self._dropout, dtype=self.dtype, seed=self.seed)

    # -- calling -------------------------------------------------------------------------------
    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        # The inputs' Keras masks fill the *_mask arguments; Keras then clears them.
        query_mask = get_keras_mask(query) if query_mask is None else query_mask
        value_mask = get_keras_mask(value) if value_mask is None else value_mask
        if key is not None and key_mask is None:
            key_mask = get_keras_mask(key)
        key = value if key is None else key
        for x in (query, value, key):
            if get_keras_mask(x) is not None:
                set_keras_mask(x, None)
        causal_only = (use_causal_mask and query_mask is None and value_mask is None
                       and key_mask is None and attention_mask is None
                       and self._sliding_window is None)
        if not causal_only:
            attention_mask = self._compute_attention_mask(
                query, value, query_mask, value_mask, key_mask, attention_mask,
                use_causal_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        query = self._query_dense(query)
        key = self._key_dense(key)
        value = self._value_dense(value)
        output, scores = self._compute_attention(query, key, value, attention_mask, training,
                                                 return_attention_scores,
                                                 use_causal_mask=causal_only)
        output = self._output_dense(output * gate if gate is not None else output)
        if query_mask is not None:
            set_keras_mask(output, query_mask)
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query: Any, key: Any, value: Any, attention_mask: Any = None,
                           training: Any = None, return_attention_scores: bool = False,
                           use_causal_mask: bool = False) -> tuple:
        """The attention of projected query/key/value: (output, scores or None)."""
        if not (self._dropout > 0.0 or return_attention_scores or query.shape.rank != 4):
            return self._dot_product_attention(query, key, value, attention_mask,
                                               use_causal_mask), None
        if use_causal_mask:
            causal = self._compute_causal_mask(query, value)
            attention_mask = causal if attention_mask is None else math_ops.logical_and(
                math_ops.cast(attention_mask, "bool"), causal)
        query = query * math_ops.cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = linalg_ops.einsum(self._dot_product_equation, key, query)
        scores = self._masked_softmax(scores, attention_mask)
        final = self._dropout_layer(scores, training=training) if self._dropout > 0.0 \
            else scores
        return linalg_ops.einsum(self._combine_equation, final, value), scores

    def _dot_product_attention(self, query: Any, key: Any, value: Any, mask: Any,
                               is_causal: bool) -> Any:
        return _dot_product_attention(query, key, value, mask, is_causal,
                                      self._inverse_sqrt_key_dim,
                                      -len(self._attention_axes) * 2 - 1)

    def _masked_softmax(self, scores: Any, attention_mask: Any = None) -> Any:
        if attention_mask is not None:
            axis = -len(self._attention_axes) * 2 - 1
            for _ in range(scores.shape.rank - attention_mask.shape.rank):
                attention_mask = array_ops.expand_dims(attention_mask, axis)
        return self._softmax(scores, mask=attention_mask)

    def _compute_attention_mask(self, query: Any, value: Any, query_mask: Any = None,
                                value_mask: Any = None, key_mask: Any = None,
                                attention_mask: Any = None,
                                use_causal_mask: bool = False) -> Any:
        if attention_mask is not None:  # (GroupQueryAttention leaves it uncast)
            attention_mask = math_ops.cast(attention_mask, "bool")
        return _attention_mask(query, value, query_mask, value_mask, key_mask, attention_mask,
                               use_causal_mask, self._sliding_window)

    def _compute_causal_mask(self, query: Any, value: Any = None) -> Any:
        return _causal_mask(query, value)

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> tuple:
        query_shape = tuple(query_shape)
        value_shape = tuple(value_shape) if value_shape is not None else query_shape
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={value_shape} and "
                             f"key_shape={key_shape}")
        if self._projection_shape:
            query_shape = query_shape[:-1] + self._projection_shape
        return query_shape


class GroupedQueryAttention(_QueryValueLayer):
    """Grouped-query attention (Ainslie et al., 2023) as Keras 3's `GroupQueryAttention`:
    `num_query_heads` query heads share `num_key_value_heads` key/value heads (each
    repeated `num_query_heads // num_key_value_heads` times). Projections 'query', 'key',
    'value' (kernels `(dim, heads, head_dim)`) and 'attention_output'; masks and paths as
    MultiHeadAttention's."""

    def __init__(self, head_dim: int, num_query_heads: int, num_key_value_heads: int,
                 dropout: float = 0.0, use_bias: bool = True,
                 sliding_window: Optional[int] = None, flash_attention: Any = None,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, use_gate: bool = False,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self.head_dim, self.num_query_heads = head_dim, num_query_heads
        self.num_key_value_heads = num_key_value_heads
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout, self.use_bias, self.use_gate = dropout, use_bias, use_gate
        if sliding_window is not None and (not isinstance(sliding_window, int)
                                           or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        if flash_attention:
            raise ValueError("Flash attention is not supported in tensorflow backend.")
        self.sliding_window = sliding_window
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(self.head_dim))

    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        """Creates the projections for these input shapes."""
        key_shape = value_shape if key_shape is None else key_shape
        self.feature_dim = query_shape[-1]
        heads = (self.num_query_heads, "uh", "bqm,muh->bquh")
        kv_heads = (self.num_key_value_heads, "vh", "bkm,mvh->bkvh")
        self._query_dense = self._projection(*heads, "query", query_shape)
        self._key_dense = self._projection(*kv_heads, "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._projection(*heads, "gate", query_shape, "sigmoid")
        self._value_dense = self._projection(*kv_heads, "value", value_shape)
        self._softmax = Softmax(axis=-1, dtype=self.dtype)
        self._dropout_layer = Dropout(rate=self.dropout, dtype=self.dtype, seed=self.seed)
        self._output_dense = EinsumDense(
            "bquh,uhm->bqm", output_shape=(None, self.feature_dim),
            bias_axes="m" if self.use_bias else None, name="attention_output",
            **self._sublayer_kwargs())
        self._output_dense.build((None, None, self.num_query_heads, self.head_dim))
        self.built = True

    def _projection(self, heads: int, bias_axes: str, equation: str, name: str, shape: Any,
                    activation: Any = None) -> Any:
        layer = EinsumDense(equation, output_shape=(None, heads, self.head_dim),
                            bias_axes=bias_axes if self.use_bias else None,
                            activation=activation, name=name, **self._sublayer_kwargs())
        layer.build(shape)
        return layer

    def _sublayer_kwargs(self) -> dict:
        def fresh(init: Any) -> Any:
            return type(init).from_config(init.get_config())
        return dict(kernel_regularizer=self.kernel_regularizer,
                    bias_regularizer=self.bias_regularizer,
                    activity_regularizer=self.activity_regularizer,
                    kernel_constraint=self.kernel_constraint,
                    bias_constraint=self.bias_constraint, dtype=self.dtype,
                    kernel_initializer=fresh(self.kernel_initializer),
                    bias_initializer=fresh(self.bias_initializer))

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        # The inputs' Keras masks fill the *_mask arguments left None (Keras's __call__).
        query_mask = get_keras_mask(query) if query_mask is None else query_mask
        value_mask = get_keras_mask(value) if value_mask is None else value_mask
        if key is not None and key_mask is None:
            key_mask = get_keras_mask(key)
        key = value if key is None else key
        causal_only = (use_causal_mask and query_mask is None and value_mask is None
                       and key_mask is None and attention_mask is None
                       and self.sliding_window is None)
        if not causal_only:
            attention_mask = _attention_mask(query, value, query_mask, value_mask, key_mask,
                                             attention_mask, use_causal_mask,
                                             self.sliding_window)
        gate = self._gate_dense(query) if self.use_gate else None
        query = self._query_dense(query)
        key = manip_ops.repeat(self._key_dense(key), self.num_repeats, axis=2)
        value = manip_ops.repeat(self._value_dense(value), self.num_repeats, axis=2)
        if not (self.dropout > 0.0 or return_attention_scores or query.shape.rank != 4):
            output = _dot_product_attention(query, key, value, attention_mask, causal_only,
                                            self._inverse_sqrt_head_dim)
            scores = None
        else:
            if causal_only:
                attention_mask = _causal_mask(query, value)
            query = query * math_ops.cast(self._inverse_sqrt_head_dim, query.dtype)
            scores = linalg_ops.einsum("bquh,bkuh->buqk", query, key)
            if attention_mask is not None:
                for _ in range(scores.shape.rank - attention_mask.shape.rank):
                    attention_mask = array_ops.expand_dims(attention_mask, -3)
            scores = self._softmax(scores, mask=attention_mask)
            final = self._dropout_layer(scores, training=training) if self.dropout > 0.0 \
                else scores
            output = linalg_ops.einsum("buqk,bkuh->bquh", final, value)
        output = self._output_dense(output * gate if gate is not None else output)
        return (output, scores) if return_attention_scores else output

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> Any:
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(f"The last dimension of `query_shape` and `value_shape` must be "
                             f"equal, but are {query_shape[-1]}, {value_shape[-1]}. Received: "
                             f"query_shape={query_shape}, value_shape={value_shape}")
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received: value_shape={value_shape} and "
                             f"key_shape={key_shape}")
        return query_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "head_dim": self.head_dim,
                "num_query_heads": self.num_query_heads,
                "num_key_value_heads": self.num_key_value_heads, "use_bias": self.use_bias,
                "use_gate": self.use_gate, "sliding_window": self.sliding_window,
                "dropout": self.dropout,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "seed": self.seed}


GroupQueryAttention = GroupedQueryAttention


def _dot_product_attention(query: Any, key: Any, value: Any, mask: Any, is_causal: bool,
                           scale: float, mask_axis: int = -3) -> Any:
    """Keras's `ops.dot_product_attention` on TensorFlow (its XLA-style einsums): scaled
    logits, masked positions at -0.7 * 3.4e38 (a fully masked row averages the values)."""
    logits = linalg_ops.einsum("BTNH,BSNH->BNTS", query, key)
    logits = logits * math_ops.cast(scale, logits.dtype)
    if mask is not None:
        for _ in range(4 - mask.shape.rank):
            mask = array_ops.expand_dims(mask, mask_axis)
        mask = math_ops.cast(mask, "bool")
    if is_causal:
        causal = array_ops.expand_dims(_causal_mask(query, key), 0)
        mask = causal if mask is None else math_ops.logical_and(mask, causal)
    if mask is not None:
        logits = math_ops.where(mask, logits, math_ops.cast(_LARGE_NEGATIVE, logits.dtype))
    probs = nn_ops.softmax(logits, axis=-1)
    return linalg_ops.einsum("BNTS,BSNH->BTNH", probs, value)


def _attention_mask(query: Any, value: Any, query_mask: Any, value_mask: Any, key_mask: Any,
                    attention_mask: Any, use_causal_mask: bool,
                    sliding_window: Optional[int]) -> Any:
    """The (B, T, S) boolean mask: the query mask over rows, the value and key masks over
    columns, the causal and sliding-window masks and `attention_mask`, and-ed."""
    auto = None

    def both(a: Any, b: Any) -> Any:
        return b if a is None else math_ops.logical_and(a, b)
    if query_mask is not None:
        auto = array_ops.expand_dims(math_ops.cast(query_mask, "bool"), -1)
    for mask in (value_mask, key_mask):
        if mask is not None:
            auto = both(auto, array_ops.expand_dims(math_ops.cast(mask, "bool"), -2))
    if use_causal_mask:
        auto = both(auto, _causal_mask(query, value))
    if sliding_window is not None:
        rows, cols = _positions(query, value)
        auto = both(auto, math_ops.less(math_ops.abs(rows - cols), sliding_window))
    if auto is None:
        return attention_mask
    return auto if attention_mask is None else \
        math_ops.logical_and(math_ops.cast(attention_mask, "bool"), auto)


def _causal_mask(query: Any, value: Any = None) -> Any:
    """(1, T, S): True where the key position is at most the query position."""
    rows, cols = _positions(query, value)
    return math_ops.greater_equal(rows, cols)


def _positions(query: Any, value: Any) -> tuple:
    """Query positions (1, T, 1) and key positions (1, 1, S), from the inputs' lengths."""
    q_len = array_ops.shape(query)[1]
    v_len = q_len if value is None else array_ops.shape(value)[1]
    return (array_ops.reshape(array_ops.range(q_len), (1, -1, 1)),
            array_ops.reshape(array_ops.range(v_len), (1, 1, -1)))


def _build_attention_equation(rank: int, attn_axes: tuple) -> tuple:
    """Keras's einsum equations of the query-key product and of the combination with the
    values, over `attn_axes` of rank-`rank` projected tensors, and the scores' rank."""
    target = string.ascii_lowercase[:rank]
    batch_dims = tuple(i for i in range(rank) if i not in attn_axes + (rank - 1,))
    offset, source = rank, ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += string.ascii_lowercase[offset]
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attn_axes]
                      + [source[i] for i in attn_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def _build_proj_equation(free_dims: int, bound_dims: int, output_dims: int) -> tuple:
    """Keras's projection equation ('abc,cde->abde'), its bias axes and output rank."""
    letters = string.ascii_lowercase
    free = letters[:free_dims]
    bound = letters[free_dims:free_dims + bound_dims]
    out = letters[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{out}->{free}{out}", out, len(free) + len(out)


def _get_output_shape(output_rank: int, known_last_dims: Any) -> list:
    return [None] * (output_rank - len(known_last_dims)) + list(known_last_dims)


class Attention(Layer):
    """Dot-product (Luong) attention: `layer([query, value])` or `[query, value, key]`.

    Scores are `query @ key^T` (`score_mode='dot'`, times a learned `scale` with
    `use_scale`) or `concat_score_weight * sum(tanh(scale * (q + k)))` (`'concat'`); masks
    are `[query_mask, value_mask]` (or the inputs' Keras masks).
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot",
                 dropout: float = 0.0, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale, self.score_mode, self.dropout, self.seed = use_scale, score_mode, \
            dropout, seed
        if self.dropout > 0:
            self.seed_generator = backend.SeedGenerator(seed)
        if self.score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode}")

    def build(self, input_shape: Any) -> None:
        self._validate_inputs(input_shape)
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") \
            if self.use_scale else None
        self.concat_score_weight = self.add_weight(
            name="concat_score_weight", shape=(), initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        total = array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3)
        if self.scale is not None:
            total = self.scale * total
        return self.concat_score_weight * reduce_ops.reduce_sum(math_ops.tanh(total), axis=-1)

    def _apply_scores(self, scores: Any, value: Any, scores_mask: Any = None,
                      training: Any = False) -> tuple:
        if scores_mask is not None:
            padding = math_ops.logical_not(scores_mask)
            max_value = 65504.0 if scores.dtype.name == "float16" else 1e9
            if padding.shape.rank == 2:
                padding = array_ops.expand_dims(padding, -2)
            scores = math_ops.where(padding, scores - max_value, scores)
        weights = nn_ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = backend.dropout(weights, self.dropout, None, self.seed_generator)
        return math_ops.matmul(weights, value), weights

    def _calculate_score_mask(self, scores: Any, v_mask: Any, use_causal_mask: bool) -> Any:
        if not use_causal_mask:
            return v_mask
        shape = array_ops.shape(scores)
        rows = array_ops.reshape(array_ops.range(shape[-2]), (1, -1, 1))
        cols = array_ops.reshape(array_ops.range(shape[-1]), (1, 1, -1))
        causal = math_ops.greater_equal(rows, cols)
        if v_mask is None:
            return causal
        return math_ops.logical_and(array_ops.expand_dims(v_mask, -2), causal)

    def call(self, inputs: Any, mask: Any = None, training: Any = False,
             return_attention_scores: bool = False, use_causal_mask: bool = False) -> Any:
        self._validate_inputs(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(query=q, key=k)
        scores_mask = self._calculate_score_mask(scores, v_mask, use_causal_mask)
        output, weights = self._apply_scores(scores, v, scores_mask, training)
        if q_mask is not None:
            output = math_ops.where(array_ops.expand_dims(q_mask, -1), output,
                                    math_ops.zeros_like(output))
        return (output, weights) if return_attention_scores else output

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The query's mask, as Keras 3."""
        self._validate_inputs(inputs, previous_mask)
        if previous_mask is None or previous_mask[0] is None:
            return None
        return convert_to_tensor(previous_mask[0])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[0][:-1], input_shape[1][-1])

    def _validate_inputs(self, inputs: Any, mask: Any = None) -> None:
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely "
                             f"[query, value] or [query, value, key]. Received: "
                             f"inputs={inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                             f"[query, value] or [query, value, key]. Received length: "
                             f"{len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, "
                                 f"value_mask]. Received: mask={mask}.")
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. "
                                 f"Received: inputs={inputs}, mask={mask}.")

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode, "dropout": self.dropout, "seed": self.seed}


class AdditiveAttention(Attention):
    """Additive (Bahdanau) attention: scores `sum(scale * tanh(q + k))`, `scale` a learned
    vector over the features when `use_scale` (the default)."""

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape: Any) -> None:
        self._validate_inputs(input_shape)
        self.scale = self.add_weight(name="scale", shape=[input_shape[0][-1]],
                                     initializer="glorot_uniform") if self.use_scale else None
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        total = math_ops.tanh(array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3))
        if self.use_scale:
            total = self.scale * total
        return reduce_ops.reduce_sum(total, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config
