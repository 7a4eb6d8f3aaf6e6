"""Reductions along axes (sum, mean, max, any, ...), arg-reductions and cumulative scans."""

import math

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..errors import invalid_argument
from ..registry import NON_DIFFERENTIABLE, OpDef, register
from ..shapes import TensorShape
from ..tensor import TensorSpec
from ._base import check_dtypes
from ..messages import c_name
from ..registry import DtypeCheck
from .array import (
    axis_attr,
    graph_error,
    int_attr,
    kernel_out_type,
    public,
    reshape,
    shape,
    shape_text,
    zeros_like,
)

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


def _bool_check(op):
    def check(arrays):
        dt = arrays[0].dtype
        if dt != np.bool_:
            raise invalid_argument(f"cannot compute {op} as input #0(zero-based) was expected to "
                                   f"be a bool tensor but is a {c_name(D.from_numpy(dt))} tensor",
                                   op)

    return check


def _reduction(name, kernel, allowed, grad=None):
    """Register a reduction: input ``x``, attrs ``axis`` (tuple or None) and ``keep_dims``."""

    def infer(input, axis, keep_dims):
        if allowed is None:
            if input.dtype != D.bool:
                raise TypeError(f"Input 'input' of '{name}' Op has type {input.dtype.name} that "
                                "does not match expected type of bool.")
        else:
            check_dtypes(name, (input,), allowed, ("input",))
        return TensorSpec(reduced_shape(input.shape, axis, keep_dims, name), input.dtype)

    def run(input, axis, keep_dims):
        return kernel(input, _axes(input.ndim, axis), keep_dims)

    check = _bool_check(name) if allowed is None else DtypeCheck(name, allowed, same=1)
    return register(OpDef(name, infer, run, grad=grad, check=check))


SUM = _reduction("Sum", _sum, NUMBER)
MEAN = _reduction("Mean", _mean, NUMBER)
PROD = _reduction("Prod", _prod, NUMBER)
MAX = _reduction("Max", _extreme(np.maximum, _lowest), REAL_NUMBER)
MIN = _reduction("Min", _extreme(np.minimum, _highest), REAL_NUMBER)
EUCLIDEAN_NORM = _reduction("EuclideanNorm", _euclidean_norm, NUMBER)
ANY = _reduction("Any", _logical(np.logical_or), None, NON_DIFFERENTIABLE)
ALL = _reduction("All", _logical(np.logical_and), None, NON_DIFFERENTIABLE)


# --- ArgMax / ArgMin --------------------------------------------------------------------------
def _arg_reduction(name, np_fn, nan_fill, allowed_out):
    """Register ArgMax/ArgMin: attrs ``axis`` (int) and ``output_type``."""

    def infer(input, axis, output_type):
        check_dtypes(name, (input,), _ARG_INPUT, ("input",))
        if output_type not in allowed_out:
            raise TypeError(f"Value passed to parameter 'output_type' has DataType "
                            f"{output_type.name} not in list of allowed values: "
                            f"{', '.join(d.name for d in allowed_out)}")
        rank = input.shape.rank
        if rank is None:
            return TensorSpec(TensorShape(None), output_type)
        if not -rank <= axis < rank:
            raise graph_error(name, f"Dimension ({axis}) must be in the range [{-rank}, {rank}), "
                              f"where {rank} is the number of dimensions in the input.",
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

    return register(OpDef(name, infer, kernel, grad=NON_DIFFERENTIABLE,
                          check=DtypeCheck(name, _ARG_INPUT, same=1)))


ARG_MAX = _arg_reduction("ArgMax", np.argmax, -np.inf, _ARG_MAX_OUT)
ARG_MIN = _arg_reduction("ArgMin", np.argmin, np.inf, _ARG_MIN_OUT)


# --- Cumsum / Cumprod -------------------------------------------------------------------------
def _scan(name, ufunc, identity, allowed=NUMBER):
    """Register a scan: attrs ``axis`` (int), ``exclusive`` and ``reverse``."""

    def infer(x, axis, exclusive, reverse):
        check_dtypes(name, (x,), allowed, ("x",))
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

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, allowed, same=1)))


CUMSUM = _scan("Cumsum", np.add, 0)
CUMPROD = _scan("Cumprod", np.multiply, 1)


class _LogAddExp:
    """np.logaddexp's accumulate, quiet on -inf and via float32 for bfloat16 (no NumPy loop)."""

    @staticmethod
    def accumulate(x, axis, dtype):
        wide = np.float32 if dtype.itemsize < 4 else dtype
        with np.errstate(all="ignore"):
            return np.logaddexp.accumulate(x, axis=axis, dtype=wide).astype(dtype, copy=False)


