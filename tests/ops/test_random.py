"""Random ops: shapes, dtypes and ranges exactly; moments on large samples; TF's seed semantics
(same seeds, same sequence; set_seed restarts it). test_random_philox pins TF's exact values."""

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph.ir import Graph
from tensortrace.ops.random.seeds import _GLOBAL, _STREAMS, DEFAULT_GRAPH_SEED, get_seed
from tensortrace.registry import NON_DIFFERENTIABLE, get

from .optable import Case, op_types, run_case

# TF 2.21 runs each eager op as a one-op function and names it first in a kernel's error
_EAGER = r"^\{\{function_node __wrapped__\w+_device_/\S+\}\} "

MAXINT32 = 2**31 - 1


@pytest.fixture(autouse=True)
def _no_global_seed():
    """Each test starts (and leaves) the process with no global seed, as a fresh program."""
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


# --- checks for the op table ---------------------------------------------------------------------
def within(shape, dtype, lo, hi, hi_inclusive=False):
    """A Case check: exact shape and dtype, every value in [lo, hi)."""

    def check(out, *args):
        v = out.numpy()
        assert out.shape == tuple(shape) and out.dtype == dtype, (out.shape, out.dtype)
        assert np.asarray(v).dtype == dtype.as_numpy_dtype
        v = np.asarray(v, np.float64)
        assert np.all(v >= lo) and (np.all(v <= hi) if hi_inclusive else np.all(v < hi))

    return check


def of(shape, dtype):
    def check(out, *args):
        assert out.shape == tuple(shape) and out.dtype == dtype, (out.shape, out.dtype)
        assert np.asarray(out).dtype == dtype.as_numpy_dtype
        assert np.all(np.isfinite(np.asarray(out, np.float64)))

    return check


def permutation_of(out, value):
    assert out.shape == value.shape and out.dtype == tf.as_dtype(value.dtype)
    got = np.asarray(out)
    if value.ndim:
        assert sorted(map(repr, got.tolist())) == sorted(map(repr, value.tolist()))
    else:
        assert got == value


LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 1e-30]], np.float32))
SEED = np.array([7, 11], np.int32)
CASES = [
    Case(tf.random.uniform, ([2, 3],), check=within([2, 3], tf.float32, 0, 1), id="uniform"),
    Case(tf.random.uniform, ((),), check=within([], tf.float32, 0, 1), id="uniform-scalar"),
    Case(tf.random.uniform, ([0, 3],), check=within([0, 3], tf.float32, 0, 1), id="uniform-empty"),
    Case(tf.random.uniform, ([4],), dict(dtype=tf.float64), check=within([4], tf.float64, 0, 1)),
    Case(tf.random.uniform, ([4],), dict(dtype=tf.float16), check=within([4], tf.float16, 0, 1)),
    Case(tf.random.uniform, ([5],), dict(minval=-3.0, maxval=-2.0),
         check=within([5], tf.float32, -3, -2, hi_inclusive=True), id="uniform-range"),
    Case(tf.random.uniform, ([5],), dict(maxval=4.0), check=within([5], tf.float32, 0, 4),
         id="uniform-maxval"),
    Case(tf.random.uniform, ([3, 2],), dict(minval=-5, maxval=5, dtype=tf.int32),
         check=within([3, 2], tf.int32, -5, 5), id="uniform-int32"),
    Case(tf.random.uniform, ([6],), dict(minval=2**40, maxval=2**40 + 3, dtype=tf.int64),
         check=within([6], tf.int64, 2**40, 2**40 + 3), id="uniform-int64"),
    Case(tf.random.uniform, (np.array([2, 5], np.int32),), check=within([2, 5], tf.float32, 0, 1),
         dynamic_shape=True, id="uniform-shape-tensor"),
    Case(tf.random.normal, ([2, 3],), check=of([2, 3], tf.float32), id="normal"),
    Case(tf.random.normal, ([4],), dict(mean=3.0, stddev=0.0, dtype=tf.float64),
         ref=lambda *a, **k: np.full([4], 3.0), id="normal-zero-stddev"),
    Case(tf.random.normal, ([2],), dict(mean=[[0.0], [100.0]]), check=of([2, 2], tf.float32),
         id="normal-broadcast-mean"),
    Case(tf.random.normal, ([3],), dict(dtype=tf.float16), check=of([3], tf.float16)),
    Case(tf.random.truncated_normal, ([50],), dict(mean=10.0, stddev=0.5),
         check=within([50], tf.float32, 9.0, 11.0, hi_inclusive=True), id="truncated"),
    Case(tf.random.truncated_normal, ([7],), dict(dtype=tf.float64),
         check=within([7], tf.float64, -2.0, 2.0, hi_inclusive=True), id="truncated-f64"),
    Case(tf.random.categorical, (LOGITS, 6), check=within([2, 6], tf.int64, 0, 2,
                                                          hi_inclusive=True), id="categorical"),
    Case(tf.random.categorical, (LOGITS.astype(np.float64), 0), dict(dtype=tf.int32),
         check=within([2, 0], tf.int32, 0, 3), id="categorical-no-samples"),
    Case(tf.random.categorical, (np.zeros([0, 3], np.float32), 4),
         check=within([0, 4], tf.int64, 0, 3), id="categorical-no-batch"),
    Case(tf.random.shuffle, (np.arange(12, dtype=np.int32).reshape(6, 2),), check=permutation_of,
         id="shuffle-2d"),
    Case(tf.random.shuffle, (np.array([b"a", b"b", b"c"], object),), check=permutation_of,
         id="shuffle-strings"),
    Case(tf.random.shuffle, (np.float32(5.0),), check=permutation_of, id="shuffle-scalar"),
    Case(tf.random.shuffle, (np.zeros([0, 2], np.float32),), check=permutation_of,
         id="shuffle-empty"),
    Case(tf.random.stateless_uniform, ([3, 2], SEED), check=within([3, 2], tf.float32, 0, 1),
         id="stateless-uniform"),
    Case(tf.random.stateless_uniform, ([3], SEED), dict(minval=1.0, maxval=2.0, dtype=tf.float64),
         check=within([3], tf.float64, 1, 2, hi_inclusive=True), id="stateless-uniform-range"),
    Case(tf.random.stateless_uniform, ([9], SEED), dict(minval=-2, maxval=3, dtype=tf.int32),
         check=within([9], tf.int32, -2, 3), id="stateless-uniform-int"),
    Case(tf.random.stateless_uniform, ([5], SEED),
         dict(minval=None, maxval=None, dtype=tf.uint32),
         check=within([5], tf.uint32, 0, 2**32), id="stateless-full-int"),
    Case(tf.random.stateless_normal, ([4], SEED), dict(mean=1.0, stddev=0.0),
         ref=lambda *a, **k: np.ones([4], np.float32), id="stateless-normal"),
    Case(tf.random.stateless_truncated_normal, ([40], SEED),
         check=within([40], tf.float32, -2, 2, hi_inclusive=True), id="stateless-truncated"),
    Case(tf.random.stateless_categorical, (LOGITS, 5, SEED), dict(dtype=tf.int32),
         check=within([2, 5], tf.int32, 0, 2, hi_inclusive=True), id="stateless-categorical"),
]

RANDOM_OPS = {"RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
              "Multinomial", "RandomShuffle"}
STATELESS_OPS = {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                 "StatelessRandomUniformInt", "StatelessRandomUniformFullInt",
                 "StatelessMultinomial"}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_random_op_has_a_case():
    covered = set().union(*(op_types(c) for c in CASES))
    assert RANDOM_OPS | STATELESS_OPS <= covered


