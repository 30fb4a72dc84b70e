"""`tf.bitwise`: bitwise and, or, xor, invert and shifts of integer tensors."""

import tapeflow.ops.bitwise_ops  # noqa: F401 - declares tf.bitwise's names
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "bitwise")
