"""What the indexing ops share: NumPy picks as TF values, TF's index-error texts, and the
conversion of arguments that share one dtype."""

import numpy as np

from ... import dtypes as D
from ...convert import constant, convert_to_tensor
from ...errors import invalid_argument
from ...tensor import Tensor
from ..array.shapes import shape as tf_shape

#: The index dtypes of gather, scatter_nd, top-k's k and segment ids (``_base.INDEX`` plus int16).
INDEX16 = (D.int16, D.int32, D.int64)


def result(out):
    """NumPy gives scalars for 0-d numeric picks and bare bytes for strings; TF values are arrays
    or NumPy scalars, with 0-d strings as 0-d object arrays."""
    if type(out) is np.ndarray:
        return out[()] if out.ndim == 0 and out.dtype != object else out
    if isinstance(out, np.generic):
        return out
    return np.array(out, dtype=object)


def position(index):
    """A multi-index as TF's messages print it: ``1,0,2``."""
    return ",".join(str(int(i)) for i in index)


def nd_bounds(indices, limits, message, batch_dims=0):
    """Raise ``message(position, coords)`` for the first index row outside ``limits``; with
    ``batch_dims``, the coordinates start with the row's batch position (TF prepends it)."""
    bad = ((indices < 0) | (indices >= np.asarray(limits, dtype=np.int64))).any(-1)
    if bad.any():
        pos = np.unravel_index(int(np.argmax(bad)), bad.shape)
        at = f"indices[{position(pos)}]" if bad.ndim else "indices"
        coords = ", ".join(str(int(c)) for c in tuple(pos[:batch_dims]) + tuple(indices[pos]))
        raise invalid_argument(message(at, coords))


def to_tensor_like(value, like):
    """``value`` as a tensor of ``like``'s dtype when it is a Python value (updates, shapes)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype_hint=like.dtype)


def shape_tensor(x):
    """``tf.shape(x)``, as a constant when the shape is fully known."""
    if x.shape.is_fully_defined():
        return constant(np.array(x.shape.dims, np.int32).reshape(-1))
    return tf_shape(x)