def test_registry_records():
    for name in RANDOM_OPS:
        assert get(name).stateful and get(name).grad is NON_DIFFERENTIABLE
    for name in STATELESS_OPS:
        assert not get(name).stateful and get(name).grad is NON_DIFFERENTIABLE


# --- distributions -------------------------------------------------------------------------------
N = 400_000


def test_uniform_moments():
    tf.random.set_seed(3)
    x = tf.random.uniform([N], dtype=tf.float64).numpy()
    assert abs(x.mean() - 0.5) < 4e-3 and abs(x.var() - 1 / 12) < 2e-3
    y = tf.random.uniform([N], minval=-2.0, maxval=6.0).numpy()
    assert abs(y.mean() - 2.0) < 0.03 and abs(y.std() - 8 / np.sqrt(12)) < 0.02
    assert y.min() >= -2.0 and y.max() <= 6.0


def test_half_uniform_never_reaches_one():
    tf.random.set_seed(11)
    x = tf.random.uniform([N], dtype=tf.float16).numpy()
    assert x.dtype == np.float16 and x.min() >= 0 and x.max() < 1
    assert abs(x.astype(np.float64).mean() - 0.5) < 5e-3


def test_uniform_int_covers_range_evenly():
    tf.random.set_seed(12)
    x = tf.random.uniform([N], minval=-3, maxval=5, dtype=tf.int32).numpy()
    counts = np.bincount(x + 3)
    assert len(counts) == 8 and np.all(np.abs(counts / N - 1 / 8) < 5e-3)


def test_normal_moments():
    tf.random.set_seed(13)
    x = tf.random.normal([N], mean=-1.0, stddev=3.0, dtype=tf.float64).numpy()
    assert abs(x.mean() + 1.0) < 0.03 and abs(x.std() - 3.0) < 0.02
    z = (x + 1.0) / 3.0
    assert abs(np.mean(z**3)) < 0.03 and abs(np.mean(z**4) - 3.0) < 0.06


def test_truncated_normal_bounds_and_spread():
    tf.random.set_seed(14)
    x = tf.random.truncated_normal([N], mean=5.0, stddev=2.0).numpy()
    assert x.min() >= 1.0 and x.max() <= 9.0
    # The standard normal truncated to [-2, 2] has standard deviation 0.8796.
    assert abs(x.mean() - 5.0) < 0.02 and abs(x.std() - 2 * 0.8796) < 0.02


def test_categorical_frequencies_follow_softmax():
    tf.random.set_seed(15)
    logits = np.log([[0.1, 0.2, 0.7], [0.25, 0.25, 0.5]]).astype(np.float32)
    x = tf.random.categorical(logits, 100_000).numpy()
    for row, p in zip(x, np.exp(logits)):
        assert np.all(np.abs(np.bincount(row, minlength=3) / 100_000 - p) < 0.01)


def test_categorical_ignores_non_finite_logits_like_tf():
    # TF's sampler gives -inf, inf and nan logits no mass; a row without mass gives num_classes.
    x = tf.random.categorical([[np.nan, 0.0], [np.inf, 0.0], [-np.inf, -np.inf]], 50).numpy()
    assert np.all(x[0] == 1) and np.all(x[1] == 1) and np.all(x[2] == 2)


def test_shuffle_is_uniform_over_permutations():
    tf.random.set_seed(5)
    seen = {tuple(tf.random.shuffle([0, 1, 2]).numpy()) for _ in range(200)}
    assert len(seen) == 6


def test_stateless_moments():
    x = tf.random.stateless_normal([N], seed=[1, 2]).numpy()
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1.0) < 0.01
    u = tf.random.stateless_uniform([N], seed=[3, 4]).numpy()
    assert abs(u.mean() - 0.5) < 4e-3


