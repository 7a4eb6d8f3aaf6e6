"""Slicing: StridedSlice (and its trace-time value rule), Slice, Roll (a rotation: two slices
swapped), and StridedSliceGrad, the write-back of a strided slice that its gradient needs."""

import numpy as np

from ... import errors
from ..._export import tf_export
from ...context import bind
from ...convert import constant, convert_to_tensor
from ...errors import invalid_argument
from ...graph.ir import STATIC_LIMIT
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._args import known_values, shape_values, static_ints
from .._base import INDEX, check_dtypes, graph_error
from ..math.operands import same_dtype_operands
from ._util import INDEX16, result

# --- StridedSlice ------------------------------------------------------------------------------
_REAL, _NEW, _ELLIPSIS = "real", "new", "ellipsis"
_UNKNOWN = object()  # a begin/end value known only at run time


def _layout(rank, n, ellipsis_mask, new_axis_mask):
    """The kind of each of the ``n`` sparse spec entries, and how many dims the ellipsis spans."""
    if ellipsis_mask & (ellipsis_mask - 1):
        raise invalid_argument("Multiple ellipses in slice spec not allowed")
    kinds = [_ELLIPSIS if ellipsis_mask & (1 << i) else _NEW if new_axis_mask & (1 << i) else _REAL
             for i in range(n)]
    real = kinds.count(_REAL)
    if rank == 0 and real:
        raise invalid_argument("Attempting to slice scalar input.")
    if real > rank:
        raise invalid_argument(f"Index out of range using input dim {rank}; input has only "
                               f"{rank} dims")
    return kinds, rank - real


def _shrink_index(b, size, dim):
    fwd = b + size if b < 0 else b
    if not 0 <= fwd < size:
        raise invalid_argument(f"slice index {fwd} of dimension {dim} out of bounds.")
    return fwd


