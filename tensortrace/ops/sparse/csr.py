"""TF's CSR sparse matrices (``tensorflow.python.ops.linalg.sparse``): a ``variant`` scalar
holding a matrix, or a batch of matrices, in compressed sparse row form; the ops converting a
SparseTensor's components to one and back, and the sparse-sparse product."""

import collections

import numpy as np

from ... import dtypes as D
from ... import errors
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import shape_text
from ...registry import define_op
from ...tensor import TensorSpec
from ._common import as_matrix

_VARIANT = TensorSpec((), D.variant)
CSRSparseMatrixToSparseTensorResult = collections.namedtuple(
    "CSRSparseMatrixToSparseTensor", ["indices", "values", "dense_shape"])


class CSRMatrix:
    """The value of a CSR sparse matrix tensor: ``dense_shape`` ([rows, cols] or [batch, rows,
    cols]) and, per batch entry, row pointers, column indices and values."""

    __slots__ = ("dense_shape", "row_ptrs", "col_inds", "values")
    dtype = D.variant  # EagerTensor reads ``.dtype`` and ``.shape`` off its value
    shape = ()
    ndim = 0
    size = 1

    def __init__(self, dense_shape, row_ptrs, col_inds, values):
        self.dense_shape = tuple(int(d) for d in dense_shape)
        self.row_ptrs, self.col_inds, self.values = row_ptrs, col_inds, values

    @property
    def batches(self):
        return len(self.row_ptrs)

    @property
    def matrix_shape(self):
        return self.dense_shape[-2:]

    def __repr__(self):
        return f"<CSRSparseMatrix of shape {list(self.dense_shape)}>"


