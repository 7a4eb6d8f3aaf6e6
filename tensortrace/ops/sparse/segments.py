"""``tf.sparse.segment_sum/mean/sqrt_n``: segment reductions of the rows of ``data`` picked by
``indices`` (TF's SparseSegment* ops, with and without ``num_segments``)."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._args import static_int
from .._base import INDEX, REAL, check_dtypes

#: TF's order of the mean and sqrt-n ops' allowed dtypes.
_FLOAT = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64) if d)


def _reduce(data, indices, segment_ids, num_segments, kind):
    data, indices = np.asarray(data), np.asarray(indices, np.int64).reshape(-1)
    ids = np.asarray(segment_ids, np.int64).reshape(-1)
    if indices.size != ids.size:
        raise errors.invalid_argument(f"segment_ids and indices should have same size. "
                                      f"segment_ids.shape = [{ids.size}] indices.shape = "
                                      f"[{indices.size}]")
    rows = data.shape[0] if data.ndim else 0
    bad = (indices < 0) | (indices >= rows)
    if bad.any():
        i = int(np.nonzero(bad)[0][0])
        raise errors.invalid_argument(f"Bad: indices[{i}] == {indices[i]} out of range "
                                      f"[0, {rows})")
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise errors.invalid_argument("segment ids are not increasing")
    n = (int(ids[-1]) + 1 if ids.size else 0) if num_segments is None else int(num_segments)
    if ids.size and ids[-1] >= n:
        raise errors.invalid_argument(f"segment ids must be < num_segments")
    out = np.zeros((n,) + data.shape[1:], np.float64 if data.dtype.kind == "f" else data.dtype)
    np.add.at(out, ids, data[indices])
    if kind != "Sum":
        counts = np.bincount(ids, minlength=n).astype(np.float64)
        counts = counts.reshape((n,) + (1,) * (data.ndim - 1))
        scale = np.sqrt(counts) if kind == "SqrtN" else counts
        out = np.divide(out, scale, out=np.zeros_like(out), where=scale > 0)
    return out.astype(data.dtype)


def _record(kind, allowed, with_num):
    name = f"SparseSegment{kind}" + ("WithNumSegments" if with_num else "")

    def infer(data, indices, segment_ids, *num_segments, sparse_gradient=False):
        check_dtypes(name, (data,), allowed, ("data",))
        check_dtypes(name, (indices,), INDEX, ("indices",))
        n = static_int(num_segments[0]) if num_segments else None
        tail = data.shape[1:] if data.shape.rank is not None else None
        return TensorSpec(None if tail is None else [n] + tail.as_list(), data.dtype)

    def kernel(data, indices, segment_ids, *num_segments, sparse_gradient=False):
        return _reduce(data, indices, segment_ids,
                       num_segments[0] if num_segments else None, kind)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, allowed, 1),
                          doc=f"{name}: segment {kind.lower()} of the rows of data at indices"))


SparseSegmentSum = _record("Sum", REAL, False)
SparseSegmentSumWithNumSegments = _record("Sum", REAL, True)
SparseSegmentMean = _record("Mean", _FLOAT, False)
SparseSegmentMeanWithNumSegments = _record("Mean", _FLOAT, True)
SparseSegmentSqrtN = _record("SqrtN", _FLOAT, False)
SparseSegmentSqrtNWithNumSegments = _record("SqrtN", _FLOAT, True)
