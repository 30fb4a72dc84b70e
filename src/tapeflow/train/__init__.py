"""`tf.train`: checkpoints (Checkpoint, CheckpointManager, latest_checkpoint)."""

from tapeflow.train.checkpoint import (Checkpoint, CheckpointLoadStatus,  # noqa: F401
                                       CheckpointManager, latest_checkpoint, list_variables)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "latest_checkpoint",
           "list_variables"]
