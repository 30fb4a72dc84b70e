"""`keras.utils.image_dataset_from_directory`, `text_dataset_from_directory` and
`audio_dataset_from_directory`: tf.data Datasets of the files under a directory, one class per
subdirectory, as Keras 3 builds them (the same file order, the same NumPy shuffle of the paths
under `seed`, the same tf.data shuffle and split, so the batches are Keras's)."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from tapeflow.keras import backend
from tapeflow.keras.utils.io_utils import print_msg

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
AUDIO_FORMATS = (".wav",)
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                   "gaussian", "mitchellcubic")


def _valid_files(directory: str, follow_links: bool, formats: tuple) -> list:
    """(root, name) of the files with an allowed extension, folders and names sorted."""
    walk = sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0])
    return [(root, name) for root, _, files in walk for name in sorted(files)
            if name.lower().endswith(formats)]


def _class_dirs(directory: str, class_names: Optional[list]) -> list:
    subdirs = [d for d in sorted(os.listdir(directory))
               if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
    if class_names is None:
        return subdirs
    if not set(class_names).issubset(subdirs):
        raise ValueError("The `class_names` passed did not match the names of the "
                         f"subdirectories of the target directory. Expected: {subdirs} (or a "
                         f"subset of it), but received: class_names={class_names}")
    return list(class_names)


def index_directory(directory: str, labels: Any, formats: tuple, class_names: Any = None,
                    shuffle: bool = True, seed: Optional[int] = None,
                    follow_links: bool = False, verbose: bool = True) -> tuple:
    """(file_paths, labels, class_names) as Keras's `index_directory`: classes are the sorted
    subdirectories (or `class_names`), files sorted within each, paths (and labels) shuffled
    with `np.random.RandomState(seed)`."""
    if labels == "inferred":
        subdirs = _class_dirs(directory, class_names)
    else:
        if class_names is not None:
            if labels is None:
                raise ValueError("When `labels=None` (no labels), argument `class_names` "
                                 "cannot be specified.")
            raise ValueError("When argument `labels` is specified, argument `class_names` "
                             "cannot be specified (the `class_names` will be the sorted list "
                             "of labels).")
        subdirs = [""]
    filenames, found = [], []
    for index, subdir in enumerate(subdirs):
        folder = os.path.join(directory, subdir)
        dirname = os.path.basename(folder)
        for root, name in _valid_files(folder, follow_links, formats):
            filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, name),
                                                                   folder)))
            found.append(index)
    if labels == "inferred":
        labels, class_names = np.asarray(found, "int32"), subdirs
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError("Expected the lengths of `labels` to match the number of files "
                             f"in the target directory. len(labels) is {len(labels)} while we "
                             f"found {len(filenames)} files in directory {directory}.")
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if labels is None:
            print_msg(f"Found {len(filenames)} files.")
        else:
            print_msg(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def check_validation_split_arg(validation_split: Any, subset: Any, shuffle: bool,
                               seed: Any) -> None:
    """Keras's checks of `validation_split` / `subset` / `seed`."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", '
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide "
                         "a `seed` argument, to make sure that there is no overlap between the "
                         "training and validation subset.")


def split(samples: list, labels: Any, validation_split: Any, subset: Any) -> tuple:
    """The training part (all but the last `int(validation_split * n)`) or the validation
    part (those last) of the samples and labels."""
    if not validation_split:
        return samples, labels
    num_val = int(validation_split * len(samples))
    if subset == "training":
        print_msg(f"Using {len(samples) - num_val} files for training.")
        return samples[:-num_val], None if labels is None else labels[:-num_val]
    if subset == "validation":
        print_msg(f"Using {num_val} files for validation.")
        return samples[-num_val:], None if labels is None else labels[-num_val:]
    raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')


