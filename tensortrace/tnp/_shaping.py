"""TF-NumPy's shape manipulation: reshape (C and Fortran order), transposes and axis moves,
squeeze/expand_dims/atleast_nd, joining and splitting, flips, rolls and rotations, tile,
repeat, pad and broadcasting."""

import numpy as np

from .. import dtypes as D
from ..ops.array import joining as J
from ..ops.array.broadcasting import broadcast_dynamic_shape, broadcast_to as _broadcast_to
from ..ops.array.padding import pad as _pad, tile as _tile
from ..ops.array.reshaping import expand_dims as _expand_dims, reshape as _reshape, transpose as _t
from ..ops.array.reshaping import squeeze as _squeeze
from ..ops.array.sequences import reverse
from ..ops.array.shapes import shape as _shape
from ..ops.indexing.slicing import roll as _roll
from ..ops.utility.counting import repeat as _repeat
from ._core import array, asarray, canonical_axis, result_type
from ._creation import full


def reshape(a, newshape, order="C"):
    """``tnp.reshape``: order "C" (row-major) or "F" (column-major)."""
    if order not in {"C", "F"}:
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    if isinstance(newshape, int):
        newshape = [newshape]
    if order == "F":
        r = _t(_reshape(_t(a), list(newshape)[::-1]))
    else:
        r = _reshape(a, newshape)
    return r


def _reshape_method(a, *newshape, **kwargs):
    """``tensor.reshape(2, 3)`` or ``tensor.reshape((2, 3), order=...)``."""
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


def ravel(a):
    return _reshape(asarray(a), [-1])


