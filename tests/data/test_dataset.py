"""tf.data eagerly: sources, transformations, element_spec, cardinality, iterators and errors,
against NumPy references and TensorFlow 2.21's observed behaviour."""

import collections
import re

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors

D = tf.data.Dataset


def values(ds):
    return list(ds.as_numpy_iterator())


def spec(shape, dtype):
    return tf.TensorSpec(shape, dtype)


# --- sources ------------------------------------------------------------------------------------
def test_from_tensor_slices_repr_spec_and_values():
    ds = D.from_tensor_slices([1, 2, 3])
    assert repr(ds) == ("<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, "
                        "name=None)>")
    assert str(ds) == repr(ds)
    assert values(ds) == [1, 2, 3]
    assert all(type(v) is np.int32 for v in values(ds))
    elements = list(ds)
    assert all(isinstance(t, tf.Tensor) for t in elements)
    assert repr(elements[0]) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"


def test_from_tensor_slices_structures():
    ds = D.from_tensor_slices(([1, 2], [3.0, 4.0]))
    assert ds.element_spec == (spec((), tf.int32), spec((), tf.float32))
    first = next(iter(ds))
    assert isinstance(first, tuple) and first[1].dtype == tf.float32
    ds = D.from_tensor_slices({"b": [1, 2], "a": ["x", "y"]})
    assert list(ds.element_spec) == ["b", "a"]  # key order kept, as TF prints it
    assert repr(ds) == ("<_TensorSliceDataset element_spec={'b': TensorSpec(shape=(), "
                        "dtype=tf.int32, name=None), 'a': TensorSpec(shape=(), dtype=tf.string, "
                        "name=None)}>")
    assert values(ds) == [{"b": 1, "a": b"x"}, {"b": 2, "a": b"y"}]
    nested = D.from_tensor_slices({"a": ([1, 2], [3, 4])})
    assert values(nested) == [{"a": (1, 3)}, {"a": (2, 4)}]


def test_from_tensor_slices_lists_are_tensors_and_arrays_keep_dtype():
    assert D.from_tensor_slices([(1, 2), (3, 4)]).element_spec == spec((2,), tf.int32)
    rows = values(D.from_tensor_slices(np.arange(6.0).reshape(3, 2)))
    np.testing.assert_array_equal(np.stack(rows), np.arange(6.0).reshape(3, 2))
    assert rows[0].dtype == np.float64


def test_namedtuple_elements():
    Point = collections.namedtuple("Point", "x y")
    ds = D.from_tensor_slices(Point([1, 2], [3, 4]))
    first = next(iter(ds))
    assert type(first) is Point and int(first.y) == 3
    assert values(ds.map(lambda p: p.x + p.y)) == [4, 6]  # a namedtuple is one argument


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError, match="Unbatching a tensor is only supported for rank >= 1"):
        D.from_tensor_slices(1)
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        D.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensors():
    ds = D.from_tensors([1, 2])
    assert repr(ds) == ("<_TensorDataset element_spec=TensorSpec(shape=(2,), dtype=tf.int32, "
                        "name=None)>")
    [v] = values(ds)
    np.testing.assert_array_equal(v, [1, 2])
    assert values(D.from_tensors("ab")) == [b"ab"]
    assert D.from_tensors((1, "a")).element_spec == (spec((), tf.int32), spec((), tf.string))


@pytest.mark.parametrize("args", [(5,), (2, 10, 3), (5, 0, -2), (3, 3), (0, 5, 1)])
def test_range_matches_python(args):
    ds = D.range(*args)
    assert values(ds) == list(range(*args))
    assert all(type(v) is np.int64 for v in values(ds))
    assert int(ds.cardinality()) == len(range(*args)) == len(ds)


def test_range_output_type_and_errors():
    ds = D.range(1, 5, 2, output_type=tf.int32)
    assert ds.element_spec == spec((), tf.int32) and values(ds) == [1, 3]
    with pytest.raises(ValueError, match="The length of `args` should be between 1 and 3 but "
                                         "was 0"):
        D.range()
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int64"):
        D.range(1.5)
    with pytest.raises(errors.InvalidArgumentError, match="step must be a non-zero integer"):
        D.range(0, 5, 0)


