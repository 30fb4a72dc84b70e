"""Records what Keras 3.15.1 (TF 2.21 backend) answers for `keras.utils.bounding_boxes`,
`keras.utils.audio_dataset_from_directory` and `keras.regularizers.OrthogonalRegularizer` into
tests/keras/fixtures/bbox_audio.json; tests/keras/test_bounding_boxes.py,
test_audio_dataset.py and test_orthogonal_regularizer.py run the same steps with
`keras` = tapeflow.keras and compare (run with a Python that has Keras):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_bbox_audio.py

Each group of STEPS runs in order in one namespace holding `keras`, `np`, `root` (a folder of
small WAV files `make_wavs` writes with the standard library's `wave`, the same bytes in both
runs), `tf` and `describe` (a dataset's element_spec, class_names and elements). A ("run", code)
step is executed; an (id, expression) step is evaluated and its answer recorded as `answer()`
writes it (tensors and arrays as {dtype, shape, values}, ragged tensors as {dtype, ragged
values}, containers item by item, an exception as ["!", class name, text]), with what it
printed. The WAV folder's path is written as <root>.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import wave
from typing import Any

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "bbox_audio.json")

FORMATS = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh"]

BBOX = [
    ("run", "bb = keras.utils.bounding_boxes; F = " + repr(FORMATS) + "\n"
            "A = np.array([[10., 20., 30., 60.], [50., 40., 75., 80.], [0., 0., 7., 3.]], "
            "'float32')\n"
            "R = A / np.array([300., 200., 300., 200.], 'float32')\n"
            "A3 = np.stack([A, A * 0.5 + 3.25])\n"
            "I = np.array([[10, 20, 30, 40], [50, 60, 70, 80]])\n"
            "def src(f): return R if f.startswith('rel_') else A\n"),
    ("bbox.convert_every_pair", "{s + '>' + t: bb.convert_format(src(s), s, t, height=200, "
                                "width=300) for s in F for t in F}"),
    ("bbox.convert_batched", "[bb.convert_format(A3, 'xyxy', t, height=200, width=300) "
                             "for t in F]"),
    ("bbox.convert_int64_input", "bb.convert_format(I, 'xyxy', 'center_xywh')"),
    ("bbox.convert_list_input", "bb.convert_format([[1, 2, 5, 9]], 'xywh', 'yxyx')"),
    ("bbox.convert_same_format", "bb.convert_format(I, 'xyxy', 'xyxy')"),
    ("bbox.convert_float64", "bb.convert_format(A, 'xyxy', 'rel_center_xywh', height=200, "
                             "width=300, dtype='float64')"),
    ("bbox.convert_float16", "bb.convert_format(A, 'center_yxhw', 'xywh', dtype='float16')"),
    ("bbox.convert_int32_corners", "bb.convert_format(I, 'xyxy', 'yxyx', dtype='int32')"),
    ("bbox.convert_int32_center", "bb.convert_format(I, 'xyxy', 'center_xywh', "
                                  "dtype='int32')"),
    ("bbox.convert_case", "bb.convert_format(A, 'XYXY', 'Center_YXHW')"),
    ("bbox.convert_tensor_size", "bb.convert_format(A, 'xyxy', 'rel_xywh', "
                                 "height=keras.ops.convert_to_tensor(200), "
                                 "width=keras.ops.convert_to_tensor(300.))"),
    ("run", "D = {'boxes': A, 'labels': np.array([1, 2, 3])}; D2 = bb.convert_format(D, "
            "'xyxy', 'xywh')"),
    ("bbox.convert_dict", "D2"),
    ("bbox.convert_dict_in_place", "D2 is D"),
    ("bbox.convert_last_dim", "bb.convert_format(np.zeros((2, 3)), 'xyxy', 'xywh')"),
    ("bbox.convert_bad_format", "bb.convert_format(A, 'xyxy', 'cxcywh')"),
    ("bbox.convert_rel_needs_size", "bb.convert_format(A, 'xyxy', 'rel_xyxy', height=10)"),
    ("run", "C = {'boxes': np.array([[-10., -20., 150., 160.], [50., 40., 70., 80.], "
            "[130., 10., 140., 20.], [10., 110., 20., 120.]], 'float32'), "
            "'labels': np.array([0, 1, 2, 3], 'int32')}"),
    ("bbox.clip", "bb.clip_to_image_size(C, height=100, width=120)"),
    ("bbox.clip_input_kept", "C"),
    ("bbox.clip_batched", "bb.clip_to_image_size({'boxes': np.stack([C['boxes'], "
                          "C['boxes'] - 60]), 'labels': np.stack([C['labels'], "
                          "C['labels']])}, height=100, width=120)"),
    ("bbox.clip_no_labels", "bb.clip_to_image_size({'boxes': C['boxes']}, height=100, "
                            "width=120)"),
    ("bbox.clip_rel", "bb.clip_to_image_size({'boxes': np.array([[-0.5, 0.2, 0.5, 1.5], "
                      "[1.2, 0.1, 1.5, 0.3]], 'float32'), 'labels': np.array([4, 5])}, "
                      "bounding_box_format='rel_xyxy')"),
    ("bbox.clip_int64", "bb.clip_to_image_size({'boxes': I, 'labels': np.array([7, 8])}, "
                        "height=50, width=60)"),
    ("bbox.clip_extra_keys", "bb.clip_to_image_size({'boxes': C['boxes'], 'labels': "
                             "C['labels'], 'scores': 1.5}, height=100, width=120)"),
    ("bbox.clip_needs_size", "bb.clip_to_image_size(C, height=100)"),
    ("bbox.clip_format", "bb.clip_to_image_size(C, 100, 120, bounding_box_format='xywh')"),
    ("bbox.crop", "bb.crop(np.array([[10., 20., 50., 60.], [70., 80., 100., 120.]], "
                  "'float32'), top=10, left=20, height=40, width=30)"),
    ("bbox.crop_int64", "bb.crop(np.array([[10, 20, 50, 60], [70, 80, 100, 120]]), top=10, "
                        "left=20, height=40, width=30)"),
    ("bbox.crop_batched", "bb.crop(A3, 5, 5, 30, 40)"),
    ("bbox.crop_format", "bb.crop(A, 1, 1, 5, 5, bounding_box_format='yxyx')"),
    ("bbox.pad", "bb.pad(A, top=3, left=4)"),
    ("bbox.pad_int64", "bb.pad(I, 3, 4, height=9, width=9)"),
    ("bbox.pad_batched_float", "bb.pad(A3, 2.5, 0.5)"),
    ("bbox.pad_format", "bb.pad(A, 1, 1, bounding_box_format='center_xywh')"),
    ("run", "def v(*x): return keras.ops.convert_to_tensor(np.array(x, 'float32'))\n"
            "AB = np.stack([A, A[::-1]])\n"),
    ("bbox.affine", "bb.affine_transform(AB, v(30., -15.), v(0.1, 0.), v(-0.05, 0.2), "
                    "v(1.2, 0.8), v(5., 0.), v(0., -10.), 100, 150)"),
    ("bbox.affine_centre", "bb.affine_transform(AB, v(90., 45.), v(0., 0.), v(0., 0.), "
                           "v(1., 1.), v(0., 0.), v(0., 0.), 64, 64, center_x=0.25, "
                           "center_y=v(0.5, 0.75))"),
    ("bbox.affine_identity", "bb.affine_transform(AB, v(0., 0.), v(0., 0.), v(0., 0.), "
                             "v(1., 1.), v(0., 0.), v(0., 0.), 100, 150)"),
    ("bbox.affine_format", "bb.affine_transform(AB, v(0.), v(0.), v(0.), v(1.), v(0.), "
                           "v(0.), 10, 10, bounding_box_format='rel_xyxy')"),
    ("run", "AN = np.array([[0., 0., 10., 10.], [5., 5., 25., 15.], [30., 40., 60., 100.]], "
            "'float32')\n"
            "BX = np.array([[1., 2., 11., 13.], [4., 6., 26., 14.], [28., 45., 66., 90.]], "
            "'float32')\n"
            "BX3 = np.stack([BX, BX + 2.])\n"),
    ("bbox.encode", "bb.encode_box_to_deltas(AN, BX, 'xyxy', 'xyxy')"),
    ("bbox.encode_batched_variance", "bb.encode_box_to_deltas(AN, BX3, 'xyxy', 'xyxy', "
                                     "variance=[0.1, 0.1, 0.2, 0.2])"),
    ("bbox.encode_center_xywh", "bb.encode_box_to_deltas(AN, BX, 'xyxy', 'xywh', "
                                "encoding_format='center_xywh')"),
    ("bbox.encode_rel", "bb.encode_box_to_deltas(AN / 100., BX / 100., 'rel_xyxy', "
                        "'rel_xyxy', image_shape=(200, 300, 3))"),
    ("bbox.encode_variance_length", "bb.encode_box_to_deltas(AN, BX, 'xyxy', 'xyxy', "
                                    "variance=[0.1, 0.1, 0.2])"),
    ("bbox.encode_format", "bb.encode_box_to_deltas(AN, BX, 'xyxy', 'xyxy', "
                           "encoding_format='xyxy')"),
    ("run", "DL = bb.encode_box_to_deltas(AN, BX3, 'xyxy', 'xyxy', "
            "variance=[0.1, 0.1, 0.2, 0.2])"),
    ("bbox.decode_round_trip", "bb.decode_deltas_to_boxes(AN, DL, 'xyxy', 'xyxy', "
                               "variance=[0.1, 0.1, 0.2, 0.2])"),
    ("bbox.decode", "bb.decode_deltas_to_boxes(AN, np.array([[0.1, -0.2, 0.3, 0.05], "
                    "[0., 0., 0., 0.], [-0.5, 0.25, -0.1, 0.2]], 'float32'), 'xyxy', "
                    "'center_xywh', encoded_format='center_xywh')"),
    ("bbox.decode_levels", "bb.decode_deltas_to_boxes({'p3': AN, 'p4': AN[:2]}, "
                           "{'p3': DL[0], 'p4': DL[1, :2]}, 'xyxy', 'rel_yxyx', "
                           "image_shape=(200, 300, 3))"),
    ("bbox.decode_variance_length", "bb.decode_deltas_to_boxes(AN, DL, 'xyxy', 'xyxy', "
                                    "variance=[1., 2.])"),
    ("bbox.decode_format", "bb.decode_deltas_to_boxes(AN, DL, 'xyxy', 'xyxy', "
                           "encoded_format='yxyx')"),
    ("run", "B1 = np.array([[0., 0., 10., 10.], [5., 5., 15., 15.], [20., 20., 30., 40.]], "
            "'float32')\n"
            "B2 = np.array([[0., 0., 10., 10.], [10., 10., 20., 20.], [-1., -1., -1., -1.], "
            "[2., 3., 12., 11.]], 'float32')\n"
            "B1b = np.stack([B1, B1 + 1.]); B2b = np.stack([B2, B2[::-1]])\n"),
    ("bbox.iou", "bb.compute_iou(B1, B2, 'xyxy')"),
    ("bbox.iou_batched", "bb.compute_iou(B1b, B2b, 'yxyx')"),
    ("bbox.iou_batched_unbatched", "bb.compute_iou(B1b, B2, 'xyxy')"),
    ("bbox.iou_unbatched_batched", "bb.compute_iou(B1, B2b, 'xywh')"),
    ("bbox.iou_masking", "bb.compute_iou(B1, B2, 'xyxy', use_masking=True)"),
    ("bbox.iou_masking_batched", "bb.compute_iou(B1b, B2b, 'xyxy', use_masking=True, "
                                 "mask_val=-7)"),
    ("bbox.iou_rel", "bb.compute_iou(B1 / 50., B2 / 50., 'rel_xyxy', image_shape=(50, 100, "
                     "3))"),
    ("bbox.iou_center", "bb.compute_iou(B1, B2, 'center_xywh')"),
    ("bbox.iou_rel_needs_shape", "bb.compute_iou(B1, B2, 'rel_xyxy')"),
    ("bbox.iou_rank1", "bb.compute_iou(B1[0], B2, 'xyxy')"),
    ("bbox.iou_rank4", "bb.compute_iou(B1, B2b[None], 'xyxy')"),
    ("bbox.ciou", "bb.compute_ciou(B1, B2[:3], 'xyxy')"),
    ("bbox.ciou_batched", "bb.compute_ciou(B1b, B2b[:, 1:], 'xywh')"),
    ("bbox.ciou_broadcast", "bb.compute_ciou(B1, B2[3:], 'center_yxhw')"),
    ("bbox.ciou_rel", "bb.compute_ciou(B1, B1, 'rel_xyxy', image_shape=(5, 5, 3))"),
    ("bbox.in_dataset_map", "list(tf.data.Dataset.from_tensor_slices({'boxes': A3 * 2., "
                            "'labels': np.array([[1, 2, 3], [4, 5, 6]], 'int32')}).map("
                            "lambda x: bb.clip_to_image_size(bb.convert_format(x, 'xyxy', "
                            "'rel_xyxy', height=100, width=60), "
                            "bounding_box_format='rel_xyxy')))"),
    ("bbox.in_function", "tf.function(lambda a, b: (bb.compute_iou(a, b, 'xyxy'), "
                         "bb.encode_box_to_deltas(b, a, 'xyxy', 'center_xywh')))(B1b, "
                         "B2[:3])"),
]

REGULARIZER = [
    ("run", "R = keras.regularizers; O = R.OrthogonalRegularizer\n"
            "X = np.arange(12, dtype='float32').reshape(3, 4) - 5.\n"
            "X[1, 2] = 0.5\n"
            "XT = keras.ops.convert_to_tensor(X)\n"),
    ("orth.rows", "O()(XT)"),
    ("orth.factor", "O(factor=0.3)(XT)"),
    ("orth.columns", "O(factor=0.2, mode='columns')(XT)"),
    ("orth.int_factor_config", "O(factor=2).get_config()"),
    ("orth.int_factor_call", "O(factor=2)(XT)"),
    ("orth.numpy_rows", "O(0.5)(X)"),
    ("orth.numpy_columns", "O(0.5, 'columns')(X)"),
    ("orth.variable", "O(0.5, 'columns')(keras.Variable(X))"),
    ("orth.float64_tensor", "O(0.5)(keras.ops.convert_to_tensor(X, 'float64'))"),
    ("orth.zero_row", "O(1.)(keras.ops.convert_to_tensor(np.array([[0., 0.], [1., 2.], "
                      "[3., -1.]], 'float32')))"),
    ("orth.orthogonal", "O(1.)(keras.ops.eye(3))"),
    ("orth.one_row", "O(1.)(keras.ops.ones((1, 3)))"),
    ("orth.config", "[O().get_config(), O(0.3, 'columns').get_config()]"),
    ("orth.serialize", "R.serialize(O(0.25, 'columns'))"),
    ("orth.deserialize", "R.deserialize(R.serialize(O(0.5, 'columns'))).get_config()"),
    ("orth.get_by_name", "[type(R.get(n)).__name__ for n in ('OrthogonalRegularizer', "
                         "'orthogonal_regularizer')]"),
    ("orth.get_dict", "R.get({'class_name': 'OrthogonalRegularizer', 'config': "
                      "{'factor': 0.1, 'mode': 'rows'}}).get_config()"),
    ("orth.alias", "R.orthogonal_regularizer is R.OrthogonalRegularizer"),
    ("orth.bad_factor", "O(factor=-1)"),
    ("orth.nan_factor", "O(factor=float('nan'))"),
    ("orth.string_factor", "O(factor='a')"),
    ("orth.bad_mode", "O(mode='diagonal')"),
    ("orth.rank3", "O()(keras.ops.zeros((2, 2, 2)))"),
    ("run", "layer = keras.layers.Dense(3, kernel_regularizer='orthogonal_regularizer', "
            "kernel_initializer=keras.initializers.Constant(np.arange(12.).reshape(4, 3)))\n"
            "layer.build((None, 4))\n"),
    ("orth.dense_losses", "layer.losses"),
    ("orth.dense_config", "layer.get_config()['kernel_regularizer']"),
]

AUDIO = [
    ("run", "ad = keras.utils.audio_dataset_from_directory; d = os.path.join(root, 'main')\n"
            "d2 = os.path.join(root, 'two'); empty = os.path.join(root, 'empty')\n"),
    ("audio.default", "describe(ad(d, batch_size=2, seed=1337))"),
    ("audio.no_shuffle_categorical", "describe(ad(d, label_mode='categorical', batch_size=3, "
                                     "shuffle=False))"),
    ("audio.binary", "describe(ad(d2, label_mode='binary', batch_size=2, seed=5))"),
    ("audio.class_names", "describe(ad(d, class_names=['class_c', 'class_a'], batch_size=4, "
                          "shuffle=False))"),
    ("audio.no_labels", "describe(ad(d, labels=None, batch_size=3, shuffle=False))"),
    ("audio.label_mode_none", "describe(ad(d, label_mode=None, batch_size=8, seed=3))"),
    ("audio.label_list", "describe(ad(d2, labels=[3, 1, 3, 0], batch_size=2, "
                         "shuffle=False))"),
    ("audio.sequence_length", "describe(ad(d, output_sequence_length=6, batch_size=4, "
                              "shuffle=False))"),
    ("audio.ragged", "describe(ad(d, ragged=True, batch_size=3, shuffle=False))"),
    ("audio.unbatched", "describe(ad(d, batch_size=None, seed=11))"),
    ("audio.unbatched_ragged", "describe(ad(d2, batch_size=None, ragged=True, "
                               "shuffle=False))"),
    ("audio.training", "describe(ad(d, validation_split=0.3, subset='training', seed=7, "
                       "batch_size=2))"),
    ("audio.validation", "describe(ad(d, validation_split=0.3, subset='validation', seed=7, "
                         "batch_size=2))"),
    ("audio.both", "[describe(x) for x in ad(d, validation_split=0.4, subset='both', "
                   "seed=21, batch_size=2, label_mode='categorical')]"),
    ("audio.follow_links", "describe(ad(d, follow_links=True, batch_size=16, "
                           "shuffle=False))"),
    ("audio.quiet", "describe(ad(d, verbose=False, batch_size=16, shuffle=False))"),
    ("audio.labels_not_list", "ad(d, labels='folders')"),
    ("audio.labels_not_list_class_names", "ad(d, labels='folders', class_names=['a'])"),
    ("audio.labels_with_class_names", "ad(d2, labels=[0, 1, 0, 1], class_names=['a'])"),
    ("audio.bad_label_mode", "ad(d, label_mode='sparse')"),
    ("audio.ragged_and_length", "ad(d, ragged=True, output_sequence_length=5)"),
    ("audio.sampling_rate_float", "ad(d, sampling_rate=1.5)"),
    ("audio.sampling_rate_zero", "ad(d, sampling_rate=0)"),
    ("audio.binary_three_classes", "ad(d, label_mode='binary')"),
    ("audio.split_without_subset", "ad(d, validation_split=0.2)"),
    ("audio.subset_without_split", "ad(d, subset='training')"),
    ("audio.split_without_seed", "ad(d, validation_split=0.2, subset='training')"),
    ("audio.bad_subset", "ad(d, validation_split=0.2, subset='test', seed=1)"),
    ("audio.class_names_mismatch", "ad(d, class_names=['class_a', 'nope'])"),
    ("audio.label_count", "ad(d, labels=[0, 1])"),
    ("audio.empty", "ad(empty)"),
    ("audio.empty_training", "ad(d2, validation_split=0.1, subset='both', seed=1)"),
]

# The step whose message is tapeflow's own: Keras raises ImportError (tensorflow_io missing
# in the recording environment); tapeflow has no resampler and raises ImportError too.
CLASS_ONLY = {"audio.sampling_rate_int"}
AUDIO.append(("audio.sampling_rate_int", "ad(d, sampling_rate=16000)"))

STEPS = BBOX + REGULARIZER + AUDIO


def _wav_bytes(samples: Any, rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return buffer.getvalue()


# folder/file -> (frames, channels); the values come from RandomState(index), stable
# across NumPy versions.
WAVS = {
    "main/class_a/a0.wav": (5, 1), "main/class_a/a1.wav": (8, 1),
    "main/class_a/a2.wav": (3, 1), "main/class_b/b0.wav": (7, 1),
    "main/class_b/b1.WAV": (4, 1), "main/class_b/deeper/b2.wav": (6, 1),
    "main/class_c/c0.wav": (9, 1), "main/class_c/c1.wav": (2, 1),
    "two/no/n0.wav": (4, 2), "two/no/n1.wav": (6, 2), "two/yes/y0.wav": (3, 2),
    "two/yes/y1.wav": (5, 2),
}


def make_wavs(root: str) -> None:
    """The WAV folders of the audio steps under `root` (plus a text file to skip, a symlink
    to a class folder and an empty folder)."""
    import numpy as np
    for index, (name, (frames, channels)) in enumerate(sorted(WAVS.items())):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        samples = np.random.RandomState(index).randint(-32768, 32768, size=(frames, channels))
        with open(path, "wb") as f:
            f.write(_wav_bytes(samples, 16000))
    with open(os.path.join(root, "main", "class_a", "notes.txt"), "w") as f:
        f.write("not audio")
    os.symlink(os.path.join(root, "main", "class_a"),
               os.path.join(root, "main", "class_c", "linked"))
    os.makedirs(os.path.join(root, "empty", "class_x"))


def answer(value: Any, root: str = "") -> Any:
    """A JSON-able description of a result, the same for Keras's and tapeflow's objects."""
    import numpy as np
    if type(value).__name__ == "RaggedTensor":
        return {"ragged": str(value.dtype.name), "shape": list(value.shape.as_list()),
                "values": value.to_list()}
    if hasattr(value, "numpy") and hasattr(value, "dtype") or isinstance(value, np.ndarray):
        array = np.asarray(value)
        return {"dtype": str(array.dtype), "shape": list(array.shape),
                "values": array.tolist()}
    if isinstance(value, (np.generic,)):
        return {"dtype": str(value.dtype), "shape": [], "values": value.tolist()}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [answer(v, root) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[answer(k, root), answer(v, root)] for k, v in value.items()]}
    if isinstance(value, str):
        return value.replace(root, "<root>") if root else value
    if isinstance(value, (int, float, bool, type(None))):
        return value
    return repr(value)


def describe(ds: Any) -> dict:
    """A dataset's element_spec, class_names and elements."""
    return {"spec": repr(ds.element_spec), "class_names": ds.class_names, "elements": list(ds)}


