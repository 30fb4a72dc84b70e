"""keras.utils beyond the progress bar: padding, one-hot, normalize, the (x, y, sample_weight)
helpers, dtypes, Config, interactive logging, the serialization registry with .keras files,
images without/with Pillow, image/text datasets from folders and get_file.

Keras 3's (TF 2.21) answers are recorded by tools/record_keras_utils.py into
fixtures/keras_utils.json; the few values written inline were checked in TF 2.21 / Keras 3.15.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tools.record_keras_utils import PAD_CASES, make_tree, run_datasets  # noqa: E402

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                      "keras_utils.json")))
u = keras.utils


# -- pad_sequences, to_categorical, normalize ------------------------------------------------

@pytest.mark.parametrize("name", sorted(PAD_CASES))
def test_pad_sequences_matches_keras(name):
    seqs, kwargs = PAD_CASES[name]
    out = u.pad_sequences(eval(seqs), **kwargs)
    assert str(out.dtype) == FIXTURE["pad"][name]["dtype"]
    np.testing.assert_array_equal(out, FIXTURE["pad"][name]["value"])


def test_pad_sequences_strings_and_errors_as_keras():
    out = u.pad_sequences([["a"], ["bb", "c"]], dtype=object, value="x")
    assert out.dtype == object and out.tolist() == [["x", "a"], ["bb", "c"]]
    out = u.pad_sequences([["a"], ["bb", "c"]], dtype="<U3", value="x")
    assert out.dtype == np.dtype("<U3") and out.tolist() == [["x", "a"], ["bb", "c"]]
    with pytest.raises(ValueError, match="`dtype` int32 is not compatible with `value`'s type"):
        u.pad_sequences([["a"]], value="x")
    with pytest.raises(ValueError, match="`sequences` must be iterable."):
        u.pad_sequences(5)
    with pytest.raises(ValueError, match="Found non-iterable: 1"):
        u.pad_sequences([1, 2])
    with pytest.raises(ValueError, match='Padding type "mid" not understood'):
        u.pad_sequences([[1]], padding="mid")


def test_to_categorical_dtypes_as_keras():
    # Keras 3: NumPy input gives float64 NumPy; a tensor gives a float32 tf.one_hot.
    out = u.to_categorical([[0], [2]])
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1]])
    t = u.to_categorical(tf.constant([[0], [1]]), 3)
    assert t.dtype == tf.float32 and t.shape == (2, 3)


def test_normalize_numpy_and_tensor_as_keras():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    out = u.normalize(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [[0.6, 0.8], [0, 0]])
    np.testing.assert_allclose(u.normalize(x, axis=0), [[1, 4 / 3], [0, 0]])
    # Keras quirk: a 1-D array comes back [1, n].
    out = u.normalize(np.array([3.0, 4.0], "float32"), order=1)
    assert out.shape == (1, 2) and out.dtype == np.float32
    t = u.normalize(tf.constant([[3.0, 4.0], [0.0, 0.0]]))
    assert t.dtype == tf.float32
    np.testing.assert_allclose(t.numpy(), [[0.6, 0.8], [0, 0]], rtol=1e-6)
    np.testing.assert_allclose(u.normalize(tf.constant([3.0, 4.0]), order=1).numpy(),
                               [3 / 7, 4 / 7], rtol=1e-6)


# -- small helpers ---------------------------------------------------------------------------

def test_pack_unpack_and_keras_tensors():
    assert u.pack_x_y_sample_weight(1) == 1
    assert u.pack_x_y_sample_weight((1, 2)) == ((1, 2),)
    assert u.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)
    assert u.unpack_x_y_sample_weight((1,)) == (1, None, None)
    assert u.unpack_x_y_sample_weight([1, 2, 3]) == (1, 2, 3)
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        u.unpack_x_y_sample_weight((1, 2, 3, 4))
    i, j = keras.Input((3,)), keras.Input((3,))
    out = keras.layers.Add()([keras.layers.Dense(2)(i), keras.layers.Dense(2)(j)]) + 1.0
    assert u.is_keras_tensor(i) and not u.is_keras_tensor(tf.constant(1.0))
    sources = u.get_source_inputs(out)
    assert len(sources) == 2 and sources[0] is i and sources[1] is j
    assert u.get_source_inputs(i)[0] is i


def test_standardize_dtype_as_keras():
    assert [u.standardize_dtype(d) for d in (tf.float16, np.int64, np.dtype("bool"), None,
                                             "int", float, int, "string")] == \
        ["float16", "int64", "bool", "float32", "int64", "float32", "int64", "string"]
    with pytest.raises(ValueError, match="Invalid dtype: float$"):
        u.standardize_dtype("float")


def test_config_as_keras():
    c = u.Config(a=1, b=2)
    c.c = 3
    assert (c.a, c["b"], c.as_dict(), c.to_json(), len(c), list(c), "a" in c) == \
        (1, 2, {"a": 1, "b": 2, "c": 3}, '{"a": 1, "b": 2, "c": 3}', 3, ["a", "b", "c"], True)
    c.freeze()
    assert c.frozen
    with pytest.raises(ValueError, match="Cannot mutate attribute"):
        c.a = 5
    with pytest.raises(AttributeError, match="Unknown attribute: 'zz'.$"):
        _ = c.zz
    with pytest.raises(AttributeError, match="Did you mean 'width'"):
        _ = u.Config(width=1).widht
    assert repr(c) == "<Config {'a': 1, 'b': 2, 'c': 3}>"
    c.unfreeze()
    c.update(d=4)
    assert c.d == 4


def test_clear_session_restarts_layer_names():
    keras.layers.Dense(1)
    u.clear_session()
    assert keras.layers.Dense(1).name == "dense"


def test_interactive_logging_switches_fit_output(capsys, caplog):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 2), "float32"), np.ones((4, 1), "float32")
    assert u.is_interactive_logging_enabled()
    u.disable_interactive_logging()
    try:
        assert not u.is_interactive_logging_enabled()
        with caplog.at_level(logging.INFO, logger="absl"):
            model.fit(x, y, epochs=1, verbose=2)
        assert capsys.readouterr().out == ""
        assert any("1/1 - " in r.getMessage() and "loss:" in r.getMessage()
                   for r in caplog.records)
    finally:
        u.enable_interactive_logging()
    model.fit(x, y, epochs=1, verbose=2)
    assert "loss:" in capsys.readouterr().out


# -- registry and .keras files ---------------------------------------------------------------

@u.register_keras_serializable(package="UtilsTest")
class Scale(keras.layers.Layer):
    """Multiplies by a fixed factor."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_registered_layer_saves_and_loads(tmp_path):
    assert u.get_registered_name(Scale) == "UtilsTest>Scale"
    assert u.get_registered_object("UtilsTest>Scale") is Scale
    assert u.get_custom_objects()["UtilsTest>Scale"] is Scale
    config = u.serialize_keras_object(Scale(3.0))
    assert config["registered_name"] == "UtilsTest>Scale"
    assert u.deserialize_keras_object(config).factor == 3.0
    model = keras.Sequential([keras.Input((2,)), Scale(3.0), keras.layers.Dense(1)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert isinstance(loaded.layers[0], Scale) and loaded.layers[0].factor == 3.0
    x = np.ones((1, 2), "float32")
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy())


def test_custom_object_scope_finds_unregistered_classes():
    class Plain(keras.layers.Layer):
        """Unregistered."""

    config = u.serialize_keras_object(Plain(name="p"))
    with pytest.raises(TypeError, match="Could not locate class 'Plain'"):
        u.deserialize_keras_object(config)
    with u.custom_object_scope({"Plain": Plain}):
        assert isinstance(u.deserialize_keras_object(config), Plain)
    with u.CustomObjectScope({"Plain": Plain}):
        assert u.get_registered_object("Plain") is Plain


# -- images ----------------------------------------------------------------------------------

def _without_pillow(monkeypatch):
    from tapeflow.keras.utils import image_utils
    monkeypatch.setattr(image_utils, "_pil", lambda: None)


def _png(pixels):
    return tf.io.encode_png(pixels).numpy()


def test_img_to_array_and_array_to_img(monkeypatch):
    _without_pillow(monkeypatch)
    x = np.arange(24, dtype="float32").reshape(2, 4, 3)
    img = u.array_to_img(x)
    assert img.size == (4, 2) and img.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(img), (x / 23 * 255).astype("uint8"))
    arr = u.img_to_array(img)
    assert arr.dtype == np.float32 and arr.shape == (2, 4, 3)
    assert u.img_to_array(u.array_to_img(x[..., :1]), data_format="channels_first").shape == \
        (1, 2, 4)
    with pytest.raises(ValueError, match="Expected image array to have rank 3"):
        u.array_to_img(x[0])
    with pytest.raises(ValueError, match="Unsupported channel number: 2"):
        u.array_to_img(x[..., :2])


