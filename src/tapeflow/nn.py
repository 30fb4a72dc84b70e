"""`tf.nn`: activations, softmax, cross-entropy losses, normalization, dropout, embeddings."""

import types as _types

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

experimental = _types.ModuleType(f"{__name__}.experimental", "`tf.nn.experimental`.")
_populate(vars(experimental), "nn.experimental")
_populate(globals(), "nn")
