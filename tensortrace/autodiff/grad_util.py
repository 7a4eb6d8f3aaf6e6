"""Shared pieces of gradient rules: undoing broadcasting, and broadcasting a reduction's gradient
back over the reduced axes. Static shapes are used when they decide the answer (no shape ops in
the graph); otherwise shapes are read at run time with ``tf.shape``."""

import numpy as np

from ..ops import reduce
from ..ops._base import unbroadcast_axes
from ..ops.array.broadcasting import broadcast_to, sum_to_shape
from ..ops.array.creation import ones_like
from ..ops.array.ranges import range as tf_range
from ..ops.array.reshaping import expand_dims, reshape
from ..ops.array.shapes import shape, size
from ..ops.array.shapes import shape as tf_shape
from ..ops.math.arithmetic import floormod, maximum
from ..ops.math.casting import cast
from ..ops.math.compare import equal
from ..ops.math.select import where
from ..registry import NON_DIFFERENTIABLE
from ..registry import get as get_op
from .tape import GradientTape


def register_gradients(table):
    """Fill ``OpDef.grad`` of every op named in ``table`` (op type -> rule); a second rule for
    one op is a bug."""
    for name, rule in table.items():
        opdef = get_op(name)
        if opdef.grad is not None:
            raise ValueError(f"Op {name!r} already has a gradient rule")
        opdef.grad = rule


def not_differentiable(*names):
    """Declare ops that pass no gradient (comparisons, argmax, random ...), as TF's
    ``ops.NotDifferentiable``: differentiating through them gives None, not an error."""
    register_gradients(dict.fromkeys(names, NON_DIFFERENTIABLE))


def no_gradient(op, *dys):
    """The rule of an op TF defines no gradient for (Unique, Bitcast ...): differentiating
    through it raises TF's LookupError, not None as through a non-differentiable op."""
    raise LookupError(f"gradient registry has no entry for: {op.type}")


def skip(op, i):
    """True when the tape needs no gradient for input i (``op.skip_input_indices``)."""
    return i in getattr(op, "skip_input_indices", ())


def static_dims(x):
    """x's shape as a list of ints when fully known, else None."""
    value = getattr(x, "_value", None)
    if value is not None:
        return list(np.shape(value))
    shape = x.shape
    return shape.as_list() if shape.is_fully_defined() else None


def shape_of(x):
    """x's shape: a Python list when static (a constant in graphs), else a ``tf.shape`` op."""
    dims = static_dims(x)
    if dims is not None:
        return dims
    return shape(x)


def _dim(shape, axis, rank):
    """Dim ``axis`` of a rank-``rank`` broadcast seen from a shape of lower rank (1 if absent)."""
    lead = rank - shape.rank
    return 1 if axis < lead else shape.dims[axis - lead]


def unbroadcast(dx, x, *others):
    """``dx``, the gradient of a broadcast result, summed back to the shape of ``x``.

    ``others`` are the op's other broadcast inputs: where a dim of x is unknown they decide
    whether it may have been broadcast (only if some other input is not 1 there). Without
    them, dx's own static shape is used.
    """
    xv, dv = getattr(x, "_value", None), getattr(dx, "_value", None)
    if xv is not None and dv is not None:  # eager: both shapes are known
        xs, ds = np.shape(xv), np.shape(dv)
        if xs == ds:
            return dx
        axes = unbroadcast_axes(ds, xs)
        out = reduce.reduce_sum(dx, axes)
        return out if len(ds) - len(xs) == len(axes) else reshape(out, xs)
    xs, ds = x.shape, dx.shape
    if xs.is_fully_defined() and xs == ds:
        return dx
    shapes = [o.shape for o in others] or [ds]
    if xs.rank is None or any(s.rank is None for s in shapes):
        return _dynamic(dx, x)
    rank = max([xs.rank] + [s.rank for s in shapes])
    lead = rank - xs.rank
    axes, keep = list(range(lead)), []
    for i, d in enumerate(xs.dims):
        if d not in (None, 1) or all(_dim(s, i + lead, rank) == 1 for s in shapes):
            continue  # x's dim is the broadcast dim
        if d is None:
            return _dynamic(dx, x)  # x's dim may be 1 where the result's is not: run time decides
        keep.append(i + lead)
    if not keep:
        return reduce.reduce_sum(dx, axes) if axes else dx
    if xs.is_fully_defined():
        return reshape(reduce.reduce_sum(dx, axes + keep), xs.as_list())
    out = reduce.reduce_sum(dx, keep, keepdims=True)
    return reduce.reduce_sum(out, axes) if axes else out


def _dynamic(dx, x):
    return sum_to_shape(dx, shape(x))


def _axes(axis, rank):
    return list(range(rank)) if axis is None else sorted(a % rank for a in axis)


def kept_shape(x, axis):
    """The shape of reducing x over ``axis`` with keepdims: a list (static, possibly with one
    -1) or a tensor."""
    dims = static_dims(x)
    rank = len(dims) if dims is not None else x.shape.rank
    if rank is not None:
        axes = set(_axes(axis, rank))
        dims = dims if dims is not None else x.shape.dims
        kept = [1 if i in axes else d for i, d in enumerate(dims)]
        if kept.count(None) <= 1:
            return [-1 if d is None else d for d in kept]
        mask = np.array([i in axes for i in range(rank)])
        return where(mask, np.int32(1), tf_shape(x))
    s = tf_shape(x)
    if axis is None:
        return ones_like(s)
    r = size(s)
    ax = floormod(reshape(np.array(axis, np.int32), [-1]), r)
    hit = reduce.reduce_any(equal(expand_dims(tf_range(r), 1), ax), axis=1)
    return where(hit, ones_like(s), s)


def reduced_grad(dy, x, axis, keep_dims):
    """``dy``, the gradient of a reduction of x over ``axis``, broadcast back to x's shape."""
    if not keep_dims:
        dy = reshape(dy, kept_shape(x, axis))
    return broadcast_to(dy, shape_of(x))


def reduced_count(x, y):
    """How many elements of x each element of y (a reduction of x) summarises, as x's dtype
    when static (a Python int) or a tensor of y's dtype."""
    xd, yd = static_dims(x), static_dims(y)
    if xd is not None and yd is not None:
        return int(np.prod(xd)) // max(int(np.prod(yd)), 1)
    n = cast(size(x), y.dtype)
    return n / maximum(cast(size(y), y.dtype), cast(1, y.dtype))


def normalized_axes(axis, rank):
    return _axes(axis, rank)


def via_composite(composite):
    """A rule that differentiates ``composite(*inputs, **attrs)``: the op rebuilt from public
    ops, under a tape of its own. Outer tapes record it all, so higher orders work."""

    def grad(op, g):
        xs = list(op.inputs)
        with GradientTape() as tape:
            tape.watch(xs)
            y = composite(*xs, **op.attrs)
        return tape.gradient(y, xs, output_gradients=g)

    return grad
