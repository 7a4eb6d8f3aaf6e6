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
