"""tf.data inside traced functions: loops over datasets are one While op whose size does not
depend on the data, which is fetched (generators called) each time the graph runs."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors
from tensortrace.executor import compiled

D = tf.data.Dataset


def node_count(f, *args):
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


def op_types(f, *args):
    return [n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node]


def _sum_pairs(dataset):
    def body(element, loss):
        x, y = element
        return (loss + tf.abs(y - x),)

    return dataset._for_loop(body, (tf.constant(0),))[0]


def test_loop_over_a_generator_has_a_fixed_graph_size():
    """The guide's `train(dataset)`: from_generator without shapes, a loss carried along."""
    train = tf.function(_sum_pairs, autograph=False)
    small = D.from_generator(lambda: [(1, 3)] * 3, (tf.int32, tf.int32))
    big = D.from_generator(lambda: [(1, 3)] * 10, (tf.int32, tf.int32))
    assert node_count(train, small) == node_count(train, big)
    assert "While" in op_types(train, small)
    assert int(train(small)) == 6 and int(train(big)) == 20


def test_data_is_fetched_when_the_graph_runs():
    calls = []
    data = [(1, 3), (2, 7)]

    def gen():
        calls.append(1)
        yield from data

    ds = D.from_generator(gen, (tf.int32, tf.int32))
    train = tf.function(_sum_pairs, autograph=False)
    train.get_concrete_function(ds)
    assert calls == []  # tracing consumes nothing
    assert int(train(ds)) == 7 and len(calls) == 1
    data.append((0, 10))  # the generator is called again on the next run
    assert int(train(ds)) == 17 and len(calls) == 2
    assert train.experimental_get_tracing_count() == 1


def test_no_data_is_baked_into_the_graph():
    data = np.arange(1000, dtype=np.float32)
    f = tf.function(lambda ds: ds.reduce(0.0, lambda s, x: s + x))
    ds = D.from_tensor_slices(data)
    assert float(f(ds)) == float(data.sum())
    g = f.get_concrete_function(ds).graph
    for op in g.get_operations():
        if op.type == "Const":
            assert np.size(op.attrs["value"]) <= 1


@pytest.mark.parametrize("n", [0, 1, 5])
def test_autograph_for_loop_over_a_dataset(n):
    @tf.function
    def total(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            s += x * x
        return s

    assert int(total(D.range(n))) == sum(i * i for i in range(n))


def test_autograph_loop_graph_size_does_not_grow():
    @tf.function
    def total(ds):
        s = tf.constant(0.0)
        for x, y in ds:
            s += x * y
        return s

    small = D.from_tensor_slices((np.ones(3, np.float32), np.ones(3, np.float32)))
    big = D.from_tensor_slices((np.ones(300, np.float32), np.full(300, 2, np.float32)))
    assert node_count(total, small) == node_count(total, big)
    assert float(total(small)) == 3.0 and float(total(big)) == 600.0


def test_autograph_loop_over_structures_and_transformations():
    @tf.function
    def weighted(ds):
        t = tf.constant(0, tf.int64)
        for i, x in ds.enumerate():
            t += i * x
        return t

    assert int(weighted(D.range(4))) == 14

    @tf.function
    def keyed(ds):
        t = tf.constant(0)
        for d in ds:
            t += d["a"]
        return t

    assert int(keyed(D.from_tensor_slices({"a": [1, 2]}))) == 3
    pipeline = D.range(10).filter(lambda x: x % 2 == 0).map(lambda x: x * 10).batch(2)

    @tf.function
    def batches(ds):
        t = tf.constant(0, tf.int64)
        for b in ds:
            t += tf.reduce_sum(b)
        return t

    assert int(batches(pipeline)) == 200


def test_loop_relaxes_changing_shapes():
    f = tf.function(lambda ds: ds.reduce(tf.constant([], tf.int64),
                                         lambda s, x: tf.concat([s, [x]], 0)))
    np.testing.assert_array_equal(f(D.range(3)).numpy(), [0, 1, 2])

    def grow(ds):
        return ds._for_loop(lambda x, t: (tf.concat([t, [x]], 0),), (tf.constant([], tf.int64),))

    out = tf.function(grow, autograph=False)(D.range(4))[0]
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 3])


def test_break_stops_an_infinite_dataset():
    def first_sum_over(ds, limit):
        def body(x, total, done):
            total = total + x
            return total, total >= limit

        return ds._for_loop(body, (tf.constant(0, tf.int64), tf.constant(False)),
                            extra_test=lambda total, done: tf.logical_not(done))[0]

    f = tf.function(first_sum_over, autograph=False)
    assert int(f(D.range(100).repeat(), 10)) == 10  # 0+1+2+3+4
    assert int(f(D.range(3), 100)) == 3