def test_from_generator_specs():
    ds = D.from_generator(lambda: [(1, 1)], (tf.int32, tf.int32))
    assert repr(ds) == ("<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, "
                        "dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, "
                        "name=None))>")
    ds = D.from_generator(lambda: [(1, [1])], (tf.int32, tf.int32),
                          (tf.TensorShape([]), tf.TensorShape([None])))
    assert ds.element_spec == (spec((), tf.int32), spec((None,), tf.int32))
    sig = ({"a": tf.TensorSpec((), tf.int32)}, tf.TensorSpec((2,), tf.float32))
    ds = D.from_generator(lambda: [({"a": 1}, [1.0, 2.0])], output_signature=sig)
    [(d, v)] = values(ds)
    assert d == {"a": 1} and type(d["a"]) is np.int32
    np.testing.assert_array_equal(v, np.array([1, 2], np.float32))
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY


def test_from_generator_is_called_per_iteration_with_numpy_args():
    calls = []

    def gen(n, s):
        calls.append((type(n).__name__, s))
        yield from range(n)

    ds = D.from_generator(gen, tf.int64, args=(3, "x"))
    assert values(ds) == [0, 1, 2]
    assert values(ds) == [0, 1, 2]
    assert calls == [("int32", b"x"), ("int32", b"x")]
    assert values(D.from_generator(lambda: iter([1, 2]), tf.int32).repeat(2)) == [1, 2, 1, 2]


@pytest.mark.parametrize("gen, types, shapes, message", [
    (lambda: ["a"], tf.int32, None, ("The expected structure was TensorSpec(shape=<unknown>, "
     "dtype=tf.int32, name=None), but the yielded element was a.")),
    (lambda: [1.5], tf.int32, None, "but the yielded element was 1.5."),
    (lambda: [1], (tf.int32, tf.int32), None, ("The expected structure was (tf.int32, tf.int32), "
     "but the yielded element was 1.")),
    (lambda: [[1, 2]], (tf.int32, tf.int32), None, "but the yielded element was [1, 2]."),
    (lambda: [[1, 2]], tf.int32, tf.TensorShape([3]), ("`generator` yielded an element of shape "
     "(2,) where an element of shape (3,) was expected.")),
])
def test_from_generator_errors_at_iteration(gen, types, shapes, message):
    ds = D.from_generator(gen, types, shapes)
    with pytest.raises(errors.InvalidArgumentError) as info:
        next(iter(ds))
    assert message in str(info.value)
    assert str(info.value).startswith("TypeError: `generator` yielded")
    assert str(info.value).endswith("[Op:IteratorGetNext]")


def test_from_generator_argument_errors():
    with pytest.raises(TypeError, match="`generator` must be a Python callable."):
        D.from_generator([1], tf.int32)
    with pytest.raises(TypeError, match="output_signature"):
        D.from_generator(lambda: [1])


# --- zip, enumerate, concatenate ----------------------------------------------------------------
def test_zip_forms_and_cardinality():
    a, b = D.from_tensor_slices([1, 2, 3]), D.range(5)
    z = D.zip((a, b))
    assert repr(z).startswith("<_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int32")
    assert values(z) == [(1, 0), (2, 1), (3, 2)]
    assert values(D.zip(a, b)) == values(z)
    assert values(D.zip(datasets={"a": a, "b": b})) == [{"a": 1, "b": 0}, {"a": 2, "b": 1},
                                                         {"a": 3, "b": 2}]
    assert int(z.cardinality()) == 3
    assert int(D.zip((a, a.repeat())).cardinality()) == 3
    assert int(D.zip((a.repeat(), a.repeat())).cardinality()) == tf.data.INFINITE_CARDINALITY
    assert int(D.zip((a, a.filter(lambda x: True))).cardinality()) == -2
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        D.zip([a, b])
    with pytest.raises(TypeError, match="encountered object of type <class 'int'>"):
        D.zip((a, 1))


def test_enumerate():
    ds = D.from_tensor_slices([1, 2, 3]).enumerate(5)
    assert repr(ds).startswith("<_ZipDataset element_spec=(TensorSpec(shape=(), "
                               "dtype=tf.int64")
    assert values(ds) == [(5, 1), (6, 2), (7, 3)]
    assert len(ds) == 3


def test_concatenate():
    a = D.from_tensor_slices([1, 2, 3])
    ds = a.concatenate(D.from_tensor_slices([[1, 2]]))
    assert ds.element_spec == spec(None, tf.int32)
    assert int(a.concatenate(a).cardinality()) == 6
    assert values(a.concatenate(a)) == [1, 2, 3, 1, 2, 3]
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        a.concatenate(D.range(3))


