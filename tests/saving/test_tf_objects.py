"""SavedModels TF 2.21 wrote holding composite tensors (RaggedTensor, SparseTensor signatures),
an asset (a vocabulary file) and captured constants load and run here with TF's values
(tests/fixtures/tf/make_tf_objects.py made them and recorded TF's outputs); and ours with
composites round-trip in TF's format."""

import json
import os

import numpy as np
import pytest

import tensortrace as tf

HERE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                    "tf", "tf_objects"))
with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as f:
    EXPECTED = json.load(f)


def _plain(value):
    if isinstance(value, tf.RaggedTensor):
        return {"ragged": value.to_list(), "row_splits_dtype": value.row_splits.dtype.name}
    if isinstance(value, tf.SparseTensor):
        return {"sparse": [value.indices.numpy().tolist(), value.values.numpy().tolist(),
                           value.dense_shape.numpy().tolist()]}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    array = np.asarray(value.numpy())
    if array.dtype.kind in "OS":
        return {"bytes": [bytes(b).decode() for b in array.reshape(-1).tolist()],
                "shape": list(array.shape)}
    return {"dtype": array.dtype.name, "value": array.tolist()}


def _calls(name, m):
    if name == "composites":
        rt = tf.ragged.constant([[1.0, 2.0], [3.0]], row_splits_dtype=tf.int64)
        st = tf.sparse.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
        return [("ragged", lambda: m.ragged(rt)), ("sparse", lambda: m.sparse(st)),
                ("make_ragged", lambda: m.make_ragged(tf.constant([1.0, 2.0, 3.0])))]
    if name == "assets":
        return [("words", lambda: m.words()),
                ("lookup", lambda: m.lookup(tf.constant(["b", "zz", "a", "c"])))]
    return [("scale", lambda: m.scale(tf.constant([1.0, 1.0, 2.0]))),
            ("row", lambda: m.row(tf.constant(1)))]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tf_model_loads_and_runs(name):
    loaded = tf.saved_model.load(os.path.join(HERE, name))
    for label, thunk in _calls(name, loaded):
        assert _plain(thunk()) == EXPECTED[name][label], label


def test_tf_composite_signatures():
    loaded = tf.saved_model.load(os.path.join(HERE, "composites"))
    (cf,) = loaded.ragged.concrete_functions
    assert cf.structured_input_signature == (
        (tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64),), {})
    (cf,) = loaded.sparse.concrete_functions
    assert cf.structured_outputs[1] == tf.SparseTensorSpec([None, 4], tf.float32)


def test_tf_asset_is_an_asset():
    path = os.path.join(HERE, "assets")
    loaded = tf.saved_model.load(path)
    assert isinstance(loaded.vocab, tf.saved_model.Asset)
    assert loaded.vocab.asset_path.numpy().decode() == os.path.join(path, "assets", "vocab.txt")


def test_our_asset_round_trip(tmp_path):
    source = tmp_path / "vocab.txt"
    source.write_text("a\nb\nc\n")

    class A(tf.Module):
        def __init__(self):
            super().__init__()
            self.vocab = tf.saved_model.Asset(str(source))

        @tf.function(input_signature=[])
        def words(self):
            return tf.strings.split(tf.strings.strip(tf.io.read_file(self.vocab.asset_path)),
                                    "\n")

    tf.saved_model.save(A(), str(tmp_path / "m"))
    source.unlink()  # the model holds its own copy
    assert (tmp_path / "m" / "assets" / "vocab.txt").read_text() == "a\nb\nc\n"
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.vocab.asset_path.numpy().decode() == str(tmp_path / "m" / "assets" /
                                                           "vocab.txt")
    assert loaded.words().numpy().tolist() == [b"a", b"b", b"c"]
    assert loaded.signatures["serving_default"]()["output_0"].numpy().tolist() == \
        [b"a", b"b", b"c"]
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype string"):
        tf.saved_model.Asset(3)


def test_our_composites_round_trip_in_tf_format(tmp_path):
    class C(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32, 1,
                                                          tf.int64)])
        def ragged(self, x):
            return x * 2.0, tf.reduce_sum(x, axis=1)

        @tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
        def sparse(self, x):
            return tf.sparse.reduce_sum(x, axis=1), x

    tf.saved_model.save(C(), str(tmp_path))
    assert os.path.exists(tmp_path / "saved_model.pb")  # TF's format, not the JSON fallback
    loaded = tf.saved_model.load(str(tmp_path))
    for label, thunk in _calls("composites", loaded)[:2]:
        assert _plain(thunk()) == EXPECTED["composites"][label], label
