"""`tf.summary`: TensorBoard summaries written to event files, as TensorFlow 2.

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default(step=0):
        tf.summary.scalar("loss", 0.25)

Event files are written with the optional `tensorboard` package
(`pip install 'tapeflow[tensorboard]'`), imported when the first file writer is made.
"""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.summary import experimental
from tapeflow.summary._ops import (audio, flush, histogram, image, record_if, scalar,
                                   should_record_summaries, text, write)
from tapeflow.summary._trace import trace_export, trace_off, trace_on
from tapeflow.summary._writer import FileWriter, NoopSummaryWriter, SummaryWriter


def create_file_writer(logdir: Any, max_queue: Optional[int] = None,
                       flush_millis: Optional[int] = None, filename_suffix: Optional[str] = None,
                       name: Optional[str] = None, experimental_trackable: bool = False,
                       experimental_mesh: Any = None) -> SummaryWriter:
    """A writer of a new event file in `logdir` (created if missing): flushed every
    `max_queue` (10) events, every `flush_millis` (120000) ms, and on `flush`/`close`;
    the file name ends in `filename_suffix` ('.v2')."""
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    return FileWriter(logdir, 10 if max_queue is None else max_queue,
                      120_000 if flush_millis is None else flush_millis,
                      ".v2" if filename_suffix is None else filename_suffix, name)


def create_noop_writer() -> SummaryWriter:
    """A writer that does nothing (a placeholder where a writer is expected)."""
    return NoopSummaryWriter()


__all__ = ["SummaryWriter", "audio", "create_file_writer", "create_noop_writer",
           "experimental", "flush", "histogram", "image", "record_if", "scalar",
           "should_record_summaries", "text", "trace_export", "trace_off", "trace_on", "write"]
