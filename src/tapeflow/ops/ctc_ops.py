"""Connectionist temporal classification (`tf.nn.ctc_loss`, the CTC decoders).

The loss is one primitive, `CTCLoss`, whose kernel runs TensorFlow's forward-backward
algorithm in log space (float64, so the float32 result is the exact one rounded) and returns
the loss and its gradient with respect to the logits, as TF's kernels do; the rule multiplies
that gradient by the cotangent. TensorFlow's own gradient is such a stored one (a
custom_gradient for dense labels, the fused CTCLoss kernel for sparse ones), so there is no
second derivative through it: the stored gradient is a constant to a second tape, as in TF.

Dense labels take TensorFlow's dense formulation exactly: 2 (L + 1) states per sequence (a
start state, L label states and L + 1 blank states), "impossible" states weighted by
log(1e-307) rather than -inf, so an alignment that cannot fit gives TF's large finite loss.
Sparse labels take the fused kernel's exact CTC (an impossible alignment is inf). The blank
class is moved to index 0 first, as TF does, so the kernel knows one layout.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.array_ops import concat, reshape, transpose
from tapeflow.ops.math_ops import cast, stop_gradient, where

# TF's dense CTC writes log(0) as float32(log(1e-307)): impossible states keep a tiny weight.
_SOFT_LOG_ZERO = float(np.float32(np.log(1e-307)))


# -- the kernel ----------------------------------------------------------------------------------

def _lse(*terms: np.ndarray) -> np.ndarray:
    """log(sum(exp(terms))) elementwise, -inf where all terms are -inf."""
    stacked = np.stack(np.broadcast_arrays(*terms))
    top = np.max(stacked, axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(stacked - safe), axis=0))


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """a[..., s - k] at s (k > 0: from the left neighbour, k < 0: from the right), -inf off
    the edge."""
    out = np.full_like(a, -np.inf)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def _ctc_kernel(logits: np.ndarray, labels: np.ndarray, label_length: np.ndarray,
                logit_length: np.ndarray, exact: bool) -> tuple:
    """(loss [B], gradient [T, B, C]) for time-major logits with the blank at class 0."""
    x = logits.astype(np.float64)
    frames, batch, classes = x.shape
    top = np.max(x, axis=2, keepdims=True)
    logp = x - top - np.log(np.sum(np.exp(x - top), axis=2, keepdims=True))
    labels = labels.astype(np.int64).reshape(batch, -1)
    n = labels.shape[1]                                    # label states 1..n, blanks 0..n
    zero = -np.inf if exact else _SOFT_LOG_ZERO
    in_range = (labels >= 0) & (labels < classes)
    # Observations: label state k reads its label's log-probability (TF's one-hot: 0 for a
    # label out of range), the start state none, blank states the blank's.
    picked = np.take_along_axis(logp, np.clip(labels, 0, classes - 1)[None], axis=2)
    obs_label = np.concatenate([np.full((frames, batch, 1), -np.inf),
                                np.where(in_range[None], picked, 0.0)], axis=2)
    obs_blank = np.repeat(logp[:, :, :1], n + 1, axis=2)
    # Label k follows label k - 1 directly unless they repeat (the start state always).
    direct = np.ones((batch, n + 1), bool)
    direct[:, 0] = False
    direct[:, 2:] = labels[:, 1:] != labels[:, :-1]
    steps = np.minimum(logit_length.astype(np.int64), frames)

    lab = np.full((batch, n + 1), zero)
    lab[:, 0] = 0.0
    blank = np.full((batch, n + 1), zero)
    alpha = np.empty((frames, batch, 2 * (n + 1)))
    for t in range(frames):
        skip = np.where(direct, _shift(lab, 1), -np.inf)
        lab, blank = (_lse(lab, _shift(blank, 1), skip) + obs_label[t],
                      _lse(blank, lab) + obs_blank[t])
        alpha[t] = np.concatenate([lab, blank], axis=1)

    final = np.full((batch, 2 * (n + 1)), zero)
    rows = np.arange(batch)
    ends = np.clip(label_length.astype(np.int64), 0, n)
    final[rows, ends] = final[rows, n + 1 + ends] = 0.0
    beta = np.full((frames, batch, 2 * (n + 1)), -np.inf)
    after = final.copy()                                   # beta at t + 1, masked
    start = np.zeros(batch)
    for t in range(frames - 1, -1, -1):
        live = t < steps
        cur = np.where((t == steps - 1)[:, None], final, after)
        beta[t] = np.where(live[:, None], cur, -np.inf)
        m = cur + np.concatenate([obs_label[t], obs_blank[t]], axis=1)
        m_lab, m_blank = m[:, :n + 1], m[:, n + 1:]
        prev_lab = _lse(m_lab, m_blank, np.where(_shift(direct, -1), _shift(m_lab, -1),
                                                 -np.inf))
        prev_blank = _lse(m_blank, _shift(m_lab, -1))
        if t == 0:
            start = prev_lab[:, 0]
        after = np.concatenate([prev_lab, prev_blank], axis=1)
    likelihood = np.where(steps > 0, start, final[:, 0])
    loss = -likelihood

    with np.errstate(invalid="ignore"):
        post = alpha + beta
        post = post - _lse(*np.moveaxis(post, 2, 0))[..., None]
        post = np.where(np.isnan(post), -np.inf, post)     # an impossible sequence: no mass
    occupancy = np.zeros_like(logp)
    occupancy[:, :, 0] = np.exp(_lse(*np.moveaxis(post[:, :, n + 1:], 2, 0)))
    label_post = np.exp(post[:, :, 1:n + 1])
    for k in range(n):   # label state k + 1 adds to its class (labels < 1 add nowhere, as TF)
        cls = labels[:, k]
        ok = (cls >= 1) & (cls < classes)
        occupancy[:, rows[ok], cls[ok]] += label_post[:, ok, k]
    grad = np.exp(logp) - occupancy
    grad *= (np.arange(frames)[:, None] < steps[None, :])[:, :, None]
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


def _ctc_rule(logits: ShapedArray, labels: ShapedArray, label_length: ShapedArray,
              logit_length: ShapedArray, exact: bool) -> tuple:
    batch = None if logits.shape is None else logits.shape[1]
    return ShapedArray((batch,), logits.dtype), ShapedArray(logits.shape, logits.dtype)


def _ctc_vjp(gs: tuple, ans: tuple, logits: Tensor, *rest: Tensor, exact: bool) -> tuple:
    # The stored gradient is a constant to a second tape, as TF's.
    return (reshape(gs[0], (1, -1, 1)) * stop_gradient(ans[1]), None, None, None)


_ctc_loss = Primitive("CTCLoss", _ctc_kernel, multiple_results=True,
                      shape_rule=_ctc_rule).defvjp(_ctc_vjp)


# -- tf.nn.ctc_loss ------------------------------------------------------------------------------

def _blank_first(logits: Tensor, blank: int) -> Tensor:
    """logits with class `blank` moved to index 0 (the others keep their order)."""
    if blank == 0:
        return logits
    return concat([logits[:, :, blank:blank + 1], logits[:, :, :blank],
                   logits[:, :, blank + 1:]], axis=2)


def _classes(logits: Tensor) -> int:
    return logits._value.shape[2]


@tf_export("nn.ctc_loss")
def ctc_loss(labels: Any, logits: Any, label_length: Any, logit_length: Any,
             logits_time_major: bool = True, unique: Any = None, blank_index: Any = None,
             name: Optional[str] = None) -> Tensor:
    """The CTC loss -log p(labels | logits) per sequence ([batch], logits' dtype).

    `labels` is a dense [batch, max_len] tensor with `label_length`, or a SparseTensor (then
    `blank_index` is required and label_length unused); `logits` are unnormalized,
    [frames, batch, classes] (or batch-major with `logits_time_major=False`), of which the
    first `logit_length` frames count. The blank is class `blank_index` (default 0 for dense
    labels; negative counts from the end). `unique` only speeds up TF on TPU: ignored."""
    if isinstance(labels, SparseTensor):
        return _sparse_ctc_loss(labels, logits, logit_length, logits_time_major, blank_index)
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    label_length = convert_to_tensor(label_length)
    logit_length = convert_to_tensor(logit_length)
    out_dtype = logits.dtype
    if out_dtype in (_dtypes.float16, _dtypes.bfloat16):
        logits = cast(logits, _dtypes.float32)
    if not logits_time_major:
        logits = transpose(logits, (1, 0, 2))
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += _classes(logits)
    logits = _blank_first(logits, blank)
    if blank:
        labels = where(labels < blank, labels + 1, labels)
    if logits.dtype != _dtypes.float32:   # TF's dense path multiplies by a float32 one-hot
        raise InvalidArgumentError(f"cannot compute Mul as input #1(zero-based) was expected "
                                   f"to be a {cpp_name(logits.dtype)} tensor but is a float "
                                   f"tensor [Op:Mul] name: ")
    loss, _ = bind(_ctc_loss, (logits, labels, label_length, logit_length), {"exact": False})
    return cast(loss, out_dtype) if out_dtype != loss.dtype else loss


def _sparse_ctc_loss(labels: SparseTensor, logits: Any, logit_length: Any,
                     time_major: bool, blank_index: Any) -> Tensor:
    """TF's fused CTCLoss kernel: exact CTC (an impossible alignment gives inf)."""
    from tapeflow.ops.index_ops import unsorted_segment_sum
    from tapeflow.ops.math_ops import ones_like
    from tapeflow.ops.sparse_ops import to_dense
    if blank_index is None:
        raise ValueError("Argument `blank_index` must be provided when `labels` is a "
                         "`SparseTensor`.")
    logits = convert_to_tensor(logits)
    blank = int(blank_index)
    if blank < 0:
        blank += _classes(logits if time_major else transpose(logits, (1, 0, 2)))
    if not time_major:
        logits = transpose(logits, (1, 0, 2))
    out_dtype = logits.dtype
    if out_dtype in (_dtypes.float16, _dtypes.bfloat16):
        logits = cast(logits, _dtypes.float32)
    logit_length = convert_to_tensor(logit_length)
    values = labels.values
    values = where(values < blank, values + 1, values)
    dense = to_dense(SparseTensor(labels.indices, values, labels.dense_shape))
    rows = labels.indices[:, 0]
    lengths = unsorted_segment_sum(ones_like(rows), rows, labels.dense_shape[0])
    _check_time(lengths, logit_length)
    loss, _ = bind(_ctc_loss, (_blank_first(logits, blank), dense, lengths, logit_length),
                   {"exact": True})
    return cast(loss, out_dtype) if out_dtype != loss.dtype else loss


def _check_time(lengths: Tensor, logit_length: Tensor) -> None:
    """The fused kernel's check that each label sequence fits its frames (eagerly)."""
    if not isinstance(lengths._value, np.ndarray) or \
            not isinstance(logit_length._value, np.ndarray):
        return
    for need, have in zip(lengths._value.reshape(-1), logit_length._value.reshape(-1)):
        if need > have:
            raise InvalidArgumentError(
                f"Not enough time for target transition sequence (required: {need}, "
                f"available: {have})0You can turn this error into a warning by using the "
                f"flag ignore_longer_outputs_than_inputs [Op:CTCLoss]")


@tf_export("nn.ctc_unique_labels")
def ctc_unique_labels(labels: Any, name: Optional[str] = None) -> tuple:
    """For each row of `labels` [batch, max_len]: its distinct labels in order of first
    appearance, zero-padded to max_len (int64), and each label's index among them (int32)."""
    from tapeflow.ops.functional_ops import map_fn
    from tapeflow.ops.manip_ops import pad, unique
    labels = convert_to_tensor(labels)

    def _unique(row: Tensor) -> list:
        u = unique(row)
        y = pad(u.y, [[0, u.idx.shape[0] - u.y.shape[0]]]) if u.y.shape[0] is not None \
            else pad(u.y, [[0, 0]])
        return [cast(y, _dtypes.int64), u.idx]

    return map_fn(_unique, labels, dtype=[_dtypes.int64, _dtypes.int32])


# -- decoders ------------------------------------------------------------------------------------

def _check_decoder_inputs(x: np.ndarray, seq_len: np.ndarray, op_name: str) -> None:
    if x.ndim != 3:
        raise InvalidArgumentError(f"inputs is not a 3-Tensor [Op:{op_name}]")
    if seq_len.ndim != 1:
        raise InvalidArgumentError(f"sequence_length is not a vector [Op:{op_name}]")
    if seq_len.shape[0] != x.shape[1]:
        raise InvalidArgumentError(f"len(sequence_length) != batch_size.  "
                                   f"len(sequence_length):  {seq_len.shape[0]} batch_size: "
                                   f"{x.shape[1]} [Op:{op_name}]")
    for b, n in enumerate(seq_len):
        if n > x.shape[0]:
            raise InvalidArgumentError(f"sequence_length({b}) <= {x.shape[0]} [Op:{op_name}]")


def _sparse_parts(paths: list) -> tuple:
    """(indices [N, 2], values [N], dense_shape [2]) int64 of one path per batch row."""
    indices = [(b, i) for b, p in enumerate(paths) for i in range(len(p))]
    values = [v for p in paths for v in p]
    width = builtins.max((len(p) for p in paths), default=0)
    return (np.asarray(indices, np.int64).reshape(-1, 2), np.asarray(values, np.int64),
            np.asarray([len(paths), width], np.int64))


def _greedy_kernel(x: np.ndarray, seq_len: np.ndarray, merge_repeated: bool,
                   blank: int) -> tuple:
    _check_decoder_inputs(x, seq_len, "CTCGreedyDecoder")
    frames, batch, classes = x.shape
    blank = classes - 1 if blank < 0 else blank
    paths, log_prob = [], np.zeros((batch, 1), x.dtype)
    for b in range(batch):
        path, prev = [], -1
        for t in range(int(seq_len[b])):
            best = int(np.argmax(x[t, b]))                 # the first maximum, as TF
            log_prob[b, 0] -= x[t, b, best]
            if best != blank and not (merge_repeated and best == prev):
                path.append(best)
            prev = best
        paths.append(path)
    return _sparse_parts(paths) + (log_prob,)


def _decoded_rule(x: ShapedArray, *rest: Any, paths: int = 1, **attrs: Any) -> tuple:
    batch = None if x.shape is None else x.shape[1]
    i64 = np.dtype(np.int64)
    parts = []
    for _ in range(paths):
        parts += [ShapedArray((None, 2), i64), ShapedArray((None,), i64),
                  ShapedArray((2,), i64)]
    return tuple(parts) + (ShapedArray((batch, paths), x.dtype),)


_greedy = Primitive("CTCGreedyDecoder", _greedy_kernel, multiple_results=True,
                    differentiable=False,
                    shape_rule=lambda x, s, merge_repeated, blank: _decoded_rule(x))


def _decoder_inputs(inputs: Any, sequence_length: Any) -> tuple:
    x = convert_to_tensor(inputs)
    if x.dtype not in (_dtypes.float32, _dtypes.float64):
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                   f"of allowed values: float, double")
    return x, convert_to_tensor(sequence_length, dtype=_dtypes.int32)


