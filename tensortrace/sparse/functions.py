"""``tf.sparse``: the functions on SparseTensor, after TF's sparse_ops.py (each one op, or a
short composition of public ops, so they trace and differentiate)."""

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..ops.array.creation import fill, ones, zeros
from ..ops.array.joining import concat, stack
from ..ops.array.reshaping import expand_dims as tf_expand_dims
from ..ops.array.reshaping import reshape as tf_reshape
from ..ops.array.reshaping import transpose as tf_transpose
from ..ops.array.ranges import range as tf_range
from ..ops.array.shapes import shape as tf_shape
from ..ops.indexing.gathering import boolean_mask, gather, gather_nd
from ..ops.math.arithmetic import maximum as tf_maximum
from ..ops.math.arithmetic import minimum as tf_minimum
from ..ops.math.casting import cast
from ..ops.math.compare import equal, logical_not, not_equal
from ..ops.math.select import where
from ..ops.reduce import reduce_any, reduce_max as dense_reduce_max
from ..ops.sparse import arithmetic as A
from ..ops.sparse import reorganize as R
from ..ops.sparse import segments as G
from ..tensor import Tensor, static_value
from ..ops.sparse.indexed_slices import IndexedSlices
from .sparse_tensor import SparseTensor


def _sparse(sp_input):
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _parts(st):
    return st.indices, st.values, st.dense_shape


def _static_shape(st):
    return st.shape.as_list() if st.shape.is_fully_defined() else None


def _shape_tensor(dims):
    return convert_to_tensor(np.array(dims, np.int64))


@tf_export("sparse.from_dense")
def from_dense(tensor, name=None):
    """The non-zero entries of a dense tensor, as a SparseTensor in row-major order."""
    tensor = convert_to_tensor(tensor)
    indices = where(not_equal(tensor, zeros([], tensor.dtype) if tensor.dtype != D.string
                              else convert_to_tensor(b"")))
    return SparseTensor(indices, gather_nd(tensor, indices), tf_shape(tensor, D.int64))


@tf_export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor; absent entries are ``default_value`` (0). With ``validate_indices``
    the indices must be in bounds, in row-major order and unique (InvalidArgumentError)."""
    sp_input = _sparse(sp_input)
    if default_value is None:
        default_value = zeros([], sp_input.dtype)
    if not isinstance(default_value, Tensor):
        default_value = convert_to_tensor(default_value, sp_input.dtype)
    return bind(R.SparseToDense, sp_input.indices, sp_input.dense_shape, sp_input.values,
                default_value, validate_indices=bool(validate_indices))


@tf_export("sparse.add")
def add(a, b, threshold=0):
    """a + b where one or both are SparseTensors: sparse + sparse is sparse (sums of
    magnitude under ``threshold`` dropped), sparse + dense is dense."""
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        threshold = convert_to_tensor(threshold, a.dtype.real_dtype)
        ind, val, shape = bind(A.SparseAdd, *_parts(a), *_parts(b), threshold)
        a.shape.assert_is_compatible_with(b.shape)
        static = a.shape.merge_with(b.shape)
        if static.is_fully_defined():
            shape = _shape_tensor(static.as_list())
        return SparseTensor(ind, val, shape)
    if isinstance(b, SparseTensor):
        a, b = b, a
    b = convert_to_tensor(b, a.dtype)
    return bind(A.SparseTensorDenseAdd, *_parts(a), b)


@tf_export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """Sparse (rank 2) times dense, or dense times sparse: a dense matrix."""
    if isinstance(b, SparseTensor):
        if adjoint_a != adjoint_b:
            return tf_transpose(sparse_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return tf_transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_a,
                                                adjoint_b=not adjoint_b))
    sp_a = _sparse(sp_a)
    b = convert_to_tensor(b)
    return bind(A.SparseTensorDenseMatMul, *_parts(sp_a), b, adjoint_a=bool(adjoint_a),
                adjoint_b=bool(adjoint_b))


def _reduction_axes(sp_input, axis):
    if axis is None:
        rank = sp_input.shape.rank
        if rank is not None:
            return convert_to_tensor(np.arange(rank, dtype=np.int32))
        return tf_range(0, tf_shape(sp_input.dense_shape)[0])
    return convert_to_tensor(axis, D.int32)


def _reduce(dense_op, sparse_op, sp_input, axis, keepdims, output_is_sparse):
    sp_input = _sparse(sp_input)
    axes = _reduction_axes(sp_input, axis)
    keep = bool(keepdims) if keepdims is not None else False
    if output_is_sparse:
        ind, val, shape = bind(sparse_op, *_parts(sp_input), axes, keep_dims=keep)
        return SparseTensor(ind, val, shape)
    return bind(dense_op, *_parts(sp_input), axes, keep_dims=keep)


@tf_export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Sum of the entries along ``axis`` (all when None): dense, or sparse with
    ``output_is_sparse``."""
    return _reduce(A.SparseReduceSum, A.SparseReduceSumSparse, sp_input, axis, keepdims,
                   output_is_sparse)


