"""`tf.GradientTape`: records operations and runs them backwards.

A tape tracks the tensors that depend on what it watches (by object id; the record holds the
objects themselves, so ids stay unique while the record lives). `gradient` walks only the
recorded ops that lie between the sources and the targets, newest first, and a non-persistent
tape drops its record as it goes so that intermediates die early.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import logging
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.autodiff import diagnostics
from tapeflow.autodiff.backprop import carries_gradient, live_nodes, seed_cotangents, support, walk
from tapeflow.autodiff.backprop import hooks as backprop_hooks
from tapeflow.autodiff.core import NO_ATTRS, READ_VARIABLE
from tapeflow.framework import nest
from tapeflow.framework.context import context
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.framework.tensor import Tensor, TensorLike, wrap
from tapeflow.framework import variables as _variables
from tapeflow.framework.variables import Variable

logger = logging.getLogger("tapeflow")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class GradientTape:
    """Records operations for automatic differentiation, as `tf.GradientTape`.

    Args:
      persistent: allow more than one `gradient`/`jacobian` call; the record is freed when
        the tape is deleted.
      watch_accessed_variables: watch every trainable variable read while recording.
      explain_none: (a tapeflow addition) warn, with `NoneGradientWarning`, at a `gradient`
        or `jacobian` call that returns a None gradient, with the report of `explain()`.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True,
                 explain_none: bool = False) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._explain_none = explain_none
        # Where the tape was made, for `explain`: only when that matters (rare).
        self._origin = None if watch_accessed_variables else diagnostics.user_site()
        self._recording = False
        self._used = False
        self._reset_record()

    def _reset_record(self) -> None:
        self._nodes: list = []
        self._tracked: dict = {}          # id -> tensor or variable depending on a watched one
        self._watched_variables: dict = {}  # id -> variable, in watch order
        # id -> (tensor, primitive, inputs): values a watched one reached only through an op
        # with no gradient (or an integer output); lets `explain` name the op that cut a path.
        self._blocked: dict = {}
        # For `explain`, the user's line of each event that cut a path, made only when one
        # happens (never per op): id(value) -> (kind, (file, line), value, detail), kind "op"
        # (an op with no gradient fed by a tracked value), ".numpy()", "NumPy", "float()" (a
        # tracked value left tapeflow) or "assign" (a tracked value assigned to a variable).
        self._cuts: Optional[dict] = None
        self._pauses: Optional[list] = None  # the sites of `stop_recording` blocks
        self._last_call: Optional[tuple] = None  # (targets, sources), kept for to_dot

    # -- context --------------------------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._push()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        state = context.state
        state.tapes.append(self)
        state.refresh()
        self._recording = True

    def _pop(self) -> None:
        state = context.state
        state.tapes.remove(self)
        state.refresh()
        self._recording = False

    def _densify_recorded(self, slices: IndexedSlices) -> Tensor:
        """An IndexedSlices target made dense on this tape, so that its Jacobian reaches the
        sources (TF's jacobian reshapes its target while recording)."""
        if self._recording:
            return slices._dense()
        self._push()
        try:
            return slices._dense()
        finally:
            self._pop()

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording; ops run inside are not differentiated."""
        if not self._recording:
            raise ValueError("Tape must be recording when stop_recording is called. ")
        if self._pauses is None:
            self._pauses = []
        self._pauses.append(diagnostics.user_site())
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Clears everything recorded so far; recording goes on if inside the context."""
        self._reset_record()
        self._used = False

    # -- watching -------------------------------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Makes the tape track `tensor` (a tensor, variable or nested structure of them)."""
        for item in nest.flatten(tensor):
            if isinstance(item, Variable):
                self._watch_variable(item)
            elif isinstance(item, TensorLike):
                if not carries_gradient(item):
                    logger.warning("The dtype of the watched tensor must be floating (e.g. "
                                   "tf.float32), got %r", item.dtype)
                self._tracked[id(item)] = item
            else:
                raise ValueError(f"Passed in object {item!r} of type {type(item).__name__!r}, "
                                 f"not tf.Tensor or tf.Variable or ExtensionType.")

    def _watch_variable(self, variable: Variable) -> None:
        key = id(variable)
        if key not in self._watched_variables:
            if not carries_gradient(variable):
                logger.warning("The dtype of the watched tensor must be floating (e.g. "
                               "tf.float32), got %r", variable.dtype)
            self._watched_variables[key] = variable
            self._tracked[key] = variable

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order it started watching them."""
        return tuple(self._watched_variables.values())

    def explain(self, source: Any = diagnostics.EVERY_SOURCE) -> Any:
        """Why the last `gradient`/`jacobian` call gave no gradient w.r.t. `source`.

        A tapeflow addition (TensorFlow has no such method). `source` is a source of that
        call, or a nested structure of them; returns the same structure of strings, a few
        sentences naming the value, the cause, the user's `file:line` (and its code) where
        the path was cut, and what to do, with None where the gradient was not None. With no
        argument, one report explaining every None gradient of the call. Unconnected sources
        are explained also under `UnconnectedGradients.ZERO`. Works after a non-persistent
        tape has freed its record.

        Raises:
          ValueError: before any gradient call, or for a value that was not a source of it.
        """
        if source is diagnostics.EVERY_SOURCE:
            return diagnostics.report(self)
        return nest.map_structure(lambda s: diagnostics.explanation(self, s), source)

    def _cut(self, key: int, kind: str, value: Any, detail: Any = None) -> None:
        """Notes the user's line of an event that cut a path (see `_cuts`); the first wins."""
        cuts = self._cuts
        if cuts is None:
            cuts = self._cuts = {}
        if key not in cuts:
            cuts[key] = (kind, diagnostics.user_site(), value, detail)

    # -- recording (called by autodiff.core.record) ----------------------------------------------
    def _record(self, prim: Any, inputs: Any, attrs: dict, outputs: Any) -> None:
        tracked = self._tracked
        for x in inputs:
            if id(x) in tracked:
                break
        else:
            if self._blocked:  # an op on a blocked value passes the block on (for explain)
                self._block(prim, inputs, outputs)
            return
        self._nodes.append((prim, inputs, attrs, outputs))
        if prim.multiple_results:
            for out in outputs:
                if carries_gradient(out):
                    tracked[id(out)] = out
                else:
                    self._blocked[id(out)] = (out, prim, inputs)
                    self._cut(id(out), "op", out)
        elif outputs._value.dtype.kind in "fc" or carries_gradient(outputs):  # kind first: hot
            tracked[id(outputs)] = outputs
        else:  # an integer output (tf.cast to int32): the path stops here
            self._blocked[id(outputs)] = (outputs, prim, inputs)
            self._cut(id(outputs), "op", outputs)

    def _watch_read(self, variable: Variable) -> bool:
        """A read of `variable` while recording: watches it if it is trainable (unless
        `watch_accessed_variables=False`); returns whether the tape watches it."""
        if variable._trainable and self._watch_accessed_variables:
            self._watch_variable(variable)
            return True
        return id(variable) in self._tracked

    def _record_read(self, variable: Variable, read: Tensor) -> None:
        """`_record` for a read of `variable` (the hot case: a layer's weights), after
        `_watch_read`."""
        if id(variable) not in self._tracked and not self._watch_read(variable):
            return
        self._nodes.append((READ_VARIABLE, (variable,), NO_ATTRS, read))
        if read._value.dtype.kind in "fc" or carries_gradient(read):
            self._tracked[id(read)] = read
        else:
            self._blocked[id(read)] = (read, READ_VARIABLE, (variable,))

    def _block(self, prim: Any, inputs: Any, outputs: Any) -> None:
        """Notes the outputs of an op with no gradient fed by a tracked or blocked value, so
        that `explain` can name the op that cut a path (called by autodiff.core.bind)."""
        tracked, blocked = self._tracked, self._blocked
        for x in inputs:
            if id(x) in tracked or id(x) in blocked:
                break
        else:
            return
        cuts = any(id(x) in tracked for x in inputs)  # the cut itself, not a value past it
        for out in (outputs if prim.multiple_results else (outputs,)):
            blocked[id(out)] = (out, prim, inputs)
            if cuts:
                self._cut(id(out), "op", out)

    # -- differentiation ------------------------------------------------------------------------
    def _check_usable(self) -> None:
        if self._nodes is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if self._recording:
            if not self._persistent:
                self._pop()  # as TensorFlow: stop recording, the gradient ops are not taped
            else:
                logger.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it "
                    "causes the gradient ops to be recorded on the tape, leading to increased "
                    "CPU and memory usage). Only call GradientTape.gradient inside the context "
                    "if you actually want to trace the gradient in order to compute higher "
                    "order derivatives.")

    def _release_if_done(self) -> None:
        if not self._persistent:
            self._nodes = None
            self._tracked = {}
            self._blocked = {}
            self._cuts = self._pauses = None

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE) -> Any:
        """The gradient of `target` (summed over its tensors) with respect to `sources`.

        Returns the sources' structure, with None (or zeros, for
        `UnconnectedGradients.ZERO`) where a source does not reach the target and for
        integer sources.
        """
        self._check_usable()
        if unconnected_gradients is not UnconnectedGradients.NONE:
            unconnected_gradients = UnconnectedGradients(
                getattr(unconnected_gradients, "value", unconnected_gradients))
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, "
                            "Variables or CompositeTensors to be differentiated, but received "
                            "None.")
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        _check_sources(flat_sources)
        seeds = None if output_gradients is None else _seeds(flat_targets, output_gradients)
        record = self._nodes  # kept only to explain a None gradient (see `explain`)
        grads = self._backprop(flat_targets, seeds, self._tracked_only(flat_sources, flat_targets),
                               release=not self._persistent)
        grads = _in_tf_convention(grads)
        diagnostics.note(self, record, flat_targets, flat_sources, grads)
        self._last_call = (flat_targets, flat_sources) if self._persistent else None
        del record
        self._release_if_done()
        if unconnected_gradients is UnconnectedGradients.ZERO:
            grads = [support().zeros_like(s) if g is None else g
                     for g, s in zip(grads, flat_sources)]
        return nest.pack_sequence_as(sources, grads)

    def _tracked_only(self, sources: list, targets: list) -> list:
        """`sources`, where each one the tape does not track (never watched, nor computed from
        a watched value) and that is no target is replaced by a stand-in the record never saw:
        its gradient is None, as in TensorFlow, even where that value fed recorded ops."""
        tracked = self._tracked
        for source in sources:
            if id(source) not in tracked:
                break
        else:
            return sources
        target_ids = {id(t) for t in targets}
        return [s if id(s) in tracked or id(s) in target_ids
                else wrap(np.zeros((), s._value.dtype)) for s in sources]

    def _backprop(self, targets: list, seeds: Optional[list], sources: list,
                  release: bool) -> list:
        """The sources' cotangents; `seeds` (None: ones) are the targets' cotangents."""
        nodes = self._nodes
        if release:
            self._nodes = None
        compiled = backprop_hooks["compiled_backprop"]
        if compiled is not None and not context.state.active:  # first order: nothing records it
            result = compiled(nodes, targets, seeds, sources)
            if result is not None:
                return result
        needed, reads, live = live_nodes(nodes, sources)
        del nodes
        grads = seed_cotangents(targets, seeds, live)
        return walk(needed, reads, live, grads, sources, support().zeros_like)

    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
                 parallel_iterations: Optional[int] = None,
                 experimental_use_pfor: bool = True) -> Any:
        """d target / d sources: for each source, shape `target.shape + source.shape`.

        All output elements go through one vectorized backward pass (in chunks of
        `parallel_iterations` rows when given); `experimental_use_pfor=False` runs one
        backward pass per element instead, and then needs a persistent tape, as TensorFlow.
        """
        if self._nodes is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the jacobian with eager execution enabled and with  "
                               "experimental_use_pfor set to False.")
        if isinstance(target, IndexedSlices):
            target = self._densify_recorded(target)
        self._check_usable()
        mode = UnconnectedGradients(getattr(unconnected_gradients, "value",
                                            unconnected_gradients))
        target = _as_jacobian_target(target)
        flat_sources = nest.flatten(sources)
        _check_sources(flat_sources)
        size = target._value.size
        if not carries_gradient(target):
            columns: list = [None] * len(flat_sources)
        else:
            reached = self._tracked_only(flat_sources, [target])
            columns = self._batched_rows(target, size, reached, parallel_iterations,
                                         support().identity_seeds) if experimental_use_pfor \
                else self._looped_rows(target, size, reached, support().one_hot_seed)
        diagnostics.note(self, self._nodes, [target], flat_sources, columns)
        self._last_call = ([target], flat_sources) if self._persistent else None
        self._release_if_done()
        ops = support()
        result = []
        for source, rows in zip(flat_sources, columns):
            shape = tuple(target._value.shape) + tuple(source._value.shape)
            if rows is None:
                result.append(ops.zeros(shape, source.dtype)
                              if mode is UnconnectedGradients.ZERO else None)
            else:
                result.append(ops.reshape(rows, shape))
        return nest.pack_sequence_as(sources, result)

    def _batched_rows(self, target: Any, size: int, sources: list,
                      chunk: Optional[int], make_seeds: Any) -> list:
        """Per source, the stacked rows `(size,) + source.shape` of the vectorized
        backward pass, or None for a source the target does not reach."""
        from tapeflow.autodiff.batching import backprop_batched
        ops = support()
        step = max(int(chunk), 1) if chunk else max(size, 1)
        pieces: list = [[] for _ in sources]
        for start in range(0, size, step):
            stop = min(start + step, size)
            seeds = make_seeds(target, start, stop)
            grads = backprop_batched(self._nodes, target, seeds, sources)
            for piece, g in zip(pieces, grads):
                piece.append(g)
        result = []
        for piece, source in zip(pieces, sources):
            if not piece:  # an empty target: no rows at all
                result.append(ops.zeros((0,) + source._value.shape, source.dtype))
            elif all(g is None for g in piece):
                result.append(None)
            else:
                result.append(piece[0] if len(piece) == 1 else ops.concat(piece, axis=0))
        return result

    def _looped_rows(self, target: Any, size: int, sources: list, make_seed: Any) -> list:
        """Like `_batched_rows`, with one backward pass per row (the reference path)."""
        ops = support()
        rows: list = [[] for _ in sources]
        for index in range(size):
            grads = self._backprop([target], [make_seed(target, index)], sources, release=False)
            for row, g in zip(rows, grads):
                row.append(g)
        result = []
        for source, row in zip(sources, rows):
            if all(g is None for g in row):
                result.append(None)
                continue
            row = [ops.zeros_like(source) if g is None else g for g in row]
            result.append(ops.stack(row) if row else
                          ops.zeros((0,) + source._value.shape, source.dtype))
        return result

    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
                       parallel_iterations: Optional[int] = None,
                       experimental_use_pfor: bool = True) -> Any:
        """Per-example Jacobians: shape `[batch] + target.shape[1:] + source.shape[1:]`.

        Assumes, as TensorFlow does, that example i of the target depends only on example i
        of the source. An unconnected source gives zeros (of the target's dtype), whatever
        `unconnected_gradients` says, as in TensorFlow.
        """
        if self._nodes is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if isinstance(target, IndexedSlices):
            target = self._densify_recorded(target)
        target = _as_target(target)
        target_shape = tuple(target._value.shape)
        source_shape = tuple(source._value.shape)
        for shape in (target_shape, source_shape):
            if len(shape) < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        if target_shape[0] != source_shape[0]:
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and source "
                             f"shape ({source.shape}) to match.")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the batch_jacobian with eager execution enabled and  with "
                               "experimental_use_pfor set to False.")
        self._check_usable()
        ops = support()
        batch = target_shape[0]
        row_size = target._value.size // max(batch, 1)
        if not carries_gradient(target):
            (rows,) = [None]
        else:
            reached = self._tracked_only([source], [target])
            (rows,) = self._batched_rows(target, row_size, reached, parallel_iterations,
                                         ops.batch_identity_seeds) if experimental_use_pfor \
                else self._looped_rows(target, row_size, reached, ops.batch_one_hot_seed)
        self._release_if_done()
        shape = target_shape + source_shape[1:]
        if rows is None:
            return ops.zeros(shape, target.dtype)
        # rows: (row_size, batch) + source_shape[1:] -> (batch, row_size, ...) -> shape.
        rows = ops.reshape(rows, (row_size, batch, -1))
        return ops.reshape(ops.transpose(rows, (1, 0, 2)), shape)

    def __del__(self) -> None:
        # A tape deleted while recording (an exception escaped its block) stops recording.
        if getattr(self, "_recording", False) and self in getattr(context, "tapes", ()):
            try:
                self._pop()
            except ValueError:
                pass

    # -- views (a tapeflow addition) --------------------------------------------------------
    def to_text(self) -> str:
        """The record as text, one line per op in recording order (TF op names, output
        dtypes and shapes), with the watched values and, after a `gradient`/`jacobian` call,
        its sources and targets marked and the reasons `explain` gives for None gradients.

        Raises:
          RuntimeError: after a non-persistent tape's gradient call freed the record.
        """
        return _render(self, "text")

    def to_dot(self) -> str:
        """The record in Graphviz DOT, drawn as `to_text` writes it; a path `explain` found
        cut (by an op with no gradient) is dashed and red, labelled with the reason."""
        return _render(self, "dot")