# --- map / filter -------------------------------------------------------------------------------
def test_map_structures_and_conversions():
    ds = D.from_tensor_slices([1, 2, 3])
    assert repr(ds.map(lambda x: x * 2)).startswith("<_MapDataset element_spec=TensorSpec("
                                                    "shape=(), dtype=tf.int32")
    assert repr(ds.map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE)).startswith(
        "<_ParallelMapDataset")
    assert ds.map(lambda x: [x, x]).element_spec == (spec((), tf.int32),) * 2  # list -> tuple
    assert values(ds.map(lambda x: (x, 2.0))) == [(1, 2.0), (2, 2.0), (3, 2.0)]
    assert values(ds.map(lambda x: np.int64(3))) == [3, 3, 3]
    assert ds.map(lambda x: 1).element_spec == spec((), tf.int32)
    m = ds.map(lambda x: {"z": x, "a": tf.cast(x, tf.float32)})
    assert list(m.element_spec) == ["z", "a"]
    assert values(m)[1] == {"z": 2, "a": 2.0}
    nested = ds.map(lambda x: (x, (x, [x, x])))
    assert nested.element_spec == (spec((), tf.int32), (spec((), tf.int32),
                                                        spec((2,), tf.int32)))


def test_map_unpacks_tuples_only():
    pairs = D.from_tensor_slices(([1, 2], [3, 4]))
    assert values(pairs.map(lambda a, b: a + b)) == [4, 6]
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        pairs.map(lambda t: t)
    assert values(D.from_tensor_slices({"a": [1, 2]}).map(lambda d: d["a"] + 1)) == [2, 3]


def test_map_is_traced_once(capsys):
    def fn(x):
        print("tracing")
        return x * 10

    ds = D.range(3).map(fn)
    assert capsys.readouterr().out == "tracing\n"
    assert values(ds) == [0, 10, 20] and values(ds) == [0, 10, 20]
    assert capsys.readouterr().out == ""


def test_map_reads_variables_when_run():
    v = tf.Variable(2)
    ds = D.from_tensor_slices([1, 2, 3]).map(lambda x: x * v)
    assert values(ds) == [2, 4, 6]
    v.assign(3)
    assert values(ds) == [3, 6, 9]


def test_map_with_autograph_control_flow():
    def fn(x):
        if x > 1:
            y = x * 10
        else:
            y = x
        return y

    assert values(D.from_tensor_slices([1, 2, 3]).map(fn)) == [1, 20, 30]


def test_filter_and_predicate_errors():
    ds = D.from_tensor_slices([1, 2, 3])
    f = ds.filter(lambda x: x % 2 == 1)
    assert repr(f).startswith("<_FilterDataset") and values(f) == [1, 3]
    assert int(f.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert values(ds.filter(lambda x: True)) == [1, 2, 3]
    with pytest.raises(ValueError, match=r"Invalid `predicate`. `predicate` must return a "
                                         r"`tf.bool` scalar tensor, but its return type is "
                                         r"TensorSpec\(shape=\(\), dtype=tf.int32, name=None\)."):
        ds.filter(lambda x: x)


def test_take_while_flat_map_shard():
    assert values(D.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    fm = D.range(3).flat_map(lambda x: D.range(x))
    assert values(fm) == [0, 0, 1] and fm.element_spec == spec((), tf.int64)
    assert values(D.range(10).shard(3, 1)) == [1, 4, 7]
    assert int(D.range(10).shard(3, 1).cardinality()) == 3
    with pytest.raises(errors.InvalidArgumentError, match=r"Index must be between 0 and 2 "
                                                          r"\(currently index = 3\)"):
        D.range(10).shard(3, 3)


# --- batching -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n, size, drop", [(7, 3, False), (7, 3, True), (6, 3, False),
                                           (2, 5, False), (2, 5, True), (0, 2, False)])
def test_batch_matches_numpy(n, size, drop):
    data = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    ds = D.from_tensor_slices(data).batch(size, drop_remainder=drop)
    stop = n - n % size if drop else n
    expected = [data[i:min(i + size, stop)] for i in range(0, stop, size)]
    got = values(ds)
    assert len(got) == len(expected) == int(ds.cardinality())
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == np.float32
    assert ds.element_spec == spec((size if drop else None, 2), tf.float32)


