"""TF-made checkpoints restore into tensortrace objects value for value; our checkpoints list
and read back as TF's did."""

import shutil

import numpy as np
import pytest

import tensortrace as tf

from ._fixtures import DIR, EXPECTED, assert_same


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.zeros([n_in, n_out]), name="w")
        self.b = tf.Variable(tf.zeros([n_out]), name="b")

    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4), Dense(4, 2)]
        self.extras = [tf.Variable(0.0, name="e0"), tf.Variable([0, 0, 0], name="e1")]
        self.config = {"scale": tf.Variable(0.0, name="scale"),
                       "nested": {"inner": tf.Variable([[0.0, 0.0]], name="inner")}}
        self.gen = tf.random.Generator.from_seed(0)
        self.head = Dense(2, 1, name="head")


def _variables_by_key(root):
    from tensortrace.checkpoint import graph_view
    return {graph_view.checkpoint_key(n.path): n.obj for n in graph_view.walk(root)
            if isinstance(n.obj, tf.Variable)}


def test_restore_tf_mlp():
    rec = EXPECTED["mlp"]
    model = MLP()
    ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(0, dtype=tf.int64))
    status = ckpt.restore(str(DIR / rec["path"]))
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    by_key = _variables_by_key(ckpt)
    assert sorted(by_key) == sorted(rec["values"])
    for key, value in rec["values"].items():
        assert_same(by_key[key].numpy(), value)
    assert int(ckpt.save_counter) == 1 and int(ckpt.step) == 7
    out = model.layers[1](model.layers[0](tf.ones([1, 3])))
    np.testing.assert_allclose(out.numpy(), rec["forward"], rtol=1e-6)
    assert model.gen.state.numpy().tolist() == [int(v) for v in
                                                rec["values"]["model/gen/_state_var/.ATTRIBUTES/"
                                                              "VARIABLE_VALUE"]["value"]]


def test_list_variables_matches_tf():
    for name in ("mlp", "dtypes"):
        listing = tf.train.list_variables(str(DIR / EXPECTED[name]["path"]))
        assert [[k, list(s)] for k, s in listing] == EXPECTED[name]["list_variables"]
    # a directory means its latest checkpoint
    assert tf.train.list_variables(str(DIR / "mlp")) == tf.train.list_variables(
        str(DIR / EXPECTED["mlp"]["path"]))


def test_restore_every_dtype():
    rec = EXPECTED["dtypes"]
    values = rec["values"]
    kwargs = {}
    for key, v in values.items():
        name = key.split("/")[0]
        dtype = tf.as_dtype(v["tf_dtype"])
        if dtype == tf.string:
            kwargs[name] = tf.Variable(np.full(v["shape"], b"?", dtype=object), dtype=tf.string)
        else:
            kwargs[name] = tf.Variable(tf.zeros(v["shape"], dtype=dtype))
    ckpt = tf.train.Checkpoint(**kwargs)
    ckpt.read(str(DIR / rec["path"])).assert_consumed()
    for key, v in values.items():
        var = kwargs[key.split("/")[0]]
        assert var.dtype.name == v["tf_dtype"]
        assert_same(var.numpy(), v)


def test_checkpoint_reader_on_tf_files():
    reader = tf.train.load_checkpoint(str(DIR / EXPECTED["dtypes"]["path"]))
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    for key, v in EXPECTED["dtypes"]["values"].items():
        assert dtypes[key].name == v["tf_dtype"] and shapes[key] == v["shape"]
        assert reader.has_tensor(key)
        assert_same(reader.get_tensor(key), v)
    # scalars come back as NumPy scalars (strings as bytes), as TF's reader returns them
    assert reader.get_tensor("s0/.ATTRIBUTES/VARIABLE_VALUE") == b"scalar string"
    scalar = reader.get_tensor("scalar/.ATTRIBUTES/VARIABLE_VALUE")
    assert isinstance(scalar, np.int64) and scalar == 42
    assert not reader.has_tensor("nope")
    assert reader.debug_string().startswith(
        b"_CHECKPOINTABLE_OBJECT_GRAPH (DT_STRING) []\nb/.ATTRIBUTES/VARIABLE_VALUE (DT_BOOL) [2,2]\n")
    assert tf.train.load_variable(str(DIR / "mlp"), "step/.ATTRIBUTES/VARIABLE_VALUE:0") == 7


