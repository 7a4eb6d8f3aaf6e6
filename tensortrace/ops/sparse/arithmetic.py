"""Sparse ops that combine values: SparseTensorDenseMatMul, the reductions, SparseAdd (and its
gradient op), SparseTensorDenseAdd, sparse-dense element-wise ops, SparseSoftmax, sparse
maximum/minimum, and the counting ops of tf.sparse.bincount."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ...registry import OpDef, define_op, register
from ...tensor import TensorSpec, static_value
from .._args import shape_values
from .._base import INDEX, REAL, check_dtypes
from ._common import as_matrix, compare_rows, index_text, row_order

_I64 = D.int64


def _rank_of(shape):
    return shape.shape.dims[0] if shape.shape.rank == 1 else None


# --- matmul --------------------------------------------------------------------------------------
@define_op("SparseTensorDenseMatMul")
class SparseTensorDenseMatMul:
    """A (sparse, rank 2) times B (dense), either adjointed."""

    def infer(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
        check_dtypes("SparseTensorDenseMatMul", (a_indices,), INDEX, ("a_indices",))
        shape = shape_values(a_shape)
        rows = None if shape is None or len(shape) != 2 else shape[1 if adjoint_a else 0]
        cols = b.shape.dims[0 if adjoint_b else 1] if b.shape.rank == 2 else None
        return TensorSpec([rows, cols], a_values.dtype)

    def kernel(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
        idx, shape, b = as_matrix(a_indices), np.asarray(a_shape, np.int64), np.asarray(b)
        values = np.asarray(a_values)
        if shape.size != 2 or b.ndim != 2:
            raise errors.invalid_argument(f"Tensor 'a_shape' is not a vector of length 2 and "
                                          f"'b' is not a matrix: {list(shape)} and "
                                          f"{list(b.shape)}")
        if adjoint_b:
            b = np.conj(b.T)
        m, k = (shape[1], shape[0]) if adjoint_a else (shape[0], shape[1])
        if k != b.shape[0]:
            raise errors.invalid_argument(
                f"Cannot multiply A and B because inner dimension does not match: {k} vs. "
                f"{b.shape[0]}.  Did you forget a transpose?  Dimensions of A: [{shape[0]}, "
                f"{shape[1]}).  Dimensions of B: {index_text(np.shape(np.asarray(b)))}")
        rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
        if adjoint_a:
            values = np.conj(values)
        for name, got, bound, col in (("m", rows, m, 1 if adjoint_a else 0),
                                      ("k", cols, k, 0 if adjoint_a else 1)):
            bad = (got < 0) | (got >= bound)
            if bad.any():
                i = int(np.nonzero(bad)[0][0])
                raise errors.invalid_argument(f"{name} ({got[i]}) from index[{i},{col}] out of "
                                              f"bounds (>={bound})")
        out = np.zeros((int(m), b.shape[1]), np.result_type(values, b))
        np.add.at(out, rows, values[:, None] * b[cols])
        return out.astype(values.dtype)


# --- reductions ----------------------------------------------------------------------------------
def _reduction_axes(axes, rank):
    axes = np.asarray(axes, np.int64).reshape(-1)
    for a in axes:
        if not -rank <= a < rank:
            raise errors.invalid_argument(f"Invalid reduction dimension {a}, for input with "
                                          f"{rank} dimensions.")
    return sorted({int(a) % rank for a in axes})


def _groups(input_indices, input_values, input_shape, reduction_axes, keep_dims, reducer):
    """The non-empty groups after reducing ``reduction_axes``: their index rows in the output
    (row-major order), their reduced values, and the output's dense shape."""
    idx, shape = as_matrix(input_indices), np.asarray(input_shape, np.int64)
    values = np.asarray(input_values)
    axes = _reduction_axes(reduction_axes, shape.size)
    kept = [d for d in range(shape.size) if d not in axes]
    if keep_dims:
        out_shape = np.where(np.isin(np.arange(shape.size), axes), 1, shape)
        key = idx.copy()
        key[:, axes] = 0
    else:
        out_shape, key = shape[kept], idx[:, kept]
    if not idx.shape[0]:
        return key, values, out_shape
    rows, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(rows.shape[0]))
    return rows, reducer.reduceat(values[order], starts), out_shape


