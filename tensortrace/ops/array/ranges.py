"""Evenly spaced values: range, linspace and one_hot, whose outputs are known while tracing when
their inputs are (unless large)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import OpError, invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._args import arg_error, int_attr, scalar_tensor, static_int
from .._base import (bounded_static, broadcast_shape, check_dtypes, check_index, dtypes_named,
                     graph_error)
from ..math.casting import cast

_RANGE_DTYPES = dtypes_named("bfloat16 float16 float32 float64 int8 int16 int32 int64 uint16 "
                             "uint32 uint64")
# tf.range's dtype without a dtype argument: the widest of its arguments'
_RANGE_HIERARCHY = dtypes_named("int32 int64 float16 bfloat16 float32 float64")


def _num_text(v):
    """A number as TF's C++ streams print it (6 significant digits)."""
    return str(int(v)) if isinstance(v, (int, np.integer)) else f"{float(v):.6g}"


def _range_size(start, limit, delta):
    """The length of ``range(start, limit, delta)``, computed in the tensors' dtype like TF."""
    if delta == 0:
        raise invalid_argument(f"Requires delta != 0: {_num_text(delta)}")
    if delta > 0 and start > limit:
        raise invalid_argument(f"Requires start <= limit when delta > 0: {_num_text(start)}/"
                               f"{_num_text(limit)}")
    if delta < 0 and start < limit:
        raise invalid_argument(f"Requires start >= limit when delta < 0: {_num_text(start)}/"
                               f"{_num_text(limit)}")
    if isinstance(start, np.integer):
        s, l, d = int(start), int(limit), int(delta)
        return (abs(l - s) + abs(d) - 1) // abs(d)
    with np.errstate(all="ignore"):
        size = np.ceil(np.abs((limit - start) / delta))
    if not float(size) <= 2.0**63 - 1:
        raise invalid_argument("Requires ((limit - start) / delta) <= 9223372036854775807")
    return int(size)


@bounded_static
@define_op("Range")
class Range:
    """``start, start + delta, ...`` up to (excluding) ``limit``."""

    def infer(start, limit, delta):
        dtype = check_dtypes("Range", (start, limit, delta), _RANGE_DTYPES,
                             ("start", "limit", "delta"))
        values = [static_value(t) for t in (start, limit, delta)]
        if any(v is None for v in values):
            return TensorSpec([None], dtype)
        try:
            return TensorSpec([_range_size(*(v[()] for v in values))], dtype)
        except OpError as e:  # TF's shape function checks known bounds the same way
            raise graph_error("Range", e.message, [], [], []) from None

    def kernel(start, limit, delta):
        start, limit, delta = start[()], limit[()], delta[()]
        for v in (start, limit, delta):
            if np.ndim(v):
                raise invalid_argument(f"start, limit and delta must be scalars, got shape "
                                       f"{shape_text(np.shape(v))}")
        n = _range_size(start, limit, delta)
        dtype = np.asarray(start).dtype
        if dtype.kind in "iu":
            return (np.arange(n, dtype=np.int64) * int(delta) + int(start)).astype(dtype)
        # TF computes start + i * delta in the output dtype (not a running sum)
        return (start + np.arange(n, dtype=dtype) * delta).astype(dtype, copy=False)

    check = DtypeCheck("Range", _RANGE_DTYPES, 3, attr="Tidx")


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):
    """``[start, start + delta, ...)`` up to ``limit`` (``range(n)`` counts from 0).

    Without ``dtype`` the widest of the arguments' dtypes wins (int32 < int64 < float16 <
    float32 < float64), as in TF: ``range(5)`` is int32, ``range(1, 2.5, 0.5)`` float32.
    """
    if limit is None:
        start, limit = 0, start
    dtype = None if dtype is None else D.as_dtype(dtype)
    args = (start, limit, delta)
    tensors = [a if isinstance(a, Tensor) else scalar_tensor(a, dtype) for a in args]
    if dtype is None:
        for t in tensors:
            if t.dtype not in _RANGE_HIERARCHY:
                raise TypeError(f"tf.range does not accept arguments of dtype {t.dtype.name}")
        dtype = max((t.dtype for t in tensors), key=_RANGE_HIERARCHY.index)
    tensors = [t if t.dtype == dtype else
               cast(t, dtype) if isinstance(a, Tensor) else scalar_tensor(a, dtype)
               for a, t in zip(args, tensors)]
    return bind(Range, *tensors)


_LINSPACE_DTYPES = dtypes_named("bfloat16 float16 float32 float64")


