"""Indexing ops: slicing and ``[]``, gather/scatter, masks, sorting, top-k, unique, segments,
searchsorted, roll and einsum, against NumPy and TF's verified behaviour."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph.ir import Graph

from .optable import Case, op_types, rand, run_case

# TF 2.21 runs each eager op as a one-op function and names it first in a kernel's error
_EAGER = r"^\{\{function_node __wrapped__\w+_device_/\S+\}\} "

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
V = np.array([3.0, 1.0, 2.0, 1.0], np.float32)
I32 = np.int32
S = np.array([b"a", b"b", b"c"], dtype=object)


def _i(*v):
    return np.array(v, np.int32)


# --- NumPy references ----------------------------------------------------------------------------
def _gather_nd_ref(p, idx, batch_dims=0):
    idx = np.asarray(idx)
    if batch_dims == 0:
        return p[tuple(np.moveaxis(idx, -1, 0))]
    return np.stack([_gather_nd_ref(pb, ib) for pb, ib in zip(p, idx)])


def _scatter_ref(ufunc):
    def ref(t, idx, upd):
        out = t.copy()
        rows = tuple(np.moveaxis(np.asarray(idx), -1, 0))
        if ufunc is None:
            for k in range(len(upd)):
                out[tuple(r[k] for r in rows)] = upd[k]
        else:
            ufunc.at(out, rows, upd)
        return out

    return ref


def _descending_argsort(x, axis=-1):
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    order = (n - 1) - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return np.moveaxis(order, -1, axis)


def _top_k_ref(x, k=1, **kw):
    order = _descending_argsort(x)[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


def _unique_ref(x, out_idx=tf.int32):
    seen, y, idx = {}, [], []
    for v in x.tolist():
        if v not in seen:
            seen[v] = len(y)
            y.append(v)
        idx.append(seen[v])
    return np.array(y, x.dtype), np.array(idx, out_idx.as_numpy_dtype)


def _segment_ref(data, ids, n, fn, empty):
    out = np.full((n,) + data.shape[np.ndim(ids):], empty, data.dtype)
    flat_ids = np.reshape(ids, -1)
    flat = data.reshape((flat_ids.size,) + data.shape[np.ndim(ids):])
    for j in range(n):
        rows = flat[flat_ids == j]
        if len(rows):
            out[j] = fn(rows, axis=0)
    return out


CASES = [
    # [] and the slicing ops
    Case(lambda x: x[1], (X,), ref=lambda x: x[1], id="getitem-int"),
    Case(lambda x: x[-1, 1:, ::-2], (X,), ref=lambda x: x[-1, 1:, ::-2], id="getitem-mixed"),
    Case(lambda x: x[None, ..., 2], (X,), ref=lambda x: x[None, ..., 2], id="getitem-newaxis"),
    Case(lambda x: x[10::-1], (V,), ref=lambda x: x[10::-1], id="getitem-clamp"),
    Case(lambda x: x[1:], (np.zeros((0, 3), np.int64),), ref=lambda x: x[1:], id="getitem-empty"),
    Case(lambda x: x[2], (S,), ref=lambda x: np.array(x[2], dtype=object), id="getitem-string"),
    Case(lambda x, i: x[i], (X, np.array(1, np.int32)), ref=lambda x, i: x[i],
         id="getitem-symbolic-index"),
    Case(lambda x, i: x[:, i:], (X, np.array(1, np.int64)), ref=lambda x, i: x[:, i:],
         dynamic_shape=True, id="getitem-symbolic-slice"),
    Case(lambda x, m: x[m], (V, np.array([True, False, True, True])),
         ref=lambda x, m: x[m], dynamic_shape=True, id="getitem-mask"),
    Case(tf.strided_slice, (X, [0, 1], [2, 3], [1, 1]), {"shrink_axis_mask": 1},
         ref=lambda x, b, e, s, shrink_axis_mask: x[0, 1:3], id="strided_slice"),
    Case(tf.strided_slice, (X, [1, 0], [0, 0], [1, -1]),
         {"begin_mask": 2, "end_mask": 2, "new_axis_mask": 1},
         ref=lambda x, b, e, s, **m: x[None, ::-1], id="strided_slice-masks"),
    Case(tf.slice, (X, [1, 0, 1], [1, -1, 2]), ref=lambda x, b, s: x[1:2, 0:, 1:3]),
    Case(tf.slice, (V.astype(np.int64), [4], [0]), ref=lambda x, b, s: x[4:4], id="slice-empty"),
    # gather family
    Case(tf.gather, (X, _i(2, 0, 2)), {"axis": 1}, ref=lambda p, i, axis: np.take(p, i, axis)),
    Case(tf.gather, (X, _i(0, 3)), {"axis": -1}, ref=lambda p, i, axis: np.take(p, i, axis),
         id="gather-neg-axis"),
    Case(tf.gather, (V, np.array([[0, 1], [3, 3]], np.int64)),
         ref=lambda p, i: np.take(p, i, 0), id="gather-2d-indices"),
    Case(tf.gather, (S, np.array(2, np.int32)), ref=lambda p, i: np.array(p[2], dtype=object),
         id="gather-string-scalar"),
    Case(tf.gather, (X, np.array([[0, 1], [2, 2]], np.int16)), {"axis": 1, "batch_dims": 1},
         ref=lambda p, i, axis, batch_dims: np.stack([p[0][[0, 1]], p[1][[2, 2]]]),
         id="gather-batch"),
    Case(tf.gather, (X, np.array([[3, 0], [1, 1]], np.int32)), {"axis": 2, "batch_dims": 1},
         ref=lambda p, i, axis, batch_dims: np.stack([p[0][:, [3, 0]], p[1][:, [1, 1]]]),
         id="gather-batch-axis2"),
    Case(tf.gather_nd, (X, np.array([[0, 1], [1, 2]], np.int32)), ref=_gather_nd_ref),
    Case(tf.gather_nd, (X, np.array([[[0, 1, 3]], [[1, 0, 0]]], np.int64)), ref=_gather_nd_ref,
         id="gather_nd-full-depth"),
    Case(tf.gather_nd, (X, np.array([[1], [2]], np.int32)), {"batch_dims": 1},
         ref=_gather_nd_ref, id="gather_nd-batch"),
    Case(tf.gather_nd, (V, np.zeros((2, 0), np.int32)),
         ref=lambda p, i: np.broadcast_to(p, (2, 4)), id="gather_nd-depth0"),
    Case(tf.scatter_nd, (np.array([[0], [2], [0]], np.int32), V[:3], [4]),
         ref=lambda i, u, s: np.array([5.0, 0, 1, 0], np.float32), id="scatter_nd-duplicates"),
    Case(tf.scatter_nd, (np.array([[1, 0]], np.int64), np.ones((1, 4), np.int32), [2, 3, 4]),
         ref=lambda i, u, s: np.pad(np.ones((1, 1, 4), np.int32), ((1, 0), (0, 2), (0, 0))),
         id="scatter_nd-slices"),
    Case(tf.tensor_scatter_nd_update, (V, _i(1, 1, 3).reshape(3, 1), V[:3] * 10),
         ref=_scatter_ref(None)),
    Case(tf.tensor_scatter_nd_add, (X, _i(0, 1, 0, 1).reshape(2, 2), np.ones((2, 4), np.float32)),
         ref=_scatter_ref(np.add)),
    Case(tf.tensor_scatter_nd_sub, (V.astype(np.int64), _i(3, 3).reshape(2, 1),
                                    np.array([5, 6], np.int64)), ref=_scatter_ref(np.subtract)),
    Case(tf.tensor_scatter_nd_max, (V, _i(0, 2).reshape(2, 1), np.array([1.0, 9], np.float32)),
         ref=_scatter_ref(np.maximum)),
    Case(tf.tensor_scatter_nd_min, (V, _i(0, 2).reshape(2, 1), np.array([1.0, 9], np.float32)),
         ref=_scatter_ref(np.minimum)),
    Case(tf.boolean_mask, (X, np.array([[True, False, True], [False, False, True]])),
         ref=lambda t, m: t[m], dynamic_shape=True),
    Case(tf.boolean_mask, (X, np.array([True, False, True, True])), {"axis": 2},
         ref=lambda t, m, axis: t[:, :, m], dynamic_shape=True, id="boolean_mask-axis"),
    Case(tf.boolean_mask, (X, np.array([[True, False, True, False]] * 3)), {"axis": 1},
         ref=lambda t, m, axis: t[:, m], dynamic_shape=True, id="boolean_mask-2d-axis"),
    # sorting
    Case(tf.sort, (rand(3, 5),), ref=lambda x: np.sort(x, -1)),
    Case(tf.sort, (rand(4, 3, dtype=np.int32),), {"axis": 0, "direction": "DESCENDING"},
         ref=lambda x, axis, direction: -np.sort(-x, axis), id="sort-axis0-desc"),
    Case(tf.sort, (np.array([255, 0, 3], np.uint8),), ref=np.sort, id="sort-uint8"),
    Case(tf.sort, (np.array([-2**31, 2**31 - 1, 0], np.int32),), ref=np.sort, id="sort-int-ends"),
    Case(lambda x, m: tf.sort(tf.boolean_mask(x, m)), (V, np.array([True, True, False, True])),
         ref=lambda x, m: np.sort(x[m]), dynamic_shape=True, id="sort-unknown-length"),
    Case(tf.argsort, (np.array([1, 1, 1, 2, 2], np.int64),), {"direction": "DESCENDING"},
         ref=lambda x, direction: np.array([3, 4, 0, 1, 2], np.int32), id="argsort-desc-ties"),
    Case(tf.argsort, (rand(2, 6, dtype=np.int8),), {"axis": 1},
         ref=lambda x, axis: np.argsort(x, axis, kind="stable").astype(np.int32)),
    Case(tf.argsort, (rand(3, 2, dtype=np.float64),), {"axis": -2},
         ref=lambda x, axis: np.argsort(x, axis, kind="stable").astype(np.int32),
         id="argsort-axis-neg2"),
    Case(tf.math.top_k, (np.array([1, 3, 3, 2, 3], np.int32),), {"k": 3}, ref=_top_k_ref),
    Case(tf.math.top_k, (rand(2, 3, 5, dtype=np.float16),), {"k": 2}, ref=_top_k_ref,
         id="top_k-f16-3d"),
    Case(tf.math.top_k, (rand(2, 4),), {"k": 0}, ref=_top_k_ref, id="top_k-k0"),
    Case(tf.unique, (np.array([1, 1, 2, 4, 4, 4, 7, 8, 8], np.int32),), ref=_unique_ref,
         dynamic_shape=True),
    Case(tf.unique, (np.array([b"b", b"a", b"b"], dtype=object),), {"out_idx": tf.int64},
         ref=_unique_ref, dynamic_shape=True, id="unique-string-int64"),
    Case(tf.unique_with_counts, (np.array([3.0, 1.0, 3.0], np.float64),),
         ref=lambda x: (np.array([3.0, 1.0]), _i(0, 1, 0), _i(2, 1)), dynamic_shape=True),
    # segments, searchsorted, roll, einsum
    Case(tf.math.unsorted_segment_sum, (V, _i(0, 2, 0, -1), 3),
         ref=lambda d, i, n: np.array([5.0, 0, 1], np.float32)),
    Case(tf.math.unsorted_segment_sum, (np.ones((2, 2, 3), np.int64), _i(0, 1, 1, 1).reshape(2, 2),
                                        np.array(2, np.int64)),
         ref=lambda d, i, n: _segment_ref(d, i, 2, np.sum, 0), dynamic_shape=True,
         id="unsorted_segment_sum-2d-ids"),
    Case(tf.math.unsorted_segment_prod, (V, _i(0, 2, 0, 0), 3),
         ref=lambda d, i, n: _segment_ref(d, i, 3, np.prod, 1)),
    Case(tf.math.unsorted_segment_max, (V, _i(0, 2, 0, 0), 3),
         ref=lambda d, i, n: _segment_ref(d, i, 3, np.max, np.finfo(np.float32).min)),
    Case(tf.math.unsorted_segment_min, (_i(1, 2), _i(0, 0), 2),
         ref=lambda d, i, n: np.array([1, 2**31 - 1], np.int32)),
    Case(tf.math.segment_sum, (rand(4, 3), _i(0, 0, 2, 2)),
         ref=lambda d, i: _segment_ref(d, i, 3, np.sum, 0), dynamic_shape=True),
    Case(tf.math.segment_prod, (V, _i(0, 0, 2, 2)),
         ref=lambda d, i: _segment_ref(d, i, 3, np.prod, 1), dynamic_shape=True),
    Case(tf.math.segment_max, (_i(1, 2, 5), _i(0, 0, 2)),
         ref=lambda d, i: _i(2, 0, 5), dynamic_shape=True),
    Case(tf.math.segment_min, (V, _i(1, 1, 1, 3)),
         ref=lambda d, i: np.array([0, 1, 0, 1], np.float32), dynamic_shape=True),
    Case(tf.math.segment_mean, (np.array([-3, 0, 7], np.int32), _i(0, 0, 1)),
         ref=lambda d, i: _i(-1, 7), dynamic_shape=True),
    Case(tf.searchsorted, (np.array([1.0, 3, 5, 7], np.float32),
                           np.array([0.0, 3, 6, 9], np.float32)),
         ref=lambda s, v: np.searchsorted(s, v).astype(np.int32)),
    Case(tf.searchsorted, (np.array([[1, 3, 5], [2, 4, 6]], np.int32),
                           _i(3, 3, 0, 7).reshape(2, 2)),
         {"side": "right", "out_type": tf.int64},
         ref=lambda s, v, side, out_type: np.array([[2, 2], [0, 3]], np.int64),
         id="searchsorted-batched-right"),
    Case(tf.roll, (X, np.array([1, -1], np.int32)), {"axis": [0, 2]},
         ref=lambda x, s, axis: np.roll(x, s, axis)),
    Case(tf.roll, (S, np.array(4, np.int64)), {"axis": 0}, ref=lambda x, s, axis: np.roll(x, 4),
         id="roll-string"),
    Case(lambda a, b: tf.einsum("ij,jk->ik", a, b), (rand(2, 3), rand(3, 4)),
         ref=lambda a, b: a @ b, rtol=1e-5, id="einsum-matmul"),
    Case(lambda a: tf.einsum("ii", a), (rand(3, 3, dtype=np.float64),), ref=np.trace,
         id="einsum-trace"),
    Case(lambda a, b: tf.einsum("...ij,...jk", a, b), (rand(5, 2, 3), rand(3, 4)),
         ref=lambda a, b: a @ b, rtol=1e-5, id="einsum-ellipsis"),
    Case(lambda a, b, c: tf.einsum("ij,jk,kl->li", a, b, c),
         (rand(2, 3, dtype=np.int32), rand(3, 4, dtype=np.int32), rand(4, 2, dtype=np.int32)),
         ref=lambda a, b, c: (a @ b @ c).T, id="einsum-three-int"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_indexing_op_has_a_case():
    ops = {"StridedSlice", "Slice", "GatherV2", "GatherNd", "ScatterNd", "TensorScatterUpdate",
           "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax", "TensorScatterMin",
           "TopKV2", "Unique", "UniqueWithCounts", "Einsum", "LowerBound", "UpperBound", "Roll"}
    ops |= {f"{p}Segment{k}" for p in ("", "Unsorted") for k in ("Sum", "Prod", "Max", "Min")}
    ops |= {"SegmentMean"}
    seen = set().union(*(op_types(c) for c in CASES))
    assert ops - seen == set()


def _raises(error, match):
    return pytest.raises(error, match=match)


# --- [] -----------------------------------------------------------------------------------------
def test_getitem_out_of_range_index_raises_tf_message():
    v = tf.constant([1, 2, 3])
    with _raises(tf.errors.InvalidArgumentError, _EAGER + r"slice index 5 of dimension 0 out of bounds\. "
                 r"\[Op:StridedSlice\] name: strided_slice/$"):
        v[5]
    with _raises(tf.errors.InvalidArgumentError, "slice index -1 of dimension 0 out of bounds"):
        v[-4]
    with _raises(tf.errors.InvalidArgumentError, "slice index 5 of dimension 1 out of bounds"):
        tf.constant(X)[1, 5]
    with _raises(tf.errors.InvalidArgumentError, "slice index 5 of dimension 0"):
        v[tf.constant(5)]
    with _raises(tf.errors.InvalidArgumentError, "slice index 0 of dimension 0"):
        tf.zeros([0, 3])[0]


def test_getitem_structural_errors_match_tf():
    v, x, s = tf.constant([1, 2, 3]), tf.constant(X), tf.constant(1)
    cases = [
        (lambda: v[0, 0], "Index out of range using input dim 1; input has only 1 dims"),
        (lambda: v[[0, 1]], "Index out of range using input dim 1"),  # a list is a tuple
        (lambda: x[0, ..., 0, 0, 0], "Index out of range using input dim 3"),
        (lambda: v[..., ...], "Multiple ellipses in slice spec not allowed"),
        (lambda: v[::0], r"strides\[0\] must be non-zero"),
        (lambda: x[..., ::0], r"strides\[2\] must be non-zero"),
        (lambda: s[0], "Attempting to slice scalar input."),
        (lambda: s[None, :], "Attempting to slice scalar input."),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()


def test_getitem_rejects_fancy_indices_with_type_error():
    v = tf.constant([1, 2, 3])
    for bad in (np.array([0, 1]), tf.constant([0, 1]), 1.0, "a", tf.constant(1.0),
                tf.constant(1, tf.uint8), slice(1, 2.0)):
        with _raises(TypeError, r"^Only integers, slices \(`:`\), ellipsis \(`\.\.\.`\), "
                     r"tf.newaxis \(`None`\) and scalar tf.int32/tf.int64 tensors are valid "
                     r"indices, got "):
            v[bad]
    with _raises(ValueError, "mask cannot be scalar."):
        v[True]


def test_getitem_values_match_tf():
    v, s = tf.constant([1, 2, 3]), tf.constant(7)
    assert v[tf.constant(1, tf.int64)].numpy() == 2
    assert v[tf.constant(1, tf.int16)].numpy() == 2
    assert v[np.int64(2)].numpy() == 3
    assert v[np.array(0)].numpy() == 1
    assert v[(1,)].numpy() == 2 and v[[1]].numpy() == 2
    np.testing.assert_array_equal(v[1:tf.constant(3)].numpy(), [2, 3])
    np.testing.assert_array_equal(v[::tf.constant(2)].numpy(), [1, 3])
    np.testing.assert_array_equal(v[-10::-1].numpy(), np.zeros(0))
    assert s[...].numpy() == 7 and s[None].shape == (1,) and s[()].numpy() == 7
    assert tf.constant(X)[()].shape == (2, 3, 4)
    np.testing.assert_array_equal(v[tf.constant([True, False, True])].numpy(), [1, 3])
    np.testing.assert_array_equal(v[np.array([False, True, True])].numpy(), [2, 3])
    assert tf.constant(["a", "b"])[1].numpy() == b"b"
    assert [int(t) for t in v] == [1, 2, 3]


def test_getitem_results_are_tf_values():
    v = tf.constant(V)
    assert type(v[1]._value) is np.float32  # a NumPy scalar, not a 0-d array
    out = tf.constant(S)[0]._value
    assert type(out) is np.ndarray and out.dtype == object and out.shape == ()


def test_getitem_under_a_tape_goes_through_the_op():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x[1, ::2]
    np.testing.assert_array_equal(y.numpy(), X[1, ::2])


def _trace(fn, *specs):
    g = Graph()
    with g.as_default():
        out = fn(*[g.placeholder(s, "x") for s in specs])
    return g, out


def test_getitem_infers_shapes_with_symbolic_indices():
    x, i = tf.TensorSpec([2, 3, 4], tf.int32), tf.TensorSpec([], tf.int32)
    _, out = _trace(lambda x, i: (x[i], x[i:], x[:, i], x[..., i:i + 1], x[i, None, ::-1],
                                  x[::i]), x, i)
    assert [o.shape for o in out] == [
        tf.TensorShape([3, 4]), tf.TensorShape([None, 3, 4]), tf.TensorShape([2, 4]),
        tf.TensorShape([2, 3, None]), tf.TensorShape([1, 3, 4]), tf.TensorShape(None)]
    g, _ = _trace(lambda x, i: x[i], x, i)
    assert [op.type for op in g.get_operations()].count("Pack") == 2  # begin and end


def test_getitem_infers_partial_shapes():
    _, out = _trace(lambda x: (x[1:], x[::-2], x[None, ..., 0], x[:, :, :5], x[0]),
                    tf.TensorSpec([None, 3, None], tf.int32))
    assert [o.shape.as_list() for o in out] == [[None, 3, None], [None, 3, None], [1, None, 3],
                                                [None, 3, None], [3, None]]
    _, out = _trace(lambda x: x[0, 1:], tf.TensorSpec(None, tf.float32))
    assert out.shape.rank is None


def test_getitem_graph_errors_are_value_errors():
    x = tf.TensorSpec([3], tf.int32)
    with _raises(ValueError, "slice index 5 of dimension 0 out of bounds. for "):
        _trace(lambda x: x[5], x)
    with _raises(ValueError, r"strides\[0\] must be non-zero"):
        _trace(lambda x: x[::0], x)
    with _raises(ValueError, "Index out of range using input dim 1"):
        _trace(lambda x: x[0, 0], x)


def test_getitem_with_loop_counter_inside_function():
    @tf.function
    def rows(x, i):
        return x[i] * 2.0

    x = tf.constant(X)
    for i in range(2):
        np.testing.assert_array_equal(rows(x, tf.constant(i)).numpy(), X[i] * 2)
    with _raises(tf.errors.InvalidArgumentError, "slice index 2 of dimension 0 out of bounds"):
        rows(x, tf.constant(2))


# --- slice / strided_slice -----------------------------------------------------------------------
def test_slice_errors_match_tf():
    v = tf.constant([1, 2, 3])
    cases = [
        (lambda: tf.slice(v, [1], [5]), r"Expected size\[0\] in \[0, 2\], but got 5 \[Op:Slice\]"),
        (lambda: tf.slice(v, [-1], [1]), r"Expected begin\[0\] in \[0, 3\], but got -1"),
        (lambda: tf.slice(v, [0], [-2]), r"Expected size\[0\] in \[0, 3\], but got -2"),
        (lambda: tf.slice(v, [0, 0], [1, 1]), ("Expected begin and size arguments to be 1-D "
         r"tensors of size 1, but got shapes \[2\] and \[2\] instead.")),
        (lambda: tf.slice(v, [1.0], [1]), "Value for attr 'Index' of float is not in the list"),
        (lambda: tf.slice(v, tf.constant([1], tf.int64), tf.constant([1])),
         r"input #2\(zero-based\) was expected to be a int64 tensor but is a int32 tensor"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    np.testing.assert_array_equal(tf.slice(v, [1], [-1]).numpy(), [2, 3])
    assert tf.slice(tf.constant(3), tf.zeros([0], tf.int32), tf.zeros([0], tf.int32)).numpy() == 3


def test_slice_infers_shapes():
    _, out = _trace(lambda x: tf.slice(x, [1, 0], [-1, 2]), tf.TensorSpec([None, 5]))
    assert out.shape.as_list() == [None, 2]
    _, out = _trace(lambda x, b: (tf.slice(x, b, [1, 1, 1]), tf.slice(x, [0, 0, 0], b)),
                    tf.TensorSpec([None, 3, 4]), tf.TensorSpec([3], tf.int32))
    assert [o.shape.as_list() for o in out] == [[1, 1, 1], [None, None, None]]
    with _raises(ValueError, "Negative dimension size caused by subtracting 6 from 5"):
        _trace(lambda x: tf.slice(x, [6, 0], [-1, 2]), tf.TensorSpec([5, 5]))


def test_strided_slice_errors_match_tf():
    x, v = tf.constant(X), tf.constant([1, 2, 3])
    cases = [
        (lambda: tf.strided_slice(v, [1], [2], [-1], shrink_axis_mask=1),
         "only stride 1 allowed on non-range indexing."),
        (lambda: tf.strided_slice(x, [0, 0], [1], [1, 1]), ("Expected begin, end, and strides to "
         r"be 1D equal size tensors, but got shapes \[2\], \[1\], and \[2\] instead.")),
        (lambda: tf.strided_slice(x, [1], [2], [1], ellipsis_mask=6), "Multiple ellipses"),
        (lambda: tf.strided_slice(x, tf.constant([1]), tf.constant([2], tf.int64)),
         r"input #2\(zero-based\) was expected to be a int32 tensor but is a int64 tensor"),
        (lambda: tf.strided_slice(x, [0.0], [1.0]), "Value for attr 'Index' of float"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    # an ellipsis bit wins over a new-axis bit; new-axis over shrink; bits past the spec are unused
    assert tf.strided_slice(x, [0], [0], [1], ellipsis_mask=1, new_axis_mask=1).shape == X.shape
    assert tf.strided_slice(x, [0], [0], [1], new_axis_mask=1, shrink_axis_mask=1).shape == \
        (1, 2, 3, 4)
    np.testing.assert_array_equal(
        tf.strided_slice(v, [0], [1], [1], begin_mask=6, end_mask=6, shrink_axis_mask=2), [1])


# --- gather family -------------------------------------------------------------------------------
def test_gather_out_of_range_raises_the_documented_message():
    with _raises(tf.errors.InvalidArgumentError, _EAGER + r"indices\[0\] = 1 is not in \[0, 1\) "
                 r"\[Op:GatherV2\]$"):
        tf.gather(tf.constant([0.0]), [1])
    with _raises(tf.errors.InvalidArgumentError, r"indices\[0\] = -1 is not in \[0, 3\)"):
        tf.gather(tf.constant([1, 2, 3]), [-1])
    with _raises(tf.errors.InvalidArgumentError, r"indices\[0,1\] = 5 is not in \[0, 4\)"):
        tf.gather(tf.constant(X), [[0, 5]], axis=2)
    with _raises(tf.errors.InvalidArgumentError, _EAGER + r"indices = 5 is not in \[0, 2\)"):
        tf.gather(tf.constant([1.0, 2.0]), 5)


def test_unused_gather_in_a_function_does_not_raise():
    @tf.function
    def unused_return_graph(x):
        tf.gather(x, [1])
        return x

    np.testing.assert_array_equal(unused_return_graph(tf.constant([0.0])).numpy(), [0.0])


def test_gather_errors_match_tf():
    x = tf.constant(X)
    cases = [
        (lambda: tf.gather(x, [0], axis=3), "Shape must be at least rank 4 but is rank 3"),
        (lambda: tf.gather(x, [0], axis=-4), "Shape must be at least rank 4 but is rank 3"),
        (lambda: tf.gather(tf.constant(1.0), [0]), "params must be at least 1 dimensional"),
        (lambda: tf.gather(x, [[0], [1], [2]], axis=1, batch_dims=1),
         r"params.shape\[0\]: 2 should be equal to indices.shape\[0\]: 3"),
        (lambda: tf.gather(x, [[0], [1]], axis=1, batch_dims=-3),
         r"Expected batch_dims in the range \[-2, 2\], but got -3"),
        (lambda: tf.gather(x, [0.0]), ("Value for attr 'Tindices' of float is not in the list of "
         "allowed values: int16, int32, int64")),
        (lambda: tf.gather(x, tf.constant([1], tf.uint8)), "attr 'Tindices' of uint8"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    assert tf.gather(x, [[0], [1]], batch_dims=1).shape == (2, 1, 4)
    assert tf.gather(tf.zeros([0, 3]), tf.zeros([0], tf.int32)).shape == (0, 3)


def test_gather_infers_shapes():
    _, out = _trace(lambda p, i: tf.gather(p, i, axis=1), tf.TensorSpec([None, 3, 4]),
                    tf.TensorSpec([None, 2], tf.int32))
    assert out.shape.as_list() == [None, None, 2, 4]
    with _raises(TypeError, "Value passed to parameter 'indices' has DataType float32"):
        _trace(lambda p, i: tf.gather(p, i), tf.TensorSpec([3]), tf.TensorSpec([2]))


def test_gather_nd_errors_match_tf():
    x = tf.constant(X)
    cases = [
        (lambda: tf.gather_nd(x, [[0, 3]]), (_EAGER + r"indices\[0\] = \[0, 3\] does not index into param "
         r"shape \[2,3,4\], node name: GatherNd \[Op:GatherNd\]$")),
        (lambda: tf.gather_nd(x, [[[0, 1]], [[5, 1]]]), r"indices\[1,0\] = \[5, 1\]"),
        (lambda: tf.gather_nd(x, [0, 3]), _EAGER + r"indices = \[0, 3\] does not index"),
        (lambda: tf.gather_nd(tf.constant([1.0]), [[-1]]), r"indices\[0\] = \[-1\] does not"),
        (lambda: tf.gather_nd(tf.constant([1.0]), [[0, 1]]), ("index innermost dimension length "
         "must be <= params rank; saw: 2 vs. 1")),
        (lambda: tf.gather_nd(x, 1), "indices must be at least a vector"),
        (lambda: tf.gather_nd(tf.constant(1.0), tf.zeros([0], tf.int32)),
         "params must be at least a vector"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    np.testing.assert_array_equal(tf.gather_nd(x, [0, 2]).numpy(), X[0, 2])


def test_gather_nd_infers_shapes():
    _, out = _trace(lambda p, i: tf.gather_nd(p, i), tf.TensorSpec([None, 3, 4]),
                    tf.TensorSpec([5, 2], tf.int32))
    assert out.shape.as_list() == [5, 4]
    _, out = _trace(lambda p, i: tf.gather_nd(p, i), tf.TensorSpec([None, 3, 4]),
                    tf.TensorSpec([5, None], tf.int32))
    assert out.shape.rank is None


def test_scatter_nd_semantics_and_errors_match_tf():
    np.testing.assert_array_equal(tf.scatter_nd([[1], [1]], [True, True], [3]).numpy(),
                                  [False, True, False])
    np.testing.assert_array_equal(tf.scatter_nd([[1], [1]], ["a", "b"], [3]).numpy(),
                                  np.array([b"", b"ab", b""], dtype=object))
    out = tf.scatter_nd([[1]], [1.0], tf.constant([4], tf.int64))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [0, 1, 0, 0]
    assert tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0]), [0]).shape == (0,)
    cases = [
        (lambda: tf.scatter_nd([[5]], [1.0], [4]), (_EAGER + r"indices\[0\] = \[5\] does not index into "
         r"shape \[4\] \[Op:ScatterNd\]$")),
        (lambda: tf.scatter_nd([[[0], [1]], [[5], [1]]], tf.ones([2, 2]), [4]),
         r"indices\[1,0\] = \[5\]"),
        (lambda: tf.scatter_nd([[-1]], [1.0], [4]), r"indices\[0\] = \[-1\]"),
        (lambda: tf.scatter_nd([[1]], [1.0, 2.0], [4]), (r"Dimensions \[0,1\) of "
         r"indices\[shape=\[1,1\]\] must match dimensions \[0,1\) of updates\[shape=\[2\]\]")),
        (lambda: tf.scatter_nd([[0]], [[1.0, 2.0]], [4, 3]), (r"Dimensions \[1,2\) of "
         r"input\[shape=\[4,3\]\] must match dimensions \[1,2\) of updates\[shape=\[1,2\]\]")),
        (lambda: tf.scatter_nd(tf.constant([[0]], tf.int64), [1], tf.constant([2])),
         r"input #2\(zero-based\) was expected to be a int64 tensor but is a int32 tensor"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()


def test_scatter_nd_infers_shapes():
    _, out = _trace(lambda i, u: tf.scatter_nd(i, u, [4, 3]), tf.TensorSpec([None, 1], tf.int32),
                    tf.TensorSpec([None, 3]))
    assert out.shape.as_list() == [4, 3]
    _, out = _trace(lambda i, u, s: tf.scatter_nd(i, u, s), tf.TensorSpec([None, 1], tf.int32),
                    tf.TensorSpec([None]), tf.TensorSpec([2], tf.int32))
    assert out.shape.as_list() == [None, None]


def test_tensor_scatter_semantics_and_errors_match_tf():
    t = tf.constant([1.0, 2.0, 3.0, 4.0])
    # duplicates: update keeps the last, add sums; Python updates take the tensor's dtype
    np.testing.assert_array_equal(
        tf.tensor_scatter_nd_update(t, [[1], [1], [3]], [10, -5, 7]).numpy(), [1, -5, 3, 7])
    np.testing.assert_array_equal(
        tf.tensor_scatter_nd_add(t, [[1], [1], [3]], [10.0, -5.0, 7.0]).numpy(), [1, 7, 3, 11])
    np.testing.assert_array_equal(
        tf.tensor_scatter_nd_update(tf.constant(["a", "b"]), [[1]], ["z"]).numpy(),
        np.array([b"a", b"z"], dtype=object))
    assert tf.tensor_scatter_nd_update(t, tf.zeros([0, 1], tf.int32), tf.zeros([0])).shape == (4,)
    for fn in (tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub,
               tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min):
        with _raises(tf.errors.InvalidArgumentError, r"indices\[0\] = \[4\] does not index into "
                     r"shape \[4\]"):
            fn(t, [[4]], [1.0])
    cases = [
        (lambda: tf.tensor_scatter_nd_update(t, [[1]], [1.0, 2.0]), ("Outer dimensions of indices "
         r"and update must match. Indices shape: \[1,1\], updates shape:\[2\]")),
        (lambda: tf.tensor_scatter_nd_update(tf.ones([4, 3]), [[0]], tf.ones([1, 2])),
         (r"The inner 1 dimensions of output.shape=\[4,3\] must match the inner 1 dimensions of "
         r"updates.shape=\[1,2\]")),
        (lambda: tf.tensor_scatter_nd_update(tf.ones([4]), [[0, 0]], tf.ones([1])),
         "Inner dimensions of output shape must match inner dimensions of updates shape"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    with _raises(tf.errors.NotFoundError, "TensorScatterAdd"):
        tf.tensor_scatter_nd_add(tf.constant([True]), [[0]], [True])


def test_boolean_mask_checks_like_tf():
    x = tf.constant(X)
    with _raises(ValueError, r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.boolean_mask(x, [True, False, True])
    with _raises(ValueError, r"Shapes \(\) and \(4,\) are incompatible"):  # TF's negative axis
        tf.boolean_mask(x, [True, False, True, True], axis=-1)
    with _raises(ValueError, "mask cannot be scalar."):
        tf.boolean_mask(x, True)
    # numeric masks count non-zero entries as true
    np.testing.assert_array_equal(tf.boolean_mask(tf.constant([1, 2, 3]), [1.0, 0.0, 2.0]), [1, 3])
    assert tf.boolean_mask(tf.zeros([0, 2]), tf.zeros([0], tf.bool)).shape == (0, 2)
    np.testing.assert_array_equal(tf.boolean_mask(tf.constant(["a", "b"]), [False, True]).numpy(),
                                  np.array([b"b"], dtype=object))


def test_boolean_mask_infers_shapes():
    _, out = _trace(lambda t, m: tf.boolean_mask(t, m), tf.TensorSpec([2, 3, 4]),
                    tf.TensorSpec([2, 3], tf.bool))
    assert out.shape.as_list() == [None, 4]
    _, out = _trace(lambda t, m: tf.boolean_mask(t, m, axis=1), tf.TensorSpec([2, 3, 4]),
                    tf.TensorSpec([3], tf.bool))
    assert out.shape.as_list() == [2, None, 4]
    with _raises(ValueError, "Number of mask dimensions must be specified"):
        _trace(lambda t, m: tf.boolean_mask(t, m), tf.TensorSpec([3]), tf.TensorSpec(None, tf.bool))


# --- sorting, top_k, unique ----------------------------------------------------------------
def test_sort_and_argsort_follow_tf_edge_cases():
    nan = np.nan
    np.testing.assert_array_equal(tf.sort(tf.constant([nan, 1.0, -np.inf, 0.0])).numpy(),
                                  [nan, -np.inf, 0.0, 1.0])  # NaN first, as TF's -top_k(-x)
    np.testing.assert_array_equal(tf.argsort(tf.constant([nan, 1.0, -np.inf, 0.0])).numpy(),
                                  [0, 2, 3, 1])
    np.testing.assert_array_equal(
        tf.sort(tf.constant([nan, 1.0, -np.inf, 0.0]), direction="DESCENDING").numpy(),
        [nan, 1.0, 0.0, -np.inf])
    np.testing.assert_array_equal(tf.argsort(tf.constant([3.0, 1.0, 2.0, 1.0])), [1, 3, 2, 0])
    assert tf.argsort(tf.constant([3, 1], tf.int64)).dtype == tf.int32
    np.testing.assert_array_equal(
        tf.sort(tf.constant([3, 1, 2], tf.uint8), direction="DESCENDING").numpy(), [3, 2, 1])
    assert tf.sort(tf.zeros([3, 0]), axis=0).shape == (3, 0)
    np.testing.assert_array_equal(tf.sort(tf.constant([[3, 1], [1, 2]]), axis=tf.constant(0)),
                                  [[1, 1], [3, 2]])


def test_sort_errors_match_tf():
    v = tf.constant([3.0, 1.0])
    with _raises(ValueError, "Argument `direction` should be one of ASCENDING, DESCENDING. "
                 "Received: direction=UP"):
        tf.sort(v, direction="UP")
    with _raises(tf.errors.InvalidArgumentError, r"slice index -1 of dimension 0 out of bounds. "
                 r"\[Op:StridedSlice\] name: strided_slice/"):
        tf.sort(tf.constant(1.0))
    with _raises(tf.errors.InvalidArgumentError, "slice index 1 of dimension 0 out of bounds"):
        tf.sort(v, axis=1)
    with _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of bool"):
        tf.sort(tf.constant([True, False]))
    with _raises(tf.errors.InvalidArgumentError, "Value for attr 'T' of complex128"):
        tf.sort(tf.constant([2j, 1.0]), direction="DESCENDING")
    with _raises(ValueError, "Argument `axis` must be a constant scalar"):
        _trace(lambda x, a: tf.sort(x, axis=a), tf.TensorSpec([None, 5]),
               tf.TensorSpec([], tf.int32))


def test_sort_infers_shapes():
    _, out = _trace(lambda x: (tf.sort(x, axis=0), tf.argsort(x)), tf.TensorSpec([None, 5]))
    assert [o.shape.as_list() for o in out] == [[None, 5], [None, 5]]
    assert out[1].dtype == tf.int32


def test_top_k_result_and_errors_match_tf():
    v = tf.constant([3.0, 1.0, 2.0, 1.0])
    out = tf.math.top_k(v, k=2)
    assert type(out).__name__ == "TopKV2" and out._fields == ("values", "indices")
    np.testing.assert_array_equal(out.values, [3.0, 2.0])
    np.testing.assert_array_equal(out.indices, [0, 2])
    assert tf.nn.top_k is tf.math.top_k
    assert tf.math.top_k(v).values.shape == (1,)
    assert tf.math.top_k(v, 1, index_type=tf.int64).indices.dtype == tf.int64
    assert tf.math.top_k(v, tf.constant(2, tf.int64)).values.numpy().tolist() == [3.0, 2.0]
    nan = tf.math.top_k(tf.constant([1.0, np.nan, 3.0]), k=2)
    np.testing.assert_array_equal(nan.values, [np.nan, 3.0])
    np.testing.assert_array_equal(nan.indices, [1, 2])
    cases = [
        (lambda: tf.math.top_k(v, k=5), "input must have at least k columns. Had 4, needed 5"),
        (lambda: tf.math.top_k(v, k=-1), "Need k >= 0, got -1"),
        (lambda: tf.math.top_k(v, [1]), r"k must be scalar, got shape \[1\]"),
        (lambda: tf.math.top_k(tf.constant(1.0), 1), r"input must be >= 1-D, got shape \[\]"),
        (lambda: tf.math.top_k(tf.constant([True]), 1), "Value for attr 'T' of bool"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    with _raises(TypeError, "Cannot convert 1.0 to EagerTensor of dtype int32"):
        tf.math.top_k(v, 1.0)


def test_top_k_infers_shapes():
    _, out = _trace(lambda a, k: tf.math.top_k(a, k), tf.TensorSpec([None, 5]),
                    tf.TensorSpec([], tf.int32))
    assert [o.shape.as_list() for o in out] == [[None, None], [None, None]]
    _, out = _trace(lambda a: tf.math.top_k(a, 3), tf.TensorSpec([None, 5]))
    assert out.values.shape.as_list() == [None, 3] and out.indices.dtype == tf.int32
    with _raises(ValueError, "input must have last dimension >= k = 7 but is 5"):
        _trace(lambda a: tf.math.top_k(a, 7), tf.TensorSpec([None, 5]))


def test_unique_matches_tf():
    out = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert type(out).__name__ == "Unique" and out._fields == ("y", "idx")
    out = tf.unique(tf.constant([np.nan, 1.0, np.nan, 0.0, -0.0]))
    np.testing.assert_array_equal(out.y, [np.nan, 1.0, np.nan, 0.0])  # NaNs stay distinct
    np.testing.assert_array_equal(out.idx, [0, 1, 2, 3, 3])
    assert np.signbit(tf.unique(tf.constant([-0.0, 0.0], tf.float64)).y.numpy()[0])
    assert tf.unique(tf.zeros([0])).y.shape == (0,)
    counts = tf.unique_with_counts(tf.constant([3, 1, 3]), out_idx=tf.int64)
    assert type(counts).__name__ == "UniqueWithCounts" and counts.count.dtype == tf.int64
    np.testing.assert_array_equal(counts.count, [2, 1])
    with _raises(tf.errors.InvalidArgumentError, _EAGER + r"unique expects a 1D vector. \[Op:Unique\]"):
        tf.unique(tf.constant([[1, 2]]))
    with _raises(tf.errors.InvalidArgumentError, "Value for attr 'out_idx' of int16"):
        tf.unique(tf.constant([1]), out_idx=tf.int16)
    with _raises(tf.errors.NotFoundError, "Unique"):
        tf.unique(tf.constant([1j]))
    _, out = _trace(tf.unique, tf.TensorSpec([5], tf.int32))
    assert out.y.shape.as_list() == [None] and out.idx.shape.as_list() == [5]


def test_unique_v2_along_an_empty_axis_matches_tf():
    # TF 2.21: (shape, axis) -> (y's shape, idx, count); an empty slice is one distinct slice
    cases = {((0, 3), 0): ((0, 3), [], []), ((0, 3), 1): ((0, 1), [0, 0, 0], [3]),
             ((2, 0), 0): ((1, 0), [0, 0], [2]), ((2, 0), 1): ((2, 0), [], []),
             ((0,), 0): ((0,), [], []), ((2, 0, 3), 2): ((2, 0, 1), [0, 0, 0], [3])}
    for (shape, axis), (y_shape, idx, count) in cases.items():
        out = tf.raw_ops.UniqueWithCountsV2(x=tf.zeros(shape), axis=[axis])
        assert out.y.shape == y_shape and out.y.dtype == tf.float32
        assert out.idx.numpy().tolist() == idx and out.count.numpy().tolist() == count
        assert out.idx.dtype == out.count.dtype == tf.int32
        assert tf.raw_ops.UniqueV2(x=tf.zeros(shape), axis=[axis]).y.shape == y_shape


# --- segments, searchsorted, roll, einsum ---------------------------------------------------
def test_segment_ops_match_tf():
    d = tf.constant([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(d, [0, 2, 0, 0], 3).numpy(),
                                  [4.0, np.finfo(np.float32).min, 2.0])
    np.testing.assert_array_equal(
        tf.math.unsorted_segment_max(tf.constant([1.0], tf.float16), [0], 2).numpy(),
        np.array([1.0, np.finfo(np.float16).min], np.float16))
    np.testing.assert_array_equal(tf.math.segment_sum(d, [0, 0, 2, 2]).numpy(), [3.0, 0.0, 7.0])
    assert tf.math.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)).shape == (0, 2)
    cases = [
        (lambda: tf.math.unsorted_segment_sum(d, [0, 5, 0, 1], 3),
         _EAGER + r"segment_ids\[1\] = 5 is out of range \[0, 3\) \[Op:UnsortedSegmentSum\]$"),
        (lambda: tf.math.unsorted_segment_sum(tf.ones([2, 2]), [[0, 1], [5, 0]], 2),
         r"segment_ids\[1,0\] = 5 is out of range \[0, 2\)"),
        (lambda: tf.math.unsorted_segment_sum(d, [0, 1], 2), (r"data.shape = \[4\] does not start "
         r"with segment_ids.shape = \[2\]")),
        (lambda: tf.math.unsorted_segment_sum(d, [0, 0, 0, 0], -1),
         "Input num_segments == -1 must not be negative."),
        (lambda: tf.math.unsorted_segment_sum(d, [0.0, 0, 0, 0], 2), "attr 'Tindices' of float"),
        (lambda: tf.math.unsorted_segment_sum(tf.constant([True]), [0], 1), "attr 'T' of bool"),
        (lambda: tf.math.segment_sum(d, [0, 2, 1, 2]), "segment ids are not increasing"),
        (lambda: tf.math.segment_sum(d, [-1, 0, 0, 0]), (r"Segment id -1 out of range \[0, 1\), "
         "possibly because 'segment_ids' input is not sorted.")),
        (lambda: tf.math.segment_sum(tf.ones([3]), [0, 1, -1]), "segment ids must be >= 0"),
        (lambda: tf.math.segment_sum(d, [0, 0]), ("segment_ids should be the same size as "
         "dimension 0 of input.")),
        (lambda: tf.math.segment_sum(tf.ones([3, 2]), [[0, 0]]), "segment_ids should be a vector"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()


def test_segment_ops_infer_shapes():
    _, out = _trace(lambda x, i: (tf.math.segment_sum(x, i), tf.math.unsorted_segment_sum(x, i, 5)),
                    tf.TensorSpec([4, 3]), tf.TensorSpec([4], tf.int32))
    assert [o.shape.as_list() for o in out] == [[None, 3], [5, 3]]
    _, out = _trace(lambda x, i, n: tf.math.unsorted_segment_sum(x, i, n), tf.TensorSpec([4, 3]),
                    tf.TensorSpec([4], tf.int32), tf.TensorSpec([], tf.int32))
    assert out.shape.as_list() == [None, 3]


def test_searchsorted_matches_tf():
    s = tf.constant([1.0, 3.0, 5.0, 7.0])
    out = tf.searchsorted(s, [[3.0]])  # TF flattens leading dims: 1 row each
    assert out.shape == (1, 1) and out.numpy()[0, 0] == 1
    assert tf.searchsorted(s, [3.0], out_type=tf.int64).dtype == tf.int64
    big = np.sort(rand(3, 600), -1)
    vals = rand(3, 700)
    expected = np.stack([np.searchsorted(r, v, "right") for r, v in zip(big, vals)])
    np.testing.assert_array_equal(tf.searchsorted(big, vals, side="right").numpy(), expected)
    with _raises(ValueError, "Argument `side` must be either 'right' or 'left'. Received: "
                 "`side` = 'middle'."):
        tf.searchsorted(s, [3.0], side="middle")
    with _raises(tf.errors.InvalidArgumentError, "Leading dim_size of both tensors must match."):
        tf.searchsorted([[1, 3, 5], [2, 4, 6]], [[3, 3]])
    with _raises(tf.errors.InvalidArgumentError, "slice index -1 of dimension 0 out of bounds"):
        tf.searchsorted(s, 3.0)
    with _raises(tf.errors.InvalidArgumentError, r"input #1\(zero-based\) was expected to be a "
                 "float tensor but is a int32 tensor"):
        tf.searchsorted(s, tf.constant([3]))
    with _raises(tf.errors.NotFoundError, "LowerBound"):
        tf.searchsorted(["a", "c"], ["b"])


def test_roll_matches_tf():
    r = tf.constant(np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(tf.roll(r, shift=[1, 2], axis=[0, 0]), [2, 3, 4, 0, 1])
    np.testing.assert_array_equal(tf.roll(r, shift=1, axis=-1), [4, 0, 1, 2, 3])
    assert tf.roll(tf.ones([0]), 1, 0).shape == (0,)
    cases = [
        (lambda: tf.roll(r, 1, 1), "axis 1 is out of range"),
        (lambda: tf.roll(r, 1, -2), "axis -1 is out of range"),
        (lambda: tf.roll(r, [1, 2], 0), "shift and axis must have the same size"),
        (lambda: tf.roll(tf.ones([3, 3]), 1, [0, 1]), "shift and axis must have the same size"),
        (lambda: tf.roll(tf.constant(1), 1, 0), "input must be 1-D or higher"),
    ]
    for fn, message in cases:
        with _raises(tf.errors.InvalidArgumentError, message):
            fn()
    _, out = _trace(lambda a, sh: tf.roll(a, sh, 0), tf.TensorSpec([None, 3]),
                    tf.TensorSpec([], tf.int32))
    assert out.shape.as_list() == [None, 3]


def test_einsum_matches_tf():
    a, b = tf.ones([2, 3]), tf.ones([3, 4])
    assert tf.linalg.einsum is tf.einsum
    assert tf.einsum("ij , jk -> ik", a, b).shape == (2, 4)
    assert tf.einsum("IJ->JI", a).shape == (3, 2)
    assert tf.einsum("i,i->", tf.constant([1, 2], tf.int64), tf.constant([3, 4], tf.int64)) \
        .numpy() == 11
    assert tf.einsum("i,i->", tf.constant([1.0], tf.float16), tf.constant([3.0], tf.float16)) \
        .dtype == tf.float16
    g, _ = _trace(lambda x: (tf.einsum("ij", x), tf.einsum("ba", x)), tf.TensorSpec([2, 3]))
    assert [op.attrs["equation"] for op in g.get_operations() if op.type == "Einsum"] == \
        ["ij->ij", "ba->ab"]
    cases = [
        (lambda: tf.einsum("ij,jk->il", a, b), ValueError,
         "Output subscripts contain the label l not present in the input subscripts."),
        (lambda: tf.einsum("ij,jk->ik", a), ValueError,
         'Got 1 inputs for equation "ij,jk->ik", expecting 2'),
        (lambda: tf.einsum("i,i->", a, b, foo=1), TypeError,
         "Invalid keyword arguments for einsum: foo"),
        (lambda: tf.einsum("ij,jk->ik", a, a), tf.errors.InvalidArgumentError,
         r"Expected dimension 3 at axis 0 of the input shaped \[2,3\] but got dimension 2"),
        (lambda: tf.einsum("bij,bjk->bik", tf.ones([1, 2, 3]), tf.ones([5, 3, 4])),
         tf.errors.InvalidArgumentError, ("Expected dimension 1 at axis 0 of the input shaped "
         r"\[5,3,4\] but got dimension 5")),
        (lambda: tf.einsum("ij->ij", tf.ones([2])), tf.errors.InvalidArgumentError,
         "Expected input 0 to have rank 2 but got: 1"),
        (lambda: tf.einsum("i,i->", tf.constant([1, 2]), tf.constant([3.0, 4.0])),
         tf.errors.InvalidArgumentError, (r"input #1\(zero-based\) was expected to be a int32 "
         "tensor but is a float tensor")),
        (lambda: tf.einsum("i,i->", tf.constant([True]), tf.constant([True])),
         tf.errors.NotFoundError, "Einsum"),
    ]
    for fn, error, message in cases:
        with _raises(error, message):
            fn()


def test_einsum_infers_shapes():
    _, out = _trace(lambda a, b: tf.einsum("bij,bjk->bik", a, b), tf.TensorSpec([None, 2, 3]),
                    tf.TensorSpec([4, 3, None]))
    assert out.shape.as_list() == [4, 2, None]
    _, out = _trace(lambda a, b: tf.einsum("...ij,jk->...ik", a, b), tf.TensorSpec(None),
                    tf.TensorSpec([3, 4]))
    assert out.shape.rank is None
    with _raises(ValueError, "Dimensions must be equal, but are 3 and 4"):
        _trace(lambda a, b: tf.einsum("ij,jk->ik", a, b), tf.TensorSpec([2, 3]),
               tf.TensorSpec([4, 5]))
