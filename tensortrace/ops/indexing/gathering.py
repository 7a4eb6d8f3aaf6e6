"""Gathering: GatherV2 (``tf.gather``, slices along an axis), GatherNd (slices at N-d
coordinates) and ``tf.boolean_mask``, built from them."""

import numpy as np

from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import InvalidArgumentError, invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._args import int_attr
from .._base import check_dtypes, graph_error
from ..array.reshaping import transpose
from ..math.select import where
from ._util import INDEX16, nd_bounds, position, result


# --- GatherV2 ----------------------------------------------------------------------------------
def _check_bounds(indices, size, what="indices"):
    """Raise TF's gather error for the first index outside [0, size)."""
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = (indices < 0) | (indices >= size)
        pos = np.unravel_index(int(np.argmax(bad)), indices.shape)
        at = f"{what}[{position(pos)}]" if indices.ndim else what
        raise invalid_argument(f"{at} = {indices[pos]} is not in [0, {size})")


def _batched_take(params, indices, axis, batch_dims):
    """Gather along ``axis`` separately for each index of the leading ``batch_dims`` dims."""
    bshape = params.shape[:batch_dims]
    nb = int(np.prod(bshape, dtype=np.int64))
    p = np.moveaxis(params.reshape((nb,) + params.shape[batch_dims:]), axis - batch_dims + 1, 1)
    ishape = indices.shape[batch_dims:]
    flat = indices.reshape(nb, int(np.prod(ishape, dtype=np.int64)))
    g = p[np.arange(nb)[:, None], flat]  # (B, I, mid..., rest...)
    mid, rest = params.shape[batch_dims:axis], params.shape[axis + 1:]
    g = g.reshape(bshape + ishape + mid + rest)
    b, i, m = len(bshape), len(ishape), len(mid)
    perm = [*range(b), *range(b + i, b + i + m), *range(b, b + i), *range(b + i + m, g.ndim)]
    return g.transpose(perm)


def _gather_axes(rank, indices_rank, axis, batch_dims):
    """Normalized (axis, batch_dims), raising TF's messages for out-of-range values."""
    if batch_dims:
        if not -indices_rank <= batch_dims <= indices_rank:
            raise invalid_argument(f"Expected batch_dims in the range [{-indices_rank}, "
                                   f"{indices_rank}], but got {batch_dims}")
        batch_dims += indices_rank if batch_dims < 0 else 0
        if batch_dims >= rank:
            raise invalid_argument(f"Shape must be at least rank {batch_dims + 1} but is rank "
                                   f"{rank}")
    ax = axis + rank if axis < 0 else axis
    if not 0 <= ax < rank:
        raise invalid_argument(f"Shape must be at least rank {abs(axis) + (axis >= 0)} but is "
                               f"rank {rank}")
    if batch_dims > ax:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis "
                               f"({ax}).")
    return ax, batch_dims


@define_op("GatherV2")
class GatherV2:
    """Slices of ``params`` along ``axis`` at ``indices`` (per batch with ``batch_dims``)."""

    check = DtypeCheck("GatherV2", INDEX16, 1, first=1, attr="Tindices")

    def infer(params, indices, axis, batch_dims):
        check_dtypes("GatherV2", (indices,), INDEX16, ("indices",))
        p, i = params.shape, indices.shape
        if p.rank is None or i.rank is None:
            return TensorSpec(None, params.dtype)
        try:
            ax, bd = _gather_axes(p.rank, i.rank, axis, batch_dims)
        except InvalidArgumentError as e:
            raise graph_error("GatherV2", e.message, params.shape, indices.shape) from None
        lead = [a if a is not None else b for a, b in zip(p.dims[:bd], i.dims[:bd])]
        return TensorSpec(lead + p.dims[bd:ax] + i.dims[bd:] + p.dims[ax + 1:], params.dtype)

    def kernel(params, indices, axis, batch_dims):
        if np.ndim(params) == 0:
            raise invalid_argument("params must be at least 1 dimensional")
        ax, bd = _gather_axes(params.ndim, np.ndim(indices), axis, batch_dims)
        for d in range(bd):
            if params.shape[d] != indices.shape[d]:
                raise invalid_argument(f"params.shape[{d}]: {params.shape[d]} should be equal "
                                       f"to indices.shape[{d}]: {indices.shape[d]}")
        indices = np.asarray(indices)
        _check_bounds(indices, params.shape[ax])
        if bd:
            return _batched_take(params, indices, ax, bd)
        return result(np.take(params, indices, axis=ax))