def test_reduce_inside_a_function():
    @tf.function
    def f(ds):
        return ds.reduce((tf.constant(0), tf.constant(1.0)),
                         lambda s, e: (s[0] + e[0], s[1] * e[1]))

    a, b = f(D.from_tensor_slices(([1, 2, 3], [2.0, 3.0, 4.0])))
    assert int(a) == 6 and float(b) == 24.0


def test_dataset_built_inside_a_function_from_arguments():
    @tf.function
    def f(x, scale):
        ds = D.from_tensor_slices(x).map(lambda v: v * scale)
        return ds.reduce(tf.constant(0), lambda a, b: a + b)

    assert int(f(tf.constant([1, 2, 3]), tf.constant(2))) == 12
    assert int(f(tf.constant([4, 5, 6]), tf.constant(3))) == 45  # same trace, new values
    assert f.experimental_get_tracing_count() == 1

    @tf.function
    def g(n):
        ds = D.range(n)
        return ds.cardinality(), ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + b)

    card, total = g(tf.constant(5, tf.int64))
    assert int(card) == 5 and int(total) == 10


def test_cardinality_in_a_function():
    f = tf.function(lambda ds: ds.cardinality())
    assert int(f(D.range(4))) == 4
    assert int(f(D.range(4).repeat())) == -1


def test_next_on_an_eager_iterator_inside_a_function():
    it = iter(D.range(5))
    step = tf.function(lambda it: next(it))
    assert [int(step(it)), int(step(it))] == [0, 1]
    assert step.experimental_get_tracing_count() == 1
    assert int(next(it)) == 2  # eager and traced reads share the position

    @tf.function
    def step2():
        return next(it)

    assert [int(step2()), int(step2())] == [3, 4]
    with pytest.raises(errors.OutOfRangeError, match="End of sequence"):
        step2()


def test_iter_inside_a_function():
    @tf.function
    def first_two(ds):
        it = iter(ds)
        a = next(it)
        b = next(it)
        return a + b

    assert int(first_two(D.range(4))) == 1
    assert int(first_two(D.range(4))) == 1  # each run makes a fresh iterator
    with pytest.raises(errors.OutOfRangeError, match="End of sequence"):
        first_two(D.range(1))

    @tf.function
    def optional(ds):
        opt = iter(ds).get_next_as_optional()
        return opt.has_value(), opt.get_value()

    has, value = optional(D.range(3, 5))
    assert bool(has) and int(value) == 3


def test_python_for_without_autograph_is_refused():
    f = tf.function(lambda ds: [x for x in ds], autograph=False)
    with pytest.raises(ValueError, match="An unusually high number of `tf.data.Iterator."
                                         "get_next\\(\\)` calls was detected"):
        f(D.range(2))


def test_len_and_as_numpy_iterator_are_eager_only():
    with pytest.raises(TypeError, match="only supports `len` in eager mode"):
        tf.function(lambda ds: len(ds), autograph=False)(D.range(3))
    with pytest.raises(RuntimeError, match="only supported in eager mode"):
        tf.function(lambda ds: ds.as_numpy_iterator(), autograph=False)(D.range(3))


def test_dataset_arguments_are_keyed_by_identity():
    f = tf.function(lambda ds: ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + b))
    ds = D.range(4)
    assert int(f(ds)) == 6 and int(f(ds)) == 6
    assert f.experimental_get_tracing_count() == 1
    assert int(f(D.range(5))) == 10


@pytest.mark.parametrize("executor", ["interpreter", "codegen"])
def test_executors_agree(executor, monkeypatch):
    monkeypatch.setattr(compiled, "default_executor", executor)
    f = tf.function(lambda ds: ds.reduce(tf.constant(0.0), lambda s, x: s + x * x))
    ds = D.from_tensor_slices(np.arange(5, dtype=np.float32)).map(lambda x: x + 1.0)
    assert float(f(ds)) == 55.0


def test_map_function_print_runs_at_trace_and_tf_print_at_run(capsys):
    def fn(x):
        print("trace")
        tf.print("run", x)
        return x

    ds = D.range(2).map(fn)
    assert capsys.readouterr().out == "trace\n"
    total = tf.function(lambda ds: ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + b))
    assert int(total(ds)) == 1
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("run ") == 2
