"""`keras.saving.KerasFileEditor`: inspects and edits the weights of a `.keras` or
`.weights.h5` file (Keras 3.15's `keras/src/saving/file_editor.py`, its texts and results).

The file's weights become a tree of dicts (`weights_dict`): a group holding 'vars' becomes
the dict of that 'vars' group's datasets (its other members are not read, as Keras), other
groups are walked, empty ones left out. The file is read as `weights.read_h5` reads one:
no soft or external link, no external or virtual dataset, no declared size the stored bytes
cannot hold, numbers only; a `.keras` archive's members are read in place, its JSON bounded.

What the editor prints, Keras prints with `rich`; tapeflow writes the plain text Keras gives
when stdout is not a terminal: markup dropped, lines wrapped at the console's width (80, or
$COLUMNS) by rich's word-wrap rules (`_wrap`). Keras's counting quirks are kept, since users
read its numbers: `compare` adds a nested object's running counts to the counts it already
had, and a name's occurrences are counted the same way (`_count_occurrences`).

`save` writes Keras's layout: each dict holding arrays becomes '<path>/vars' with datasets
named by their keys, no attributes; Keras loads such files (tools/record_keras_file_editor.py
--check). A bfloat16 dataset reads, as in Keras, as its raw 2-byte items (dtype '|V2'), which
`save` refuses with Keras's error; a bfloat16 array added by the user is saved with Keras's
'dtype' mark.
"""

from __future__ import annotations

import collections
import json
import math
import os
import re
import shutil
import sys
import unicodedata
import zipfile
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

from tapeflow.keras.saving import archive as _archive
from tapeflow.keras.saving import weights as _weights

# Keras's editor refuses a dataset above 4 GiB and a rank above 64.
_MAX_DATASET_BYTES = 1 << 32
_MAX_RANK = 64
# Attributes are only shown (an object's 'name'); a larger one is refused unread.
_MAX_ATTRIBUTE_BYTES = 1 << 20
_RULE = "─" * 21


class _WeightSpec(NamedTuple):
    """A reference model's weight in `compare`: its shape and dtype, no data."""
    shape: tuple
    dtype: str


