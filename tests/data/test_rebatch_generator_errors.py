"""Dataset.rebatch (TF 2.21's values and element specs) and the errors a from_generator
generator raises (wrapped as TF's PyFunc does); Keras-facing distributed dataset traits."""

import numpy as np
import pytest

import tensortrace as tf


def _lists(ds):
    return [x.tolist() for x in ds.as_numpy_iterator()]


@pytest.mark.parametrize("args, spec_dim, values", [
    ((3,), None, [[0, 1, 2], [3, 4, 5], [6]]),
    ((3, True), 3, [[0, 1, 2], [3, 4, 5]]),
    (([2, 1, 1],), None, [[0, 1], [2], [3], [4, 5], [6]]),
    (([2, 1, 1], True), None, [[0, 1], [2], [3], [4, 5], [6]]),
])
def test_rebatch_values_and_spec_match_tf(args, spec_dim, values):
    ds = tf.data.Dataset.range(7).batch(2).rebatch(*args)
    assert ds.element_spec == tf.TensorSpec((spec_dim,), tf.int64)
    assert _lists(ds) == values
    assert int(ds.cardinality()) == -2


def test_rebatch_static_dim_when_input_batches_divide():
    ds = tf.data.Dataset.range(8).batch(4, drop_remainder=True).rebatch(2)
    assert ds.element_spec == tf.TensorSpec((2,), tf.int64)
    assert _lists(ds) == [[0, 1], [2, 3], [4, 5], [6, 7]]


def test_rebatch_structure_and_errors():
    ds = tf.data.Dataset.from_tensor_slices(({"a": np.arange(18.0).reshape(6, 3)},
                                             np.arange(6, dtype=np.int32)))
    out = list(ds.batch(4).rebatch(3))
    assert [o[0]["a"].shape.as_list() for o in out] == [[3, 3], [3, 3]]
    np.testing.assert_array_equal(out[1][1].numpy(), [3, 4, 5])
    with pytest.raises(ValueError, match="found a dataset with scalar elements"):
        tf.data.Dataset.range(3).rebatch(2)
    with pytest.raises(ValueError, match="Received `batch_sizes` of rank 2"):
        tf.data.Dataset.range(3).batch(2).rebatch([[1]])


def test_generator_exception_is_invalid_argument_with_its_text():
    def gen():
        yield 1.0
        raise ValueError("Expected exception")

    it = iter(tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.float32)))
    assert float(next(it)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        next(it)
    text = str(info.value)
    assert text.startswith("ValueError: Expected exception\nTraceback (most recent call last):")
    assert text.endswith("[Op:IteratorGetNext]")

    def bad():
        raise KeyError("k")
        yield 1.0

    with pytest.raises(tf.errors.UnknownError, match="KeyError: 'k'"):
        list(tf.data.Dataset.from_generator(bad, output_signature=tf.TensorSpec((), tf.float32)))


def test_distributed_datasets_keep_tf_class_names_and_cardinality():
    strategy = tf.distribute.MirroredStrategy(["CPU:0"])
    ds = strategy.distribute_datasets_from_function(
        lambda ctx: tf.data.Dataset.from_tensor_slices(np.ones((6, 2), np.float32)).batch(2))
    names = {(c.__name__, c.__module__) for c in type(ds).__mro__}
    assert ("DistributedDatasetsFromFunction", "tensorflow.python.distribute.input_lib") in names
    assert ds.cardinality == 3
    # one device of one worker: TF hands plain tensors and specs, not PerReplica
    assert ds.element_spec == tf.TensorSpec((None, 2), tf.float32)
    assert [b.shape.as_list() for b in ds] == [[2, 2]] * 3
