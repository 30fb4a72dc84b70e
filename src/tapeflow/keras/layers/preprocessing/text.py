"""Keras 3's string and integer preprocessing layers: StringLookup, IntegerLookup, Hashing,
HashedCrossing and TextVectorization, as Keras 3 on TensorFlow computes them (vocabulary
order, OOV and mask indices, output modes and dtypes, configs).

Every call is made of tapeflow ops, so the layers run eagerly, inside `tf.function`, in a
Functional model and in `dataset.map`. TextVectorization keeps its tokens as rows (flat
values and row splits) rather than a RaggedTensor, so it runs traced as well; `adapt` counts
tokens with Python (Keras sorts the vocabulary by count, then by token, both descending).
A learned vocabulary is saved as Keras saves it: 'vocabulary.txt' in the `.keras` file's
assets (`save_assets`/`load_assets`), tf-idf weights as 'idf_weights' in the weights file.
"""

from __future__ import annotations

import collections
import os
from typing import Any, Optional

import numpy as np

import tapeflow as tf
from tapeflow.framework.ragged_tensor import RaggedTensor
from tapeflow.keras import backend
from tapeflow.keras.layers import layer as _layer
from tapeflow.keras.layers.layer import Layer
from tapeflow.keras.layers.preprocessing.features import _encode
from tapeflow.keras.saving import serialization
from tapeflow.ops import lookup_ops, string_ops

VOCABULARY_FILE_REFUSED = (
    "Requested the loading of a vocabulary file outside of the model archive. This carries a "
    "potential risk of loading arbitrary and sensitive files and thus it is disallowed by "
    "default. If you trust the source of the artifact, you can override this error by passing "
    "`safe_mode=False` to the loading function, or calling "
    "`keras.config.enable_unsafe_deserialization().")
VOCABULARY_ASSET = "vocabulary.txt"  # the lookup's file in its `.keras` assets directory
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_INT64_MAX = np.iinfo(np.int64).max


def _validate(value: Any, allowed: tuple, caller: str, arg: str, allow_none: bool = False,
              allow_callables: bool = False) -> None:
    """Keras's validate_string_arg."""
    if value is None and allow_none or callable(value) and allow_callables:
        return
    if isinstance(value, str) and value in allowed:
        return
    extra = (", or `None`" if allow_none else "") + (", or a Callable" if allow_callables
                                                      else "")
    raise ValueError(f"The `{arg}` argument of layer {caller} received an invalid value "
                     f"`{value}`. Allowed values are: {allowed}{extra}.")


def _listify(x: Any) -> Any:
    if isinstance(x, tf.Tensor):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        x = x.tolist()
    return x


def _as_key(value: Any, is_string: bool) -> Any:
    """A token as the tables hold it: bytes for strings, int for integers."""
    if is_string:
        return value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return int(value)


def _as_token(value: Any, is_string: bool) -> Any:
    """A token as Keras's get_vocabulary gives a learned one: np.str_ or np.int64."""
    if is_string:
        return np.str_(value.decode("utf-8") if isinstance(value, bytes) else value)
    return np.int64(value)


def _adapt(layer: Any, data: Any, steps: Optional[int], dtype: Any) -> None:
    """Keras's `adapt`: the layer's state reset, updated from `data` (one array, or a dataset
    or iterable of batches, the first `steps` of them) and finalized."""
    layer.reset_state()
    batches = _batches(data)
    if batches == [None]:
        t = data if isinstance(data, tf.Tensor) else tf.convert_to_tensor(data, dtype=dtype)
        if t.shape.rank == 1:
            t = tf.expand_dims(t, -1)
        layer.update_state(t)
    else:
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            layer.update_state(batch)
    layer.finalize_state()


def _batches(data: Any) -> list:
    """The batches `adapt` reads: each element of a dataset or iterable, else the data."""
    from tapeflow.data import Dataset
    if isinstance(data, Dataset):
        return [b for b in data]
    if hasattr(data, "__iter__") and not isinstance(data, (list, tuple, np.ndarray,
                                                           tf.Tensor, str)):
        return list(data)
    return [None]


class _RaggedInputs:
    """Lets RaggedTensor inputs reach `call` (Layer converts the others to tensors)."""

    def _convert_inputs(self, inputs: Any) -> Any:
        return inputs if isinstance(inputs, RaggedTensor) else \
            super()._convert_inputs(inputs)


