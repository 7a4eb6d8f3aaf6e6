"""Gradients of the sparse ops, after TF's sparse_grad.py: with respect to the values (and a
dense operand); indices and shapes get none."""

from ... import dtypes as D
from ...context import bind
from ...convert import convert_to_tensor
from ...ops.array.creation import ones_like, zeros_like
from ...ops.array.joining import concat
from ...ops.array.ranges import range as tf_range
from ...ops.array.reshaping import expand_dims, reshape, squeeze, transpose
from ...ops.array.shapes import shape as tf_shape
from ...ops.array.shapes import size
from ...ops.indexing.gathering import gather, gather_nd
from ...ops.indexing.scatter import scatter_nd
from ...ops.indexing.segment import unsorted_segment_sum
from ...ops.linalg.products import matmul
from ...ops.math.arithmetic import floordiv, maximum, square
from ...ops.math.transcendental import sqrt
from ...ops.math.casting import cast
from ...ops.math.compare import equal
from ...ops.math.complex_numbers import conj
from ...ops.math.select import where
from ...ops.reduce import reduce_any, reduce_sum
from ...ops.sparse import arithmetic as A
from ...ops.sparse import reorganize as R
from ...sparse.functions import add as sparse_add
from ...sparse.sparse_tensor import SparseTensor
from ..grad_util import no_gradient, not_differentiable, register_gradients


def _kept_shape(shape, axes):
    """The dense shape with the reduced axes set to 1 (int64)."""
    rank = size(shape, out_type=D.int64)
    axes = cast(reshape(axes, [-1]), D.int64)
    axes = (axes + rank) % rank
    hit = reduce_any(equal(expand_dims(tf_range(rank, dtype=D.int64), 1),
                           expand_dims(axes, 0)), 1)
    return where(hit, ones_like(shape), shape)


def _inverse_permutation(perm):
    n = tf_shape(perm, D.int64)
    return scatter_nd(expand_dims(cast(perm, D.int64), 1), tf_range(n[0], dtype=D.int64), n)


def _reorder_grad(op, _, dvalues):
    indices, _, shape = op.inputs
    n = tf_shape(indices, D.int64)[0]
    _, order = bind(R.SparseReorder, indices, tf_range(n, dtype=D.int64), shape)
    return None, gather(dvalues, _inverse_permutation(order)), None


def _add_grad(op, *dys):
    a_indices, b_indices, sum_indices = op.inputs[0], op.inputs[3], op.outputs[0]
    da, db = bind(A.SparseAddGrad, dys[1], a_indices, b_indices, sum_indices)
    return None, da, None, None, db, None, None


def _dense_add_grad(op, dy):
    return None, gather_nd(dy, op.inputs[0]), None, dy


def _reduce_sum_grad(op, dy):
    indices, _, shape, axes = op.inputs
    kept = _kept_shape(shape, axes)
    scale = floordiv(shape, kept)
    return None, gather_nd(reshape(dy, kept), floordiv(indices, scale)), None, None


def _slice_grad(op, *dys):
    indices, start, out_indices = op.inputs[0], op.inputs[3], op.outputs[0]
    return None, bind(R.SparseSliceGrad, dys[1], indices, start, out_indices), None, None, None


