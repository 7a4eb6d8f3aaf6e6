"""``tf.train.Checkpoint``: save the variables reachable from a root object as TF's object-based
checkpoint, and restore them by matching the saved object graph against the live objects.

Restoration walks the saved ``TrackableObjectGraph`` from the root, binding each saved node to
the live object found under the same local name. Values for objects that do not exist yet are
kept on their parent and applied when the object is attached later (TF's deferred
restoration): by attribute assignment on a ``tf.Module`` or a ``Checkpoint``, or by adding to a
list or dict held by a ``Checkpoint`` (its ``ListWrapper`` / ``DictWrapper``).

    ckpt = tf.train.Checkpoint(model=model)
    path = ckpt.save("/tmp/ckpt")          # "/tmp/ckpt-1"
    ckpt.restore(path).assert_consumed()
"""

import collections
import inspect
import os
import weakref

import numpy as np

from .. import _logging, _protos, errors, messages, module as _module
from .._export import tf_export
from ..dtypes import int64
from ..shapes import TensorShape
from ..variables import Variable
from . import bundle, graph_view, management

_UNRESTORED = (
    "Detecting that an object or model or tf.train.Checkpoint is being deleted with unrestored "
    "values. See the following logs for the specific values in question. To silence these "
    "warnings, use `status.expect_partial()`. See "
    "https://www.tensorflow.org/api_docs/python/tf/train/Checkpoint#restorefor details about "
    "the status object returned by the restore function.")
_INCONSISTENT = (
    "Inconsistent references when loading the checkpoint into this object graph. For example, "
    "in the saved checkpoint object, `model.layer.weight` and `model.layer_copy.weight` "
    "reference the same variable, while in the current object these are two different "
    "variables. The referenced variables are:({} and {}).")


# ---------------------------------------------------------------------------------------------
# deferred restoration: parent object -> {local name: [(restoration, node id)]}

_pending = {}  # id(parent) -> (weakref to parent, {name: [(restoration, node_id)]})


def _forget(key, pending=_pending, module=_module):
    """Drop a dead parent's entry; with none left, tf.Module needs no attribute hook."""
    pending.pop(key, None)
    if not pending:
        try:
            module.set_attach_hook(None)
        except (AttributeError, TypeError):  # interpreter shutdown: the module is torn down
            pass


def _defer(parent, name, restoration, node_id):
    try:
        ref = weakref.ref(parent, lambda _, key=id(parent), forget=_forget: forget(key))
    except TypeError:  # a plain list or dict: nothing tells us when it grows
        return
    entry = _pending.get(id(parent))
    if entry is None or entry[0]() is not parent:
        entry = _pending[id(parent)] = (ref, {})
    entry[1].setdefault(name, []).append((restoration, node_id))
    _module.set_attach_hook(_on_attach)


def _on_attach(parent, name, value):
    """``parent.name = value`` (or an append to a tracked list): restore what waits for it."""
    if not _pending:
        return
    entry = _pending.get(id(parent))
    if entry is None or entry[0]() is not parent or name not in entry[1]:
        return
    if not graph_view.is_trackable(value):
        return
    waiting = entry[1].pop(name)
    if not entry[1]:
        _forget(id(parent))
    if isinstance(parent, _module.Module) and type(value) in (list, dict):
        # as TF's ListWrapper / DictWrapper: elements added later are restored too
        value = _wrap(value)
        object.__setattr__(parent, name, value)
    for restoration, node_id in waiting:
        restoration.bind(node_id, value)



class ListWrapper(list):
    """A list held by a ``Checkpoint``: elements added later are restored (TF's ListWrapper)."""

    def append(self, value):
        super().append(value)
        _on_attach(self, str(len(self) - 1), value)

    def extend(self, values):
        for v in values:
            self.append(v)

    def __setitem__(self, index, value):
        super().__setitem__(index, value)
        if isinstance(index, int):
            _on_attach(self, str(index % len(self)), value)

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(dict):
    """A dict held by a ``Checkpoint``: values added later are restored (TF's DictWrapper)."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if isinstance(key, str):
            _on_attach(self, key, value)

    def update(self, *args, **kwargs):
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def __repr__(self):
        return f"DictWrapper({dict.__repr__(self)})"


def _wrap(value):
    if type(value) is list:
        return ListWrapper(_wrap(v) for v in value)
    if type(value) is dict:
        return DictWrapper((k, _wrap(v)) for k, v in value.items())
    return value


# ---------------------------------------------------------------------------------------------
# restoring


def _node_names(proto):
    """TF's pretty names of the saved nodes: ``(root).model.layer``."""
    names = {0: "(root)"}
    queue = collections.deque([0])
    while queue:
        node_id = queue.popleft()
        for child in proto.nodes[node_id].children:
            if child.node_id not in names and 0 <= child.node_id < len(proto.nodes):
                names[child.node_id] = f"{names[node_id]}.{child.local_name}"
                queue.append(child.node_id)
    return names


