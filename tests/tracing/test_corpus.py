"""A corpus of plain functions run in every mode: eager (the reference), first traced call, cache
hit (the Python body must not run again), the interpreter against the compiled code (bit-exact),
and the optimized graph against the unoptimized one."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import compiled
from tensortrace.passes import pipeline

RNG = np.random.default_rng(7)
F = RNG.normal(size=(3, 4)).astype(np.float32)
G = RNG.normal(size=(4, 2)).astype(np.float32)
I = RNG.integers(-5, 5, size=(6,)).astype(np.int32)


def arith(x):
    return (x * 2.0 - 1.0) / 3.0 + x ** 2


def reductions(x):
    return tf.reduce_sum(x, axis=0), tf.reduce_mean(x), tf.reduce_max(x, axis=1, keepdims=True)


def matmul_chain(x, w):
    h = tf.nn.relu(tf.matmul(x, w))
    return tf.nn.softmax(h + tf.constant([0.5, -0.5]))


def shapes(x):
    y = tf.reshape(x, [-1])
    z = tf.concat([y, y * 2.0], axis=0)
    return tf.stack([tf.reduce_sum(z), tf.cast(tf.size(z), tf.float32)])


def integer_ops(i):
    return i // 2, i % 3, tf.abs(i), tf.where(i > 0, i, -i), tf.math.cumsum(i)


def constants_fold(x):
    k = tf.constant(2.0) * tf.constant(3.0) + tf.sqrt(tf.constant(16.0))
    return x * k, x * k  # CSE merges the duplicate


def indexing(x):
    return x[1], x[:, ::-1], x[..., 0], tf.gather(x, [2, 0]), x[tf.newaxis, 0, 1:3]


def nested_io(d):
    return {"total": d["a"] + d["b"], "parts": [d["a"], d["b"] * 2]}


def python_values(x, n=3, mode="add"):
    for _ in range(n):
        x = x + 1.0 if mode == "add" else x * 2.0
    return x


def calls_function(x):
    return inner(x) + inner(x * 2.0)


@tf.function
def inner(x):
    return tf.tanh(x) * 0.5


CORPUS = [
    (arith, (F,), {}),
    (reductions, (F,), {}),
    (matmul_chain, (F, G), {}),
    (shapes, (F,), {}),
    (integer_ops, (I,), {}),
    (constants_fold, (F,), {}),
    (indexing, (F,), {}),
    (nested_io, ({"a": F, "b": F},), {}),
    (python_values, (F,), {"n": 2, "mode": "mul"}),
    (calls_function, (F,), {}),
]


def _tensors(value):
    if isinstance(value, np.ndarray):
        return tf.constant(value)
    if isinstance(value, dict):
        return {k: _tensors(v) for k, v in value.items()}
    return value


def _numpy(out):
    return [np.asarray(t) for t in tf.nest.flatten(out)]


def _assert_same(a, b, exact=False):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        if exact:
            np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn,args,kwargs", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_traced_matches_eager_and_hits_the_cache(fn, args, kwargs):
    args = tuple(_tensors(a) for a in args)
    runs = []

    def body(*a, **k):
        runs.append(1)
        return fn(*a, **k)

    f = tf.function(body)
    eager = _numpy(fn(*args, **kwargs))
    _assert_same(_numpy(f(*args, **kwargs)), eager)
    _assert_same(_numpy(f(*args, **kwargs)), eager)
    assert f.experimental_get_tracing_count() == 1
    assert len(runs) == 1  # the Python body did not run on the cache hit


@pytest.mark.parametrize("fn,args,kwargs", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_interpreter_codegen_and_optimizer_agree(fn, args, kwargs, monkeypatch):
    args = tuple(_tensors(a) for a in args)
    results = {}
    for executor in ("codegen", "interpreter"):
        for optimized in (True, False):
            monkeypatch.setattr(compiled, "default_executor", executor)
            if not optimized:
                monkeypatch.setattr(pipeline, "PASSES", [])
            results[executor, optimized] = _numpy(tf.function(fn)(*args, **kwargs))
            monkeypatch.undo()
    reference = results["interpreter", False]
    for key, value in results.items():
        _assert_same(value, reference, exact=True)


def test_optimizer_folds_and_deduplicates():
    cf = tf.function(constants_fold).get_concrete_function(tf.TensorSpec([3], tf.float32))
    types = [op.type for op in cf.optimized_graph.get_operations()]
    assert types.count("Mul") == 1 and "Sqrt" not in types and "AddV2" not in types
    assert [op.type for op in cf.graph.get_operations()].count("Mul") == 3