# -- values leaving tapeflow, assignments: the rare events `explain` names ----------------------

def _note_escape(value: Any, how: str) -> None:
    """`value` is taken out of tapeflow (`how`: ".numpy()", "NumPy", "float()") while tapes
    record: each tape that tracks it (or would watch it, a trainable variable) notes the line."""
    key = id(value)
    for tape in context.state.tapes:
        if key in tape._tracked or (isinstance(value, Variable) and value._trainable
                                    and tape._watch_accessed_variables):
            tape._cut(key, how, value)


def _watch_escapes(method: Any, how: str) -> Any:
    """`method` of TensorLike, noting (only while a tape records) that a value left tapeflow."""
    @functools.wraps(method)
    def leaving(self: Any, *args: Any, **kwargs: Any) -> Any:
        if context.state.tapes:
            _note_escape(self, how)
        return method(self, *args, **kwargs)
    return leaving


TensorLike.numpy = _watch_escapes(TensorLike.numpy, ".numpy()")
TensorLike.__array__ = _watch_escapes(TensorLike.__array__, "NumPy")
TensorLike.__float__ = _watch_escapes(TensorLike.__float__, "float()")


def _note_assign(variable: Variable, value: Any, op: str) -> None:
    """`variable.<op>(value)` while tapes record: a tracked `value` ends its path there, and
    so does a variable given as the value (the assignment reads it untaped), which a tape
    would watch."""
    if isinstance(value, TensorLike):
        key = id(value)
        for tape in context.state.tapes:
            if key in tape._tracked or (isinstance(value, Variable) and value._trainable
                                        and tape._watch_accessed_variables):
                tape._cut(key, "assign", value, (op, variable))


