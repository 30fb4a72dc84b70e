"""The summary ops of `tf.summary`: `write` and the TensorBoard plugins' `scalar`, `histogram`,
`text`, `image`, `audio`, with TensorFlow 2's default writer, step and `record_if` rules.

Each write is one `WriteSummary` node: eagerly it writes at once; inside `tf.function` it is a
side-effecting node that writes each time the function runs, with the step read when it runs
(a `tf.Variable` step, such as `optimizer.iterations`, gives each run its own step). The writer,
tag and the no-writer/static-condition choices are fixed when the function is traced, as TF's.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.summary import _encode
from tapeflow.summary._writer import state


# -- the node ------------------------------------------------------------------------------------

def _as_scalar(data: np.ndarray, options: tuple) -> np.ndarray:
    return data.astype(np.float32)


def _as_histogram(data: np.ndarray, options: tuple) -> np.ndarray:
    return _encode.histogram_buckets(data, options[0])


def _as_images(data: np.ndarray, options: tuple) -> np.ndarray:
    images = _encode.to_uint8_images(data)
    encoded = [_encode.encode_png(image) for image in images[:options[0]]]
    return np.array([str(images.shape[2]).encode(), str(images.shape[1]).encode(), *encoded],
                    dtype=object)


def _as_audio(data: np.ndarray, options: tuple) -> np.ndarray:
    max_outputs, sample_rate = options
    clips = [_encode.encode_wav(clip, int(sample_rate)) for clip in data[:max_outputs]]
    return np.array([[clip, b""] for clip in clips], dtype=object).reshape(len(clips), 2)


def _as_is(data: np.ndarray, options: tuple) -> np.ndarray:
    return data


_ENCODERS = {"scalar": _as_scalar, "histogram": _as_histogram, "image": _as_images,
             "audio": _as_audio, "tensor": _as_is}


def _write_impl(step: np.ndarray, data: np.ndarray, *condition: np.ndarray, writer: Any,
                tag: str, kind: str, metadata: bytes, options: tuple) -> np.ndarray:
    if context.graph is not None:
        return np.array(True)   # tracing computes example values; the graph writes when run
    if condition and not bool(np.asarray(condition[0])):
        return np.array(False)
    writer.write_tensor(tag, int(step), _ENCODERS[kind](np.asarray(data), options), metadata)
    return np.array(True)


_WRITE = Primitive("WriteSummary", _write_impl, differentiable=False, stateful=True,
                   side_effect=True, shape_rule=lambda *avals, **attrs: ShapedArray((), np.bool_))


# -- state ---------------------------------------------------------------------------------------

def _resolve_condition() -> Any:
    """The recording condition: False, True, or a traced boolean tensor."""
    condition = state.is_recording
    if callable(condition):
        condition = condition()
    if condition is None:
        return True
    if isinstance(condition, Tensor) and context.graph is not None:
        return condition
    return bool(np.asarray(condition))


def _step_tensor(step: Any) -> Tensor:
    step = convert_to_tensor(step, dtype=_dtypes.int64)
    if step.shape.rank is not None and step.shape.num_elements() != 1:
        raise ValueError(f"Argument `step` must be a scalar. Received step with shape "
                         f"{tuple(step.shape.as_list())}.")
    return step


def _false() -> Tensor:
    return convert_to_tensor(False)


def _emit(tag: str, data: Any, step: Any, metadata: bytes, kind: str,
          options: tuple = ()) -> Tensor:
    """Writes `data` (made into `kind`'s tensor when written) under `tag` to the default
    writer; the boolean result says whether it was written, as TF's summary ops."""
    if step is not None:
        step_tensor = _step_tensor(step)
    writer = state.writer
    if writer is None or not hasattr(writer, "write_tensor"):
        return _false()
    condition = _resolve_condition()
    if condition is False:
        return _false()
    if step is None:
        if state.step is None:
            raise ValueError("No step set. Please specify one either through the `step` "
                             "argument or through tf.summary.experimental.set_step()")
        step_tensor = _step_tensor(state.step)
    data = data() if callable(data) else data
    inputs = [step_tensor, convert_to_tensor(data)]
    if condition is not True:
        inputs.append(condition)
    return bind(_WRITE, inputs, {"writer": writer, "tag": tag, "kind": kind,
                                 "metadata": metadata, "options": tuple(options)})


# -- tags ----------------------------------------------------------------------------------------

_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(name: Optional[str], default_name: str = "summary",
                  values: Any = None) -> Iterator[tuple]:
    """`tf.summary.experimental.summary_scope`: yields (tag, scope); the tag is `name` under
    the enclosing summary scopes. (tapeflow's `tf.name_scope` keeps no stack, so only summary
    scopes prefix tags.)"""
    name = name or default_name
    scopes = _scopes()
    tag = "/".join(scopes + [name])
    scopes.append(_INVALID_SCOPE_CHARACTERS.sub("", name) or default_name)
    try:
        yield tag, "/".join(scopes) + "/"
    finally:
        scopes.pop()


def _scopes() -> list:
    if not hasattr(state, "scopes"):
        state.scopes = []
    return state.scopes


def _metadata(plugin: str, description: Optional[str], **content: Any) -> bytes:
    """Serialized SummaryMetadata, made by the TensorBoard plugin's own metadata module."""
    import importlib
    module = importlib.import_module(f"tensorboard.plugins.{plugin}.metadata")
    return module.create_summary_metadata(display_name=None, description=description,
                                          **content).SerializeToString()


def _no_writer() -> bool:
    return state.writer is None or not hasattr(state.writer, "write_tensor")


# -- the public ops ------------------------------------------------------------------------------

def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None,
          name: Optional[str] = None) -> Tensor:
    """Writes a generic summary (`tensor`, or the tensor `tensor()` returns) under `tag`;
    `metadata` is a SummaryMetadata proto or its bytes. Returns whether it wrote."""
    if hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    return _emit(tag, tensor, step, metadata or b"", "tensor")