def _matmul_grad(op, dy):
    """TF's: b's gradient is A^T dy; each value's is the dot of dy's row and b's row it
    pairs."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    if a_values.dtype != b.dtype:
        raise TypeError(f"SparseTensorDenseMatMul op received operands with different types: "
                        f"`{a_values.dtype!r}` and `{b.dtype!r}`.")
    db = bind(A.SparseTensorDenseMatMul, a_indices, a_values, a_shape, dy,
              adjoint_a=not adj_a, adjoint_b=False)
    if adj_b:
        db = conj(transpose(db))
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = gather(dy, cols if adj_a else rows)
    parts_b = gather(transpose(b) if adj_b else b, rows if adj_a else cols)
    if not adj_a and not adj_b:
        dv = matmul(expand_dims(parts_a, -2), expand_dims(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:
        dv = matmul(expand_dims(parts_a, -1), expand_dims(parts_b, -1), adjoint_a=True)
    elif not adj_a and adj_b:
        dv = matmul(expand_dims(parts_a, -2), expand_dims(parts_b, -1))
    else:
        dv = matmul(expand_dims(parts_a, -1), expand_dims(parts_b, -2), adjoint_a=True,
                    adjoint_b=True)
    return None, squeeze(dv, axis=[-2, -1]), None, db


def _cwise_grad(op, dy, is_mul):
    x_indices, x_values, x_shape, y = op.inputs
    y_shape = tf_shape(y, D.int64)
    added = size(x_shape, out_type=D.int64) - size(y_shape, out_type=D.int64)
    augmented = concat([ones_like(x_shape)[:added], y_shape], 0)
    scaled = floordiv(x_indices, floordiv(x_shape, augmented))[:, added:]
    dense_vals = gather_nd(y, scaled)
    if is_mul:
        dx, dy_val = dy * dense_vals, dy * x_values
    else:
        dx, dy_val = dy / dense_vals, dy * (-x_values / square(dense_vals))
    dyy = sparse_add(zeros_like(y), SparseTensor(scaled, dy_val, y_shape))
    return None, dx, None, dyy


def _not_implemented(name):
    def rule(op, *dys):
        raise NotImplementedError(f"Gradient for {name} is not implemented.")
    return rule


def _softmax_grad(op, dy):
    indices, _, shape = op.inputs
    out = op.outputs[0]
    total = -bind(A.SparseReduceSum, indices, out * dy, shape,
                  convert_to_tensor([-1], D.int32), keep_dims=True)
    summed = bind(A.SparseDenseCwiseAdd, indices, dy, shape, total)
    return None, summed * out, None


def _fill_empty_rows_grad(op, *dys):
    reverse = op.outputs[3]
    dvalues = dys[1]
    d_values = gather(dvalues, reverse)
    return None, d_values, None, reduce_sum(dvalues) - reduce_sum(d_values)


def _to_dense_grad(op, dy):
    indices, shape = op.inputs[0], op.inputs[1]
    values_grad = gather_nd(dy, indices)
    return (zeros_like(indices), zeros_like(shape), values_grad,
            reduce_sum(dy) - reduce_sum(values_grad))


def _segment_grad(kind):
    """d(data): each segment's gradient (scaled by 1/n or 1/sqrt(n)) added back at the rows
    its indices picked."""
    def rule(op, dy):
        data, indices, ids = op.inputs[:3]
        rows = gather(dy, ids)
        if kind != "Sum":
            n = tf_shape(dy)[0]
            counts = unsorted_segment_sum(ones_like(ids, dtype=dy.dtype), ids, n)
            scale = counts if kind == "Mean" else sqrt(counts)
            scale = gather(1.0 / maximum(scale, ones_like(scale)), ids)
            rows = rows * reshape(scale, concat([[-1], ones_like(tf_shape(dy))[1:]], 0))
        dx = unsorted_segment_sum(rows, indices, tf_shape(data)[0])
        return (dx, None, None) + (None,) * (len(op.inputs) - 3)
    return rule


register_gradients({
    "SparseReorder":           _reorder_grad,
    "SparseAdd":               _add_grad,
    "SparseTensorDenseAdd":    _dense_add_grad,
    "SparseReduceSum":         _reduce_sum_grad,
    "SparseSlice":             _slice_grad,
    "SparseTensorDenseMatMul": _matmul_grad,
    "SparseDenseCwiseMul":     lambda op, dy: _cwise_grad(op, dy, True),
    "SparseDenseCwiseDiv":     lambda op, dy: _cwise_grad(op, dy, False),
    "SparseDenseCwiseAdd":     _not_implemented("SparseDenseCwiseAdd"),
    "SparseSoftmax":           _softmax_grad,
    "SparseSparseMaximum":     _not_implemented("SparseSparseMaximum"),
    "SparseSparseMinimum":     _not_implemented("SparseSparseMinimum"),
    "SparseFillEmptyRows":     _fill_empty_rows_grad,
    "SparseToDense":           _to_dense_grad,
    # TF registers none: differentiating through them raises LookupError
    **dict.fromkeys(("SparseReduceMax", "SparseReduceMaxSparse", "SparseReduceSumSparse",
                     "SparseReshape", "SparseSplit", "SparseCross", "SparseCrossV2"),
                    no_gradient),
    # TF defines gradients for these CSR ops (sparse_csr_matrix_grad.py); tensortrace does not
    # yet, so differentiating through them raises LookupError rather than giving None
    **dict.fromkeys(("SparseTensorToCSRSparseMatrix", "CSRSparseMatrixToSparseTensor",
                     "SparseMatrixSparseMatMul"), no_gradient),
    **{f"SparseSegment{kind}{suffix}": _segment_grad(kind)
       for kind in ("Sum", "Mean", "SqrtN") for suffix in ("", "WithNumSegments")},
})

not_differentiable("SparseAddGrad", "SparseConcat", "SparseSliceGrad",
                   "DenseCountSparseOutput", "SparseCountSparseOutput", "SetSize",
                   "DenseToDenseSetOperation", "DenseToSparseSetOperation",
                   "SparseToSparseSetOperation", "CTCGreedyDecoder", "CTCBeamSearchDecoder")