def test_batch_structures_and_strings():
    ds = D.from_tensor_slices({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]}).batch(2)
    assert ds.element_spec == {"a": spec((None,), tf.int32), "b": spec((None, 1), tf.float32)}
    first, last = values(ds)
    np.testing.assert_array_equal(first["b"], [[1.0], [2.0]])
    np.testing.assert_array_equal(last["a"], [3])
    [strings] = values(D.from_tensor_slices(["a", "bc"]).batch(2))
    assert strings.dtype == object and strings.tolist() == [b"a", b"bc"]
    [flags] = values(D.from_tensor_slices([True, False]).batch(2))
    assert flags.dtype == np.bool_


def test_batch_errors():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Batch size must be greater than zero. \[Op:BatchDatasetV2\]"):
        D.range(3).batch(0)
    ragged = D.from_generator(lambda: [[1], [1, 2]], tf.int32, tf.TensorShape([None]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Cannot batch tensors with different shapes in component 0. First "
                             r"element had shape \[1\] and element 1 had shape \[2\]."):
        list(ragged.batch(2))


def test_padded_batch():
    ragged = D.from_generator(lambda: [[1], [1, 2]], tf.int32, tf.TensorShape([None]))
    [b] = values(ragged.padded_batch(2))
    np.testing.assert_array_equal(b, [[1, 0], [1, 2]])
    ds = ragged.padded_batch(2, padded_shapes=[4], padding_values=-1)
    assert repr(ds) == ("<_PaddedBatchDataset element_spec=TensorSpec(shape=(None, 4), "
                        "dtype=tf.int32, name=None)>")
    [b] = values(ds)
    np.testing.assert_array_equal(b, [[1, -1, -1, -1], [1, 2, -1, -1]])
    d = D.from_tensor_slices({"a": [[1, 2], [3, 4]]}).padded_batch(2, padded_shapes={"a": [3]},
                                                                   padding_values={"a": 9})
    np.testing.assert_array_equal(values(d)[0]["a"], [[1, 2, 9], [3, 4, 9]])
    with pytest.raises(ValueError, match=r"The padded shape \(1,\) is not compatible with the "
                                         r"shape \(2,\) of the corresponding input component."):
        D.from_tensor_slices([[1, 2], [3, 4]]).padded_batch(2, padded_shapes=[1])
    with pytest.raises(ValueError, match="component 0 has unknown rank"):
        D.from_generator(lambda: [1], tf.int32).padded_batch(2)


def test_unbatch():
    ds = D.from_tensor_slices([1, 2, 3]).batch(2).unbatch()
    assert repr(ds).startswith("<_UnbatchDataset element_spec=TensorSpec(shape=(), "
                               "dtype=tf.int32")
    assert values(ds) == [1, 2, 3]
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    unknown = D.from_generator(lambda: [[1, 2]], tf.int32).unbatch()
    assert unknown.element_spec == spec(None, tf.int32) and values(unknown) == [1, 2]
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components."):
        D.from_tensor_slices([1, 2]).unbatch()
    with pytest.raises(ValueError, match="Encountered both 2 and 3."):
        D.from_tensors((tf.constant([1, 2]), tf.constant([1, 2, 3]))).unbatch()


# --- shuffle, repeat, take, skip, prefetch, cache -----------------------------------------------
def test_shuffle_is_a_permutation_reproducible_with_a_seed():
    a = values(D.range(100).shuffle(10, seed=7))
    b = values(D.range(100).shuffle(10, seed=7))
    assert a == b and sorted(a) == list(range(100)) and a != list(range(100))
    assert values(D.range(100).shuffle(10, seed=8)) != a
    # A buffer of 10 can only move an element forward by up to 9 places (TF's algorithm).
    assert all(v <= i + 9 for i, v in enumerate(a))


def test_shuffle_reshuffle_each_iteration():
    ds = D.range(50).shuffle(50, seed=3)
    first, second = values(ds), values(ds)
    assert first != second and sorted(second) == list(range(50))
    assert values(D.range(50).shuffle(50, seed=3)) == first  # the same sequence of epochs
    fixed = D.range(50).shuffle(50, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    assert sorted(values(D.range(20).shuffle(4).repeat(2))) == sorted(list(range(20)) * 2)


def test_shuffle_global_seed_and_errors():
    tf.random.set_seed(5)
    a = values(D.range(30).shuffle(30))
    tf.random.set_seed(5)
    assert values(D.range(30).shuffle(30)) == a
    for bad in (0, -1):
        with pytest.raises(errors.InvalidArgumentError, match="buffer_size must be greater than "
                                                              "zero or UNKNOWN_CARDINALITY"):
            D.range(3).shuffle(bad)
    assert int(D.range(5).shuffle(2).cardinality()) == 5


def test_repeat_take_skip():
    ds = D.from_tensor_slices([1, 2, 3])
    assert values(ds.repeat(2)) == [1, 2, 3, 1, 2, 3]
    assert values(ds.repeat().take(7)) == [1, 2, 3, 1, 2, 3, 1]
    assert values(ds.repeat(0)) == [] and values(ds.filter(lambda x: False).repeat()) == []
    assert values(ds.take(2)) == [1, 2] and values(ds.take(-1)) == [1, 2, 3]
    assert values(ds.skip(2)) == [3] and values(ds.skip(-1)) == []
    assert values(ds.prefetch(tf.data.AUTOTUNE)) == [1, 2, 3]
    assert repr(ds.prefetch(1)).startswith("<_PrefetchDataset")


def test_cache_replays_the_first_complete_iteration():
    calls = []

    def gen():
        calls.append(1)
        yield from [1, 2]

    ds = D.from_generator(gen, tf.int32).cache()
    assert repr(ds).startswith("<CacheDataset element_spec=")
    assert values(ds) == [1, 2] and values(ds) == [1, 2] and len(calls) == 1


def test_cardinality_rules():
    ds = D.from_tensor_slices([1, 2, 3])
    cases = [(D.range(5), 5), (ds.repeat(), -1), (ds.filter(lambda x: True), -2),
             (ds.repeat(2).take(10), 6), (ds.skip(5), 0), (ds.batch(2), 2),
             (ds.batch(2, True), 1), (ds.repeat().take(4), 4), (ds.repeat(0), 0),
             (ds.take(-1), 3), (ds.skip(-1), 0), (ds.repeat().skip(3), -1),
             (ds.batch(2).unbatch(), -2), (ds.filter(lambda x: True).take(0), -2),
             (D.range(7).batch(3, drop_remainder=True), 2), (D.range(5, 0, -2), 3)]
    for d, n in cases:
        c = d.cardinality()
        assert c.dtype == tf.int64 and int(c) == n, d
    assert int(tf.data.experimental.cardinality(ds)) == 3
    assert (tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY) == (-1, -2)
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1


def test_len():
    ds = D.from_tensor_slices([1, 2, 3])
    assert len(ds) == 3 and bool(ds.filter(lambda x: False))
    with pytest.raises(TypeError, match="The dataset is infinite."):
        len(ds.repeat())
    with pytest.raises(TypeError, match="The dataset length is unknown."):
        len(ds.filter(lambda x: True))


# --- iterators and reduce -----------------------------------------------------------------------
def test_iterator_protocol():
    it = iter(D.from_tensor_slices([1, 2, 3]))
    assert isinstance(it, tf.data.Iterator)
    assert it.element_spec == spec((), tf.int32)
    assert [int(next(it)) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(errors.OutOfRangeError, match=r"End of sequence \[Op:IteratorGetNext\]"):
        it.get_next()
    assert not bool(it.get_next_as_optional().has_value())
    opt = iter(D.range(3)).get_next_as_optional()
    assert bool(opt.has_value()) and int(opt.get_value()) == 0
    n = iter(D.range(3)).__class__  # a fresh iterator restarts the dataset
    assert n is it.__class__


def test_numpy_iterator():
    it = D.range(3).as_numpy_iterator()
    assert repr(it).startswith("NumpyIterator(iterator=<")
    assert next(it) == 0 and list(it) == [1, 2]
    arrays = values(D.from_tensors(np.arange(3)))
    arrays[0][0] = 99  # values are copies: the dataset is unchanged
    assert values(D.from_tensors(np.arange(3)))[0][0] == 0


def test_reduce():
    ds = D.from_tensor_slices([1, 2, 3])
    total = ds.reduce(0, lambda s, x: s + x)
    assert repr(total) == "<tf.Tensor: shape=(), dtype=int32, numpy=6>"
    pairs = D.from_tensor_slices(([1, 2], [3.0, 4.0]))
    a, b = pairs.reduce((0, 0.0), lambda s, e: (s[0] + e[0], s[1] + e[1]))
    assert int(a) == 3 and float(b) == 7.0 and b.dtype == tf.float32
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'b'"):
        pairs.reduce(0, lambda s, a, b: s + a)
    grown = D.range(3).reduce(tf.constant([], tf.int64), lambda s, x: tf.concat([s, [x]], 0))
    np.testing.assert_array_equal(grown.numpy(), [0, 1, 2])
    with pytest.raises(TypeError, match="The element types for the new state must match the "
                                        "initial state. Expected <dtype: 'float32'> but got "
                                        "<dtype: 'int32'>."):
        ds.reduce(tf.constant(0.0), lambda s, x: x)


def test_reduce_traces_once(capsys):
    def red(s, x):
        print("tracing reduce")
        return s + x

    assert int(D.range(3).reduce(np.int64(0), red)) == 3
    assert capsys.readouterr().out == "tracing reduce\n"


def test_options_are_accepted():
    options = tf.data.Options()
    options.experimental_deterministic = False
    options.experimental_distribute.auto_shard_policy = 0
    ds = D.range(3).with_options(options)
    assert values(ds) == [0, 1, 2]
    assert values(D.range(3).apply(lambda d: d.map(lambda x: x + 1))) == [1, 2, 3]


def test_scan():
    ds = D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))
    assert values(ds) == [0, 0, 2, 6, 12] and repr(ds).startswith("<_ScanDataset")
    pair = D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, (s, 1.0)))
    assert pair.element_spec == (spec((), tf.int64), spec((), tf.float32))
    grown = D.range(3).scan(tf.constant([], tf.int64),
                            lambda s, x: (tf.concat([s, [x]], 0), tf.size(s)))
    assert values(grown) == [0, 1, 2]  # the state's shape is relaxed to (None,)
    with pytest.raises(TypeError, match="`scan_func` should return a pair consisting of new "
                                        "state and the output value"):
        D.range(3).scan(0, lambda s, x: s)
    with pytest.raises(TypeError, match="Expected <dtype: 'int32'>, got <dtype: 'int64'>."):
        D.range(3).scan(0, lambda s, x: (x, x))


