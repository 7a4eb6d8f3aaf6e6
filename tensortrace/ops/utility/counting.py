"""Counting and repeating: ``tf.repeat``, ``tf.math.bincount`` (DenseBincount) and the
fixed-width histograms (HistogramFixedWidth)."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import EagerTensor, TensorSpec
from .._args import int_attr, static_int
from .._base import INDEX, check_dtypes
from ..array.broadcasting import broadcast_to
from ..array.creation import zeros
from ..array.joining import concat, stack
from ..array.padding import tile
from ..array.reshaping import expand_dims, reshape
from ..array.sequences import sequence_mask
from ..array.shapes import shape
from ..array.shapes import size as array_size
from ..indexing.gathering import boolean_mask
from ..math.arithmetic import floor, maximum, minimum
from ..math.casting import cast
from ..reduce import reduce_max, reduce_sum


# --- tf.repeat -----------------------------------------------------------------------------------
def _positive_axis(axis, rank):
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"axis={axis} out of bounds: expected {-max(rank, 1)}<=axis<"
                         f"{max(rank, 1)}")
    return axis + rank if axis < 0 else axis


def _int_repeats(repeats):
    repeats = convert_to_tensor(repeats, dtype_hint=D.int32)
    if not repeats.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received "
                        f"`tensor` = {repeats!r} of dtype: {repeats.dtype!r}")
    return repeats


def _tile_one_dimension(data, axis, multiple):
    multiples = [1] * data.shape.rank
    multiples[axis] = multiple
    return tile(data, stack([convert_to_tensor(m, dtype=multiple.dtype) for m in multiples]))


@tf_export("repeat")
def repeat(input, repeats, axis=None, name=None):
    """Repeat each element of ``input`` along ``axis`` (flattened first when None) ``repeats``
    times; ``repeats`` is a scalar or one count per element. TF's composition of tile,
    sequence_mask and boolean_mask, so gradients flow."""
    data = convert_to_tensor(input)
    if axis is None:
        data, axis = reshape(data, [-1]), 0
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type "
                        f"{type(axis).__name__}")
    repeats = _int_repeats(repeats)
    if repeats.shape.rank is not None and repeats.shape.rank > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    if data.shape.rank == 0:
        data = stack([data])
    axis = _positive_axis(axis, data.shape.rank)
    data_shape = shape(data, out_type=repeats.dtype)
    if repeats.shape.num_elements() == 1:
        repeats = reshape(repeats, [])
        tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, repeats)
        return reshape(tiled, concat([data_shape[:axis], [repeats * data_shape[axis]],
                                      data_shape[axis + 1:]], axis=0))
    if repeats.shape.rank == 1:
        n, m = data.shape.dims[axis], repeats.shape.dims[0]
        if n is not None and m is not None and n != m:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
    counts = broadcast_to(repeats, [data_shape[axis]])
    if axis > 0:  # the same counts for every leading index
        counts = broadcast_to(counts, concat([data_shape[:axis], shape(counts)], 0))
    max_repeat = maximum(convert_to_tensor(0, dtype=counts.dtype), reduce_max(counts))
    mask = sequence_mask(counts, max_repeat)
    tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, max_repeat)
    result = boolean_mask(tiled, mask)
    if axis > 0:
        size = reduce_sum(broadcast_to(repeats, [data_shape[axis]]))
        result = reshape(result, concat([data_shape[:axis], [size], data_shape[axis + 1:]], 0))
    dims = data.shape.dims
    if dims is not None and not isinstance(result, EagerTensor):
        result.set_shape(dims[:axis] + [0 if counts.shape.dims[-1] == 0 else None]
                         + dims[axis + 1:])
    return result


# --- DenseBincount -------------------------------------------------------------------------------
_BINCOUNT_T = (D.int32, D.int64, D.float32, D.float64)


def _bincount_rows(arr, size, weights, binary_output):
    """Counts of one row (vectorised over rows by offsetting each row's values)."""
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
    offsets = (np.arange(rows.shape[0]) * size)[:, None]
    keep = rows < size
    flat = (rows + offsets)[keep]
    if binary_output:
        out = np.zeros(rows.shape[0] * size, weights.dtype)
        out[flat] = 1
    elif weights.size:
        w = weights.reshape(rows.shape)[keep]
        out = np.bincount(flat, w, minlength=rows.shape[0] * size).astype(weights.dtype)
    else:
        out = np.bincount(flat, minlength=rows.shape[0] * size).astype(weights.dtype)
    return out.reshape(-1, size) if arr.ndim == 2 else out


@define_op("DenseBincount")
class DenseBincount:
    """Counts (or summed weights) of each value in ``[0, size)``, per row for 2-D input."""

    check = DtypeCheck("DenseBincount", INDEX, 1, attr="Tidx")

    def infer(input, size, weights, binary_output=False):
        check_dtypes("DenseBincount", (input, size), INDEX, names=("input", "size"))
        check_dtypes("DenseBincount", (weights,), _BINCOUNT_T, names=("weights",))
        n = static_int(size)  # None too for a non-scalar: the kernel's error
        rank = input.shape.rank
        if rank is None:  # TF's shape function: an unknown shape (not a vector)
            return TensorSpec(None, weights.dtype)
        if rank == 2:
            return TensorSpec([input.shape.dims[0], n], weights.dtype)
        return TensorSpec([n], weights.dtype)

    def kernel(input, size, weights, binary_output=False):
        arr, size = np.asarray(input), int(size)
        if arr.ndim > 2:
            raise errors.invalid_argument(f"Input must be at most 2-dimensional, got shape "
                                          f"{shape_text(arr.shape)}")
        if size < 0:
            raise errors.invalid_argument(f"size ({size}) must be non-negative")
        if arr.size and arr.min() < 0:
            raise errors.invalid_argument("Input arr must be non-negative!")
        weights = np.asarray(weights)
        if weights.size and weights.shape != arr.shape:
            raise errors.invalid_argument(
                "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case "
                f"it acts as all weights equal to 1. Received {shape_text(weights.shape)}")
        return _bincount_rows(arr, size, weights, binary_output)


@tf_export("math.bincount", "bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
             axis=None, binary_output=False):
    """Count how often each value in ``arr`` (non-negative ints) occurs.

    The output has ``max(arr) + 1`` bins (at least ``minlength``, at most ``maxlength``); with
    ``weights`` each occurrence adds its weight (and the output takes the weights' dtype).
    ``axis=-1`` counts each row of a 2-D ``arr`` separately.
    """
    try:
        arr = convert_to_tensor(arr)
    except (TypeError, ValueError):  # a composite (ragged) has its own form
        return fallback(bincount, (arr,), {"weights": weights, "minlength": minlength,
                                           "maxlength": maxlength, "dtype": dtype, "axis": axis,
                                           "binary_output": binary_output})
    if weights is not None:
        weights = convert_to_tensor(weights)
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please "
                         "specify only one.")
    if not arr.dtype.is_integer:
        arr = cast(arr, D.int32)
    axis = 0 if axis is None else int_attr(axis, "axis")
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    nonempty = cast(array_size(arr) > 0, arr.dtype)
    output_size = nonempty * (reduce_max(arr) + 1)
    if minlength is not None:
        output_size = maximum(convert_to_tensor(minlength, arr.dtype), output_size)
    if maxlength is not None:
        output_size = minimum(convert_to_tensor(maxlength, arr.dtype), output_size)
    if axis == 0:
        arr = reshape(arr, [-1])
        if weights is not None:
            weights = reshape(weights, [-1])
    if weights is None:
        weights = zeros([0], D.as_dtype(dtype))
    return bind(DenseBincount, arr, output_size, weights, binary_output=bool(binary_output))


