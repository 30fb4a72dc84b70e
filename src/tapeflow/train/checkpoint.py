"""`tf.train.Checkpoint`, `CheckpointManager`, `latest_checkpoint`, `load_checkpoint`,
`list_variables`, `load_variable` and `CheckpointReader`, in TensorFlow's checkpoint format.

A checkpoint at `<prefix>` is TensorFlow 2.21's: `<prefix>.index` and
`<prefix>.data-00000-of-00001` (`_tensor_bundle`), holding each variable under the path by
which the object graph reaches it (`model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE`) and that graph
itself (`_CHECKPOINTABLE_OBJECT_GRAPH`, `_object_graph`); TensorFlow restores what tapeflow
writes and the reverse. `save` numbers checkpoints with `save_counter` and names the latest in
the directory's `checkpoint` state file, replaced atomically after the data and the index, so
a crash mid-save leaves the previous checkpoint listed and loadable.

Restoring matches the saved graph to the objects by local names from the root, as TensorFlow
does, and checks every value's dtype (InvalidArgumentError) and shape (ValueError) before
assigning any. What the objects have not created yet (an unbuilt model's weights, an
optimizer's slots) is restored when they create it: the object's `build` and `__call__` finish
the restore (TF's deferred restoration), eagerly even inside a `tf.function`, so a function
that builds the model runs on the restored values; a Checkpoint restores what waits for it
when an attribute is assigned to it (or a variable appended to a list attribute, TF's
`ListWrapper`). tapeflow's earlier `<prefix>.npz` checkpoints still restore (`_legacy_npz`).

A checkpoint holds arrays and names, nothing else: reading one never runs code. A damaged or
crafted file raises DataLossError (NotFoundError where a file is missing) before anything is
assigned or any size it declares is allocated. A `checkpoint` state file is trusted only for
names inside its directory, and a CheckpointManager deletes only files it could have written.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import weakref
from typing import Any, NamedTuple, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import npz_format as _format
from tapeflow.framework.context import init_scope
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from tapeflow.framework.variables import Variable
from tapeflow.train import _legacy_npz
from tapeflow.train import _object_graph as _graph
from tapeflow.train import _tensor_bundle as _bundle

_INDEX_SUFFIX = ".index"
_LEGACY_SUFFIX = ".npz"
_STATE_FILE = "checkpoint"


# -- values: checks and assignment ----------------------------------------------------------

def _dtype_name(dtype: np.dtype) -> str:
    """A NumPy dtype's name as TensorFlow's kernels write it (`float`, `double`)."""
    try:
        return cpp_name(_dtypes.as_dtype(dtype))
    except (TypeError, ValueError, KeyError):
        return str(dtype)   # no TF dtype (a structured or void array in a crafted file)


def _checked_value(variable: Any, value: np.ndarray, name: str, when: str = "",
                   tf_text: bool = False) -> Any:
    """`value` if it fits `variable`: ValueError where its shape differs (TF's class; TF's
    text with `tf_text`), InvalidArgumentError, as TensorFlow's RestoreV2, where its dtype
    does (casting would restore silently changed numbers)."""
    value = np.asarray(value)
    if not variable.shape.is_compatible_with(value.shape):
        if tf_text:
            raise ValueError(f"Received incompatible tensor with shape {value.shape} when "
                             f"attempting to restore variable with shape "
                             f"{tuple(variable.shape)} and name {variable.name}.")
        raise ValueError(f"Shape mismatch restoring {name!r} ('{variable.name}'){when}: the "
                         f"checkpoint has {value.shape}, the variable {tuple(variable.shape)}.")
    expected = variable.dtype
    if expected == _dtypes.string:
        if value.dtype != object:
            raise InvalidArgumentError(None, None, f"{_bundle.RESTORE_OP}tensor_name = {name}; "
                                       f"expected dtype string does not equal original dtype "
                                       f"{_dtype_name(value.dtype)} [Op:RestoreV2]")
        return value
    if value.dtype != np.dtype(expected.as_numpy_dtype):
        raise InvalidArgumentError(None, None, f"{_bundle.RESTORE_OP}tensor_name = {name}; "
                                   f"expected dtype {cpp_name(expected)} does not equal "
                                   f"original dtype {_dtype_name(value.dtype)} [Op:RestoreV2]")
    return value


def _checked_pairs(variables: list, values: list, key: str, when: str = "") -> list:
    """(variable, value) pairs, each checked (so raising before any is assigned); values are
    named '<key>/<i>' in errors (`save_counter` by itself)."""
    if key == "save_counter":
        return [(variables[0], _checked_value(variables[0], values[0], key, when))]
    return [(variable, _checked_value(variable, value, f"{key}/{i}" if key else f"{i}", when))
            for i, (variable, value) in enumerate(zip(variables, values))]


def _assign_all(assignments: list) -> None:
    """Assigns eagerly, outside any tf.function being traced: a restore that a traced call
    triggers (a model built inside the function) sets the variables' values, not an op of
    that trace."""
    with init_scope():
        for variable, value in assignments:
            variable.assign(value)


# -- what is saved for an object -------------------------------------------------------------

def _full_name(variable: Any) -> str:
    """The variable's name as TF records it: a Keras variable's path, else its name."""
    path = getattr(variable, "path", None)
    if isinstance(path, str):
        return path
    name = str(getattr(variable, "name", ""))
    return name[:-2] if name.endswith(":0") else name


def _dtype_of(variable: Any) -> _dtypes.DType:
    dtype = variable.dtype
    return dtype if isinstance(dtype, _dtypes.DType) else _dtypes.as_dtype(dtype)


# -- deferred restoration: finishing a restore when an object creates its variables ---------
_WAITING = "_checkpoint_waiting_restores"   # [(restore, owner's node id)] (TF format)
_PENDING = "_checkpoint_pending_values"     # positional values (tapeflow's old format)


def _owns_children(obj: Any) -> bool:
    """Whether `obj` makes its own children later (a model's `build`/`__call__`, an
    optimizer's `build`, a Checkpoint's attribute assignments): where a restore waits for
    what is not there yet."""
    if isinstance(obj, Checkpoint):
        return True
    return any(name in vars(k) for k in type(obj).__mro__[:-1] for name in ("build", "__call__"))


def _wait_for_build(obj: Any) -> None:
    """Swaps `obj`'s class for a same-named subclass whose `build` and `__call__` finish the
    waiting restores after running; the original class comes back once none waits. When the
    weights are made inside `__call__` (a subclassed model's sublayers), that first call runs
    again on the restored values, so its outputs are the restored model's, as TF's (its side
    effects, such as a random draw, happen twice)."""
    cls = type(obj)
    if "_checkpoint_original_class" in vars(cls) or isinstance(obj, Checkpoint):
        return   # (a Checkpoint resumes on attribute assignment)
    hooks = {name: _after(cls, name) for name in ("build", "__call__")
             if any(name in vars(k) for k in cls.__mro__[:-1])}
    obj.__class__ = type(cls.__name__, (cls,), {
        "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "_checkpoint_original_class": cls, **hooks})


def _after(cls: type, name: str) -> Any:
    method = getattr(cls, name)

    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = method(self, *args, **kwargs)
        if _resume(self) and name == "__call__":
            result = method(self, *args, **kwargs)
        return result
    hooked.__name__ = name
    return hooked


def _resume(obj: Any) -> bool:
    """Finishes what restores wait to give `obj`; whether it assigned anything."""
    assigned = False
    waiting = obj.__dict__.pop(_WAITING, [])
    for restore, node_id in waiting:
        assigned |= restore.resume(obj, node_id)
    values = obj.__dict__.get(_PENDING)
    if values is not None:
        variables = _legacy_npz.variables_of(obj)
        if len(variables) >= len(values):
            del obj.__dict__[_PENDING]
            if len(variables) != len(values):
                raise ValueError(f"Checkpoint holds {len(values)} values for this object "
                                 f"but, once built, it has {len(variables)} variables.")
            _assign_all(_checked_pairs(variables, values, "", " once built"))
            assigned = True
    if not obj.__dict__.get(_WAITING) and _PENDING not in obj.__dict__:
        original = vars(type(obj)).get("_checkpoint_original_class")
        if original is not None:
            obj.__class__ = original
    return assigned


def _is_waiting(obj: Any) -> bool:
    """Whether `obj` still waits for values a restore deferred."""
    if getattr(obj, "_deferred_values", None) is not None:
        return True
    return bool(obj.__dict__.get(_WAITING)) or _PENDING in getattr(obj, "__dict__", {})


# -- a restore from TensorFlow's format ------------------------------------------------------

def _node_names(nodes: list) -> dict:
    """{node id: '(root).model.dense'}, TF's names of the saved nodes in its messages."""
    names = {0: "(root)"}
    queue = [0]
    for node_id in queue:
        for child, local in nodes[node_id].children:
            if child not in names:
                names[child] = f"{names[node_id]}.{local}"
                queue.append(child)
    for node_id, node in enumerate(nodes):
        for slot in node.slot_variables:
            names[slot.slot_variable_node_id] = (
                f"{names.get(node_id)}'s state '{slot.slot_name}' for "
                f"{names.get(slot.original_variable_node_id)}")
    return names


def _valued_nodes(nodes: list) -> set:
    """The ids of the nodes that hold a value or lead to one (a walk up the parent links from
    the nodes with values: linear in the graph's size whatever its shape)."""
    parents: dict = {}
    for i, node in enumerate(nodes):
        for child, _ in node.children:
            parents.setdefault(child, []).append(i)
    valued = {i for i, node in enumerate(nodes) if node.attributes}
    queue = list(valued)
    for node_id in queue:
        for parent in parents.get(node_id, ()):
            if parent not in valued:
                valued.add(parent)
                queue.append(parent)
    return valued


def _node_text(node: Any) -> str:
    """A node in protobuf's text format, as TF's assertion messages print it."""
    lines = []
    for child, local in node.children:
        lines += ["children {", f"  node_id: {child}", f'  local_name: "{local}"', "}"]
    for a in node.attributes:
        lines += ["attributes {", f'  name: "{a.name}"', f'  full_name: "{a.full_name}"',
                  f'  checkpoint_key: "{a.checkpoint_key}"', "}"]
    if node.has_checkpoint_values is not None:
        flag = "  value: true\n" if node.has_checkpoint_values else ""
        lines.append("has_checkpoint_values {\n" + flag + "}")
    return "\n".join(lines) + "\n"


def _warn_unrestored(nodes: list, restored: set, names: dict, partial: list) -> None:
    """TF's warnings about checkpointed values that were never restored."""
    missing = [i for i, node in enumerate(nodes) if node.attributes and i not in restored]
    if partial[0] or not missing:
        return
    logger = logging.getLogger("tapeflow")
    logger.warning("Detecting that an object or model or tf.train.Checkpoint is being deleted "
                   "with unrestored values. See the following logs for the specific values in "
                   "question. To silence these warnings, use `status.expect_partial()`. See "
                   "https://www.tensorflow.org/api_docs/python/tf/train/Checkpoint#restore"
                   "for details about the status object returned by the restore function.")
    for node_id in missing:
        logger.warning("Value in checkpoint could not be found in the restored object: "
                       f"{names.get(node_id)}")


class _Restore:
    """One restore of a TF-format checkpoint: the saved graph matched to the objects by local
    names, kept while objects still have to create what the checkpoint holds for them."""

    def __init__(self, reader: _bundle.BundleReader, nodes: list, root: Any) -> None:
        self.reader, self.nodes, self.root = reader, nodes, root
        self.matched = {0: root}          # node id -> object
        self.restored: set = set()        # node ids whose values were assigned
        self.unused_attributes: dict = {}  # node id -> saved attributes the object lacks
        self.valued = _valued_nodes(nodes)
        self.names = _node_names(nodes)
        self.partial = [False]            # set by `expect_partial`
        # When this restore is dropped (no status nor waiting object holds it), TF's warnings
        # name the values nothing took, unless `expect_partial` was called.
        weakref.finalize(self, _warn_unrestored, nodes, self.restored, self.names, self.partial)

    def run(self, start: int, owner: Any) -> tuple:
        """Matches the subtree under node `start` (object `owner`'s): the checked
        (variable, value) assignments, and {id(owner): (owner, its node id)} for the objects
        that lack children the checkpoint holds values under."""
        queue, seen = [start], {start}
        owners = {start: (owner, start)}   # node id -> (its owner, the owner's node id)
        assignments, waiting = [], {}
        for node_id in queue:
            obj, node = self.matched[node_id], self.nodes[node_id]
            if node.attributes and node_id not in self.restored:
                assignments += self._values(node_id, obj, node)
            present = dict(_graph.children(obj))
            for child_id, local in node.children:
                child = present.get(local)
                if child is None:
                    holder, holder_id = owners[node_id]
                    if child_id in self.valued and _owns_children(holder):
                        waiting[id(holder)] = (holder, holder_id)
                    continue
                if child_id in seen or (child_id in self.restored and
                                        self.matched.get(child_id) is child):
                    continue
                self.matched[child_id] = child
                seen.add(child_id)
                owners[child_id] = (child, child_id) if _owns_children(child) else \
                    owners[node_id]
                queue.append(child_id)
        return assignments, waiting

    def _values(self, node_id: int, obj: Any, node: Any) -> list:
        targets = _graph.values_of(obj)
        out = []
        for attribute in node.attributes:
            target = targets.get(attribute.name)
            if target is None:
                self.unused_attributes.setdefault(node_id, []).append(attribute.name)
                continue
            key = attribute.checkpoint_key
            if key not in self.reader.entries:
                raise NotFoundError(None, None, f"Key {key} not found in checkpoint")
            value = self.reader.read(key)
            out.append((target, _checked_value(target, value, key, tf_text=True)))
        self.restored.add(node_id)
        return out

    def start(self) -> None:
        """Restores what exists now; the rest waits for its objects' builds."""
        assignments, waiting = self.run(0, self.root)
        _assign_all(assignments)
        self._wait(waiting)

    def resume(self, owner: Any, node_id: int) -> bool:
        """Continues under `owner` (node `node_id`) once it built; whether it assigned."""
        assignments, waiting = self.run(node_id, owner)
        _assign_all(assignments)
        self._wait(waiting)
        return bool(assignments)

    def _wait(self, waiting: dict) -> None:
        for holder, node_id in waiting.values():
            entries = holder.__dict__.setdefault(_WAITING, [])
            if not any(r is self and n == node_id for r, n in entries):
                entries.append((self, node_id))
            _wait_for_build(holder)


# -- what a restore returns ------------------------------------------------------------------

class CheckpointLoadStatus:
    """What `restore`/`read` matched, with TensorFlow's assertion methods."""

    def __init__(self, restore: _Restore) -> None:
        self._restore = restore

    def _python_objects(self) -> list:
        """The objects with values reachable from the root now."""
        return [obj for _, obj, _, _ in _graph.walk(self._restore.root) if _graph.values_of(obj)]

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Raises AssertionError unless every value in the checkpoint was restored (values
        waiting for an object's build count once it is built) and every object with values
        was matched."""
        self.assert_existing_objects_matched()
        restore = self._restore
        for node_id, node in enumerate(restore.nodes):
            if node.attributes and node_id not in restore.restored:
                raise AssertionError(f"Unresolved object in checkpoint "
                                     f"{restore.names.get(node_id)}: {_node_text(node)}")
        if restore.unused_attributes:
            lines = "\n".join(f"{restore.names.get(i)} ({restore.matched.get(i)}): {names}"
                              for i, names in restore.unused_attributes.items())
            raise AssertionError("Unused attributes in these objects (the attributes exist "
                                 f"in the checkpoint but were not restored):\n{lines}")
        return self

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """Raises AssertionError if an object with values (a variable) reachable from the
        root has no value in the checkpoint."""
        matched = {id(obj) for obj in self._restore.matched.values()}
        unused = [obj for obj in self._python_objects() if id(obj) not in matched]
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed "
                f"values, likely due to changes in the Python program. Showing {shown} of "
                f"{len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        """Raises AssertionError if nothing beyond the root matched."""
        if len(self._restore.matched) <= 1:
            unused = self._python_objects()
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to "
                                 f"{self._restore.root} yet.")
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Silences the warnings logged when values of the checkpoint were never restored."""
        self._restore.partial[0] = True
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: values are restored eagerly."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values are restored eagerly."""


class InitializationOnlyStatus:
    """What `restore(None)` returns (no checkpoint to restore): its assertions always fail."""

    def __init__(self, root: Any) -> None:
        self._root = root

    def _fail(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_consumed(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()

    def assert_existing_objects_matched(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()

    def assert_nontrivial_match(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()

    def run_restore_ops(self, session: Any = None) -> None:
        """Always fails: no restore ops exist."""
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to do: variables are initialized when created."""

    def expect_partial(self) -> "InitializationOnlyStatus":
        """Returns self."""
        return self


class _LegacyLoadStatus(CheckpointLoadStatus):
    """What restoring one of tapeflow's earlier `.npz` checkpoints matched."""

    def __init__(self, unmatched_saved: list, unmatched_objects: list, deferred: list) -> None:
        self._unmatched_saved = unmatched_saved
        self._unmatched_objects = unmatched_objects
        self._deferred = deferred   # (key, object) restored when the object builds

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Raises AssertionError unless every saved value and every object was matched
        (objects restored on build count once they are built)."""
        deferred = [key for key, obj in self._deferred if _is_waiting(obj)]
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
        """Checks nothing for the old format; returns self."""
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Returns self (nothing is logged for the old format)."""
        return self


# -- tf.train.Checkpoint ---------------------------------------------------------------------

class Checkpoint:
    """Groups objects to save and restore together: `Checkpoint(model=m, optimizer=opt)`."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        for key, value in kwargs.items():
            if value is None:
                raise ValueError(f"`Checkpoint` was expecting a trackable object for "
                                 f"{key!r}, got None.")
            _check_trackable(key, value)
        if root is not None:
            _check_trackable("root", root)
        self._root = root
        self._objects = dict(sorted(kwargs.items()))   # TF adds them sorted by name
        self._save_counter: Optional[Variable] = None

    def __getattr__(self, name: str) -> Any:
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        """An attribute assigned after construction is a dependency too (after the keyword
        arguments, in assignment order), as TF's: a list becomes a `ListWrapper`, and what a
        restore was waiting to give it is restored now (and on the list's appends)."""
        if name.startswith("_") or name == "save_counter":
            object.__setattr__(self, name, value)
            return
        if isinstance(value, list) and not isinstance(value, ListWrapper):
            value = ListWrapper(value, self)
        self._objects.pop(name, None)
        self._objects[name] = value
        _resume(self)

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting saves, created on first use (then saved)."""
        if self._save_counter is None:
            with init_scope():
                self._save_counter = Variable(0, dtype=_dtypes.int64, trainable=False,
                                              name="save_counter")
        return self._save_counter

    def _checkpoint_children(self) -> list:
        """The checkpoint's objects, in TF's order: the root's children, the keyword
        arguments by name, then `save_counter` once created."""
        out = _graph.children(self._root) if self._root is not None else []
        out += list(self._objects.items())
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    # -- writing ------------------------------------------------------------------------------
    def _tensors(self) -> dict:
        """{checkpoint key: (value, dtype)} of every value and the object graph, in the order
        TF writes them (the graph's breadth-first order, the graph last)."""
        tensors, nodes = {}, []
        for _, obj, path, refs in _graph.walk(self):
            attributes = []
            for name, variable in _graph.values_of(obj).items():
                key = _graph.attribute_key(path, name)
                tensors[key] = (np.asarray(variable.numpy()), _dtype_of(variable))
                attributes.append(_graph.Attribute(name, _full_name(variable), key))
            nodes.append(_graph.Node(refs, attributes, [], None))
        valued = _valued_nodes(nodes)
        nodes = [n._replace(has_checkpoint_values=i in valued) for i, n in enumerate(nodes)]
        tensors[_graph.OBJECT_GRAPH_KEY] = (np.array(_graph.encode(nodes), dtype=object),
                                            _dtypes.string)
        return tensors

    def write(self, file_prefix: str, options: Any = None) -> str:
        """Writes the checkpoint at exactly `file_prefix` (no counter, no state file)."""
        file_prefix = os.fspath(file_prefix)
        _bundle.write_bundle(file_prefix, self._tensors())
        return file_prefix

    def save(self, file_prefix: str, options: Any = None) -> str:
        """Increments `save_counter`, writes `<file_prefix>-<counter>`, records it as the
        directory's latest checkpoint, and returns that path."""
        counter = self.save_counter
        with init_scope():
            counter.assign_add(np.int64(1))
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path)
        directory = os.path.dirname(os.path.abspath(path))
        previous = _read_state(directory).paths
        absolute = os.path.abspath(path)
        _write_state(directory, [p for p in previous if p != absolute] + [absolute])
        return path

    # -- reading ------------------------------------------------------------------------------
    def read(self, save_path: str, options: Any = None) -> CheckpointLoadStatus:
        """Restores the checkpoint at `save_path` (TF's format, or tapeflow's older `.npz`)."""
        save_path = os.fspath(save_path)
        if os.path.isfile(save_path + _INDEX_SUFFIX):
            return self._read_bundle(save_path)
        if os.path.isfile(save_path + _LEGACY_SUFFIX):
            return self._read_legacy(_format.read_arrays(save_path + _LEGACY_SUFFIX))
        _raise_missing(save_path)

    def restore(self, save_path: Optional[str], options: Any = None) -> Any:
        """Restores from `save_path` (as returned by `save`); `None` restores nothing and
        returns an `InitializationOnlyStatus`."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        status = self.read(save_path)
        self.save_counter   # noqa: B018 - created now, as TF's restore creates it
        return status

    def _read_bundle(self, save_path: str) -> CheckpointLoadStatus:
        reader = _bundle.BundleReader(save_path)
        if _graph.OBJECT_GRAPH_KEY not in reader.entries:
            raise InvalidArgumentError(None, None, f"The checkpoint at {save_path} has no "
                                       f"object graph ({_graph.OBJECT_GRAPH_KEY}): it was "
                                       "written by a name-based tf.compat.v1 Saver, which "
                                       "tapeflow does not restore.")
        nodes = _graph.decode(reader.read(_graph.OBJECT_GRAPH_KEY).item())
        root = nodes[0]
        if any(local == "save_counter" for _, local in root.children):
            self.save_counter   # noqa: B018 - exists before matching, so it is restored
        restore = _Restore(reader, nodes, self)
        restore.start()
        return CheckpointLoadStatus(restore)

    def _read_legacy(self, arrays: _format.SavedArrays) -> CheckpointLoadStatus:
        # Everything is checked before anything is assigned: a failed restore leaves every
        # object as it was.
        objects = dict(self._objects)
        if self._root is not None:
            objects["root"] = self._root
        assignments, deferrals = _legacy_npz.plan(arrays, objects, self.save_counter,
                                                  _checked_pairs)
        _assign_all(assignments)
        for obj, values in deferrals:
            if hasattr(obj, "_defer_restore"):
                obj._defer_restore(values)
            else:
                obj.__dict__[_PENDING] = list(values)
                _wait_for_build(obj)
        saved, missing = _legacy_npz.unmatched(arrays, objects)
        deferred = [(k, o) for k, o in objects.items() if any(o is d for d, _ in deferrals)]
        return _LegacyLoadStatus(saved, missing, deferred)


class ListWrapper(list):
    """A list assigned to a Checkpoint's attribute (TF's `ListWrapper`): appending a variable
    restores what a restore was waiting to give it."""

    def __init__(self, items: Any, owner: "Checkpoint") -> None:
        super().__init__(items)
        self._owner = owner

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"

    def _changed(self) -> None:
        _resume(self._owner)


def _notifying(name: str) -> Any:
    method = getattr(list, name)

    def changed(self: ListWrapper, *args: Any) -> Any:
        result = method(self, *args)
        self._changed()
        return result
    changed.__name__ = name
    return changed


for _name in ("append", "extend", "insert", "__setitem__", "__iadd__"):
    setattr(ListWrapper, _name, _notifying(_name))


def _check_trackable(key: str, value: Any) -> None:
    """ValueError, as TF's, for what TF does not track (a Keras 3 metric is none of TF's
    Trackables)."""
    metric = type(value).__module__.startswith("tapeflow.keras.metrics")
    if not metric and (isinstance(value, Checkpoint) or _graph.is_trackable(value) or
                       getattr(value, "variables", None) is not None):
        return
    raise ValueError(f"`Checkpoint` was expecting {key} to be a trackable object (an object "
                     f"derived from `Trackable`), got {value}. If you believe this object "
                     "should be trackable (i.e. it is part of the TensorFlow Python API and "
                     "manages state), please open an issue.")


def _raise_missing(save_path: str) -> None:
    """The error for a path with no checkpoint: DataLossError naming what is there instead
    (a Keras file, garbage), else TF's NotFoundError."""
    for candidate in (save_path, save_path + ".index"):
        if os.path.isfile(candidate):
            kind = _format.describe_foreign_file(candidate) or "a file of unrecognized content"
            raise DataLossError(None, None, f"Unable to restore from {save_path}: there is no "
                                f"checkpoint {save_path}.index, and {candidate} is {kind}.")
    raise NotFoundError(None, None, f"Error when restoring from checkpoint or SavedModel at "
                        f"{save_path}: Unsuccessful TensorSliceReader constructor: Failed to "
                        f"find any matching files for {save_path}\n"
                        "Please double-check that the path is correct. You may be missing "
                        "the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")


def _exists(path: str) -> bool:
    """Whether a checkpoint (either format) is at `path`."""
    return os.path.isfile(path + _INDEX_SUFFIX) or os.path.isfile(path + _LEGACY_SUFFIX)


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
    return latest if latest is not None and _exists(latest) else None


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
        self._checkpoints = [p for p in listed if self._owns(p) and _exists(p)]

    def _owns(self, path: str) -> bool:
        """Whether `path` is a checkpoint this manager could have written."""
        return self._own_name.fullmatch(os.path.normpath(path)) is not None

    def _delete(self, path: str) -> None:
        """Deletes the files of checkpoint `path` if it is this manager's own: the index
        first (a checkpoint without it is no checkpoint), then the data shards."""
        if not self._owns(path):
            return
        files = [path + _INDEX_SUFFIX, path + _LEGACY_SUFFIX]
        files += glob.glob(glob.escape(path) + ".data-[0-9][0-9][0-9][0-9][0-9]-of-"
                           "[0-9][0-9][0-9][0-9][0-9]")
        for file in files:
            if os.path.isfile(file) or os.path.islink(file):
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
            with init_scope():
                counter.assign_add(np.int64(1))
            number = int(counter.numpy())
        else:
            number = int(checkpoint_number)
            with init_scope():
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


def _resolve(ckpt_dir_or_file: str) -> str:
    """A checkpoint's prefix: `ckpt_dir_or_file` itself, or a directory's latest checkpoint."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {ckpt_dir_or_file}")
        return latest
    return path


_DT_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


class CheckpointReader:
    """The tensors of a checkpoint by key (`tf.train.load_checkpoint`'s reader)."""

    def __init__(self, prefix: str) -> None:
        prefix = os.fspath(prefix)
        self._prefix = prefix
        if os.path.isfile(prefix + _INDEX_SUFFIX):
            self._bundle: Optional[_bundle.BundleReader] = _bundle.BundleReader(prefix)
            self._arrays = None
        elif os.path.isfile(prefix + _LEGACY_SUFFIX):
            self._bundle = None
            self._arrays = _format.read_arrays(prefix + _LEGACY_SUFFIX)
        else:
            raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: "
                                f"Failed to find any matching files for {prefix}")

    def _keys(self) -> list:
        return list(self._bundle.entries) if self._bundle else list(self._arrays)

    def has_tensor(self, key: str) -> bool:
        """Whether the checkpoint holds a tensor named `key`."""
        return key in self._keys()

    def get_variable_to_shape_map(self) -> dict:
        """{key: shape as a list} of every tensor."""
        if self._bundle:
            return {k: list(e.shape) for k, e in self._bundle.entries.items()}
        return {k: list(v.shape) for k, v in self._arrays.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """{key: tf dtype} of every tensor."""
        if self._bundle:
            return {k: self._bundle.dtype(k) for k in self._bundle.entries}
        return {k: _dtypes.as_dtype(v.dtype) for k, v in self._arrays.items()}

    def get_tensor(self, key: str) -> Any:
        """The value of tensor `key` (a NumPy array; a scalar as a NumPy scalar, a string as
        bytes, as TF's reader returns them)."""
        if not self.has_tensor(key):
            raise NotFoundError(None, None, f"Key {key} not found in checkpoint")
        value = self._bundle.read(key) if self._bundle else np.asarray(self._arrays[key])
        return value[()] if value.ndim == 0 else value

    def debug_string(self) -> bytes:
        """One line per tensor: `key (DT_FLOAT) [2,3]`, keys sorted."""
        lines = []
        for key in sorted(self._keys()):
            dtype = self.get_variable_to_dtype_map()[key]
            shape = ",".join(str(d) for d in self.get_variable_to_shape_map()[key])
            name = _DT_NAMES.get(dtype.name, dtype.name.upper())
            lines.append(f"{key} (DT_{name}) [{shape}]\n")
        return "".join(lines).encode("utf-8")


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A `CheckpointReader` of a checkpoint (a save path, or a directory's latest)."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> list:
    """(key, shape) of every tensor in a checkpoint, keys sorted."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


def load_variable(ckpt_dir_or_file: str, name: str) -> Any:
    """The value of tensor `name` (a trailing ':0' ignored) in a checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint is at `checkpoint_prefix` (tf.compat.v1.train.checkpoint_exists)."""
    return _exists(os.fspath(checkpoint_prefix))


__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "CheckpointReader",
           "InitializationOnlyStatus", "checkpoint_exists", "latest_checkpoint",
           "list_variables", "load_checkpoint", "load_variable"]
