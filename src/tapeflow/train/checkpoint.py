"""`tf.train.Checkpoint`, `tf.train.CheckpointManager` and `tf.train.latest_checkpoint`.

A Checkpoint saves the variables of the objects given as keyword arguments (`model=`,
`optimizer=`, a `tf.Variable`, a `tf.Module`, ...): for each object, its `variables` in order
(an optimizer's are `iterations`, the learning rate, then its slots). Files are written in
tapeflow's format (`tapeflow.framework.npz_format`: a NumPy `.npz`, no pickle, atomic write), at
`<prefix>-<n>.npz` (TensorFlow writes `.index` and `.data-*` files instead; the path returned
by `save` and accepted by `restore` is the same `<prefix>-<n>` in both). Like TensorFlow, a
`checkpoint` text file in the directory names the latest checkpoint; it is also replaced
atomically, after the data file, so a crash mid-save leaves the previous checkpoint listed and
loadable.

An optimizer that has not created its slots yet (not built) restores them when it is built on
its first `apply_gradients`, as TensorFlow defers slot restoration.

A checkpoint holds arrays and their names (`save_counter`, `<object>/<i>`), nothing else: no
code, no classes. Reading one that is not what tapeflow writes raises (DataLossError for a
damaged file or object graph, InvalidArgumentError for a dtype, ValueError for a shape, as
TensorFlow) before anything is assigned. A `checkpoint` state file is trusted only for names
inside its directory, and a CheckpointManager deletes only files it could have written.
"""

from __future__ import annotations

import os
import re
from typing import Any, NamedTuple, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from tapeflow.framework.variables import Variable
from tapeflow.framework import npz_format as _format

_SUFFIX = ".npz"
_STATE_FILE = "checkpoint"


def _variables_of(obj: Any) -> list:
    if isinstance(obj, Variable):
        return [obj]
    variables = getattr(obj, "variables", None)
    if callable(variables):
        variables = variables()
    if variables is None:
        raise ValueError(f"`Checkpoint` was expecting a trackable object (an object derived "
                         f"from `Trackable`), got {obj}. If you believe this object should be "
                         "trackable (i.e. it is part of the TensorFlow Python API and manages "
                         "state), please open an issue.")
    return list(variables)


_INDEX = re.compile(r"0|[1-9][0-9]*")   # how `_arrays` numbers an object's values


def _saved_values(arrays: dict, key: str) -> list:
    """The array keys of the values saved for object `key` ('model/0', 'model/1', ...), in
    order. DataLossError where they are not exactly what `_arrays` writes: '<key>/<i>' for
    i = 0..n-1 (a gap or a second spelling of an index would restore values positionally
    into the wrong variables)."""
    saved = {}
    for name in arrays:
        head, slash, index = name.partition("/")
        if head != key or not slash:
            continue
        if not _INDEX.fullmatch(index):
            raise DataLossError(None, None, f"Unable to restore {key!r}: the checkpoint holds "
                                f"a value named {name!r}, which tapeflow never writes (the "
                                "file is corrupted or was crafted).")
        saved[int(index)] = name
    if sorted(saved) != list(range(len(saved))):
        raise DataLossError(None, None, f"Unable to restore {key!r}: the checkpoint's values "
                            f"for it are numbered {sorted(saved)}, not 0 to {len(saved) - 1} "
                            "(the file is corrupted or was crafted).")
    return [saved[i] for i in range(len(saved))]


def _dtype_name(dtype: np.dtype) -> str:
    """A NumPy dtype's name as TensorFlow's kernels write it (`float`, `double`)."""
    try:
        return cpp_name(_dtypes.as_dtype(dtype))
    except (TypeError, ValueError, KeyError):
        return str(dtype)   # no TF dtype (a structured or void array in a crafted file)


def _cast(value: np.ndarray, variable: Variable, key: str) -> np.ndarray:
    """`value`, checked to be of the variable's dtype: InvalidArgumentError, as TensorFlow's
    RestoreV2, where it is not (casting would restore silently changed numbers)."""
    if value.dtype != np.dtype(variable.dtype.as_numpy_dtype):
        raise InvalidArgumentError(None, None, f"tensor_name = {key}; expected dtype "
                                   f"{cpp_name(variable.dtype)} does not equal original dtype "
                                   f"{_dtype_name(value.dtype)} [Op:RestoreV2]")
    return value


