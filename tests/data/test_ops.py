"""The tf.data graph ops in the op-table harness: each case runs eagerly against a NumPy
reference and traced (dataset, iterator and optional ops) with ``infer`` checked against it."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tests.ops.optable import Case, op_types, run_case

D = tf.data.Dataset
M32 = np.arange(6, dtype=np.int32).reshape(3, 2)
F64 = np.linspace(0.0, 1.0, 4)
S = np.array([b"a", b"bc"], dtype=object)


def first(x):
    return next(iter(D.from_tensor_slices(x)))


def first_pair(x, y):
    return iter(D.from_tensor_slices((x, y))).get_next()


def optional_value(x):
    opt = iter(D.from_tensor_slices(x)).get_next_as_optional()
    return opt.has_value(), opt.get_value()


def total(x):
    return D.from_tensor_slices(x).reduce(tf.zeros_like(x[0]), lambda s, v: s + v)


def batched_total(x):
    return D.from_tensor_slices(x).batch(2).map(tf.reduce_sum).reduce(
        tf.zeros((), x.dtype), lambda s, v: s + v)


def range_cardinality(n):
    return D.range(n).cardinality()


def optional_from_value(x):
    opt = tf.experimental.Optional.from_value((x, x[0]))
    return opt.has_value(), opt.get_value()


def optional_empty(x):
    return tf.experimental.Optional.empty(tf.TensorSpec(x.shape, x.dtype)).has_value()


def range_sum(n):
    return D.range(n).reduce(tf.constant(0, tf.int64), lambda s, v: s + v)


CASES = [
    Case(first, (M32,), ref=lambda x: x[0], id="get_next_int32_rows"),
    Case(first, (F64,), ref=lambda x: x[0], id="get_next_float64_scalar"),
    Case(first, (S,), ref=lambda x: np.array(x[0], dtype=object), id="get_next_string"),
    Case(first_pair, (M32, F64[:3]), ref=lambda x, y: (x[0], y[0]), id="get_next_tuple"),
    Case(optional_value, (M32,), ref=lambda x: (np.bool_(True), x[0]), id="optional"),
    Case(optional_from_value, (M32,), ref=lambda x: (np.bool_(True), (x, x[0])),
         id="optional_from_value"),
    Case(optional_empty, (F64,), ref=lambda x: np.bool_(False), id="optional_none"),
    Case(total, (M32,), ref=lambda x: x.sum(0, dtype=np.int32), id="reduce_rows"),
    Case(total, (F64,), ref=lambda x: x.sum(), id="reduce_float64"),
    Case(batched_total, (M32,), ref=lambda x: np.int32(x.sum()), id="batch_map_reduce"),
    Case(range_cardinality, (np.array(5, np.int64),), ref=lambda n: np.int64(5),
         id="cardinality"),
    Case(range_sum, (np.array(5, np.int64),), ref=lambda n: np.int64(10), id="range_reduce"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_data_op_is_in_the_table():
    mine = {name for name, op in registry.all_ops().items()
            if op.infer.__module__ == "tensortrace.data.ops"}
    covered = set().union(*(op_types(c) for c in CASES))
    covered |= {"OptionalHasValue", "OptionalGetValue"} & _loop_body_ops()
    assert mine and mine - covered == set()


def _loop_body_ops():
    """Op types inside the While bodies of a traced dataset loop."""
    g, _ = _trace(total, M32)
    found = set()
    for op in g.get_operations():
        for value in op.attrs.values():
            if hasattr(value, "get_operations"):
                found |= {o.type for o in value.get_operations()}
    return found


def _trace(fn, *arrays):
    from tensortrace.graph.ir import Graph

    g = Graph()
    with g.as_default():
        out = fn(*[g.placeholder(tf.TensorSpec(a.shape, tf.as_dtype(a.dtype)), "x")
                   for a in arrays])
    return g, out


def test_ops_are_non_differentiable_and_iterators_stateful():
    for name in ("PythonDataset", "MakeDatasetIterator", "IteratorGetNext",
                 "IteratorGetNextAsOptional", "OptionalHasValue", "OptionalGetValue",
                 "DatasetCardinality"):
        assert registry.get(name).grad is registry.NON_DIFFERENTIABLE
    stateful = {n for n in ("MakeDatasetIterator", "IteratorGetNext", "IteratorGetNextAsOptional")
                if registry.get(n).stateful}
    assert len(stateful) == 3
    assert not registry.get("PythonDataset").stateful
