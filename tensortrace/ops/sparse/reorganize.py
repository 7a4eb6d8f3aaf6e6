"""Sparse ops that move entries without combining them: SparseToDense, SparseReorder,
SparseReshape, SparseSlice, SparseConcat, SparseSplit, SparseFillEmptyRows."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ...messages import input_dtype_error
from ...registry import define_op
from ...tensor import TensorSpec
from .._args import shape_values, static_int
from .._base import INDEX, check_dtypes
from ._common import as_matrix, check_indices, index_text, linear, row_order, unlinear

_I64 = D.int64


def _rank_of(shape):
    """The static length of a dense-shape vector, or None."""
    return shape.shape.dims[0] if shape.shape.rank == 1 else None


def _entries(indices):
    return indices.shape.dims[0] if indices.shape.rank == 2 else None


@define_op("SparseToDense")
class SparseToDense:
    """``dense[sparse_indices[i]] = sparse_values[i]`` (a scalar value for all), the rest
    ``default_value``; ``validate_indices`` checks TF's order, bounds and repeats."""

    def check(arrays):
        if len(arrays) == 4 and arrays[3].dtype != arrays[2].dtype:
            raise input_dtype_error("SparseToDense", 3, D.as_dtype(arrays[2].dtype),
                                    arrays[3].dtype)

    def infer(sparse_indices, output_shape, sparse_values, default_value, validate_indices=True):
        check_dtypes("SparseToDense", (sparse_indices,), INDEX, ("sparse_indices",))
        check_dtypes("SparseToDense", (sparse_values, default_value), None,
                     ("sparse_values", "default_value"))
        return TensorSpec(shape_values(output_shape), sparse_values.dtype)

    def kernel(sparse_indices, output_shape, sparse_values, default_value,
               validate_indices=True):
        shape = np.asarray(output_shape, np.int64).reshape(-1)
        idx = np.asarray(sparse_indices, np.int64)
        idx = idx.reshape(-1, 1) if idx.ndim < 2 else idx
        if idx.ndim == 2 and idx.size == 0:
            idx = idx.reshape(idx.shape[0], shape.size)
        values = np.asarray(sparse_values)
        if values.ndim == 1 and values.shape[0] != idx.shape[0]:
            raise errors.invalid_argument(
                f"sparse_values has incorrect shape [{values.shape[0]}], should be [] or "
                f"[{idx.shape[0]}]")
        if idx.shape[1] != shape.size:
            raise errors.invalid_argument(
                f"sparse_indices[{idx.shape[0]},{idx.shape[1]}] has incorrect shape; should be "
                f"[*,{shape.size}]")
        if np.any(shape < 0):
            raise errors.invalid_argument(f"Dimension -1 must be >= 0")
        if validate_indices:
            check_indices(idx, shape)
        elif idx.size and np.any((idx < 0) | (idx >= shape)):
            i = int(np.nonzero(np.any((idx < 0) | (idx >= shape), axis=1))[0][0])
            raise errors.invalid_argument(f"indices[{i}] = {index_text(idx[i])} is out of "
                                          f"bounds: need 0 <= index < {index_text(shape)}")
        out = np.full(tuple(shape), np.asarray(default_value), dtype=values.dtype)
        if idx.shape[0]:
            out[tuple(idx.T)] = values
        return out


@define_op("SparseReorder")
class SparseReorder:
    """Entries sorted into row-major order (stable)."""

    def infer(input_indices, input_values, input_shape):
        return (TensorSpec(input_indices.shape, _I64), TensorSpec(input_values.shape,
                                                                  input_values.dtype))

    def kernel(input_indices, input_values, input_shape):
        idx = as_matrix(input_indices)
        shape = np.asarray(input_shape, np.int64)
        bad = np.any((idx < 0) | (idx >= shape), axis=1) if idx.size else np.zeros(0, bool)
        if bad.any():
            i = int(np.nonzero(bad)[0][0])
            raise errors.invalid_argument(f"Index {i} is out of bounds: need 0 <= index < "
                                          f"{index_text(shape)}, got {index_text(idx[i])}")
        order = row_order(idx)
        return idx[order], np.asarray(input_values)[order]