class _IndexLookup(_RaggedInputs, Layer):
    """Keras's IndexLookup: a vocabulary of tokens to indices (or back, `invert`), with
    mask and OOV indices first, and int / one-hot / multi-hot / count / tf-idf outputs."""

    _allow_non_tensor_positional_args = True

    def __init__(self, max_tokens: Optional[int], num_oov_indices: int, mask_token: Any,
                 oov_token: Any, vocabulary_dtype: str, vocabulary: Any = None,
                 idf_weights: Any = None, invert: bool = False, output_mode: str = "int",
                 sparse: bool = False, pad_to_max_tokens: bool = False,
                 oov_method: str = "floormod", name: Optional[str] = None, salt: Any = None,
                 **kwargs: Any) -> None:
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: "
                             f"max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. "
                             f"Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        cls = type(self).__name__
        _validate(oov_method, ("floormod", "farmhash"), cls, "oov_method")
        is_string = tf.as_dtype(vocabulary_dtype) == tf.string
        if salt is not None:
            if not is_string and oov_method != "farmhash":
                raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. "
                                 f"Received: oov_method={oov_method}")
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = list(salt)
            elif isinstance(salt, int):
                salt = [salt, salt]
            else:
                raise ValueError(f"The `salt` argument for `IndexLookup` can only be a tuple "
                                 f"of 2 integers, or a single integer. Received: salt={salt}.")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _validate(output_mode, ("int", "one_hot", "multi_hot", "count", "tf_idf"), cls,
                  "output_mode")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse:
            if output_mode == "int":
                raise ValueError(f"`sparse` may only be true if `output_mode` is "
                                 f"`'one_hot'`, `'multi_hot'`, `'count'` or `'tf_idf'`. "
                                 f"Received: sparse={sparse} and output_mode={output_mode}")
            raise NotImplementedError(f"{cls}: sparse=True outputs are not supported by "
                                      f"tapeflow.")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if `output_mode` is "
                             f"`'tf_idf'`. Received: idf_weights={idf_weights} and "
                             f"output_mode={output_mode}")
        frozen = kwargs.pop("vocabulary_size", None)
        has_input = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")
        super().__init__(name=name)
        self.invert, self.max_tokens, self.num_oov_indices = invert, max_tokens, num_oov_indices
        self.mask_token, self.oov_token, self.output_mode = mask_token, oov_token, output_mode
        self.sparse, self.pad_to_max_tokens = sparse, pad_to_max_tokens
        self.vocabulary_dtype = tf.as_dtype(vocabulary_dtype).name
        self.oov_method, self.salt = oov_method, salt
        self._is_string = is_string
        self._frozen_vocab_size = frozen
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_input
        self._key_dtype = "int64" if invert else self.vocabulary_dtype
        self._value_dtype = self.vocabulary_dtype if invert else "int64"
        if invert:
            self._default_value = oov_token
        else:
            self._default_value = self._oov_start_index() if num_oov_indices == 1 else -1
        self._tokens: list = []
        self.idf_weights_const = None
        if output_mode == "tf_idf":
            if has_input and idf_weights is None:
                raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output "
                                 "mode, the `idf_weights` argument must also be provided.")
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        else:
            self._set_table([])
        self.reset_state()
        self.built = True

    # -- vocabulary -------------------------------------------------------------------------
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def _set_table(self, tokens: list) -> None:
        """The lookup table of the learned `tokens` (keys as the tables hold them)."""
        self._tokens = tokens
        start = self._token_start_index()
        indices = np.arange(start, start + len(tokens), dtype=np.int64)
        keys = np.empty(len(tokens), object if self._is_string else np.int64)
        keys[:] = tokens
        pairs = (indices, keys) if self.invert else (keys, indices)
        with tf.init_scope():
            init = lookup_ops.KeyValueTensorInitializer(
                tf.constant(pairs[0], dtype=self._key_dtype),
                tf.constant(pairs[1], dtype=self._value_dtype))
            self.lookup_table = lookup_ops.StaticHashTable(init, self._default_value)

    def vocabulary_size(self) -> int:
        """The number of indices: mask and OOV indices plus the learned tokens."""
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order (the OOV token at OOV indices, the mask token first)."""
        start = self._token_start_index()
        oov = self.oov_token
        vocab = [oov] * start + [_as_token(t, self._is_string) for t in self._tokens]
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        return vocab if include_special_tokens else vocab[start:]

    def _record_vocabulary_size(self) -> None:
        if not (self.output_mode == "int" or self.pad_to_max_tokens):
            new = self.vocabulary_size()
            if self._frozen_vocab_size is not None and new != self._frozen_vocab_size:
                raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                                   f"`pad_to_max_tokens=False`, the vocabulary size cannot be "
                                   f"changed after the layer is called. Old vocab size is "
                                   f"{self._frozen_vocab_size}, new vocab size is {new}")
        self._frozen_vocab_size = self.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Sets the vocabulary (a list, array, tensor or file path) and, for tf-idf, the
        idf weights, as Keras checks them."""
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(f"`idf_weights` should only be set if output_mode is "
                             f"`'tf_idf'`. Received: output_mode={self.output_mode} and "
                             f"idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            if serialization.loading_in_safe_mode():  # a file must not make us read another
                raise ValueError(VOCABULARY_FILE_REFUSED + f" Vocabulary file: '{vocabulary}'")
            if not os.path.exists(vocabulary):
                raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a "
                                 "vocabulary from file.")
            with open(vocabulary, encoding="utf-8") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            self._set_table([_as_key(line, self._is_string) for line in lines])
            self._record_vocabulary_size()
            return
        if isinstance(vocabulary, tf.Tensor):
            vocabulary = vocabulary.numpy()
        vocabulary = [_as_token(v, self._is_string) for v in np.asarray(
            vocabulary, dtype=object).reshape(-1).tolist()]
        if isinstance(idf_weights, tf.Tensor):
            idf_weights = idf_weights.numpy()
        if not vocabulary:
            raise ValueError(f"Cannot set an empty vocabulary. Received: "
                             f"vocabulary={np.array(vocabulary)}")
        start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices
        found_special = vocabulary[:start] == special
        tokens = vocabulary[start:] if found_special else vocabulary
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are: {repeated}")
        if self.mask_token is not None and self.mask_token in tokens:
            index = max(i for i, t in enumerate(vocabulary) if t == self.mask_token)
            raise ValueError(
                f"Found reserved mask token at unexpected location in `vocabulary`. Note that "
                f"passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                f"remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"mask_token={self.mask_token} at vocabulary index [{index}]")
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            index = max(i for i, t in enumerate(vocabulary) if t == self.oov_token)
            raise ValueError(
                f"Found reserved OOV token at unexpected location in `vocabulary`. Note that "
                f"passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                f"remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"oov_token={self.oov_token} at vocabulary index [{index}]")
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab "
                             f"size. Received vocabulary size is {start + len(tokens)}; "
                             f"`max_tokens` is {self.max_tokens}.")
        self._set_table([_as_key(t, self._is_string) for t in tokens])
        self._record_vocabulary_size()
        if self.output_mode == "tf_idf" and idf_weights is not None:
            idf = np.asarray(idf_weights)
            if len(vocabulary) != len(idf):
                raise ValueError(f"`idf_weights` must be the same length as vocabulary. "
                                 f"len(idf_weights) is {len(idf)}; len(vocabulary) is "
                                 f"{len(vocabulary)}")
            if idf.ndim != 1:
                raise ValueError(f"TF-IDF data must be a 1-index array. Received: "
                                 f"type(idf_weights)={type(idf_weights)}")
            front, front_value = (0, 0) if found_special else (start, np.average(idf))
            back = self.max_tokens - front - len(idf) if self.pad_to_max_tokens and \
                self.max_tokens is not None else 0
            weights = np.pad(idf, (front, back), "constant",
                             constant_values=(front_value, 0))
            self.idf_weights_const = tf.constant(weights, dtype=backend.floatx())

    # -- adapt ------------------------------------------------------------------------------
    def reset_state(self) -> None:
        """Forgets the counts of a previous adapt."""
        self._token_counts: collections.Counter = collections.Counter()
        self._document_counts: collections.Counter = collections.Counter()
        self._num_documents = 0

    def _rows(self, data: Any) -> list:
        """The token rows of one batch (lists of table keys)."""
        if isinstance(data, RaggedTensor):
            return [[_as_key(t, self._is_string) for t in row] for row in _tolist(data)]
        t = tf.convert_to_tensor(data, dtype=None if isinstance(data, tf.Tensor)
                                 else self.vocabulary_dtype)
        array = np.asarray(t.numpy(), dtype=object)
        if array.ndim == 0:
            array = array.reshape(1, 1)
        elif array.ndim == 1:
            array = array.reshape(1, -1)
        array = array.reshape(array.shape[0], -1)
        return [[_as_key(t, self._is_string) for t in row] for row in array.tolist()]

    def update_state(self, data: Any) -> None:
        """Counts the tokens of one batch (documents are its rows, for tf-idf)."""
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static "
                             f"vocabulary via `vocabulary` argument or `set_vocabulary()` "
                             f"method.")
        self._count_rows(self._rows(data))

    def _count_rows(self, rows: list) -> None:
        for row in rows:
            self._token_counts.update(row)
        if self.output_mode == "tf_idf":
            for row in rows:
                self._document_counts.update(set(row))
            self._num_documents += len(rows)

    def adapt(self, data: Any, steps: Optional[int] = None) -> None:
        """Learns the vocabulary from `data` (an array, tensor, list, dataset or iterable of
        batches): the most frequent tokens first, ties by token, descending (Keras's sort)."""
        _adapt(self, data, steps, self.vocabulary_dtype)

    def finalize_state(self) -> None:
        """Builds the vocabulary (and idf weights) from the counts."""
        if self._has_input_vocabulary or not self._token_counts:
            self._record_vocabulary_size()
            return
        counts = self._token_counts
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(_as_key(special, self._is_string), None)
        order = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            order = order[:self.max_tokens - self._token_start_index()]
        tokens = [t for t, _ in order]
        self._set_table(tokens)
        if self.output_mode == "tf_idf":
            docs = np.array([self._document_counts[t] for t in tokens], np.int64)
            idf = np.log(1 + self._num_documents / (1 + docs)).astype(backend.floatx())
            idf = np.pad(idf, (self._token_start_index(), 0),
                         constant_values=np.mean(idf, dtype=idf.dtype))
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - idf.size))
            self.idf_weights_const = tf.constant(idf, dtype=backend.floatx())
        self.reset_state()
        self._record_vocabulary_size()

    # -- call -------------------------------------------------------------------------------
    def _lookup_dense(self, inputs: Any) -> Any:
        """Keras's _lookup_dense: table ids, the mask, OOV buckets (floormod or hashes)."""
        lookups = self.lookup_table.lookup(inputs)
        if self.mask_token is not None:
            mask_value = self.mask_token if self.invert else \
                (0 if self.output_mode == "int" else _INT64_MAX)
            lookups = tf.where(tf.equal(inputs, tf.constant(self.mask_token if not self.invert
                                                            else 0, self._key_dtype)),
                               tf.constant(mask_value, self._value_dtype), lookups)
        if self.invert:
            return lookups
        if self.num_oov_indices == 0:
            tf.debugging.assert_equal(
                tf.reduce_any(tf.equal(lookups, -1)), False,
                message="When `num_oov_indices=0` all inputs should be in vocabulary, found "
                        "OOV values, consider setting `num_oov_indices=1`.")
        elif self.num_oov_indices > 1:
            if not self._is_string and self.oov_method != "farmhash":
                oov = tf.math.floormod(inputs, self.num_oov_indices)
            else:
                text = inputs if self._is_string else tf.strings.as_string(inputs)
                oov = string_ops.to_hash_bucket_fast(text, self.num_oov_indices) \
                    if self.salt is None else string_ops.to_hash_bucket_strong(
                        text, self.num_oov_indices, self.salt)
            oov = oov + self._oov_start_index()
            lookups = tf.where(tf.equal(lookups, self._default_value), oov, lookups)
        return lookups

    def _depth(self) -> int:
        if self.output_mode != "int" and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                               f"`pad_to_max_tokens=False`, you must set the layer's "
                               f"vocabulary before calling it. Either pass a `vocabulary` "
                               f"argument to the layer, or call `adapt` with some sample "
                               f"data.")
        return self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size

    def call(self, inputs: Any) -> Any:
        depth = self._depth()
        if not isinstance(inputs, (tf.Tensor, RaggedTensor)) or \
                not isinstance(inputs, RaggedTensor) and inputs.dtype.name != self._key_dtype:
            inputs = tf.convert_to_tensor(inputs, dtype=self._key_dtype) \
                if not isinstance(inputs, tf.Tensor) else tf.cast(inputs, self._key_dtype)
        scalar = isinstance(inputs, tf.Tensor) and inputs.shape.rank == 0
        if scalar:
            inputs = tf.expand_dims(inputs, -1)
        lookups = inputs.with_flat_values(self._lookup_dense(inputs.flat_values)) \
            if isinstance(inputs, RaggedTensor) else self._lookup_dense(inputs)
        if self.output_mode == "int":
            return tf.squeeze(lookups, -1) if scalar else lookups
        return self._encode(lookups, depth)

    def _encode(self, lookups: Any, depth: int) -> Any:
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = _encode(lookups, mode, depth, "int64")
        return self._weighted(out) if self.output_mode == "tf_idf" else out

    def _weighted(self, counts: Any) -> Any:
        """tf-idf: the counts times the idf weights. Without weights (a layer rebuilt from
        its config, whose weights load later) only the output's spec is inferred, as
        Keras's `compute_output_spec` gives it; a real call raises Keras's error."""
        if self.idf_weights_const is None:
            if _layer._INFERRING[0]:
                return tf.cast(counts, backend.floatx())
            raise ValueError("When `output_mode` is `'tf_idf'`, `idf_weights` must be "
                             "provided.")
        return tf.cast(counts, self.idf_weights_const.dtype) * self.idf_weights_const

    @property
    def compute_dtype(self) -> str:
        return self.vocabulary_dtype

    @property
    def variable_dtype(self) -> str:
        return self.vocabulary_dtype

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        input_shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    def get_build_config(self) -> dict:
        return {}

    def build_from_config(self, config: dict) -> None:
        self.built = True

    # -- saving: Keras's IndexLookup state hooks ---------------------------------------------
    def save_own_variables(self, store: dict) -> None:
        """Keras's weights entry: the idf weights (tf-idf mode only), under 'idf_weights'."""
        if self.output_mode == "tf_idf" and self.idf_weights_const is not None:
            store["idf_weights"] = np.asarray(self.idf_weights_const.numpy())

    def load_own_variables(self, store: Any) -> None:
        """Takes the idf weights Keras's `save_own_variables` stored (tf-idf mode only): a
        missing entry raises KeyError and one that is not 1-D ValueError, nothing set."""
        if self.output_mode != "tf_idf":
            return
        idf = np.asarray(store["idf_weights"])
        if idf.ndim != 1 or not np.issubdtype(idf.dtype, np.floating):
            raise ValueError(f"Layer '{self.name}': 'idf_weights' must be a 1-D array of "
                             f"floats. Received: shape={idf.shape}, dtype={idf.dtype}")
        self.idf_weights_const = tf.constant(idf)

    def save_assets(self, dir_path: str) -> None:
        """Writes the learned vocabulary, special tokens included, one token a line, to
        '<dir_path>/vocabulary.txt' as Keras does (nothing for a vocabulary given in the
        config)."""
        if self.input_vocabulary is not None:
            return
        text = "\n".join(str(token) for token in self.get_vocabulary(include_special_tokens=True))
        with open(os.path.join(dir_path, VOCABULARY_ASSET), "w", encoding="utf-8") as f:
            f.write(text)

    def load_assets(self, dir_path: Optional[str]) -> None:
        """Sets the vocabulary `save_assets` wrote (Keras's reading: lines, trailing empty
        ones dropped; with the idf weights already loaded, in tf-idf mode)."""
        if self.input_vocabulary is not None:
            return
        if dir_path is None:
            raise ValueError(f"Layer '{self.name}' has no assets directory in the file: its "
                             f"'{VOCABULARY_ASSET}' is missing.")
        with open(os.path.join(dir_path, VOCABULARY_ASSET), encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        values = [line if self._is_string else int(line) for line in lines]
        if self.output_mode == "tf_idf":
            if self.idf_weights_const is None:
                raise ValueError(f"Layer '{self.name}' is in tf-idf mode, but the file has "
                                 f"no idf weights for it.")
            self.set_vocabulary(values, idf_weights=self.idf_weights_const.numpy())
        else:
            self.set_vocabulary(values)

    def get_config(self) -> dict:
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype,
                "idf_weights": _listify(self.input_idf_weights),
                "vocabulary": _listify(self.input_vocabulary),
                "vocabulary_size": self._frozen_vocab_size, "oov_method": self.oov_method,
                "salt": self.salt}


