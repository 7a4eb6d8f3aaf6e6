"""Norm clipping (``tf.clip_by_norm``, ``tf.clip_by_global_norm``, ``tf.linalg.global_norm``) and
``tf.nn.embedding_lookup``, whose ``max_norm`` clips the rows it looks up. All are TF's
compositions of public ops, so gradients flow through them."""

import numpy as np

from ..._export import tf_export
from ...convert import convert_to_tensor
from ..array.creation import ones_like
from ..array.joining import concat, stack
from ..array.reshaping import reshape
from ..array.shapes import shape
from ..indexing.gathering import gather
from ..math.arithmetic import maximum, minimum
from ..math.casting import cast
from ..math.select import where
from ..math.transcendental import sqrt
from ..nn.normalization import l2_loss
from ..reduce import reduce_sum
from ..sparse.indexed_slices import IndexedSlices
from .basic import is_variable



def _values_of(t):
    """What clipping measures and scales: an IndexedSlices' values (TF keeps it sparse)."""
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)


def _like(t, values):
    """``values`` in the form of ``t``: an IndexedSlices at ``t``'s indices, else itself."""
    return IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) \
        else values


@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescale ``t`` so its L2 norm along
    ``axes`` is at most ``clip_norm`` (TF's NaN-safe formulation, gradients included)."""
    values = _values_of(t)
    if isinstance(clip_norm, (int, float, np.integer, np.floating)):
        clip_norm = max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))  # no NaN gradient through sqrt(0)
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    values.shape.assert_is_compatible_with(intermediate.shape)
    return _like(t, intermediate / maximum(l2norm, clip_norm))


def _tensor_list(t_list):
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return [None if t is None else _values_of(t) for t in t_list]


@tf_export("linalg.global_norm")
def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``; None entries are skipped."""
    values = _tensor_list(t_list)
    half_squared_norms = [l2_loss(v) for v in values if v is not None]
    if not half_squared_norms:
        return convert_to_tensor(0.0)
    half_squared_norm = reduce_sum(stack(half_squared_norms))
    return sqrt(half_squared_norm * convert_to_tensor(2.0, half_squared_norm.dtype))


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns:
        ``(list_clipped, global_norm)``; None entries stay None. An infinite or NaN norm makes
        every value NaN, as in TF.
    """
    values = _tensor_list(t_list)
    if use_norm is None:
        use_norm = global_norm(values)
    use_norm = convert_to_tensor(use_norm)
    scale_for_finite = clip_norm * minimum(
        1.0 / use_norm, convert_to_tensor(1.0, use_norm.dtype) / clip_norm)
    scale = scale_for_finite + (use_norm - use_norm)  # NaN for an inf/NaN norm
    clipped = [None if v is None else _like(t, v * cast(scale, v.dtype))
               for t, v in zip(t_list, values)]
    return clipped, use_norm


# --- embedding_lookup ----------------------------------------------------------------------------
@tf_export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of ``params`` picked by ``ids``: ``gather(params, ids)``.

    ``params`` may be a list of tensors sharded along their first dimension (TF's "div"
    partitioning); with ``max_norm`` each looked-up row is clipped to that L2 norm.
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Length of params is currently 0. Need at least one param.")
        params = list(params)
        if len(params) > 1:
            params = [convert_to_tensor(p) for p in params]
            result = _div_lookup(params, convert_to_tensor(ids))
            return _clip_rows(result, ids, max_norm)
        params = params[0]
    if is_variable(params):
        params = params.value()
    result = gather(params, ids)
    return _clip_rows(result, ids, max_norm)


def _div_lookup(params, ids):
    """Gather from each shard its share of ``ids`` and put the rows back in ``ids`` order."""
    sizes = [p.shape.dims[0] for p in params]
    if None in sizes:
        raise ValueError("embedding_lookup over sharded params needs each shard's first "
                         "dimension to be known")
    total, n = sum(sizes), len(params)
    per, extras = total // n, total % n
    starts = np.cumsum([0] + [per + 1 if i < extras else per for i in range(n)])
    flat = reshape(ids, [-1])
    rows = concat(params, 0) if all(s == e - b for s, b, e in zip(sizes, starts, starts[1:])) \
        else None
    if rows is None:
        raise ValueError("embedding_lookup shards must follow TF's div partitioning")
    out = gather(rows, flat)
    return reshape(out, concat([shape(ids), shape(out)[1:]], 0))


def _clip_rows(result, ids, max_norm):
    if max_norm is None:
        return result
    ids_rank = convert_to_tensor(ids).shape.rank
    axes = list(range(ids_rank, result.shape.rank))
    return clip_by_norm(result, max_norm, axes=axes) if axes else result