@define_op("SparseReshape")
class SparseReshape:
    """The same entries in a dense tensor of ``new_shape`` (one -1 is inferred)."""

    def infer(input_indices, input_shape, new_shape):
        known = shape_values(new_shape)
        n = None if known is None else len(known)
        return (TensorSpec([_entries(input_indices), n], _I64), TensorSpec([n], _I64))

    def kernel(input_indices, input_shape, new_shape):
        shape = np.asarray(input_shape, np.int64)
        wanted = np.asarray(new_shape, np.int64).copy()
        total = int(np.prod(shape))
        unknown = np.nonzero(wanted == -1)[0]
        if unknown.size > 1:
            raise errors.invalid_argument(f"only one output dimension may be -1, not both "
                                          f"{unknown[0]} and {unknown[1]}")
        known = int(np.prod(wanted[wanted != -1]))
        shown = f"input_shape={index_text(shape)} output_shape="
        if unknown.size:
            if known == 0 or total % known:
                rest = wanted.copy()
                rest[unknown[0]] = 1 if known == 0 or total % known else total // known
                raise errors.invalid_argument(
                    f"Input to reshape is a SparseTensor with {total} dense values, but the "
                    f"requested shape requires a multiple of {known}. {shown}"
                    f"{index_text(rest)}")
            wanted[unknown[0]] = total // known
        elif known != total:
            raise errors.invalid_argument(
                f"Input to reshape is a tensor with {total} dense values, but the requested "
                f"shape has {known}. {shown}{index_text(wanted)}")
        idx = as_matrix(input_indices)
        return unlinear(linear(idx, shape), wanted), wanted


@define_op("SparseSlice")
class SparseSlice:
    """The entries inside the box ``[start, start + size)``, shifted to start at 0; the dense
    shape is the box clipped to the input."""

    def infer(indices, values, shape, start, size):
        n = _rank_of(shape)
        return (TensorSpec([None, n], _I64), TensorSpec([None], values.dtype),
                TensorSpec([n], _I64))

    def kernel(indices, values, shape, start, size):
        idx, shape = as_matrix(indices), np.asarray(shape, np.int64)
        start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
        if start.shape != shape.shape or size.shape != shape.shape:
            raise errors.invalid_argument(
                f"Expected start and size to be vectors of length {shape.size}, got "
                f"{start.size} and {size.size}")
        end = np.minimum(start + size, shape)
        out_shape = np.maximum(end - start, 0)
        keep = np.all((idx >= start) & (idx < end), axis=1) if idx.shape[0] else \
            np.zeros(0, bool)
        return idx[keep] - start, np.asarray(values)[keep], out_shape


@define_op("SparseConcat")
class SparseConcat:
    """N sparse tensors joined along ``concat_dim`` (entries in row-major order)."""

    def infer(*inputs, concat_dim, N):
        values = inputs[N:2 * N]
        n = _rank_of(inputs[2 * N])
        return (TensorSpec([None, n], _I64), TensorSpec([None], values[0].dtype),
                TensorSpec([n], _I64))

    def kernel(*inputs, concat_dim, N):
        indices = [as_matrix(i) for i in inputs[:N]]
        values = [np.asarray(v) for v in inputs[N:2 * N]]
        shapes = [np.asarray(s, np.int64) for s in inputs[2 * N:]]
        rank = shapes[0].size
        if not -rank <= concat_dim < rank:
            raise errors.invalid_argument(f"Concat dimension must be in range [{-rank}, {rank}),"
                                          f" got {concat_dim}")
        axis = concat_dim % rank
        for k, s in enumerate(shapes[1:], 1):
            if s.size != rank:
                raise errors.invalid_argument(f"Ranks of all input tensors must match: expected "
                                              f"{rank} but got {s.size} at position {k}")
            for d in range(rank):
                if d != axis and s[d] != shapes[0][d]:
                    raise errors.invalid_argument(
                        f"Input shapes must match: expected {shapes[0][d]} for dimension {d} "
                        f"but got {s[d]} at position {k}")
        offset, moved = 0, []
        for idx, s in zip(indices, shapes):
            idx = idx.copy()
            idx[:, axis] += offset
            offset += s[axis]
            moved.append(idx)
        out_idx = np.concatenate(moved).reshape(-1, rank)
        out_val = np.concatenate(values)
        out_shape = shapes[0].copy()
        out_shape[axis] = offset
        order = row_order(out_idx)
        return out_idx[order], out_val[order], out_shape


def split_sizes(dim, num_split):
    """TF's sparse split: the first ``dim % num_split`` pieces take one extra."""
    base, extra = divmod(dim, num_split)
    return [base + (1 if k < extra else 0) for k in range(num_split)]