class KerasFileEditor:
    """Utility to inspect, edit, and resave Keras weights files.

    Args:
        filepath: The path to a local file to inspect and edit (`.keras` or `.weights.h5`).

    ```python
    editor = KerasFileEditor("my_model.weights.h5")
    editor.summary()
    editor.delete_object("layers/dense_2")
    editor.add_object("layers/einsum_dense", weights={"0": ..., "1": ...})
    editor.resave_weights("edited_model.weights.h5")
    ```
    """

    def __init__(self, filepath: str) -> None:
        self.filepath = filepath
        self.metadata: Optional[dict] = None
        self.config: Optional[dict] = None
        self.model = None
        if filepath.endswith(".keras"):
            weights_dict, object_metadata = self._read_archive(filepath)
        elif filepath.endswith(".weights.h5"):
            with _weights._h5py().File(filepath, "r") as f:
                weights_dict, object_metadata = _extract(f)
        else:
            raise ValueError("Invalid filename: expected a `.keras` `.weights.h5` extension. "
                             f"Received: filepath={filepath}")
        self.weights_dict = weights_dict
        self.object_metadata = object_metadata  # {path: {attribute: value}}
        _print(f"Keras model file '{self.filepath}'")
        if self.metadata is not None:
            _print(f"Saved with Keras {self.metadata['keras_version']} - date: "
                   f"{self.metadata['date_saved']}")

    def _read_archive(self, filepath: str) -> tuple:
        """Reads a `.keras` zip: its weights in place, then config and metadata (Keras's
        order, so a missing member raises zipfile's KeyError as Keras's does)."""
        with zipfile.ZipFile(filepath, "r") as zf:
            with zf.open(zf.getinfo(_archive.WEIGHTS)) as h5, \
                    _weights._h5py().File(h5, "r") as f:
                result = _extract(f)
            self.config = _read_json(zf, _archive.CONFIG)
            self.metadata = _read_json(zf, _archive.METADATA)
        return result

    def summary(self) -> None:
        """Prints the weight structure of the opened file."""
        _print("Weights structure")
        self._print_weights_structure(self.weights_dict, prefix=" " * 2)

    def _print_weights_structure(self, weights_dict: dict, is_first: bool = True,
                                 prefix: str = "", inner_path: str = "") -> None:
        # As Keras's: only the very first entry gets '> ', and `inner_path` grows over
        # siblings (so an object's 'name' attribute, stored under '/path', is never shown).
        for idx, (key, value) in enumerate(weights_dict.items()):
            inner_path = os.path.join(inner_path, key)
            is_last = idx == len(weights_dict) - 1
            if is_first:
                is_first, connector = False, "> "
            else:
                connector = "└─ " if is_last else "├─ "
            if isinstance(value, dict):
                label = f"{prefix}{connector}{key}"
                name = self.object_metadata.get(inner_path, {}).get("name")
                _print(label if name is None else f"{label} ('{name}')")
                self._print_weights_structure(value, is_first=is_first,
                                              prefix=prefix + ("    " if is_last else "│   "),
                                              inner_path=inner_path)
            elif hasattr(value, "shape"):
                _print(f"{prefix}{connector}{key}: shape={value.shape}, dtype={value.dtype}")
            else:
                _print(f"{prefix}{connector}{key}: {value}")

    def compare(self, reference_model: Any) -> dict:
        """Compares the opened file to a reference model, printing every mismatch.

        Returns:
            Dict with keys `'status'` (`'success'` or `'error'`), `'error_count'` and
            `'match_count'`.
        """
        _print("Running comparison")
        ref_spec = weight_spec(reference_model)
        checked: set = set()
        error_count, match_count = _compare(self.weights_dict, ref_spec, "", "saved file",
                                            "reference model", 0, 0, checked)
        more_errors, _ = _compare(ref_spec, self.weights_dict, "", "reference model",
                                  "saved file", 0, 0, checked)
        error_count += more_errors
        _print(_RULE)
        if error_count == 0:
            _print("Comparison successful: saved file is compatible with the reference model")
            _print(f"    Found {match_count} matching weight{_plural(match_count)}")
        else:
            _print(f"Found {error_count} error{_plural(error_count)}: saved file is not "
                   "compatible with the reference model")
        return {"status": "success" if error_count == 0 else "error",
                "error_count": error_count, "match_count": match_count}

    def _edit_object(self, edit_fn: Callable, source_name: str,
                     target_name: Optional[str] = None) -> None:
        """Applies `edit_fn(parent dict, source_name=, target_name=)` at the path
        `source_name`, or wherever the name `source_name` is (once in the tree)."""
        if target_name is not None and "/" in target_name:
            raise ValueError("Argument `target_name` should be a leaf name, not a full path "
                             f"name. Received: target_name='{target_name}'")
        if "/" in source_name:
            elements = source_name.split("/")
            parent = self.weights_dict
            for e in elements[:-1]:
                if e not in parent:
                    raise ValueError(f"Path '{source_name}' not found in model.")
                parent = parent[e]
            if elements[-1] not in parent:
                raise ValueError(f"Path '{source_name}' not found in model.")
            edit_fn(parent, source_name=elements[-1], target_name=target_name)
            return
        occurrences = _count_occurrences(self.weights_dict, source_name)
        if occurrences > 1:
            raise ValueError(f"Name '{source_name}' occurs more than once in the model; try "
                             "passing a complete path")
        if occurrences == 0:
            raise ValueError(f"Source name '{source_name}' does not appear in the model. Use "
                             "`editor.weights_summary()` to list all objects.")
        _edit_everywhere(self.weights_dict, source_name,
                         lambda d: edit_fn(d, source_name=source_name, target_name=target_name))

    def rename_object(self, object_name: str, new_name: str) -> None:
        """Renames an object in the file (e.g. a layer).

        Args:
            object_name: String, name or path of the object to rename (e.g. `"dense_2"` or
                `"layers/dense_2"`).
            new_name: String, new name of the object.
        """
        def rename_fn(weights_dict: dict, source_name: str, target_name: str) -> None:
            weights_dict[target_name] = weights_dict[source_name]
            weights_dict.pop(source_name)  # as Keras: renaming to the same name deletes

        self._edit_object(rename_fn, object_name, new_name)

    def delete_object(self, object_name: str) -> None:
        """Removes an object from the file (e.g. a layer), by name or path."""
        def delete_fn(weights_dict: dict, source_name: str, target_name: Any = None) -> None:
            weights_dict.pop(source_name)

        self._edit_object(delete_fn, object_name)

    def add_object(self, object_path: str, weights: dict) -> None:
        """Adds a new object to the file (e.g. a layer).

        Args:
            object_path: String, full path of the object to add (e.g. `"layers/dense_2"`).
            weights: Dict mapping weight names to arrays, e.g. `{"0": kernel, "1": bias}`.
        """
        _check_weights_arg(weights)
        elements = object_path.split("/")
        parent = self.weights_dict
        for e in elements[:-1]:
            if e not in parent:
                raise ValueError(f"Path '{'/'.join(elements[:-1])}' not found in model.")
            parent = parent[e]
        parent[elements[-1]] = weights

    def delete_weight(self, object_name: str, weight_name: str) -> None:
        """Removes the weight `weight_name` (e.g. `"0"`) from the object `object_name` (a
        name or a path)."""
        def delete_weight_fn(weights_dict: dict, source_name: str,
                             target_name: Any = None) -> None:
            if weight_name not in weights_dict[source_name]:
                raise ValueError(f"Weight {weight_name} not found in object {object_name}. "
                                 f"Weights found: {list(weights_dict[source_name].keys())}")
            weights_dict[source_name].pop(weight_name)

        self._edit_object(delete_weight_fn, object_name)

    def add_weights(self, object_name: str, weights: dict) -> None:
        """Adds weights (a dict of name to array, e.g. `{"0": kernel}`) to the existing
        object `object_name` (a name or a path)."""
        _check_weights_arg(weights)

        def add_weight_fn(weights_dict: dict, source_name: str, target_name: Any = None) -> None:
            weights_dict[source_name].update(weights)

        self._edit_object(add_weight_fn, object_name)

    def save(self, filepath: Any) -> None:
        """Saves the edited weights to `filepath`, a `.weights.h5` file in Keras's layout."""
        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError("Invalid `filepath` argument: expected a `.weights.h5` "
                             f"extension. Received: filepath={filepath}")
        weights_dict = self.weights_dict

        def write(target: Any) -> None:
            with _weights._h5py().File(target, "w") as f:
                _save(f, weights_dict, "")
        _weights.atomic_write(filepath, write)

    def resave_weights(self, filepath: Any) -> None:
        """Same as `save`."""
        self.save(filepath)


