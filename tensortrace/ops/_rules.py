"""Shared op rules: dtype sets and checks, broadcasting, and the one-line op families
(``unary``/``binary``) that most elementwise ops are defined with."""

import numpy as np

from .. import dtypes as D
from ..errors import invalid_argument
from ..registry import DtypeCheck, OpDef, register
from ..shapes import TensorShape
from ..tensor import TensorSpec

# --- dtype sets (TF's OpDef "allowed" lists) -------------------------------------------------
FLOAT = (D.float16, D.float32, D.float64) + ((D.bfloat16,) if D.bfloat16 else ())
COMPLEX = (D.complex64, D.complex128)
SIGNED_INT = (D.int8, D.int16, D.int32, D.int64)
UNSIGNED_INT = (D.uint8, D.uint16, D.uint32, D.uint64)
INT = SIGNED_INT + UNSIGNED_INT
REAL = FLOAT + INT
NUMERIC = REAL + COMPLEX
SIGNED = FLOAT + SIGNED_INT + COMPLEX
FLOAT_COMPLEX = FLOAT + COMPLEX
BOOL = (D.bool,)
ALL = NUMERIC + BOOL + (D.string,)

_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def c_name(dtype):
    """TF's C++ name of a dtype, as its runtime error messages spell it ("float", "double")."""
    return _C_NAMES.get(dtype.name, dtype.name)


def make_check(op_name, allowed, same=2):
    """An eager check: the first ``same`` inputs share one dtype from ``allowed``."""
    return DtypeCheck(op_name, allowed, same)


def check_dtypes(op_name, tensors, allowed, names=("x", "y", "z")):
    """Graph-time dtype check (TypeError, as TF raises while building a graph)."""
    first = tensors[0].dtype
    if allowed is not None and first not in allowed:
        raise TypeError(f"Value passed to parameter '{names[0]}' has DataType {first.name} not in "
                        f"list of allowed values: {', '.join(d.name for d in allowed)}")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != first:
            raise TypeError(f"Input '{names[i]}' of '{op_name}' Op has type {t.dtype.name} that "
                            f"does not match type {first.name} of argument '{names[0]}'.")
    return first


def broadcast_shape(a, b, op_name="BroadcastTo"):
    """The broadcast of two TensorShapes (unknown dims stay unknown where undecidable).

    Raises:
        ValueError: naming both shapes when they cannot broadcast.
    """
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = a.dims, b.dims
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for "
                             f"'{{{{node {op_name}}}}} = {op_name}[T=DT_FLOAT](x, y)' with input "
                             f"shapes: {a}, {b}.")
    return TensorShape(out)


def unbroadcast_axes(shape, target_shape):
    """Axes to sum ``shape`` over to get back ``target_shape`` (both tuples of ints)."""
    lead = len(shape) - len(target_shape)
    axes = list(range(lead))
    axes += [i + lead for i, d in enumerate(target_shape) if d == 1 and shape[i + lead] != 1]
    return tuple(axes)


# --- op families ------------------------------------------------------------------------------
def unary(name, kernel, allowed=NUMERIC, expr=None, out_dtype=None, grad=None):
    """Register an elementwise one-input op; ``out_dtype`` maps the input DType to the output's."""

    def infer(x):
        check_dtypes(name, (x,), allowed)
        return TensorSpec(x.shape, out_dtype(x.dtype) if out_dtype else x.dtype)

    return register(OpDef(name, infer, kernel, grad=grad, expr=expr,
                          check=make_check(name, allowed, same=1)))


def binary(name, kernel, allowed=NUMERIC, expr=None, out_dtype=None, grad=None):
    """Register an elementwise broadcasting two-input op whose inputs share one dtype."""

    def infer(x, y):
        dtype = check_dtypes(name, (x, y), allowed)
        return TensorSpec(broadcast_shape(x.shape, y.shape, name),
                          out_dtype(dtype) if out_dtype else dtype)

    return register(OpDef(name, infer, kernel, grad=grad, expr=expr,
                          check=make_check(name, allowed, same=2)))


try:  # NumPy 2 keeps its error state in a context variable: setting it directly is cheap
    from numpy._core._ufunc_config import _extobj_contextvar as EXTOBJ
    from numpy._core._ufunc_config import _make_extobj

    IGNORE = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - NumPy 1.x
    EXTOBJ = IGNORE = None


def quiet(kernel):
    """``kernel`` with NumPy's inf/nan warnings silenced (TF returns inf and nan quietly).

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
    return run