# --- seeds: eager --------------------------------------------------------------------------------
def test_get_seed_follows_tf():
    assert get_seed(None) == (None, None)
    assert get_seed(5) == (DEFAULT_GRAPH_SEED, 5)
    tf.random.set_seed(1234)
    # TF draws eager op seeds from random.Random(global seed): these are TF's own values.
    assert get_seed(None) == (1234, 1892932127)
    assert get_seed(None) == (1234, 501869158)
    assert get_seed(7) == (1234, 7)
    assert get_seed(2**40) == (1234, 2**40 % MAXINT32)
    tf.random.set_seed(1234)
    assert get_seed(None) == (1234, 1892932127)
    tf.random.set_seed(0)
    assert get_seed(0) == (0, MAXINT32)  # (0, 0) would mean "nondeterministic"
    tf.random.set_seed(MAXINT32)  # truncates to 0
    assert get_seed(0) == (0, MAXINT32)


def test_global_seed_repeats_the_sequence_after_reset():
    tf.random.set_seed(1234)
    a1, a2 = tf.random.uniform([3]).numpy(), tf.random.uniform([3]).numpy()
    tf.random.set_seed(1234)
    b1, b2 = tf.random.uniform([3]).numpy(), tf.random.uniform([3]).numpy()
    assert not np.array_equal(a1, a2)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    tf.random.set_seed(4321)
    assert not np.array_equal(tf.random.uniform([3]).numpy(), a1)


def test_op_seed_walks_one_stream_per_kernel():
    tf.random.set_seed(1234)
    x1 = tf.random.uniform([2], seed=1).numpy()
    n1 = tf.random.normal([2], seed=1).numpy()  # another kernel: does not advance uniform's
    x2 = tf.random.uniform([2], seed=1).numpy()
    x3 = tf.random.uniform([2], seed=1, minval=5.0, maxval=6.0).numpy()  # same RandomUniform
    tf.random.set_seed(1234)
    y = [tf.random.uniform([2], seed=1).numpy() for _ in range(3)]
    assert not np.array_equal(x1, x2)
    np.testing.assert_array_equal(x1, y[0])
    np.testing.assert_array_equal(x2, y[1])
    np.testing.assert_allclose(x3, y[2] + 5.0, rtol=1e-6)
    assert not np.array_equal(n1, x1)
    tf.random.set_seed(1234)
    assert not np.array_equal(tf.random.uniform([2], seed=2).numpy(), y[0])


def run_program(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2]).stdout


def test_op_seed_without_global_seed_is_deterministic_across_runs():
    code = ("import tensortrace as tf\n"
            "print(tf.random.uniform([3], seed=7).numpy().tolist(),"
            " tf.random.uniform([3], seed=7).numpy().tolist(),"
            " tf.random.normal([2], seed=3).numpy().tolist())\n")
    runs = [run_program(code) for _ in range(2)]
    assert runs[0] == runs[1]


def test_global_seed_program_is_deterministic_across_runs():
    code = ("import tensortrace as tf\ntf.random.set_seed(42)\n"
            "print([tf.random.uniform([2]).numpy().tolist() for _ in range(3)],"
            " tf.random.categorical([[0.0, 1.0, 2.0]], 8).numpy().tolist(),"
            " tf.random.shuffle(list(range(10))).numpy().tolist())\n")
    runs = [run_program(code) for _ in range(2)]
    assert runs[0] == runs[1]


def test_no_seed_is_random():
    assert not np.array_equal(tf.random.uniform([4]).numpy(), tf.random.uniform([4]).numpy())
    assert not np.array_equal(tf.random.normal([4], seed=None).numpy(),
                              tf.random.normal([4]).numpy())


def test_set_seed_accepts_what_tf_accepts():
    tf.random.set_seed(None)
    tf.random.set_seed(np.int64(3))
    tf.random.set_seed(3)
    a = tf.random.uniform([2]).numpy()
    tf.random.set_seed(np.int64(3))
    np.testing.assert_array_equal(tf.random.uniform([2]).numpy(), a)