@tf_export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Max of the present entries along ``axis`` (absent ones are not counted as zeros; an
    empty group gives 0)."""
    return _reduce(A.SparseReduceMax, A.SparseReduceMaxSparse, sp_input, axis, keepdims,
                   output_is_sparse)


@tf_export("sparse.reorder")
def reorder(sp_input, name=None):
    """The same SparseTensor with its entries in row-major order."""
    sp_input = _sparse(sp_input)
    ind, val = bind(R.SparseReorder, *_parts(sp_input))
    static = _static_shape(sp_input)
    out = SparseTensor(ind, val, _shape_tensor(static) if static else sp_input.dense_shape)
    out.set_shape(sp_input.shape)
    return out


@tf_export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    """The same entries in a dense shape ``shape`` (one -1 inferred)."""
    sp_input = _sparse(sp_input)
    shape = cast(convert_to_tensor(shape), D.int64)
    ind, out_shape = bind(R.SparseReshape, sp_input.indices, sp_input.dense_shape, shape)
    wanted = static_value(shape)
    static = _static_shape(sp_input)
    if wanted is not None and static is not None:
        wanted = [int(d) for d in wanted]
        if sum(d == -1 for d in wanted) > 1:
            raise ValueError(f"At most one dimension can be inferred (-1). Found: "
                             f"{np.array(wanted)}")
        total = int(np.prod(static))
        dims = [None if d == -1 else d for d in wanted]
        if dims.count(None) == 1 and 0 not in dims:
            rest = int(np.prod([d for d in dims if d is not None]))
            dims[dims.index(None)] = total // rest
        if None not in dims:
            if int(np.prod(dims)) != total:
                raise ValueError(f"Cannot reshape a tensor with {total} elements to shape "
                                 f"{[None if d == -1 else d for d in wanted]} "
                                 f"({int(np.prod(dims))} elements).")
            out_shape = _shape_tensor(dims)
    return SparseTensor(ind, sp_input.values, out_shape)


@tf_export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001  (TF's name)
    """The entries inside ``[start, start + size)``, shifted to start at 0."""
    sp_input = _sparse(sp_input)
    start, size = convert_to_tensor(start, D.int64), convert_to_tensor(size, D.int64)
    return SparseTensor(*bind(R.SparseSlice, *_parts(sp_input), start, size))


@tf_export("sparse.concat")
def concat_sparse(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """SparseTensors joined along ``axis``; with ``expand_nonconcat_dims`` the other
    dimensions grow to the largest."""
    sp_inputs = [_sparse(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    shapes = [s.dense_shape for s in sp_inputs]
    if expand_nonconcat_dims:
        top = dense_reduce_max(concat([tf_reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [concat([top[:axis], s[-1:] if axis == -1 else s[axis:axis + 1],
                          top[:0] if axis == -1 else top[axis + 1:]], 0) for s in shapes]
    n = len(sp_inputs)
    ind, val, shape = bind(R.SparseConcat, *[s.indices for s in sp_inputs],
                           *[s.values for s in sp_inputs], *shapes, concat_dim=int(axis), N=n)
    statics = [s.shape for s in sp_inputs]
    if all(s.rank is not None for s in statics):
        dims = [max((s.dims[d] for s in statics), key=lambda v: -1 if v is None else v)
                if expand_nonconcat_dims else statics[0].dims[d]
                for d in range(statics[0].rank)]
        along = [s.dims[axis] for s in statics]
        dims[axis] = None if None in along else sum(along)
        if all(s.is_fully_defined() for s in statics):
            return SparseTensor(ind, val, _shape_tensor(dims))
        out = SparseTensor(ind, val, shape)
        out.set_shape(dims)
        return out
    return SparseTensor(ind, val, shape)


@tf_export("sparse.split")
def split(sp_input=None, num_split=None, axis=None, name=None):
    """``num_split`` SparseTensors along ``axis`` (the first ``dim % num_split`` one wider)."""
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _sparse(sp_input)
    n = int(num_split)
    outs = bind(R.SparseSplit, convert_to_tensor(axis, D.int64), *_parts(sp_input),
                num_split=n)
    return [SparseTensor(outs[k], outs[n + k], outs[2 * n + k]) for k in range(n)]


@tf_export("sparse.retain")
def retain(sp_input, to_retain):
    """The entries where the bool vector ``to_retain`` is True."""
    sp_input = _sparse(sp_input)
    to_retain = convert_to_tensor(to_retain)
    to_retain.shape.with_rank(1)
    n, m = sp_input.values.shape.dims[0], to_retain.shape.dims[0]
    if n is not None and m is not None and n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    keep = tf_reshape(where(to_retain), [-1])
    return SparseTensor(gather(sp_input.indices, keep), gather(sp_input.values, keep),
                        sp_input.dense_shape)


@tf_export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """Each empty row gets ``default_value`` at column 0; also returns which rows were empty."""
    sp_input = _sparse(sp_input)
    default_value = convert_to_tensor(default_value, sp_input.dtype)
    ind, val, empty, _ = bind(R.SparseFillEmptyRows, *_parts(sp_input), default_value)
    return SparseTensor(ind, val, sp_input.dense_shape), empty


@tf_export("sparse.softmax")
def softmax(sp_input, name=None):
    """Softmax over the innermost dimension of the present entries only."""
    sp_input = _sparse(sp_input)
    return SparseTensor(sp_input.indices, bind(A.SparseSoftmax, *_parts(sp_input)),
                        sp_input.dense_shape)


@tf_export("sparse.maximum")
def maximum(sp_a, sp_b, name=None):
    """Element-wise maximum of two SparseTensors of one shape (absent entries are 0)."""
    ind, val = bind(A.SparseSparseMaximum, *_parts(_sparse(sp_a)), *_parts(_sparse(sp_b)))
    return SparseTensor(ind, val, sp_a.dense_shape)


@tf_export("sparse.minimum")
def minimum(sp_a, sp_b, name=None):
    """Element-wise minimum of two SparseTensors of one shape (absent entries are 0)."""
    ind, val = bind(A.SparseSparseMinimum, *_parts(_sparse(sp_a)), *_parts(_sparse(sp_b)))
    return SparseTensor(ind, val, sp_a.dense_shape)


@tf_export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    """Dimensions permuted by ``perm`` (reversed when None); entries reordered."""
    sp_input = _sparse(sp_input)
    rank = sp_input.shape.rank
    if perm is None:
        perm = list(range(rank - 1, -1, -1))
    perm_t = convert_to_tensor(perm)
    indices = tf_transpose(gather(tf_transpose(sp_input.indices), perm_t))
    known, static = static_value(perm_t), _static_shape(sp_input)
    if known is not None and static is not None:
        dense_shape = _shape_tensor([static[int(p)] for p in known])
    else:
        dense_shape = gather(sp_input.dense_shape, perm_t)
    return reorder(SparseTensor(indices, sp_input.values, dense_shape))


@tf_export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """A dimension of size 1 inserted at ``axis`` (-1 when None)."""
    sp_input = _sparse(sp_input)
    rank = sp_input.shape.rank
    axis = -1 if axis is None else axis
    if not isinstance(axis, (int, np.integer, Tensor)):
        raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, "
                        "rank(sp_input)]")
    axis = int(axis) if not isinstance(axis, Tensor) else int(static_value(axis))
    axis = axis if axis >= 0 else axis + rank + 1
    n = tf_shape(sp_input.indices)[0]
    column = zeros(stack([n, 1]), D.int64)
    indices = concat([sp_input.indices[:, :axis], column, sp_input.indices[:, axis:]], 1)
    shape = concat([sp_input.dense_shape[:axis], convert_to_tensor([1], D.int64),
                    sp_input.dense_shape[axis:]], 0)
    return SparseTensor(indices, sp_input.values, shape)


@tf_export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=D.float32, name=None):
    """A sparse identity matrix ``num_rows`` x ``num_columns``."""
    rows = convert_to_tensor(num_rows, D.int64)
    cols = rows if num_columns is None else convert_to_tensor(num_columns, D.int64)
    diag = tf_minimum(rows, cols)
    steps = tf_range(diag, dtype=D.int64)
    return SparseTensor(stack([steps, steps], axis=1), ones(tf_reshape(diag, [1]), dtype),
                        stack([rows, cols]))


@tf_export("sparse.reset_shape")
def reset_shape(sp_input, new_shape=None):
    """The same entries with dense shape ``new_shape`` (no smaller than the old), or the
    tightest shape holding them when None."""
    sp_input = _sparse(sp_input)
    indices, values, shape = _parts(sp_input)
    if new_shape is None:
        low = dense_reduce_max(indices, axis=0)
        return SparseTensor(indices, values, tf_maximum(convert_to_tensor(0, D.int64),
                                                         low + 1))
    out = cast(convert_to_tensor(new_shape), D.int64)
    out.shape.with_rank(1)
    wanted, static = static_value(out), _static_shape(sp_input)
    if wanted is not None and static is not None:
        old = np.array(static)
        if not np.all(old <= wanted):
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({old}), sp_input.shape "
                             f"({wanted}).")
    return SparseTensor(indices, values, out)


@tf_export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensor arguments (which must share indices and
    dense shape); other arguments pass as they are."""
    found = []

    def swap(v):
        if isinstance(v, SparseTensor):
            found.append(v)
            return v.values
        if isinstance(v, (list, tuple)):
            return type(v)(swap(x) for x in v)
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        return v

    inner_args, inner_kwargs = swap(list(args)), swap(dict(kwargs))
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    return SparseTensor(found[0].indices, op(*inner_args, **inner_kwargs), found[0].dense_shape)