def test_load_and_save_png_bmp_without_pillow(monkeypatch, tmp_path):
    _without_pillow(monkeypatch)
    rng = np.random.RandomState(0)
    pixels = rng.randint(0, 256, (5, 7, 3)).astype(np.uint8)
    for fmt in ("png", "bmp"):
        path = str(tmp_path / f"a.{fmt}")
        u.save_img(path, pixels, scale=False)
        np.testing.assert_array_equal(np.asarray(u.load_img(path)), pixels)
        gray = np.asarray(u.load_img(path, color_mode="grayscale"))
        c = pixels.astype(np.int64)   # Pillow's L = (19595 R + 38470 G + 7471 B + 2**15) >> 16
        np.testing.assert_array_equal(
            gray, (c[..., 0] * 19595 + c[..., 1] * 38470 + c[..., 2] * 7471 + 32768) >> 16)
    with pytest.raises(ImportError, match="Pillow"):
        u.load_img(io.BytesIO(b"\xff\xd8\xff\xe0" + bytes(40)))
    with pytest.raises(ImportError, match="Pillow"):
        u.load_img(str(tmp_path / "a.png"), target_size=(2, 2), interpolation="bilinear")
    with pytest.raises(ImportError, match="Pillow"):
        u.save_img(str(tmp_path / "a.jpg"), pixels)