def test_stateless_same_seed_same_values():
    a = tf.random.stateless_uniform([5], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, tf.random.stateless_uniform([5], seed=[1, 2]).numpy())
    np.testing.assert_array_equal(
        a, tf.random.stateless_uniform([5], seed=tf.constant([1, 2], tf.int64)).numpy())
    assert not np.array_equal(a, tf.random.stateless_uniform([5], seed=[2, 1]).numpy())
    assert not np.array_equal(a, tf.random.stateless_uniform([5], seed=[-1, 2]).numpy())
    tf.random.set_seed(9)  # the global seed plays no part
    np.testing.assert_array_equal(a, tf.random.stateless_uniform([5], seed=[1, 2]).numpy())
    c = tf.random.stateless_categorical([[0.0, 1.0]], 20, seed=[4, 4]).numpy()
    np.testing.assert_array_equal(c, tf.random.stateless_categorical([[0.0, 1.0]], 20,
                                                                     seed=[4, 4]).numpy())


# --- seeds: traced graphs ------------------------------------------------------------------------
def run_graph(graph, outputs, feeds=None):
    """A minimal interpreter: run every op's kernel in program order (as the executor does)."""
    env = {}
    for op in graph.get_operations():
        if op.type == "Placeholder":
            values = (feeds[op.name],)
        elif op.type == "Const":
            values = (op.attrs["value"],)
        else:
            out = op.opdef.kernel(*[env[t.name] for t in op.inputs], **op.attrs)
            values = out if type(out) is tuple else (out,)
        for t, v in zip(op.outputs, values):
            env[t.name] = v
    return [np.asarray(env[t.name]) for t in outputs]


def trace(fn):
    g = Graph()
    with g.as_default():
        outs = fn()
    return g, outs


def two_uniforms(seed=None):
    return lambda: (tf.random.uniform([1], seed=seed), tf.random.uniform([1], seed=seed))


def random_ops(graph):
    return [op for op in graph.get_operations() if op.type in RANDOM_OPS]


def test_traced_ops_take_seeds_from_the_graph_counter():
    tf.random.set_seed(1234)
    g, _ = trace(two_uniforms())
    seeds = [(op.attrs["seed"], op.attrs["seed2"]) for op in random_ops(g)]
    assert seeds == [(1234, 0), (1234, 1)]
    assert all(type(op.attrs[k]) is int for op in random_ops(g)
               for k in ("seed", "seed2", "_stream"))
    g2, _ = trace(two_uniforms(seed=3))
    assert [(op.attrs["seed"], op.attrs["seed2"]) for op in random_ops(g2)] == [(1234, 3)] * 2
    tf.random.set_seed(None)
    g3, _ = trace(two_uniforms())
    assert [(op.attrs["seed"], op.attrs["seed2"]) for op in random_ops(g3)] == [(0, 0)] * 2


def test_traced_random_ops_draw_new_values_on_every_run():
    g, outs = trace(lambda: tf.random.normal([4]))
    a, b = run_graph(g, [outs]), run_graph(g, [outs])
    assert not np.array_equal(a[0], b[0])
    tf.random.set_seed(8)
    g, outs = trace(lambda: tf.random.normal([4]))
    a, b = run_graph(g, [outs]), run_graph(g, [outs])
    assert not np.array_equal(a[0], b[0])


def test_identical_seeded_ops_in_a_function_have_their_own_counters():
    # TF's docs: foo() -> (A1, A1), then (A2, A2); set_seed restarts at (A1, A1).
    tf.random.set_seed(1234)
    g, outs = trace(two_uniforms(seed=1))
    first, second = run_graph(g, outs), run_graph(g, outs)
    np.testing.assert_array_equal(first[0], first[1])
    np.testing.assert_array_equal(second[0], second[1])
    assert not np.array_equal(first[0], second[0])
    tf.random.set_seed(1234)
    np.testing.assert_array_equal(run_graph(g, outs)[0], first[0])


