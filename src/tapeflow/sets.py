"""`tf.sets`: set operations along the last dimension (`tapeflow.ops.sets_ops`)."""

from tapeflow.ops import sets_ops as _sets_ops  # noqa: F401 - its ops declare their names
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "sets")