def _tolist(rt: RaggedTensor) -> list:
    return rt.to_list()


class StringLookup(_IndexLookup):
    """Strings to integer indices from a vocabulary (given, or learned by `adapt`); the
    inverse with `invert=True`."""

    def __init__(self, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                 mask_token: Optional[str] = None, oov_token: str = "[UNK]",
                 vocabulary: Any = None, idf_weights: Any = None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, encoding: str = "utf-8", name: Optional[str] = None,
                 salt: Any = None, **kwargs: Any) -> None:
        self.encoding = encoding
        kwargs.pop("vocabulary_dtype", None)
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, name=name,
                         salt=salt, vocabulary_dtype="string", **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["vocabulary_dtype"]
        return {**config, "encoding": self.encoding}


class IntegerLookup(_IndexLookup):
    """Integers to contiguous indices from a vocabulary (given, or learned by `adapt`);
    the inverse with `invert=True`."""

    def __init__(self, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                 mask_token: Optional[int] = None, oov_token: int = -1,
                 vocabulary: Any = None, vocabulary_dtype: str = "int64",
                 idf_weights: Any = None, invert: bool = False, output_mode: str = "int",
                 sparse: bool = False, pad_to_max_tokens: bool = False,
                 oov_method: str = "floormod", salt: Any = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If `max_tokens` is set for `IntegerLookup`, it must be "
                             f"greater than 1. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"The value of `num_oov_indices` argument for `IntegerLookup` "
                             f"must >= 0. Received: num_oov_indices={num_oov_indices}")
        if vocabulary_dtype != "int64":
            raise ValueError(f"Only `vocabulary_dtype='int64'` is supported at this time. "
                             f"Received: vocabulary_dtype={vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights,
                         invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method,
                         salt=salt, name=name, **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config


class Hashing(_RaggedInputs, Layer):
    """Values hashed into `num_bins` bins: FarmHash Fingerprint64, or SipHash-2-4 keyed by
    `salt`, of the values as strings (bin 0 kept for `mask_value`)."""

    _allow_non_tensor_positional_args = True

    def __init__(self, num_bins: int, mask_value: Any = None, salt: Any = None,
                 output_mode: str = "int", sparse: bool = False, **kwargs: Any) -> None:
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else backend.floatx()
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             f"values. Received: num_bins={num_bins}.")
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError(f"When `output_mode=\"int\"`, `dtype` should be an integer type, "
                             f"'int32' or 'in64'. Received: dtype={kwargs['dtype']}")
        modes = ("int", "one_hot", "multi_hot", "count")
        if output_mode not in modes:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                             f"{modes}. Received: output_mode={output_mode}")
        if sparse:
            if output_mode == "int":
                raise ValueError(f"`sparse` may only be true if `output_mode` is "
                                 f"`\"one_hot\"`, `\"multi_hot\"`, or `\"count\"`. Received: "
                                 f"sparse={sparse} and output_mode={output_mode}")
            raise NotImplementedError("Hashing: sparse=True outputs are not supported by "
                                      "tapeflow.")
        self.num_bins, self.mask_value, self.output_mode, self.sparse = \
            num_bins, mask_value, output_mode, sparse
        self.strong_hash = salt is not None
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of "
                                 f"size 2 integers, or a single integer. Received: "
                                 f"salt={salt}.")
        self.built = True

    def _hash_values_to_bins(self, values: Any) -> Any:
        bins, mask = self.num_bins, None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = tf.equal(values, tf.constant(self.mask_value, values.dtype))
        if values.dtype.is_floating:
            values = tf.cast(values, "int64")
        if values.dtype != tf.string:
            values = tf.strings.as_string(values)
        values = string_ops.to_hash_bucket_strong(values, bins, self.salt) \
            if self.strong_hash else string_ops.to_hash_bucket_fast(values, bins)
        if mask is not None:
            values = tf.where(mask, tf.zeros_like(values), values + 1)
        return values

    def call(self, inputs: Any) -> Any:
        if not isinstance(inputs, (tf.Tensor, RaggedTensor)):
            inputs = tf.convert_to_tensor(inputs)
        if self.output_mode == "one_hot" and inputs.shape.rank and inputs.shape[-1] == 1:
            inputs = tf.squeeze(inputs, -1)
        if isinstance(inputs, RaggedTensor):
            indices = inputs.with_flat_values(self._hash_values_to_bins(inputs.flat_values))
        else:
            indices = self._hash_values_to_bins(inputs)
        return _encode(indices, self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_bins,)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": self.sparse}