def test_functions_rerun_the_same_sequence_under_a_global_seed():
    # TF's docs: with a global seed, f() and g() (same body) both print (A1, A2).
    tf.random.set_seed(1234)
    f, f_outs = trace(two_uniforms())
    g, g_outs = trace(two_uniforms())
    f1, g1 = run_graph(f, f_outs), run_graph(g, g_outs)
    np.testing.assert_array_equal(f1[0], g1[0])
    np.testing.assert_array_equal(f1[1], g1[1])
    assert not np.array_equal(f1[0], f1[1])
    # The function's second op has seeds (1234, 1): the stream of an eager op with seed=1.
    tf.random.set_seed(1234)
    np.testing.assert_array_equal(tf.random.uniform([1], seed=1).numpy(), f1[1])


def test_graph_and_eager_streams_are_independent_kernels():
    tf.random.set_seed(1234)
    g, outs = trace(lambda: tf.random.uniform([1], seed=1))
    graph_first = run_graph(g, [outs])[0]
    eager_first = tf.random.uniform([1], seed=1).numpy()
    np.testing.assert_array_equal(graph_first, eager_first)
    assert not np.array_equal(run_graph(g, [outs])[0], graph_first)


def test_set_seed_while_tracing_sets_the_graph_seed_only():
    tf.random.set_seed(5)

    def body():
        a = tf.random.uniform([1])
        tf.random.set_seed(7)
        return a, tf.random.uniform([1])

    g, _ = trace(body)
    assert [(op.attrs["seed"], op.attrs["seed2"]) for op in random_ops(g)] == [(5, 0), (7, 1)]
    assert _GLOBAL.seed == 5


def test_inner_graph_inherits_the_outer_seed_with_its_own_counter():
    tf.random.set_seed(5)
    outer = Graph()
    with outer.as_default():
        tf.random.uniform([1])
        tf.random.set_seed(7)
        inner = Graph(outer=outer)
        with inner.as_default():
            tf.random.uniform([1])
    assert [(op.attrs["seed"], op.attrs["seed2"]) for op in random_ops(inner)] == [(7, 0)]


def test_stateless_ops_in_a_graph_repeat():
    g, outs = trace(lambda: tf.random.stateless_normal([3], seed=[1, 2]))
    np.testing.assert_array_equal(run_graph(g, [outs])[0], run_graph(g, [outs])[0])
    np.testing.assert_allclose(run_graph(g, [outs])[0],
                               tf.random.stateless_normal([3], seed=[1, 2]).numpy())


# --- errors --------------------------------------------------------------------------------------
def raises(exc, match, fn, *args, **kwargs):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_python_argument_errors():
    raises(ValueError, "Must specify maxval for integer dtype tf.int32", tf.random.uniform, [2],
           dtype=tf.int32)
    raises(ValueError, r"Argument `dtype` got invalid value <dtype: 'bool'>. Accepted dtypes are "
           r"\(tf.float16, ", tf.random.uniform, [2], dtype=tf.bool)
    raises(ValueError, "invalid value <dtype: 'uint8'>", tf.random.uniform, [2], maxval=3,
           dtype=tf.uint8)
    raises(ValueError, r"invalid value <dtype: 'int16'>. Accepted dtypes are \(tf.int32, "
           r"tf.int64\)", tf.random.categorical, [[0.0, 1.0]], 3, dtype=tf.int16)
    raises(TypeError, "Cannot convert 0.0 to EagerTensor of dtype int32", tf.random.normal, [2],
           dtype=tf.int32)
    raises(TypeError, "Cannot convert 0.0 to EagerTensor of dtype int32",
           tf.random.truncated_normal, [2], dtype=tf.int32)
    raises(ValueError, "argument `minval` and `maxval` must be both None or not None",
           tf.random.stateless_uniform, [3], seed=[1, 2], dtype=tf.int32)
    raises(ValueError, "Please don't use unsigned integers in this case",
           tf.random.stateless_uniform, [3], seed=[1, 2], maxval=7, dtype=tf.uint32)
    raises(ValueError, "Tensor conversion requested dtype float32 for Tensor with dtype float64",
           tf.random.uniform, [2], minval=tf.constant(1.0, tf.float64))


