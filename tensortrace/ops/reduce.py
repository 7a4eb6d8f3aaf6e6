"""Reductions along axes (sum, mean, max, any, ...), arg-reductions and cumulative scans."""

import math

import numpy as np

from .. import dtypes as D
from .._export import export_function, tf_export
from ..composite import fallback
from ..context import bind
from ..convert import convert_to_tensor
from ..errors import invalid_argument
from ..messages import shape_text
from ..registry import DtypeCheck, OpDef, register
from ..shapes import TensorShape
from ..tensor import TensorSpec
from ._args import axis_attr, int_attr
from ._base import check_dtypes, check_fixed, check_out_type, graph_error, kernel_out_type
from .array.creation import zeros_like
from .array.passthrough import stop_gradient
from .array.reshaping import reshape
from .array.shapes import shape
from .math.arithmetic import square
from .math.casting import cast
from .math.compare import is_finite, not_equal
from .math.complex_numbers import conj, real
from .math.select import where
from .math.transcendental import exp, log, sqrt

_BF16 = (D.bfloat16,) if D.bfloat16 else ()
# TF's allowed lists, in TF's order (its messages list them so).
NUMBER = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.complex64, D.int64) + \
    _BF16 + (D.uint16, D.complex128, D.float16, D.uint32, D.uint64)
REAL_NUMBER = tuple(d for d in NUMBER if not d.is_complex)
_ARG_INPUT = REAL_NUMBER + (D.bool,)
_ARG_MAX_OUT = (D.int16, D.uint16, D.int32, D.int64)
_ARG_MIN_OUT = (D.int32, D.int64)
_FLOAT_NP = frozenset(d._np for d in (D.float16, D.float32, D.float64) + _BF16)


# --- shape rule and axis checks ------------------------------------------------------------------
def reduced_shape(shape, axis, keep_dims, op="Sum"):
    """The static shape of reducing ``shape`` over ``axis`` (None: all axes).

    Raises:
        ValueError: for an axis out of range (duplicates pass, as in TF's shape function).
    """
    rank = shape.rank
    if axis is None:
        if not keep_dims:
            return TensorShape([])
        return TensorShape(None) if rank is None else TensorShape([1] * rank)
    if rank is None:
        return TensorShape(None)
    axes = set()
    for a in axis:
        if not -rank <= a < rank:
            raise graph_error(op, f"Invalid reduction dimension {a} for input with {rank} "
                              "dimensions.", shape, [len(axis)])
        axes.add(a % rank)
    dims = shape.dims
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _axes(ndim, axis):
    """``axis`` checked against a rank-``ndim`` array and made non-negative (eager errors)."""
    if axis is None:
        return None
    out = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise invalid_argument(f"Invalid reduction dimension ({a} for input with {ndim} "
                                   "dimension(s)")
        a %= ndim
        if a in out:
            raise invalid_argument(f"Invalid reduction arguments: Axes contains duplicate "
                                   f"dimension: {a}")
        out.append(a)
    return tuple(out)


def _count(x, axes):
    if axes is None:
        return x.size
    shape = x.shape
    return math.prod(shape[a] for a in axes)


# --- kernels --------------------------------------------------------------------------------------
def _sum(x, axes, keep):
    return np.add.reduce(x, axis=axes, dtype=x.dtype, keepdims=keep)


def _prod(x, axes, keep):
    return np.multiply.reduce(x, axis=axes, dtype=x.dtype, keepdims=keep)


def _extreme(ufunc, lowest):
    def kernel(x, axes, keep):
        if x.size == 0:  # TF gives the identity (-inf, INT_MIN ...) where NumPy refuses
            return ufunc.reduce(x, axis=axes, keepdims=keep, initial=lowest(x.dtype))
        return ufunc.reduce(x, axis=axes, keepdims=keep)

    return kernel


def _lowest(dtype):
    return -np.inf if dtype in _FLOAT_NP else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype in _FLOAT_NP else np.iinfo(dtype).max