# -- reading ----------------------------------------------------------------------------------

def _read_json(zf: zipfile.ZipFile, name: str) -> Any:
    """A JSON member of the archive, refused above the size a config may have."""
    info = zf.getinfo(name)
    if info.file_size > _archive._MAX_CONFIG:
        raise ValueError(f"Refusing to read '{name}': it declares {info.file_size} bytes, "
                         f"more than the {_archive._MAX_CONFIG} allowed.")
    return json.loads(zf.read(info))


def _extract(group: Any, metadata: Optional[dict] = None, inner_path: str = "") -> tuple:
    """(tree of dicts of arrays, {'/path': attributes}) of an HDF5 group, as Keras's
    `_extract_weights_from_store` builds them, every member checked before it is read."""
    h5py = _weights._h5py()
    metadata = metadata or {}
    attributes = _attributes(group)
    if attributes:
        metadata[inner_path] = attributes
    result: dict = collections.OrderedDict()
    for key in group.keys():
        path = f"{inner_path}/{key}"
        value = _member(group, key)
        if isinstance(value, h5py.Group):
            if len(value) == 0:
                continue
            if "vars" in value.keys():
                value = _member(value, "vars", group_only=True)
                if len(value) == 0:
                    continue
            result[key], metadata = _extract(value, metadata, path)
        elif isinstance(value, h5py.Dataset):
            result[key] = _read_dataset(value, path)
    return result, metadata


def _member(group: Any, key: str, group_only: bool = False) -> Any:
    """`group[key]`, links refused with Keras's texts (and ValueError, Keras's class)."""
    try:
        return _weights._group(group, key) if group_only else _weights._link(group, key)
    except _weights._Refused as e:
        raise ValueError(str(e)) from None


def _attributes(group: Any) -> dict:
    """A group's attributes, each checked for size before it is read."""
    found = {}
    for name in group.attrs.keys():
        attr = group.attrs.get_id(name)
        size = math.prod(attr.shape or ()) * attr.dtype.itemsize
        if size > _MAX_ATTRIBUTE_BYTES:
            raise ValueError(f"Not allowed: H5 attribute '{name}' declares {size} bytes; "
                             f"refusing to read more than {_MAX_ATTRIBUTE_BYTES}.")
        found[name] = group.attrs[name]
    return found