class HashedCrossing(Layer):
    """The hashed cross of two or more categorical features (TF's `sparse.cross_hashed`
    of one value per row): int bins, or their one-hot vectors."""

    _allow_non_tensor_positional_args = True

    def __init__(self, num_bins: int, output_mode: str = "int", sparse: bool = False,
                 name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype)
        _validate(output_mode, ("int", "one_hot"), "HashedCrossing", "output_mode")
        if sparse:
            raise NotImplementedError("HashedCrossing: sparse=True outputs are not supported "
                                      "by tapeflow.")
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, sparse
        self.built = True

    def _convert_inputs(self, inputs: Any) -> Any:
        return inputs  # a list of features of different dtypes: checked in `call`

    def call(self, inputs: Any) -> Any:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of "
                             f"inputs. Received: inputs={inputs}")
        if len(inputs) < 2:
            raise ValueError(f"`HashedCrossing` should be called on at least two inputs. "
                             f"Received: inputs={inputs}")
        inputs = [x if isinstance(x, tf.Tensor) else tf.convert_to_tensor(x) for x in inputs]
        shape = tuple(inputs[0].shape)
        rank = len(shape)
        if rank > 2 or (rank == 2 and shape[-1] != 1):
            raise ValueError(f"All `HashedCrossing` inputs should have shape `()`, "
                             f"`(batch_size)` or `(batch_size, 1)`. Received: inputs={inputs}")
        if not all(tuple(x.shape) == shape for x in inputs[1:]):
            raise ValueError(f"All `HashedCrossing` inputs should have equal shape. "
                             f"Received: inputs={inputs}")
        if not all(x.dtype.is_integer or x.dtype == tf.string for x in inputs):
            raise ValueError(f"All `HashedCrossing` inputs should have an integer or string "
                             f"dtype. Received: inputs={inputs}")
        columns = [x if x.dtype == tf.string else tf.cast(x, "int64") for x in inputs]
        out = string_ops.hashed_cross_dense(columns, self.num_bins)
        return _encode(out, self.output_mode, self.num_bins, self.compute_dtype) \
            if self.output_mode != "int" else tf.cast(out, self.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if first and first[-1] != 1:
            return first + (self.num_bins,)
        return first[:-1] + (self.num_bins,)

    def get_config(self) -> dict:
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name, "dtype": self.dtype}