CUMULATIVE_LOGSUMEXP = _scan("CumulativeLogsumexp", _LogAddExp, -np.inf,
                             _BF16 + (D.float16, D.float32, D.float64))


# --- public functions -------------------------------------------------------------------------
def _reduce(opdef, input_tensor, axis, keepdims):
    return bind(opdef, convert_to_tensor(input_tensor), axis=axis_attr(axis),
                keep_dims=bool(keepdims))


@tf_export("math.reduce_sum", "reduce_sum")
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """The sum of elements over ``axis`` (None: all), dimensions kept as 1 if ``keepdims``."""
    return _reduce(SUM, input_tensor, axis, keepdims)


@tf_export("math.reduce_mean", "reduce_mean")
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """The mean over ``axis``; integer means truncate toward zero, as in TF."""
    return _reduce(MEAN, input_tensor, axis, keepdims)


@tf_export("math.reduce_max", "reduce_max")
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """The maximum over ``axis`` (-inf or the dtype's minimum for empty reductions)."""
    return _reduce(MAX, input_tensor, axis, keepdims)


@tf_export("math.reduce_min", "reduce_min")
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """The minimum over ``axis`` (inf or the dtype's maximum for empty reductions)."""
    return _reduce(MIN, input_tensor, axis, keepdims)


@tf_export("math.reduce_prod", "reduce_prod")
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """The product of elements over ``axis``."""
    return _reduce(PROD, input_tensor, axis, keepdims)


@tf_export("math.reduce_any", "reduce_any")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or over ``axis`` of a bool tensor."""
    return _reduce(ANY, input_tensor, axis, keepdims)


@tf_export("math.reduce_all", "reduce_all")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and over ``axis`` of a bool tensor."""
    return _reduce(ALL, input_tensor, axis, keepdims)


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) over ``axis`` (integer inputs give truncated integer roots)."""
    return _reduce(EUCLIDEAN_NORM, input_tensor, axis, keepdims)


@tf_export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over ``axis``, computed stably around the maximum (TF's composition)."""
    x = convert_to_tensor(input_tensor)
    raw_max = reduce_max(x, axis, keepdims=True)
    my_max = public("where")(public("math.is_finite")(raw_max), raw_max, zeros_like(raw_max))
    try:
        my_max = public("stop_gradient")(my_max)
    except NotImplementedError:  # only gradients need it, and they cancel exactly without it
        pass
    result = public("math.log")(reduce_sum(public("math.exp")(x - my_max), axis, keepdims))
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
    if diff.dtype.is_complex:
        squared = public("math.real")(diff * public("math.conj")(diff))
    else:
        squared = public("math.square")(diff)
    return reduce_mean(squared, axis, keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The population standard deviation over ``axis``.

    Raises:
        TypeError: for integer inputs.
    """
    return public("math.sqrt")(reduce_variance(input_tensor, axis, keepdims))


@tf_export("math.argmax", "argmax")
def argmax(input, axis=None, output_type=D.int64, name=None):
    """The index of the largest value along ``axis`` (default 0); NaNs are never picked."""
    return bind(ARG_MAX, convert_to_tensor(input), axis=_arg_axis(axis),
                output_type=D.as_dtype(output_type))


@tf_export("math.argmin", "argmin")
def argmin(input, axis=None, output_type=D.int64, name=None):
    """The index of the smallest value along ``axis`` (default 0); NaNs are never picked."""
    return bind(ARG_MIN, convert_to_tensor(input), axis=_arg_axis(axis),
                output_type=D.as_dtype(output_type))


def _arg_axis(axis):
    if axis is None:
        return 0
    if isinstance(axis, (list, tuple)):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return int_attr(axis)


@tf_export("math.cumsum", "cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along ``axis`` (``exclusive``: each excludes its own element; ``reverse``:
    from the end)."""
    return bind(CUMSUM, convert_to_tensor(x), axis=int_attr(axis), exclusive=bool(exclusive),
                reverse=bool(reverse))


@tf_export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along ``axis`` (see ``cumsum`` for ``exclusive`` and ``reverse``)."""
    return bind(CUMPROD, convert_to_tensor(x), axis=int_attr(axis), exclusive=bool(exclusive),
                reverse=bool(reverse))


@tf_export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running log(sum(exp(x))) along ``axis``, without overflow (see ``cumsum``)."""
    return bind(CUMULATIVE_LOGSUMEXP, convert_to_tensor(x), axis=int_attr(axis),
                exclusive=bool(exclusive), reverse=bool(reverse))


@tf_export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=D.int64, name=None):
    """The number of non-zero (non-empty, True) elements over ``axis``, as ``dtype``."""
    x = convert_to_tensor(input)
    zero = "" if x.dtype is D.string else False if x.dtype is D.bool else 0
    nonzero = public("math.not_equal")(x, convert_to_tensor(zero, x.dtype))
    counts = reduce_sum(public("cast")(nonzero, D.int64), axis, keepdims=bool(keepdims))
    dtype = D.as_dtype(dtype)
    return counts if dtype is D.int64 else public("cast")(counts, dtype)


