"""`tf.sparse`: `SparseTensor` and the ops on it (`tapeflow.ops.sparse_ops`)."""

import tapeflow.ops.sparse_ops  # noqa: F401 - the ops declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "sparse")
