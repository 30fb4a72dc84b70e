"""`tf.strings`: ops on `tf.string` tensors (see `tapeflow/ops/string_ops.py`)."""

from tapeflow.framework.exports import populate as _populate
import tapeflow.ops.string_ops  # noqa: F401 - declares the names

_populate(globals(), "strings")
