"""What the linalg ops share: matrix transposes, dims that may match, TF's rank errors."""

import numpy as np

from ...messages import shape_fn_error


def matrix_t(x, conjugate=False):
    """The (conjugate) transpose of the innermost two dims: a view when possible."""
    y = np.swapaxes(x, -1, -2)
    return np.conj(y) if conjugate and x.dtype.kind == "c" else y


def same_dim(x, y):
    """Two dims that may be equal (an unknown one matches anything)."""
    return x is None or y is None or x == y


def rank_error(op_name, need, rank, dtype, attrs, inputs, names=("a", "b")):
    """``shape_fn_error`` for an input of rank ``rank`` where ``need`` ("at least rank 2")."""
    return shape_fn_error(op_name, f"Shape must be {need} but is rank {rank}", dtype, attrs,
                          inputs, names)