def test_unique_single_element_counter():
    assert values(D.from_tensor_slices([1, 2, 1, 3, 2]).unique()) == [1, 2, 3]
    assert values(D.from_tensor_slices(["a", "b", "a"]).unique()) == [b"a", b"b"]
    with pytest.raises(TypeError, match="does not support type <dtype: 'float32'>"):
        D.from_tensor_slices([1.0]).unique()
    single = D.from_tensors([1, 2]).get_single_element()
    assert repr(single) == ("<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], "
                            "dtype=int32)>")
    with pytest.raises(errors.InvalidArgumentError, match="Dataset was empty."):
        D.range(0).get_single_element()
    with pytest.raises(errors.InvalidArgumentError, match="Dataset had more than one element."):
        D.range(2).get_single_element()
    c = D.counter(3, 2)
    assert values(c.take(3)) == [3, 5, 7] and int(c.cardinality()) == -1


def test_interleave_cycles_blocks_and_refills_slots_as_tf_does():
    # Orders observed in TF 2.21.
    assert values(D.range(3).interleave(lambda x: D.range(x), cycle_length=2)) == [0, 0, 1]
    ds = D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(6), cycle_length=2,
                                  block_length=4)
    assert values(ds) == [1] * 4 + [2] * 4 + [1, 1, 2, 2] + [3] * 4 + [4] * 4 + [3, 3, 4, 4] \
        + [5] * 6
    assert ds.element_spec == spec((), tf.int64) and int(ds.cardinality()) == -2
    ds = D.range(1, 4).interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=3)
    assert values(ds) == [1, 2, 3, 2, 3, 3]
    pairs = D.from_tensor_slices(([1, 2], [3.0, 4.0])).interleave(
        lambda a, b: D.from_tensors((a, b)).repeat(2), cycle_length=2,
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    assert [(int(a), float(b)) for a, b in pairs] == [(1, 3.0), (2, 4.0)] * 2
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"cycle_length must be greater than zero. \[Op:InterleaveDataset\]"):
        D.range(3).interleave(lambda x: D.range(x), cycle_length=0)


