"""tf.lookup tables against TF 2.21's values, errors and checkpoint keys (recorded by running
the same programs on TF 2.21)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors

CPU = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _init(keys, values, **kw):
    return tf.lookup.KeyValueTensorInitializer(keys, values, **kw)


def test_static_hash_table_lookup_size_export():
    t = tf.lookup.StaticHashTable(_init(["a", "b", "c"], [1, 2, 3]), -1)
    assert (t.key_dtype, t.value_dtype) == (tf.string, tf.int32)
    assert t.default_value.numpy() == -1 and t.size().numpy() == 3
    np.testing.assert_array_equal(t.lookup(tf.constant(["a", "x"])).numpy(), [1, -1])
    np.testing.assert_array_equal(t[tf.constant([["c"]])].numpy(), [[3]])
    keys, values = t.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [
        (b"a", 1), (b"b", 2), (b"c", 3)]
    assert str(t.resource_handle).startswith("tf.Tensor(<ResourceHandle(name=")


def test_static_hash_table_composite_keys():
    t = tf.lookup.StaticHashTable(_init(["a", "b", "c"], [1, 2, 3]), -1)
    sp = t.lookup(tf.SparseTensor([[0, 0], [1, 1]], ["a", "z"], [2, 2]))
    np.testing.assert_array_equal(sp.values.numpy(), [1, -1])
    np.testing.assert_array_equal(sp.indices.numpy(), [[0, 0], [1, 1]])
    rt = t.lookup(tf.ragged.constant([["a"], ["b", "c"]]))
    assert rt.to_list() == [[1], [2, 3]]


def test_static_hash_table_errors():
    t = tf.lookup.StaticHashTable(_init(["a"], [1]), -1)
    with pytest.raises(TypeError, match=r"Dtype of argument `keys` must be <dtype: 'string'>, "
                       r"received: <dtype: 'int32'>"):
        t.lookup(tf.constant([1]))
    with pytest.raises(errors.FailedPreconditionError) as e:
        tf.lookup.StaticHashTable(_init(["a", "a"], [1, 2]), -1)
    assert e.value.message == CPU % "LookupTableImportV2" + (
        "HashTable has different value for same key. Key a has 1 and trying to add value 2 "
        "[Op:LookupTableImportV2] name: ")
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, "
                       r"got \[3\]"):
        tf.lookup.StaticHashTable(_init(["a", "b"], [1, 2, 3]), -1)
    with pytest.raises(TypeError, match="Cannot convert -1.0 to EagerTensor of dtype int32"):
        tf.lookup.StaticHashTable(_init(["a", "b"], [1, 2]), -1.0)
    t64 = tf.lookup.StaticHashTable(_init(tf.constant([1, 2], tf.int64), [1.5, 2.5]), -1.0)
    with pytest.raises(TypeError, match="must be <dtype: 'int64'>, received: <dtype: 'int32'>"):
        t64.lookup(tf.constant([1, 5]))


def test_uninitialized_table_fails():
    from tensortrace.ops.lookup.resources import HashTable
    with pytest.raises(errors.FailedPreconditionError, match="Table not initialized."):
        HashTable(tf.string, tf.int64).find(np.array([b"a"], object), -1)


def test_text_file_initializer(tmp_path):
    path = tmp_path / "v.txt"
    path.write_bytes(b"a\tx\t5\nb\ty\t6\r\nc\tz\t7\n")
    index = tf.lookup.TextFileIndex
    assert (index.WHOLE_LINE, index.LINE_NUMBER) == (-2, -1)

    def table(*args, default=-1, **kw):
        return tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(path), *args, **kw),
                                         default)

    def entries(t):
        k, v = t.export()
        return sorted(zip(k.numpy().tolist(), v.numpy().tolist()))

    assert entries(table(tf.string, 0, tf.int64, 2)) == [(b"a", 5), (b"b", 6), (b"c", 7)]
    assert entries(table(tf.string, 1, tf.string, 0, default="?")) == [
        (b"x", b"a"), (b"y", b"b"), (b"z", b"c")]
    assert entries(table(tf.string, -2, tf.int64, -1, value_index_offset=3)) == [
        (b"a\tx\t5", 3), (b"b\ty\t6", 4), (b"c\tz\t7", 5)]
    assert entries(table(tf.int64, -1, tf.string, 1, vocab_size=2, default="?")) == [
        (0, b"x"), (1, b"y")]
    name = str(path)
    cases = [
        (dict(vocab_size=5), errors.InvalidArgumentError,
         f"Invalid vocab_size in {name}: expected 5 but got 3"),
        (dict(value_index=1), errors.InvalidArgumentError,
         "Field x in line 0 is not a valid int64."),
        (dict(key_index=5, value_index=-1), errors.InvalidArgumentError,
         f"Invalid number of columns in {name} line 0 (a\tx\t5) : expected at least 6 got 3"),
    ]
    for kw, cls, text in cases:
        args = dict(key_dtype=tf.string, key_index=0, value_dtype=tf.int64, value_index=2)
        args.update(kw)
        with pytest.raises(cls) as e:
            tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(name, **args), -1)
        assert e.value.message == CPU % "InitializeTableFromTextFileV2" + text + \
            " [Op:InitializeTableFromTextFileV2] name: "
    dup = tmp_path / "dup.txt"
    dup.write_bytes(b"a\nb\na\n")
    with pytest.raises(errors.FailedPreconditionError, match="Key a has 0 and trying to add "
                       "value 2"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(dup), tf.string, -2, tf.int64, -1), -1)
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"a\nb\n\nc")
    with pytest.raises(errors.InvalidArgumentError, match="empty line found at position 5."):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(blank), tf.string, -2, tf.int64, -1), -1)
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(tmp_path / "none.txt"), tf.string, 0, tf.int64, -1), -1)
    with pytest.raises(ValueError, match="`filename` argument required"):
        tf.lookup.TextFileInitializer("", tf.string, 0, tf.int64, -1)
    with pytest.raises(ValueError, match=r"`key_dtype` must be int64 if `key_index` is -1, "
                       r"received: <dtype: 'string'>"):
        tf.lookup.TextFileInitializer(name, tf.string, -1, tf.int64, -1)
    with pytest.raises(ValueError, match=r"`value_dtype` must be int64 for `value_index` -1, "
                       r"received: <dtype: 'int32'>"):
        tf.lookup.TextFileInitializer(name, tf.string, 0, tf.int32, -1)


def test_static_vocabulary_table():
    init = _init(["a", "b"], tf.constant([0, 1], tf.int64))
    v = tf.lookup.StaticVocabularyTable(init, 4)
    # TF 2.21: Fingerprint64 buckets after the vocabulary
    np.testing.assert_array_equal(v.lookup(tf.constant(["a", "b", "c", "d", "e", "f"])).numpy(),
                                  TF_VOCAB)
    assert v.size().numpy() == 6
    oov = tf.lookup.StaticVocabularyTable(None, 2)
    np.testing.assert_array_equal(oov.lookup(tf.constant(["a", "b", "hello"])).numpy(),
                                  [1, 0, 0])
    assert oov.size().numpy() == 2
    ints = tf.lookup.StaticVocabularyTable(
        _init(tf.constant([1, 2], tf.int64), tf.constant([0, 1], tf.int64)), 2,
        lookup_key_dtype=tf.int32)
    np.testing.assert_array_equal(ints.lookup(tf.constant([1, 3, 4, -9])).numpy(), [0, 3, 3, 2])
    x = tf.lookup.StaticVocabularyTable(_init(["x"], tf.constant([0], tf.int64)), 7)
    assert x.lookup(tf.ragged.constant([["x", "y"], ["zz"]])).to_list() == [[0, 4], [2]]
    with pytest.raises(ValueError, match=r"`num_oov_buckets` must be > 0; use StaticHashTable."):
        tf.lookup.StaticVocabularyTable(None, 0)
    with pytest.raises(TypeError, match=r"Invalid `key_dtype`, expected one of \(tf.int64, "
                       r"tf.string\), but got <dtype: 'int32'>."):
        tf.lookup.StaticVocabularyTable(_init([1, 2], tf.constant([0, 1], tf.int64)), 2)
    with pytest.raises(TypeError, match=r"Invalid `value_dtype`, expected <dtype: 'int64'> but "
                       r"got <dtype: 'int32'>."):
        tf.lookup.StaticVocabularyTable(_init(["a"], [1]), 2)


TF_VOCAB = [0, 1, 2, 3, 3, 2]


def test_mutable_hash_table():
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    m.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    np.testing.assert_array_equal(m.lookup(tf.constant([["a", "z"]])).numpy(), [[1, -1]])
    np.testing.assert_array_equal(
        m.lookup(["q"], dynamic_default_values=tf.constant([7], tf.int64)).numpy(), [7])
    m.remove(tf.constant(["a", "nothing"]))
    assert m.size().numpy() == 1
    with pytest.raises(errors.InvalidArgumentError) as e:
        m.insert(tf.constant(["a"]), tf.constant([1, 2], tf.int64))
    assert e.value.message == CPU % "LookupTableInsertV2" + (
        "Expected shape [1] for value, got [2] [Op:LookupTableInsertV2] name: ")
    with pytest.raises(ValueError, match="^keys: Tensor conversion requested dtype string for "
                       "Tensor with dtype int32"):
        m.lookup(tf.constant([1]))
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>, "
                       "received: <dtype: 'int32'>"):
        m.remove(tf.constant([1]))
    mt = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    mt.insert(["x"], [[1.0, 2.0]])
    np.testing.assert_array_equal(mt.lookup(["x", "y"]).numpy(), [[1, 2], [0, 0]])
    k, v = mt.export()
    assert k.numpy().tolist() == [b"x"] and v.shape == (1, 2)
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[1,2\] for value, "
                       r"got \[1\]"):
        mt.insert(["x"], [1.0])
    empty = tf.lookup.experimental.MutableHashTable(tf.int64, tf.string, "?")
    assert empty.lookup([1]).numpy().tolist() == [b"?"]
    assert empty.export()[0].shape == (0,) and empty.name is None


def test_dense_hash_table_buckets_are_tfs():
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, 0.0, empty_key=-1,
                                              deleted_key=-2, initial_num_buckets=8)
    d.insert(tf.constant([3, 4], tf.int64), tf.constant([1.5, 2.5]))
    d.remove(tf.constant([3], tf.int64))
    keys, values = d.export()
    np.testing.assert_array_equal(keys.numpy()[:, 0], [-1, -1, -1, -2, 4, -1, -1, -1])
    np.testing.assert_array_equal(values.numpy()[:, 0], [0, 0, 0, 1.5, 2.5, 0, 0, 0])
    assert d.size().numpy() == 1
    with pytest.raises(errors.InvalidArgumentError, match="Using the empty_key as a table key "
                       "is not allowed"):
        d.insert(tf.constant([-1], tf.int64), tf.constant([1.0]))
    with pytest.raises(errors.InvalidArgumentError, match="Using the deleted_key as a table key "
                       "is not allowed"):
        d.lookup(tf.constant([-2], tf.int64))
    with pytest.raises(TypeError, match=r"Signature mismatch. Keys must be dtype "
                       r"<dtype: 'int64'>, got <dtype: 'int32'>."):
        d.remove(tf.constant([3]))
    s = tf.lookup.experimental.DenseHashTable(tf.string, tf.int64, -1, "", "$",
                                              initial_num_buckets=4)
    s.insert(tf.constant(["a", "b", "c", "d", "e"]), tf.constant([1, 2, 3, 4, 5], tf.int64))
    keys, values = s.export()  # grown to 8 buckets, strings placed by TF's Hash64
    assert keys.numpy()[:, 0].tolist() == TF_DENSE_KEYS
    assert values.numpy()[:, 0].tolist() == TF_DENSE_VALUES


TF_DENSE_KEYS = [b"", b"", b"b", b"d", b"a", b"c", b"", b"e"]
TF_DENSE_VALUES = [0, 0, 2, 4, 1, 3, 0, 5]


def test_tables_in_functions_and_datasets():
    t = tf.lookup.StaticHashTable(_init(["a", "b"], tf.constant([1, 2], tf.int64)), -1)
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "z"]).map(lambda x: t.lookup(x))
    assert list(ds.as_numpy_iterator()) == [1, 2, -1]
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)

    @tf.function
    def insert(k, v):
        m.insert(k, v)
        return m.lookup(k), m.size()

    values, size = insert(tf.constant(["x", "y"]), tf.constant([5, 6], tf.int64))
    assert values.numpy().tolist() == [5, 6] and size.numpy() == 2
    graph = insert.get_concrete_function(tf.TensorSpec([None], tf.string),
                                         tf.TensorSpec([None], tf.int64)).graph
    ops = {op.type: op for op in graph.get_operations()}
    assert {"LookupTableInsertV2", "LookupTableFindV2", "LookupTableSizeV2"} <= set(ops)
    assert ops["LookupTableFindV2"].get_attr("Tin") == tf.string
    assert ops["LookupTableFindV2"].get_attr("Tout") == tf.int64
    assert ops["LookupTableFindV2"].name == "None_lookup_table_find/LookupTableFindV2"

    @tf.function
    def made_inside(x):
        inner = tf.lookup.StaticHashTable(_init(["q"], tf.constant([9], tf.int64)), -1)
        return inner.lookup(x)

    assert made_inside(tf.constant(["q", "r"])).numpy().tolist() == [9, -1]


def test_dataset_initializer():
    ds = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices(["a", "b"]),
                              tf.data.Dataset.range(2)))
    init = tf.data.experimental.DatasetInitializer(ds)
    assert (init.key_dtype, init.value_dtype) == (tf.string, tf.int64)
    t = tf.lookup.StaticHashTable(init, -1)
    assert t.lookup(tf.constant(["b", "q"])).numpy().tolist() == [1, -1]
    with pytest.raises(TypeError, match="object of type 'TensorSpec' has no len()"):
        tf.data.experimental.DatasetInitializer(tf.data.Dataset.range(3))


def test_checkpoint_keys_and_restore(tmp_path):
    m = tf.Module()
    m.t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    m.t.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    m.d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, 0.0, empty_key=-1,
                                                deleted_key=-2, initial_num_buckets=8)
    m.d.insert(tf.constant([3, 4], tf.int64), tf.constant([1.5, 2.5]))
    m.s = tf.lookup.StaticHashTable(_init(["a"], [1]), -1)
    path = tf.train.Checkpoint(m=m).write(str(tmp_path / "c"))
    assert tf.train.list_variables(path) == [  # TF 2.21's keys and shapes
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("m/d/.ATTRIBUTES/table-keys", [8, 1]),
        ("m/d/.ATTRIBUTES/table-values", [8, 1]), ("m/t/.ATTRIBUTES/table-keys", [2]),
        ("m/t/.ATTRIBUTES/table-values", [2])]
    m2 = tf.Module()
    m2.t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    m2.d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, 0.0, empty_key=-1,
                                                 deleted_key=-2, initial_num_buckets=4)
    m2.s = tf.lookup.StaticHashTable(_init(["a"], [1]), -1)
    tf.train.Checkpoint(m=m2).read(path).assert_consumed()
    assert m2.t.lookup(tf.constant(["a", "b", "w"])).numpy().tolist() == [1, 2, -1]
    assert m2.d.lookup(tf.constant([4, 3, 9], tf.int64)).numpy().tolist() == [2.5, 1.5, 0.0]
    assert m2.d.size().numpy() == 2


def test_dense_hash_table_arguments_and_vector_values():
    dense = tf.lookup.experimental.DenseHashTable
    cases = [((0, 0, None), "Empty and deleted keys cannot be equal"),
             ((0, 1, 5), "Number of buckets must be at least 4 and a power of 2, got: 5"),
             ((0, [1, 2], None), "Empty and deleted keys must have same shape, got shapes: [] "
                                 "and [2]")]
    for (empty, deleted, buckets), text in cases:
        with pytest.raises(errors.InvalidArgumentError) as e:
            dense(tf.int64, tf.int64, -1, empty, deleted, initial_num_buckets=buckets)
        assert e.value.message == CPU % "MutableDenseHashTableV2" + text + \
            " [Op:MutableDenseHashTableV2] name: MutableDenseHashTable"
    d = dense(tf.int64, tf.int64, -1, 0, 1, initial_num_buckets=4)
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected key shape \[1\] got \[1,2\]"):
        d.insert(tf.constant([[2, 3]], tf.int64), tf.constant([[1, 2]], tf.int64))
    d2 = dense(tf.int64, tf.int64, [-1, -1], 0, 1, initial_num_buckets=4)
    assert d2.insert(tf.constant([2, 3], tf.int64), tf.constant([[1, 2], [3, 4]], tf.int64)) \
        is None  # TF returns no op eagerly
    np.testing.assert_array_equal(d2.lookup(tf.constant([2, 9], tf.int64)).numpy(),
                                  [[1, 2], [-1, -1]])
    keys, values = d2.export()
    np.testing.assert_array_equal(keys.numpy(), [[0], [0], [2], [3]])
    np.testing.assert_array_equal(values.numpy(), [[0, 0], [0, 0], [1, 2], [3, 4]])
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[\] or \[2\] for "
                       r"default value, got \[3\]"):
        m.lookup(["a", "b"], dynamic_default_values=tf.constant([1, 2, 3], tf.int64))