# --- histogram_fixed_width -----------------------------------------------------------------------
_HISTOGRAM_T = (D.int32, D.int64, D.float32, D.float64)


@define_op("HistogramFixedWidth")
class HistogramFixedWidth:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (outliers go to the end
    bins)."""

    def infer(values, value_range, nbins, dtype):
        check_dtypes("HistogramFixedWidth", (values, value_range), _HISTOGRAM_T,
                     ("values", "value_range"))
        return TensorSpec([static_int(nbins)], dtype)

    def kernel(values, value_range, nbins, dtype):
        lo, hi = value_range[0], value_range[1]
        n = int(nbins)
        if not lo < hi:
            raise errors.invalid_argument(f"value_range should satisfy value_range[0] < "
                                          f"value_range[1], but got '[{lo:g}, {hi:g}]'")
        if n <= 0:
            raise errors.invalid_argument(f"nbins should be a positive number, but got '{n}'")
        v = np.asarray(values, np.float64).reshape(-1)
        if np.isnan(v).any():
            raise errors.invalid_argument("Histogram values must not contain NaN")
        step = (float(hi) - float(lo)) / n
        bins = np.clip(np.floor((v - float(lo)) / step), 0, n - 1).astype(np.intp)
        return np.bincount(bins, minlength=n).astype(dtype._np)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """How many ``values`` fall in each of ``nbins`` equal-width bins over ``value_range``."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, values.dtype)
    return bind(HistogramFixedWidth, values, value_range, convert_to_tensor(nbins, D.int32),
                dtype=D.as_dtype(dtype))


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=D.int32, name=None):
    """The bin index (0 .. nbins - 1) of each of ``values``, as histogram_fixed_width bins them."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, values.dtype)
    nbins = convert_to_tensor(nbins, D.int32)
    scaled = (values - value_range[0]) / (value_range[1] - value_range[0])
    indices = cast(floor(cast(nbins, scaled.dtype) * scaled), D.int32)
    return cast(maximum(minimum(indices, nbins - 1), 0), D.as_dtype(dtype))
