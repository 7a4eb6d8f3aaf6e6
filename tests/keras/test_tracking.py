"""TF's trackable data structures under ``tf.__internal__.tracking.AutoTrackable`` (lists, dicts
and tuples assigned to attributes wrapped, their trackables children), the SavedModel children
of an AutoTrackable, TrackableView's walk through them, and wrappers in input signatures.
Expected values are what TF 2.21 gives for the same statements."""

import collections
import copy
import pickle

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.checkpoint import tracking

T = tf.__internal__.tracking
Point = collections.namedtuple("Point", "x y")


def _kinds(*values):
    return [type(v).__name__ for v in values]


def test_assignment_wraps_containers_of_trackables():
    o, v = T.AutoTrackable(), tf.Variable(1.0)
    o.l, o.d, o.t, o.p, o.e, o.plain_t = [v, 1, [v]], {"a": v, 1: 2}, (v, 2), 3, [], (1, 2)
    assert _kinds(o.l, o.d, o.t, o.e, o.plain_t) == [
        "ListWrapper", "_DictWrapper", "_TupleWrapper", "ListWrapper", "tuple"]
    assert sorted(o._trackable_children()) == ["d", "e", "l", "t"]
    assert sorted(o.l._trackable_children()) == ["0", "2"]
    assert o.l._trackable_children()["2"] is o.l[2] and type(o.l[2]).__name__ == "ListWrapper"
    assert list(o.d._trackable_children()) == ["a"] and list(o.t._trackable_children()) == ["0"]
    o.n = Point(v, 2)
    assert repr(o.n) == f"_TupleWrapper(Point(x={v!r}, y=2))"
    assert sorted(o.n._trackable_children()) == ["0", "x"]
    assert isinstance(o.n, Point) and o.n.x is v and o.n == Point(v, 2)
    assert len(tf.train.TrackableView(o).descendants()) == 8  # TF 2.21: 8
    assert repr(o.e) == "ListWrapper([])" and o.e == [] and isinstance(o.e, list)
    assert isinstance(o.d, dict) and str(o.d).startswith("{'a': <tf.Variable")
    o.e.append(v)
    assert list(o.e._trackable_children()) == ["0"]
    o.nd = tracking.NoDependency([v])
    assert type(o.nd) is list and "nd" not in o._trackable_children()
    o.t2 = (tracking.NoDependency(v), 1)
    assert type(o.t2).__name__ == "_TupleWrapper" and o.t2[0] is v
    assert o.t2._trackable_children() == {}
    assert T.wrap([1]) == [1] and type(T.wrap([1])).__name__ == "ListWrapper"
    assert T.wrap((1, 2)) == (1, 2) and type(T.wrap((1, 2))) is tuple


@pytest.mark.parametrize("op", ["__setitem__(0, 3)", "pop()", "insert(0, 5)", "remove(1)",
                                "reverse()", "clear()", "__delitem__(0)", "__imul__(0)"])
def test_changing_a_list_of_trackables_makes_it_unsaveable(op):
    x, v = T.AutoTrackable(), tf.Variable(1.0)
    x.l = [v, 1]
    eval("x.l." + op)
    with pytest.raises(ValueError, match=r"Unable to save the object ListWrapper\(.*\) \(a list "
                       r"wrapper constructed to track trackable TensorFlow objects\)\. A list "
                       r"element was replaced"):
        x.l._trackable_children()
    with pytest.raises(TypeError):  # TF's sort takes no key
        x.l.sort(key=id)


def test_list_wrapper_element_names_and_growth():
    x, v = T.AutoTrackable(), tf.Variable(1.0)
    x.l = [1, 2]
    x.l[0] = v  # a non-trackable replaced: still saveable
    assert list(x.l._trackable_children()) == ["0"]
    x.l = [1, 2]
    x.l[-1] = v
    assert list(x.l._trackable_children()) == ["-1"]  # TF names it as indexed
    x.l = [1, 2]
    del x.l[0]
    assert x.l._trackable_children() == {} and x.l == [2]
    x.l = [v]
    x.l *= 2
    assert len(x.l) == 2 and sorted(x.l._trackable_children()) == ["0", "1"]
    x.l += [v]
    assert len(x.l) == 3 and sorted(x.l._trackable_children()) == ["0", "1", "2"]
    x.l = [1, v]
    x.l[0:1] = [7]  # TF: a slice write over a list holding trackables is a mutation
    with pytest.raises(ValueError, match="A list element was replaced"):
        x.l._trackable_children()
    assert x.l + [1] == [7, v, 1] and type(x.l + [1]) is list and type(x.l * 2) is list
    with pytest.raises(TypeError, match="unhashable type: 'ListWrapper'"):
        hash(x.l)


