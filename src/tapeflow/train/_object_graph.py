"""The object graph of a TensorFlow checkpoint: the `TrackableObjectGraph` proto saved as the
string tensor `_CHECKPOINTABLE_OBJECT_GRAPH`, and the walk that builds it from Python objects.

A node per trackable object, node 0 the root (the `tf.train.Checkpoint`); each node lists its
children (node id, local name), the values saved for it (`SerializedTensor`: attribute name
such as VARIABLE_VALUE, the variable's name, the tensor's key in the bundle) and, for TF1
optimizers, slot variables. Node ids are the order of a breadth-first walk from the root, and
a value's key is the path of local names by which that walk first reached its object, each
name escaped ('.' -> '..', '/' -> '.S'), then '/.ATTRIBUTES/<attribute>': TensorFlow's
`model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE`.

An object's children are what TensorFlow 2.21 + Keras 3.15 track (`children`): a tf.Module's
or any plain object's attributes holding trackable values, in assignment order; a list's
trackable items by index and a dict's by key (TF's ListWrapper/DictWrapper); a Checkpoint's
objects (sorted by name, as TF's constructor adds them) then `save_counter`; a Keras layer's
variables and sublayers by attribute, a Sequential's layers under `_functional/_operations`
(index 0 the input layer), a Functional's under `_operations`; an optimizer's `_variables`,
`_trainable_variables`, `_iterations`, `_learning_rate` and slot lists. Keras 3 on TensorFlow
drops the layers a subclassed model holds in lists or dicts from checkpoints; tapeflow keeps
them (as `blocks/0/...`), so no weight is silently left out.

Decoding checks every node id and is iterative (no recursion on file data).
"""

from __future__ import annotations

from typing import Any, Iterator, NamedTuple, Optional

from tapeflow.framework.errors import DataLossError
from tapeflow.io import _wire

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
ITERATOR_STATE = "ITERATOR_STATE"
_ATTRIBUTES = ".ATTRIBUTES"


class Attribute(NamedTuple):
    """A `SerializedTensor`: a value saved for a node."""
    name: str
    full_name: str
    checkpoint_key: str


class Slot(NamedTuple):
    """A `SlotVariableReference` (TF1-style optimizers)."""
    original_variable_node_id: int
    slot_name: str
    slot_variable_node_id: int


class Node(NamedTuple):
    """A `TrackableObject`: its children ((node id, local name)), attributes and slots."""
    children: list
    attributes: list
    slot_variables: list
    has_checkpoint_values: Optional[bool]


def escape_local_name(name: str) -> str:
    """A local name as it appears in a checkpoint key (TF's `escape_local_name`)."""
    return name.replace(".", "..").replace("/", ".S")


def attribute_key(path: list, attribute: str) -> str:
    """The bundle key of `attribute` of the object reached by local names `path`."""
    return "/".join([escape_local_name(n) for n in path] + [_ATTRIBUTES, attribute])


# -- the proto ---------------------------------------------------------------------------------

def _string(field: int, value: str) -> bytes:
    return _wire.length_delimited(field, value.encode("utf-8")) if value else b""


def _int(field: int, value: int) -> bytes:
    return _wire.varint_field(field, value) if value else b""


def encode(nodes: list) -> bytes:
    """The serialized `TrackableObjectGraph` of `nodes`."""
    out = []
    for node in nodes:
        body = [_wire.length_delimited(1, _int(1, i) + _string(2, name))
                for i, name in node.children]
        body += [_wire.length_delimited(2, _string(1, a.name) + _string(2, a.full_name) +
                                        _string(3, a.checkpoint_key))
                 for a in node.attributes]
        body += [_wire.length_delimited(3, _int(1, s.original_variable_node_id) +
                                        _string(2, s.slot_name) +
                                        _int(3, s.slot_variable_node_id))
                 for s in node.slot_variables]
        if node.has_checkpoint_values is not None:
            body.append(_wire.length_delimited(5, _int(1, int(node.has_checkpoint_values))))
        out.append(_wire.length_delimited(1, b"".join(body)))
    return b"".join(out)


def _fields(payload: bytes) -> dict:
    """{field number: [values]} of one message."""
    found: dict = {}
    for field, _, value in _wire.iter_fields(payload):
        found.setdefault(field, []).append(value)
    return found


def _text(value: Any) -> str:
    if not isinstance(value, bytes):
        raise _wire.WireError("a string field holds a varint")
    return value.decode("utf-8")


def _number(value: Any) -> int:
    if not isinstance(value, int):
        raise _wire.WireError("an integer field is not a varint")
    return _wire.to_signed32(value)


