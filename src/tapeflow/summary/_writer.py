"""Summary writers and the default-writer state of `tf.summary`.

A file writer writes TensorBoard's event files (TFRecord-framed `Event` protos) with the
`tensorboard` package's own record writer and protos, imported when the first writer is
made, so `import tapeflow` stays fast and works without the package. TensorFlow's
`EventFileWriter` is not used: its `tf.io.gfile` would import TensorFlow where it is installed.
Files are named as TensorFlow names them:
`events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2`. Events are buffered and flushed as TF's
SummaryFileWriter flushes: when `max_queue` events are pending or `flush_millis` have passed
since the last flush, and on `flush()`, `close()` and leaving `as_default()`.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
import weakref
from typing import Any, Optional

_INSTALL_HINT = ("TensorBoard is not installed, missing implementation for {api}. tapeflow "
                 "writes TensorBoard's event files with the `tensorboard` package: "
                 "pip install 'tapeflow[tensorboard]'")
_UIDS = itertools.count()


def tensorboard_modules(api: str = "tf.summary") -> Any:
    """(event_pb2, summary_pb2, tensor_util, RecordWriter) from the tensorboard package, or an
    ImportError naming the `tapeflow[tensorboard]` extra."""
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2
        from tensorboard.summary.writer.record_writer import RecordWriter
        from tensorboard.util import tensor_util
    except ImportError as e:
        raise ImportError(_INSTALL_HINT.format(api=api)) from e
    return event_pb2, summary_pb2, tensor_util, RecordWriter


class _State(threading.local):
    """The default writer, step and recording condition (per thread, as TensorFlow's)."""

    def __init__(self) -> None:
        self.writer: Optional["SummaryWriter"] = None
        self.step: Any = None
        self.is_recording: Any = None


state = _State()


class _DefaultContext:
    """`writer.as_default(step)`: makes `writer` the default (and `step` the step) inside."""

    def __init__(self, writer: "SummaryWriter", step: Any) -> None:
        self._writer = writer
        self._step = step
        self._old_writer = None
        self._old_step = None

    def __enter__(self) -> "SummaryWriter":
        self._old_writer = state.writer
        state.writer = self._writer
        if self._step is not None:
            self._old_step = state.step
            state.step = self._step
        return self._writer

    def __exit__(self, *exc: Any) -> bool:
        state.writer.flush()
        state.writer = self._old_writer
        if self._step is not None:
            state.step = self._old_step
        return False


class SummaryWriter:
    """Interface of summary writers (`tf.summary.SummaryWriter`)."""

    def set_as_default(self, step: Any = None) -> None:
        """Makes this writer the default for the summary ops (and `step` their step)."""
        self.as_default(step).__enter__()

    def as_default(self, step: Any = None) -> Any:
        """A context manager making this writer the default (flushed on exit)."""
        return _DefaultContext(self, step)

    def init(self) -> None:
        """Initializes the writer (a no-op: file writers open their file when made)."""

    def flush(self) -> None:
        """Writes the buffered events to the file."""
        raise NotImplementedError()

    def close(self) -> None:
        """Flushes and closes the writer."""
        raise NotImplementedError()


class NoopSummaryWriter(SummaryWriter):
    """A writer that does nothing (`tf.summary.create_noop_writer()`)."""

    def set_as_default(self, step: Any = None) -> None:
        pass

    def as_default(self, step: Any = None) -> Any:
        import contextlib
        return contextlib.nullcontext()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class FileWriter(SummaryWriter):
    """Writes events to one new event file in `logdir` (`tf.summary.create_file_writer`)."""

    def __init__(self, logdir: str, max_queue: int = 10, flush_millis: int = 120_000,
                 filename_suffix: str = ".v2", name: Optional[str] = None) -> None:
        self._event_pb2, self._summary_pb2, self._tensor_util, record_writer = \
            tensorboard_modules("tf.summary.create_file_writer")
        self.logdir = os.fspath(logdir)
        self._max_queue = int(max_queue)
        self._flush_seconds = int(flush_millis) / 1000.0
        os.makedirs(self.logdir, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_UIDS)}{filename_suffix}")
        self.path = os.path.join(self.logdir, name)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed by close() or at exit
        self._finalizer = weakref.finalize(self, self._file.close)
        self._records = record_writer(self._file)
        self._lock = threading.Lock()
        self._pending = 0
        self._last_flush = time.time()
        self._closed = False
        self._add(self._event_pb2.Event(
            wall_time=time.time(), file_version="brain.Event:2",
            source_metadata=self._event_pb2.SourceMetadata(writer="tapeflow.summary")))
        self.flush()

    def __repr__(self) -> str:
        return f"<tapeflow.summary.SummaryWriter logdir={self.logdir!r}>"

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step: Any = None) -> None:
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step: Any = None) -> Any:
        self._check_open()
        return super().as_default(step)

    def _add(self, event: Any) -> None:
        with self._lock:
            self._check_open()
            self._records.write(event.SerializeToString())
            self._pending += 1
            if (self._pending >= self._max_queue
                    or time.time() - self._last_flush > self._flush_seconds):
                self._flush_locked()

    def write_tensor(self, tag: str, step: int, value: Any, metadata: bytes) -> None:
        """Appends one summary value (an array made a TensorProto) at `step`."""
        summary = self._summary_pb2.Summary()
        entry = summary.value.add(tag=tag, tensor=self._tensor_util.make_tensor_proto(value))
        if metadata:
            entry.metadata.ParseFromString(metadata)
        self._add(self._event_pb2.Event(wall_time=time.time(), step=int(step), summary=summary))

    def write_event(self, event: Any) -> None:
        """Appends an `Event` proto as it is."""
        self._add(event)

    def _flush_locked(self) -> None:
        self._file.flush()
        self._pending = 0
        self._last_flush = time.time()

    def flush(self) -> None:
        """Writes the buffered events to the file (nothing once closed, as TF)."""
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def close(self) -> None:
        """Flushes and closes the event file; later `as_default` raises RuntimeError."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._file.flush()
            self._finalizer()


__all__ = ["SummaryWriter", "FileWriter", "NoopSummaryWriter", "state", "tensorboard_modules"]
