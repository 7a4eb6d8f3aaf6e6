"""TF-NumPy's indexing, selection, sorting and products: take/take_along_axis, where/nonzero,
compress/select, sort/argsort, dot/matmul/tensordot/inner/outer/vdot/kron/cross, einsum and
polyval."""

import numpy as np

from .. import dtypes as D
from .. import errors
from ..ops.array.broadcasting import broadcast_dynamic_shape, broadcast_to
from ..ops.array.joining import unstack
from ..ops.array.padding import pad as _pad
from ..ops.array.reshaping import reshape, transpose
from ..ops.array.shapes import shape as _shape
from ..ops.indexing.contraction import einsum as _einsum
from ..ops.indexing.gathering import boolean_mask, gather
from ..ops.indexing.sorting import argsort as _argsort, sort as _sort
from ..ops.linalg.composites import cross as _cross
from ..ops.linalg.products import matmul as _matmul, tensordot as _tensordot
from ..ops.math import arithmetic as A
from ..ops.math.casting import cast
from ..ops.math.clip import clip_by_value
from ..ops.math.select import where as _where
from ..ops.utility.composites import polyval as _polyval
from ._core import array, asarray, canonical_axis, config, promote, promote_binary, result_type
from ._math import conj
from ._shaping import atleast_1d, ravel


def take(a, indices, axis=None, out=None, mode="clip"):
    """``tnp.take``: out-of-range indices clipped ("clip") or wrapped ("wrap")."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a, indices = asarray(a), asarray(indices)
    if axis is None:
        a, axis = reshape(a, [-1]), 0
    size = a.shape.as_list()[axis]
    if mode == "clip":
        indices = clip_by_value(indices, 0, size - 1)
    elif mode == "wrap":
        indices = A.floormod(indices, size)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return gather(a, indices, axis=axis)


def take_along_axis(arr, indices, axis):
    """``tnp.take_along_axis``: NumPy's picks along ``axis`` with broadcast other axes."""
    arr, indices = asarray(arr), asarray(indices)
    if axis is None:
        return take_along_axis(ravel(arr), ravel(indices), 0)
    rank = arr.shape.rank
    if indices.shape.rank != rank:
        raise ValueError(f"`indices` must have the same rank as `arr`; got ranks "
                         f"{indices.shape.rank} and {rank}")
    axis = canonical_axis(axis, rank)
    size = arr.shape.as_list()[axis]
    indices = _where(indices < 0, indices + cast(size, indices.dtype), indices)
    perm = [i for i in range(rank) if i != axis] + [axis]
    arr_t, idx_t = transpose(arr, perm), transpose(indices, perm)
    lead = broadcast_dynamic_shape(_shape(arr_t)[:-1], _shape(idx_t)[:-1])
    arr_t = _broadcast_lead(arr_t, lead)
    idx_t = _broadcast_lead(idx_t, lead)
    out = gather(arr_t, idx_t, axis=rank - 1, batch_dims=rank - 1)
    back = [0] * rank
    for i, p in enumerate(perm):
        back[p] = i
    return transpose(out, back)


def _broadcast_lead(x, lead):
    """``x`` broadcast to leading dimensions ``lead``, its last dimension kept."""
    dims = [int(d) for d in np.asarray(lead)] + [x.shape.as_list()[-1]]
    return broadcast_to(x, dims)


def where(condition, x=None, y=None):
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = promote(x, y)
        return _where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


def nonzero(a):
    a = atleast_1d(a)
    if a.shape.rank is None:
        raise ValueError("The rank of `a` is unknown, so we can't decide how many arrays to "
                         "return.")
    return unstack(_where(cast(a, D.bool)), a.shape.rank, axis=1)


def compress(condition, a, axis=None):
    condition, a = asarray(condition, dtype=bool), asarray(a)
    if condition.shape.rank != 1:
        raise ValueError("condition must be a 1-d array.")
    if a.shape.rank == 0:
        a = ravel(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonical_axis(axis, a.shape.rank)
    size = a.shape.as_list()[axis]
    n = condition.shape.as_list()[0]
    if n < size:
        condition = _pad(condition, [[0, size - n]])
    elif n > size:
        condition = condition[:size]
    return boolean_mask(a, condition, axis=axis)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(condlist[::-1], choices[1:][::-1]):
        output = where(cond, choice, output)
    return output


def sort(a, axis=-1, kind="quicksort", order=None):
    if kind != "quicksort":
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" is '
                         f"supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    return _sort(reshape(a, [-1]), 0) if axis is None else _sort(a, axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    if kind not in ("quicksort", "stable"):
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" and '
                         f'kind="stable" are supported. Received: kind={kind}')
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError("argsort does not support complex64/complex128 dtypes. Received "
                        f"dtype: {a.dtype}")
    if axis is None:
        a, axis = reshape(a, [-1]), 0
    # np.intp (TF's new promotion modes: int, which they make int32)
    return cast(_argsort(a, axis, stable=kind == "stable"), result_type(int)
                if config.mode in ("safe", "all") else D.int64)


