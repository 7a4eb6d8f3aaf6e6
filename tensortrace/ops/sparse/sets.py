"""Set operations over the last dimension (TF's set_ops): DenseToDenseSetOperation,
DenseToSparseSetOperation, SparseToSparseSetOperation and SetSize. Each group (all indices but
the last) holds a set of values; results are SparseTensor components with each group's values
in ascending order."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ...registry import define_op
from ...tensor import TensorSpec
from .._args import shape_values
from ._common import as_matrix, check_indices

_I64 = D.int64
_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def _shape_text(dims):
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def _group_shape(shape):
    if len(shape) < 2:
        raise errors.invalid_argument(f"Shape {_shape_text(shape)} has rank {len(shape)} < 2")
    return tuple(int(d) for d in shape[:-1])


def _dense_sets(arr):
    """{group index: set of values} of a dense input (every last-dim entry is an element)."""
    arr = np.asarray(arr)
    groups = _group_shape(arr.shape)
    flat = arr.reshape(-1, arr.shape[-1]) if arr.size else np.zeros((0, 0), arr.dtype)
    return groups, {g: set(flat[i].tolist()) for i, g in enumerate(np.ndindex(*groups))
                    if arr.shape[-1]}


def _sparse_sets(indices, values, shape, validate):
    shape = np.asarray(shape, np.int64).reshape(-1)
    idx = as_matrix(indices)
    groups = _group_shape(shape)
    if validate:
        check_indices(idx, shape)
    sets = {}
    for row, value in zip(idx[:, :-1].tolist(), np.asarray(values).tolist()):
        sets.setdefault(tuple(row), set()).add(value)
    return groups, sets


def _combine(first, second, operation, dtype):
    """The components (indices, values, dense_shape) of the operation's result."""
    (shape_a, sets_a), (shape_b, sets_b) = first, second
    if shape_a != shape_b:
        raise errors.invalid_argument(f"Mismatched shapes {_shape_text(shape_a)} vs "
                                      f"{_shape_text(shape_b)}")
    rows, values, widest = [], [], 0
    for group in sorted(set(sets_a) | set(sets_b)):
        a, b = sets_a.get(group, set()), sets_b.get(group, set())
        result = sorted({"a-b": a - b, "b-a": b - a, "intersection": a & b,
                         "union": a | b}[operation])
        widest = max(widest, len(result))
        rows.extend(group + (i,) for i in range(len(result)))
        values.extend(result)
    rank = len(shape_a) + 1
    indices = np.array(rows, np.int64).reshape(len(rows), rank)
    out = np.array(values, dtype=object if dtype == D.string else dtype._np)
    return indices, out.reshape(len(values)), np.array(shape_a + (widest,), np.int64)


def _check_operation(set_operation):
    if set_operation not in _OPERATIONS:
        raise errors.invalid_argument(f"Invalid set_operation {set_operation}.")


def _outputs(rank, dtype):
    return (TensorSpec([None, rank], _I64), TensorSpec([None], dtype), TensorSpec([rank], _I64))


@define_op("DenseToDenseSetOperation")
class DenseToDenseSetOperation:
    """The set operation between the last-dim sets of two dense tensors."""

    def infer(set1, set2, set_operation, validate_indices=True):
        _check_operation(set_operation)
        return _outputs(set1.shape.rank, set1.dtype)

    def kernel(set1, set2, set_operation, validate_indices=True):
        dtype = D.as_dtype(np.asarray(set1).dtype) if np.asarray(set1).dtype.kind != "O" \
            else D.string
        return _combine(_dense_sets(set1), _dense_sets(set2), set_operation, dtype)


@define_op("DenseToSparseSetOperation")
class DenseToSparseSetOperation:
    """The set operation between a dense tensor's sets and a SparseTensor's."""

    def infer(set1, set2_indices, set2_values, set2_shape, set_operation, validate_indices=True):
        _check_operation(set_operation)
        return _outputs(set1.shape.rank, set1.dtype)

    def kernel(set1, set2_indices, set2_values, set2_shape, set_operation,
               validate_indices=True):
        dtype = D.as_dtype(np.asarray(set1).dtype) if np.asarray(set1).dtype.kind != "O" \
            else D.string
        return _combine(_dense_sets(set1),
                        _sparse_sets(set2_indices, set2_values, set2_shape, validate_indices),
                        set_operation, dtype)


@define_op("SparseToSparseSetOperation")
class SparseToSparseSetOperation:
    """The set operation between the sets of two SparseTensors."""

    def infer(set1_indices, set1_values, set1_shape, set2_indices, set2_values, set2_shape,
              set_operation, validate_indices=True):
        _check_operation(set_operation)
        rank = set1_shape.shape.dims[0] if set1_shape.shape.rank == 1 else None
        return _outputs(rank, set1_values.dtype)

    def kernel(set1_indices, set1_values, set1_shape, set2_indices, set2_values, set2_shape,
               set_operation, validate_indices=True):
        dtype = D.as_dtype(np.asarray(set1_values).dtype) \
            if np.asarray(set1_values).dtype.kind != "O" else D.string
        return _combine(_sparse_sets(set1_indices, set1_values, set1_shape, validate_indices),
                        _sparse_sets(set2_indices, set2_values, set2_shape, validate_indices),
                        set_operation, dtype)


@define_op("SetSize")
class SetSize:
    """The number of distinct values in each last-dim set of a SparseTensor (int32)."""

    def infer(set_indices, set_values, set_shape, validate_indices=True):
        dims = shape_values(set_shape)
        return TensorSpec(None if dims is None else dims[:-1], D.int32)

    def kernel(set_indices, set_values, set_shape, validate_indices=True):
        groups, sets = _sparse_sets(set_indices, set_values, set_shape, validate_indices)
        out = np.zeros(groups, np.int32)
        for group, members in sets.items():
            out[group] = len(members)
        return out