@tf_export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """A bool dense tensor whose last dimension (``vocab_size``) is True at each id the
    innermost row of ``sp_input`` holds."""
    sp_input = _sparse(sp_input)
    ids = cast(sp_input.values, D.int64)
    indices = concat([sp_input.indices[:, :-1], tf_expand_dims(ids, 1)], 1)
    shape = concat([sp_input.dense_shape[:-1], tf_reshape(convert_to_tensor(vocab_size,
                                                                             D.int64), [1])], 0)
    merged = reorder(SparseTensor(indices, fill(tf_shape(ids), True), shape))
    return to_dense(merged, default_value=False, validate_indices=False)


@tf_export("sparse.mask")
def mask(a, mask_indices, name=None):
    """The slices of IndexedSlices ``a`` whose index is not in ``mask_indices``."""
    mask_indices = convert_to_tensor(mask_indices, a.indices.dtype)
    hits = reduce_any(equal(tf_expand_dims(a.indices, 1), tf_expand_dims(mask_indices, 0)), 1)
    keep = logical_not(hits)
    return IndexedSlices(boolean_mask(a.values, keep), boolean_mask(a.indices, keep),
                         a.dense_shape)


@tf_export("sparse.bincount")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output=False, name=None):
    """Counts of each value (per row with ``axis=-1``) as a SparseTensor."""
    if hasattr(values, "nested_row_splits"):  # a RaggedTensor counts as its sparse form
        values = values.to_sparse()
    if hasattr(weights, "nested_row_splits"):
        weights = weights.to_sparse()
    if not isinstance(values, SparseTensor):
        values = convert_to_tensor(values)
    if weights is not None and not isinstance(weights, SparseTensor):
        weights = convert_to_tensor(weights)
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    low = -1 if minlength is None else int(minlength)
    high = -1 if maxlength is None else int(maxlength)
    if axis == 0:
        if isinstance(values, SparseTensor):
            weights = _sparse_weights(values, weights)
            values = values.values
        elif weights is not None:
            weights = tf_reshape(weights, [-1])
        values = tf_reshape(values, [-1])
    if isinstance(values, SparseTensor):
        weights = _sparse_weights(values, weights)
        out = bind(A.SparseCountSparseOutput, *_parts(values), weights,
                   binary_output=bool(binary_output), minlength=low, maxlength=high)
    else:
        if weights is None:
            weights = zeros([0], values.dtype)
        elif not isinstance(weights, Tensor):
            raise ValueError(f"Argument `weights` must be a tf.Tensor if `values` is a "
                             f"tf.Tensor. Received weights={weights} of type: "
                             f"{type(weights).__name__}")
        out = bind(A.DenseCountSparseOutput, values, weights,
                   binary_output=bool(binary_output), minlength=low, maxlength=high)
    return SparseTensor(*out)


