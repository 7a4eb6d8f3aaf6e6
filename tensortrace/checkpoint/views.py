"""``tf.train.CheckpointView`` and ``tf.train.TrackableView``: the object graph saved in a
checkpoint and the one of live objects, and how they match (which saved nodes have live
objects, which are only in one of them).

    view = tf.train.CheckpointView(path)
    view.children(0)                       # {"model": 1, "save_counter": 2}
    matched, only_saved, only_live = view.diff(root)
"""

import collections

from .. import _logging, _protos, errors
from .._export import tf_export
from . import bundle, graph_view, tracking


@tf_export("train.TrackableView")
class TrackableView:
    """The trackable objects reachable from ``root``."""

    def __init__(self, root):
        self._root = root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """``{local name: child}`` of one object (TF's Trackable protocol, an object's own
        ``_trackable_children(save_type)``, where it has one: a list, dict or tuple it names is
        wrapped as an attribute would be, so that what it holds is walked too)."""
        if callable(getattr(type(obj), "_trackable_children", None)):
            return {name: tracking.wrap_or_unwrap(child) for name, child in
                    obj._trackable_children(save_type, **kwargs).items()}
        return dict(graph_view.children(obj))

    @property
    def root(self):
        return self._root

    def descendants(self):
        """Every object reachable from the root, breadth first (the root first), through this
        class's ``children`` (a subclass may walk another save type)."""
        nodes = graph_view.walk(self._root, lambda o: list(type(self).children(o).items()))
        return [node.obj for node in nodes]


@tf_export("train.CheckpointView")
class CheckpointView:
    """The object graph stored in a checkpoint."""

    def __init__(self, checkpoint_path):
        reader = bundle.BundleReader(checkpoint_path)
        if graph_view.OBJECT_GRAPH_KEY not in reader:
            raise ValueError(
                f"The specified checkpoint \"{checkpoint_path}\" does not appear to be "
                f"object-based (saved with TF2) since it is missing the key "
                f"\"{graph_view.OBJECT_GRAPH_KEY}\". Likely it was created with the TF1 "
                f"name-based saver and does not contain an object dependency graph.")
        data = reader.read(graph_view.OBJECT_GRAPH_KEY)
        self._proto = _protos.parse(_protos.trackable_object_graph_pb2.TrackableObjectGraph,
                                    data.reshape(-1)[0] if data.size else b"",
                                    f"the object graph of {checkpoint_path}")
        n = len(self._proto.nodes)
        for node in self._proto.nodes:
            for child in node.children:
                if not 0 <= child.node_id < n:
                    raise errors.DataLossError(
                        None, None, f"The object graph of {checkpoint_path} names node "
                        f"{child.node_id} of {n}")

    def children(self, node_id):
        """``{local name: node id}`` of one saved node."""
        return {c.local_name: c.node_id for c in self._proto.nodes[node_id].children}

    def descendants(self):
        """Every node id reachable from the root (0), breadth first."""
        order, seen = [0], {0}
        queue = collections.deque([0])
        while queue:
            for child in self._proto.nodes[queue.popleft()].children:
                if child.node_id not in seen:
                    seen.add(child.node_id)
                    order.append(child.node_id)
                    queue.append(child.node_id)
        return order

    def match(self, obj):
        """``{node id: live object}`` for the saved nodes reached from ``obj`` by the same
        local names (the root is node 0)."""
        if not graph_view.is_trackable(obj):
            raise ValueError(f"Expected a Trackable, got {obj} of type {type(obj)}.")
        matched = {0: obj}
        queue = collections.deque([(0, obj)])
        done = set()
        while queue:
            node_id, current = queue.popleft()
            live = TrackableView.children(current)
            for name, child_id in self.children(node_id).items():
                if child_id in done or child_id == 0 or name not in live:
                    continue
                found = matched.get(child_id)
                if found is None:
                    matched[child_id] = live[name]
                    queue.append((child_id, live[name]))
                elif found is not live[name]:
                    _logging.logger.warning(
                        "Inconsistent references when matching the checkpoint into this object "
                        "graph. The referenced objects are: (%s and %s).", found, live[name])
            done.add(node_id)
        return matched

    def diff(self, obj):
        """``(matched, node ids only in the checkpoint, live objects only in obj's graph)``."""
        matched = self.match(obj)
        only_saved = [i for i in self.descendants() if i not in matched]
        bound = {id(o) for o in matched.values()}
        only_live = [o for o in TrackableView(obj).descendants() if id(o) not in bound]
        return matched, only_saved, only_live