@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs: Any, sequence_length: Any, merge_repeated: bool = True,
                       blank_index: Any = None) -> tuple:
    """Best-path decoding of time-major `inputs` [frames, batch, classes]: the most likely
    class per frame, repeats merged (with `merge_repeated`), blanks dropped. Returns
    ([SparseTensor of the decoded labels, int64], -sum of the frames' maxima [batch, 1]).
    The blank is the last class unless `blank_index` says otherwise."""
    x, seq = _decoder_inputs(inputs, sequence_length)
    blank = -1 if blank_index is None else int(blank_index)
    if blank < 0 and blank != -1:
        blank += x._value.shape[2]
    ix, vals, shape, log_prob = bind(_greedy, (x, seq), {"merge_repeated": bool(merge_repeated),
                                                        "blank": blank})
    return [SparseTensor(ix, vals, shape)], log_prob


class _Beam:
    """One prefix of TF's CTC beam search: its probabilities (log, float32) at t and t - 1."""

    __slots__ = ("parent", "label", "children", "new", "old")

    def __init__(self, parent: Optional["_Beam"], label: int) -> None:
        self.parent, self.label, self.children = parent, label, None
        self.new = [-np.inf, -np.inf, -np.inf]             # total, blank, label
        self.old = [-np.inf, -np.inf, -np.inf]

    def active(self) -> bool:
        return self.new[0] != -np.inf

    def labels(self) -> list:
        out, node = [], self
        while node.parent is not None:
            out.append(node.label)
            node = node.parent
        return out[::-1]


