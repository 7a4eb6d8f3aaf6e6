"""``tf.sparse.cross`` and ``tf.sparse.cross_hashed``: crosses of sparse and dense features
(TF's SparseCrossV2 and SparseCross ops; sparse inputs go first, as TF passes them)."""

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..ops.math.casting import cast
from ..ops.sparse.cross import SparseCross, SparseCrossV2
from ..tensor import Tensor
from .sparse_tensor import SparseTensor

_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's hash_key when none is given


def _split_inputs(inputs, message):
    """The op's inputs: sparse indices, values (int64 or string), shapes, then dense ones."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError(message)
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, SparseTensor)]
    values = [sp.values if sp.values.dtype == D.string else cast(sp.values, D.int64)
              for sp in sparse]
    dense = [d if d.dtype == D.string else cast(d, D.int64) for d in dense]
    ints = any(v.dtype != D.string for v in values + dense)
    return ([sp.indices for sp in sparse] + values + [sp.dense_shape for sp in sparse] + dense,
            len(sparse), ints)


@tf_export("sparse.cross")
def cross(inputs, name=None, separator=None):
    """String crosses of the features of each row, joined by ``separator`` (default ``_X_``)."""
    flat, n, _ = _split_inputs(inputs, "All inputs must be Tensor or SparseTensor.")
    sep = convert_to_tensor("_X_" if separator is None else separator, D.string)
    ix, vals, shape = bind(SparseCrossV2, *flat, sep, N=n)
    return SparseTensor(ix, vals, shape)


@tf_export("sparse.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses of the features of each row: FarmHash FingerprintCat64 chains from
    ``hash_key``, modulo ``num_buckets`` when it is positive (int64 values)."""
    flat, n, ints = _split_inputs(inputs, "All inputs must be SparseTensors")
    ix, vals, shape = bind(SparseCross, *flat, N=n, hashed_output=True,
                           num_buckets=int(num_buckets), hash_key=hash_key or _DEFAULT_HASH_KEY,
                           out_type=D.int64, internal_type=D.int64 if ints else D.string)
    return SparseTensor(ix, vals, shape)
