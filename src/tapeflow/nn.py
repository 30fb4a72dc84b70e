"""`tf.nn`: activations, softmax, cross-entropy losses, normalization, dropout, embeddings."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "nn")
