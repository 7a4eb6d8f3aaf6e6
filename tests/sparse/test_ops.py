"""The sparse op records in the op-table harness: each kernel against a NumPy reference built
on the dense form, and each shape rule against its kernel (tests/ops/optable.py)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.ops.sparse import arithmetic as A
from tensortrace.ops.sparse import reorganize as R

from ..ops.optable import Case, run_case

S = tf.sparse.SparseTensor
I64 = np.int64
IDX = np.array([[0, 1], [1, 0], [1, 3], [2, 2]], I64)
VALS = np.array([1.5, -2., 3., 0.5], np.float32)
SHAPE = np.array([3, 4], I64)
UNSORTED = np.array([[1, 3], [0, 1], [2, 2], [1, 0]], I64)


def dense(indices, values, shape):
    out = np.zeros(tuple(shape), np.asarray(values).dtype)
    np.add.at(out, tuple(np.asarray(indices).T), values)
    return out


def parts(st):
    return st.indices, st.values, st.dense_shape


def _sorted(indices, values):
    order = np.lexsort(np.asarray(indices).T[::-1])
    return np.asarray(indices)[order], np.asarray(values)[order]


def _from_dense(d):
    idx = np.argwhere(d != 0).astype(I64)
    return idx, d[tuple(idx.T)]


# --- wrappers: component tensors in, component tensors out --------------------------------------
def to_dense(i, v, s):
    return tf.sparse.to_dense(S(i, v, s))


def matmul(i, v, s, b, **kw):
    return tf.sparse.sparse_dense_matmul(S(i, v, s), b, **kw)


def reduce(fn, sparse_out=False):
    def run(i, v, s, axis):
        out = fn(S(i, v, s), axis=axis, output_is_sparse=sparse_out)
        return parts(out) if sparse_out else out
    return run


def reduce_ref(np_fn, sparse_out=False):
    def ref(i, v, s, axis):
        present = dense(i, np.ones_like(v), s) > 0
        fill = -np.inf if np_fn is np.max else 0
        d = np.where(present, dense(i, v, s), fill)
        out = np_fn(d, axis=axis)
        hit = present.any(axis=axis)
        out = np.where(hit, out, 0).astype(v.dtype)
        if sparse_out:
            idx = np.argwhere(hit).astype(I64)
            return idx, out[tuple(idx.T)], np.array(out.shape, I64)
        return out
    return ref


def add_sparse(ai, av, as_, bi, bv, bs):
    return parts(tf.sparse.add(S(ai, av, as_), S(bi, bv, bs)))


def add_sparse_ref(ai, av, as_, bi, bv, bs):
    present = (dense(ai, np.ones_like(av), as_) + dense(bi, np.ones_like(bv), bs)) > 0
    idx = np.argwhere(present).astype(I64)  # a sum of 0 is kept (threshold 0)
    return idx, (dense(ai, av, as_) + dense(bi, bv, bs))[tuple(idx.T)], as_


def sparse_op(name):
    fn = getattr(tf.sparse, name)
    return lambda *a, **kw: parts(fn(S(*a[:3]), *a[3:], **kw))


def cwise(op):
    return lambda i, v, s, d: op(S(i, v, s), d).values


def extreme(fn):
    return lambda ai, av, as_, bi, bv, bs: parts(fn(S(ai, av, as_), S(bi, bv, bs)))[:2]


def extreme_ref(np_fn):
    def ref(ai, av, as_, bi, bv, bs):
        present = (dense(ai, np.ones_like(av), as_) + dense(bi, np.ones_like(bv), bs)) > 0
        d = np_fn(dense(ai, av, as_), dense(bi, bv, bs))
        idx = np.argwhere(present).astype(I64)
        return idx, d[tuple(idx.T)]
    return ref


def softmax_ref(i, v, s):
    d = np.where(dense(i, np.ones_like(v), s) > 0, dense(i, v, s), -np.inf)
    e = np.exp(d - d.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    return i, sm[tuple(i.T)].astype(v.dtype), s


def split(i, v, s, num_split, axis):
    return [parts(p) for p in tf.sparse.split(sp_input=S(i, v, s), num_split=num_split,
                                              axis=axis)]


def split_ref(i, v, s, num_split, axis):
    d = dense(i, v, s)
    return [(*_from_dense(p), np.array(p.shape, I64)) for p in np.array_split(d, num_split,
                                                                               axis)]


def concat(i1, v1, s1, i2, v2, s2):
    return parts(tf.sparse.concat(1, [S(i1, v1, s1), S(i2, v2, s2)]))


def concat_ref(i1, v1, s1, i2, v2, s2):
    d = np.concatenate([dense(i1, v1, s1), dense(i2, v2, s2)], 1)
    return (*_from_dense(d), np.array(d.shape, I64))


def fill_empty(i, v, s, default):
    out, empty = tf.sparse.fill_empty_rows(S(i, v, s), default)
    return (*parts(out), empty)


def fill_empty_ref(i, v, s, default):
    rows = set(i[:, 0].tolist())
    extra = [[r, 0] for r in range(s[0]) if r not in rows]
    idx = np.concatenate([i, np.array(extra, I64).reshape(-1, 2)])
    vals = np.concatenate([v, np.full(len(extra), default, v.dtype)])
    order = np.argsort(idx[:, 0], kind="stable")
    return idx[order], vals[order], s, np.array([r not in rows for r in range(s[0])])


def segment(fn):
    return lambda d, i, ids, **kw: fn(d, i, ids, **kw)


def segment_ref(kind):
    def ref(d, i, ids, num_segments=None):
        n = num_segments if num_segments is not None else ids.max() + 1
        out = np.zeros((n,) + d.shape[1:], np.float64)
        count = np.zeros(n)
        for k, s in zip(i, ids):
            out[s] += d[k]
            count[s] += 1
        scale = {"sum": np.ones(n), "mean": np.maximum(count, 1),
                 "sqrt_n": np.sqrt(np.maximum(count, 1))}[kind]
        return (out / scale.reshape(-1, *([1] * (d.ndim - 1)))).astype(d.dtype)
    return ref


def bincount_dense(values, **kw):
    return parts(tf.sparse.bincount(values, **kw))


def bincount_sparse(i, v, s, **kw):
    return parts(tf.sparse.bincount(S(i, v, s), **kw))


def bincount_ref(values, axis=0, **kw):
    flat = values.reshape(-1)
    size = flat.max() + 1
    if axis == 0:
        c = np.bincount(flat, minlength=size)
        idx = np.nonzero(c)[0].astype(I64).reshape(-1, 1)
        return idx, c[idx[:, 0]].astype(values.dtype), np.array([size], I64)
    rows = np.stack([np.bincount(r, minlength=size) for r in values])
    idx = np.argwhere(rows).astype(I64)
    return idx, rows[tuple(idx.T)].astype(values.dtype), np.array(rows.shape, I64)


def sparse_bincount_ref(i, v, s, axis):
    rows = np.zeros((s[0], v.max() + 1), v.dtype)
    np.add.at(rows, (i[:, 0], v), 1)
    idx = np.argwhere(rows).astype(I64)
    return idx, rows[tuple(idx.T)], np.array(rows.shape, I64)


def slice_grad(grad, i, start, out_i):
    return bind(R.SparseSliceGrad, grad, i, start, out_i)


def slice_grad_ref(grad, i, start, out_i):
    where = {tuple(r): k for k, r in enumerate((out_i + start).tolist())}
    return np.array([grad[where[tuple(r)]] if tuple(r) in where else 0 for r in i.tolist()],
                    grad.dtype)


def add_grad(grad, ai, bi, si):
    return bind(A.SparseAddGrad, grad, ai, bi, si)


def add_grad_ref(grad, ai, bi, si):
    where = {tuple(r): k for k, r in enumerate(si.tolist())}
    return (np.array([grad[where[tuple(r)]] for r in ai.tolist()], grad.dtype),
            np.array([grad[where[tuple(r)]] for r in bi.tolist()], grad.dtype))


def cwise_add(i, v, s, d):
    return bind(A.SparseDenseCwiseAdd, i, v, s, d)


B = np.arange(8, dtype=np.float32).reshape(4, 2) - 3
OTHER = np.array([[0, 1], [2, 0], [2, 2]], I64), np.array([1., 4., -0.5], np.float32)
DATA = np.arange(12, dtype=np.float32).reshape(4, 3)
D_ROW = np.array([2., -1., 0.5, 4.], np.float32)

CASES = [
    Case(to_dense, (IDX, VALS, SHAPE), ref=dense, dynamic_shape=True, id="SparseToDense"),
    Case(matmul, (IDX, VALS, SHAPE, B), ref=lambda i, v, s, b: dense(i, v, s) @ b,
         dynamic_shape=True, id="SparseTensorDenseMatMul"),
    Case(matmul, (IDX, VALS, SHAPE, B[:3].T.copy()), {"adjoint_a": True, "adjoint_b": True},
         ref=lambda i, v, s, b, **kw: dense(i, v, s).T @ b.T, dynamic_shape=True,
         id="SparseTensorDenseMatMul-adjoint"),
    Case(reduce(tf.sparse.reduce_sum), (IDX, VALS, SHAPE, 1), ref=reduce_ref(np.sum),
         dynamic_shape=True, id="SparseReduceSum"),
    Case(reduce(tf.sparse.reduce_sum, True), (IDX, VALS, SHAPE, 0),
         ref=reduce_ref(np.sum, True), dynamic_shape=True, id="SparseReduceSumSparse"),
    Case(reduce(tf.sparse.reduce_max), (IDX, VALS, SHAPE, 1), ref=reduce_ref(np.max),
         dynamic_shape=True, id="SparseReduceMax"),
    Case(reduce(tf.sparse.reduce_max, True), (IDX, VALS, SHAPE, 1),
         ref=reduce_ref(np.max, True), dynamic_shape=True, id="SparseReduceMaxSparse"),
    Case(add_sparse, (IDX, VALS, SHAPE, *OTHER, SHAPE), ref=add_sparse_ref,
         dynamic_shape=True, id="SparseAdd"),
    Case(lambda i, v, s, d: tf.sparse.add(S(i, v, s), d), (IDX, VALS, SHAPE, DATA.reshape(3, 4)),
         ref=lambda i, v, s, d: dense(i, v, s) + d, dynamic_shape=True,
         id="SparseTensorDenseAdd"),
    Case(add_grad, (np.array([1., 2., 3., 4., 5., 6.], np.float32), IDX, OTHER[0],
                    np.array([[0, 1], [1, 0], [1, 3], [2, 0], [2, 2], [2, 3]], I64)),
         ref=add_grad_ref, dynamic_shape=True, id="SparseAddGrad"),
    Case(sparse_op("reorder"), (UNSORTED, VALS, SHAPE),
         ref=lambda i, v, s: (*_sorted(i, v), s), dynamic_shape=True, id="SparseReorder"),
    Case(lambda i, v, s, new: parts(tf.sparse.reshape(S(i, v, s), new)),
         (IDX, VALS, SHAPE, np.array([2, -1], I64)),
         ref=lambda i, v, s, new: (*_from_dense(dense(i, v, s).reshape(2, 6)), np.array([2, 6])),
         dynamic_shape=True, id="SparseReshape"),
    Case(lambda i, v, s, b, z: parts(tf.sparse.slice(S(i, v, s), b, z)),
         (IDX, VALS, SHAPE, np.array([1, 0], I64), np.array([5, 3], I64)),
         ref=lambda i, v, s, b, z: (*_from_dense(dense(i, v, s)[1:, :3]), np.array([2, 3])),
         dynamic_shape=True, id="SparseSlice"),
    Case(slice_grad, (np.array([5., 6.], np.float32), IDX, np.array([1, 0], I64),
                      np.array([[0, 0], [0, 2]], I64)), ref=slice_grad_ref,
         dynamic_shape=True, id="SparseSliceGrad"),
    Case(concat, (IDX, VALS, SHAPE, OTHER[0], OTHER[1], SHAPE), ref=concat_ref,
         dynamic_shape=True, id="SparseConcat"),
    Case(split, (IDX, VALS, SHAPE, 2, 1), ref=split_ref, dynamic_shape=True,
         id="SparseSplit"),
    Case(fill_empty, (np.array([[1, 0], [1, 2], [3, 1]], I64), VALS[:3],
                      np.array([5, 3], I64), np.float32(9)), ref=fill_empty_ref,
         dynamic_shape=True, id="SparseFillEmptyRows"),
    Case(lambda i, v, s: parts(tf.sparse.softmax(S(i, v, s))), (IDX, VALS, SHAPE),
         ref=softmax_ref, dynamic_shape=True, id="SparseSoftmax"),
    Case(cwise(lambda st, d: st * d), (IDX, VALS, SHAPE, D_ROW),
         ref=lambda i, v, s, d: v * d[i[:, 1]], dynamic_shape=True, id="SparseDenseCwiseMul"),
    Case(cwise(lambda st, d: st / d), (IDX, VALS, SHAPE, D_ROW.reshape(1, 4)),
         ref=lambda i, v, s, d: v / d[0, i[:, 1]], dynamic_shape=True,
         id="SparseDenseCwiseDiv"),
    Case(cwise_add, (IDX, VALS, SHAPE, D_ROW), ref=lambda i, v, s, d: v + d[i[:, 1]],
         dynamic_shape=True, id="SparseDenseCwiseAdd"),
    Case(extreme(tf.sparse.maximum), (IDX, VALS, SHAPE, *OTHER, SHAPE),
         ref=extreme_ref(np.maximum), dynamic_shape=True, id="SparseSparseMaximum"),
    Case(extreme(tf.sparse.minimum), (IDX, VALS, SHAPE, *OTHER, SHAPE),
         ref=extreme_ref(np.minimum), dynamic_shape=True, id="SparseSparseMinimum"),
    Case(bincount_dense, (np.array([[1, 2, 2], [0, 3, 3]], np.int32),), {"axis": -1},
         ref=bincount_ref, dynamic_shape=True, id="DenseCountSparseOutput"),
    Case(bincount_sparse, (IDX, np.array([1, 2, 2, 0], np.int32), SHAPE), {"axis": -1},
         ref=sparse_bincount_ref, dynamic_shape=True, id="SparseCountSparseOutput"),
]
for _kind, _fn in (("sum", tf.sparse.segment_sum), ("mean", tf.sparse.segment_mean),
                   ("sqrt_n", tf.sparse.segment_sqrt_n)):
    CASES.append(Case(segment(_fn), (DATA, np.array([3, 0, 3, 1], np.int32),
                                     np.array([0, 0, 2, 2], np.int32)),
                      ref=segment_ref(_kind), dynamic_shape=True, id=f"segment_{_kind}"))
    CASES.append(Case(segment(_fn), (DATA, np.array([3, 0, 1], np.int32),
                                     np.array([0, 0, 1], np.int32)), {"num_segments": 4},
                      ref=segment_ref(_kind), dynamic_shape=True,
                      id=f"segment_{_kind}-num_segments"))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    run_case(case)

_I = np.int32
CASES += [  # the set ops (tf.sets; values checked in tests/sparse/test_sets.py against TF)
    Case(lambda a, b: tf.sets.intersection(a, b).values,
         (np.array([[1, 2, 3], [4, 5, 6]], _I), np.array([[2, 3, 9], [6, 6, 4]], _I)),
         ref=lambda a, b: np.array([2, 3, 4, 6], _I), dynamic_shape=True,
         id="DenseToDenseSetOperation"),
    Case(lambda a, b: tf.sets.union(a, tf.sparse.from_dense(b)).values,
         (np.array([[1, 2], [3, 3]], _I), np.array([[2, 0], [5, 0]], _I)),
         ref=lambda a, b: np.array([1, 2, 3, 5], _I), dynamic_shape=True,
         id="DenseToSparseSetOperation"),
    Case(lambda a, b: tf.sets.difference(tf.sparse.from_dense(a), tf.sparse.from_dense(b)).values,
         (np.array([[1, 2], [3, 0]], _I), np.array([[2, 0], [0, 0]], _I)),
         ref=lambda a, b: np.array([1, 3], _I), dynamic_shape=True,
         id="SparseToSparseSetOperation"),
    Case(lambda a: tf.sets.size(tf.sparse.from_dense(a)), (np.array([[1, 2, 2], [3, 0, 0]], _I),),
         ref=lambda a: np.array([2, 1], np.int32), dynamic_shape=True, id="SetSize"),
]