def test_interleave_inside_a_function_with_a_tensor_cycle_length():
    @tf.function
    def f(c):
        ds = D.range(4).interleave(lambda x: D.range(x), cycle_length=c, block_length=2)
        s = tf.constant(0, tf.int64)
        for x in ds:
            s = s * 10 + x
        return s

    assert int(f(tf.constant(2, tf.int64))) == 1012


def test_flat_map_repr_and_iterator_next_method():
    fm = D.range(3).flat_map(lambda x: D.from_tensors(x))
    assert repr(fm) == ("<_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, "
                        "name=None)>")
    it = iter(D.from_tensor_slices([1, 2, 3]))
    assert int(it.next()) == 1
    assert [int(v) for v in it] == [2, 3]


def test_choose_from_datasets_follows_the_choices():
    # TF 2.21's results, specs, cardinalities and errors.
    words = [D.from_tensors(w).repeat() for w in ("foo", "bar", "baz")]
    ds = D.choose_from_datasets(words, D.range(3).repeat(3))
    assert repr(ds) == ("<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), "
                        "dtype=tf.string, name=None)>")
    assert int(ds.cardinality()) == -1
    assert values(ds) == [b"foo", b"bar", b"baz"] * 3
    a, b = D.range(2), D.range(10, 13)
    c = D.from_tensor_slices(tf.constant([0, 0, 0, 1, 0], tf.int64))
    assert values(D.choose_from_datasets([a, b], c)) == [0, 1]
    assert values(D.choose_from_datasets([a, b], c, stop_on_empty_dataset=False)) == [0, 1, 10]
    assert int(D.choose_from_datasets([a, b], c).cardinality()) == -2
    x, y = D.from_tensors(tf.constant([1, 2])), D.from_tensors(tf.constant([1, 2, 3]))
    assert D.choose_from_datasets([x, y], D.range(2)).element_spec == spec([None], tf.int32)
    with pytest.raises(ValueError, match="Invalid `datasets`. `datasets` should not be empty."):
        D.choose_from_datasets([], c)
    with pytest.raises(TypeError, match="Elements of `choice_dataset` must be scalar `tf.int64` "
                                        "tensors but are TensorSpec"):
        D.choose_from_datasets([a, b], D.range(3).map(lambda v: tf.cast(v, tf.int32)))
    with pytest.raises(TypeError, match="`datasets` must have compatible element specs."):
        D.choose_from_datasets([a, D.from_tensors(1.0)], c)
    with pytest.raises(errors.InvalidArgumentError, match="Selector index out of range: 5 >= 2"):
        values(D.choose_from_datasets([a, b], D.from_tensors(tf.constant(5, tf.int64))))

    @tf.function
    def f():
        s = tf.constant(0, tf.int64)
        for v in D.choose_from_datasets([a, b], c, stop_on_empty_dataset=False):
            s = s * 100 + v
        return s

    assert int(f()) == 110