_PENDING = "_checkpoint_pending_values"


def _restore_pending(obj: Any) -> bool:
    """Whether `obj` still waits for values a restore deferred (an optimizer's slots, an
    unbuilt model's weights)."""
    if hasattr(obj, "_defer_restore"):
        return getattr(obj, "_deferred_values", None) is not None
    return _PENDING in getattr(obj, "__dict__", {})


def _defer_until_built(obj: Any, values: list) -> None:
    """Restores `values` into `obj`'s variables once it has created them (TF's deferred
    restoration): the object's class is swapped for a same-named subclass whose `build` and
    `__call__` (a subclassed model makes its sublayers' weights in its first call) try the
    restore after running; the original class comes back once it is done. When the weights
    are made inside `__call__`, that first call runs again on the restored values, so its
    outputs are the restored model's, as TF's (its side effects, such as a random draw, happen
    twice)."""
    cls = type(obj)
    if _PENDING not in obj.__dict__:
        hooked = type(cls.__name__, (cls,), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "build": _after(cls, "build"), "__call__": _after(cls, "__call__"),
            "_checkpoint_original_class": cls})
        obj.__class__ = hooked
    obj.__dict__[_PENDING] = list(values)


def _after(cls: type, name: str) -> Any:
    method = getattr(cls, name)

    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = method(self, *args, **kwargs)
        if _try_deferred_restore(self) and name == "__call__":
            # The weights were made inside this call (a subclassed model's sublayers), so its
            # outputs came from the initial values: run it again on the restored ones.
            result = method(self, *args, **kwargs)
        return result
    hooked.__name__ = name
    return hooked


def _try_deferred_restore(obj: Any) -> bool:
    """Restores the deferred values once `obj` has all its variables; whether it did."""
    values = obj.__dict__.get(_PENDING)
    if values is None:
        return False
    variables = _variables_of(obj)
    if len(variables) < len(values):
        return False   # not fully built yet
    del obj.__dict__[_PENDING]
    obj.__class__ = obj._checkpoint_original_class
    if len(variables) != len(values):
        raise ValueError(f"Checkpoint holds {len(values)} values for this object but, once "
                         f"built, it has {len(variables)} variables.")
    for variable, value in _checked_assignments(variables, values, "", " once built"):
        variable.assign(value)
    return True


def _checked_assignments(variables: list, values: list, key: str, when: str = "") -> list:
    """(variable, value) pairs, each value checked by `_checked_value` (so raising before
    any is assigned)."""
    return [(variable, _checked_value(variable, value, f"{key}/{i}" if key else f"{i}", when))
            for i, (variable, value) in enumerate(zip(variables, values))]


def _checked_value(variable: Variable, value: np.ndarray, name: str, when: str = "") -> Any:
    """`value` if it fits `variable`: ValueError where its shape differs (TF's class),
    InvalidArgumentError where its dtype does (see `_cast`)."""
    if not variable.shape.is_compatible_with(value.shape):
        raise ValueError(f"Shape mismatch restoring {name!r} ('{variable.name}'){when}: the "
                         f"checkpoint has {value.shape}, the variable {tuple(variable.shape)}.")
    return _cast(value, variable, name)


class CheckpointLoadStatus:
    """What `restore`/`read` matched, with TensorFlow's assertion methods."""

    def __init__(self, unmatched_saved: list, unmatched_objects: list, deferred: list) -> None:
        self._unmatched_saved = unmatched_saved
        self._unmatched_objects = unmatched_objects
        self._deferred = deferred   # (key, object) restored when the object builds

    def _still_deferred(self) -> list:
        return [key for key, obj in self._deferred if _restore_pending(obj)]

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Raises AssertionError unless every saved value and every object was matched
        (objects restored on build count once they are built)."""
        deferred = self._still_deferred()
        if self._unmatched_saved or self._unmatched_objects or deferred:
            raise AssertionError(
                f"Unresolved object in checkpoint: saved values {self._unmatched_saved} were not "
                f"restored; objects {self._unmatched_objects} were not found in the checkpoint; "
                f"deferred (not yet built): {deferred}")
        return self

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """Raises AssertionError if an existing object had nothing to restore."""
        if self._unmatched_objects:
            raise AssertionError(f"Objects {self._unmatched_objects} were not found in the "
                                 "checkpoint.")
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        """TF raises unless objects beyond the root matched; this checks nothing, returns self."""
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Silences warnings about a partial restore (there are none here)."""
        return self


