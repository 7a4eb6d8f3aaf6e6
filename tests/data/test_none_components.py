"""None as an element component of tf.data (TF's NoneTensorSpec): kept through from_tensors,
from_tensor_slices, map, batch and unbatch, as TF 2.21 prints and returns it."""

import tensortrace as tf


def test_none_components_pass_through_datasets():
    ds = tf.data.Dataset.from_tensors(({"a": tf.ones([2]), "b": None}, tf.ones([2])))
    assert repr(ds.element_spec) == (
        "({'a': TensorSpec(shape=(2,), dtype=tf.float32, name=None), 'b': NoneTensorSpec()}, "
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None))")
    (first, second), = list(ds)
    assert first["b"] is None and first["a"].numpy().tolist() == [1.0, 1.0]
    mapped = ds.map(lambda x, y: ({"a": x["a"] * 2, "b": x["b"]}, None))
    assert repr(mapped.element_spec[1]) == "NoneTensorSpec()"
    (first, second), = list(mapped)
    assert second is None and first["b"] is None and first["a"].numpy().tolist() == [2.0, 2.0]
    batches = list(tf.data.Dataset.from_tensor_slices({"a": tf.ones([3]), "b": None}).batch(2))
    assert [b["a"].shape for b in batches] == [(2,), (1,)]
    assert all(b["b"] is None for b in batches)
    rows = list(tf.data.Dataset.from_tensor_slices((tf.ones([3]), None)).batch(2).unbatch())
    assert len(rows) == 3 and all(r[1] is None for r in rows)
    assert tf.NoneTensorSpec() == tf.NoneTensorSpec()
