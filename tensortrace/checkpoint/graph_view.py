"""TF's object graph: the breadth-first walk over trackable children that gives every object
its node id and checkpoint key, and the ``TrackableObjectGraph`` proto TF stores beside the
values under ``_CHECKPOINTABLE_OBJECT_GRAPH``.

Trackable objects are variables, ``tf.Module``s (their attributes in assignment order, as TF's
AutoTrackable tracks them), ``tf.random.Generator`` (its ``_state_var``),
``tf.train.experimental.PythonState`` (saved as a string), objects with a
``_checkpoint_children()`` method (``tf.train.Checkpoint``), and the lists, tuples and dicts
held by them (TF's ListWrapper / DictWrapper: children named ``"0"``, ``"1"``, ... or by key).

    nodes = walk(root)      # [Node(id, obj, children=[(local_name, child_id)], path)], TF's order
    tensors, proto = serialize(root)
"""

import abc
import collections

import numpy as np

from .. import _protos, dtypes
from .._export import tf_export
from ..module import Module
from ..random_generator import Generator
from ..tracing.function import PolymorphicFunction
from ..variables import Variable

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
_ESCAPE = "."
_ATTRIBUTES = ".ATTRIBUTES"


class Node:
    """One object of the graph: its id, the object, its children ``[(local_name, child_id)]``
    and the local names from the root to it (the first path the walk found)."""

    __slots__ = ("id", "obj", "children", "path")

    def __init__(self, node_id, obj, path):
        self.id, self.obj, self.children, self.path = node_id, obj, [], path

    def __iter__(self):  # (id, obj, children), as the walk's documented tuple
        return iter((self.id, self.obj, self.children))

    def __repr__(self):
        return f"Node({self.id}, {type(self.obj).__name__}, {self.children})"


PY_STATE = "py_state"


