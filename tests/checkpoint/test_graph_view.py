"""The object graph: TF's breadth-first node ids, names and checkpoint keys."""

import tensortrace as tf
from tensortrace.checkpoint import graph_view

from ._fixtures import EXPECTED


class _Root:
    """A stand-in checkpoint root: kwargs in sorted order, as tf.train.Checkpoint adds them."""

    def __init__(self, **kw):
        self.kw = dict(sorted(kw.items()))

    def _checkpoint_children(self):
        return list(self.kw.items())


class Sub(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.w = tf.Variable([[1., 2.]], name="w")
        self.b = tf.Variable([0.], name="b")


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.z = tf.Variable(1.)
        self.layers = [Sub(), Sub("second")]
        self.tup = (tf.Variable(2), 5)
        self.d = {"y": tf.Variable(3.), "a.b/c": tf.Variable(4.)}
        self.empty = []
        self.gen = tf.random.Generator.from_seed(1)
        self.z = tf.Variable(9.)  # reassigned: keeps its first position
        self.shared = self.layers[0].w  # found first at depth 2: its key is model/shared


# TF 2.21's TrackableObjectGraph for the objects above (printed with str(proto))
def test_object_graph_matches_tf():
    root = _Root(model=Model(), extra=tf.Variable(7), a=tf.Variable(1))
    tensors, proto = graph_view.serialize(root)
    nodes = graph_view.walk(root)
    assert [n.id for n in nodes] == list(range(20))
    assert nodes[0].children == [("a", 1), ("extra", 2), ("model", 3)]
    assert nodes[3].children == [("z", 4), ("layers", 5), ("tup", 6), ("d", 7), ("empty", 8),
                                 ("gen", 9), ("shared", 10)]
    assert nodes[11].children == [("w", 10), ("b", 17)]
    assert sorted(tensors) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "a/.ATTRIBUTES/VARIABLE_VALUE",
        "extra/.ATTRIBUTES/VARIABLE_VALUE", "model/d/a..b.Sc/.ATTRIBUTES/VARIABLE_VALUE",
        "model/d/y/.ATTRIBUTES/VARIABLE_VALUE", "model/gen/_state_var/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layers/0/b/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layers/1/b/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layers/1/w/.ATTRIBUTES/VARIABLE_VALUE", "model/shared/.ATTRIBUTES/VARIABLE_VALUE",
        "model/tup/0/.ATTRIBUTES/VARIABLE_VALUE", "model/z/.ATTRIBUTES/VARIABLE_VALUE"]
    assert proto.nodes[8].HasField("has_checkpoint_values")  # the empty list: present, false
    assert not proto.nodes[8].has_checkpoint_values.value
    state = proto.nodes[16].attributes[0]
    assert (state.full_name, state.checkpoint_key) == (
        "StateVar", "model/gen/_state_var/.ATTRIBUTES/VARIABLE_VALUE")
    assert tensors["model/z/.ATTRIBUTES/VARIABLE_VALUE"][0] == 9.0


def test_mlp_graph_is_tfs():
    """The MLP of the fixture, rebuilt here, gives TF's proto text (save_counter included)."""
    import numpy as np

    class Dense(tf.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(np.zeros((n_in, n_out), np.float32), name="w")
            self.b = tf.Variable(np.zeros(n_out, np.float32), name="b")

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, 4), Dense(4, 2)]
            self.extras = [tf.Variable(1.5, name="e0"), tf.Variable([1, 2, 3], name="e1")]
            self.config = {"scale": tf.Variable(2.0, name="scale"),
                           "nested": {"inner": tf.Variable([[1.0, -1.0]], name="inner")}}
            self.gen = tf.random.Generator.from_seed(42)
            self.head = Dense(2, 1, name="head")

    root = _Root(model=MLP(), step=tf.Variable(7, dtype=tf.int64))
    root.kw["save_counter"] = tf.Variable(1, dtype=tf.int64, name="save_counter")
    _, proto = graph_view.serialize(root)
    assert str(proto) == EXPECTED["mlp"]["graph"]


def test_escaping():
    assert graph_view.escape_local_name("a.b/c") == "a..b.Sc"
    assert graph_view.checkpoint_key(("x", "a/b")) == "x/a.Sb/.ATTRIBUTES/VARIABLE_VALUE"


def test_walk_with_extra_children():
    """A SavedModel's walk adds children (functions) to the same breadth-first numbering."""
    m = tf.Module()
    m.v = tf.Variable(1.0)
    fn = object()

    def with_functions(obj):
        out = graph_view.children(obj)
        return out + [("f", fn)] if obj is m else out

    nodes = graph_view.walk(m, with_functions)
    assert [(n.id, n.children) for n in nodes] == [(0, [("v", 1), ("f", 2)]), (1, []), (2, [])]
    assert nodes[2].obj is fn and nodes[2].path == ("f",)
    node_id, obj, kids = nodes[0]
    assert (node_id, obj, kids) == (0, m, [("v", 1), ("f", 2)])
