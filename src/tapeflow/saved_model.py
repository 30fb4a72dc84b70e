"""`tf.saved_model`: TensorFlow's SavedModel directory names and tags.

tapeflow cannot write or read SavedModels: a SavedModel holds TensorFlow GraphDefs (its ops,
its attributes) and a TensorFlow checkpoint, and tapeflow's graphs are its own. `save` and
`load` say so and name what works instead; they touch no file. The constants and
`contains_saved_model` are TensorFlow's.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from tapeflow.framework.errors import UnimplementedError

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
GPU = "gpu"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
SERVING = "serve"
TPU = "tpu"
TRAINING = "train"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"

_INSTEAD = ("Keras models save and load with model.save('model.keras') and "
            "tf.keras.models.load_model, variables with tf.train.Checkpoint.")


def contains_saved_model(export_dir: Any) -> bool:
    """Whether `export_dir` holds a SavedModel (a saved_model.pb or saved_model.pbtxt)."""
    directory = os.fspath(export_dir)
    return any(os.path.exists(os.path.join(directory, name))
               for name in (SAVED_MODEL_FILENAME_PBTXT, SAVED_MODEL_FILENAME_PB))


def save(obj: Any, export_dir: str, signatures: Any = None, options: Any = None) -> None:
    """Refuses with UnimplementedError: tapeflow cannot write TensorFlow's SavedModel format
    (TensorFlow GraphDefs). Nothing is written."""
    raise UnimplementedError(
        f"tf.saved_model.save: tapeflow cannot write TensorFlow's SavedModel format (its "
        f"functions are TensorFlow GraphDefs); nothing was written to {export_dir!r}. "
        + _INSTEAD)


def load(export_dir: Any, tags: Optional[Any] = None, options: Any = None) -> Any:
    """Refuses with UnimplementedError (OSError, as TensorFlow, where `export_dir` holds no
    SavedModel): tapeflow cannot run TensorFlow's GraphDefs."""
    if not contains_saved_model(export_dir):
        raise OSError(f"SavedModel file does not exist at: {os.fspath(export_dir)}/"
                      f"{{{SAVED_MODEL_FILENAME_PBTXT}|{SAVED_MODEL_FILENAME_PB}}}")
    raise UnimplementedError(
        f"tf.saved_model.load: tapeflow cannot run the TensorFlow GraphDefs of the "
        f"SavedModel at {os.fspath(export_dir)!r}. " + _INSTEAD)