@tf_export("train.experimental.PythonState")
class PythonState(abc.ABC):
    """Python state saved in checkpoints as a string: ``serialize()`` gives it (str or bytes),
    ``deserialize(value)`` takes back the bytes saved."""

    @abc.abstractmethod
    def serialize(self):
        """The state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value):
        """Restore the state from the bytes ``serialize`` gave."""


def is_trackable(value):
    return (isinstance(value, (Variable, Module, Generator, PythonState, list, tuple, dict))
            or hasattr(type(value), "_checkpoint_children") or has_value(value)
            or has_trackable_protocol(value))


def has_trackable_protocol(value):
    """Whether ``value`` lists its own children (TF's ``_trackable_children(save_type)``):
    ``tf.__internal__.tracking`` objects, Keras' layers, models and optimizers."""
    return callable(getattr(type(value), "_trackable_children", None)) and \
        not isinstance(value, PolymorphicFunction)  # no state of its own to checkpoint


def saved_form(value):
    """What a checkpoint or SavedModel stores for ``value``: a wrapper of a variable that
    forwards its saved form to it (TF's ``_serialize_to_tensors`` protocol, as Keras' variables
    do) is that variable; anything else itself."""
    inner = getattr(value, "value", None) if not isinstance(value, Variable) else None
    if isinstance(inner, Variable) and callable(getattr(type(value), "_serialize_to_tensors",
                                                        None)):
        return inner
    return value


def has_value(obj):
    """Objects saving one value of their own (tf.data iterators): their class names the
    attribute (``_checkpoint_attribute``), ``_checkpoint_value()`` gives ``(array, DType)``
    and ``_restore_checkpoint_value(value)`` takes the saved value back. A value of several
    tensors (lookup tables) is a dict ``{suffix: (array, DType)}``, saved under the attribute's
    key plus each suffix and given back as ``{suffix: array}``."""
    return hasattr(type(obj), "_checkpoint_attribute")


def python_state_value(state):
    """``state.serialize()`` as a string tensor's value (bytes)."""
    value = state.serialize()
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")


def children(obj):
    """The trackable children of ``obj`` as ``[(local_name, child)]``, in TF's order."""
    if isinstance(obj, (Variable, PythonState)) or has_value(obj):
        return []
    hook = getattr(type(obj), "_checkpoint_children", None)
    if hook is not None:
        return list(hook(obj))
    if isinstance(obj, (list, tuple)):
        return [(str(i), saved_form(v)) for i, v in enumerate(obj) if is_trackable(v)]
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            if not is_trackable(v):
                continue
            if not isinstance(k, str):
                raise ValueError(
                    f"Unable to save the object {obj!r} (a dictionary wrapper constructed "
                    f"automatically on attribute assignment). The wrapped dictionary contains a "
                    f"non-string key which maps to a trackable object or mutable data "
                    f"structure.\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                    f"non-trackable object; it will be subsequently ignored.")
            out.append((k, saved_form(v)))
        return out
    if isinstance(obj, (Module, Generator)):
        return [(k, saved_form(v)) for k, v in vars(obj).items()
                if not k.startswith("_self_") and is_trackable(v)]
    if has_trackable_protocol(obj):
        return [(k, saved_form(v)) for k, v in obj._trackable_children("checkpoint").items()
                if is_trackable(v)]
    return []


def walk(root, children_fn=None):
    """Every object reachable from ``root``, breadth first, each once (by identity): TF's node
    ids are the positions in this list. ``children_fn(obj)`` replaces ``children`` (a
    SavedModel adds functions and signatures to the same walk)."""
    children_of = children_fn or children
    nodes = [Node(0, root, ())]
    ids = {id(root): 0}
    queue = collections.deque([nodes[0]])
    keep = [root]  # ids stay unique only while the objects are alive
    while queue:
        node = queue.popleft()
        for name, child in children_of(node.obj):
            child_id = ids.get(id(child))
            if child_id is None:
                child_id = len(nodes)
                ids[id(child)] = child_id
                keep.append(child)
                new = Node(child_id, child, node.path + (name,))
                nodes.append(new)
                queue.append(new)
            node.children.append((name, child_id))
    return nodes


def escape_local_name(name):
    """TF's escaping of one path element: ``.`` -> ``..``, ``/`` -> ``.S``."""
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def object_path(path):
    return "/".join(escape_local_name(n) for n in path)


def checkpoint_key(path, attribute=VARIABLE_VALUE):
    """``model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE`` for the object at ``path``."""
    prefix = object_path(path)
    return f"{prefix}/{_ATTRIBUTES}/{escape_local_name(attribute)}" if prefix else \
        f"{_ATTRIBUTES}/{escape_local_name(attribute)}"


def variable_value(var):
    """A variable's value as a NumPy array (strings: an object array of bytes)."""
    return np.asarray(var.numpy())


def serialize(root, nodes=None):
    """``(tensors, proto)``: every variable's value under its checkpoint key (key ->
    ``(array, DType)``), and the ``TrackableObjectGraph`` proto, whose serialized bytes are
    also in ``tensors`` under ``_CHECKPOINTABLE_OBJECT_GRAPH``."""
    if nodes is None:
        nodes = walk(root)
    pb = _protos.trackable_object_graph_pb2
    proto = pb.TrackableObjectGraph()
    tensors, python_states = {}, {}
    for node in nodes:
        p = proto.nodes.add()
        for name, child_id in node.children:
            p.children.add(node_id=child_id, local_name=name)
        if isinstance(node.obj, Variable):
            key = checkpoint_key(node.path)
            p.attributes.add(name=VARIABLE_VALUE, full_name=node.obj._name, checkpoint_key=key)
            tensors[key] = (variable_value(node.obj), node.obj.dtype)
        elif isinstance(node.obj, PythonState):
            key = checkpoint_key(node.path, PY_STATE)
            p.attributes.add(name=PY_STATE, checkpoint_key=key)
            python_states[key] = (np.array(python_state_value(node.obj), dtype=object),
                                  dtypes.string)
        elif has_value(node.obj):
            name = type(node.obj)._checkpoint_attribute
            key = checkpoint_key(node.path, name)
            p.attributes.add(name=name, checkpoint_key=key)
            value = node.obj._checkpoint_value()
            if isinstance(value, dict):  # several tensors (a table's -keys and -values)
                tensors.update({key + suffix: v for suffix, v in value.items()})
            else:
                python_states[key] = value
    tensors.update(python_states)  # TF's data file: the variables, then Python state
    _mark_checkpoint_values(proto)
    tensors[OBJECT_GRAPH_KEY] = (np.array(proto.SerializeToString(), dtype=object),
                                 dtypes.string)
    return tensors, proto


def _mark_checkpoint_values(proto):
    """Set ``has_checkpoint_values`` on each node: it or something below it holds values."""
    parents = collections.defaultdict(set)
    marked = set()
    for node_id, p in enumerate(proto.nodes):
        for child in p.children:
            parents[child.node_id].add(node_id)
        if p.attributes or p.slot_variables or p.HasField("registered_saver"):
            marked.add(node_id)
    todo = list(marked)
    while todo:
        for parent in parents.pop(todo.pop(), ()):
            if parent not in marked:
                marked.add(parent)
                todo.append(parent)
    for node_id, p in enumerate(proto.nodes):
        p.has_checkpoint_values.value = node_id in marked
