"""tf.train.Checkpoint and CheckpointManager behaviours: deferred restoration, root=, status
objects and their messages, retention policies, atomic saves (TF 2.21's behaviour, checked
against TF by hand where noted)."""

import logging
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors
from tensortrace.checkpoint import bundle


class Sub(tf.Module):
    def __init__(self, value):
        super().__init__()
        self.w = tf.Variable(value)


def _saved(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.sub = Sub([2.0, 3.0])
    m.layers = [Sub([4.0]), Sub([5.0])]
    return tf.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))


def test_deferred_restoration_on_modules(tmp_path):
    path = _saved(tmp_path)
    m = tf.Module()
    status = tf.train.Checkpoint(model=m).restore(path)
    with pytest.raises(AssertionError, match=r"^Unresolved object in checkpoint \(root\)\.model\.v"):
        status.assert_consumed()
    m.v = tf.Variable(0.0)  # restored when attached
    assert m.v.numpy() == 1.0
    m.sub = Sub([0.0, 0.0])  # a sub-module created later: its variables are restored
    assert m.sub.w.numpy().tolist() == [2.0, 3.0]
    m.layers = [Sub([0.0]), Sub([0.0])]
    assert [layer.w.numpy().tolist() for layer in m.layers] == [[4.0], [5.0]]
    status.assert_consumed()


def test_deferred_restoration_nested(tmp_path):
    path = _saved(tmp_path)
    m = tf.Module()
    ckpt = tf.train.Checkpoint(model=m)
    ckpt.restore(path)
    m.sub = tf.Module()  # an empty module first, its variable later
    m.sub.w = tf.Variable([0.0, 0.0])
    assert m.sub.w.numpy().tolist() == [2.0, 3.0]
    m.sub.w = tf.Variable([9.0, 9.0])  # restored once: a replacement keeps its value
    assert m.sub.w.numpy().tolist() == [9.0, 9.0]
    # a list assigned empty and filled later is restored as it fills (TF's ListWrapper)
    m = tf.Module()
    tf.train.Checkpoint(model=m).restore(path).expect_partial()
    m.layers = []
    m.layers.append(Sub([0.0]))
    assert m.layers[0].w.numpy().tolist() == [4.0] and repr(m.layers).startswith("ListWrapper(")


def test_root_argument(tmp_path):
    """Checkpoint(root=m, extra=v): keys from the root; kwargs attached beside its children.
    TF 2.21 lists the same keys and restores the same values (checked by hand)."""
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.sub = tf.Module()
    m.sub.w = tf.Variable([2.0, 3.0])
    path = tf.train.Checkpoint(root=m, extra=tf.Variable(5)).save(str(tmp_path / "rt" / "ck"))
    assert [k for k, _ in tf.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "extra/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE", "sub/w/.ATTRIBUTES/VARIABLE_VALUE",
        "v/.ATTRIBUTES/VARIABLE_VALUE"]
    m2 = tf.Module()
    c2 = tf.train.Checkpoint(root=m2, extra=tf.Variable(0))
    status = c2.restore(path)
    assert (int(c2.extra), int(c2.save_counter)) == (5, 1)
    m2.sub = tf.Module()
    m2.sub.w = tf.Variable([0.0, 0.0])
    m2.v = tf.Variable(0.0)
    assert m2.sub.w.numpy().tolist() == [2.0, 3.0] and m2.v.numpy() == 1.0
    status.assert_consumed()
    with pytest.raises(ValueError, match="^Cannot create a Checkpoint with keyword argument v if "
                                         r"root\.v already exists\.$"):
        tf.train.Checkpoint(root=m, v=tf.Variable(3.0))


def test_status_checks_and_messages(tmp_path):
    path = _saved(tmp_path)
    status = tf.train.Checkpoint().restore(None)
    for check in (status.assert_consumed, status.assert_existing_objects_matched,
                  status.assert_nontrivial_match):
        with pytest.raises(AssertionError, match=r"^No checkpoint specified \(save_path=None\); "
                                                 r"nothing is being restored\.$"):
            check()
    with pytest.raises(AssertionError, match=r"^No checkpoint specified, so no restore ops are "
                                             r"available \(save_path=None to Saver\.restore\)\.$"):
        status.run_restore_ops()
    assert status.expect_partial() is status
    # only the save counter matched: not trivial, as in TF (root + save_counter)
    tf.train.Checkpoint(v=tf.Variable(0.0)).restore(path).assert_nontrivial_match()
    full = tf.train.Checkpoint(model=tf.Module())
    status = full.read(path)  # read: no save counter made, so only the root matched
    with pytest.raises(AssertionError, match="^Nothing to load. No dependencies have been "
                                             "added to"):
        tf.train.Checkpoint().read(path).assert_nontrivial_match()
    assert status.run_restore_ops() is None and status.initialize_or_restore() is None


def test_unrestored_values_warn_unless_expect_partial(tmp_path, caplog):
    path = _saved(tmp_path)
    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        tf.train.Checkpoint(model=tf.Module()).restore(path)
    assert "Detecting that an object or model or tf.train.Checkpoint is being deleted with " \
           "unrestored values." in caplog.text
    assert "Value in checkpoint could not be found in the restored object: (root).model.v" \
        in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        tf.train.Checkpoint(model=tf.Module()).restore(path).expect_partial()
    assert caplog.text == ""