@tf_export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather``: ``params`` slices along ``axis`` picked by ``indices``.

    Raises:
        InvalidArgumentError: eagerly, for an index outside ``[0, params.shape[axis])``.
    """
    batch_dims = int_attr(batch_dims, "batch_dims")
    axis = batch_dims if axis is None else int_attr(axis, "axis")
    try:
        tensors = convert_to_tensor(params), convert_to_tensor(indices)  # arguments kept as given
    except (TypeError, ValueError):  # composite arguments (ragged) have their own form
        return fallback(gather, (params, indices), {"axis": axis, "batch_dims": batch_dims})
    return bind(GatherV2, *tensors, axis=axis, batch_dims=batch_dims)


@define_op("GatherNd")
class GatherNd:
    """Slices of ``params`` at the coordinates in the innermost dimension of ``indices``.

    ``batch_dims`` (an attr here; TF composes it from other ops) gathers per batch entry.
    """

    check = DtypeCheck("GatherNd", INDEX16, 1, first=1, attr="Tindices")

    def infer(params, indices, batch_dims):
        check_dtypes("GatherNd", (indices,), INDEX16, ("indices",))
        i = indices.shape
        if i.rank is None or i.dims[-1] is None or params.shape.rank is None:
            return TensorSpec(None, params.dtype)
        depth = i.dims[-1]
        if depth > params.shape.rank - batch_dims:
            raise graph_error("GatherNd", f"index innermost dimension length must be <= params "
                              f"rank; saw: {depth} vs. {params.shape.rank - batch_dims}",
                              params.shape, indices.shape)
        return TensorSpec(i.dims[:-1] + params.shape.dims[batch_dims + depth:], params.dtype)

    def kernel(params, indices, batch_dims):
        if np.ndim(params) == 0:
            raise invalid_argument("params must be at least a vector")
        if np.ndim(indices) == 0:
            raise invalid_argument("indices must be at least a vector")
        depth, bd = indices.shape[-1], batch_dims
        if depth > params.ndim - bd:
            raise invalid_argument(f"index innermost dimension length must be <= params rank; "
                                   f"saw: {depth} vs. {params.ndim - bd}")
        if params.shape[:bd] != indices.shape[:bd]:
            raise invalid_argument(f"batch dimensions of params {shape_text(params.shape[:bd])} "
                                   f"and indices {shape_text(indices.shape[:bd])} must match")
        nd_bounds(indices, params.shape[bd:bd + depth], lambda at, coords: (
            f"{at} = [{coords}] does not index into param shape {shape_text(params.shape)}, node "
            f"name: GatherNd"), bd)
        out_shape = indices.shape[:-1] + params.shape[bd + depth:]
        if depth == 0:  # every index row picks the whole (batch entry of) params
            lifted = params.shape[:bd] + (1,) * (indices.ndim - 1 - bd) + params.shape[bd:]
            return np.broadcast_to(params.reshape(lifted), out_shape)
        nb = int(np.prod(params.shape[:bd], dtype=np.int64))
        p = params.reshape((nb,) + params.shape[bd:])
        rows = indices.reshape(nb, int(np.prod(indices.shape[bd:-1], dtype=np.int64)), depth)
        picked = p[(np.arange(nb)[:, None],) + tuple(rows[..., j] for j in range(depth))]
        return result(picked.reshape(out_shape))


@tf_export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """``tf.gather_nd``: slices of ``params`` at N-d coordinates."""
    return bind(GatherNd, convert_to_tensor(params), convert_to_tensor(indices),
                batch_dims=int_attr(batch_dims, "batch_dims"))


# --- boolean_mask ------------------------------------------------------------------------------
@tf_export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """``tf.boolean_mask``: the entries of ``tensor`` where ``mask`` (over dims from ``axis``) is
    true; the leading masked dims collapse into one of dynamic size.

    Raises:
        ValueError: for a scalar mask, a mask of unknown rank, or incompatible shapes.
    """
    tensor, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    k = mask.shape.rank
    if k is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions "
                         "are None.  E.g. shape=[None] is ok, but shape=None is not")
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int_attr(axis, "axis")
    rank = tensor.shape.rank
    if rank is not None:
        tensor.shape[axis:axis + k].assert_is_compatible_with(mask.shape)
    coords = where(mask)
    if axis == 0:
        return gather_nd(tensor, coords)
    if k == 1:
        return gather(tensor, coords[:, 0], axis=axis)
    if rank is None:
        raise ValueError("boolean_mask with a multi-dimensional mask and axis > 0 needs a tensor "
                         "of known rank.")
    front = list(range(axis, axis + k)) + list(range(axis)) + list(range(axis + k, rank))
    picked = gather_nd(transpose(tensor, front), coords)
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, picked.shape.rank))
    return transpose(picked, back)