def _dense(rows, values, out_shape, dtype):
    out = np.zeros(tuple(out_shape), dtype)
    if rows.shape[0]:
        out[tuple(rows.T)] = values if out.ndim else values[0]
    return out


def _reduce_records(name, reducer, allowed):
    def infer(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
        check_dtypes(name, (input_values,), allowed, ("input_values",))
        shape, axes = static_value(input_shape), static_value(reduction_axes)
        if shape is None or axes is None:
            return TensorSpec(None, input_values.dtype)
        rank = len(shape)
        axes = {int(a) % rank for a in np.reshape(axes, -1)} if rank else set()
        dims = [1 if d in axes else int(n) for d, n in enumerate(shape)
                if keep_dims or d not in axes]
        return TensorSpec(dims, input_values.dtype)

    def kernel(input_indices, input_values, input_shape, reduction_axes, keep_dims=False):
        rows, values, out_shape = _groups(input_indices, input_values, input_shape,
                                          reduction_axes, keep_dims, reducer)
        return _dense(rows, values, out_shape, np.asarray(input_values).dtype)

    def infer_sparse(input_indices, input_values, input_shape, reduction_axes,
                     keep_dims=False):
        check_dtypes(name + "Sparse", (input_values,), allowed, ("input_values",))
        return (TensorSpec([None, None], _I64), TensorSpec([None], input_values.dtype),
                TensorSpec([None], _I64))

    def kernel_sparse(input_indices, input_values, input_shape, reduction_axes,
                      keep_dims=False):
        rows, values, out_shape = _groups(input_indices, input_values, input_shape,
                                          reduction_axes, keep_dims, reducer)
        return rows.astype(np.int64), values.astype(np.asarray(input_values).dtype), out_shape

    return (register(OpDef(name, infer, kernel, doc=f"{name}: dense result")),
            register(OpDef(name + "Sparse", infer_sparse, kernel_sparse,
                           doc=f"{name}Sparse: the non-empty groups as a sparse result")))


_NUMBER = REAL + (D.complex64, D.complex128)
SparseReduceSum, SparseReduceSumSparse = _reduce_records("SparseReduceSum", np.add, _NUMBER)
SparseReduceMax, SparseReduceMaxSparse = _reduce_records("SparseReduceMax", np.maximum, REAL)


# --- addition ------------------------------------------------------------------------------------
def _merge(a_idx, b_idx):
    """TF's two-pointer merge of two index lists (each assumed in row-major order): a list of
    (from_a, from_b) entry numbers, -1 for none, in output order."""
    out, i, j = [], 0, 0
    na, nb = a_idx.shape[0], b_idx.shape[0]
    while i < na and j < nb:
        c = compare_rows(a_idx[i], b_idx[j])
        if c < 0:
            out.append((i, -1))
            i += 1
        elif c > 0:
            out.append((-1, j))
            j += 1
        else:
            out.append((i, j))
            i, j = i + 1, j + 1
    out.extend((k, -1) for k in range(i, na))
    out.extend((-1, k) for k in range(j, nb))
    return out


def _check_same_shape(a_shape, b_shape):
    a, b = np.asarray(a_shape, np.int64), np.asarray(b_shape, np.int64)
    if a.size != b.size:
        raise errors.invalid_argument(f"Operands do not have the same ranks; got shapes: "
                                      f"{index_text(a)} and {index_text(b)}")
    for d in range(a.size):
        if a[d] != b[d]:
            raise errors.invalid_argument(f"Operands' shapes do not match: got {a[d]} and "
                                          f"{b[d]} for dimension {d}")
    return a


@define_op("SparseAdd")
class SparseAdd:
    """a + b (both sparse): entries merged in order; a sum whose magnitude is below
    ``thresh`` is dropped (entries present in one operand are always kept)."""

    def infer(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
        n = _rank_of(a_shape)
        return (TensorSpec([None, n], _I64), TensorSpec([None], a_values.dtype),
                TensorSpec([n], _I64))

    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
        shape = _check_same_shape(a_shape, b_shape)
        a_idx, b_idx = as_matrix(a_indices), as_matrix(b_indices)
        a_val, b_val = np.asarray(a_values), np.asarray(b_values)
        rows, vals = [], []
        for i, j in _merge(a_idx, b_idx):
            if i >= 0 and j >= 0:
                s = a_val[i] + b_val[j]
                if np.abs(s) >= thresh:
                    rows.append(a_idx[i])
                    vals.append(s)
            else:
                rows.append(a_idx[i] if i >= 0 else b_idx[j])
                vals.append(a_val[i] if i >= 0 else b_val[j])
        out_idx = np.array(rows, np.int64).reshape(len(rows), shape.size)
        return out_idx, np.array(vals, a_val.dtype).reshape(-1), shape


@define_op("SparseAddGrad")
class SparseAddGrad:
    """The gradients of SparseAdd's two value lists: the sum's gradient where each entry went
    (0 where an entry was dropped)."""

    def infer(backprop_val_grad, a_indices, b_indices, sum_indices):
        return (TensorSpec([a_indices.shape.dims and a_indices.shape.dims[0]],
                           backprop_val_grad.dtype),
                TensorSpec([b_indices.shape.dims and b_indices.shape.dims[0]],
                           backprop_val_grad.dtype))

    def kernel(backprop_val_grad, a_indices, b_indices, sum_indices):
        a_idx, b_idx, s_idx = as_matrix(a_indices), as_matrix(b_indices), as_matrix(sum_indices)
        grad = np.asarray(backprop_val_grad)
        da = np.zeros(a_idx.shape[0], grad.dtype)
        db = np.zeros(b_idx.shape[0], grad.dtype)
        k = 0
        for i, j in _merge(a_idx, b_idx):
            row = a_idx[i] if i >= 0 else b_idx[j]
            if k < s_idx.shape[0] and compare_rows(row, s_idx[k]) == 0:
                if i >= 0:
                    da[i] = grad[k]
                if j >= 0:
                    db[j] = grad[k]
                k += 1
        return da, db


@define_op("SparseTensorDenseAdd")
class SparseTensorDenseAdd:
    """a (sparse) + b (dense of a's shape): a dense result."""

    def infer(a_indices, a_values, a_shape, b):
        return TensorSpec(b.shape, b.dtype)

    def kernel(a_indices, a_values, a_shape, b):
        idx, shape, b = as_matrix(a_indices), np.asarray(a_shape, np.int64), np.asarray(b)
        if tuple(shape) != b.shape:
            raise errors.invalid_argument(
                f"Dimension 0 does not equal (no broadcasting is supported): sparse side "
                f"{shape[0]} vs dense side {b.shape[0]}" if shape.size and b.ndim else
                f"Ranks of sparse and dense operands are different: {shape.size} vs {b.ndim}")
        out = b.copy()
        if idx.shape[0]:
            np.add.at(out, tuple(idx.T), np.asarray(a_values))
        return out


# --- sparse (op) dense ---------------------------------------------------------------------------
def _cwise(name, fn):
    def infer(sp_indices, sp_values, sp_shape, dense):
        return TensorSpec([None], sp_values.dtype)

    def kernel(sp_indices, sp_values, sp_shape, dense):
        idx, shape, dense = as_matrix(sp_indices), np.asarray(sp_shape, np.int64), \
            np.asarray(dense)
        values = np.asarray(sp_values)
        lead = shape.size - dense.ndim
        if lead < 0 or any(d not in (1, s) for d, s in zip(dense.shape, shape[lead:])):
            raise errors.invalid_argument(
                f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                f"shapes: {index_text(shape)} vs. {index_text(dense.shape)}")
        picks = tuple(np.where(np.asarray(dense.shape) == 1, 0, idx[:, lead:]).T) \
            if dense.ndim else ()
        with np.errstate(all="ignore"):
            return fn(values, dense[picks] if dense.ndim else dense).astype(values.dtype)

    return register(OpDef(name, infer, kernel, doc=f"{name}: the sparse values combined with "
                          "the dense entries at their indices (dense broadcasts to sparse)"))


def _divide(x, y):
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise errors.invalid_argument("Integer division by zero")
        return np.floor_divide(x, y)
    return np.true_divide(x, y)


SparseDenseCwiseMul = _cwise("SparseDenseCwiseMul", np.multiply)
SparseDenseCwiseDiv = _cwise("SparseDenseCwiseDiv", _divide)
SparseDenseCwiseAdd = _cwise("SparseDenseCwiseAdd", np.add)


# --- softmax -------------------------------------------------------------------------------------
@define_op("SparseSoftmax")
class SparseSoftmax:
    """Softmax over each innermost row of the present entries. As TF's kernel, the values
    come out in row-major order of the indices."""

    def infer(sp_indices, sp_values, sp_shape):
        check_dtypes("SparseSoftmax", (sp_values,), (D.float16, D.float32, D.float64),
                     ("sp_values",))
        return TensorSpec(sp_values.shape, sp_values.dtype)

    def kernel(sp_indices, sp_values, sp_shape):
        idx, values = as_matrix(sp_indices), np.asarray(sp_values)
        if np.asarray(sp_shape).size < 2:
            raise errors.invalid_argument(f"Input should have rank >= 2, but received shape: "
                                          f"{index_text(np.asarray(sp_shape))}")
        order = row_order(idx)
        idx, values = idx[order], values[order]
        if not values.size:
            return values
        _, group = np.unique(idx[:, :-1], axis=0, return_inverse=True)
        group = group.reshape(-1)
        wide = values.astype(np.float64)
        top = np.full(group.max() + 1, -np.inf)
        np.maximum.at(top, group, wide)
        e = np.exp(wide - top[group])
        total = np.zeros_like(top)
        np.add.at(total, group, e)
        return (e / total[group]).astype(values.dtype)


# --- sparse maximum / minimum --------------------------------------------------------------------
def _extreme(name, fn):
    def infer(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        check_dtypes(name, (a_values,), REAL, ("a_values",))
        return (TensorSpec([None, _rank_of(a_shape)], _I64), TensorSpec([None],
                                                                        a_values.dtype))

    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        shape = _check_same_shape(a_shape, b_shape)
        a_idx, b_idx = as_matrix(a_indices), as_matrix(b_indices)
        a_val, b_val = np.asarray(a_values), np.asarray(b_values)
        zero = np.zeros((), a_val.dtype)
        rows, vals = [], []
        for i, j in _merge(a_idx, b_idx):
            rows.append(a_idx[i] if i >= 0 else b_idx[j])
            vals.append(fn(a_val[i] if i >= 0 else zero, b_val[j] if j >= 0 else zero))
        return (np.array(rows, np.int64).reshape(len(rows), shape.size),
                np.array(vals, a_val.dtype).reshape(-1))

    return register(OpDef(name, infer, kernel, doc=f"{name}: element-wise over the union of "
                          "the entries, absent ones being 0"))


SparseSparseMaximum = _extreme("SparseSparseMaximum", np.maximum)
SparseSparseMinimum = _extreme("SparseSparseMinimum", np.minimum)


# --- counting (tf.sparse.bincount) ---------------------------------------------------------------
def _count(batch, values, weights, binary_output, minlength, maxlength, batches):
    """Sparse counts of ``values`` per batch row: (indices, counts, dense_shape)."""
    if values.size and values.min() < 0:
        raise errors.invalid_argument("Input values must all be non-negative")
    if weights.size and weights.shape != values.shape:
        raise errors.invalid_argument(
            f"Weights and values must have the same shape. Weight shape: "
            f"{index_text(weights.shape)}; values shape: {index_text(values.shape)}")
    keep = values < maxlength if maxlength >= 0 else np.ones(values.shape, bool)
    top = int(values.max()) + 1 if values.size else 0
    size = max(top, minlength) if minlength >= 0 else top
    if maxlength >= 0:
        size = min(size, maxlength)
    dtype = weights.dtype
    w = weights[keep] if weights.size else np.ones(int(keep.sum()), dtype)
    pairs = np.stack([batch[keep], values[keep]], axis=1).astype(np.int64) \
        if batches is not None else values[keep].astype(np.int64).reshape(-1, 1)
    if not pairs.shape[0]:
        shape = [batches, size] if batches is not None else [size]
        return np.zeros((0, len(shape)), np.int64), np.zeros(0, dtype), np.array(shape, np.int64)
    rows, inverse = np.unique(pairs, axis=0, return_inverse=True)
    counts = np.zeros(rows.shape[0], dtype)
    np.add.at(counts, inverse.reshape(-1), w)
    if binary_output:
        counts = np.ones_like(counts)
    shape = [batches, size] if batches is not None else [size]
    return rows, counts, np.array(shape, np.int64)


_COUNT_T = (D.int32, D.int64, D.float32, D.float64)


@define_op("DenseCountSparseOutput")
class DenseCountSparseOutput:
    """Counts (or summed weights) of each value of a 1-D input, or of each row of a 2-D one,
    as a sparse result."""

    def infer(values, weights, binary_output, minlength=-1, maxlength=-1):
        check_dtypes("DenseCountSparseOutput", (values,), INDEX, ("values",))
        check_dtypes("DenseCountSparseOutput", (weights,), _COUNT_T, ("weights",))
        n = values.shape.rank
        return (TensorSpec([None, n], _I64), TensorSpec([None], weights.dtype),
                TensorSpec([n], _I64))

    def kernel(values, weights, binary_output, minlength=-1, maxlength=-1):
        values, weights = np.asarray(values), np.asarray(weights)
        if values.ndim not in (1, 2):
            raise errors.invalid_argument(f"Input must be a 1 or 2-dimensional tensor. Got: "
                                          f"{values.ndim}")
        batches = values.shape[0] if values.ndim == 2 else None
        batch = np.repeat(np.arange(values.shape[0]), values.shape[1]) \
            if values.ndim == 2 else None
        return _count(batch, values.reshape(-1), weights.reshape(-1) if weights.size else weights,
                      binary_output, minlength, maxlength, batches)


@define_op("SparseCountSparseOutput")
class SparseCountSparseOutput:
    """Counts of a sparse input's values per first-dimension row (rank 2) or overall."""

    def infer(indices, values, dense_shape, weights, binary_output, minlength=-1, maxlength=-1):
        check_dtypes("SparseCountSparseOutput", (values,), INDEX, ("values",))
        n = _rank_of(dense_shape)
        return (TensorSpec([None, n], _I64), TensorSpec([None], weights.dtype),
                TensorSpec([n], _I64))

    def kernel(indices, values, dense_shape, weights, binary_output, minlength=-1,
               maxlength=-1):
        idx, shape = as_matrix(indices), np.asarray(dense_shape, np.int64)
        values, weights = np.asarray(values), np.asarray(weights)
        batches = int(shape[0]) if shape.size == 2 else None
        batch = idx[:, 0] if shape.size == 2 else None
        return _count(batch, values, weights, binary_output, minlength, maxlength, batches)