class Checkpoint:
    """Groups objects to save and restore together: `Checkpoint(model=m, optimizer=opt)`."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        if root is not None:
            kwargs["root"] = root
        for key, value in kwargs.items():
            if value is None:
                raise ValueError(f"`Checkpoint` was expecting a trackable object for "
                                 f"{key!r}, got None.")
        self._objects = dict(kwargs)
        self.save_counter = Variable(0, dtype=_dtypes.int64, trainable=False,
                                     name="save_counter")

    def __getattr__(self, name: str) -> Any:
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    # -- gathering ----------------------------------------------------------------------------
    def _arrays(self) -> dict:
        arrays = {"save_counter": np.asarray(self.save_counter.numpy())}
        for key, obj in self._objects.items():
            for i, variable in enumerate(_variables_of(obj)):
                arrays[f"{key}/{i}"] = np.asarray(variable.numpy())
        return arrays

    def _apply(self, arrays: _format.SavedArrays) -> CheckpointLoadStatus:
        # Everything is checked before anything is assigned: a failed restore leaves every
        # object as it was.
        assignments, deferrals = self._plan_restore(arrays)
        for variable, value in assignments:
            variable.assign(value)
        for obj, values in deferrals:
            if hasattr(obj, "_defer_restore"):
                obj._defer_restore(values)
            else:
                _defer_until_built(obj, values)
        used = {"save_counter"} & set(arrays)
        unmatched_objects, deferred = [], []
        for key in self._objects:
            saved = _saved_values(arrays, key)
            used.update(saved)
            if not saved:
                unmatched_objects.append(key)
            elif any(obj is self._objects[key] for obj, _ in deferrals):
                deferred.append((key, self._objects[key]))
        unmatched_saved = sorted(set(arrays) - used)
        return CheckpointLoadStatus(unmatched_saved, unmatched_objects, deferred)

    def _plan_restore(self, arrays: _format.SavedArrays) -> tuple:
        """The (variable, value) assignments and (optimizer, values) deferred restorations a
        restore makes, validated: raises ValueError, assigning nothing, on any mismatch."""
        assignments, deferrals = [], []
        if "save_counter" in arrays:
            assignments.append((self.save_counter, _checked_value(
                self.save_counter, arrays["save_counter"], "save_counter")))
        for key, obj in self._objects.items():
            saved = _saved_values(arrays, key)
            if not saved:
                continue
            variables = _variables_of(obj)
            values = [arrays[name] for name in saved]
            if arrays.format in _format.LEGACY_SLOT_ORDER and \
                    hasattr(obj, "_from_legacy_slot_order"):
                values = obj._from_legacy_slot_order(values)
            if len(values) > len(variables) and hasattr(obj, "_defer_restore"):
                # An optimizer without slots yet: restore what exists, the rest on build.
                _checked_assignments(variables, values[:len(variables)], key)
                deferrals.append((obj, values))
                continue
            if len(values) > len(variables) and getattr(obj, "built", None) is False:
                # A Keras model or layer not built yet: restored once it builds, as TF.
                deferrals.append((obj, values))
                continue
            if len(values) != len(variables):
                raise ValueError(f"Checkpoint holds {len(values)} values for {key!r} but the "
                                 f"object has {len(variables)} variables.")
            assignments.extend(_checked_assignments(variables, values, key))
        return assignments, deferrals

    # -- public API ---------------------------------------------------------------------------
    def write(self, file_prefix: str, options: Any = None) -> str:
        """Writes the checkpoint at exactly `file_prefix` (no counter, no state file)."""
        file_prefix = os.fspath(file_prefix)
        _format.write_arrays(file_prefix + _SUFFIX, self._arrays())
        return file_prefix

    def read(self, save_path: str, options: Any = None) -> CheckpointLoadStatus:
        """Restores the values written by `write` (or `save`) at `save_path`."""
        return self._apply(_read(os.fspath(save_path)))

    def save(self, file_prefix: str, options: Any = None) -> str:
        """Increments `save_counter`, writes `<file_prefix>-<counter>`, records it as the
        directory's latest checkpoint, and returns that path."""
        self.save_counter.assign_add(np.int64(1))
        path = f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}"
        self.write(path)
        directory = os.path.dirname(os.path.abspath(path))
        previous = _read_state(directory).paths
        absolute = os.path.abspath(path)
        _write_state(directory, [p for p in previous if p != absolute] + [absolute])
        return path

    def restore(self, save_path: Optional[str], options: Any = None) -> CheckpointLoadStatus:
        """Restores from `save_path` (as returned by `save`); `None` restores nothing."""
        if save_path is None:
            return CheckpointLoadStatus([], [], [])
        return self.read(save_path)


