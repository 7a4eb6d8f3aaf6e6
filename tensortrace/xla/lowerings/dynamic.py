"""``Where`` under XLA: a bounded dynamic first dimension, as TF's XLA compiles it. The result
is padded to its bound (the mask's size) and carries its row count; the ops that take such a
value here keep the padding apart (GatherNd by its indices, LowerBound/UpperBound, ExpandDims
past the first axis, Shape into Fill), and ScatterNd drops the padded rows, giving a static
shape again, as do reductions over the first axis (the padding filled with the reduction's
identity): ``tf.boolean_mask`` feeding a histogram's scatter or a sum compiles. Any other op given
such a value fails to compile with a message saying so (JAX has no dynamic shapes)."""

import numpy as np
from jax import lax
from jax import numpy as jnp

from ..compiler import LOWERINGS, lowering
from . import array, indexing, nn  # noqa: F401 - the lowerings this one extends, first

_TAKERS = ("GatherNd, LowerBound, UpperBound, ExpandDims (past the first axis), Shape into Fill, "
           "and ScatterNd and the reductions (whose results have static shapes)")


class Bounded:
    """A value whose first dimension is known only at run time: ``data``, padded to the bound,
    and ``count``, its rows (a traced scalar)."""

    __slots__ = ("count", "data")

    def __init__(self, data, count):
        self.data, self.count = data, count

    def _refuse(self):
        raise TypeError("its first dimension depends on the data (a Where's result): XLA "
                        f"compiles such a value here only into {_TAKERS}")

    shape = dtype = ndim = property(_refuse)

    def __jax_array__(self):
        self._refuse()

    __array__ = __jax_array__


class BoundedShape:
    """The shape of a Bounded value: static dims, the first one its traced row count."""

    __slots__ = ("count", "dims")

    def __init__(self, dims, count):
        self.dims, self.count = dims, count

    shape = dtype = ndim = property(Bounded._refuse)
    __jax_array__ = __array__ = Bounded.__jax_array__


def _also_bounded(name):
    """Decorator: ``handle`` lowers ``name`` when an input is Bounded (or its shape); the
    op's own lowering takes the other cases."""
    def wrap(handle):
        base = LOWERINGS[name]

        def lower(op, *xs, **attrs):
            if any(isinstance(x, (Bounded, BoundedShape)) for x in xs):
                return handle(op, base, *xs, **attrs)
            return base(op, *xs, **attrs)

        LOWERINGS[name] = lower
        return handle
    return wrap


def _plain(x, op):
    if isinstance(x, (Bounded, BoundedShape)):
        x._refuse()
    return x


@lowering("Where")
def _where(op, condition):
    """TF's Where: the coordinates of the true elements, row-major, as int64."""
    mask = jnp.asarray(condition) != 0
    coords = jnp.argwhere(mask, size=mask.size, fill_value=0).astype(jnp.int64)
    return Bounded(coords, jnp.sum(mask, dtype=jnp.int32))


@_also_bounded("GatherNd")
def _gather_nd(op, base, params, indices, **attrs):
    """Padded index rows gather some valid element (index 0): their rows stay padding."""
    return Bounded(base(op, _plain(params, op), indices.data, **attrs), indices.count)


def _bound(name):
    @_also_bounded(name)
    def lower(op, base, sorted_inputs, values, **attrs):
        if values.data.ndim != 1:  # the bounded rows would be the searches' leading dims
            values._refuse()
        return Bounded(base(op, _plain(sorted_inputs, op), values.data, **attrs),
                       values.count)
    return lower


_bound("LowerBound")
_bound("UpperBound")


@_also_bounded("ExpandDims")
def _expand_dims(op, base, x, axis):
    if int(axis) in (0, -x.data.ndim - 1):
        x._refuse()
    return Bounded(jnp.expand_dims(x.data, int(axis)), x.count)


@_also_bounded("Shape")
def _shape(op, base, x, out_type):
    return BoundedShape(x.data.shape, x.count)


@_also_bounded("Fill")
def _fill(op, base, dims, value):
    if not isinstance(dims, BoundedShape):
        dims._refuse()
    return Bounded(jnp.full(dims.dims, jnp.reshape(_plain(value, op), ())), dims.count)


@_also_bounded("ScatterNd")
def _scatter_nd(op, base, indices, updates, shape):
    """Padded rows scatter nowhere: their indices move out of range, which XLA drops."""
    indices, updates = _plain_rows(indices), _plain_rows(updates)
    counts = [x.count for x in (indices, updates) if isinstance(x, Bounded)]
    rows = indices.data if isinstance(indices, Bounded) else indices
    valid = jnp.arange(rows.shape[0]) < counts[0]
    valid = valid.reshape(valid.shape + (1,) * (rows.ndim - 1))
    out_of_range = jnp.iinfo(rows.dtype).max
    moved = jnp.where(valid, rows, out_of_range)
    data = updates.data if isinstance(updates, Bounded) else updates
    return base(op, moved, data, shape)


def _plain_rows(x):
    if isinstance(x, BoundedShape):
        x._refuse()
    return x


def _identity(kind, dtype):
    """What padded rows hold so that a reduction ignores them."""
    if kind in ("Sum", "Mean", "Any"):
        return 0
    if kind in ("Prod", "All"):
        return 1
    if jnp.issubdtype(dtype, jnp.floating):
        return -np.inf if kind == "Max" else np.inf
    info = jnp.iinfo(dtype)
    return info.min if kind == "Max" else info.max


def _reduction(kind):
    @_also_bounded(kind)
    def lower(op, base, x, axis, keep_dims):
        rank = x.data.ndim
        axes = range(rank) if axis is None else [int(a) % rank for a in axis]
        if 0 not in axes:  # the rows stay: each reduced on its own, the padding too
            return Bounded(base(op, x.data, axis, keep_dims), x.count)
        valid = jnp.arange(x.data.shape[0]) < x.count
        valid = valid.reshape(valid.shape + (1,) * (rank - 1))
        data = jnp.where(valid, x.data, jnp.asarray(_identity(kind, x.data.dtype),
                                                     x.data.dtype))
        return base(op, data, axis, keep_dims)
    return lower


for _kind in ("Sum", "Prod", "Max", "Min", "All", "Any"):
    _reduction(_kind)


@_also_bounded("Mean")
def _mean(op, base, x, axis, keep_dims):
    """The sum over the valid rows divided by their number (integers truncating, as TF)."""
    rank = x.data.ndim
    axes = sorted({int(a) % rank for a in (range(rank) if axis is None else axis)})
    if 0 not in axes:
        return Bounded(base(op, x.data, axis, keep_dims), x.count)
    valid = (jnp.arange(x.data.shape[0]) < x.count).reshape((-1,) + (1,) * (rank - 1))
    wide = jnp.int64 if jnp.issubdtype(x.data.dtype, jnp.integer) else x.data.dtype
    total = jnp.sum(jnp.where(valid, x.data, 0), axis=tuple(axes), keepdims=keep_dims,
                    dtype=wide)
    n = x.count.astype(wide) * int(np.prod([x.data.shape[a] for a in axes[1:]], dtype=np.int64))
    if jnp.issubdtype(wide, jnp.integer):  # truncating, as TF's integer mean
        return lax.div(total, jnp.maximum(n, 1)).astype(x.data.dtype)
    return (total / n).astype(x.data.dtype)