def _labels_dataset(labels: Any, label_mode: str, num_classes: int) -> Any:
    from tapeflow import data
    from tapeflow.ops import array_ops, math_ops
    ds = data.Dataset.from_tensor_slices(labels)
    if label_mode == "binary":
        return ds.map(lambda y: array_ops.expand_dims(math_ops.cast(y, "float32"), -1))
    if label_mode == "categorical":
        return ds.map(lambda y: array_ops.one_hot(y, num_classes))
    return ds


def _paths_dataset(paths: list, labels: Any, label_mode: Any, num_classes: int, load: Any,
                   shuffle: bool, buffer_size: Optional[int], seed: Any) -> Any:
    """(contents, label) per file (contents alone without labels), shuffled before loading
    as Keras."""
    from tapeflow import data
    ds = data.Dataset.from_tensor_slices(paths)
    if label_mode:
        ds = data.Dataset.zip((ds, _labels_dataset(labels, label_mode, num_classes)))
    if shuffle:
        ds = ds.shuffle(buffer_size=buffer_size or 1024, seed=seed)
    if label_mode:
        return ds.map(lambda x, y: (load(x), y))
    return ds.map(load)


def _check_labels(labels: Any, label_mode: Any, kind: str, class_names: Any) -> tuple:
    """Keras's checks of `labels`, `class_names` and `label_mode`, in its order; (labels,
    label_mode), both None where either is."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            the = "The " if kind == "audio" else ""  # Keras's audio message starts so
            raise ValueError(f"{the}`labels` argument should be a list/tuple of integer labels, "
                             f"of the same size as the number of {kind} files in the target "
                             "directory. If you wish to infer the labels from the subdirectory "
                             'names in the target directory, pass `labels="inferred"`. If you '
                             f"wish to get a dataset that only contains {_ONLY[kind]} (no "
                             f"labels), pass `labels=None`. Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')
    if labels is None or label_mode is None:
        return None, None
    return labels, label_mode


_ONLY = {"image": "images", "text": "text samples", "audio": "audio samples"}


def _batch_then_prefetch(ds: Any, batch_size: Any) -> Any:
    from tapeflow import data
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds.prefetch(data.AUTOTUNE)


def _build(kind: str, directory: str, labels: Any, label_mode: Any, class_names: Any,
           batch_size: Any, shuffle: bool, seed: Any, validation_split: Any, subset: Any,
           follow_links: bool, verbose: bool, formats: tuple, load: Any, empty: str,
           checks: Any = None, batch: Any = _batch_then_prefetch) -> Any:
    """The shared pipeline: check, index, split, build, batch; `class_names` (and for
    images `file_paths`) set on each dataset. `checks()` runs the kind's own argument checks
    after the label checks; `batch(ds, batch_size)` batches and prefetches."""
    labels, label_mode = _check_labels(labels, label_mode, kind, class_names)
    if checks is not None:
        checks()
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        directory, labels, formats=formats, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")
    buffer_size = batch_size * 8 if batch_size is not None else 1024
    num_classes = len(class_names) if class_names else 0
    subsets = ["training", "validation"] if subset == "both" else [subset]
    datasets = []
    for part in subsets:
        part_paths, part_labels = split(paths, labels, validation_split, part)
        if not part_paths:
            what = {"training": "training ", "validation": "validation "}.get(part, "") \
                if subset == "both" else ""
            raise ValueError(empty.format(what=what, directory=directory))
        ds = _paths_dataset(part_paths, part_labels, label_mode, num_classes, load,
                            shuffle and part != "validation" if subset == "both" else shuffle,
                            buffer_size, seed)
        ds = batch(ds, batch_size)
        ds.class_names = class_names
        if kind == "image":
            ds.file_paths = part_paths
        datasets.append(ds)
    return datasets if subset == "both" else datasets[0]


def image_dataset_from_directory(
        directory: str, labels: Any = "inferred", label_mode: Any = "int",
        class_names: Optional[list] = None, color_mode: str = "rgb", batch_size: Any = 32,
        image_size: Any = (256, 256), shuffle: bool = True, seed: Optional[int] = None,
        validation_split: Optional[float] = None, subset: Optional[str] = None,
        interpolation: str = "bilinear", follow_links: bool = False,
        crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
        data_format: Optional[str] = None, format: str = "tf",  # noqa: A002
        verbose: bool = True) -> Any:
    """A Dataset of (images, labels) batches from `directory/<class>/*.png|bmp|...`: images
    decoded (tf.io.decode_image: PNG and BMP in tapeflow), resized to `image_size` with
    `interpolation` to float32 [batch, height, width, channels]; labels int32
    ('int'), one-hot float32 ('categorical') or float32 [batch, 1] ('binary'). The dataset
    carries `class_names` and `file_paths`; `subset='both'` gives (training, validation)."""
    num_channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if num_channels is None:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or not len(image_size) == 2:
        raise ValueError("Invalid `image_size` value. Expected a tuple of 2 integers. "
                         f"Received: image_size={image_size}")
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    if format != "tf":
        raise ValueError('`format` should be either "tf" or "grain". Received: '
                         f"format={format}" if format != "grain" else
                         "format='grain' needs the grain package, which tapeflow does not use")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set "
                         "to `True`.")
    channels_first = backend.standardize_data_format(data_format) == "channels_first"

    def load_now(path: Any) -> Any:
        from tapeflow import image, io
        from tapeflow.ops import array_ops
        img = image.decode_image(io.read_file(path), channels=num_channels,
                                 expand_animations=False)
        if crop_to_aspect_ratio:
            img = _smart_resize(img, image_size, interpolation)
        elif pad_to_aspect_ratio:
            img = image.resize_with_pad(img, image_size[0], image_size[1],
                                        method=interpolation)
        else:
            img = image.resize(img, image_size, method=interpolation)
        if channels_first:
            img = array_ops.transpose(img, (2, 0, 1))
        return img

    shape = ((num_channels,) + tuple(image_size) if channels_first else
             tuple(image_size) + (num_channels,))

    def load(path: Any) -> Any:
        # Decoded eagerly (py_function): tapeflow's traced resize needs static image sizes.
        from tapeflow.ops import index_ops
        from tapeflow.ops.script_ops import py_function
        dtype = "uint8" if interpolation == "nearest" else "float32"  # TF's resize keeps it
        return index_ops.ensure_shape(py_function(load_now, [path], dtype), shape)

    return _build("image", directory, labels, label_mode, class_names, batch_size, shuffle,
                  seed, validation_split, subset, follow_links, verbose, IMAGE_FORMATS, load,
                  "No {what}images found in directory {directory}. Allowed formats: "
                  f"{IMAGE_FORMATS}")


def _smart_resize(img: Any, size: tuple, interpolation: str) -> Any:
    """Keras's smart_resize of one image: the largest centred crop of the target's aspect
    ratio, resized."""
    from tapeflow import image
    from tapeflow.ops import array_ops, math_ops
    shape = array_ops.shape(img)
    height, width = math_ops.cast(shape[0], "float32"), math_ops.cast(shape[1], "float32")
    target_h, target_w = size
    crop_h = math_ops.cast(width * target_h / target_w, "int32")
    crop_w = math_ops.cast(height * target_w / target_h, "int32")
    crop_h = math_ops.maximum(math_ops.minimum(shape[0], crop_h), 1)
    crop_w = math_ops.maximum(math_ops.minimum(shape[1], crop_w), 1)
    top = math_ops.cast((shape[0] - crop_h) / 2, "int32")
    left = math_ops.cast((shape[1] - crop_w) / 2, "int32")
    img = img[top:top + crop_h, left:left + crop_w, :]
    return image.resize(img, size, method=interpolation)


def text_dataset_from_directory(
        directory: str, labels: Any = "inferred", label_mode: Any = "int",
        class_names: Optional[list] = None, batch_size: Any = 32,
        max_length: Optional[int] = None, shuffle: bool = True, seed: Optional[int] = None,
        validation_split: Optional[float] = None, subset: Optional[str] = None,
        follow_links: bool = False, format: str = "tf",  # noqa: A002
        verbose: bool = True) -> Any:
    """A Dataset of (texts, labels) batches from `directory/<class>/*.txt`: each file's
    bytes as a tf.string (cut to `max_length` bytes); labels as for
    `image_dataset_from_directory`. The dataset carries `class_names`."""
    if format != "tf":
        raise ValueError('`format` should be either "tf" or "grain". Received: '
                         f"format={format}" if format != "grain" else
                         "format='grain' needs the grain package, which tapeflow does not use")

    def load(path: Any) -> Any:
        from tapeflow import io, strings
        text = io.read_file(path)
        return text if max_length is None else strings.substr(text, 0, max_length)

    return _build("text", directory, labels, label_mode, class_names, batch_size, shuffle,
                  seed, validation_split, subset, follow_links, verbose, (".txt",), load,
                  "No {what}text files found in directory {directory}. Allowed format: .txt")


def audio_dataset_from_directory(
        directory: str, labels: Any = "inferred", label_mode: Any = "int",
        class_names: Optional[list] = None, batch_size: Any = 32, sampling_rate: Any = None,
        output_sequence_length: Optional[int] = None, ragged: bool = False,
        shuffle: bool = True, seed: Optional[int] = None,
        validation_split: Optional[float] = None, subset: Optional[str] = None,
        follow_links: bool = False, verbose: bool = True) -> Any:
    """A Dataset of (audio, labels) batches from `directory/<class>/*.wav`: each file decoded
    by `tf.audio.decode_wav` to float32 [samples, channels] (cut or zero-padded to
    `output_sequence_length` samples where given), batches padded to their longest file
    (`padded_batch`), or RaggedTensors with `ragged=True`; labels as for
    `image_dataset_from_directory`. The dataset carries `class_names`. Resampling
    (`sampling_rate`) needs tensorflow_io in Keras and is not built: it raises ImportError."""

    def checks() -> None:
        if ragged and output_sequence_length is not None:
            raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
        if sampling_rate is not None:
            if not isinstance(sampling_rate, int):
                raise ValueError("`sampling_rate` should have an integer value. "
                                 f"Received: sampling_rate={sampling_rate}")
            if sampling_rate <= 0:
                raise ValueError("`sampling_rate` should be higher than 0. "
                                 f"Received: sampling_rate={sampling_rate}")
            # Keras resamples with tensorflow_io (and raises ImportError without it).
            raise ImportError("`sampling_rate` resamples audio with tensorflow_io in Keras; "
                              "tapeflow has no resampler: pass `sampling_rate=None`.")

    def load(path: Any) -> Any:
        from tapeflow import audio, io
        from tapeflow.framework.ragged_tensor import RaggedTensor
        samples = -1 if output_sequence_length is None else output_sequence_length
        decoded = audio.decode_wav(io.read_file(path), desired_samples=samples).audio
        return RaggedTensor.from_tensor(decoded) if ragged else decoded

    def batch(ds: Any, size: Any) -> Any:
        from tapeflow import data
        ds = ds.prefetch(data.AUTOTUNE)  # Keras prefetches before batching audio
        if size is None:
            return ds
        if output_sequence_length is None and not ragged:
            # Files differ in length: pad to the longest. The padded shapes are TF's default
            # (the components' static shapes), spelled out so known dims stay in the spec.
            shapes = tuple(spec.shape for spec in ds.element_spec) \
                if isinstance(ds.element_spec, tuple) else ds.element_spec.shape
            return ds.padded_batch(size, padded_shapes=shapes)
        return ds.batch(size)

    return _build("audio", directory, labels, label_mode, class_names, batch_size, shuffle,
                  seed, validation_split, subset, follow_links, verbose, AUDIO_FORMATS, load,
                  "No {what}audio files found in directory {directory}. Allowed format(s): "
                  f"{AUDIO_FORMATS}", checks=checks, batch=batch)


__all__ = ["audio_dataset_from_directory", "image_dataset_from_directory",
           "text_dataset_from_directory", "index_directory"]
