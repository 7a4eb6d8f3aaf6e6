"""TF's sparse feature crosses: SparseCross (joined strings, or FarmHash ``FingerprintCat64``
chains modulo ``num_buckets``) and SparseCrossV2 (joined with a separator input). Each batch row
crosses every feature of every input (sparse inputs first, then dense ones; the last input
varies fastest); the inputs arrive as N index matrices, N values, N shapes, then the dense
matrices."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._farmhash import fingerprint64, fingerprint_cat64
from ...registry import define_op
from ...tensor import TensorSpec
from ._common import as_matrix

_I64 = D.int64
_INT64_MAX = (1 << 63) - 1


def _text(value):
    return value if isinstance(value, bytes) else str(int(value)).encode()


def _columns(inputs, n):
    """(batch size, columns): per column, a function from a batch row to its features."""
    indices = [as_matrix(i) for i in inputs[:n]]
    values = [np.asarray(v).reshape(-1) for v in inputs[n:2 * n]]
    shapes = [np.asarray(s, np.int64).reshape(-1) for s in inputs[2 * n:3 * n]]
    dense = [np.asarray(d) for d in inputs[3 * n:]]
    for i, (ix, vals, shape) in enumerate(zip(indices, values, shapes)):
        if ix.shape[1] != 2:
            raise errors.invalid_argument(f"Expected D2 of index to be 2 got {ix.shape[1]} at "
                                          f"position {i}")
        if vals.shape[0] != ix.shape[0]:
            raise errors.invalid_argument(f"Expected size of values to be {ix.shape[0]} but got "
                                          f"{vals.shape[0]} at position {i}")
        if shape.size != 2:
            raise errors.invalid_argument(f"Expected size of shapes to be 2 got {shape.size} at "
                                          f"position {i}")
    for i, d in enumerate(dense):
        if d.ndim != 2:
            raise errors.invalid_argument(f"Dense inputs should be a matrix but received shape "
                                          f"{list(d.shape)} at position {i}")
    batch = int(shapes[0][0]) if shapes else (dense[0].shape[0] if dense else 0)
    for i, shape in enumerate(shapes):
        if shape[0] != batch:
            raise errors.invalid_argument(f"Expected batch size {batch} got {shape[0]} at "
                                          f"position {i}")
    for i, d in enumerate(dense):
        if d.shape[0] != batch:
            raise errors.invalid_argument(f"Expected batch size {batch} got {d.shape[0]} at "
                                          f"dense tensor {i}")
    columns = []
    for ix, vals in zip(indices, values):
        counts = np.bincount(ix[:, 0], minlength=batch)[:batch] if ix.size else \
            np.zeros(batch, np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if batch else counts
        columns.append([vals[s:s + c] for s, c in zip(starts.tolist(), counts.tolist())])
    columns += [list(d) for d in dense]
    return batch, columns


def _cross(inputs, n, combine):
    """The crossed features of every batch row through ``combine(features)``: TF's indices,
    values and dense shape."""
    batch, columns = _columns(inputs, n)
    indices, values, widest = [], [], 0
    for b in range(batch):
        rows = [col[b] for col in columns]
        sizes = [len(r) for r in rows]
        count = int(np.prod(sizes)) if rows else 0
        for k in range(count):
            picks, rest = [], k
            for size in reversed(sizes):  # the last input varies fastest
                picks.append(rest % size)
                rest //= size
            features = [row[p] for row, p in zip(rows, reversed(picks))]
            indices.append((b, k))
            values.append(combine(features))
        widest = max(widest, count)
    return (np.asarray(indices, np.int64).reshape(-1, 2), values,
            np.asarray([batch, widest], np.int64))


def _hash(value):
    """A feature's hash in SparseCross: a string's Fingerprint64, an int64 itself."""
    if isinstance(value, (bytes, str)):
        return int(fingerprint64([value])[0])
    return int(value) & ((1 << 64) - 1)


def _infer(inputs, n, out_dtype):
    return TensorSpec([None, 2], _I64), TensorSpec([None], out_dtype), TensorSpec([2], _I64)


@define_op("SparseCross")
class SparseCross:
    """Crosses of sparse and dense int64/string features: strings joined by ``_X_``, or with
    ``hashed_output`` FingerprintCat64 chains from ``hash_key`` (mod ``num_buckets`` when > 0,
    else mod 2**63 - 1)."""

    def infer(*inputs, N, hashed_output, num_buckets, hash_key, out_type, internal_type):
        return _infer(inputs, N, out_type)

    def kernel(*inputs, N, hashed_output, num_buckets, hash_key, out_type, internal_type):
        if hashed_output:
            def combine(features):
                h = hash_key & ((1 << 64) - 1)
                for f in features:
                    h = fingerprint_cat64(h, _hash(f))
                return h % num_buckets if num_buckets > 0 else h % _INT64_MAX

            ix, vals, shape = _cross(inputs, N, combine)
            return ix, np.asarray(vals, np.uint64).astype(np.int64), shape
        ix, vals, shape = _cross(inputs, N, lambda fs: b"_X_".join(_text(f) for f in fs))
        return ix, np.asarray(vals, object), shape


@define_op("SparseCrossV2")
class SparseCrossV2:
    """String crosses of sparse and dense features joined by the ``sep`` input."""

    def infer(*inputs, N):
        return _infer(inputs, N, D.string)

    def kernel(*inputs, N):
        sep = inputs[-1]
        sep = sep if isinstance(sep, bytes) else np.asarray(sep, object).item()
        ix, vals, shape = _cross(inputs[:-1], N, lambda fs: sep.join(_text(f) for f in fs))
        return ix, np.asarray(vals, object), shape
