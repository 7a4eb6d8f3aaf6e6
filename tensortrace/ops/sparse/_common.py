"""What the sparse kernels share: TF's index checks and their texts, row-major order, linear
positions of index rows."""

import numpy as np

from ... import errors

def index_text(row):
    """An index row as TF prints it in messages: ``[0,1]``."""
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def as_matrix(indices):
    """Indices as an int64 [N, rank] array."""
    arr = np.asarray(indices, np.int64)
    return arr if arr.ndim == 2 else arr.reshape(-1, 1)


def row_order(indices):
    """The stable permutation putting index rows in row-major (lexicographic) order."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def compare_rows(a, b):
    """-1, 0 or 1: the row-major order of two index rows."""
    diff = np.nonzero(a != b)[0]
    if not diff.size:
        return 0
    return -1 if a[diff[0]] < b[diff[0]] else 1


def check_indices(indices, shape, order=True):
    """TF's SparseTensor::IndicesValid: the first row out of bounds, out of order or repeated
    raises InvalidArgumentError in TF's words."""
    n = indices.shape[0]
    if not n:
        return
    shape = np.asarray(shape, np.int64)
    bad_bounds = np.any((indices < 0) | (indices >= shape), axis=1)
    bad_order = np.zeros(n, bool)
    repeated = np.zeros(n, bool)
    if order and n > 1 and indices.shape[1]:
        prev, cur = indices[:-1], indices[1:]
        neq = prev != cur
        first = np.argmax(neq, axis=1)
        same = ~neq.any(axis=1)
        rows = np.arange(n - 1)
        bad_order[1:] = ~same & (prev[rows, first] > cur[rows, first])
        repeated[1:] = same
    elif order and n > 1:
        repeated[1:] = True
    bad = np.nonzero(bad_bounds | bad_order | repeated)[0]
    if not bad.size:
        return
    i = bad[0]
    where = f"indices[{i}] = {index_text(indices[i])}"
    if bad_bounds[i]:
        raise errors.invalid_argument(f"{where} is out of bounds: need 0 <= index < "
                                      f"{index_text(shape)}")
    if bad_order[i]:
        raise errors.invalid_argument(
            f"{where} is out of order. Many sparse ops require sorted indices.\n    Use "
            "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    raise errors.invalid_argument(f"{where} is repeated")


def linear(indices, shape):
    """Row-major positions of the index rows in a dense tensor of ``shape`` (int64)."""
    shape = np.asarray(shape, np.int64)
    if not shape.size:
        return np.zeros(indices.shape[0], np.int64)
    strides = np.ones(shape.size, np.int64)
    if shape.size > 1:
        strides[:-1] = np.cumprod(shape[::-1])[::-1][1:]
    return indices @ strides


def unlinear(positions, shape):
    """Index rows (int64 [N, rank]) of row-major positions in a dense tensor of ``shape``."""
    shape = np.asarray(shape, np.int64)
    out = np.zeros((positions.shape[0], shape.size), np.int64)
    rest = positions.copy()
    for d in range(shape.size - 1, -1, -1):
        if shape[d]:
            rest, out[:, d] = np.divmod(rest, shape[d])
    return out


def check_shape_vector(shape, what):
    if np.ndim(shape) != 1:
        raise errors.invalid_argument(f"{what} should be a vector but received shape "
                                      f"{list(np.shape(shape))}")
