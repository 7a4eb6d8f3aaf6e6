"""``tf.nn.embedding_lookup_sparse`` and ``tf.nn.safe_embedding_lookup_sparse``: rows of an
embedding table picked by the ids of a SparseTensor (or 2-D RaggedTensor), weighted and combined
per row, as TF's embedding_ops compose them from public ops (so they trace and differentiate)."""

from .. import dtypes as D
from .._export import tf_export
from ..convert import convert_to_tensor
from ..ops.array.creation import ones_like, zeros_like
from ..ops.array.joining import concat
from ..ops.array.reshaping import expand_dims, reshape
from ..ops.array.shapes import shape as tf_shape
from ..ops.indexing.gathering import gather
from ..ops.indexing.segment import segment_sum
from ..ops.indexing.sorting import unique
from ..ops.math.arithmetic import divide_no_nan
from ..ops.math.casting import cast
from ..ops.math.compare import greater, greater_equal
from ..ops.math.select import where
from ..ops.math.transcendental import sqrt
from ..ops.reduce import reduce_prod
from ..ops.utility.clipping import embedding_lookup
from ..ragged.ragged_tensor import RaggedTensor
from ..shapes import TensorShape
from ..tensor import Tensor
from ..variables import Variable
from . import functions as S
from .sparse_tensor import SparseTensor

_COMBINERS = ("mean", "sqrtn", "sum")


def _params_list(params):
    if isinstance(params, tuple):
        params = list(params)
    return params if isinstance(params, list) else [params]


def _combine_weighted(embeddings, idx, segment_ids, weights, combiner):
    """``embeddings[idx] * weights`` summed per segment, then scaled as ``combiner`` says."""
    embeddings = gather(embeddings, idx)
    original = embeddings.dtype
    if original in (D.float16, D.bfloat16):  # TF sums low precision in float32
        embeddings = cast(embeddings, D.float32)
    if weights.dtype != embeddings.dtype:
        weights = cast(weights, embeddings.dtype)
    rank = embeddings.shape.rank
    if rank is not None:
        weights = reshape(weights, concat([tf_shape(weights), [1] * (rank - 1)], 0))
    else:
        weights = reshape(weights, concat([tf_shape(weights), ones_like(
            tf_shape(embeddings)[1:])], 0))
    total = segment_sum(embeddings * weights, segment_ids)
    if combiner == "mean":
        total = divide_no_nan(total, segment_sum(weights, segment_ids))
    elif combiner == "sqrtn":
        total = divide_no_nan(total, sqrt(segment_sum(weights * weights, segment_ids)))
    return cast(total, original) if total.dtype != original else total


def _lookup(params, sp_ids, sp_weights, combiner, max_norm):
    """TF's embedding_lookup_sparse_impl: rows of ``sp_ids`` combined over their ids."""
    segment_ids, ids = sp_ids.indices[:, 0], sp_ids.values
    if len(params) == 1 and not isinstance(params[0], (Tensor, Variable)):
        params = [convert_to_tensor(params[0])]
    if len(params) == 1 and max_norm is None and sp_weights is None:
        table, idx = params[0], ids
        if isinstance(table, Variable):
            table = table.value()
    else:
        unique_ids, idx = unique(ids)
        table = embedding_lookup(params, unique_ids, max_norm=max_norm)
    if sp_weights is not None:
        return _combine_weighted(table, idx, cast(segment_ids, D.int32), sp_weights.values,
                                 combiner)
    if segment_ids.dtype not in (D.int32, D.int64):
        segment_ids = cast(segment_ids, D.int32)
    reducer = {"sum": S.segment_sum, "mean": S.segment_mean, "sqrtn": S.segment_sqrt_n}
    return reducer[combiner](table, idx, segment_ids)


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None, allow_fast_lookup=False):
    """For each row of the 2-D ``sp_ids``, the rows of ``params`` its ids pick, weighted by
    ``sp_weights`` (1 when None) and combined by ``combiner`` ("mean" by default, "sqrtn",
    "sum"); ``params`` may be a list of shards ("div" partitioning). Rows after the last one
    holding an id are not in the result, as in TF.

    Raises:
        ValueError: an unknown ``combiner``.
        TypeError: ``sp_ids`` not a SparseTensor/RaggedTensor, or ``sp_weights`` neither None
            nor one.
    """
    if combiner is None:
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _params_list(params)
    if isinstance(sp_ids, RaggedTensor) and (sp_weights is None or
                                             isinstance(sp_weights, RaggedTensor)):
        sp_ids = sp_ids.to_sparse()
        sp_weights = None if sp_weights is None else sp_weights.to_sparse()
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor,"
                            f"got {type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    return _lookup(params, sp_ids, sp_weights, combiner, max_norm)


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False):
    """``embedding_lookup_sparse`` that drops ids < 0 (and, unless ``combiner`` is "sum",
    weights <= 0) and gives each row left without ids the row of ``default_id`` (zeros when
    None). ``sparse_ids`` may have rank > 2: the result has its leading dimensions.

    Raises:
        ValueError: ``embedding_weights`` is None or empty.
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    embedding_weights = _params_list(embedding_weights)
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [w if isinstance(w, Variable) and dtype in (None, w.dtype)
                         else convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    original_shape = sparse_ids.dense_shape
    rank = sparse_ids.dense_shape.shape.dims[0]
    ids = S.reshape(sparse_ids, [reduce_prod(original_shape[:-1]), original_shape[-1]])
    weights = None if sparse_weights is None else \
        SparseTensor(ids.indices, sparse_weights.values, ids.dense_shape)
    ids, weights = _retain(ids, weights, greater_equal(ids.values, 0))
    if combiner != "sum" and weights is not None:
        ids, weights = _retain(ids, weights, greater(weights.values, 0))
    ids, is_row_empty = S.fill_empty_rows(ids, default_id or 0)
    if weights is not None:
        weights, _ = S.fill_empty_rows(weights, 1.0)
    result = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner,
                                     max_norm=max_norm)
    if default_id is None:
        empty = reshape(is_row_empty, [-1] + [1] * (result.shape.rank - 1)) \
            if result.shape.rank is not None else expand_dims(is_row_empty, -1)
        result = where(empty, zeros_like(result), result)
    out = reshape(result, concat([cast(original_shape[:-1], D.int32), tf_shape(result)[1:]], 0))
    lead = TensorShape(None if rank is None else [None] * (rank - 1))
    out.set_shape(lead.concatenate(result.shape[1:]))
    return out


def _retain(ids, weights, keep):
    ids = S.retain(ids, keep)
    return ids, None if weights is None else S.retain(weights, keep)