def test_sample_from_datasets_draws_every_element_once():
    a, b = D.range(2), D.range(10, 13)
    ds = D.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=1)
    assert repr(ds).startswith("<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), ")
    assert sorted(values(ds)) == [0, 1, 10, 11, 12]
    assert values(D.sample_from_datasets([a, b], weights=[1.0, 0.0])) == [0, 1]


def test_window_eagerly_and_through_flat_map():
    # Windows, specs and cardinalities as TF 2.21 gives them.
    ds = D.range(7).window(3, shift=2)
    assert repr(ds) == ("<_WindowDataset element_spec=DatasetSpec(TensorSpec(shape=(), "
                        "dtype=tf.int64, name=None), TensorShape([]))>")
    assert int(ds.cardinality()) == 4
    windows = list(ds)
    assert type(windows[0]).__name__ == "_VariantDataset"
    assert [values(w) for w in windows] == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    ds = D.range(10).window(5, shift=1, drop_remainder=True)
    assert int(ds.cardinality()) == 6
    batched = ds.flat_map(lambda w: w.batch(5))
    assert repr(batched) == ("<_FlatMapDataset element_spec=TensorSpec(shape=(None,), "
                             "dtype=tf.int64, name=None)>")
    assert [list(b) for b in values(batched.take(3))] == [[0, 1, 2, 3, 4], [1, 2, 3, 4, 5],
                                                          [2, 3, 4, 5, 6]]
    strided = D.range(10).window(3, 3, 2)
    assert [list(b) for b in values(strided.flat_map(lambda w: w.batch(3)))] == [
        [0, 2, 4], [3, 5, 7], [6, 8], [9]]
    assert int(strided.cardinality()) == 4
    assert int(D.range(10).window(3, 3, 2, True).cardinality()) == 2
    pairs = D.from_tensor_slices(({"a": [1, 2, 3]}, [4.0, 5.0, 6.0])).window(2)
    assert pairs.element_spec == ({"a": tf.data.DatasetSpec(spec((), tf.int32))},
                                  tf.data.DatasetSpec(spec((), tf.float32)))
    zipped = pairs.flat_map(lambda f, lab: D.zip((f["a"].batch(2), lab.batch(2))))
    assert [(list(a), list(b)) for a, b in values(zipped)] == [([1, 2], [4.0, 5.0]),
                                                                ([3], [6.0])]
    endless = D.range(3).repeat().window(2).take(2).flat_map(lambda w: w.batch(2))
    assert [list(b) for b in values(endless)] == [[0, 1], [2, 0]]
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Window shift must be greater than zero. \[Op:WindowDataset\]"):
        D.range(3).window(2, 0)

    @tf.function
    def f():
        s = tf.constant(0, tf.int64)
        for x in D.range(6).window(2, drop_remainder=True).flat_map(lambda w: w.batch(2)):
            s = s * 100 + tf.reduce_sum(x)
        return s

    assert int(f()) == 10509