def _sparse_weights(values, weights):
    if weights is None:
        return zeros([0], values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a "
                         f"SparseTensor. Received weights={weights} of type: "
                         f"{type(weights).__name__}")
    return weights.values


def _segment(kind, data, indices, segment_ids, num_segments):
    data = convert_to_tensor(data)
    indices, segment_ids = convert_to_tensor(indices), convert_to_tensor(segment_ids)
    if num_segments is None:
        return bind(getattr(G, f"SparseSegment{kind}"), data, indices, segment_ids,
                    sparse_gradient=False)
    return bind(getattr(G, f"SparseSegment{kind}WithNumSegments"), data, indices, segment_ids,
                convert_to_tensor(num_segments, dtype_hint=segment_ids.dtype),
                sparse_gradient=False)


@tf_export("sparse.segment_sum")
def segment_sum(data, indices, segment_ids, num_segments=None, name=None,
                sparse_gradient=False):
    """Sums of ``data[indices]`` rows per (sorted) segment id."""
    return _segment("Sum", data, indices, segment_ids, num_segments)


@tf_export("sparse.segment_mean")
def segment_mean(data, indices, segment_ids, num_segments=None, name=None,
                 sparse_gradient=False):
    """Means of ``data[indices]`` rows per (sorted) segment id (0 for an empty segment)."""
    return _segment("Mean", data, indices, segment_ids, num_segments)


@tf_export("sparse.segment_sqrt_n")
def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None,
                   sparse_gradient=False):
    """Sums of ``data[indices]`` rows per segment divided by the sqrt of the segment's size."""
    return _segment("SqrtN", data, indices, segment_ids, num_segments)
