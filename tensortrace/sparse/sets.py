"""``tf.sets``: intersection, union, difference and size of the sets along the last dimension
of dense tensors and SparseTensors (TF's sets_impl over the set ops)."""

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..ops.sparse import sets as S
from .sparse_tensor import SparseTensor

_VALID_DTYPES = frozenset([D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.string])


def _tensor_or_sparse(value):
    return value if isinstance(value, SparseTensor) else convert_to_tensor(value)


def _inputs(a, b):
    """(a, b, flipped): converted, with a sparse ``a`` and dense ``b`` swapped (the ops take
    dense-then-sparse only)."""
    a = _tensor_or_sparse(a)
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    b = _tensor_or_sparse(b)
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _operation(a, b, set_operation, validate_indices):
    if isinstance(a, SparseTensor):
        parts = bind(S.SparseToSparseSetOperation, a.indices, a.values, a.dense_shape,
                     b.indices, b.values, b.dense_shape, set_operation=set_operation,
                     validate_indices=validate_indices)
    elif isinstance(b, SparseTensor):
        parts = bind(S.DenseToSparseSetOperation, a, b.indices, b.values, b.dense_shape,
                     set_operation=set_operation, validate_indices=validate_indices)
    else:
        parts = bind(S.DenseToDenseSetOperation, a, b, set_operation=set_operation,
                     validate_indices=validate_indices)
    return SparseTensor(*parts)


@tf_export("sets.intersection")
def set_intersection(a, b, validate_indices=True):
    """The values in both ``a``'s and ``b``'s set of each group (all dims but the last), as a
    SparseTensor whose last dim is the largest result set; values ascend within a group."""
    a, b, _ = _inputs(a, b)
    return _operation(a, b, "intersection", validate_indices)


@tf_export("sets.union")
def set_union(a, b, validate_indices=True):
    """The values in ``a``'s or ``b``'s set of each group, as a SparseTensor."""
    a, b, _ = _inputs(a, b)
    return _operation(a, b, "union", validate_indices)


@tf_export("sets.difference")
def set_difference(a, b, aminusb=True, validate_indices=True):
    """``a - b`` (or ``b - a`` when not ``aminusb``) of each group's sets, as a SparseTensor."""
    a, b, flipped = _inputs(a, b)
    if flipped:
        aminusb = not aminusb
    return _operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@tf_export("sets.size")
def set_size(a, validate_indices=True):
    """The number of distinct values in each last-dim set of the SparseTensor ``a`` (int32)."""
    a = _tensor_or_sparse(a)
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {str(a)}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    return bind(S.SetSize, a.indices, a.values, a.dense_shape,
                validate_indices=validate_indices)