def decode(data: bytes) -> list:
    """The nodes of a serialized `TrackableObjectGraph`; DataLossError where it is not one
    (or names a node that does not exist)."""
    try:
        nodes = []
        for payload in _fields(data).get(1, []):
            fields = _fields(payload)
            children = [(_number(f.get(1, [0])[-1]), _text(f.get(2, [b""])[-1]))
                        for f in map(_fields, fields.get(1, []))]
            attributes = [Attribute(*(_text(f.get(k, [b""])[-1]) for k in (1, 2, 3)))
                          for f in map(_fields, fields.get(2, []))]
            slots = [Slot(_number(f.get(1, [0])[-1]), _text(f.get(2, [b""])[-1]),
                          _number(f.get(3, [0])[-1]))
                     for f in map(_fields, fields.get(3, []))]
            flag = None
            if 5 in fields:
                flag = bool(_fields(fields[5][-1]).get(1, [0])[-1])
            nodes.append(Node(children, attributes, slots, flag))
    except (_wire.WireError, UnicodeDecodeError, TypeError):
        raise DataLossError(None, None, "The checkpoint's object graph "
                            f"({OBJECT_GRAPH_KEY}) is not a valid TrackableObjectGraph "
                            "proto.") from None
    ids = [i for node in nodes for i, _ in node.children]
    ids += [i for node in nodes for s in node.slot_variables
            for i in (s.original_variable_node_id, s.slot_variable_node_id)]
    if not nodes or any(i < 0 or i >= len(nodes) for i in ids):
        raise DataLossError(None, None, "The checkpoint's object graph "
                            f"({OBJECT_GRAPH_KEY}) names a node it does not hold.")
    return nodes


# -- which objects are tracked, and their children ----------------------------------------------

def _keras_classes() -> tuple:
    # Imported here: tapeflow.keras is a sibling API package that imports tapeflow.train.
    from tapeflow.keras.layers.layer import Layer
    from tapeflow.keras.models import Functional, Sequential
    from tapeflow.keras.optimizers.optimizer import Optimizer
    return Layer, Sequential, Functional, Optimizer


class Container:
    """A node with fixed children that is no Python object of the user's (Keras's
    `_functional`, its empty bookkeeping lists): `children` are (name, object) pairs."""

    def __init__(self, children: list) -> None:
        self.children = children




def _empty() -> Container:
    """A new childless node (each is its own node: the walk tells objects apart by identity)."""
    return Container([])

# The bookkeeping attributes Keras 3's Functional carries into a checkpoint (empty nodes).
_FUNCTIONAL_BOOKKEEPING = ("_tracked", "_inbound_nodes", "_outbound_nodes", "_losses",
                           "_losses_override", "call_signature_parameters",
                           "_call_has_context_arg")


def is_variable_like(value: Any) -> bool:
    """Whether `value` is a tf.Variable (a node whose value is saved)."""
    from tapeflow.framework.variables import Variable
    return isinstance(value, Variable)


def _iterator_class() -> type:
    from tapeflow.data.iterator_ops import OwnedIterator
    return OwnedIterator


def values_of(obj: Any) -> dict:
    """{attribute name: variable-like} saved on `obj`'s own node: a variable's value, a
    dataset iterator's state (tapeflow's int64 position vector where TF saves a variant)."""
    if is_variable_like(obj):
        return {VARIABLE_VALUE: obj}
    if isinstance(obj, _iterator_class()):
        return {ITERATOR_STATE: obj.variables[0]}
    return {}


def is_trackable(value: Any) -> bool:
    """Whether `value` is a node of the object graph when an attribute holds it."""
    from tapeflow.module import Module
    if value is None or isinstance(value, (str, bytes, int, float, bool, type)):
        return False
    if is_variable_like(value) or isinstance(value, (Module, Container, list, dict,
                                                      _iterator_class())):
        return True
    if isinstance(value, tuple):
        return any(is_trackable(v) for v in value)
    if hasattr(value, "_checkpoint_children") or hasattr(value, "_checkpoint_values"):
        return True
    layer, _, _, optimizer = _keras_classes()
    return isinstance(value, (layer, optimizer)) or _has_variable_attributes(value)


def _has_variable_attributes(value: Any) -> bool:
    """A plain object (a tf.random.Generator, a user's class) with variables or modules in
    its attributes: an AutoTrackable as TensorFlow sees it."""
    attributes = getattr(value, "__dict__", None)
    if not isinstance(attributes, dict):
        return False
    from tapeflow.module import Module
    return any(is_variable_like(v) or isinstance(v, Module) for v in attributes.values())


def children(obj: Any) -> list:
    """(local name, child) of each object `obj` depends on, in TensorFlow's order."""
    if is_variable_like(obj) or isinstance(obj, _iterator_class()):
        return []
    if isinstance(obj, Container):
        return list(obj.children)
    custom = getattr(obj, "_checkpoint_children", None)
    if callable(custom):
        return list(custom())
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if is_trackable(v)]
    if isinstance(obj, dict):
        return _dict_children(obj)
    layer, sequential, functional, optimizer = _keras_classes()
    if isinstance(obj, sequential):
        return _sequential_children(obj)
    if isinstance(obj, functional):
        return _functional_children(obj, obj.layers) + _compiled_children(obj)
    if isinstance(obj, layer):
        return _layer_children(obj)
    if isinstance(obj, optimizer):
        return [(k, v) for k, v in _attributes(obj) if _optimizer_state(v)]
    return [(k, v) for k, v in _attributes(obj) if is_trackable(v)]