def test_dict_wrapper_keys_copies_and_pickling():
    x, v = T.AutoTrackable(), tf.Variable(1.0)
    x.d = {}
    x.d[3] = v
    with pytest.raises(ValueError, match=r"Unable to save the object \{3: <tf.Variable"):
        x.d._trackable_children()
    x.d2 = {"a": 1}
    x.d2["b"] = [v]
    assert type(x.d2["b"]).__name__ == "ListWrapper" and list(x.d2._trackable_children()) == ["b"]
    with pytest.raises(TypeError, match="unhashable type: 'DictWrapper'"):
        hash(x.d2)
    x.d2.update(c=v)
    assert sorted(x.d2._trackable_children()) == ["b", "c"]
    assert type(copy.copy(x.d2)).__name__ == "_DictWrapper" and copy.copy(x.d2) == x.d2
    assert type(copy.deepcopy(x.d2)).__name__ == "_DictWrapper"
    x.l = [1, [2]]
    again = pickle.loads(pickle.dumps(x.l))
    assert type(again).__name__ == "ListWrapper" and again == [1, [2]]
    x.t = (v, 2)
    assert type(copy.copy(x.t)).__name__ == "_TupleWrapper" and copy.copy(x.t) == (v, 2)


def test_savedmodel_children_include_functions():
    o = T.AutoTrackable()

    @tf.function
    def f(a):
        return a

    o.fns = [f]
    o.f = f
    o.v = tf.Variable(2.0)
    assert list(o.fns._trackable_children("savedmodel")) == ["0"]
    assert list(o.fns._trackable_children()) == ["0"]  # tf.functions are trackable
    assert sorted(o._trackable_children()) == ["f", "fns", "v"]
    assert sorted(o._trackable_children("savedmodel")) == ["f", "fns", "v"]


def test_saved_model_keeps_wrappers_as_lists_and_dicts(tmp_path):
    o, v = T.AutoTrackable(), tf.Variable([1.0, 2.0])
    o.vs, o.named = [v], {"w": v}
    o.f = tf.function(lambda: o.vs[0] * 2, input_signature=[])
    tf.saved_model.save(o, str(tmp_path))
    back = tf.saved_model.load(str(tmp_path))
    assert isinstance(back.vs, list) and isinstance(back.named, dict)
    assert back.vs[0].numpy().tolist() == [1.0, 2.0] and back.named["w"] is back.vs[0]
    assert back.f().numpy().tolist() == [2.0, 4.0]


def test_wrappers_in_an_input_signature_are_lists_and_dicts():
    specs = [tf.TensorSpec([1]), tf.TensorSpec([1, 3])]
    seen = []

    @tf.function(input_signature=(tracking.ListWrapper(specs),))
    def f(inputs):
        seen.append(type(inputs))
        return inputs

    c = f.get_concrete_function()
    assert seen == [list]  # TF 2.21: list, placeholders inside
    assert type(c.structured_input_signature[0][0]) is list
    assert [s.name for s in c.structured_input_signature[0][0]] == ["inputs_0", "inputs_1"]
    out = f([tf.ones([1]), tf.ones([1, 3])])
    assert type(out) is list and out[1].numpy().tolist() == [[1.0, 1.0, 1.0]]

    @tf.function(input_signature=(tracking._DictWrapper({"a": tf.TensorSpec([1])}),))
    def g(inputs):
        return inputs

    assert g.get_concrete_function().structured_input_signature == (
        ({"a": tf.TensorSpec([1], name="inputs_a")},), {})
    assert g({"a": tf.ones([1])})["a"].numpy().tolist() == [1.0]


class _Wrapped(T.Trackable):
    """A variable wrapper saving the variable it holds (as Keras' variables do)."""

    def __init__(self, value):
        self.value = tf.Variable(value)

    def _serialize_to_tensors(self):
        return {"VARIABLE_VALUE": self.value}


def test_checkpoints_walk_the_trackable_protocol(tmp_path):
    root, layer = T.AutoTrackable(), T.AutoTrackable()
    layer.w = _Wrapped(np.array([1.0, 2.0], np.float32))
    root.layers = [layer, 3]
    root.named = {"b": _Wrapped(np.array(5.0, np.float32)), "x": 1}
    root.plain = tf.Variable(7)
    ckpt = tf.train.Checkpoint(root=root)
    path = ckpt.write(str(tmp_path / "ck"))
    assert sorted(n for n, _ in tf.train.list_variables(path)) == [  # TF 2.21's keys
        "_CHECKPOINTABLE_OBJECT_GRAPH", "layers/0/w/.ATTRIBUTES/VARIABLE_VALUE",
        "named/b/.ATTRIBUTES/VARIABLE_VALUE", "plain/.ATTRIBUTES/VARIABLE_VALUE"]
    layer.w.value.assign([0.0, 0.0])
    root.named["b"].value.assign(0.0)
    ckpt.read(path).assert_consumed()
    assert layer.w.value.numpy().tolist() == [1.0, 2.0] and float(root.named["b"].value) == 5.0
