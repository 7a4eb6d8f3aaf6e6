"""Lowerings of gathers and scatters by index tuples (GatherNd, ScatterNd), sorted searches
(LowerBound, UpperBound) and LinSpace. As in XLA, gathered indices out of range are clamped
and scattered ones dropped."""

import jax
import numpy as np
from jax import numpy as jnp

from ...dtypes import as_dtype
from ..compiler import lowering, static


def _index_tuple(indices):
    """The index tuple ``indices[..., k]`` for each ``k`` of its last dimension."""
    return tuple(jnp.moveaxis(indices, -1, 0))


@lowering("GatherNd")
def _gather_nd(op, params, indices, batch_dims=0):
    if batch_dims:
        raise ValueError("GatherNd with batch_dims is not lowered")
    return params[_index_tuple(indices)]


@lowering("ScatterNd")
def _scatter_nd(op, indices, updates, shape):
    shape = tuple(int(d) for d in np.reshape(static(shape, op, 2), -1))
    return jnp.zeros(shape, updates.dtype).at[_index_tuple(indices)].add(updates, mode="drop")


def _bound(side):
    def lower(op, sorted_inputs, values, out_type):
        rows = int(np.prod(sorted_inputs.shape[:-1], dtype=np.int64))  # TF flattens them
        seq = jnp.reshape(sorted_inputs, (rows, sorted_inputs.shape[-1]))
        flat = jnp.reshape(values, (rows, values.shape[-1]))
        out = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(seq, flat)
        return jnp.reshape(out, values.shape).astype(as_dtype(out_type)._np)
    return lower


lowering("LowerBound")(_bound("left"))
lowering("UpperBound")(_bound("right"))


@lowering("LinSpace")
def _linspace(op, start, stop, num, axis=0):
    """The kernel's arithmetic: ``start + i * step`` and ``stop`` itself last."""
    n = int(static(num, op, 2))
    s, e = jnp.asarray(start)[..., None], jnp.asarray(stop)[..., None]
    s, e = jnp.broadcast_arrays(s, e)
    if n <= 1:
        out = s[..., :n]
    else:
        step = (e - s) / jnp.asarray(n - 1, s.dtype)
        out = jnp.concatenate([s + jnp.arange(n - 1, dtype=s.dtype) * step, e], -1)
    return jnp.moveaxis(out, -1, axis)