def run_steps(keras: Any, tf: Any, steps: Any = None) -> dict:
    """{id: [answer, printed text]} for `steps` (all STEPS by default) with `keras` and `tf`
    as the libraries, in a fresh folder of WAV files."""
    import numpy as np
    answers = {}
    with tempfile.TemporaryDirectory() as root:
        make_wavs(root)
        scope = {"keras": keras, "tf": tf, "np": np, "os": os, "root": root,
                 "describe": describe}
        for step_id, code in STEPS if steps is None else steps:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                if step_id == "run":
                    exec(code, scope)  # noqa: S102 - this file's literals
                    continue
                try:
                    result = answer(eval(code, scope), root)  # noqa: S307
                except Exception as e:  # the error is the answer
                    text = "" if step_id in CLASS_ONLY else str(e).replace(root, "<root>")
                    result = ["!", type(e).__name__, text]
            answers[step_id] = [result, printed.getvalue().replace(root, "<root>")]
    return answers


def assert_same(expected: Any, got: Any, rtol: float = 0.0, where: str = "") -> None:
    """`got` is `expected` (answers as JSON reads them back): the same structure, dtypes,
    shapes, texts and values; float values within `rtol` (relative, 0 for exact)."""
    import numpy as np
    if isinstance(expected, dict) and "values" in expected and isinstance(got, dict):
        kind = "dtype" if "dtype" in expected else "ragged"
        assert (got.get(kind), got.get("shape")) == (expected[kind], expected["shape"]), where
        if "float" in expected[kind] and kind == "dtype":  # NaN matches NaN
            np.testing.assert_allclose(np.asarray(got["values"], "float64"),
                                       np.asarray(expected["values"], "float64"),
                                       rtol=rtol, atol=1e-8 if rtol else 0, err_msg=where)
        else:
            assert got["values"] == expected["values"], where
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected), where
        for key in expected:
            assert_same(expected[key], got[key], rtol, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (e, g) in enumerate(zip(expected, got)):
            assert_same(e, g, rtol, f"{where}[{i}]")
    else:
        assert got == expected, where


def main() -> None:
    import keras
    import tensorflow as tf
    with open(OUT, "w") as f:
        json.dump(run_steps(keras, tf), f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(STEPS)} steps -> {OUT}")


if __name__ == "__main__":
    main()