@bounded_static
@define_op("LinSpace")
class LinSpace:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), inserted at
    ``axis`` when start/stop are tensors (``tf.linspace``'s N-d form)."""

    def infer(start, stop, num, axis):
        dtype = check_dtypes("LinSpace", (start, stop), _LINSPACE_DTYPES, ("start", "stop"))
        check_index("LinSpace", num, "num")
        n = static_int(num)
        shape = broadcast_shape(start.shape, stop.shape, "LinSpace")
        if shape.rank is None:
            return TensorSpec(TensorShape(None), dtype)
        dims = shape.dims
        dims.insert(axis % (len(dims) + 1), n if n is None or n >= 0 else None)
        return TensorSpec(dims, dtype)

    def kernel(start, stop, num, axis):
        n = int(num)
        if n < 0:
            raise invalid_argument(f"Requires start <= limit when delta > 0: 1/{n}")
        dtype = start.dtype
        s, e = np.broadcast_arrays(np.asarray(start)[..., None], np.asarray(stop)[..., None])
        if n <= 1:
            out = s[..., :n]
        else:
            step = (e - s) / dtype.type(n - 1)
            out = np.concatenate([s + np.arange(n - 1, dtype=dtype) * step, e], -1)
        return np.moveaxis(out, -1, axis).astype(dtype, copy=False)

    check = DtypeCheck("LinSpace", _LINSPACE_DTYPES, same=2)


@tf_export("linspace")
def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``, both included; N-d ``start`` and
    ``stop`` broadcast and the values run along ``axis``. Integers give float64."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, start.dtype) if not isinstance(stop, Tensor) else stop
    num = convert_to_tensor(num)
    if not num.dtype.is_integer:
        raise TypeError("Argument `tensor` (name: num) must be of type integer. Received `tensor` "
                        f"= {num if static_value(num) is None else static_value(num)} of dtype: "
                        f"{num.dtype}")
    if start.dtype.is_integer:
        wide = D.float64 if start.dtype.size >= 4 else D.float32
        start, stop = (cast(t, wide) for t in (start, stop))
    axis = int_attr(axis)
    rank = broadcast_shape(start.shape, stop.shape, "LinSpace").rank
    if rank is not None and not -rank - 1 <= axis <= rank:
        raise arg_error("ExpandDims", f"Tried to expand dim index {axis} for tensor with {rank} "
                        "dimensions.")
    return bind(LinSpace, start, stop, num, axis=axis)


_ONE_HOT_INDEX = dtypes_named("uint8 int8 int32 int64")


@bounded_static
@define_op("OneHot")
class OneHot:
    """``on_value`` where ``indices`` equals the position along the new ``axis``, else
    ``off_value``."""

    def infer(indices, depth, on_value, off_value, axis):
        check_dtypes("OneHot", (indices,), _ONE_HOT_INDEX, ("indices",))
        dtype = check_dtypes("OneHot", (on_value, off_value), None, ("on_value", "off_value"))
        rank = indices.shape.rank
        if rank is None:
            return TensorSpec(TensorShape(None), dtype)
        if not (axis == -1 or 0 <= axis <= rank):
            raise graph_error("OneHot", f"Expected axis to be -1 or between [0, {rank + 1}).  "
                              f"But received: {axis}", indices.shape)
        d = static_int(depth)
        dims = indices.shape.dims
        dims.insert(rank if axis == -1 else axis, d if d is None or d >= 0 else None)
        return TensorSpec(dims, dtype)

    def kernel(indices, depth, on_value, off_value, axis):
        d = int(depth)
        if d < 0:
            raise invalid_argument(f"depth must be non-negative, got: {d}")
        n = np.ndim(indices)
        if not (axis == -1 or 0 <= axis <= n):
            raise invalid_argument(f"Expected axis to be -1 or between [0, {n + 1}).  But "
                                   f"received: {axis}")
        hot = np.asarray(indices)[..., None] == np.arange(d)
        out = np.where(hot, on_value, off_value)
        return out if axis == -1 else np.moveaxis(out, -1, axis)

    check = DtypeCheck("OneHot", _ONE_HOT_INDEX, 1, attr="TI")


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: ``on_value`` (default 1) where ``indices`` points, ``off_value``
    (default 0) elsewhere, along a new dimension ``axis`` (default last) of size ``depth``.

    Raises:
        TypeError: if ``on_value``, ``off_value`` and ``dtype`` disagree.
    """
    dtype = None if dtype is None else D.as_dtype(dtype)
    values = {}
    for key, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:
            values[key] = _hinted(value, dtype)
            if dtype is not None and values[key].dtype != dtype:
                raise TypeError(f"dtype {values[key].dtype} of {key} does not match dtype "
                                f"parameter {dtype}")
    if dtype is None:
        dtype = next((v.dtype for v in values.values()), D.float32)
    on = values.get("on_value")
    off = values.get("off_value")
    on = on if on is not None else scalar_tensor(1, dtype)
    off = off if off is not None else scalar_tensor(0, dtype)
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of "
                        "off_value")
    try:
        ids = convert_to_tensor(indices, dtype_hint=D.int64)  # TF prefers OneHot's default TI
    except (TypeError, ValueError):  # a composite (ragged) has its own form
        return fallback(one_hot, (indices, depth), {"on_value": on_value, "off_value": off_value,
                                                    "axis": axis, "dtype": dtype})
    return bind(OneHot, ids, scalar_tensor(depth, D.int32), on, off,
                axis=-1 if axis is None else int_attr(axis))


def _hinted(value, dtype):
    """``convert_to_tensor(value, dtype_hint=dtype)``, fast for Python scalars."""
    try:
        return scalar_tensor(value, dtype)
    except (TypeError, ValueError):
        return scalar_tensor(value)
