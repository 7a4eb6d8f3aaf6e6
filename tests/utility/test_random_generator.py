"""tf.random.Generator: TF 2.21's state layout and advance, determinism per seed, and a state
that advances per call inside tf.function."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import random_generator as RG


def _state(g):
    return g.state.numpy().tolist()


def test_state_layout_and_advance_match_tf():
    g = RG.Generator.from_seed(1)
    assert _state(g) == [1, 0, 0] and g.algorithm == 1 and int(g.key) == 0
    assert g.state.dtype == tf.int64 and g.state.name == "StateVar:0"
    assert g.normal([2]).shape == (2,)
    assert _state(g) == [513, 0, 0]  # 256 counter steps per value drawn
    g.normal([3, 1])
    assert _state(g) == [1281, 0, 0]
    g.uniform([2])
    assert _state(g) == [1793, 0, 0]
    assert g.make_seeds(3).shape == (2, 3)
    assert g.make_seeds(3).numpy()[1].tolist() == [0, 0, 0]
    assert _state(g) == [1793 + 6 * 256, 0, 0]
    children = g.split(2)
    assert [_state(c)[:2] for c in children] == [[0, 0], [0, 0]]
    assert _state(children[0])[2] != _state(children[1])[2]
    g.reset_from_seed(1)
    assert g.skip(10).numpy().tolist() == [1, 0, 0]  # the state before skipping
    assert _state(g) == [2561, 0, 0]


def test_seeds_to_states():
    assert _state(RG.Generator.from_seed(-5)) == [-5, -1, -1]
    assert _state(RG.Generator.from_seed(2**40)) == [2**40, 0, 0]
    assert _state(RG.Generator.from_seed(1.5)) == [0, 0, 1]
    assert _state(RG.Generator.from_seed(tf.constant(3))) == [0, 0, 3]
    assert _state(RG.Generator.from_seed(1, alg="threefry")) == [1, 0]
    assert _state(RG.Generator.from_state([1, 2, 3], "philox")) == [1, 2, 3]
    assert _state(RG.Generator.from_key_counter(5, [1, 2], "philox")) == [1, 2, 5]
    assert _state(RG.Generator(state=[1, 2, 3], alg=RG.Algorithm.PHILOX)) == [1, 2, 3]
    assert RG.create_rng_state(1, "philox").numpy().tolist() == [1, 0, 0]
    assert RG.Generator.from_non_deterministic_state().state.dtype == tf.int64
    with pytest.raises(ValueError, match="unsupported value"):
        RG.Generator.from_seed(1, alg="mersenne")


def test_same_seed_same_sequence_and_streams_differ():
    a, b = RG.Generator.from_seed(7), RG.Generator.from_seed(7)
    first = [a.normal([3]).numpy().tolist(), a.uniform([2]).numpy().tolist()]
    assert first == [b.normal([3]).numpy().tolist(), b.uniform([2]).numpy().tolist()]
    assert a.normal([3]).numpy().tolist() != first[0]
    assert RG.Generator.from_seed(8).normal([3]).numpy().tolist() != first[0]
    a.reset_from_seed(7)
    assert a.normal([3]).numpy().tolist() == first[0]


def test_draws():
    g = RG.Generator.from_seed(3)
    ints = g.uniform([100], 0, 10, tf.int32).numpy()
    assert ints.dtype == np.int32 and ints.min() >= 0 and ints.max() < 10
    assert g.uniform([2], dtype=tf.int64, minval=5, maxval=6).numpy().tolist() == [5, 5]
    floats = g.uniform([100], dtype=tf.float64, maxval=3.0).numpy()
    assert floats.dtype == np.float64 and floats.min() >= 0 and floats.max() < 3
    assert g.uniform([2], dtype=tf.float16).dtype == tf.float16
    assert g.uniform_full_int([2]).dtype == tf.uint64
    assert g.uniform_full_int([2], tf.int32).dtype == tf.int32
    t = g.truncated_normal([1000], 1.0, 2.0).numpy()
    assert t.min() >= -3.0 and t.max() <= 5.0
    assert g.normal([2], mean=[1.0, 2.0], stddev=[0.0, 0.0]).numpy().tolist() == [1.0, 2.0]
    assert g.normal([]).shape == ()
    with pytest.raises(ValueError, match="minval and maxval must be both `None` or both "
                                         "non-`None`; got minval=0 and maxval=None"):
        g.uniform([2], 0, None, tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        g.normal([2], dtype=tf.int32)


def test_state_advances_per_call_inside_tf_function():
    gen = RG.Generator.from_seed(7)

    @tf.function
    def f():
        return gen.normal([2])

    a, b = f().numpy().tolist(), f().numpy().tolist()
    assert a != b and _state(gen) == [7 + 2 * 512, 0, 0]
    replay = RG.Generator.from_seed(7)
    assert replay.normal([2]).numpy().tolist() == a  # traced draws follow the eager sequence
    assert replay.normal([2]).numpy().tolist() == b


def test_creating_a_generator_inside_a_function_follows_variable_rules():
    @tf.function
    def h():
        return RG.Generator.from_seed(1).normal([1])

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        h()  # as in TF, already the first call


def test_global_generator():
    g = RG.get_global_generator()
    assert RG.get_global_generator() is g
    mine = RG.Generator.from_seed(3)
    try:
        RG.set_global_generator(mine)
        assert RG.get_global_generator() is mine
    finally:
        RG.set_global_generator(g)
