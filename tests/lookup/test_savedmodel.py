"""A TF 2.21 SavedModel holding a StaticHashTable over a text-file vocabulary (an asset) and a
MutableHashTable (its contents in the checkpoint) loads and runs with TF's outputs
(tests/fixtures/tf/make_lookup.py made both)."""

import json
import os
import shutil

import tensortrace as tf

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "tf", "lookup")


def test_tf_vocab_model_loads_and_runs(tmp_path):
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        expected = json.load(f)
    path = str(tmp_path / "model")
    shutil.copytree(os.path.join(FIXTURES, "vocab_model"), path)  # the asset read from here
    loaded = tf.saved_model.load(path)
    words = tf.constant(expected["words"])
    out = loaded.ids(words)
    assert out["ids"].numpy().tolist() == expected["ids"]
    assert out["counts"].numpy().tolist() == expected["counts"]
    assert out["size"].numpy() == expected["size"]
    sig = loaded.signatures["serving_default"](words=words)
    assert {k: v.numpy().tolist() for k, v in sig.items()} == expected["signature"]
    assert loaded.table.resource_handle.dtype == tf.resource


class _Tables(tf.Module):
    def __init__(self, vocab):
        super().__init__()
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(vocab, tf.string, -2, tf.int64, -1), -1)
        self.kv = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([7, 8], tf.int64)), -1)
        self.counts = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
        self.counts.insert(tf.constant(["cat", "dog"]), tf.constant([3, 4], tf.int64))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def ids(self, words):
        return {"ids": self.table.lookup(words), "kv": self.kv.lookup(words),
                "counts": self.counts.lookup(words)}


def test_saved_tables_round_trip_in_tf_format(tmp_path):
    from tensortrace import _protos
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("the\ncat\nsat\n")
    path = str(tmp_path / "model")
    tf.saved_model.save(_Tables(str(vocab)), path)
    vocab.unlink()  # the model reads its own copy (assets/vocab.txt)
    assert os.listdir(os.path.join(path, "assets")) == ["vocab.txt"]
    model = _protos.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model.ParseFromString(f.read())
    nodes = model.meta_graphs[0].object_graph_def.nodes
    resources = [n for n in nodes if n.WhichOneof("kind") == "resource"]
    assert len(resources) == 3  # TF's resource nodes, each with TF's three functions
    for n in resources:
        names = [c.local_name for c in n.children]
        assert names[-3:] == ["_create_resource", "_initialize", "_destroy_resource"]
    assert [c.local_name for c in resources[0].children][0] == "_initializer"
    saveable = resources[2].saveable_objects["table"]  # the mutable table's, as TF writes it
    save = nodes[saveable.save_function].bare_concrete_function
    restore = nodes[saveable.restore_function].bare_concrete_function
    assert list(save.argument_keywords) == ["checkpoint_key"]
    assert list(restore.argument_keywords) == ["restored_tensors_0", "restored_tensors_1"]
    assert not resources[0].saveable_objects
    loaded = tf.saved_model.load(path)
    out = loaded.ids(tf.constant(["cat", "a", "dog", "sat"]))
    # the values TF 2.21 gives when it loads this model (tests/fixtures/tf/check_our_lookup.py)
    assert out["ids"].numpy().tolist() == [1, -1, -1, 2]
    assert out["kv"].numpy().tolist() == [-1, 7, -1, -1]
    assert out["counts"].numpy().tolist() == [3, 0, 4, 0]