def _read_dataset(dataset: Any, path: str) -> Any:
    """A dataset's value (`dataset[()]`, as Keras's: a NumPy scalar for shape ()), after
    Keras's checks and tapeflow's (declared against stored size, numbers only)."""
    if dataset.external:
        raise ValueError(f"Not allowed: H5 file Dataset with external links: "
                         f"{dataset.external}")
    if dataset.is_virtual:
        raise ValueError(f"Not allowed: H5 file with virtual Dataset at {path}")
    shape = dataset.shape
    if len(shape) > _MAX_RANK:
        raise ValueError("Malformed HDF5 dataset shape encountered in .keras file; tensor "
                         "rank exceeds safety limit.")
    size = math.prod(shape) * dataset.dtype.itemsize
    if size > _MAX_DATASET_BYTES:
        raise ValueError(f"HDF5 dataset too large to load safely ({size} bytes; limit is "
                         f"{_MAX_DATASET_BYTES}).")
    _weights._check_declared_size(dataset, path)
    if not _weights._is_bfloat16(dataset):  # bfloat16 stays HDF5's 2 opaque bytes, as Keras's
        _weights._check_dtype(dataset.dtype, path)
    return dataset[()]


# -- comparing ----------------------------------------------------------------------------------

def weight_spec(model: Any) -> dict:
    """The tree of `_WeightSpec` the file of `model` would hold, as Keras's
    `get_weight_spec_of_saveable`: each object's own weights (keys sorted as strings), then
    its children's trees, objects without weights left out."""
    spec: dict = {}
    for path, obj in _weights.walk(model):
        own = _own_spec(obj)
        if not own:
            continue
        node = spec
        for part in path.split("/") if path else ():
            node = node.setdefault(part, {})
        node.update(own)
    return spec


def _own_spec(obj: Any) -> dict:
    if _weights.has_own_store(obj):
        store: dict = {}
        obj.save_own_variables(store)
        items = {str(k): np.asarray(v) for k, v in store.items()}
        entries = {k: _WeightSpec(tuple(v.shape), v.dtype.name) for k, v in items.items()}
    else:
        entries = {str(i): _WeightSpec(tuple(v.shape), v.dtype.name)
                   for i, v in enumerate(_weights.own_variables(obj))}
    return {k: entries[k] for k in sorted(entries)}


def _compare(target: dict, ref_spec: dict, inner_path: str, target_name: str,
             ref_name: str, error_count: int, match_count: int, checked: set) -> tuple:
    """Keras's `_compare`: prints what `ref_spec` has that `target` lacks or shapes
    otherwise; returns the counts (a nested object's, which start from the counts so far,
    are added to them, as Keras does)."""
    base_path = inner_path
    for ref_key, ref_val in ref_spec.items():
        inner_path = f"{base_path}/{ref_key}"
        if inner_path in checked:
            continue
        if ref_key not in target:
            error_count += 1
            checked.add(inner_path)
            kind = "Object" if isinstance(ref_val, dict) else "Weight"
            _print(f"...{kind} {inner_path} present in {ref_name}, missing from {target_name}")
            if isinstance(ref_val, dict):
                _print(f"    In {ref_name}, {inner_path} contains the following keys: "
                       f"{list(ref_val.keys())}")
        elif isinstance(ref_val, dict):
            errors, matches = _compare(target[ref_key], ref_val, inner_path, target_name,
                                       ref_name, error_count, match_count, checked)
            error_count += errors
            match_count += matches
        elif target[ref_key].shape != ref_val.shape:
            error_count += 1
            checked.add(inner_path)
            _print(f"...Weight shape mismatch for {inner_path}\n    In {ref_name}: "
                   f"shape={ref_val.shape}\n    In {target_name}: shape={target[ref_key].shape}")
        else:
            match_count += 1
    return error_count, match_count


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


# -- editing -----------------------------------------------------------------------------------

def _count_occurrences(d: dict, name: str, count: int = 0) -> int:
    """Keras's `count_occurences`, whose nested calls start from the running count (so a
    name once in the tree can count twice): the errors it raises depend on it."""
    for k in d:
        if isinstance(d[k], dict):
            count += _count_occurrences(d[k], name, count)
    if name in d:
        count += 1
    return count