def test_runtime_errors():
    E = tf.errors.InvalidArgumentError
    raises(E, _EAGER + r"Need minval < maxval, got 5 >= 5 \[Op:RandomUniformInt\] name: $",
           tf.random.uniform,
           [2], minval=5, maxval=5, dtype=tf.int32)
    raises(E, r"shape must be a vector of \{int32,int64\}, got shape \[\] \[Op:RandomUniform\]",
           tf.random.uniform, 5)
    raises(E, r"got shape \[1,1\]", tf.random.uniform, [[2]])
    raises(E, _EAGER + r"Dimension -1 must be >= 0 \[Op:RandomUniform\] name: $", tf.random.uniform, [-1, 2])
    raises(E, r"^Value for attr 'T' of float is not in the list of allowed values: int32, int64 "
           r"\[Op:RandomUniform\] name: $", tf.random.uniform, [2.0])
    raises(E, _EAGER + r"minval must be 0-D, got shape \[2\] \[Op:RandomUniformInt\] name: $",
           tf.random.uniform, [2], minval=[0, 10], maxval=20, dtype=tf.int32)
    raises(E, _EAGER + r"logits should be a matrix, got shape \[2\] \[Op:Multinomial\] name: $",
           tf.random.categorical, [0.0, 0.0], 3)
    raises(E, _EAGER + r"num_samples should be non-negative, got -1 \[Op:Multinomial\] name: $",
           tf.random.categorical, [[0.0, 0.0]], -1)
    raises(E, _EAGER + r"num_classes should be positive, got 0 \[Op:Multinomial\] name: $",
           tf.random.categorical, np.zeros([2, 0], np.float32), 3)
    raises(E, r"^cannot compute Multinomial as input #1\(zero-based\) was expected to be a int32 "
           r"tensor but is a int64 tensor \[Op:Multinomial\] name: $", tf.random.categorical,
           [[0.0, 0.0]], tf.constant(2, tf.int64))
    raises(tf.errors.NotFoundError, "Could not find device for node", tf.random.categorical,
           [[1, 2]], 3)
    raises(E, _EAGER + r"seed must have shape \[2\], not \[3\]", tf.random.stateless_uniform, [3],
           seed=[1, 2, 3])
    raises(E, _EAGER + r"seed must have shape \[2\], not \[\]", tf.random.stateless_normal, [3], seed=1)
    raises(E, r"^Value for attr 'Tseed' of float is not in the list of allowed values: int32, "
           r"int64", tf.random.stateless_uniform, [3], seed=[1.0, 2.0])
    raises(E, _EAGER + r"Need minval < maxval, got 3 >= 3", tf.random.stateless_uniform, [3],
           seed=[1, 2], minval=3, maxval=3, dtype=tf.int32)


def test_int64_shape_tensors():
    # (Not an op-table case: tf.as_dtype(np.dtype("int64")) fails in the core today.)
    assert tf.random.uniform(tf.constant([3, 1], tf.int64)).shape == (3, 1)
    g = Graph()
    with g.as_default():
        s = g.placeholder(tf.TensorSpec([2], tf.int64), "s")
        assert tf.random.normal(s).shape.as_list() == [None, None]


def test_runtime_edge_cases_that_do_not_raise():
    assert tf.random.uniform([0], minval=5, maxval=5, dtype=tf.int32).shape == (0,)
    x = tf.random.uniform([100], minval=5.0, maxval=1.0).numpy()  # TF computes, never checks
    assert x.min() > 1.0 and x.max() <= 5.0
    assert tf.random.uniform(tf.TensorShape([2, 1])).shape == (2, 1)
    assert tf.random.uniform([2], seed=2**40).shape == (2,)