def _read(save_path: str) -> _format.SavedArrays:
    """The arrays of the checkpoint at `save_path` ('<prefix>', read from '<prefix>.npz').

    Where there is no such file but TensorFlow's ('<prefix>.index') or the path names a file
    itself (an HDF5 or .keras file, garbage), the error says what that file is."""
    path = save_path + _SUFFIX
    if os.path.isfile(path):
        return _format.read_arrays(path)
    for candidate in (save_path + ".index", save_path):
        if os.path.isfile(candidate):
            kind = _format.describe_foreign_file(candidate) or (
                "a file of unrecognized content")
            raise DataLossError(None, None, f"Unable to restore from {save_path}: there is "
                                f"no tapeflow checkpoint {path}, and {candidate} is {kind}.")
    raise NotFoundError(None, None, f"Failed to find any matching files for {save_path}. "
                        "Please double-check that the path is correct. You may be missing "
                        "the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")


# -- the directory's `checkpoint` state file ---------------------------------------------------
_STATE_LINE = re.compile(r'\s*(model_checkpoint_path|all_model_checkpoint_paths):\s*"(.*)"')


class _State(NamedTuple):
    """What a `checkpoint` state file lists: `latest` (its `model_checkpoint_path`) and
    `paths`, every checkpoint it names, oldest first, `latest` last."""
    latest: Optional[str]
    paths: list


def _read_state(directory: str) -> _State:
    """The checkpoints listed in `directory/checkpoint` (none if there is no such file).

    Only paths inside `directory` are kept: a state file may be planted or copied, and a path
    it names elsewhere ('../x', '/etc/x') must be neither read by a restore nor deleted by a
    CheckpointManager. (TensorFlow returns and deletes such paths.)"""
    state = os.path.join(directory, _STATE_FILE)
    paths, latest = [], None
    if not os.path.isfile(state):
        return _State(None, [])
    with open(state, encoding="utf-8") as f:
        for line in f:
            match = _STATE_LINE.match(line)
            if not match:
                continue
            path = _inside(directory, match.group(2))
            if path is None:
                continue
            if match.group(1) == "model_checkpoint_path":
                latest = path
            elif path not in paths:
                paths.append(path)
    if latest is not None:   # TF's latest is `model_checkpoint_path`, wherever it is listed
        paths = [p for p in paths if p != latest] + [latest]
    return _State(latest, paths)


def _inside(directory: str, path: str) -> Optional[str]:
    """`path` (relative to `directory`, or absolute) normalized, if it names a file inside
    `directory`; else None."""
    if "\0" in path:
        return None
    directory = os.path.normpath(directory)
    resolved = os.path.normpath(os.path.join(directory, path))
    if resolved == directory or os.path.commonpath([directory, resolved]) != directory:
        return None
    return resolved


def _write_state(directory: str, paths: list) -> None:
    """Writes TensorFlow's text state file (latest checkpoint last) atomically."""
    def rel(p: str) -> str:
        return os.path.relpath(p, directory) if _inside(directory, p) else p
    lines = [f'model_checkpoint_path: "{rel(paths[-1])}"'] if paths else []
    lines += [f'all_model_checkpoint_paths: "{rel(p)}"' for p in paths]
    text = "\n".join(lines) + "\n"
    _format.atomic_write(os.path.join(directory, _STATE_FILE),
                         lambda f: f.write(text.encode("utf-8")))


