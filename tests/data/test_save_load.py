"""Dataset.save / Dataset.load (tensortrace's own directory format: TF's snapshot format is not
documented): elements, specs, cardinality, compression, shards and the errors."""

import numpy as np
import pytest

import tensortrace as tf


def _values(ds):
    return [tf.nest.map_structure(lambda t: np.asarray(t).tolist(), e)
            for e in ds.as_numpy_iterator()]


def test_round_trip_of_nested_elements(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2, 3], "b": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "s": ["x", "yy", ""]})
    ds.save(str(tmp_path / "d"))
    loaded = tf.data.Dataset.load(str(tmp_path / "d"))
    assert repr(loaded) == ("<_LoadDataset element_spec={'a': TensorSpec(shape=(), "
                            "dtype=tf.int32, name=None), 'b': TensorSpec(shape=(2,), "
                            "dtype=tf.float32, name=None), 's': TensorSpec(shape=(), "
                            "dtype=tf.string, name=None)}>")
    assert int(loaded.cardinality()) == 3  # as TF: the count is saved
    assert _values(loaded) == _values(ds)
    assert _values(loaded.map(lambda e: e["a"] * 2)) == [2, 4, 6]


def test_filtered_ragged_gzip_and_shards(tmp_path):
    r = tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)
    r.save(str(tmp_path / "f"), compression="GZIP", shard_func=lambda x: x % 2)
    loaded = tf.data.Dataset.load(str(tmp_path / "f"), compression="GZIP")
    assert int(loaded.cardinality()) == 4
    assert sorted(_values(loaded)) == [0, 3, 6, 9]
    assert _values(loaded) == [0, 6, 3, 9]  # shard 0, then shard 1
    rag = tf.data.Dataset.from_tensors(tf.ragged.constant([[1, 2], [3]])).repeat(2)
    rag.save(str(tmp_path / "r"))
    back = list(tf.data.Dataset.load(str(tmp_path / "r")))
    assert [t.to_list() for t in back] == [[[1, 2], [3]]] * 2


def test_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="tf.data snapshot element_spec file not "
                                                      "found"):
        tf.data.Dataset.load(str(tmp_path / "nothing"))
    ds = tf.data.Dataset.range(3)
    with pytest.raises(ValueError, match="Invalid `compression`"):
        ds.save(str(tmp_path / "x"), compression="BZ")
    ds.save(str(tmp_path / "y"))
    with pytest.raises(ValueError, match="does not match the saved dataset"):
        tf.data.Dataset.load(str(tmp_path / "y"), element_spec=tf.TensorSpec([], tf.int32))
    (tmp_path / "y" / "dataset.json").write_text("{not json")
    with pytest.raises(tf.errors.DataLossError):
        tf.data.Dataset.load(str(tmp_path / "y"))