def _log_sum_exp(a: np.float32, b: np.float32) -> np.float32:
    """TF's LogSumExp of two float32 log-probabilities."""
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return np.float32(hi + np.log1p(np.exp(np.float32(lo - hi))))


def _beam_step(leaves: list, row: np.ndarray, width: int, blank: int) -> list:
    """One frame of TF's CTCBeamSearchDecoder::Step (default scorer, no label selection)."""
    x = (row - row.max()).astype(np.float32)
    x = x - np.log(np.sum(np.exp(x), dtype=np.float32))   # log-softmax, in float32 as TF
    branches = sorted(leaves, key=lambda e: -e.new[0])
    for b in branches:
        b.old = list(b.new)
    leaves = []
    for b in branches:
        if b.parent is not None:
            if b.parent.active():
                previous = b.parent.old[1] if b.label == b.parent.label else b.parent.old[0]
                b.new[2] = _log_sum_exp(b.new[2], previous)
            b.new[2] = np.float32(b.new[2] + x[b.label])
        b.new[1] = np.float32(b.old[0] + x[blank])
        b.new[0] = _log_sum_exp(b.new[1], b.new[2])
        leaves.append(b)

    def bottom() -> _Beam:
        return min(leaves, key=lambda e: e.new[0])

    def is_candidate(total: float) -> bool:
        return total > -np.inf and (len(leaves) < width or total > bottom().new[0])

    for b in branches:
        if not is_candidate(b.old[0]):
            continue
        if b.children is None:
            b.children = [_Beam(b, c) for c in range(len(x) - 1)]
        for c in b.children:
            if c.active():
                continue
            c.new[1] = -np.inf
            previous = b.old[1] if c.label == b.label else b.old[0]
            c.new[2] = np.float32(x[c.label] + previous)
            c.new[0] = c.new[2]
            if is_candidate(c.new[0]):
                if len(leaves) == width:
                    worst = bottom()
                    worst.new = [-np.inf, -np.inf, -np.inf]
                    leaves.remove(worst)
                leaves.append(c)
            else:
                c.old = [-np.inf, -np.inf, -np.inf]
                c.new = [-np.inf, -np.inf, -np.inf]
    return leaves


