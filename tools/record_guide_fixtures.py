"""Records what TensorFlow 2.21 prints for the code cells of four of its guides (run where
TensorFlow is installed, with a checkout of github.com/tensorflow/docs; CI does not run it):

    python tools/record_guide_fixtures.py /path/to/tensorflow-docs
    # writes tests/docs/fixtures/guides.json

The guides: "Tensors", "NumPy API on TensorFlow", "Ragged tensors" and "Working with sparse
tensors" (site/en/guide/*.ipynb). Each cell's program and printed text are stored, so the
test needs neither TensorFlow nor the notebooks. Two edits make the guides deterministic and
free of other libraries, the same for TF and tapeflow: the setup cell also seeds Keras and
TF (`tf.keras.utils.set_random_seed(0)`), and the Ragged guide's tf.Example cell builds its
four messages with `tf.train.Example(...)` rather than protobuf's text format. Cells whose
text cannot match are listed in UNCOMPARED with the reason; they still run.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tools.guide_cells import notebook_cells, run_cells  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "docs" / "fixtures" / \
    "guides.json"
# tf_numpy last: it turns on NumPy behaviour for good (TF cannot turn it off).
GUIDES = ("tensor", "ragged_tensor", "sparse_tensor", "tf_numpy")

SEED = "\ntf.keras.utils.set_random_seed(0)"

# The Ragged guide's four tf.Example messages, built with the message classes.
EXAMPLES_BUILT = '''
def build_tf_example(colors, lengths):
  return tf.train.Example(features=tf.train.Features(feature={
      "colors": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
      "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=lengths)),
  })).SerializeToString()

example_batch = [
  build_tf_example([b"red", b"blue"], [7]),
  build_tf_example([b"orange"], []),
  build_tf_example([b"black", b"yellow"], [1, 3]),
  build_tf_example([b"green"], [3, 5, 2])]
'''

# (guide, a piece of the cell's source) -> why its printed text is not compared.
UNCOMPARED = {
    ("tf_numpy", "tf.__version__"): "prints the library's version",
    ("tf_numpy", "np_sum.__class__"): "prints the tensor class's module path",
    ("tf_numpy", "class = "): "prints the tensor class's module path",
    ("tf_numpy", "timeit"): "prints timings",
    ("tf_numpy", "benchmark("): "prints timings",
    ("ragged_tensor", "keras_model.fit("): "prints the History object's class path",
    ("tensor", "tf.reshape(rank_3_tensor, [7, -1])"): "TF's message starts with its "
                                                      "internal function-node name",
    ("tensor", "tf.nn.softmax"): "float32 softmax: TF's oneDNN kernel rounds differently "
                                 "(1-2 ulp)",
}


def edited(guide: str, cells: list) -> list:
    """The cells with this recorder's two edits (module docstring)."""
    out = []
    for source in cells:
        if "import tensorflow as tf" in source:
            source += SEED
        if guide == "ragged_tensor" and "pbtext" in source:
            source = EXAMPLES_BUILT
        source = source.replace("import matplotlib.pyplot as plt", "plt = None")
        out.append(source)
    return out


def uncompared(guide: str, source: str) -> str:
    """Why this cell's text is not compared, or ''."""
    return next((why for (g, piece), why in UNCOMPARED.items()
                 if g == guide and piece in source), "")


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    docs = pathlib.Path(sys.argv[1]) / "site" / "en" / "guide"
    import tensorflow as tf
    fixture = {"tensorflow": tf.__version__, "guides": {}}
    for guide in GUIDES:
        cells = edited(guide, notebook_cells(str(docs / f"{guide}.ipynb")))
        tf.keras.backend.clear_session()   # each guide starts from fresh layer names
        printed = list(run_cells(cells, {"__name__": "__guide__"}))
        fixture["guides"][guide] = [
            {"program": source, "printed": text, "uncompared": uncompared(guide, source)}
            for source, text in zip(cells, printed)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
