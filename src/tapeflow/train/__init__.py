"""`tf.train`: checkpoints (Checkpoint, CheckpointManager, latest_checkpoint, load_checkpoint,
list_variables, load_variable) and the tf.train.Example protos."""

from tapeflow.train.checkpoint import (Checkpoint, CheckpointLoadStatus,  # noqa: F401
                                       CheckpointManager, CheckpointReader,
                                       InitializationOnlyStatus, checkpoint_exists,
                                       latest_checkpoint, list_variables, load_checkpoint,
                                       load_variable)
from tapeflow.train.example import (BytesList, Example, Feature, FeatureList,  # noqa: F401
                                    FeatureLists, Features, FloatList, Int64List,
                                    SequenceExample)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "latest_checkpoint",
           "list_variables", "load_checkpoint", "load_variable", "BytesList", "Example",
           "Feature", "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List",
           "SequenceExample"]