_variables.hooks["taped_assign"] = _note_assign


def _render(tape: GradientTape, form: str) -> str:
    # The renderer sits in the graph layer above; it installs itself into backprop.hooks.
    render = backprop_hooks.get("render_tape")
    if render is None:
        raise RuntimeError("GradientTape.to_text/to_dot need tapeflow.graph.render, which "
                           "`import tapeflow` loads.")
    return render(tape, form)


def _not_a_tensor(item: Any, attribute: str) -> Exception:
    """TF's error for a target or source that is no tensor: the one its code meets reading
    `attribute` of it (an AttributeError for numbers, `_id` for NumPy arrays), or a
    TypeError where it takes a string or None for a dtype."""
    if item is None or isinstance(item, str):
        return TypeError(f"Cannot convert the argument `type_value`: {item!r} to a TensorFlow "
                         f"DType.")
    try:
        getattr(item, "_id" if isinstance(item, np.ndarray) else attribute)
    except AttributeError as exc:
        return exc
    return ValueError(f"Passed in object {item!r} of type {type(item).__name__!r}, not "
                      f"tf.Tensor or tf.Variable or ExtensionType.")


def _as_target(target: Any) -> Any:
    if isinstance(target, TensorLike):
        return target
    raise _not_a_tensor(target, "dtype")


