"""Each optimization pass, before and after: structure changes, values do not."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.passes import cse, fold, pipeline, prune, simplify


def _graph(fn, *specs):
    return tf.function(fn).get_concrete_function(*specs).graph


def _types(graph):
    return [op.type for op in graph.get_operations()]


def test_fold_runs_constant_subexpressions_once():
    g = _graph(lambda x: x * (tf.constant(2.0) + 1.0), tf.TensorSpec([2]))
    folded, changed = fold.run(g)
    assert changed and "AddV2" in _types(g) and "AddV2" not in _types(folded)


def test_fold_uses_values_known_while_tracing():
    g = _graph(lambda x: tf.reshape(x, [tf.shape(x)[0] * 2, -1]), tf.TensorSpec([4, 6]))
    folded, _ = fold.run(g)
    folded, _ = prune.run(folded)
    assert _types(folded) == ["Placeholder", "Const", "Reshape", "Identity"]


def test_cse_merges_identical_ops_but_not_stateful_ones():
    def f(x):
        tf.print(x)
        tf.print(x)
        return tf.exp(x) + tf.exp(x)

    g = _graph(f, tf.TensorSpec([]))
    merged, changed = cse.run(g)
    assert changed
    assert _types(merged).count("Exp") == 1 and _types(merged).count("PrintV2") == 2


def test_prune_keeps_stateful_ops_and_outputs():
    v = tf.Variable(0)

    def f(x):
        tf.exp(x)  # unused: pruned
        v.assign_add(1)  # stateful: kept
        return x

    pruned, changed = prune.run(_graph(f, tf.TensorSpec([])))
    assert changed and "Exp" not in _types(pruned) and "AssignAddVariableOp" in _types(pruned)


def test_simplify_turns_scalar_indexing_into_one_index():
    g = _graph(lambda x, i: x[i], tf.TensorSpec([5, 3]), tf.TensorSpec([], tf.int32))
    simple, changed = simplify.run(g)
    simple, _ = prune.run(simple)
    assert changed and _types(simple) == ["Placeholder", "Placeholder", "IndexAxis0"]
    f = tf.function(lambda x, i: x[i])
    x = tf.constant(np.arange(15.0).reshape(5, 3))
    assert f(x, tf.constant(-1)).numpy().tolist() == [12.0, 13.0, 14.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 7 of dimension 0"):
        f(x, tf.constant(7))


def test_passes_do_not_mutate_their_input():
    g = _graph(lambda x: x * (tf.constant(2.0) + 1.0) + tf.exp(x) * 0 + tf.exp(x),
               tf.TensorSpec([2]))
    before = _types(g)
    for p in (fold, simplify, cse, prune):
        p.run(g)
    assert _types(g) == before


def test_simplify_and_cse_in_one_copy_equal_the_two_passes():
    def f(x, i):
        a, b = x[i], x[i]  # two equal slices: one index after both passes
        return tf.identity(a) + tf.identity(b) * tf.identity(a), tf.exp(x) + tf.exp(x)

    g = _graph(f, tf.TensorSpec([5, 3]), tf.TensorSpec([], tf.int32))
    apart, _ = prune.run(cse.run(simplify.run(g)[0])[0])
    together, changed = pipeline.simplify_and_cse(g)
    together, _ = prune.run(together)
    assert changed and _types(together) == _types(apart)
    assert _types(together).count("IndexAxis0") == 1 and "Identity" not in _types(together)
    assert _types(together).count("Exp") == 1
    fn = tf.function(f)
    x = tf.constant(np.arange(15.0).reshape(5, 3))
    a, e = fn(x, tf.constant(1))
    np.testing.assert_allclose(a.numpy(), [3.0 + 9.0, 4.0 + 16.0, 5.0 + 25.0])
    np.testing.assert_allclose(e.numpy(), 2 * np.exp(x.numpy()))


def test_fold_leaves_a_graph_without_constant_work_as_it_is():
    g = _graph(lambda x: tf.tanh(x * 2.0) - x, tf.TensorSpec([2]))
    same, changed = fold.run(g)
    assert same is g and not changed
    folded, changed = fold.run(_graph(lambda x: x * (tf.constant(2.0) + 1.0), tf.TensorSpec([2])))
    assert changed and "AddV2" not in _types(folded)
