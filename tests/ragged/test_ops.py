"""TF's ops on ragged inputs (elementwise math with broadcasting, reductions over ragged axes,
concat/stack/gather/where, shape/size/rank, cast, *_like, strings), pinned to TF 2.21."""

import re

import numpy as np
import pytest

import tensortrace as tf

A = [[1, 2], [3]]
B = [[1], [2, 3]]


def rag(x, **kw):
    return tf.ragged.constant(x, **kw)


def _splits_error(x, y, index, xv, yv):
    return (f"Condition x == y did not hold.\nIndices of first 1 different values:\n[[{index}]]\n"
            f"Corresponding x values:\n[{xv}]\nCorresponding y values:\n[{yv}]\n"
            f"First 3 elements of x:\n{x}\nFirst 3 elements of y:\n{y}")


def test_elementwise_and_broadcasting():
    a, b = rag(A), rag(B)
    assert (a + tf.constant([[1], [2]])).to_list() == [[2, 3], [5]]
    assert (a * 2).to_list() == [[2, 4], [6]] and (2 - a).to_list() == [[1, 0], [-1]]
    assert (tf.constant(10) + a).to_list() == [[11, 12], [13]]
    assert tf.add(a, a).to_list() == [[2, 4], [6]]
    assert tf.math.abs(-a).to_list() == [[1, 2], [3]]
    assert np.allclose(tf.sqrt(tf.cast(a, tf.float32)).flat_values.numpy(),
                       [1.0, 1.4142135, 1.7320508])
    assert tf.equal(a, 1).to_list() == [[True, False], [False]]
    assert (a > 1).to_list() == [[False, True], [True]]
    assert (a == b) is False  # the == operator: False when the operands do not combine
    r3 = rag([[[1, 2]], [[3, 4]]])
    assert (r3 + tf.constant([10, 20])).to_list() == [[[11, 22]], [[13, 24]]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^" + re.escape(_splits_error("[0 2 3]", "[0 1 3]", 1, 2, 1)) + "$"):
        a + b
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^" + re.escape(_splits_error("[0 2 4]", "[0 2 3]", 2, 4, 3)) + "$"):
        a + tf.constant([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^" + re.escape(_splits_error("[0 2 4]", "[0 2 3]", 2, 4, 3)) + "$"):
        a + tf.constant([[1, 2], [3, 4]])


def test_reductions_over_ragged_axes():
    a = rag(A)
    assert int(tf.reduce_sum(a)) == 6
    assert tf.reduce_sum(a, axis=0).numpy().tolist() == [4, 2]
    assert tf.reduce_sum(a, axis=1).numpy().tolist() == [3, 3]
    mean = tf.reduce_mean(a, axis=1)
    assert mean.dtype == tf.float64 and mean.numpy().tolist() == [1.5, 3.0]
    assert tf.reduce_max(a, axis=0).numpy().tolist() == [3, 2]
    assert int(tf.reduce_sum(a, axis=[0, 1])) == 6
    assert tf.reduce_sum(a, axis=1, keepdims=True).numpy().tolist() == [[3], [3]]
    empty_row = rag([[1.0, 2.0], []])
    assert tf.reduce_max(empty_row, axis=1).numpy().tolist() == [2.0, np.float32(-3.4028235e38)]
    mean = tf.reduce_mean(empty_row, axis=1).numpy()
    assert mean[0] == 1.5 and np.isnan(mean[1])
    assert tf.reduce_prod(empty_row, axis=1).numpy().tolist() == [2.0, 1.0]
    assert tf.reduce_any(rag([[True], []]), axis=1).numpy().tolist() == [True, False]
    assert tf.reduce_all(rag([[True], []]), axis=1).numpy().tolist() == [True, True]
    r3 = rag([[[1, 2], [3]], [[4]]])
    assert tf.reduce_sum(r3, axis=0).to_list() == [[5, 2], [3]]
    assert tf.reduce_sum(r3, axis=1).to_list() == [[4, 2], [4]]
    assert tf.reduce_sum(r3, axis=2).to_list() == [[3, 3], [4]]
    assert tf.reduce_sum(r3, axis=-1).to_list() == [[3, 3], [4]]


def test_shape_size_rank_cast_like():
    a = rag(A)
    shape = tf.shape(a)
    assert repr(shape) == "<DynamicRaggedShape lengths=[2, (2, 1)] num_row_partitions=1>"
    assert shape.rank == 2 and shape.num_row_partitions == 1 and shape.dtype == tf.int32
    assert int(shape[0]) == 2 and shape.static_lengths() == [2, (2, 1)]
    assert shape.inner_shape.numpy().tolist() == [3]
    with pytest.raises(ValueError, match="^Index 1 is not uniform$"):
        shape[1]
    assert repr(tf.shape(rag([[[1, 2], [3]], [[4]]]))) == (
        "<DynamicRaggedShape lengths=[2, (2, 1), (2, 1, 1)] num_row_partitions=2>")
    inner = tf.shape(tf.RaggedTensor.from_row_splits(tf.zeros([3, 2]), [0, 2, 3]))
    assert repr(inner) == "<DynamicRaggedShape lengths=[2, (2, 1), 2] num_row_partitions=1>"
    assert int(inner[2]) == 2
    uniform = tf.RaggedTensor.from_uniform_row_length(tf.range(6), 3)
    assert repr(tf.shape(uniform)) == "<DynamicRaggedShape lengths=[2, 3] num_row_partitions=1>"
    assert repr(tf.shape(rag([[]], dtype=tf.float32))) == (
        "<DynamicRaggedShape lengths=[1, (0,)] num_row_partitions=1>")
    assert int(tf.size(a)) == 3 and int(tf.rank(a)) == 2
    assert tf.cast(a, tf.float32).to_list() == [[1.0, 2.0], [3.0]]
    assert tf.ones_like(a).to_list() == [[1, 1], [1]]
    z = tf.zeros_like(a, dtype=tf.float32)
    assert z.dtype == tf.float32 and z.to_list() == [[0.0, 0.0], [0.0]]


def test_structure_ops():
    a, b = rag(A), rag(B)
    assert tf.concat([a, b], 0).to_list() == [[1, 2], [3], [1], [2, 3]]
    assert tf.concat([a, b], 1).to_list() == [[1, 2, 1], [3, 2, 3]]
    assert tf.stack([a, b]).to_list() == [[[1, 2], [3]], [[1], [2, 3]]]
    assert tf.gather(a, [1, 0, 1]).to_list() == [[3], [1, 2], [3]]
    assert tf.where(a > 1, a, -a).to_list() == [[-1, 2], [3]]


def test_strings():
    assert repr(tf.strings.split(["a b", "c"])) == "<tf.RaggedTensor [[b'a', b'b'], [b'c']]>"
    assert tf.strings.split("a b").numpy().tolist() == [b"a", b"b"]
    assert tf.strings.split([["a b"], ["c d e"]]).to_list() == [[[b"a", b"b"]],
                                                             [[b"c", b"d", b"e"]]]
    words = rag([["a"], ["b", "c"]])
    assert tf.strings.upper(words).to_list() == [[b"A"], [b"B", b"C"]]
    assert tf.strings.length(rag([["ab"], []])).to_list() == [[2], []]
    assert tf.strings.regex_replace(words, "b", "x").to_list() == [[b"a"], [b"x", b"c"]]


def test_guide_example_use_case_with_length_buckets():
    """The guide's unigram/bigram embedding example, with word lengths as buckets in place of
    tf.strings.to_hash_bucket_fast; the values TF 2.21 gives for the same code."""
    queries = rag([["Who", "is", "Dan", "Smith"], ["Pause"],
                   ["Will", "it", "rain", "later", "today"]])
    table = tf.reshape(tf.range(1024 * 4, dtype=tf.float32), [1024, 4])
    buckets = tf.cast(tf.strings.length(queries, unit="UTF8_CHAR") * 7 % 1024, tf.int64)
    words = tf.nn.embedding_lookup(table, buckets)
    assert words.shape.as_list() == [3, None, 4]
    marker = tf.fill([queries.nrows(), 1], "#")
    padded = tf.concat([marker, queries, marker], axis=1)
    bigrams = tf.strings.join([padded[:, :-1], padded[:, 1:]], separator="+")
    assert repr(bigrams) == (
        "<tf.RaggedTensor [[b'#+Who', b'Who+is', b'is+Dan', b'Dan+Smith', b'Smith+#'],\n"
        " [b'#+Pause', b'Pause+#'],\n"
        " [b'#+Will', b'Will+it', b'it+rain', b'rain+later', b'later+today',\n"
        "  b'today+#']                                                      ]>")
    pairs = tf.nn.embedding_lookup(table, tf.cast(tf.strings.length(bigrams) % 1024, tf.int64))
    mean = tf.reduce_mean(tf.concat([words, pairs], axis=1), axis=1)
    np.testing.assert_allclose(mean.numpy(), [[55.11111, 56.11111, 57.11111, 58.11111],
                                              [65.333336, 66.333336, 67.333336, 68.333336],
                                              [68.36364, 69.36364, 70.36364, 71.36364]],
                               rtol=1e-6)