def _as_jacobian_target(target: Any) -> Any:
    # TF reads the target's shape first; a NumPy target converts (and reaches no source).
    if isinstance(target, TensorLike):
        return target
    if isinstance(target, np.ndarray):
        return support().convert_to_tensor(target)
    raise AttributeError(f"{type(target).__name__!r} object has no attribute 'shape'")


def _check_sources(sources: list) -> None:
    for source in sources:
        if not isinstance(source, TensorLike):
            raise _not_a_tensor(source, "dtype")
        if source._value.dtype.kind not in "fc" and not carries_gradient(source):
            logger.warning("The dtype of the source tensor must be floating (e.g. tf.float32) "
                           "when calling GradientTape.gradient, got %r", source.dtype)


def _seeds(targets: list, output_gradients: Any) -> list:
    """`output_gradients` as one seed per target (None: ones, for that target)."""
    flat = nest.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(f"Length of output_gradients ({len(flat)}) must match the number of "
                         f"targets ({len(targets)}).")
    ops = support()
    return _in_tf_convention([ops.ones_like(t) if g is None
                              else ops.convert_to_tensor(g, dtype=t.dtype)
                              for t, g in zip(targets, flat)])


def _in_tf_convention(cotangents: list) -> list:
    """Complex cotangents conjugated: the rules are written in holomorphic form (the
    cotangent of x in x * y is g * y), so inside the backward pass a complex cotangent is the
    conjugate of TensorFlow's (g * conj(y)); conjugating the seeds on the way in and the
    gradients on the way out (with the Conj op, so higher orders see it) gives TF's numbers.
    The same function converts both ways."""
    for g in cotangents:
        if g is not None and _is_complex(g):
            break
    else:
        return cotangents
    conj = support().conj
    return [g if g is None or not _is_complex(g) else
            IndexedSlices(conj(g.values), g.indices, g.dense_shape)
            if isinstance(g, IndexedSlices) else conj(g) for g in cotangents]


def _is_complex(g: Any) -> bool:
    value = g.values if isinstance(g, IndexedSlices) else g
    return value._value.dtype.kind == "c"


__all__ = ["GradientTape", "UnconnectedGradients"]
