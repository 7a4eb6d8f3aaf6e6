"""Segment reductions: the Segment* ops (``tf.math.segment_sum`` ...: rows reduced per sorted
segment id) and the UnsortedSegment* ops (any id order, a given number of segments, negative ids
dropped)."""

import numpy as np

from ... import dtypes as D
from ..._export import export_function
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._args import static_int
from .._base import INDEX, NUMERIC, REAL, check_dtypes
from ._util import INDEX16, position

# kind -> (ufunc, value of an empty segment in the unsorted ops, allowed dtypes)
_REDUCERS = {
    "Sum": (np.add, lambda dt: 0, NUMERIC),
    "Prod": (np.multiply, lambda dt: 1, NUMERIC),
    "Max": (np.maximum, lambda dt: D.from_numpy(dt).min, REAL),
    "Min": (np.minimum, lambda dt: D.from_numpy(dt).max, REAL),
}


def _segment_reduce(data, ids, rows, kind):
    """Reduce the rows of ``data`` (flattened to match ``ids``) into ``rows`` segments."""
    ufunc, empty, _ = _REDUCERS[kind]
    flat_ids = ids.reshape(-1)
    flat = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
    keep = flat_ids >= 0
    if not keep.all():
        flat_ids, flat = flat_ids[keep], flat[keep]
    out = np.full((rows,) + data.shape[ids.ndim:], empty(data.dtype), dtype=data.dtype)
    ufunc.at(out, flat_ids, flat)
    return out


def _unsorted_segment(kind):
    """UnsortedSegment<kind> and ``tf.math.unsorted_segment_<kind>``."""
    op_name = f"UnsortedSegment{kind}"

    def infer(data, segment_ids, num_segments):
        check_dtypes(op_name, (segment_ids,), INDEX16, ("segment_ids",))
        check_dtypes(op_name, (num_segments,), INDEX16, ("num_segments",))
        n = static_int(num_segments)  # None too for a non-scalar: the kernel's error
        if data.shape.rank is None or segment_ids.shape.rank is None:
            return TensorSpec(None, data.dtype)
        rest = data.shape.dims[segment_ids.shape.rank:]
        return TensorSpec([n] + rest, data.dtype)

    def kernel(data, segment_ids, num_segments):
        n = int(num_segments)
        if n < 0:
            raise invalid_argument(f"Input num_segments == {n} must not be negative.")
        if np.shape(data)[:np.ndim(segment_ids)] != np.shape(segment_ids):
            raise invalid_argument(f"data.shape = {shape_text(np.shape(data))} does not start "
                                   f"with segment_ids.shape = "
                                   f"{shape_text(np.shape(segment_ids))}")
        ids = np.asarray(segment_ids)
        if ids.size and ids.max() >= n:
            pos = np.unravel_index(int(np.argmax(ids >= n)), ids.shape)
            raise invalid_argument(f"segment_ids[{position(pos)}] = {ids[pos]} is out of range "
                                   f"[0, {n})")
        return _segment_reduce(np.asarray(data), ids, n, kind)

    opdef = register(OpDef(op_name, infer, kernel, check=DtypeCheck(
        op_name, _REDUCERS[kind][2], 1, then=DtypeCheck(
            op_name, INDEX16, 1, first=1, attr="Tindices",
            then=DtypeCheck(op_name, INDEX, 1, first=2, attr="Tnumsegments")))))

    def fn(data, segment_ids, num_segments, name=None):
        return bind(opdef, convert_to_tensor(data), convert_to_tensor(segment_ids),
                    convert_to_tensor(num_segments))

    name = f"unsorted_segment_{kind.lower()}"
    return export_function(fn, f"math.{name}", doc=f"``tf.math.{name}``: the {kind.lower()} of "
                           f"``data`` rows per segment id; negative ids are dropped.")


def _sorted_segment_runs(ids):
    """Validate sorted segment ids as TF's SegmentReduction does; returns the output rows."""
    if ids.ndim != 1:
        raise invalid_argument("segment_ids should be a vector.")
    if not ids.size:
        return 0
    rows = int(ids[-1]) + 1
    if ids[-1] < 0:
        raise invalid_argument("segment ids must be >= 0")
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    run_ids = ids[starts]
    decreasing = np.r_[run_ids[1:] < run_ids[:-1], False]
    outside = (run_ids < 0) | (run_ids >= rows)
    bad = decreasing | outside
    if bad.any():
        r = int(np.argmax(bad))
        if decreasing[r]:
            raise invalid_argument("segment ids are not increasing")
        raise invalid_argument(f"Segment id {run_ids[r]} out of range [0, {rows}), possibly "
                               f"because 'segment_ids' input is not sorted.")
    return rows


def _sorted_segment(kind):
    """Segment<kind> and ``tf.math.segment_<kind>``."""
    op_name = f"Segment{kind}"

    def infer(data, segment_ids):
        check_dtypes(op_name, (segment_ids,), INDEX16, ("segment_ids",))
        if data.shape.rank is None:
            return TensorSpec(None, data.dtype)
        return TensorSpec([None] + data.shape.dims[1:], data.dtype)

    def kernel(data, segment_ids):
        ids = np.asarray(segment_ids)
        data = np.asarray(data)
        if ids.ndim == 1 and (data.ndim == 0 or ids.shape[0] != data.shape[0]):
            raise invalid_argument("segment_ids should be the same size as dimension 0 of input.")
        rows = _sorted_segment_runs(ids)
        counts = np.bincount(ids, minlength=rows).reshape((rows,) + (1,) * (data.ndim - 1))
        if kind == "Mean":
            total = _segment_reduce(data, ids, rows, "Sum")
            with np.errstate(all="ignore"):
                mean = total / np.maximum(counts, 1)
            return (np.trunc(mean) if data.dtype.kind in "iu" else mean).astype(data.dtype)
        out = _segment_reduce(data, ids, rows, kind)
        if kind in ("Max", "Min"):
            out[np.broadcast_to(counts == 0, out.shape)] = 0  # TF leaves empty segments at 0
        return out

    allowed = NUMERIC if kind == "Mean" else _REDUCERS[kind][2]
    opdef = register(OpDef(op_name, infer, kernel, check=DtypeCheck(
        op_name, allowed, 1, then=DtypeCheck(op_name, INDEX16, 1, first=1, attr="Tindices"))))

    def fn(data, segment_ids, name=None):
        return bind(opdef, convert_to_tensor(data), convert_to_tensor(segment_ids))

    name = f"segment_{kind.lower()}"
    return export_function(fn, f"math.{name}", doc=f"``tf.math.{name}``: the {kind.lower()} of "
                           f"``data`` rows per sorted segment id (empty segments give 0).")


unsorted_segment_sum = _unsorted_segment("Sum")
unsorted_segment_prod = _unsorted_segment("Prod")
unsorted_segment_max = _unsorted_segment("Max")
unsorted_segment_min = _unsorted_segment("Min")
segment_sum = _sorted_segment("Sum")
segment_prod = _sorted_segment("Prod")
segment_max = _sorted_segment("Max")
segment_min = _sorted_segment("Min")
segment_mean = _sorted_segment("Mean")