def _lookup_child(obj, name):
    for local_name, child in graph_view.children(obj):
        if local_name == name:
            return child
    return None


class _Restoration:
    """One ``read``: the checkpoint's reader and object graph, and which saved node is bound to
    which live object. Lives as long as a status or a deferred value refers to it."""

    def __init__(self, reader, proto, save_path):
        self.reader, self.proto, self.save_path = reader, proto, save_path
        # node id -> weak reference to the object (where it takes one): values deferred on a
        # parent must not keep the parent alive
        self._by_node = {}
        self._matched = set()  # node ids ever bound (the warning at deletion reads these)
        self.expect_partial = False

    def bound(self, node_id):
        """The live object bound to ``node_id``, or None."""
        ref = self._by_node.get(node_id)
        obj = ref() if ref is not None else None
        if obj is None and ref is not None:
            del self._by_node[node_id]
        return obj

    @property
    def by_node(self):
        return {i: o for i in list(self._by_node) if (o := self.bound(i)) is not None}

    def _bind_one(self, node_id, obj):
        try:
            self._by_node[node_id] = weakref.ref(obj)
        except TypeError:  # plain containers take no weak references
            self._by_node[node_id] = lambda obj=obj: obj

    def bind(self, node_id, obj, lookup=None):
        """Bind saved node ``node_id`` to ``obj``, restore its value and walk its children
        (``lookup``: the object whose children are searched, when not ``obj`` itself)."""
        todo = collections.deque([(node_id, obj, lookup or obj)])
        nodes = self.proto.nodes
        while todo:
            node_id, obj, lookup = todo.popleft()
            if not 0 <= node_id < len(nodes):
                continue
            current = self.bound(node_id)
            if current is not None:
                if current is not obj:
                    _logging.logger.warning(_INCONSISTENT.format(current, obj))
                continue
            self._bind_one(node_id, obj)
            self._matched.add(node_id)
            node = nodes[node_id]
            if isinstance(obj, Variable):
                for attribute in node.attributes:
                    if attribute.name == graph_view.VARIABLE_VALUE:
                        self._restore_variable(obj, attribute.checkpoint_key)
            elif isinstance(obj, graph_view.PythonState):
                for attribute in node.attributes:
                    if attribute.name == graph_view.PY_STATE:
                        value = self.reader.read(attribute.checkpoint_key)
                        obj.deserialize(value.reshape(-1)[0] if value.size == 1 else value)
            elif graph_view.has_value(obj):
                for attribute in node.attributes:
                    if attribute.name == type(obj)._checkpoint_attribute:
                        suffixes = getattr(type(obj), "_checkpoint_suffixes", None)
                        if suffixes is not None:  # a value of several tensors
                            obj._restore_checkpoint_value({s: self.reader.read(
                                attribute.checkpoint_key + s) for s in suffixes})
                            continue
                        value = self.reader.read(attribute.checkpoint_key)
                        obj._restore_checkpoint_value(value.reshape(-1)[0] if value.size == 1
                                                      else value)
            for child in node.children:
                found = _lookup_child(lookup, child.local_name)
                if found is not None:
                    todo.append((child.node_id, found, found))
                elif self.bound(child.node_id) is None:
                    _defer(obj, child.local_name, self, child.node_id)

    def _restore_variable(self, var, key):
        dtype, shape = self.reader.dtype(key), self.reader.shape(key)
        if dtype != var.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {key}; expected dtype {messages.c_name(var.dtype)} "
                f"does not equal original dtype {messages.c_name(dtype)} [Op:RestoreV2]")
        if not var.shape.is_compatible_with(TensorShape(shape)):
            raise ValueError(f"Received incompatible tensor with shape {TensorShape(shape)} when "
                             f"attempting to restore variable with shape {var.shape} and name "
                             f"{var.name}.")
        var.assign(self.reader.read(key))

    def unresolved(self):
        """Saved nodes holding values that no live object took, as (node id, proto)."""
        return [(i, n) for i, n in enumerate(self.proto.nodes)
                if n.attributes and self.bound(i) is None]

    def __del__(self):
        try:
            if self.expect_partial or not self._matched:
                return
            missing = [(i, n) for i, n in enumerate(self.proto.nodes)
                       if n.attributes and i not in self._matched]
            if missing:
                names = _node_names(self.proto)
                _logging.logger.warning(_UNRESTORED)
                for node_id, _ in missing:
                    _logging.logger.warning("Value in checkpoint could not be found in the "
                                            "restored object: %s", names.get(node_id, node_id))
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to warn with
            pass