def test_without_pillow_matches_pillow(monkeypatch):
    """Keras 3's load_img is Pillow's: tapeflow's own PNG/BMP path gives Pillow's pixels
    (modes, conversions, nearest resizing, keep_aspect_ratio crops)."""
    Image = pytest.importorskip("PIL.Image")
    from tapeflow.keras.utils import image_utils
    rng = np.random.RandomState(1)
    for mode, channels in (("RGB", 3), ("RGBA", 4), ("L", 1), ("LA", 2)):
        arr = rng.randint(0, 256, (7, 11, channels)).astype(np.uint8)
        img = Image.fromarray(arr[..., 0] if channels == 1 else arr, mode)
        for fmt in ("png", "bmp") if mode != "LA" else ("png",):
            buffer = io.BytesIO()
            img.save(buffer, format=fmt)
            for color_mode in ("grayscale", "rgb", "rgba"):
                for size, keep in ((None, False), ((5, 4), False), ((13, 6), True),
                                   ((3, 9), True)):
                    args = (color_mode, size, "nearest", keep)
                    want = np.asarray(u.load_img(io.BytesIO(buffer.getvalue()), *args))
                    with monkeypatch.context() as m:
                        m.setattr(image_utils, "_pil", lambda: None)
                        got = np.asarray(u.load_img(io.BytesIO(buffer.getvalue()), *args))
                    np.testing.assert_array_equal(got, want, err_msg=f"{mode} {fmt} {args}")


