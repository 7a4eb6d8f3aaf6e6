"""What every op family shares: TF's dtype lists, the graph-time dtype checks, broadcasting, and
the one-line families most elementwise ops are defined with.

    SQRT = unary("Sqrt", quiet(np.sqrt), FLOAT_COMPLEX)         # registers the OpDef

Eager dtype checks are ``registry.DtypeCheck`` (the families build theirs).
"""

import numpy as np

from .. import dtypes as D
from ..graph.ir import STATIC_LIMIT
from ..messages import attr_dtype_error, node_error, shape_text
from ..registry import DtypeCheck, OpDef, register
from ..shapes import TensorShape
from ..tensor import TensorSpec, static_value


# --- dtype sets (TF's OpDef "allowed" lists) -------------------------------------------------
def dtypes_named(names):
    """DTypes by name, in the order given (TF's error messages list them in its OpDef order);
    bfloat16 is skipped when ml_dtypes is not installed."""
    return tuple(d for d in (getattr(D, n) for n in names.split()) if d is not None)


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
INDEX = (D.int32, D.int64)


# --- graph-time checks (TypeError, as TF raises while building a graph) -----------------------
def check_dtypes(op_name, tensors, allowed, names=("x", "y", "z")):
    """The inputs share one dtype from ``allowed`` (None: any); returns it."""
    first = tensors[0].dtype
    if allowed is not None and first not in allowed:
        raise TypeError(f"Value passed to parameter '{names[0]}' has DataType {first.name} not in "
                        f"list of allowed values: {', '.join(d.name for d in allowed)}")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first:
            raise TypeError(f"Input '{names[i]}' of '{op_name}' Op has type {t.dtype.name} that "
                            f"does not match type {first.name} of argument '{names[0]}'.")
    return first


def check_fixed(op_name, tensors, names, dtype=D.bool):
    """Inputs whose dtype the op fixes (a bool condition, int32 indices)."""
    for t, n in zip(tensors, names):
        if t.dtype != dtype:
            raise TypeError(f"Input '{n}' of '{op_name}' Op has type {t.dtype.name} that does "
                            f"not match expected type of {dtype.name}.")


def check_index(op_name, t, param):
    """An index input (shape, multiples, paddings) is int32 or int64."""
    check_dtypes(op_name, (t,), INDEX, (param,))


def check_out_type(op_name, out_type, allowed=INDEX, param="out_type"):
    """An output-dtype attr is in ``allowed``."""
    if out_type not in allowed:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {out_type.name} not in "
                        f"list of allowed values: {', '.join(d.name for d in allowed)}")


def kernel_out_type(out_type, allowed=INDEX, attr="out_type", op_name=None):
    """The eager check of an output-dtype attr (kernels see attrs; ``check`` does not)."""
    if out_type not in allowed:
        raise attr_dtype_error(op_name, attr, out_type, allowed)


# --- shapes ------------------------------------------------------------------------------------
def graph_error(op_name, message, *shapes):
    """The ValueError TF's shape functions raise while a graph is built."""
    return node_error(message, op_name, [shape_text(TensorShape(s)) for s in shapes])


def broadcast_shape(a, b, op_name="BroadcastTo"):
    """The broadcast of two TensorShapes (unknown dims stay unknown where undecidable).

    Raises:
        ValueError: naming both shapes when they cannot broadcast.
    """
    da, db = a._dims, b._dims
    if da is None or db is None:
        return TensorShape(None)
    if da == db or not db:  # the common cases: equal shapes, a scalar
        return a
    if not da:
        return b
    da, db = list(da), list(db)
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


# --- kernels -----------------------------------------------------------------------------------
def object_result(out):
    """NumPy returns bare Python objects (bytes) from 0-d object ops; keep them arrays."""
    return out if isinstance(out, (np.ndarray, np.generic)) else np.array(out, dtype=object)


def bounded_static(opdef):
    """Give ``opdef`` a trace-time value rule that skips large outputs (Fill, Tile, Range ...
    can turn small known inputs into big arrays)."""

    def rule(*inputs, **attrs):
        statics = [static_value(t) for t in inputs]
        if any(s is None or s.size > STATIC_LIMIT for s in statics):
            return None
        try:
            spec = opdef.infer(*inputs, **attrs)
            if not spec.shape.is_fully_defined() or spec.shape.num_elements() > STATIC_LIMIT:
                return None
            with np.errstate(all="ignore"):
                return opdef.kernel(*statics, **attrs)
        except Exception:  # noqa: BLE001 - the op raises when it runs, with the runtime's error
            return None

    opdef.static = rule
    return opdef


# --- op families ---------------------------------------------------------------------------------
def unary(name, kernel, allowed, *, kernels=None, expr=None, out=None, arg="x"):
    """Register an elementwise one-input op; ``out`` is its output DType when fixed (bool);
    ``kernels`` the dtypes with a CPU kernel when fewer than ``allowed``."""

    accepted = None if allowed is None else frozenset(allowed)

    def infer(x):
        dtype = x.dtype
        if accepted is not None and dtype not in accepted:
            check_dtypes(name, (x,), allowed, (arg,))  # raises TF's error
        return TensorSpec(x.shape, out or dtype)

    return register(OpDef(name, infer, kernel, expr=expr,
                          check=DtypeCheck(name, allowed, 1, kernels=kernels)))


def binary(name, kernel, allowed, *, kernels=None, expr=None, out=None, args=("x", "y")):
    """Register an elementwise broadcasting two-input op whose inputs share one dtype."""

    accepted = None if allowed is None else frozenset(allowed)

    def infer(x, y):
        dtype = x.dtype
        if accepted is not None and dtype not in accepted or y.dtype is not dtype:
            check_dtypes(name, (x, y), allowed, args)  # raises TF's error
        return TensorSpec(broadcast_shape(x.shape, y.shape, name), out or dtype)

    return register(OpDef(name, infer, kernel, expr=expr,
                          check=DtypeCheck(name, allowed, 2, kernels=kernels)))
