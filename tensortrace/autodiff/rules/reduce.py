"""Gradients of the reductions and scans, after TF's math_grad.py: a reduction's gradient is
broadcast back over the reduced axes; arg-reductions and logical reductions pass none."""

import numpy as np

from ...ops.array.creation import fill
from ...ops.array.joining import stack
from ...ops.array.reshaping import reshape, transpose
from ...ops.array.shapes import shape
from ...ops.indexing.gathering import gather
from ...ops.math.arithmetic import divide, divide_no_nan, truediv
from ...ops.math.casting import cast
from ...ops.math.compare import equal
from ...ops.math.complex_numbers import conj
from ...ops.math.select import where
from ...ops.math.transcendental import exp, log
from ...ops.reduce import cumprod, cumsum, cumulative_logsumexp, reduce_prod, reduce_sum
from ..grad_util import (kept_shape, normalized_axes, not_differentiable, reduced_count,
                         reduced_grad, register_gradients, static_dims)


def _sum_grad(op, dy):
    return reduced_grad(dy, op.inputs[0], op.attrs["axis"], op.attrs["keep_dims"])


def _mean_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    n = reduced_count(x, y)
    scaled = dy / n if isinstance(n, int) else dy / cast(n, dy.dtype)
    return reduced_grad(scaled, x, op.attrs["axis"], op.attrs["keep_dims"])


def _kept(t, x, op):
    """``t`` (shaped like the op's output) with the reduced axes kept as 1s."""
    if op.attrs["keep_dims"]:
        return t
    return reshape(t, kept_shape(x, op.attrs["axis"]))


def _extreme_grad(op, dy):
    """Max/Min: the gradient is shared equally between the elements that tie for the result."""
    x, axis = op.inputs[0], op.attrs["axis"]
    y, dy = _kept(op.outputs[0], x, op), _kept(dy, x, op)
    indicators = cast(equal(y, x), dy.dtype)
    count = reduce_sum(indicators, axis, keepdims=True)
    return divide(indicators, count) * dy


def _prod_grad(op, dy):
    """The product of every other element, as TF computes it: two exclusive cumprods over the
    reduced axes flattened into one, so zeros need no division."""
    x, axis = op.inputs[0], op.attrs["axis"]
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of reduce_prod needs an input of known rank")
    dy = reduced_grad(dy, x, axis, op.attrs["keep_dims"])
    reduced = normalized_axes(axis, rank)
    if not reduced:
        return dy
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    permuted = transpose(x, perm)
    dims = static_dims(x)
    if dims is not None:
        n_other = int(np.prod([dims[i] for i in other], dtype=np.int64))
        flat = reshape(permuted, [-1, n_other])
        back = [dims[i] for i in perm]
    else:
        n_other = reduce_prod(gather(shape(x), other)) if other else 1
        flat = reshape(permuted, stack([-1, n_other]))
        back = shape(permuted)
    left = cumprod(flat, axis=0, exclusive=True)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = reshape(conj(left) * conj(right), back)
    inverse = [perm.index(i) for i in range(rank)]
    return dy * transpose(others, inverse)


def _euclidean_norm_grad(op, dy):
    x = op.inputs[0]
    y, dy = _kept(op.outputs[0], x, op), _kept(dy, x, op)
    return truediv(x, y / dy)


def _cumsum_grad(op, dy):
    a = op.attrs
    return cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


def _cumprod_grad(op, dy):
    x, a = op.inputs[0], op.attrs
    prod = cumprod(x, a["axis"], exclusive=a["exclusive"], reverse=a["reverse"])
    out = cumsum(prod * dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return divide_no_nan(out, x)


def _cumulative_logsumexp_grad(op, dy):
    """TF's rule: split dy by sign and run the reversed scan on log|dy| - y."""
    x, y, a = op.inputs[0], op.outputs[0], op.attrs
    floor = fill(shape(dy), np.array(dy.dtype.min, dy.dtype.as_numpy_dtype))

    def part(sign):
        log_dy = where(dy * sign > 0, log(dy * sign), floor)
        return exp(cumulative_logsumexp(log_dy - y, a["axis"], exclusive=a["exclusive"],
                                        reverse=not a["reverse"]) + x)

    return part(1) - part(-1)


register_gradients({
    "Sum":                 _sum_grad,
    "Mean":                _mean_grad,
    "Max":                 _extreme_grad,
    "Min":                 _extreme_grad,
    "Prod":                _prod_grad,
    "EuclideanNorm":       _euclidean_norm_grad,
    "Cumsum":              _cumsum_grad,
    "Cumprod":             _cumprod_grad,
    "CumulativeLogsumexp": _cumulative_logsumexp_grad,
})
not_differentiable("Any", "All", "ArgMax", "ArgMin")