# -- datasets from folders -------------------------------------------------------------------

@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("tree"))
    make_tree(tf, root)
    return root


def test_directory_datasets_match_keras(tree):
    got = run_datasets(tf, keras, tree)
    want = FIXTURE["datasets"]
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name]["class_names"] == want[name]["class_names"], name
        assert got[name]["file_paths"] == want[name]["file_paths"], name
        assert got[name]["element_spec"] == want[name]["element_spec"], name
        assert len(got[name]["batches"]) == len(want[name]["batches"]), name
        for g, w in zip(got[name]["batches"], want[name]["batches"]):
            for gp, wp in zip(g, w):
                if wp and isinstance(np.asarray(wp).reshape(-1)[0], str):
                    assert gp == wp, name
                else:
                    np.testing.assert_allclose(gp, wp, rtol=1e-5, atol=1e-4, err_msg=name)


def test_directory_dataset_dtypes_and_errors(tree):
    ds = u.image_dataset_from_directory(os.path.join(tree, "images"), image_size=(2, 2),
                                        seed=1, verbose=False)
    x, y = next(iter(ds))
    assert x.dtype == tf.float32 and y.dtype == tf.int32 and x.shape[1:] == (2, 2, 3)
    with pytest.raises(ValueError, match="you must provide a `seed` argument"):
        u.image_dataset_from_directory(tree, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
        u.text_dataset_from_directory(os.path.join(tree, "texts"), class_names=["zzz"])
    with pytest.raises(ValueError, match='there must be exactly 2 class_names'):
        u.image_dataset_from_directory(os.path.join(tree, "images"), label_mode="binary",
                                       verbose=False)


def test_dataset_prints_what_it_found(tree, capsys):
    u.text_dataset_from_directory(os.path.join(tree, "texts"), seed=1, validation_split=0.25,
                                  subset="training")
    assert capsys.readouterr().out == ("Found 9 files belonging to 2 classes.\n"
                                       "Using 7 files for training.\n")


# -- get_file --------------------------------------------------------------------------------

def test_get_file_from_file_url_caches_and_checks_hash(tmp_path, capsys):
    import hashlib
    src = tmp_path / "data.txt"
    src.write_bytes(b"hello")
    cache = tmp_path / "cache"
    cache.mkdir()
    origin = "file://" + str(src)
    path = u.get_file(origin=origin, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "data.txt")
    assert open(path, "rb").read() == b"hello"
    assert "Downloading data from " + origin in capsys.readouterr().out
    src.write_bytes(b"changed")  # cached: not fetched again
    assert open(u.get_file(origin=origin, cache_dir=str(cache)), "rb").read() == b"hello"
    sha = hashlib.sha256(b"changed").hexdigest()   # a wrong cached hash re-downloads
    assert open(u.get_file(origin=origin, cache_dir=str(cache), file_hash=sha), "rb"
                ).read() == b"changed"
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        u.get_file("x.txt", origin=origin, cache_dir=str(cache), file_hash="0" * 64)
    with pytest.raises(ValueError, match="Paths are no longer accepted"):
        u.get_file("a/b.txt", origin=origin, cache_dir=str(cache))


def test_get_file_extracts_archives(tmp_path):
    import tarfile
    payload = tmp_path / "inner.txt"
    payload.write_text("inside")
    archive = tmp_path / "pack.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        t.add(payload, arcname="inner.txt")
    cache = tmp_path / "cache"
    cache.mkdir()
    out = u.get_file("pack.tar.gz", origin="file://" + str(archive), cache_dir=str(cache),
                     extract=True)
    assert out == str(cache / "datasets" / "pack_extracted")   # Keras's folder name
    assert open(os.path.join(out, "inner.txt")).read() == "inside"