# --- gradients --------------------------------------------------------------------------------
# Written with public ops (see math.py's gradients); they follow TF's math_grad.py.
def _grad_util():
    from ..autodiff import grad_util

    return grad_util


def _sum_grad(op, dy):
    x = op.inputs[0]
    return _grad_util().reduced_grad(dy, x, op.attrs["axis"], op.attrs["keep_dims"])


def _mean_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    n = _grad_util().reduced_count(x, y)
    scaled = dy / n if isinstance(n, int) else dy / public("cast")(n, dy.dtype)
    return _grad_util().reduced_grad(scaled, x, op.attrs["axis"], op.attrs["keep_dims"])


def _kept(t, x, op):
    """``t`` (shaped like the op's output) with the reduced axes kept as 1s."""
    if op.attrs["keep_dims"]:
        return t
    return reshape(t, _grad_util().kept_shape(x, op.attrs["axis"]))


def _extreme_grad(op, dy):
    """Max/Min: the gradient is shared equally between the elements that tie for the result."""
    x, axis = op.inputs[0], op.attrs["axis"]
    y, dy = _kept(op.outputs[0], x, op), _kept(dy, x, op)
    indicators = public("cast")(public("math.equal")(y, x), dy.dtype)
    count = reduce_sum(indicators, axis, keepdims=True)
    return public("math.divide")(indicators, count) * dy


def _prod_grad(op, dy):
    """The product of every other element, as TF computes it: two exclusive cumprods over the
    reduced axes flattened into one, so zeros need no division."""
    x, axis = op.inputs[0], op.attrs["axis"]
    util = _grad_util()
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of reduce_prod needs an input of known rank")
    dy = util.reduced_grad(dy, x, axis, op.attrs["keep_dims"])
    reduced = util.normalized_axes(axis, rank)
    if not reduced:
        return dy
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    permuted = public("transpose")(x, perm)
    dims = util.static_dims(x)
    if dims is not None:
        n_other = int(np.prod([dims[i] for i in other], dtype=np.int64))
        flat = reshape(permuted, [-1, n_other])
        back = [dims[i] for i in perm]
    else:
        n_other = reduce_prod(public("gather")(shape(x), other)) if other else 1
        flat = reshape(permuted, public("stack")([-1, n_other]))
        back = shape(permuted)
    cumprod_ = public("math.cumprod")
    left = cumprod_(flat, axis=0, exclusive=True)
    right = cumprod_(flat, axis=0, exclusive=True, reverse=True)
    conj = public("math.conj")
    others = reshape(conj(left) * conj(right), back)
    inverse = [perm.index(i) for i in range(rank)]
    return dy * public("transpose")(others, inverse)


def _euclidean_norm_grad(op, dy):
    x = op.inputs[0]
    y, dy = _kept(op.outputs[0], x, op), _kept(dy, x, op)
    return public("math.truediv")(x, y / dy)


def _cumsum_grad(op, dy):
    a = op.attrs
    return cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


def _cumprod_grad(op, dy):
    x, a = op.inputs[0], op.attrs
    prod = cumprod(x, a["axis"], exclusive=a["exclusive"], reverse=a["reverse"])
    out = cumsum(prod * dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return public("math.divide_no_nan")(out, x)


def _cumulative_logsumexp_grad(op, dy):
    """TF's rule: split dy by sign and run the reversed scan on log|dy| - y."""
    x, y, a = op.inputs[0], op.outputs[0], op.attrs
    where, log, exp = public("where"), public("math.log"), public("math.exp")
    floor = public("fill")(public("shape")(dy), np.array(dy.dtype.min, dy.dtype.as_numpy_dtype))

    def part(sign):
        log_dy = where(dy * sign > 0, log(dy * sign), floor)
        return exp(cumulative_logsumexp(log_dy - y, a["axis"], exclusive=a["exclusive"],
                                        reverse=not a["reverse"]) + x)

    return part(1) - part(-1)


SUM.grad = _sum_grad
MEAN.grad = _mean_grad
MAX.grad = MIN.grad = _extreme_grad
PROD.grad = _prod_grad
EUCLIDEAN_NORM.grad = _euclidean_norm_grad
CUMSUM.grad = _cumsum_grad
CUMPROD.grad = _cumprod_grad
CUMULATIVE_LOGSUMEXP.grad = _cumulative_logsumexp_grad
