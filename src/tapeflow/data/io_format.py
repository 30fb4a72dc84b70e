"""tapeflow's file format for `Dataset.save` / `Dataset.load` and `cache(filename)`.

A file is a Python pickle (protocol 4) of one dict:
`{"format": <name>, "element_spec": <nest of TensorSpecs>, "elements": [<flat list of NumPy
arrays per element>]}`. `save(path)` writes `path/tapeflow-dataset.pickle` (the directory
is created) with format "tapeflow-dataset-v1"; `cache(filename)` writes
`filename.tapeflow-cache` with format "tapeflow-cache-v1". Files are not TensorFlow's
snapshot format; TensorFlow cannot read them, nor tapeflow TensorFlow's.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

from tapeflow.data import structure
from tapeflow.framework.errors import NotFoundError

DATASET_FILE = "tapeflow-dataset.pickle"


def write_elements(path: str, fmt: str, element_spec: Any, elements: list) -> None:
    """Writes `elements` (internal nests) with their spec to `path`."""
    payload = {"format": fmt, "element_spec": element_spec,
               "elements": [structure.flatten(e) for e in elements]}
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(payload, f, protocol=4)
    os.replace(tmp, path)


def read_elements(path: str, fmt: str) -> tuple:
    """(element_spec, elements) read from `path`."""
    if not os.path.exists(path):
        raise NotFoundError(None, None, "Could not find metadata file [Op:LoadDataset]")
    with open(path, "rb") as f:
        payload = pickle.load(f)
    if payload.get("format") != fmt:
        raise ValueError(f"{path} is not a {fmt} file")
    spec = payload["element_spec"]
    return spec, [structure.pack(spec, flat) for flat in payload["elements"]]


__all__ = ["write_elements", "read_elements", "DATASET_FILE"]