def _optimizer_state(value: Any) -> bool:
    """Whether an optimizer's attribute is a node of Keras 3's: a variable, a list of
    variables (its `_variables`, slot lists), a dict by name (`_trainable_variables_indices`);
    not tapeflow's own caches."""
    if is_variable_like(value):
        return True
    if isinstance(value, list):   # (a MultiOptimizer's `optimizers` too)
        return all(is_variable_like(v) or isinstance(v, _keras_classes()[3]) for v in value)
    if isinstance(value, dict):
        return all((isinstance(k, str) and is_variable_like(v)) or not is_trackable(v)
                   for k, v in value.items())
    return False


def _attributes(obj: Any) -> list:
    from tapeflow.module import Module
    ignored = Module._TF_MODULE_IGNORED_PROPERTIES
    return [(k, v) for k, v in getattr(obj, "__dict__", {}).items()
            if k not in ignored and not k.startswith("_checkpoint")]


def _dict_children(obj: dict) -> list:
    out = []
    for key, value in obj.items():
        if not is_trackable(value):
            continue
        if not isinstance(key, str):
            raise ValueError(f"Unable to save the object {obj} (a dictionary wrapper "
                             "constructed automatically on attribute assignment). The wrapped "
                             "dictionary contains a non-string key which maps to a trackable "
                             "object or mutable data structure.")
        out.append((key, value))
    return out


# Attributes Keras 3.15 names otherwise than tapeflow, by the Keras class that holds them.
_KERAS_NAMES = {"Conv1D": {"kernel": "_kernel"}, "Conv2D": {"kernel": "_kernel"},
                "Conv3D": {"kernel": "_kernel"}}


def _keras_names(obj: Any) -> dict:
    """{tapeflow attribute: Keras 3's} for the Keras class `obj` is (or derives from)."""
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("tapeflow.keras."):
            return _KERAS_NAMES.get(cls.__name__, {})
    return {}


def _layer_children(obj: Any) -> list:
    """A Keras layer's (or subclassed model's) variables and sublayers by attribute (by
    Keras 3's attribute name), then the lists and dicts holding them (see the module
    docstring: after the attributes, so a value also held directly keeps TF's key), then what
    `compile` added."""
    direct, containers = [], []
    names = _keras_names(obj)
    for key, value in _attributes(obj):
        key = names.get(key, key)
        if key in ("_layers", "_trainable_variables", "_non_trainable_variables", "_tracked",
                   "_metrics", "_losses", "_inbound_nodes", "optimizer"):
            continue   # Keras's bookkeeping: the same objects are reached by attribute
        if is_variable_like(value) or (isinstance(value, _keras_classes()[0]) and
                                       not _is_metric(value)):
            direct.append((key, value))
        elif isinstance(value, (list, tuple, dict)) and _holds_layers(value):
            containers.append((key, value))
    return direct + containers + _compiled_children(obj)


def _is_metric(value: Any) -> bool:
    return type(value).__module__.startswith("tapeflow.keras.metrics")


def _holds_layers(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    layer = _keras_classes()[0]
    return any(is_variable_like(v) or isinstance(v, layer) or
               (isinstance(v, (list, tuple, dict)) and _holds_layers(v)) for v in items)


def _compiled_children(model: Any) -> list:
    """What Keras 3's `compile` adds to a model's node: its optimizer."""
    optimizer = getattr(model, "__dict__", {}).get("optimizer")
    if optimizer is None or not getattr(model, "compiled", False):
        return []
    return [("optimizer", optimizer), ("_compiled_trainable_state", _empty())]


def _functional_children(model: Any, operations: list) -> list:
    bookkeeping = [(name, _empty()) for name in _FUNCTIONAL_BOOKKEEPING]
    return bookkeeping + [("_operations", Container(
        [(str(i), op) for i, op in enumerate(operations)]))]


def _sequential_children(model: Any) -> list:
    """Keras 3's Sequential: once built, its layers under `_functional/_operations`, index 0
    the input layer (no variables)."""
    if not model.built:
        return _compiled_children(model)
    functional = Container(_functional_children(model, [_empty()] + list(model.layers)))
    return [("_functional", functional)] + _compiled_children(model)


def walk(root: Any) -> Iterator[tuple]:
    """Breadth-first over the graph from `root`: yields (node id, object, path of local names,
    [(child id, local name)]); each object once (by identity), ids in visiting order."""
    ids = {id(root): 0}
    queue = [(root, [])]
    keep = [root]   # holds the Containers made on the way, so their ids stay unique
    position = 0
    while position < len(queue):
        obj, path = queue[position]
        refs = []
        for name, child in children(obj):
            if id(child) not in ids:
                ids[id(child)] = len(queue)
                queue.append((child, path + [name]))
                keep.append(child)
            refs.append((ids[id(child)], name))
        yield position, obj, path, refs
        position += 1


__all__ = ["Attribute", "Container", "Node", "Slot", "OBJECT_GRAPH_KEY", "VARIABLE_VALUE",
           "ITERATOR_STATE", "attribute_key", "children", "decode", "encode",
           "escape_local_name", "is_trackable", "is_variable_like", "values_of", "walk"]
