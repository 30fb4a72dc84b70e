"""`tf.audio`: decode and encode 16-bit PCM WAV files (`tapeflow.ops.audio_ops`)."""

from tapeflow.ops import audio_ops as _audio_ops  # noqa: F401 - its ops declare their names
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "audio")
