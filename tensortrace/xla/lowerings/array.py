"""Lowerings of shape and array ops: reshapes, joins, slices, gathers, fills. Their shape
inputs must be known at compile time (TF's XLA rule): ``static`` raises TF's error otherwise."""

import numpy as np
from jax import lax
from jax import numpy as jnp

from ...dtypes import as_dtype
from ...ops.array.reshaping import _resolve_reshape
from ...ops.indexing.slicing import strided_index
from ..compiler import lowering, simple, static

simple("Identity", lambda x: x)
simple("StopGradient", lax.stop_gradient)
simple("PreventGradient", lambda x: x)
simple("ZerosLike", jnp.zeros_like)
simple("OnesLike", jnp.ones_like)
simple("IndexAxis0", lambda x, i: x[i])


def _ints(value, op, index):
    return [int(v) for v in np.reshape(static(value, op, index), -1)]


@lowering("IdentityN")
def _identity_n(op, *xs, **attrs):
    return tuple(xs)


@lowering("Roll")
def _roll(op, x, shift, axis):
    """TF's Roll: the axes an attr (repeated ones add up), the shifts may be computed."""
    axes = axis if isinstance(axis, tuple) else (axis,)
    shifts = jnp.reshape(shift, (-1,))
    for i, a in enumerate(axes):
        x = jnp.roll(x, shifts[i], a)
    return x


@lowering("TensorScatterUpdate")
def _tensor_scatter_update(op, tensor, indices, updates):
    """Slices of ``tensor`` replaced at ``indices`` (their last axis indexes the leading axes);
    XLA drops updates out of range, negative indices included."""
    depth = indices.shape[-1]
    where = tuple(jnp.where(indices[..., i] < 0, tensor.shape[i], indices[..., i])
                  for i in range(depth))
    return tensor.at[where].set(updates, mode="drop")


@lowering("Reshape")
def _reshape(op, x, shape):
    return jnp.reshape(x, _resolve_reshape(x, _ints(shape, op, 1)))


@lowering("Transpose")
def _transpose(op, x, perm):
    return jnp.transpose(x, None if perm is None else [int(p) for p in perm])


@lowering("ExpandDims")
def _expand_dims(op, x, axis):
    return jnp.expand_dims(x, int(axis))


@lowering("Squeeze")
def _squeeze(op, x, squeeze_dims):
    return jnp.squeeze(x, tuple(squeeze_dims) if squeeze_dims else None)


@lowering("ConcatV2")
def _concat(op, *values, axis):
    return jnp.concatenate(values, axis=int(axis))


@lowering("Pack")
def _pack(op, *values, axis):
    return jnp.stack(values, axis=int(axis))


@lowering("Unpack")
def _unpack(op, value, num, axis):
    return tuple(jnp.moveaxis(value, int(axis), 0)[i] for i in range(num))


@lowering("Split")
def _split(op, value, num_split, axis):
    return tuple(jnp.split(value, num_split, axis=int(axis) % value.ndim))


@lowering("SplitV")
def _split_v(op, value, size_splits, num_split, axis):
    """The sizes must be known when compiling (TF's XLA rule for SplitV's input 1)."""
    axis = int(axis) % value.ndim
    sizes = _ints(size_splits, op, 1)
    if -1 in sizes:
        sizes[sizes.index(-1)] = value.shape[axis] - sum(s for s in sizes if s != -1)
    return tuple(jnp.split(value, np.cumsum(sizes)[:-1].tolist(), axis=axis))


@lowering("Tile")
def _tile(op, x, multiples):
    return jnp.tile(x, _ints(multiples, op, 1))


@lowering("BroadcastTo")
def _broadcast_to(op, x, shape):
    return jnp.broadcast_to(x, tuple(_ints(shape, op, 1)))


@lowering("SumToShape")
def _sum_to_shape(op, x, shape):
    target = tuple(_ints(shape, op, 1))
    if x.shape == target:
        return x
    lead = x.ndim - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target) if d == 1 and x.shape[lead + i] != 1)
    return jnp.sum(x, axis=axes, dtype=x.dtype).reshape(target)