def trace_error(fn, *specs):
    g = Graph()
    with g.as_default():
        return fn(*[g.placeholder(s, "x") for s in specs])


def test_graph_time_errors():
    raises(ValueError, "Shape must be rank 1 but is rank 0", trace_error, tf.random.uniform,
           tf.TensorSpec([], tf.int32))
    raises(TypeError, "Value passed to parameter 'shape' has DataType float32 not in list of "
           "allowed values: int32, int64", trace_error, tf.random.uniform,
           tf.TensorSpec([2], tf.float32))
    raises(ValueError, "Shape must be rank 2 but is rank 1", trace_error,
           lambda x: tf.random.categorical(x, 2), tf.TensorSpec([3]))
    raises(ValueError, r"minval must be a scalar; got a tensor of shape \[2\]", trace_error,
           lambda: tf.random.uniform([2], [0, 1], 5, dtype=tf.int32))
    raises(ValueError, "Dimension must be 2 but is 3", trace_error,
           lambda: tf.random.stateless_uniform([2], [1, 2, 3]))
    raises(ValueError, "Cannot convert a partially known TensorShape", tf.random.uniform,
           tf.TensorShape([None, 2]))


def test_graph_shapes():
    g = Graph()
    with g.as_default():
        logits = g.placeholder(tf.TensorSpec([None, 3]), "logits")
        n = g.placeholder(tf.TensorSpec([], tf.int32), "n")
        assert tf.random.categorical(logits, n).shape.as_list() == [None, None]
        assert tf.random.categorical(logits, 4).shape.as_list() == [None, 4]
        assert tf.random.shuffle(logits).shape.as_list() == [None, 3]
        assert tf.random.uniform([-1, 2]).shape.as_list() == [None, 2]
        s = g.placeholder(tf.TensorSpec(None, tf.int32), "s")
        assert tf.random.normal(s).shape.rank is None


def test_seeds_of_the_eager_counter_do_not_accumulate_streams():
    tf.random.set_seed(3)
    for _ in range(50):
        tf.random.uniform([1])
    assert not _STREAMS  # one-shot streams: a long eager loop does not grow memory
    tf.random.uniform([1], seed=4)
    assert len(_STREAMS) == 1
    tf.random.set_seed(3)
    assert not _STREAMS
    assert random.Random(3).randint(0, MAXINT32) == get_seed(None)[1]


def test_tf_function_matches_tfs_documented_sequences():
    tf.random.set_seed(1234)

    @tf.function
    def foo():
        return tf.random.uniform([1], seed=1), tf.random.uniform([1], seed=1)

    @tf.function
    def bar():
        return tf.random.uniform([1]), tf.random.uniform([1])

    (a1, a1b), (a2, a2b) = foo(), foo()  # TF: (A1, A1) then (A2, A2)
    assert a1.numpy() == a1b.numpy() and a2.numpy() == a2b.numpy() and a1.numpy() != a2.numpy()
    (b1, c1), (b2, c2) = bar(), bar()  # second op has seeds (1234, 1): the stream of seed=1
    assert c1.numpy() == a1.numpy() and c2.numpy() == a2.numpy() and b1.numpy() != b2.numpy()
    tf.random.set_seed(1234)
    assert foo()[0].numpy() == a1.numpy()
    assert tf.random.uniform([1], seed=1).numpy() == a1.numpy()


def test_shapes_holding_tensors_inside_functions():
    @tf.function
    def f(x):
        return tf.random.uniform([tf.shape(x)[0], 3]), tf.random.normal((tf.shape(x)[1],))

    a, b = f(tf.zeros([2, 5]))
    assert a.shape == (2, 3) and b.shape == (5,)
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([None, 4]), "x")
        assert tf.random.uniform([tf.shape(x)[0], 3]).shape.as_list() == [None, 3]
    assert tf.random.uniform([tf.constant(2), 3]).shape == (2, 3)