def _beam_kernel(x: np.ndarray, seq_len: np.ndarray, width: int, paths: int) -> tuple:
    _check_decoder_inputs(x, seq_len, "CTCBeamSearchDecoder")
    if paths > width:
        raise InvalidArgumentError("requested more paths than the beam width. "
                                   "[Op:CTCBeamSearchDecoder]")
    frames, batch, classes = x.shape
    decoded = [[] for _ in range(paths)]
    log_probs = np.zeros((batch, paths), x.dtype)
    for b in range(batch):
        root = _Beam(None, -1)
        root.new = [np.float32(0.0), np.float32(0.0), -np.inf]
        leaves = [root]
        for t in range(int(seq_len[b])):
            leaves = _beam_step(leaves, x[t, b], width, classes - 1)
        if paths > len(leaves):
            raise InvalidArgumentError("Less leaves in the beam search than requested. "
                                       "[Op:CTCBeamSearchDecoder]")
        best = sorted(leaves, key=lambda e: -e.new[0])[:paths]
        for i, e in enumerate(best):
            decoded[i].append(e.labels())
            log_probs[b, i] = e.new[0]
    parts = ()
    for p in decoded:
        parts += _sparse_parts(p)
    return parts + (log_probs,)


_beam = Primitive("CTCBeamSearchDecoder", _beam_kernel, multiple_results=True,
                  differentiable=False,
                  shape_rule=lambda x, s, width, paths: _decoded_rule(x, paths=paths))


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100,
                            top_paths: int = 1) -> tuple:
    """TF's CTC beam search over time-major logits [frames, batch, classes] (blank last,
    repeats not merged): ([top_paths SparseTensors of decoded labels], their log
    probabilities [batch, top_paths]), best first."""
    x, seq = _decoder_inputs(inputs, sequence_length)
    parts = bind(_beam, (x, seq), {"width": int(beam_width), "paths": int(top_paths)})
    decoded = [SparseTensor(*parts[3 * i:3 * i + 3]) for i in range(int(top_paths))]
    return decoded, parts[-1]