def test_tf_manager_directory(tmp_path):
    rec = EXPECTED["manager"]
    d = tmp_path / "manager"
    shutil.copytree(DIR / "manager", d)
    assert sorted(p.name for p in d.iterdir()) == rec["files"]
    assert tf.train.latest_checkpoint(str(d)) == str(d / "model-10")
    state = tf.train.get_checkpoint_state(str(d))
    assert list(state.all_model_checkpoint_paths) == [str(d / "model-3"), str(d / "model-10")]
    v = tf.Variable([0.0, 0.0])
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(d), max_to_keep=2, checkpoint_name="model")
    assert manager.latest_checkpoint == str(d / "model-10")
    assert manager.checkpoints == [str(d / "model-3"), str(d / "model-10")]
    assert manager.restore_or_initialize() == str(d / "model-10")
    assert v.numpy().tolist() == [10.0, -10.0] and int(ckpt.save_counter) == 4
    path = manager.save()
    assert path == str(d / "model-5")
    assert manager.checkpoints == [str(d / "model-10"), str(d / "model-5")]
    assert sorted(p.name for p in d.iterdir()) == [
        "checkpoint", "model-10.data-00000-of-00001", "model-10.index",
        "model-5.data-00000-of-00001", "model-5.index"]
    lines = [ln.split(":")[0] for ln in (d / "checkpoint").read_text().splitlines()]
    assert lines == rec["state_lines"]
    assert (d / "checkpoint").read_text().startswith(
        'model_checkpoint_path: "model-5"\nall_model_checkpoint_paths: "model-10"\n'
        'all_model_checkpoint_paths: "model-5"\n')


def test_errors_match_tf(tmp_path):
    errs = EXPECTED["errors"]
    src = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]), w=tf.Variable(3))
    path = src.save(str(tmp_path / "ckpt"))

    def check(key, fn, exact=True):
        with pytest.raises(Exception) as e:
            fn()
        kind, message = errs[key]
        assert type(e.value).__name__ == kind
        if exact:
            assert str(e.value) == message.replace("{TMP}", str(tmp_path))
        return str(e.value)

    check("shape", lambda: tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0])).restore(path))
    got = check("dtype", lambda: tf.train.Checkpoint(v=tf.Variable([1, 2])).restore(path),
                exact=False)
    assert errs["dtype"][1].endswith(got)
    partial = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0])).restore(path)
    check("partial_consumed", partial.assert_consumed)
    partial.assert_existing_objects_matched().assert_nontrivial_match()
    extra = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0]), w=tf.Variable(0),
                                x=tf.Variable(5.0)).restore(path)
    check("extra_existing", extra.assert_existing_objects_matched)
    check("extra_consumed", extra.assert_consumed)
    check("missing_restore", lambda: tf.train.Checkpoint().restore(str(tmp_path / "nope")))
    check("missing_reader", lambda: tf.train.load_checkpoint(str(tmp_path / "nope")))
    check("get_missing_key", lambda: tf.train.load_checkpoint(path).get_tensor("zz"))
    check("bad_kwarg", lambda: tf.train.Checkpoint(x=1))
    check("root_and_kwarg", lambda: tf.train.Checkpoint(tf.Module(), root=tf.Module()))
    check("manager_bad", lambda: tf.train.CheckpointManager(src, str(tmp_path), max_to_keep=0))
    check("manager_keep", lambda: tf.train.CheckpointManager(src, None, max_to_keep=1))
    assert str(tf.train.latest_checkpoint(str(tmp_path / "empty_dir"))) == errs["latest_none"]
    assert type(src.save_counter).__name__ == errs["save_counter_repr"]
    assert type(tf.train.Checkpoint().restore(None)).__name__ == errs["restore_none"]
    assert type(partial).__name__ == errs["status_type"]
