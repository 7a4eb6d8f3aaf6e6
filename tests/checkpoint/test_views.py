"""tf.train.CheckpointView / TrackableView on TF's documented example: the ids, matches and
differences TF 2.21 gives for the same program (run by hand)."""

import pytest

import tensortrace as tf


class SimpleModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_var = tf.Variable(5.0)
        self.b_var = tf.Variable(4.0)
        self.vars = [tf.Variable(1.0), tf.Variable(2.0)]


def test_checkpoint_view(tmp_path):
    root = SimpleModule(name="root")
    leaf = root.leaf = SimpleModule(name="leaf")
    leaf.leaf3 = tf.Variable(6.0, name="leaf3")
    leaf.leaf4 = tf.Variable(7.0, name="leaf4")
    save_path = tf.train.Checkpoint(root).save(str(tmp_path / "tf_ckpts"))
    view = tf.train.CheckpointView(save_path)
    # Checkpoint(root) saves the root's edge to itself ("root": 0), as TF does
    assert view.children(0) == {"a_var": 1, "b_var": 2, "vars": 3, "leaf": 4, "root": 0,
                                "save_counter": 5}
    assert view.children(4) == {"a_var": 8, "b_var": 9, "vars": 10, "leaf3": 11, "leaf4": 12}
    assert view.descendants() == list(range(15))

    root2 = SimpleModule(name="root")
    leaf2 = root2.leaf2 = SimpleModule(name="leaf2")
    leaf2.leaf3 = tf.Variable(6.0)
    leaf2.leaf4 = tf.Variable(7.0)
    matched = view.match(root2)
    assert list(matched) == [0, 1, 2, 3, 6, 7]
    assert matched[0] is root2 and matched[3] is root2.vars and matched[7] is root2.vars[1]
    same, only_saved, only_live = view.diff(root2)
    assert same.keys() == matched.keys()
    assert only_saved == [4, 5, 8, 9, 10, 11, 12, 13, 14]
    assert only_live == [leaf2, leaf2.a_var, leaf2.b_var, leaf2.vars, leaf2.leaf3, leaf2.leaf4,
                         leaf2.vars[0], leaf2.vars[1]]
    assert sorted(tf.train.TrackableView.children(root2)) == ["a_var", "b_var", "leaf2", "vars"]
    tv = tf.train.TrackableView(root2)
    assert tv.root is root2 and len(tv.descendants()) == 14
    with pytest.raises(ValueError, match="^Expected a Trackable, got 5 of type <class 'int'>.$"):
        view.match(5)


def test_name_based_checkpoint_has_no_view(tmp_path):
    from tensortrace.checkpoint import bundle
    import numpy as np
    bundle.write_bundle(str(tmp_path / "b"), {"x": np.ones(2)})
    with pytest.raises(ValueError, match='does not appear to be object-based .saved with TF2. '
                                         'since it is missing the key "_CHECKPOINTABLE_OBJECT'):
        tf.train.CheckpointView(str(tmp_path / "b"))