def test_batch_after_map_reports_mismatches_as_tfs_fused_map_and_batch():
    # TF 2.21 fuses map + batch when the map's output rank is known: it compares element counts.
    ds = D.range(4).map(lambda x: tf.range(x)).batch(2)
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(
            "Cannot add tensor to the batch: number of elements does not match. Shapes are: "
            "[tensor]: [1], [batch]: [0] [Op:IteratorGetNext]")):
        values(ds)
    gen = D.from_generator(lambda: (np.zeros(s, np.float32) for s in ([2], [3])),
                           output_signature=tf.TensorSpec(None, tf.float32))
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(
            "Cannot batch tensors with different shapes in component 0. First element had shape "
            "[2] and element 1 had shape [3].")):
        values(gen.map(lambda t: t).batch(3))


def test_text_line_dataset_reads_lines_file_after_file(tmp_path):
    # TF 2.21: "\n" and "\r\n" end lines; an empty line stays; no final empty line.
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"hello world\nsecond line\r\n\nlast")
    b.write_bytes(b"b1\nb2\n")
    ds = tf.data.TextLineDataset([str(a), str(b)])
    assert repr(ds) == ("<TextLineDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, "
                        "name=None)>")
    assert int(ds.cardinality()) == -2
    assert values(ds) == [b"hello world", b"second line", b"", b"last", b"b1", b"b2"]
    lengths = tf.data.TextLineDataset(str(b)).map(lambda line: tf.strings.length(line))
    assert values(lengths) == [2, 2]
    mixed = D.from_tensor_slices([str(a), str(b)]).interleave(tf.data.TextLineDataset,
                                                              cycle_length=2)
    assert values(mixed) == [b"hello world", b"b1", b"second line", b"b2", b"", b"last"]
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        values(tf.data.TextLineDataset(str(tmp_path / "nope.txt")))


def test_options_read_none_until_set_and_travel_downstream():
    o = tf.data.Options()
    assert o.deterministic is None and o.threading.private_threadpool_size is None
    o.experimental_optimization.map_parallelization = True
    o.deterministic = False
    base = D.range(3)
    ds = base.with_options(o)
    assert repr(ds) == ("<_OptionsDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, "
                        "name=None)>")
    assert values(ds) == [0, 1, 2] and int(ds.cardinality()) == 3
    assert ds.map(lambda x: x).options().deterministic is False
    assert base.options().deterministic is None
    assert ds.options().experimental_optimization.map_parallelization is True
    o2 = tf.data.Options()
    o2.experimental_slack = True
    both = ds.with_options(o2).options()
    assert both.deterministic is False and both.experimental_slack is True


def test_windows_of_nested_elements_through_other_datasets():
    # TF 2.21 prints each window's components as _VariantDatasets, also through take/skip
    ds = tf.data.Dataset.from_tensor_slices(({"a": tf.range(5)}, tf.range(5) * 2)).window(2)
    first = next(iter(ds.take(1)))
    assert repr(first) == ("({'a': <_VariantDataset element_spec=TensorSpec(shape=(), "
                           "dtype=tf.int32, name=None)>}, <_VariantDataset element_spec="
                           "TensorSpec(shape=(), dtype=tf.int32, name=None)>)")
    second = next(iter(ds.skip(1)))
    assert [list(second[0]["a"].as_numpy_iterator()), list(second[1].as_numpy_iterator())] == \
        [[2, 3], [4, 6]]
    batched = ds.flat_map(lambda d, y: tf.data.Dataset.zip((d["a"].batch(2), y.batch(2))))
    assert [(a.tolist(), b.tolist()) for a, b in batched.as_numpy_iterator()] == \
        [([0, 1], [0, 2]), ([2, 3], [4, 6]), ([4], [8])]