@lowering("Fill")
def _fill(op, dims, value):
    return jnp.full(tuple(_ints(dims, op, 0)), jnp.reshape(value, ()))


@lowering("Pad", "PadV2")
def _pad(op, x, paddings, *constant_values, **attrs):
    pads = np.reshape(static(paddings, op, 1), (-1, 2)).tolist()
    value = jnp.reshape(constant_values[0], ()) if constant_values else 0
    return jnp.pad(x, pads, constant_values=value)


@lowering("Shape")
def _shape(op, x, out_type):
    return np.array(np.shape(x), as_dtype(out_type)._np)


@lowering("Size")
def _size(op, x, out_type):
    return np.array(np.size(x), as_dtype(out_type)._np)


@lowering("Rank")
def _rank(op, x):
    return np.int32(np.ndim(x))


@lowering("StridedSlice")
def _strided_slice(op, x, begin, end, strides, **masks):
    index = strided_index(np.shape(x), _ints(begin, op, 1), _ints(end, op, 2),
                          _ints(strides, op, 3), **masks)
    return x[index]


@lowering("StridedSliceGrad")
def _strided_slice_grad(op, shape, begin, end, strides, dy, **masks):
    shape = tuple(_ints(shape, op, 0))
    index = strided_index(shape, _ints(begin, op, 1), _ints(end, op, 2),
                          _ints(strides, op, 3), **masks)
    out = jnp.zeros(shape, dy.dtype)
    return out.at[index].set(jnp.reshape(dy, out[index].shape))


@lowering("Slice")
def _slice(op, x, begin, size):
    begin, size = _ints(begin, op, 1), _ints(size, op, 2)
    size = [x.shape[i] - b if s == -1 else s for i, (b, s) in enumerate(zip(begin, size))]
    return lax.slice(x, begin, [b + s for b, s in zip(begin, size)])


@lowering("GatherV2")
def _gather(op, params, indices, axis, batch_dims):
    axis = int(axis) % params.ndim
    if batch_dims:
        raise NotImplementedError("batch_dims in GatherV2")
    return jnp.take(params, indices, axis=axis, mode="clip")


@lowering("Range")
def _range(op, start, limit, delta):
    start, limit, delta = (static(v, op, i).item() for i, v in enumerate((start, limit, delta)))
    dtype = op.outputs[0].dtype._np
    return np.arange(start, limit, delta).astype(dtype)


@lowering("OneHot")
def _one_hot(op, indices, depth, on_value, off_value, axis):
    depth = int(static(depth, op, 1))
    hot = jnp.expand_dims(indices, -1) == jnp.arange(depth, dtype=indices.dtype)
    out = jnp.where(hot, on_value, off_value)
    return jnp.moveaxis(out, -1, axis) if axis not in (-1, out.ndim - 1) else out


@lowering("MatrixBandPart")
def _band_part(op, x, num_lower, num_upper):
    # the band's bounds may be traced values (tf.linalg.band_part(x, -1, k) with a tensor k)
    i = jnp.arange(x.shape[-2])[:, None]
    j = jnp.arange(x.shape[-1])[None, :]
    keep = (((num_lower < 0) | (i - j <= num_lower))
            & ((num_upper < 0) | (j - i <= num_upper)))
    return jnp.where(keep, x, jnp.zeros((), x.dtype))


@lowering("ReverseV2")
def _reverse(op, x, axis):
    return jnp.flip(x, tuple(_ints(axis, op, 1)))


@lowering("Cumsum", "Cumprod")
def _cumulative(op, x, axis, exclusive, reverse):
    axis = int(axis) % x.ndim
    fn = jnp.cumsum if op.type == "Cumsum" else jnp.cumprod
    if reverse:
        x = jnp.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        first = jnp.zeros_like if op.type == "Cumsum" else jnp.ones_like
        out = jnp.concatenate([first(lax.slice_in_dim(out, 0, 1, axis=axis)),
                               lax.slice_in_dim(out, 0, x.shape[axis] - 1, axis=axis)], axis)
    return jnp.flip(out, axis) if reverse else out