def scalar(name: str, data: Any, step: Any = None, description: Optional[str] = None) -> Tensor:
    """Writes a scalar (as float32) for TensorBoard's Scalars dashboard."""
    with summary_scope(name, "scalar_summary") as (tag, _):
        if _no_writer():
            return _false()
        data = convert_to_tensor(data)
        if data.shape.rank not in (0, None):
            raise ValueError(f"Expected scalar shape, saw shape: "
                             f"{tuple(data.shape.as_list())}.")
        return _emit(tag, data, step, _metadata("scalar", description), "scalar")


def histogram(name: str, data: Any, step: Any = None, buckets: Optional[int] = None,
              description: Optional[str] = None) -> Tensor:
    """Writes a histogram of `data`'s elements (`buckets`, default 30, equal-width buckets)."""
    with summary_scope(name, "histogram_summary") as (tag, _):
        if _no_writer():
            return _false()
        count = _encode.DEFAULT_BUCKET_COUNT if buckets is None else int(buckets)
        return _emit(tag, data, step, _metadata("histogram", description), "histogram",
                     (count,))


def text(name: str, data: Any, step: Any = None, description: Optional[str] = None) -> Tensor:
    """Writes a string tensor for TensorBoard's Text dashboard."""
    with summary_scope(name, "text_summary") as (tag, _):
        if _no_writer():
            return _false()
        data = convert_to_tensor(data)
        if data.dtype != _dtypes.string:
            raise TypeError(f"tensor must be of type tf.string; got tf.{data.dtype.name}")
        return _emit(tag, data, step, _metadata("text", description), "tensor")


def _check_rank(data: Tensor, rank: int) -> None:
    if data.shape.rank is not None and data.shape.rank != rank:
        raise ValueError(f"Tensor  must have rank {rank}.  Received rank {data.shape.rank}, "
                         f"shape {tuple(data.shape.as_list())}")


def _check_max_outputs(max_outputs: int) -> None:
    if int(max_outputs) < 0:
        raise InvalidArgumentError(None, None, "\nCondition x >= 0 did not hold "
                                   "element-wise:\nx (shape=() dtype=int32) = \n"
                                   f"{int(max_outputs)}")


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: Optional[str] = None) -> Tensor:
    """Writes up to `max_outputs` images of a [k, height, width, channels] tensor (floats in
    [0, 1] or uint8) as PNGs for TensorBoard's Images dashboard."""
    with summary_scope(name, "image_summary") as (tag, _):
        if _no_writer():
            return _false()
        data = convert_to_tensor(data)
        _check_rank(data, 4)
        _check_max_outputs(max_outputs)
        return _emit(tag, data, step, _metadata("image", description), "image",
                     (int(max_outputs),))


def audio(name: str, data: Any, sample_rate: Any, step: Any = None, max_outputs: int = 3,
          encoding: Optional[str] = None, description: Optional[str] = None) -> Tensor:
    """Writes up to `max_outputs` clips of a [k, frames, channels] float tensor in [-1, 1] as
    16-bit WAV for TensorBoard's Audio dashboard."""
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    with summary_scope(name, "audio_summary") as (tag, _):
        if _no_writer():
            return _false()
        data = convert_to_tensor(data)
        _check_rank(data, 3)
        _check_max_outputs(max_outputs)
        from tensorboard.plugins.audio import metadata as audio_metadata
        meta = _metadata("audio", description, encoding=audio_metadata.Encoding.Value("WAV"))
        return _emit(tag, data, step, meta, "audio", (int(max_outputs), int(sample_rate)))


def flush(writer: Any = None, name: Optional[str] = None) -> None:
    """Flushes `writer` (default: the default writer)."""
    writer = state.writer if writer is None else writer
    if writer is not None:
        writer.flush()


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Records summaries inside only when `condition` (a bool, a boolean tensor, or a
    function returning one, evaluated at each summary op) holds."""
    old = state.is_recording
    try:
        state.is_recording = condition
        yield
    finally:
        state.is_recording = old


def should_record_summaries() -> Tensor:
    """Whether summary ops would record here: a default writer is set and the `record_if`
    condition holds (a boolean tensor)."""
    if state.writer is None:
        return _false()
    condition = _resolve_condition()
    return condition if isinstance(condition, Tensor) else convert_to_tensor(condition)


def set_step(step: Any) -> None:
    """Sets the default step of the summary ops (an int, tensor or `tf.Variable`)."""
    state.step = step


def get_step() -> Any:
    """The default step (None when unset)."""
    return state.step


__all__ = ["write", "scalar", "histogram", "text", "image", "audio", "flush", "record_if",
           "should_record_summaries", "set_step", "get_step", "summary_scope"]

