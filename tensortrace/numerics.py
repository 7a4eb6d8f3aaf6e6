"""NumPy helpers shared by the kernels and the generated code: silencing NumPy's inf/nan
warnings cheaply (TF returns inf and nan quietly), half precision through float32 kernels.

    >>> quiet(np.log)(np.float32(0))
    -inf
"""

import numpy as np

try:  # NumPy 2 keeps its error state in a context variable: setting it directly is cheap
    from numpy._core._ufunc_config import _extobj_contextvar as EXTOBJ
    from numpy._core._ufunc_config import _make_extobj

    IGNORE = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - NumPy 1.x
    EXTOBJ = IGNORE = None


def quiet(kernel):
    """``kernel`` with NumPy's inf/nan warnings silenced.

    Costs about a quarter of ``np.errstate`` on NumPy 2, which matters on the eager hot path.
    """
    if EXTOBJ is None:  # pragma: no cover - NumPy 1.x

        def run(*args, **attrs):
            with np.errstate(all="ignore"):
                return kernel(*args, **attrs)
    else:
        set_state, reset_state = EXTOBJ.set, EXTOBJ.reset

        def run(*args, **attrs):
            token = set_state(IGNORE)
            try:
                return kernel(*args, **attrs)
            finally:
                reset_state(token)

    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__wrapped__ = kernel  # what it computes (codegen calls a wrapped ufunc with out=)
    return run


def quiet2(ufunc):
    """``quiet`` for a two-input function, without the generic call's packing (the hot path)."""
    if EXTOBJ is None:  # pragma: no cover - NumPy 1.x
        return quiet(ufunc)
    set_state, reset_state = EXTOBJ.set, EXTOBJ.reset

    def run(x, y):
        token = set_state(IGNORE)
        try:
            return ufunc(x, y)
        finally:
            reset_state(token)

    run.__name__ = getattr(ufunc, "__name__", "kernel")
    run.__wrapped__ = ufunc
    return run


def via_float32(fn, x, *rest):
    """Run ``fn`` in float32 for float16/bfloat16 inputs (BLAS/LAPACK have no half kernels)."""
    dt = x.dtype
    if dt.itemsize == 2 and dt.kind in "fV":
        out = fn(x.astype(np.float32), *[r.astype(np.float32) for r in rest])
        return out.astype(dt)
    return fn(x, *rest)