def strided_index(shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """The NumPy basic index equal to a StridedSlice spec (lists of ints) on ``shape``.

    Python slices clamp exactly as TF canonicalizes begin/end, so non-shrink entries map to
    ``slice`` objects directly; shrink entries are bounds-checked as TF does.

    Raises:
        InvalidArgumentError: with TF's messages (without the ``[Op:...]`` tag).
    """
    kinds, span = _layout(len(shape), len(begin), ellipsis_mask, new_axis_mask)
    index, dim = [], 0
    for i, kind in enumerate(kinds):
        if kind is _ELLIPSIS:
            index.append(Ellipsis)
            dim += span
        elif kind is _NEW:
            index.append(None)
        else:
            bit, step = 1 << i, strides[i]
            if step == 0:
                raise invalid_argument(f"strides[{dim}] must be non-zero")
            if shrink_axis_mask & bit:
                if step < 0:
                    raise invalid_argument("only stride 1 allowed on non-range indexing.")
                index.append(_shrink_index(begin[i], shape[dim], dim))
            else:
                index.append(slice(None if begin_mask & bit else begin[i],
                                   None if end_mask & bit else end[i], step))
            dim += 1
    return tuple(index)


def _strided_dims(shape, n, begin_v, end_v, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """Output dims of a StridedSlice whose begin/end values may be unknown (None)."""
    kinds, span = _layout(len(shape), n, ellipsis_mask, new_axis_mask)
    begin_v = None if begin_v is None else begin_v.tolist()
    end_v = None if end_v is None else end_v.tolist()
    out, dim = [], 0
    for i, kind in enumerate(kinds):
        if kind is _ELLIPSIS:
            out += shape[dim:dim + span]
            dim += span
            continue
        if kind is _NEW:
            out.append(1)
            continue
        bit, step, size = 1 << i, strides[i], shape[dim]
        if step == 0:
            raise invalid_argument(f"strides[{dim}] must be non-zero")
        if shrink_axis_mask & bit:
            if step < 0:
                raise invalid_argument("only stride 1 allowed on non-range indexing.")
            if begin_v is not None and end_v is not None and size is not None:
                _shrink_index(begin_v[i], size, dim)  # TF checks only when both are known
        else:
            b = None if begin_mask & bit else (_UNKNOWN if begin_v is None else begin_v[i])
            e = None if end_mask & bit else (_UNKNOWN if end_v is None else end_v[i])
            if size is None or b is _UNKNOWN or e is _UNKNOWN:
                out.append(None)
            else:
                out.append(len(range(*slice(b, e, step).indices(size))))
        dim += 1
    return out + shape[dim:]


@define_op("StridedSlice")
class StridedSlice:
    """``x[begin:end:strides]`` per dimension, with TF's masks for omitted bounds, ``...``,
    ``tf.newaxis`` and indices that drop their dimension."""

    check = DtypeCheck("StridedSlice", INDEX16, 3, first=1, attr="Index")

    def infer(x, begin, end, strides, **masks):
        check_dtypes("StridedSlice", (begin, end, strides), INDEX16, ("begin", "end", "strides"))
        b_shape = begin.shape
        if b_shape.rank not in (None, 1):
            raise graph_error("StridedSlice", f"Shape must be rank 1 but is rank {b_shape.rank}",
                              x.shape, begin.shape, end.shape, strides.shape)
        shapes = [t.shape for t in (begin, end, strides)]
        if all(s.is_fully_defined() for s in shapes) and \
                not shapes[0].as_list() == shapes[1].as_list() == shapes[2].as_list():
            raise graph_error("StridedSlice", "Expected begin, end, and strides to be 1D equal "
                              f"size tensors, but got shapes {shape_text(shapes[0])}, "
                              f"{shape_text(shapes[1])}, and {shape_text(shapes[2])} instead.",
                              x.shape, begin.shape, end.shape, strides.shape)
        step_v = static_value(strides)
        n = b_shape.dims[0] if b_shape.rank == 1 else None
        if x.shape.rank is None or step_v is None or n is None:
            return TensorSpec(None, x.dtype)
        try:
            dims = _strided_dims(x.shape.dims, n, static_value(begin), static_value(end),
                                 step_v.tolist(), **masks)
        except errors.InvalidArgumentError as e:
            raise graph_error("StridedSlice", e.message, x.shape, begin.shape, end.shape,
                              strides.shape) from None
        return TensorSpec(dims, x.dtype)

    def kernel(x, begin, end, strides, **masks):
        if masks["shrink_axis_mask"] == 1 and begin.shape == (1,) and not (
                masks["begin_mask"] | masks["end_mask"] | masks["ellipsis_mask"]
                | masks["new_axis_mask"]) and x.ndim and strides[0] > 0:
            b, n = int(begin[0]), x.shape[0]  # x[i]: the loop body's read, worth a fast path
            if -n <= b < n:
                return result(x[b])
        if not (begin.ndim == 1 and begin.shape == end.shape == strides.shape):
            raise invalid_argument(
                f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{shape_text(begin.shape)}, {shape_text(end.shape)}, and "
                f"{shape_text(strides.shape)} instead.")
        index = strided_index(np.shape(x), begin.tolist(), end.tolist(), strides.tolist(),
                              **masks)
        return result(x[index])

    def static(x, begin, end, strides, **masks):
        """The trace-time value: folded when the input is known, and also when it is a partially
        known shape whose sliced entries are known (``tf.shape(x)[1]`` with x's dim 1 static), so
        that shape maths built on it folds as in TF's shape inference."""
        spec = [static_value(t) for t in (begin, end, strides)]
        if any(v is None for v in spec):
            return None
        value = static_value(x)
        try:
            if value is not None:
                if value.size > STATIC_LIMIT:
                    return None
                with np.errstate(all="ignore"):
                    return StridedSlice.kernel(value, *spec, **masks)
            if x.dtype not in INDEX:
                return None
            base = known_values(x)
            if base is None:
                return None
            picked = base[strided_index(base.shape, *(v.tolist() for v in spec), **masks)]
            flat = np.asarray(picked, dtype=object).reshape(-1)
            if any(v is None for v in flat):
                return None
            return np.array(np.asarray(picked, dtype=object).tolist(), dtype=x.dtype._np)
        except Exception:  # noqa: BLE001 - the op raises when it runs, with the runtime's error
            return None


@tf_export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice``: NumPy-style slicing with begin/end/strides tensors and bit masks."""
    x = convert_to_tensor(input_)
    step = strides  # the arguments stay as given: an eager error's text depends on them
    if strides is None:
        first = begin if isinstance(begin, Tensor) else same_dtype_operands(begin)[0]
        n = first.shape.dims[0] if first.shape.rank == 1 else None
        if n is None:
            raise ValueError("strided_slice needs `strides` when `begin` has an unknown length.")
        step = constant(np.ones(n, first.dtype._np))
    return bind(StridedSlice, x, *same_dtype_operands(begin, end, step), begin_mask=int(begin_mask),
                end_mask=int(end_mask), ellipsis_mask=int(ellipsis_mask),
                new_axis_mask=int(new_axis_mask), shrink_axis_mask=int(shrink_axis_mask))


# --- Slice -------------------------------------------------------------------------------------
@define_op("Slice")
class Slice:
    """``x[begin : begin + size]`` per dimension; size -1 means "to the end"."""

    check = DtypeCheck("Slice", INDEX, 2, first=1, attr="Index")

    def infer(x, begin, size):
        check_dtypes("Slice", (begin, size), INDEX, ("begin", "size"))
        begin_v, rank = known_values(begin), x.shape.rank
        size_v = shape_values(size)  # partly known sizes ([tf.shape(x)[0], 2]) keep their dims
        if size_v is None:
            return TensorSpec(None if rank is None else [None] * rank, x.dtype)
        dims = []
        for i, s in enumerate(size_v):
            d = x.shape.dims[i] if rank is not None and i < rank else None
            if s is None:
                dims.append(None)
            elif s != -1:
                dims.append(s)
            elif begin_v is None or begin_v[i] is None or d is None:
                dims.append(None)
            elif begin_v[i] > d:
                raise graph_error("Slice", f"Negative dimension size caused by subtracting "
                                  f"{begin_v[i]} from {d}", x.shape, begin.shape, size.shape)
            else:
                dims.append(d - int(begin_v[i]))
        return TensorSpec(dims, x.dtype)

    def kernel(x, begin, size):
        shape = np.shape(x)
        if begin.shape != (len(shape),) or size.shape != (len(shape),):
            raise invalid_argument(
                f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but "
                f"got shapes {shape_text(begin.shape)} and {shape_text(size.shape)} instead.")
        index = []
        for i, (b, s, d) in enumerate(zip(begin.tolist(), size.tolist(), shape)):
            if not 0 <= b <= d:
                raise invalid_argument(f"Expected begin[{i}] in [0, {d}], but got {b}")
            s = d - b if s == -1 else s
            if not 0 <= s <= d - b:
                raise invalid_argument(f"Expected size[{i}] in [0, {d - b}], but got {s}")
            index.append(slice(b, b + s))
        return result(x[tuple(index)])


@tf_export("slice")
def slice_(input_, begin, size, name=None):
    """``tf.slice``: the block of ``input_`` starting at ``begin`` of extent ``size``."""
    starts, sizes = same_dtype_operands(begin, size)  # arguments kept as given (messages)
    return bind(Slice, convert_to_tensor(input_), starts, sizes)


# --- Roll --------------------------------------------------------------------------------------
@define_op("Roll")
class Roll:
    """Elements shifted along ``axis`` (an attr here) by ``shift`` with wrap-around."""

    check = DtypeCheck("Roll", INDEX, 1, first=1, attr="Tshift")

    def infer(x, shift, axis):
        check_dtypes("Roll", (shift,), INDEX, ("shift",))
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, shift, axis):
        if np.ndim(x) == 0:
            raise invalid_argument("input must be 1-D or higher")
        shifts = np.reshape(shift, -1).tolist()
        axes = list(axis) if isinstance(axis, tuple) else [axis]
        if np.ndim(shift) != (1 if isinstance(axis, tuple) else 0) or len(shifts) != len(axes):
            raise invalid_argument("shift and axis must have the same size")
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise invalid_argument(f"axis {a + x.ndim if a < 0 else a} is out of range")
        return np.roll(x, shifts, axes)


@tf_export("roll")
def roll(input, shift, axis, name=None):
    """``tf.roll``: rotate ``input`` by ``shift`` along ``axis`` (ints or lists of ints)."""
    axes = static_ints(axis, "axis")
    if axes.ndim > 1:
        raise TypeError(f"`axis` must be an integer or a list of integers, got {axis!r}")
    return bind(Roll, convert_to_tensor(input), convert_to_tensor(shift),
                axis=int(axes) if axes.ndim == 0 else tuple(axes.tolist()))


# --- StridedSliceGrad ---------------------------------------------------------------------------
@define_op("StridedSliceGrad")
class StridedSliceGrad:
    """Zeros of ``shape`` with ``dy`` written where StridedSlice(begin, end, strides) read."""

    def infer(shape, begin, end, strides, dy, **masks):
        return TensorSpec(TensorShape(shape_values(shape)), dy.dtype)

    def kernel(shape, begin, end, strides, dy, **masks):
        shape = tuple(shape.tolist())
        out = np.zeros(shape, dy.dtype)
        index = strided_index(shape, begin.tolist(), end.tolist(), strides.tolist(), **masks)
        view = out[index]
        view_shape = np.shape(view)
        out[index] = np.reshape(dy, view_shape)
        return out


def strided_slice_grad(shape, begin, end, strides, dy, **masks):
    """Zeros of ``shape`` with ``dy`` written where ``strided_slice(begin, end, strides)`` reads
    (the gradient of a strided slice)."""
    return bind(StridedSliceGrad, shape, begin, end, strides, dy, **masks)
