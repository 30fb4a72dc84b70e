"""`tf.random`: seeding and random tensors."""

import types as _types

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

experimental = _types.ModuleType(f"{__name__}.experimental", "`tf.random.experimental`.")
_populate(vars(experimental), "random.experimental")
_populate(globals(), "random")