class TextVectorization(Layer):
    """Text to token indices (or multi-hot / count / tf-idf vectors): standardize, split,
    ngrams, then a StringLookup over the vocabulary `adapt` learns."""

    _allow_non_tensor_positional_args = True

    def __init__(self, max_tokens: Optional[int] = None,
                 standardize: Any = "lower_and_strip_punctuation", split: Any = "whitespace",
                 ngrams: Any = None, output_mode: str = "int",
                 output_sequence_length: Optional[int] = None, pad_to_max_tokens: bool = False,
                 vocabulary: Any = None, idf_weights: Any = None, sparse: bool = False,
                 ragged: bool = False, encoding: str = "utf-8", name: Optional[str] = None,
                 **kwargs: Any) -> None:
        _validate(standardize, ("lower_and_strip_punctuation", "lower", "strip_punctuation"),
                  "TextVectorization", "standardize", allow_none=True, allow_callables=True)
        _validate(split, ("whitespace", "character"), "TextVectorization", "split",
                  allow_none=True, allow_callables=True)
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _validate(output_mode, ("int", "one_hot", "multi_hot", "count", "tf_idf"),
                  "TextVectorization", "output_mode")
        if not (ngrams is None or isinstance(ngrams, int) or isinstance(ngrams, tuple)
                and all(isinstance(i, int) for i in ngrams)):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. "
                             f"Received: ngrams={ngrams}")
        if output_mode == "int" and not (isinstance(output_sequence_length, int)
                                         or output_sequence_length is None):
            raise ValueError(f"`output_sequence_length` must be either None or an integer "
                             f"when `output_mode` is 'int'. Received: "
                             f"output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is "
                             f"not 'int'. Received output_sequence_length="
                             f"{output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. "
                             f"Received: ragged={ragged} and output_mode={output_mode}")
        self._max_tokens, self._standardize, self._split = max_tokens, standardize, split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged, self._output_mode = ragged, output_mode
        self._output_sequence_length, self._encoding = output_sequence_length, encoding
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            sparse=sparse, has_input_vocabulary=self._has_input_vocabulary,
            encoding=encoding, vocabulary_size=vocabulary_size)
        self.built = True

    @property
    def compute_dtype(self) -> str:
        return "string"

    @property
    def variable_dtype(self) -> str:
        return "string"

    def _convert_inputs(self, inputs: Any) -> Any:
        return inputs if isinstance(inputs, (tf.Tensor, RaggedTensor)) else \
            tf.convert_to_tensor(inputs, dtype=tf.string)

    # -- preprocessing ------------------------------------------------------------------------
    def _standardized(self, inputs: Any) -> Any:
        inputs = inputs if isinstance(inputs, (tf.Tensor, RaggedTensor)) else \
            tf.convert_to_tensor(inputs, dtype=tf.string)
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = tf.strings.lower(inputs)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = tf.strings.regex_replace(inputs, _PUNCTUATION, "")
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        return inputs

    def _token_rows(self, inputs: Any) -> Any:
        """The tokens as (flat values, row splits), or a dense tensor without `split`."""
        x = self._standardized(inputs)
        if self._split is None:
            return x
        if x.shape.rank is not None and x.shape.rank > 1:
            if x.shape[-1] != 1:
                raise ValueError(f"When using `TextVectorization` to tokenize strings, the "
                                 f"input rank must be 1 or the last shape dimension must be "
                                 f"1. Received: inputs.shape={x.shape} with "
                                 f"rank={x.shape.rank}")
            x = tf.squeeze(x, axis=-1)
        if self._split == "whitespace":
            values, splits = string_ops.split_rows(x)
        elif self._split == "character":
            values, splits = string_ops.unicode_split_rows(x)
        else:
            result = self._split(x)
            if isinstance(result, RaggedTensor):
                if result.ragged_rank != 1:
                    raise NotImplementedError("TextVectorization: tapeflow takes a split "
                                              "callable's RaggedTensor of ragged rank 1 "
                                              "only.")
                values, splits = result.flat_values, result.row_splits
            else:
                return result if self._ngrams is None else tf.strings.ngrams(
                    result, self._ngrams, separator=" ")
        if self._ngrams is not None:
            values, splits = string_ops.ngram_rows(values, splits, self._ngrams, " ")
        return values, splits

    def adapt(self, data: Any, batch_size: Optional[int] = None,
              steps: Optional[int] = None) -> None:
        """Learns the vocabulary from texts: an array, list, tensor or dataset of strings
        (each text a document, for tf-idf)."""
        _adapt(self, data, steps, tf.string)

    def update_state(self, data: Any) -> None:
        """Counts the tokens of one batch of texts."""
        lookup = self._lookup_layer
        if lookup._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{lookup.name}' after setting a static "
                             f"vocabulary via `vocabulary` argument or `set_vocabulary()` "
                             f"method.")
        tokens = self._token_rows(data)
        if isinstance(tokens, tuple):
            values, splits = (np.asarray(t.numpy()).tolist() for t in tokens)
            rows = [values[a:b] for a, b in zip(splits[:-1], splits[1:])]
        else:
            rows = lookup._rows(tokens)
        lookup._count_rows(rows)

    def finalize_state(self) -> None:
        """Builds the vocabulary from the counts."""
        self._lookup_layer.finalize_state()

    def reset_state(self) -> None:
        """Forgets the counts of a previous adapt."""
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary: "" (the mask), "[UNK]", then the tokens by frequency."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The number of indices, mask and OOV included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Sets the vocabulary (and, for tf-idf, the idf weights)."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # -- saving: Keras's TextVectorization hands its state to its lookup ----------------------
    def save_own_variables(self, store: dict) -> None:
        """The lookup's idf weights (tf-idf mode), as Keras stores them here too."""
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store: Any) -> None:
        """Loads the lookup's idf weights (tf-idf mode)."""
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path: str) -> None:
        """The lookup's learned vocabulary, in this layer's assets directory."""
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path: Optional[str]) -> None:
        """Sets the lookup's vocabulary from this layer's assets directory."""
        self._lookup_layer.load_assets(dir_path)

    # -- call ---------------------------------------------------------------------------------
    def call(self, inputs: Any) -> Any:
        lookup = self._lookup_layer
        tokens = self._token_rows(inputs)
        if not isinstance(tokens, tuple):
            out = lookup.call(tokens)
            if self._output_mode == "int" and self._output_sequence_length is not None \
                    and isinstance(out, tf.Tensor) and out.shape.rank:
                n = self._output_sequence_length
                out = out[..., :n]
                pad = [[0, 0]] * (out.shape.rank - 1) + [[0, n - int(out.shape[-1])]]
                out = tf.pad(out, pad)
            return out
        values, splits = tokens
        depth = lookup._depth()
        ids = lookup._lookup_dense(values)
        if self._output_mode == "int":
            if self._ragged:
                if type(ids) is not tf.Tensor:
                    raise NotImplementedError(
                        "TextVectorization(ragged=True) returns a RaggedTensor, whose row "
                        "partition tapeflow needs while tracing; call it eagerly, or use "
                        "ragged=False (padded) inside tf.function.")
                rt = RaggedTensor.from_row_splits(ids, splits, validate=False)
                if self._output_sequence_length is not None:
                    rt = rt[:, :self._output_sequence_length]
                return rt
            return string_ops.rows_to_dense(ids, splits, self._output_sequence_length, 0)
        if self._output_mode == "one_hot":
            raise NotImplementedError("TextVectorization(output_mode='one_hot') of split "
                                      "texts is not supported by tapeflow.")
        counts = string_ops.row_bincount(ids, splits, depth,
                                         binary=self._output_mode == "multi_hot")
        return lookup._weighted(counts) if self._output_mode == "tf_idf" else counts

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        if self._split is None:
            if len(input_shape) <= 1:
                input_shape = tuple(input_shape) + (1,)
        else:
            input_shape = tuple(input_shape) + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        lookup = self._lookup_layer
        return {**super().get_config(), "max_tokens": lookup.max_tokens,
                "standardize": self._standardize, "split": self._split,
                "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": lookup.sparse,
                "ragged": self._ragged, "vocabulary": _listify(lookup.input_vocabulary),
                "idf_weights": _listify(lookup.input_idf_weights), "encoding": self._encoding,
                "vocabulary_size": self.vocabulary_size()}

    @classmethod
    def from_config(cls, config: dict) -> "TextVectorization":
        config = dict(config)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)


__all__ = ["StringLookup", "IntegerLookup", "Hashing", "HashedCrossing", "TextVectorization"]