def _edit_everywhere(d: dict, name: str, edit: Callable[[dict], None]) -> None:
    """Calls `edit(parent)` on every dict holding `name`, innermost first."""
    for k in list(d):
        if isinstance(d.get(k), dict):
            _edit_everywhere(d[k], name, edit)
    if name in d:
        edit(d)


def _check_weights_arg(weights: Any) -> None:
    if not isinstance(weights, dict):
        raise ValueError("Argument `weights` should be a dict where keys are weight names "
                         "(usually '0', '1', etc.) and values are NumPy arrays. "
                         f"Received: type(weights)={type(weights)}")


# -- writing -----------------------------------------------------------------------------------

def _save(f: Any, weights_dict: dict, inner_path: str) -> None:
    """Keras's `save`: children first, then this dict's arrays in '<inner_path>/vars'."""
    arrays = {}
    for name, value in weights_dict.items():
        if isinstance(value, dict):
            if value:
                _save(f, value, os.path.join(inner_path, name))
        else:
            arrays[name] = value
    if not arrays:
        return
    group = f.create_group("vars") if not inner_path else \
        f.create_group(inner_path).create_group("vars")
    for name, value in arrays.items():
        value = _as_numpy(value)
        if value.dtype.name.startswith("void"):  # a bfloat16 read raw: Keras refuses it too
            raise ValueError(f"Invalid dtype: {value.dtype.name}")
        if value.dtype.name == "bfloat16":
            group.create_dataset(name, data=value).attrs["dtype"] = "bfloat16"  # Keras's mark
        else:
            group[name] = value


def _as_numpy(value: Any) -> np.ndarray:
    numpy = getattr(value, "numpy", None)
    return np.asarray(numpy() if callable(numpy) else value)


# -- printing ----------------------------------------------------------------------------------

def _print(text: str) -> None:
    """Prints `text` as Keras's rich console does to a stdout that is no terminal."""
    out = sys.stdout
    for line in text.split("\n"):
        out.write("".join(f"{part}\n" for part in _wrap(line.expandtabs(8), _width())))


def _width() -> int:
    """rich's console width: $COLUMNS, else the terminal's, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    isatty = getattr(sys.stdout, "isatty", None)
    if callable(isatty) and isatty():
        return shutil.get_terminal_size((80, 25)).columns
    return 80


_WORD = re.compile(r"\s*\S+\s*")


def _cell_len(text: str) -> int:
    return sum(_char_cells(c) for c in text)


def _char_cells(c: str) -> int:
    code = ord(c)
    if (0 < code < 32) or 0x7F <= code < 0xA0 or unicodedata.combining(c):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def _chop(text: str, width: int) -> list:
    """Pieces of `text` of at most `width` cells (rich's `chop_cells`)."""
    pieces, start, size = [], 0, 0
    for i, c in enumerate(text):
        cells = _char_cells(c)
        if size + cells > width:
            pieces.append(text[start:i])
            start, size = i, 0
        size += cells
    if size:
        pieces.append(text[start:])
    return pieces


def _wrap(line: str, width: int) -> list:
    """rich's word wrap (`divide_line` with folding, then each piece's whitespace beyond
    the width cropped, then the piece cropped to the width)."""
    breaks: list = []
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group(0)
        length = _cell_len(word.rstrip())
        if width - offset >= length:
            offset += _cell_len(word)
        elif length > width:
            folded = _chop(word, width)
            for i, piece in enumerate(folded):
                if start:
                    breaks.append(start)
                if i == len(folded) - 1:
                    offset = _cell_len(piece)
                else:
                    start += len(piece)
        elif offset and start:
            breaks.append(start)
            offset = _cell_len(word)
    bounds = [0] + breaks + [len(line)]
    return [_crop(line[a:b], width) for a, b in zip(bounds, bounds[1:])]


def _crop(piece: str, width: int) -> str:
    excess = len(piece) - width
    if excess > 0:
        trailing = len(piece) - len(piece.rstrip())
        piece = piece[:len(piece) - min(trailing, excess)]
    while _cell_len(piece) > width:
        piece = piece[:-1]
    return piece


__all__ = ["KerasFileEditor", "weight_spec"]