def _with_values(objects):
    return [o for o in objects if isinstance(o, (Variable, graph_view.PythonState))
            or graph_view.has_value(o)]


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: checks of how the checkpoint matched the objects."""

    def __init__(self, restoration, view):
        self._restoration = restoration
        self._view = view
        self._seen = []  # every object that was in the graph when a check ran

    def _live_objects(self):
        for node in _walk(self._view):
            obj = node.obj
            if isinstance(obj, (list, tuple, dict)) and not graph_view.children(obj):
                continue
            if not any(obj is s for s in self._seen):
                self._seen.append(obj)
        return self._seen

    def _unmatched(self):
        bound = {id(o) for o in self._restoration.by_node.values()}
        return [o for o in _with_values(self._live_objects()) if id(o) not in bound]

    def assert_consumed(self):
        """Every saved value was restored and every live variable got a value."""
        self.assert_existing_objects_matched()
        names = _node_names(self._restoration.proto)
        for node_id, node in self._restoration.unresolved():
            raise AssertionError(f"Unresolved object in checkpoint {names.get(node_id)}: {node}")
        return self

    def assert_existing_objects_matched(self):
        """Every live object with a value was matched with the checkpoint."""
        unused = self._unmatched()
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed values, "
                f"likely due to changes in the Python program. Showing {shown} of {len(unused)} "
                f"unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root matched."""
        self._live_objects()
        if len(self._restoration.by_node) <= 1:
            unused = self._unmatched()
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically this "
                    "means that the checkpoint does not match the Python program. The following "
                    f"objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to "
                                 f"{self._view} yet.")
        return self

    def expect_partial(self):
        """Silence the warnings about values left unrestored."""
        self._restoration.expect_partial = True
        return self

    def run_restore_ops(self, session=None):
        """Restores ran eagerly already: nothing to run."""

    def initialize_or_restore(self, session=None):
        """Restores ran eagerly already: nothing to run."""


_NONE_SPECIFIED = "No checkpoint specified (save_path=None); nothing is being restored."


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing was restored."""

    def __init__(self, view):
        self._view = view

    def assert_consumed(self):
        raise AssertionError(_NONE_SPECIFIED)

    def assert_existing_objects_matched(self):
        raise AssertionError(_NONE_SPECIFIED)

    def assert_nontrivial_match(self):
        raise AssertionError(_NONE_SPECIFIED)

    def run_restore_ops(self, session=None):
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session=None):
        """Variables are initialized when created: nothing to do."""

    def expect_partial(self):
        return self


# ---------------------------------------------------------------------------------------------
# the Checkpoint


@tf_export("train.CheckpointOptions")
class CheckpointOptions:
    """Options for saving and restoring checkpoints (accepted; files are always written
    locally and synchronously)."""

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint",
                 "experimental_write_callbacks", "enable_async", "experimental_sharding_callback",
                 "experimental_skip_slot_variables")

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


class _RootView:
    """The graph root of a ``Checkpoint(root=...)``: the root's children, then the keyword
    arguments and the save counter attached to it."""

    def __init__(self, root, attached):
        self.root, self.attached = root, attached

    def _checkpoint_children(self):
        return graph_view.children(self.root) + list(self.attached)

    def children_of(self, obj):
        """``graph_view.children`` with the attached children added to the root's."""
        return self._checkpoint_children() if obj is self.root else graph_view.children(obj)

    def __repr__(self):
        return repr(self.root)


def _walk(root):
    """The object graph from a checkpoint's root (the root object itself is node 0)."""
    if isinstance(root, _RootView):
        return graph_view.walk(root.root, root.children_of)
    return graph_view.walk(root)


def _assert_trackable(obj, name):
    if not graph_view.is_trackable(obj):
        raise ValueError(
            f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
            f"`Trackable`), got {obj}. If you believe this object should be trackable (i.e. it is "
            f"part of the TensorFlow Python API and manages state), please open an issue.")