def latest_checkpoint(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Optional[str]:
    """The path of the newest checkpoint recorded in `checkpoint_dir` (its state file's
    `model_checkpoint_path`, if inside the directory), or None."""
    latest = _read_state(os.path.abspath(os.fspath(checkpoint_dir))).latest
    return latest if latest is not None and os.path.isfile(latest + _SUFFIX) else None


class CheckpointManager:
    """Saves numbered checkpoints in `directory`, keeping the newest `max_to_keep`.

    It tracks and deletes only its own checkpoints, `<directory>/<checkpoint_name>-<n>`: what
    the directory's state file lists under other names or elsewhere is left alone (TensorFlow
    deletes whatever that file lists, '../x' included)."""

    def __init__(self, checkpoint: Checkpoint, directory: str, max_to_keep: Optional[int],
                 keep_checkpoint_every_n_hours: Any = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: Any = None,
                 init_fn: Any = None) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._own_name = re.compile(re.escape(os.path.normpath(os.path.abspath(self._prefix)))
                                    + r"-(?:0|-?[1-9][0-9]*)")
        self._init_fn = init_fn
        listed = _read_state(os.path.abspath(self._directory)).paths
        self._checkpoints = [p for p in listed if self._owns(p) and os.path.isfile(p + _SUFFIX)]

    def _owns(self, path: str) -> bool:
        """Whether `path` is a checkpoint this manager could have written."""
        return self._own_name.fullmatch(os.path.normpath(path)) is not None

    def _delete(self, path: str) -> None:
        """Deletes the file of checkpoint `path` if it is this manager's own."""
        file = path + _SUFFIX
        if self._owns(path) and (os.path.isfile(file) or os.path.islink(file)):
            os.unlink(file)

    @property
    def directory(self) -> str:
        """The directory the checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The `tf.train.Checkpoint` this manager saves and restores."""
        return self._checkpoint

    @property
    def checkpoints(self) -> list:
        """The paths of the kept checkpoints, oldest first."""
        return [self._display(p) for p in self._checkpoints]

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """The newest checkpoint's path, or None."""
        return self._display(self._checkpoints[-1]) if self._checkpoints else None

    def _display(self, path: str) -> str:
        # Paths as the user wrote the directory (relative stays relative).
        return os.path.join(self._directory,
                            os.path.relpath(path, os.path.abspath(self._directory)))

    def save(self, checkpoint_number: Optional[int] = None, check_interval: bool = True,
             options: Any = None) -> str:
        """Writes the next checkpoint, records it, deletes the oldest beyond `max_to_keep`."""
        counter = self._checkpoint.save_counter
        if checkpoint_number is None:
            counter.assign_add(np.int64(1))
            number = int(counter.numpy())
        else:
            number = int(checkpoint_number)
            counter.assign_add(np.int64(1))
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        absolute = os.path.abspath(path)
        self._checkpoints = [p for p in self._checkpoints
                             if os.path.abspath(p) != absolute] + [absolute]
        removed = []
        if self._max_to_keep is not None:
            while len(self._checkpoints) > self._max_to_keep:
                removed.append(self._checkpoints.pop(0))
        _write_state(os.path.abspath(self._directory), self._checkpoints)
        for old in removed:  # deleted only once the state file no longer lists them
            self._delete(old)
        return path

    def restore_or_initialize(self) -> Optional[str]:
        """Restores the latest checkpoint if any (returns its path), else runs `init_fn`."""
        if self._checkpoints:
            self._checkpoint.restore(self._checkpoints[-1])
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None


def list_variables(ckpt_dir_or_file: str) -> list:
    """(key, shape) for every value in a checkpoint (a directory or a save path)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path)
        if path is None:
            raise NotFoundError(None, None, f"No checkpoint found in {ckpt_dir_or_file}")
    arrays = _read(path)
    return sorted((k, list(v.shape)) for k, v in arrays.items())


__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "latest_checkpoint",
           "list_variables"]