def _mean(x, axes, keep):
    n = _count(x, axes)
    dtype = x.dtype
    if dtype.kind in "iu":  # TF sums integers wide, then truncates toward zero
        wide = np.int64 if dtype.kind == "i" else np.uint64
        total = np.add.reduce(x, axis=axes, dtype=wide, keepdims=keep)
        if total.ndim == 0 and n:  # a whole reduction: Python ints are exact and faster
            t = int(total)
            return dtype.type(t // n if t >= 0 else -(-t // n))
        if n == 0:
            return np.zeros_like(total, dtype=dtype)[()]
        quotient = np.abs(total) // n if dtype.kind == "i" else total // n
        return (np.sign(total) * quotient if dtype.kind == "i" else quotient).astype(dtype)[()]
    total = np.add.reduce(x, axis=axes, dtype=dtype, keepdims=keep)
    with np.errstate(all="ignore"):
        if dtype.itemsize == 2:  # half types: divide in float32 so a large count stays finite
            return (np.asarray(total, np.float32) / n).astype(dtype)[()]
        return (total / dtype.type(n)).astype(dtype, copy=False)


def _euclidean_norm(x, axes, keep):
    dtype = x.dtype
    if dtype.kind == "c":
        return np.sqrt(np.add.reduce(x * np.conj(x), axis=axes, keepdims=keep))
    with np.errstate(all="ignore"):
        squares = np.add.reduce(x * x, axis=axes, dtype=dtype, keepdims=keep)
        if dtype.kind in "iu":  # TF takes the root of the (wrapped) integer sum, truncated
            return np.sqrt(np.asarray(squares, np.float64)).astype(dtype)[()]
        return np.sqrt(squares)


def _logical(ufunc):
    return lambda x, axes, keep: ufunc.reduce(x, axis=axes, keepdims=keep)


def _reduction(op_name, kernel, allowed, *names, doc):
    """Register a reduction (input ``x``, attrs ``axis``, a tuple or None, and ``keep_dims``; a
    bool input when ``allowed`` is None) and export its public function under ``names``;
    returns (OpDef, function)."""

    def infer(input, axis, keep_dims):
        if allowed is None:
            check_fixed(op_name, (input,), ("input",))
        else:
            check_dtypes(op_name, (input,), allowed, ("input",))
        return TensorSpec(reduced_shape(input.shape, axis, keep_dims, op_name), input.dtype)

    def run(input, axis, keep_dims):
        return kernel(input, _axes(input.ndim, axis), keep_dims)

    check = DtypeCheck(op_name, allowed, 1, fixed={0: D.bool} if allowed is None else None)
    opdef = register(OpDef(op_name, infer, run, check=check))

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        try:
            x = convert_to_tensor(input_tensor)
        except (TypeError, ValueError):  # a composite argument (ragged) has its own form
            return fallback(fn, (input_tensor,), {"axis": axis, "keepdims": keepdims})
        return bind(opdef, x, axis=axis_attr(axis), keep_dims=bool(keepdims))

    return opdef, export_function(fn, *names, doc=doc)


SUM, reduce_sum = _reduction(
    "Sum", _sum, NUMBER, "math.reduce_sum", "reduce_sum",
    doc="The sum of elements over ``axis`` (None: all), dimensions kept as 1 if ``keepdims``.")
MEAN, reduce_mean = _reduction(
    "Mean", _mean, NUMBER, "math.reduce_mean", "reduce_mean",
    doc="The mean over ``axis``; integer means truncate toward zero, as in TF.")
PROD, reduce_prod = _reduction("Prod", _prod, NUMBER, "math.reduce_prod", "reduce_prod",
                               doc="The product of elements over ``axis``.")
MAX, reduce_max = _reduction(
    "Max", _extreme(np.maximum, _lowest), REAL_NUMBER, "math.reduce_max", "reduce_max",
    doc="The maximum over ``axis`` (-inf or the dtype's minimum for empty reductions).")
MIN, reduce_min = _reduction(
    "Min", _extreme(np.minimum, _highest), REAL_NUMBER, "math.reduce_min", "reduce_min",
    doc="The minimum over ``axis`` (inf or the dtype's maximum for empty reductions).")
EUCLIDEAN_NORM, reduce_euclidean_norm = _reduction(
    "EuclideanNorm", _euclidean_norm, NUMBER, "math.reduce_euclidean_norm",
    doc="sqrt(sum(x * conj(x))) over ``axis`` (integer inputs give truncated integer roots).")
ANY, reduce_any = _reduction("Any", _logical(np.logical_or), None, "math.reduce_any",
                             "reduce_any", doc="Logical or over ``axis`` of a bool tensor.")
ALL, reduce_all = _reduction("All", _logical(np.logical_and), None, "math.reduce_all",
                             "reduce_all", doc="Logical and over ``axis`` of a bool tensor.")


@tf_export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over ``axis``, computed stably around the maximum (TF's composition)."""
    x = convert_to_tensor(input_tensor)
    raw_max = reduce_max(x, axis, keepdims=True)
    my_max = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    result = log(reduce_sum(exp(x - my_max), axis, keepdims))
    if not keepdims:
        my_max = reshape(my_max, shape(result))
    return result + my_max


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The population variance over ``axis`` (real for complex inputs).

    Raises:
        TypeError: for integer inputs.
    """
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
    diff = x - reduce_mean(x, axis, keepdims=True)
    squared = real(diff * conj(diff)) if diff.dtype.is_complex else square(diff)
    return reduce_mean(squared, axis, keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The population standard deviation over ``axis``.

    Raises:
        TypeError: for integer inputs.
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


@tf_export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=D.int64, name=None):
    """The number of non-zero (non-empty, True) elements over ``axis``, as ``dtype``."""
    x = convert_to_tensor(input)
    zero = "" if x.dtype is D.string else False if x.dtype is D.bool else 0
    nonzero = not_equal(x, convert_to_tensor(zero, x.dtype))
    counts = reduce_sum(cast(nonzero, D.int64), axis, keepdims=bool(keepdims))
    dtype = D.as_dtype(dtype)
    return counts if dtype is D.int64 else cast(counts, dtype)


# --- ArgMax / ArgMin --------------------------------------------------------------------------
def _arg_axis(axis):
    if axis is None:
        return 0
    if isinstance(axis, (list, tuple)):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return int_attr(axis)


def _arg_reduction(op_name, np_fn, nan_fill, allowed_out, *names, doc):
    """Register ArgMax/ArgMin (attrs ``axis``, an int, and ``output_type``) and export its
    public function; returns (OpDef, function)."""

    def infer(input, axis, output_type):
        check_dtypes(op_name, (input,), _ARG_INPUT, ("input",))
        check_out_type(op_name, output_type, allowed_out, "output_type")
        rank = input.shape.rank
        if rank is None:
            return TensorSpec(TensorShape(None), output_type)
        if not -rank <= axis < rank:
            raise graph_error(op_name, f"Dimension ({axis}) must be in the range [{-rank}, "
                              f"{rank}), where {rank} is the number of dimensions in the input.",
                              input.shape, [])
        dims = input.shape.dims
        del dims[axis]
        return TensorSpec(dims, output_type)

    def kernel(input, axis, output_type):
        kernel_out_type(output_type, allowed_out, "output_type")
        n = input.ndim
        if not -n <= axis < n:
            raise invalid_argument(f"Expected dimension in the range [{-n}, {n}), but got {axis}")
        if input.shape[axis] == 0:
            raise invalid_argument(f"Reduction axis {axis} is empty in shape "
                                   f"{shape_text(input.shape)}")
        if input.dtype in _FLOAT_NP:
            nan = np.isnan(input)
            if nan.any():  # TF's comparisons never pick a NaN (unless all are NaN: index 0)
                input = np.where(nan, nan_fill, input)
        return np_fn(input, axis=axis).astype(output_type._np)[()]

    opdef = register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, _ARG_INPUT, 1)))

    def fn(input, axis=None, output_type=D.int64, name=None):
        return bind(opdef, convert_to_tensor(input), axis=_arg_axis(axis),
                    output_type=D.as_dtype(output_type))

    return opdef, export_function(fn, *names, doc=doc)


ARG_MAX, argmax = _arg_reduction(
    "ArgMax", np.argmax, -np.inf, _ARG_MAX_OUT, "math.argmax", "argmax",
    doc="The index of the largest value along ``axis`` (default 0); NaNs are never picked.")
ARG_MIN, argmin = _arg_reduction(
    "ArgMin", np.argmin, np.inf, _ARG_MIN_OUT, "math.argmin", "argmin",
    doc="The index of the smallest value along ``axis`` (default 0); NaNs are never picked.")


# --- Cumsum / Cumprod -------------------------------------------------------------------------
def _scan(op_name, ufunc, identity, allowed, *names, doc):
    """Register a scan (attrs ``axis``, an int, ``exclusive`` and ``reverse``) and export its
    public function; returns (OpDef, function)."""

    def infer(x, axis, exclusive, reverse):
        check_dtypes(op_name, (x,), allowed, ("x",))
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, axis, exclusive, reverse):
        n = x.ndim
        if not -n <= axis < n:
            raise invalid_argument(f"ScanOp: Expected scan axis in the range [{-n}, {n}), but "
                                   f"got {axis}")
        if reverse:
            x = np.flip(x, axis)
        out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        if exclusive:  # shift by one along the axis, starting from the identity
            shifted = np.empty_like(out)
            head = [slice(None)] * n
            head[axis] = slice(0, 1)
            shifted[tuple(head)] = identity
            dst, src = list(head), list(head)
            dst[axis], src[axis] = slice(1, None), slice(0, -1)
            shifted[tuple(dst)] = out[tuple(src)]
            out = shifted
        return np.flip(out, axis) if reverse else out

    opdef = register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, 1)))

    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        return bind(opdef, convert_to_tensor(x), axis=int_attr(axis), exclusive=bool(exclusive),
                    reverse=bool(reverse))

    return opdef, export_function(fn, *names, doc=doc)


class _LogAddExp:
    """np.logaddexp's accumulate, quiet on -inf and via float32 for bfloat16 (no NumPy loop)."""

    @staticmethod
    def accumulate(x, axis, dtype):
        wide = np.float32 if dtype.itemsize < 4 else dtype
        with np.errstate(all="ignore"):
            return np.logaddexp.accumulate(x, axis=axis, dtype=wide).astype(dtype, copy=False)


CUMSUM, cumsum = _scan("Cumsum", np.add, 0, NUMBER, "math.cumsum", "cumsum",
                       doc="Running sums along ``axis`` (``exclusive``: each excludes its own "
                           "element; ``reverse``: from the end).")
CUMPROD, cumprod = _scan("Cumprod", np.multiply, 1, NUMBER, "math.cumprod",
                         doc="Running products along ``axis`` (see ``cumsum`` for ``exclusive`` "
                             "and ``reverse``).")
CUMULATIVE_LOGSUMEXP, cumulative_logsumexp = _scan(
    "CumulativeLogsumexp", _LogAddExp, -np.inf, _BF16 + (D.float16, D.float32, D.float64),
    "math.cumulative_logsumexp",
    doc="Running log(sum(exp(x))) along ``axis``, without overflow (see ``cumsum``).")
