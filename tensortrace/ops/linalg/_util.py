"""What the linalg ops share (nn uses ``static_attr`` and ``via_float32`` too): attrs that must
be static, half-precision BLAS calls, matrix transposes and TF's shape-function error texts."""

import numpy as np

from ...messages import enum_name, node_error, shape_text
from ...tensor import Tensor, static_value
from .._base import dtypes_named as _dtypes_named


def static_attr(value, what):
    """A Python value for an attr that must be known when the op is built."""
    if isinstance(value, Tensor):
        v = static_value(value)
        if v is None:
            raise TypeError(f"{what} must be a constant (a Python value), not a tensor whose "
                            f"value is only known when the function runs: {value!r}")
        value = v
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def via_float32(fn, x, *rest):
    """Run ``fn`` in float32 for float16/bfloat16 inputs (BLAS/LAPACK have no half kernels)."""
    dt = x.dtype
    if dt.itemsize == 2 and dt.kind in "fV":
        out = fn(x.astype(np.float32), *[r.astype(np.float32) for r in rest])
        return out.astype(dt)
    return fn(x, *rest)


def matrix_t(x, conjugate=False):
    """The (conjugate) transpose of the innermost two dims: a view when possible."""
    y = np.swapaxes(x, -1, -2)
    return np.conj(y) if conjugate and x.dtype.kind == "c" else y


def same_dim(x, y):
    """Two dims that may be equal (an unknown one matches anything)."""
    return x is None or y is None or x == y


# --- TF's shape-function error text ------------------------------------------------------------
def _attr_text(v):
    """An attr value as TF's node text prints it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, tuple):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def _input_shape(shape):
    """An input's shape in that text: TF's shape functions print an unknown rank as ``?``."""
    return "?" if shape.rank is None else shape_text(shape)


def shape_fn_error(op_name, what, dtype, attrs, inputs, names=("a", "b")):
    """The ValueError a shape function raises while a graph is built, naming the node (its
    ``T``, then ``attrs``), its input names and the inputs' shapes."""
    attr_text = ", ".join([f"T=DT_{enum_name(dtype)}"]
                          + [f"{k}={_attr_text(v)}" for k, v in attrs.items()])
    return node_error(what, op_name, [_input_shape(t.shape) for t in inputs], attr_text,
                      ", ".join(names[:len(inputs)]))


def rank_error(op_name, need, rank, dtype, attrs, inputs, names=("a", "b")):
    """``shape_fn_error`` for an input of rank ``rank`` where ``need`` ("at least rank 2")."""
    return shape_fn_error(op_name, f"Shape must be {need} but is rank {rank}", dtype, attrs,
                          inputs, names)


# --- nn's spellings of shared helpers (nn imports them from here until its own split) -------
def dtypes_named(*names):
    """``_base.dtypes_named`` with the names as separate arguments."""
    return _dtypes_named(" ".join(names))