@define_op("SparseSplit")
class SparseSplit:
    """``num_split`` sparse pieces along ``split_dim``."""

    def infer(split_dim, indices, values, shape, num_split):
        n = _rank_of(shape)
        return tuple([TensorSpec([None, n], _I64)] * num_split
                     + [TensorSpec([None], values.dtype)] * num_split
                     + [TensorSpec([n], _I64)] * num_split)

    def kernel(split_dim, indices, values, shape, num_split):
        idx, shape, values = as_matrix(indices), np.asarray(shape, np.int64), np.asarray(values)
        rank, axis = shape.size, int(split_dim)
        if not -rank <= axis < rank:
            raise errors.invalid_argument(f"Input split_dim should be between {-rank} and "
                                          f"{rank}, got {axis}")
        axis %= rank
        if num_split < 1 or num_split > shape[axis]:
            raise errors.invalid_argument(f"Input num_split should be between 1 and "
                                          f"{shape[axis]}, got {num_split}")
        sizes = split_sizes(int(shape[axis]), num_split)
        starts = np.cumsum([0] + sizes)
        out_idx, out_val, out_shape = [], [], []
        for k, n in enumerate(sizes):
            keep = (idx[:, axis] >= starts[k]) & (idx[:, axis] < starts[k + 1])
            piece = idx[keep].copy()
            piece[:, axis] -= starts[k]
            s = shape.copy()
            s[axis] = n
            out_idx.append(piece)
            out_val.append(values[keep])
            out_shape.append(s)
        return tuple(out_idx + out_val + out_shape)


@define_op("SparseFillEmptyRows")
class SparseFillEmptyRows:
    """Every empty row gets one ``default_value`` entry at ``[row, 0, ...]``; entries come out
    grouped by row. Also returns which rows were empty and where each input entry went."""

    def infer(indices, values, dense_shape, default_value):
        n = _rank_of(dense_shape)
        rows = shape_values(dense_shape)
        return (TensorSpec([None, n], _I64), TensorSpec([None], values.dtype),
                TensorSpec([None if not rows else rows[0]], D.bool),
                TensorSpec([_entries(indices)], _I64))

    def kernel(indices, values, dense_shape, default_value):
        idx, shape, values = as_matrix(indices), np.asarray(dense_shape, np.int64), \
            np.asarray(values)
        if np.ndim(default_value) != 0:
            raise errors.invalid_argument(f"default_value must be a scalar, saw: "
                                          f"{list(np.shape(default_value))}")
        rows = int(shape[0]) if shape.size else 0
        if idx.shape[0] and (np.any(idx[:, 0] < 0) or np.any(idx[:, 0] >= rows)):
            i = int(np.nonzero((idx[:, 0] < 0) | (idx[:, 0] >= rows))[0][0])
            raise errors.invalid_argument(f"indices({i}, 0) is invalid: {idx[i, 0]} >= {rows}")
        empty = np.ones(rows, bool)
        empty[idx[:, 0]] = False
        fill = np.nonzero(empty)[0]
        fill_idx = np.zeros((fill.size, shape.size), np.int64)
        fill_idx[:, 0] = fill
        all_idx = np.concatenate([idx, fill_idx]).reshape(-1, shape.size)
        order = np.argsort(all_idx[:, 0], kind="stable")
        all_val = np.concatenate([values, np.full(fill.size, default_value, values.dtype)])
        where = np.empty(order.size, np.int64)
        where[order] = np.arange(order.size)
        return all_idx[order], all_val[order], empty, where[:idx.shape[0]]


@define_op("SparseSliceGrad")
class SparseSliceGrad:
    """SparseSlice's values gradient: each output entry's gradient back at the input entry
    it came from, 0 for the entries the slice dropped."""

    def infer(backprop_val_grad, input_indices, input_start, output_indices):
        return TensorSpec([_entries(input_indices)], backprop_val_grad.dtype)

    def kernel(backprop_val_grad, input_indices, input_start, output_indices):
        idx, out_idx = as_matrix(input_indices), as_matrix(output_indices)
        grad = np.asarray(backprop_val_grad)
        moved = out_idx + np.asarray(input_start, np.int64)
        where = {tuple(row): k for k, row in enumerate(moved.tolist())}
        result = np.zeros(idx.shape[0], grad.dtype)
        for i, row in enumerate(idx.tolist()):
            k = where.get(tuple(row))
            if k is not None:
                result[i] = grad[k]
        return result
