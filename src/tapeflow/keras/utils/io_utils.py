"""Where Keras's messages go: stdout while interactive logging is on (the default), the
Python `logging` logger 'absl' at INFO level when it is off, as Keras 3's `io_utils`."""

from __future__ import annotations

import logging
import sys

_INTERACTIVE = [True]


def enable_interactive_logging() -> None:
    """Sends Keras's messages (fit's progress bar, callbacks' notes) to stdout."""
    _INTERACTIVE[0] = True


def disable_interactive_logging() -> None:
    """Sends Keras's messages to `logging` (logger 'absl', INFO) instead of stdout, as for a
    training job on a server."""
    _INTERACTIVE[0] = False


def is_interactive_logging_enabled() -> bool:
    """Whether Keras's messages go to stdout (True by default)."""
    return _INTERACTIVE[0]


def print_msg(message: str, line_break: bool = True) -> None:
    """Writes `message` to stdout and flushes, or logs it when interactive logging is off
    (as keras.utils.io_utils.print_msg)."""
    message = str(message)
    if not _INTERACTIVE[0]:
        logging.getLogger("absl").info(message)
        return
    sys.stdout.write(f"{message}\n" if line_break else message)
    sys.stdout.flush()


__all__ = ["enable_interactive_logging", "disable_interactive_logging",
           "is_interactive_logging_enabled", "print_msg"]