def flatten(a, order="C"):
    a = asarray(a)
    if order in ("C", "A", "K"):
        return _reshape(a, [-1])
    if order == "F":
        return _reshape(_t(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


def transpose(a, axes=None):
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return _t(a, axes)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = canonical_axis(axis1, rank), canonical_axis(axis2, rank)
    perm = list(range(rank))
    perm[axis1], perm[axis2] = axis2, axis1
    return _t(a, perm)


def moveaxis(a, source, destination):
    if not source and not destination:
        return a
    a = asarray(a)
    source = (source,) if isinstance(source, int) else source
    destination = (destination,) if isinstance(destination, int) else destination
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    rank = a.shape.rank
    source = tuple(canonical_axis(s, rank) for s in source)
    destination = tuple(canonical_axis(d, rank) for d in destination)
    perm = [i for i in range(rank) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return _t(a, perm)


def squeeze(a, axis=None):
    return _squeeze(asarray(a), axis)


def expand_dims(a, axis):
    return _expand_dims(asarray(a), axis)


def _atleast_nd(n, new_shape, *arys):
    def f(x):
        x = asarray(x)
        if n > x.shape.rank:
            x = _reshape(x, new_shape(n, x.shape.as_list()))
        return x

    arys = [f(x) for x in arys]
    return arys[0] if len(arys) == 1 else arys


def atleast_1d(*arys):
    return _atleast_nd(1, lambda n, s: [1] * (n - len(s)) + s, *arys)


def atleast_2d(*arys):
    return _atleast_nd(2, lambda n, s: [1] * (n - len(s)) + s, *arys)


def atleast_3d(*arys):
    def new_shape(n, s):  # NumPy: (N,) -> (1, N, 1); (M, N) -> (M, N, 1)
        return [1, s[0], 1] if len(s) == 1 else [1, 1, 1] if not s else s + [1]

    return _atleast_nd(3, new_shape, *arys)


def concatenate(arys, axis=0):
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError("Need at least one array to concatenate. Received empty input: "
                         f"arys={arys}")
    if axis is None:
        raise ValueError(f"Attempt to convert a value ({axis!r}) with an unsupported type "
                         f"({type(axis)}) to a Tensor.")
    dtype = result_type(*arys)
    return J.concat([array(a, dtype=dtype) for a in arys], axis)


def stack(arrays, axis=0):
    if isinstance(arrays, (list, tuple)):
        arrays = [asarray(a) for a in arrays]
        dtype = result_type(*arrays)
        return J.stack([array(a, dtype=dtype) for a in arrays], axis)
    arrays = asarray(arrays)
    return J.stack(J.unstack(arrays), axis) if axis not in (0, -arrays.shape.rank - 1) \
        else arrays


def hstack(tup):
    arrays = [atleast_1d(a) for a in tup]
    arrays = [array(a, dtype=result_type(*arrays)) for a in arrays]
    return J.concat(arrays, 0 if arrays[0].shape.rank == 1 else 1)


def vstack(tup):
    arrays = [atleast_2d(a) for a in tup]
    return J.concat([array(a, dtype=result_type(*arrays)) for a in arrays], 0)


def dstack(tup):
    arrays = [atleast_3d(a) for a in tup]
    return J.concat([array(a, dtype=result_type(*arrays)) for a in arrays], 2)


def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def split(ary, indices_or_sections, axis=0):
    """``tnp.split``: equal sections, or pieces cut at the given indices."""
    ary = asarray(ary)
    if not isinstance(indices_or_sections, int):
        size = ary.shape.as_list()[axis]
        cuts = [0] + [int(i) for i in indices_or_sections] + [size]
        indices_or_sections = [max(0, min(e, size) - min(s, size))
                               for s, e in zip(cuts, cuts[1:])]
    return J.split(ary, indices_or_sections, axis=axis)


def _split_on_axis(axis):
    def f(ary, indices_or_sections):
        return split(ary, indices_or_sections, axis=axis)

    return f


vsplit, dsplit = _split_on_axis(0), _split_on_axis(2)


def hsplit(ary, indices_or_sections):
    ary = asarray(ary)
    return split(ary, indices_or_sections, axis=0 if ary.shape.rank == 1 else 1)


def flip(m, axis=None):
    m = asarray(m)
    if axis is None:
        return reverse(m, list(range(m.shape.rank)))
    return reverse(m, [canonical_axis(axis, m.shape.rank)])


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is not None:
        return _roll(a, shift, axis)
    return _reshape(_roll(_reshape(a, [-1]), shift, 0), _shape(a))


def rot90(m, k=1, axes=(0, 1)):
    m = asarray(m)
    rank = m.shape.rank
    ax1, ax2 = (canonical_axis(a, rank) for a in axes)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(rank))
    perm[ax1], perm[ax2] = ax2, ax1
    return _t(flip(m, ax2), perm) if k == 1 else flip(_t(m, perm), ax2)


def tile(a, reps):
    a = array(a)
    reps = [int(r) for r in np.reshape(np.asarray(reps), [-1])]
    rank = a.shape.rank
    reps = [1] * max(rank - len(reps), 0) + reps
    if len(reps) > rank:
        a = _reshape(a, [1] * (len(reps) - rank) + a.shape.as_list())
    return _tile(a, reps)


def repeat(a, repeats, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _reshape(a, [-1]), 0
    repeats = asarray(repeats)
    return _repeat(a, repeats, axis)


def pad(array, pad_width, mode, **kwargs):  # noqa: A002 - NumPy's argument name
    """``tnp.pad``: modes "constant", "reflect" and "symmetric" (TF's MirrorPad)."""
    constant_values = kwargs.get("constant_values", 0)
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    array = asarray(array)
    pad_width = asarray(pad_width, dtype=D.int32)
    return _pad(array, pad_width, mode=mode.upper(), constant_values=constant_values)


def broadcast_to(array, shape):  # noqa: A002
    return full(shape, array)


def broadcast_arrays(*args, **kwargs):
    if kwargs.pop("subok", False):
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs.keys()}")
    args = [asarray(a) for a in args]
    if len(args) <= 1:
        return args
    shape = _shape(args[0])
    for a in args[1:]:
        shape = broadcast_dynamic_shape(shape, _shape(a))
    return [_broadcast_to(a, shape) for a in args]