def _csr_from_rows(shape, rows_per_batch):
    """A CSRMatrix from, per batch entry, a list (one per row) of (column, value) lists."""
    ptrs, cols, vals = [], [], []
    for rows in rows_per_batch:
        counts = [len(r) for r in rows]
        ptrs.append(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
        cols.append(np.asarray([c for r in rows for c, _ in r], np.int32))
        vals.append([v for r in rows for _, v in r])
    return CSRMatrix(shape, ptrs, cols, vals)


def _matrix_arg(m, op_name):
    if not isinstance(m, CSRMatrix):
        raise errors.invalid_argument(f"{op_name}: expected a CSRSparseMatrix variant input")
    return m


@define_op("SparseTensorToCSRSparseMatrix")
class SparseTensorToCSRSparseMatrix:
    """A SparseTensor's components as a CSR matrix. Entries are read in the order given (TF
    expects row-major order; each row takes the next entries counted for it)."""

    def infer(indices, values, dense_shape):
        return _VARIANT

    def kernel(indices, values, dense_shape):
        ix, vals = as_matrix(indices), np.asarray(values)
        shape = np.asarray(dense_shape, np.int64).reshape(-1)
        rank = shape.size
        if rank not in (2, 3):
            raise errors.invalid_argument(f"SparseTensor must have rank 2 or 3; but "
                                          f"indices has rank: {rank}")
        if ix.shape[1] != rank:
            raise errors.invalid_argument(f"Expected indices.shape[1] == rank; got "
                                          f"{ix.shape[1]} vs. {rank}")
        batch = int(shape[0]) if rank == 3 else 1
        rows = int(shape[-2])
        b_of = ix[:, 0] if rank == 3 else np.zeros(len(ix), np.int64)
        ptrs, col_inds, out_vals = [], [], []
        for b in range(batch):
            pick = np.flatnonzero(b_of == b)
            counts = np.bincount(ix[pick, -2], minlength=rows)[:rows]
            ptrs.append(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
            col_inds.append(ix[pick, -1].astype(np.int32))
            out_vals.append(list(vals[pick]))
        return CSRMatrix(shape, ptrs, col_inds, [np.asarray(v, vals.dtype) for v in out_vals])


@define_op("CSRSparseMatrixToSparseTensor")
class CSRSparseMatrixToSparseTensor:
    """A CSR matrix's entries as SparseTensor components (row-major order)."""

    def infer(sparse_matrix, *, type):
        return (TensorSpec([None, None], D.int64), TensorSpec([None], type),
                TensorSpec([None], D.int64))

    def kernel(sparse_matrix, *, type):
        m = _matrix_arg(sparse_matrix, "CSRSparseMatrixToSparseTensor")
        rank = len(m.dense_shape)
        indices, values = [], []
        for b in range(m.batches):
            ptr = m.row_ptrs[b]
            for r in range(len(ptr) - 1):
                for k in range(ptr[r], ptr[r + 1]):
                    indices.append(([b] if rank == 3 else []) + [r, int(m.col_inds[b][k])])
                    values.append(m.values[b][k])
        return (np.asarray(indices, np.int64).reshape(-1, rank),
                np.asarray(values, type._np).reshape(-1), np.asarray(m.dense_shape, np.int64))


@define_op("SparseMatrixSparseMatMul")
class SparseMatrixSparseMatMul:
    """The product of two CSR matrices (batched alike), optionally transposed or adjointed;
    every structural product entry is kept."""

    def infer(a, b, *, type, transpose_a=False, transpose_b=False, adjoint_a=False,
              adjoint_b=False):
        return _VARIANT

    def kernel(a, b, *, type, transpose_a=False, transpose_b=False, adjoint_a=False,
               adjoint_b=False):
        a = _matrix_arg(a, "SparseMatrixSparseMatMul")
        b = _matrix_arg(b, "SparseMatrixSparseMatMul")
        if len(a.dense_shape) != len(b.dense_shape):
            raise errors.invalid_argument(f"Ranks of a and b must match; saw a rank: "
                                          f"{len(a.dense_shape)} vs. b rank: "
                                          f"{len(b.dense_shape)}")
        if a.batches != b.batches:
            raise errors.invalid_argument(f"Batch sizes of a and b must match; saw "
                                          f"{a.batches} vs. {b.batches}")
        flip_a, flip_b = transpose_a or adjoint_a, transpose_b or adjoint_b
        ar, ac = a.matrix_shape[::-1] if flip_a else a.matrix_shape
        br, bc = b.matrix_shape[::-1] if flip_b else b.matrix_shape
        if ac != br:
            raise errors.invalid_argument(
                f"Inner product dimensions of A and B do not agree.  Shapes are: "
                f"{shape_text(list(a.matrix_shape)).replace(' ', '')} vs. "
                f"{shape_text(list(b.matrix_shape)).replace(' ', '')}")
        out = []
        for k in range(a.batches):
            left = _rows(a, k, flip_a, adjoint_a)
            right = _rows(b, k, flip_b, adjoint_b)
            rows = []
            for r in range(ar):
                acc = {}
                for mid, x in left[r]:
                    for col, y in right[mid]:
                        acc[col] = acc.get(col, 0) + x * y
                rows.append(sorted(acc.items()))
            out.append(rows)
        shape = (a.dense_shape[:-2] if len(a.dense_shape) == 3 else ()) + (ar, bc)
        m = _csr_from_rows(shape, out)
        m.values = [np.asarray(v, type._np) for v in m.values]
        return m


def _rows(m, k, flip, conj):
    """Batch entry ``k`` of ``m`` as one (column, value) list per row (of the transpose when
    ``flip``, conjugated when ``conj``)."""
    rows_n, cols_n = m.matrix_shape
    ptr, cols, vals = m.row_ptrs[k], m.col_inds[k], m.values[k]
    rows = [[] for _ in range(cols_n if flip else rows_n)]
    for r in range(rows_n):
        for j in range(ptr[r], ptr[r + 1]):
            v = np.conj(vals[j]) if conj else vals[j]
            if flip:
                rows[int(cols[j])].append((r, v))
            else:
                rows[r].append((int(cols[j]), v))
    return rows


# --- the functions of TF's gen_sparse_csr_matrix_ops that Keras calls ----------------------------
def sparse_tensor_to_csr_sparse_matrix(indices, values, dense_shape, name=None):
    """A SparseTensor's (indices, values, dense_shape) as a CSR sparse matrix tensor."""
    return bind(SparseTensorToCSRSparseMatrix, convert_to_tensor(indices, D.int64),
                convert_to_tensor(values), convert_to_tensor(dense_shape, D.int64))


def csr_sparse_matrix_to_sparse_tensor(sparse_matrix, type, name=None):
    """A CSR sparse matrix's (indices, values, dense_shape) of value dtype ``type``."""
    out = bind(CSRSparseMatrixToSparseTensor, sparse_matrix, type=D.as_dtype(type))
    return CSRSparseMatrixToSparseTensorResult(*out)


def sparse_matrix_sparse_mat_mul(a, b, type, transpose_a=False, transpose_b=False,
                                 adjoint_a=False, adjoint_b=False, name=None):
    """The CSR sparse matrix ``a @ b`` (values of dtype ``type``)."""
    return bind(SparseMatrixSparseMatMul, a, b, type=D.as_dtype(type),
                transpose_a=bool(transpose_a), transpose_b=bool(transpose_b),
                adjoint_a=bool(adjoint_a), adjoint_b=bool(adjoint_b))