# --- products -----------------------------------------------------------------------------------
def _bin_op(fn, a, b):
    a, b = promote_binary(a, b)
    return fn(a, b)


def dot(a, b):
    def f(a, b):
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        return _tensordot(a, b, [[-1], [-1 if b.shape.rank == 1 else -2]])

    return _bin_op(f, a, b)


def matmul(x1, x2):
    """``tnp.matmul``: NumPy's rules for 1-D operands (a vector on either side)."""
    def f(x1, x2):
        try:
            if x2.shape.rank == 1:
                return _tensordot(x1, x2, 1)
            if x1.shape.rank == 1:
                return _tensordot(x1, x2, [[0], [-2]])
            return _matmul(x1, x2)
        except errors.InvalidArgumentError as err:
            raise ValueError(str(err)) from None

    return _bin_op(f, x1, x2)


def tensordot(a, b, axes=2):
    return _bin_op(lambda a, b: _tensordot(a, b, axes), a, b)


def inner(a, b):
    def f(a, b):
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        return _tensordot(a, b, [[-1], [-1]])

    return _bin_op(f, a, b)


def outer(a, b):
    return _bin_op(lambda a, b: reshape(a, [-1, 1]) * reshape(b, [-1]), a, b)


def vdot(a, b):
    a, b = promote_binary(a, b)
    a, b = reshape(a, [-1]), reshape(b, [-1])
    if a.dtype.is_complex:
        a = conj(a)
    return dot(a, b)


def kron(a, b):
    a, b = promote(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    sa = [1] * max(rb - ra, 0) + a.shape.as_list()
    sb = [1] * max(ra - rb, 0) + b.shape.as_list()
    a, b = reshape(a, sa), reshape(b, sb)
    a2 = reshape(a, [d for s in sa for d in (s, 1)])
    b2 = reshape(b, [d for s in sb for d in (1, s)])
    return reshape(a2 * b2, [x * y for x, y in zip(sa, sb)])


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``tnp.cross``: 3-vectors (2-vectors padded with a zero z; their cross product is the
    z component)."""
    def f(a, b):
        axis_a, axis_b, axis_c = (axisa, axisb, axisc) if axis is None else (axis,) * 3

        def to_last(x, ax):
            ax = canonical_axis(ax, x.shape.rank)
            perm = [i for i in range(x.shape.rank) if i != ax] + [ax]
            return transpose(x, perm) if ax != x.shape.rank - 1 else x

        a, b = to_last(a, axis_a), to_last(b, axis_b)
        a_dim, b_dim = a.shape.as_list()[-1], b.shape.as_list()[-1]

        def pad0(x):
            return _pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, 1]])

        a = pad0(a) if a_dim == 2 else a
        b = pad0(b) if b_dim == 2 else b
        shape = broadcast_dynamic_shape(_shape(a), _shape(b))
        c = _cross(broadcast_to(a, shape), broadcast_to(b, shape))
        if a_dim == 2 and b_dim == 2:
            return c[..., 2]
        rank = c.shape.rank
        axc = canonical_axis(axis_c, rank)
        if axc == rank - 1:
            return c
        perm = list(range(axc)) + [rank - 1] + list(range(axc, rank - 1))
        return transpose(c, perm)

    return _bin_op(f, a, b)


def einsum(subscripts, *operands, **kwargs):
    casting = kwargs.get("casting", "safe")
    optimize = kwargs.get("optimize", False)
    if casting == "safe":
        operands = promote(*operands)
    elif casting == "no":
        operands = [asarray(x) for x in operands]
    else:
        raise ValueError('Invalid value for argument `casting`. Expected casting="safe" or '
                         f'casting="no". Received: casting={casting}')
    if optimize not in (False, True, "greedy", "optimal"):
        raise ValueError('Invalid value for argument `optimize`. Expected one of {True, '
                         f'"greedy", "optimal"}}. Received: optimize={optimize}')
    return _einsum(subscripts, *operands)


def polyval(p, x):
    def f(p, x):
        if p.shape.rank == 0:
            p = reshape(p, [1])
        coeffs = unstack(p)
        y = _polyval(coeffs, x)
        if len(coeffs) == 1:
            y = broadcast_to(y, _shape(x))
        return y

    return _bin_op(f, p, x)