@tf_export("train.Checkpoint")
class Checkpoint:
    """Groups trackable objects (keyword arguments or attributes) to save and restore them."""

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_self_children", {})
        object.__setattr__(self, "_self_save_counter", None)
        object.__setattr__(self, "_self_root", None)
        if root is not None:
            root = root() if isinstance(root, weakref.ref) else root
            _assert_trackable(root, "root")
            object.__setattr__(self, "_self_root", _RootView(root, []))
            kwargs["root"] = root
        for k, v in sorted(kwargs.items(), key=lambda item: item[0]):
            setattr(self, k, v)
            _assert_trackable(getattr(self, k), k)
            if root is not None:  # "root" too: TF saves the root's edge to itself
                existing = _lookup_child(root, k)
                if existing is None:
                    self._self_root.attached.append((k, getattr(self, k)))
                elif existing is not getattr(self, k):
                    raise ValueError(f"Cannot create a Checkpoint with keyword argument {k} if "
                                     f"root.{k} already exists.")

    def __setattr__(self, name, value):
        value = _wrap(value)
        object.__setattr__(self, name, value)
        if name.startswith("_self_"):
            return
        if graph_view.is_trackable(value):
            self._self_children[name] = value
        else:
            self._self_children.pop(name, None)
        _on_attach(self, name, value)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        self._self_children.pop(name, None)

    def _checkpoint_children(self):
        return list(self._self_children.items())

    def _graph_root(self):
        return self._self_root if self._self_root is not None else self

    # --- the save counter ----------------------------------------------------------------------
    @property
    def save_counter(self):
        """An int64 variable counting saves; it numbers ``save``'s checkpoints."""
        self._maybe_create_save_counter()
        return self._self_save_counter

    def _maybe_create_save_counter(self):
        if self._self_save_counter is not None:
            return
        counter = Variable(np.int64(0), dtype=int64, trainable=False, name="save_counter")
        object.__setattr__(self, "_self_save_counter", counter)
        if self._self_root is not None:
            self._self_root.attached.append(("save_counter", counter))
            _on_attach(self._self_root.root, "save_counter", counter)
        else:
            self._self_children["save_counter"] = counter
            _on_attach(self, "save_counter", counter)

    # --- saving -------------------------------------------------------------------------------
    def write(self, file_prefix, options=None):
        """Write a checkpoint at ``file_prefix`` (no numbering, no state file), then run the
        options' write callbacks (given the path when they take an argument); returns it."""
        file_prefix = _path_arg(file_prefix, "file_prefix")
        root = self._graph_root()
        tensors, _ = graph_view.serialize(None, _walk(root))
        bundle.write_bundle(file_prefix, tensors)
        for callback in (options.experimental_write_callbacks or ()) if options else ():
            if inspect.signature(callback).parameters:
                callback(file_prefix)
            else:
                callback()
        return file_prefix

    def save(self, file_prefix, options=None):
        """Save as ``file_prefix-N`` (N: the incremented save counter) and record it in the
        directory's ``checkpoint`` state file; returns the path written."""
        file_prefix = _path_arg(file_prefix, "file_prefix")
        self._maybe_create_save_counter()
        self._self_save_counter.assign_add(1)
        path = self.write(f"{file_prefix}-{int(self._self_save_counter.numpy())}", options)
        management.update_checkpoint_state_internal(
            os.path.dirname(file_prefix), path, all_model_checkpoint_paths=[path],
            save_relative_paths=True)
        return path

    def sync(self):
        """Wait for outstanding saves: every save here completes before it returns."""

    # --- restoring ----------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restore from ``save_path`` without creating the save counter; returns the status."""
        save_path = _path_arg(save_path, "save_path")
        reader = bundle.BundleReader(save_path)
        if graph_view.OBJECT_GRAPH_KEY not in reader:
            raise errors.UnimplementedError(
                None, None, f"The checkpoint at {save_path} has no object graph (a name-based "
                f"checkpoint); only object-based checkpoints are restored")
        data = reader.read(graph_view.OBJECT_GRAPH_KEY)
        proto = _protos.parse(_protos.trackable_object_graph_pb2.TrackableObjectGraph,
                              data.reshape(-1)[0] if data.size else b"",
                              f"the object graph of {save_path}")
        restoration = _Restoration(reader, proto, save_path)
        root = self._graph_root()
        if isinstance(root, _RootView):
            restoration.bind(0, root.root, lookup=root)
        else:
            restoration.bind(0, root)
        return CheckpointLoadStatus(restoration, root)

    def restore(self, save_path, options=None):
        """Restore the values saved at ``save_path`` (a checkpoint prefix, or a SavedModel
        directory) into these objects now, and into objects attached later; returns the
        status."""
        if save_path is None:
            self._maybe_create_save_counter()
            return InitializationOnlyStatus(self._graph_root())
        original = save_path = _path_arg(save_path, "save_path")
        if os.path.isdir(save_path) and (
                os.path.exists(os.path.join(save_path, "variables"))
                or os.path.exists(os.path.join(save_path, "saved_model.pb"))):
            save_path = os.path.join(save_path, "variables", "variables")  # a SavedModel's
        try:
            status = self.read(save_path, options)
        except errors.NotFoundError as e:
            raise errors.NotFoundError(
                None, None, f"Error when restoring from checkpoint or SavedModel at {original}: "
                f"{e.message}\nPlease double-check that the path is correct. You may be missing "
                f"the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').") from None
        self._maybe_create_save_counter()
        return status


def _path_arg(value, name):
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a string or os.PathLike, got {value!r}")
    return value
