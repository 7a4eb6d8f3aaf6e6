"""TF's random numbers bit for bit: Philox-4x32-10 and the distributions of TF's CPU kernels.

Every expected value below was printed by TensorFlow 2.21 (CPU) for the same call."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.ops.random import philox
from tensortrace.ops.random.stateless import (StatelessRandomGetKeyCounter,
                                              StatelessRandomNormalV2,
                                              StatelessRandomUniformFullIntV2,
                                              StatelessRandomUniformIntV2,
                                              StatelessRandomUniformV2,
                                              StatelessTruncatedNormalV2, stateless_v2)
from tensortrace.context import bind

from .optable import Case, op_types, run_case

F32 = np.float32


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def test_generator_from_seed_matches_tf():
    g = tf.random.Generator.from_seed(1)
    np.testing.assert_array_equal(g.state.numpy(), [1, 0, 0])
    np.testing.assert_array_equal(
        g.normal(shape=[5]).numpy(),
        F32([0.43842274, -0.53439844, -0.07710262, 1.5658046, -0.1012345]))
    np.testing.assert_array_equal(g.state.numpy(), [1281, 0, 0])  # 5 values * 256 counters
    np.testing.assert_array_equal(g.uniform([3]).numpy(),
                                  F32([0.8704672, 0.24279201, 0.61187625]))
    np.testing.assert_array_equal(g.state.numpy(), [2049, 0, 0])


def test_generator_draws_split_and_seeds_match_tf():
    g = tf.random.Generator.from_seed(7)
    np.testing.assert_array_equal(
        g.truncated_normal([6]).numpy(),
        F32([-1.3240396, 0.28785667, -0.8757901, -0.08857018, -0.8142257, -0.5233668]))
    np.testing.assert_array_equal(g.uniform([4], 0, 100, tf.int32).numpy(), [31, 38, 83, 0])
    np.testing.assert_array_equal(g.uniform_full_int([2], tf.int64).numpy(),
                                  [6002981072787626489, -5361039104290772540])
    states = [s.state.numpy() for s in g.split(2)]
    np.testing.assert_array_equal(states, [[0, 0, -1104641329072609474],
                                           [0, 0, 5968369755252652254]])
    np.testing.assert_array_equal(g.state.numpy(), [3591, 0, 0])
    np.testing.assert_array_equal(g.make_seeds(2).numpy(),
                                  [[6958698921710751781, 2127770947798251487], [0, 0]])
    wrapped = tf.random.Generator.from_state([-5, -1, -3], alg="philox")  # words as uint64
    np.testing.assert_array_equal(wrapped.uniform([3]).numpy(),
                                  F32([0.91261005, 0.29382277, 0.56690264]))
    g2 = tf.random.Generator.from_state([0, 0, 1], alg="philox")
    np.testing.assert_array_equal(
        g2.normal([5]).numpy(), F32([0.3052047, 0.5671378, 0.41852272, 0.2326421, -0.6602213]))


def test_stateless_ops_match_tf():
    s = [1, 2]
    np.testing.assert_array_equal(
        tf.random.stateless_normal([5], seed=s).numpy(),
        F32([0.5441101, 0.20738031, 0.07356432, 0.04643455, -1.3015898]))
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s).numpy(),
        F32([0.8440604, 0.19204533, 0.9962232, 0.1603874, 0.27199018]))
    np.testing.assert_array_equal(
        tf.random.stateless_truncated_normal([9], seed=s).numpy(),
        F32([0.5441101, 0.20738031, 0.07356432, 0.04643455, 0.16820592, -1.6850333,
             0.24202858, 1.7034503, 1.1060678]))
    np.testing.assert_array_equal(  # group 249's window: rejection deep into the stream
        tf.random.stateless_truncated_normal([1000], seed=s).numpy()[-6:],
        F32([0.63071305, 0.21119256, -0.6988336, -0.19043414, -0.06769125, -0.5632602]))
    np.testing.assert_array_equal(
        tf.random.stateless_truncated_normal([5], seed=s, dtype=tf.float64).numpy(),
        [-0.1423118100189212, 0.7406072461585091, -0.552387756244845, -0.734450092480207,
         -0.39842023956588357])
    np.testing.assert_array_equal(
        tf.random.stateless_normal([5], seed=s, dtype=tf.float64).numpy(),
        [-0.1423118100189212, 0.7406072461585091, -1.469047669443883, 1.147747453689489,
         -0.7218813856153005])
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s, dtype=tf.float64).numpy(),
        [0.7524837538451801, 0.9697857725627486, 0.17592233912897481, 0.8555556648693279,
         0.514811871731222])
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s, dtype=tf.float16).numpy(),
        np.float16([0.543, 0.2354, 0.06055, 0.8936, 0.1436]))
    np.testing.assert_array_equal(
        tf.random.stateless_normal([5], seed=s, dtype=tf.float16).numpy(),
        np.float16([0.544, 0.2074, 0.07355, 0.04645, -1.302]))
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s, minval=-3, maxval=10, dtype=tf.int32).numpy(),
        [7, -3, -2, -2, 6])
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s, minval=-3, maxval=10, dtype=tf.int64).numpy(),
        [7, 7, -3, -2, 5])
    full = dict(minval=None, maxval=None)
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([3], seed=s, dtype=tf.int32, **full).numpy(),
        [1105988140, 1738052849, -335576002])
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([3], seed=s, dtype=tf.uint64, **full).numpy(),
        np.uint64([7464880146280614444, 1591045637757961278, 17389275318164050067]))


def test_bfloat16_matches_tf():
    bf16 = tf.bfloat16.as_numpy_dtype  # TF prints bfloat16 to 6 digits: compare as bfloat16
    s = [1, 2]
    np.testing.assert_array_equal(
        tf.random.stateless_normal([5], seed=s, dtype=tf.bfloat16).numpy(),
        np.array([0.542969, 0.207031, 0.0737305, 0.0463867, -1.30469], bf16))
    np.testing.assert_array_equal(
        tf.random.stateless_uniform([5], seed=s, dtype=tf.bfloat16).numpy(),
        np.array([0.34375, 0.882812, 0.484375, 0.148438, 0.148438], bf16))


def test_stateful_ops_with_seeds_match_tf():
    tf.random.set_seed(1)  # op seeds come from Python's random.Random(1), as in TF's context
    np.testing.assert_array_equal(tf.random.normal([3]).numpy(),
                                  F32([-1.1012203, 1.5457517, 0.383644]))
    np.testing.assert_array_equal(tf.random.normal([3]).numpy(),
                                  F32([0.40308788, -1.0880208, -0.06309535]))
    # an explicit op seed: one kernel, whose stream moves on 256 counters per value
    np.testing.assert_array_equal(tf.random.normal([3], seed=5).numpy(),
                                  F32([0.33694574, 1.77476, 1.4188327]))
    np.testing.assert_array_equal(tf.random.normal([3], seed=5).numpy(),
                                  F32([-0.8267702, 0.9718784, -0.1936583]))


def test_key_counter_of_a_seed_matches_tf():
    key, counter = bind(StatelessRandomGetKeyCounter, tf.constant([1, 2]))
    assert key.dtype == tf.uint64 and counter.dtype == tf.uint64
    np.testing.assert_array_equal(key.numpy(), np.uint64([10413732777507651514]))
    np.testing.assert_array_equal(counter.numpy(), np.uint64([0, 17830669156045600267]))


def test_counter_carries_across_64_bits():
    # low word at its maximum: the next counter is (0, high + 1)
    gen = philox.Philox(3, (5 << 64) | philox.MASK64)
    np.testing.assert_array_equal(gen.blocks(2)[1], philox.Philox(3, 6 << 64).blocks(1)[0])


def test_v2_ops_refuse_threefry_and_bad_keys():
    key, counter = bind(StatelessRandomGetKeyCounter, tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported algorithm id: 2"):
        stateless_v2(StatelessRandomNormalV2, tf.constant([2]), key, counter, 2, tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="key must have shape"):
        stateless_v2(StatelessRandomNormalV2, tf.constant([2]), tf.concat([key, key], 0),
                     counter, 1, tf.float32)


def _v2(op, **kw):
    def draw(shape, seed):
        key, counter = bind(StatelessRandomGetKeyCounter, seed)
        return stateless_v2(op, tf.constant(shape), key, counter, 3, **kw)
    return draw


def _stateless_reference(fn, **kw):
    return lambda shape, seed: fn(shape, seed=seed, **kw).numpy()


SEED = np.array([4, 5], np.int32)
SHAPE = [3, 2]
CASES = [
    Case(_v2(StatelessRandomUniformV2, dtype=tf.float32), (SHAPE, SEED),
         ref=_stateless_reference(tf.random.stateless_uniform), id="uniform-v2"),
    Case(_v2(StatelessRandomNormalV2, dtype=tf.float64), (SHAPE, SEED),
         ref=_stateless_reference(tf.random.stateless_normal, dtype=tf.float64), id="normal-v2"),
    Case(_v2(StatelessTruncatedNormalV2, dtype=tf.float32), (SHAPE, SEED),
         ref=_stateless_reference(tf.random.stateless_truncated_normal), id="truncated-v2"),
    Case(_v2(StatelessRandomUniformIntV2, minval=tf.constant(-4), maxval=tf.constant(9)),
         (SHAPE, SEED), ref=_stateless_reference(tf.random.stateless_uniform, minval=-4,
                                                  maxval=9, dtype=tf.int32), id="int-v2"),
    Case(_v2(StatelessRandomUniformFullIntV2, dtype=tf.int64), (SHAPE, SEED),
         ref=_stateless_reference(tf.random.stateless_uniform, minval=None, maxval=None,
                                  dtype=tf.int64), id="full-int-v2"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_v2_op_has_a_case():
    covered = set().union(*(op_types(c) for c in CASES))
    assert {"StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
            "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
            "StatelessRandomGetKeyCounter"} <= covered
