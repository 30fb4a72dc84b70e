"""`tf.ragged`: building and transforming RaggedTensors (see `tf.RaggedTensor`)."""

from tapeflow.framework.exports import populate as _populate
import tapeflow.ops.ragged_ops  # noqa: F401 - declares the names

_populate(globals(), "ragged")