def test_save_numbering_state_and_write(tmp_path):
    v = tf.Variable([1.0])
    ckpt = tf.train.Checkpoint(v=v)
    assert ckpt.save(tmp_path / "a") == str(tmp_path / "a-1")  # os.PathLike accepted
    assert ckpt.save(str(tmp_path / "a")) == str(tmp_path / "a-2")
    # TF's state file from Checkpoint.save: only the latest path, relative, no timestamps
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "a-2"\nall_model_checkpoint_paths: "a-2"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "a-2")
    assert ckpt.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert int(ckpt.save_counter) == 2  # write neither counts nor records
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "a-2")
    os.remove(tmp_path / "a-2.index")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_save_is_atomic(tmp_path, monkeypatch):
    """A save that fails midway leaves the previous checkpoint whole and no temporaries."""
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    ckpt.write(str(tmp_path / "c"))
    v.assign([7.0, 8.0])
    real = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if dst.endswith(".index"):
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        ckpt.write(str(tmp_path / "c"))
    monkeypatch.setattr(os, "replace", real)
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
    # the old index names offsets in the data file that was replaced: the values it reads are
    # still checked by their CRCs, so a mismatch is DataLoss, never wrong values
    reader = bundle.BundleReader(str(tmp_path / "c"))
    try:
        value = reader.read("v/.ATTRIBUTES/VARIABLE_VALUE")
    except errors.DataLossError:
        pass
    else:
        assert value.tolist() in ([1.0, 2.0], [7.0, 8.0])


def test_manager_retention(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("time.time", lambda: clock[0])
    v = tf.Variable(0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2,
                                         keep_checkpoint_every_n_hours=1)
    for i in range(5):
        clock[0] += 1800  # half an hour apart: ckpt-2 is preserved (as TF 2.21 keeps it)
        v.assign(i)
        manager.save()
    names = sorted(n for n in os.listdir(tmp_path) if n.endswith(".index"))
    assert names == ["ckpt-2.index", "ckpt-4.index", "ckpt-5.index"]
    assert manager.checkpoints == [str(tmp_path / "ckpt-4"), str(tmp_path / "ckpt-5")]
    # TF 2.21 with the same clock writes exactly this state file
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "ckpt-5"\nall_model_checkpoint_paths: "ckpt-4"\n'
        'all_model_checkpoint_paths: "ckpt-5"\nall_model_checkpoint_timestamps: 8200.0\n'
        'all_model_checkpoint_timestamps: 10000.0\nlast_preserved_timestamp: 4600.0\n')
    # a new manager picks the state up
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert again.checkpoints == manager.checkpoints
    assert again.latest_checkpoint == str(tmp_path / "ckpt-5")


def test_manager_keeps_all_and_numbers(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None,
                                         checkpoint_name="model")
    assert manager.save(checkpoint_number=7) == str(tmp_path / "model-7")
    assert manager.save() == str(tmp_path / "model-2")
    assert manager.save(checkpoint_number=tf.constant(9, tf.int64)) == str(tmp_path / "model-9")
    assert manager.checkpoints == [str(tmp_path / n) for n in ("model-7", "model-2", "model-9")]
    assert manager.directory == str(tmp_path)


def test_manager_restore_or_initialize_and_interval(tmp_path):
    calls = []
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3, step_counter=step,
                                         checkpoint_interval=10,
                                         init_fn=lambda: calls.append("init"))
    # TF 2.21 returns exactly these for the same calls
    assert manager.restore_or_initialize() is None and calls == ["init"]
    assert manager.save() == str(tmp_path / "ckpt-1")
    step.assign(5)
    assert manager.save() is None  # fewer than 10 steps since the last one
    step.assign(12)
    assert manager.save() == str(tmp_path / "ckpt-2")
    assert manager.save(check_interval=False) is None  # the same step
    step.assign(13)
    assert manager.save(check_interval=False) == str(tmp_path / "ckpt-3")
    with pytest.raises(ValueError, match="^`step_counter` should be passed if "
                                         "`checkpoint_interval` is not None.$"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), 1, checkpoint_interval=5)
    step.assign(0)
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)
    assert again.restore_or_initialize() == str(tmp_path / "ckpt-3") and int(step) == 13


