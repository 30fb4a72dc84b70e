"""A `.keras` file's 'assets/' members come from whoever wrote the file: loading extracts only
regular files under 'assets/' into a private temporary directory, skips names that would
leave it (with Keras's warning), refuses links, bombs, oversized or clashing members and a
directory where a layer expects its file (ValueError), and never writes outside it. An
unzipped model's 'assets' must hold no symbolic link."""

from __future__ import annotations

import os
import struct
import tempfile
import warnings
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras.saving import assets

keras = tf.keras
VOCAB = "assets/layers/string_lookup/vocabulary.txt"


def _model():
    keras.utils.clear_session()
    layer = keras.layers.StringLookup()
    layer.adapt(np.array(["a", "b", "b", "c"]))
    inp = keras.Input((1,), dtype="string")
    return keras.Model(inp, layer(inp))


def _rewrite(tmp_path, drop=(), extra=()) -> str:
    """A tapeflow file of `_model()` without the members `drop`, plus `extra`
    [(ZipInfo or name, bytes)]."""
    good = str(tmp_path / "good.keras")
    _model().save(good)
    path = str(tmp_path / "hostile.keras")
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            if info.filename not in drop:
                dst.writestr(info, src.read(info))
        for info, data in extra:
            dst.writestr(info, data)
    return path


def _outputs(model) -> list:
    return np.asarray(model(np.array([["b"], ["c"], ["z"]]))).ravel().tolist()


@pytest.mark.parametrize("name", ["assets/../evil.txt", "assets/layers/../../../evil.txt",
                                  "assets//evil.txt", "assets/./evil.txt",
                                  "assets/layers\\..\\..\\evil.txt", "assets/c:evil.txt"])
def test_traversal_names_are_skipped_and_nothing_is_written(name, tmp_path,
                                                             monkeypatch) -> None:
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    before = set(os.listdir(tempfile.gettempdir()))
    path = _rewrite(tmp_path, extra=[(name, b"pwned")])
    with pytest.warns(UserWarning, match="Skipping invalid path during archive extraction"):
        model = keras.saving.load_model(path)
    assert _outputs(model) == [1, 2, 0]   # the real vocabulary still loads
    assert os.listdir(workdir) == []
    assert not (tmp_path / "evil.txt").exists()
    assert "evil.txt" not in set(os.listdir(tempfile.gettempdir())) - before


def test_members_outside_assets_are_never_extracted(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = _rewrite(tmp_path, extra=[("../outside.txt", b"x"), ("/abs.txt", b"x")])
    assert _outputs(keras.saving.load_model(path)) == [1, 2, 0]
    assert not (tmp_path.parent / "outside.txt").exists()


def test_symbolic_link_member_is_not_followed(tmp_path) -> None:
    """A link where the vocabulary should be is skipped: the lookup's load fails (Keras's
    ValueError), and the target's contents never become tokens."""
    link = zipfile.ZipInfo(VOCAB)
    link.create_system = 3
    link.external_attr = 0o120777 << 16
    path = _rewrite(tmp_path, drop={VOCAB}, extra=[(link, b"/etc/passwd")])
    with pytest.warns(UserWarning, match="Skipping invalid path"), \
            pytest.raises(ValueError, match="could not be loaded") as e:
        keras.saving.load_model(path)
    assert "root:" not in str(e.value)


def _forge_size(path: str, member: str, size: int) -> None:
    """Sets the uncompressed size that `member`'s central directory entry declares."""
    data = bytearray(open(path, "rb").read())
    at = data.index(b"PK\x01\x02")   # the first central directory entry
    while data[at + 46:at + 46 + len(member)] != member.encode():
        at = data.index(b"PK\x01\x02", at + 4)
    data[at + 24:at + 28] = struct.pack("<I", size)
    open(path, "wb").write(bytes(data))


def test_huge_declared_size_is_refused_before_extraction(tmp_path) -> None:
    path = _rewrite(tmp_path)
    _forge_size(path, VOCAB, 0xFFFFFFF0)
    with pytest.raises(ValueError, match="decompression bomb"):
        keras.saving.load_model(path)


def test_assets_larger_than_the_bound_are_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(assets, "MAX_ASSET_BYTES", 64)
    path = _rewrite(tmp_path, extra=[("assets/padding.txt", b"x" * 100)])
    with pytest.raises(ValueError, match="Refusing to extract the archive's assets"):
        keras.saving.load_model(path)


def test_too_many_asset_members_are_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(assets, "MAX_ASSET_MEMBERS", 3)
    path = _rewrite(tmp_path, extra=[(f"assets/junk/{i}.txt", b"") for i in range(5)])
    with pytest.raises(ValueError, match="more than the 3 members"):
        keras.saving.load_model(path)


def test_directory_where_the_vocabulary_file_is_expected(tmp_path) -> None:
    path = _rewrite(tmp_path, drop={VOCAB}, extra=[(VOCAB + "/", b"")])
    with pytest.raises(ValueError, match="could not be loaded") as e:
        keras.saving.load_model(path)
    assert "Is a directory" in str(e.value)


def test_clashing_members_are_refused(tmp_path) -> None:
    """A second member of the same name, or a file under a name that is a file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # zipfile's own "Duplicate name", when writing
        path = _rewrite(tmp_path, extra=[(VOCAB, b"[UNK]\nzzz")])
    with pytest.raises(ValueError, match="Invalid asset member"):
        keras.saving.load_model(path)
    path = _rewrite(tmp_path, extra=[(VOCAB + "/inner.txt", b"x")])
    with pytest.raises(ValueError, match="Invalid asset member"):
        keras.saving.load_model(path)


def test_missing_asset_directory_fails_clearly(tmp_path) -> None:
    """A file with a 4th member but no vocabulary for the adapted lookup: Keras's
    "could not be loaded" ValueError, not an empty vocabulary."""
    path = _rewrite(tmp_path, drop={VOCAB}, extra=[("notes.txt", b"hi")])
    with pytest.raises(ValueError, match="could not be loaded"):
        keras.saving.load_model(path)


def test_tf_idf_weights_of_the_wrong_rank_are_refused(tmp_path) -> None:
    import h5py
    keras.utils.clear_session()
    layer = keras.layers.StringLookup(output_mode="tf_idf")
    layer.adapt(np.array([["a", "b"], ["b", "c"]]))
    inp = keras.Input((2,), dtype="string")
    good = str(tmp_path / "idf.keras")
    keras.Model(inp, layer(inp)).save(good)
    path = str(tmp_path / "bad_idf.keras")
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "model.weights.h5":
                h5 = tmp_path / "w.h5"
                h5.write_bytes(data)
                with h5py.File(h5, "a") as f:
                    del f["layers/string_lookup/vars/idf_weights"]
                    f["layers/string_lookup/vars/idf_weights"] = np.ones((2, 2), np.float32)
                data = h5.read_bytes()
            dst.writestr(info, data)
    with pytest.raises(ValueError, match="could not be loaded"):
        keras.saving.load_model(path)


def test_unzipped_model_with_a_linked_vocabulary_is_refused(tmp_path) -> None:
    dirpath = tmp_path / "model"
    _model().save(str(dirpath), zipped=False)
    vocab = dirpath / "assets" / "layers" / "string_lookup" / "vocabulary.txt"
    secret = tmp_path / "secret.txt"
    secret.write_text("[UNK]\nsecret")
    vocab.unlink()
    vocab.symlink_to(secret)
    with pytest.raises(ValueError, match="Not allowed"):
        keras.saving.load_model(str(dirpath))
