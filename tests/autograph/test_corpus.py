"""Every corpus function, with Python-valued and tensor-valued arguments, run eagerly and
traced: all runs agree on values; traced with tensors the graph holds If/While ops, traced
with Python values it holds none."""

import numpy as np
import pytest

import tensortrace as tf

from . import corpus

CONTROL_FLOW = {"If", "StatelessIf", "While", "StatelessWhile"}


def _tensor(value):
    if isinstance(value, bool):
        return tf.constant(value)
    if isinstance(value, (int, float, list)):
        return tf.constant(value)
    return value


def _values(out):
    if isinstance(out, (tuple, list)):
        return [_values(o) for o in out]
    return np.asarray(out).tolist()


def _op_kinds(fn, *args):
    graph = tf.function(fn).get_concrete_function(*args).graph
    kinds = set()
    for op in graph.get_operations():
        if op.type in CONTROL_FLOW:
            kinds.add("If" if "If" in op.type else "While")
    return kinds


def _case_id(case):
    fn, args, _ = case
    return f"{fn.__name__}{args}"


@pytest.mark.parametrize("case", corpus.CASES, ids=_case_id)
def test_python_values_run_as_python(case):
    fn, args, _ = case
    expected = _values(fn(*args))
    assert _values(tf.function(fn)(*args)) == expected
    assert _values(tf.autograph.to_graph(fn)(*args)) == expected
    assert _op_kinds(fn, *args) == set()


@pytest.mark.parametrize("case", corpus.CASES, ids=_case_id)
def test_tensor_values_build_graph_control_flow(case):
    fn, args, kinds = case
    expected = _values(fn(*args))
    tensors = [_tensor(a) for a in args]
    assert _values(fn(*tensors)) == expected  # eagerly, on eager tensors
    assert _values(tf.autograph.to_graph(fn)(*tensors)) == expected
    assert _values(tf.function(fn)(*tensors)) == expected
    assert _op_kinds(fn, *tensors) == kinds


def test_tensor_values_trace_once_for_all_values():
    fn = tf.function(corpus.collatz_steps)
    results = [int(fn(tf.constant(n))) for n in (1, 6, 7, 27)]
    assert results == [corpus.collatz_steps(n) for n in (1, 6, 7, 27)]
    assert fn.experimental_get_tracing_count() == 1


def test_tensor_ops_in_branches():
    fn = tf.function(corpus.tensor_ops_in_branches)
    np.testing.assert_allclose(fn(tf.constant([3.0, -1.0])).numpy(), [6.0, 2.0])
    np.testing.assert_allclose(fn(tf.constant([-1.0, -3.0])).numpy(), [1.0, 9.0])
    assert _op_kinds(corpus.tensor_ops_in_branches, tf.constant([1.0])) == {"If"}