def test_list_and_dict_wrappers(tmp_path):
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.0)]
    save.listed.append(tf.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    assert repr(save.listed).startswith("ListWrapper([<tf.Variable")
    assert isinstance(save.mapped, dict) and repr(save.mapped).startswith("DictWrapper({'one'")
    path = save.save(str(tmp_path / "l"))
    restore = tf.train.Checkpoint()
    restore.mapped = {}
    restore.restore(path)
    v = tf.Variable(0.0)
    restore.mapped["one"] = v
    assert v.numpy() == 1.0
    restore.listed = []
    restore.listed.extend([tf.Variable(0.0), tf.Variable(0.0)])
    # listed[0] is the saved variable mapped["one"] already took: as in TF, a second live
    # variable for the same saved one is not restored (TF warns of inconsistent references)
    assert [x.numpy() for x in restore.listed] == [0.0, 2.0]
    again = tf.train.Checkpoint()
    again.restore(path)
    again.listed = []
    again.listed.extend([tf.Variable(0.0), tf.Variable(0.0)])
    assert [x.numpy() for x in again.listed] == [1.0, 2.0]


def test_checkpoint_options_and_bad_arguments(tmp_path):
    opts = tf.train.CheckpointOptions(experimental_io_device="/job:localhost")
    assert opts.experimental_io_device == "/job:localhost" and opts.enable_async is False
    ckpt = tf.train.Checkpoint(v=tf.Variable(np.float64(2.5)))
    path = ckpt.save(str(tmp_path / "o"), options=opts)
    assert tf.train.Checkpoint(v=tf.Variable(np.float64(0))).restore(
        path, options=opts).assert_consumed() is not None
    with pytest.raises(TypeError, match="`file_prefix` must be a string"):
        ckpt.save(3)
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in "
                                         "given directory"):
        tf.train.load_checkpoint(str(tmp_path / "empty") if os.makedirs(tmp_path / "empty")
                                 is None else "")


def test_checkpoints_iterator(tmp_path, monkeypatch):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=5)
    manager.save()
    sleeps, clock = [], [0.0]

    def sleep(seconds):  # each wait lets the "trainer" write the next checkpoint
        sleeps.append(seconds)
        clock[0] += seconds
        if len(sleeps) == 1:
            manager.save()

    monkeypatch.setattr("time.sleep", sleep)
    monkeypatch.setattr("time.time", lambda: clock[0])
    found = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=3))
    assert found == [str(tmp_path / "ckpt-1"), str(tmp_path / "ckpt-2")]
    polls = []
    assert list(tf.train.checkpoints_iterator(
        str(tmp_path / "none"), timeout=0, timeout_fn=lambda: polls.append(1) or
        len(polls) == 2)) == [] and polls == [1, 1]


def test_no_warning_for_restored_objects_deleted_first(tmp_path, caplog):
    path = _saved(tmp_path)
    m = tf.Module()
    m.v = tf.Variable(0.0)
    m.sub = Sub([0.0, 0.0])
    m.layers = [Sub([0.0]), Sub([0.0])]
    status = tf.train.Checkpoint(model=m).restore(path)
    status.assert_consumed()
    del m
    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        del status
    assert caplog.text == ""


def test_write_callbacks(tmp_path):
    """TF 2.21 calls each callback after every write, with the path when it takes one."""
    got = []
    opts = tf.train.CheckpointOptions(experimental_write_callbacks=[
        lambda p: got.append(("one", p)), lambda: got.append("none")])
    c = tf.train.Checkpoint(v=tf.Variable(1.0))
    c.write(str(tmp_path / "w"), options=opts)
    c.save(str(tmp_path / "s"), options=opts)
    tf.train.CheckpointManager(c, str(tmp_path / "m"), 2).save(options=opts)
    assert got == [("one", str(tmp_path / "w")), "none", ("one", str(tmp_path / "s-1")), "none",
                   ("one", str(tmp_path / "m" / "ckpt-2")), "none"]
    assert c.sync() is None


class NumpyState(tf.train.experimental.PythonState):
    def __init__(self):
        self.arr = np.arange(3)

    def serialize(self):
        return "state:" + ",".join(map(str, self.arr))

    def deserialize(self, string_value):
        self.arr = np.array([int(x) for x in string_value.decode().split(":")[1].split(",")])


def test_python_state(tmp_path):
    """Saved as TF 2.21 saves it (key, attribute without full_name, bytes); deserialize gets
    the bytes back."""
    m = tf.Module()
    m.st = NumpyState()
    m.v = tf.Variable(1.0)
    path = tf.train.Checkpoint(model=m).save(str(tmp_path / "c"))
    assert tf.train.list_variables(path) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("model/st/.ATTRIBUTES/py_state", []),
        ("model/v/.ATTRIBUTES/VARIABLE_VALUE", []), ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", [])]
    assert tf.train.load_checkpoint(path).get_tensor("model/st/.ATTRIBUTES/py_state") == \
        b"state:0,1,2"
    view = tf.train.CheckpointView(path)
    assert view.children(1) == {"st": 3, "v": 4}
    m2 = tf.Module()
    m2.st = NumpyState()
    m2.st.arr = np.zeros(1)
    m2.v = tf.Variable(0.0)
    tf.train.Checkpoint(model=m2).restore(path).assert_consumed()
    assert m2.st.arr.tolist() == [0, 1, 2]

    class Bad(tf.train.experimental.PythonState):
        def serialize(self):
            return 5

        def deserialize(self, string_value):
            pass

    m3 = tf.Module()
    m3.b = Bad()
    with pytest.raises(TypeError, match="^Cannot convert 5 to EagerTensor of dtype string$"):
        tf.train.Checkpoint(m=m3).write(str(tmp_path / "bad"))
    assert not os.path.exists(tmp_path / "bad.index")
