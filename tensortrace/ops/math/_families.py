"""The row most math ops are: one call that registers an elementwise op and makes its public
function, plus the dtype lists several of math's modules share.

    SQRT, sqrt = unary_op("Sqrt", quiet(np.sqrt), FLOATING_COMPLEX, "math.sqrt", "sqrt")
"""

from ..._export import export_function
from ...composite import fallback
from ...context import bind
from ...graph.naming import default_name
from .._base import binary, dtypes_named, unary
from .operands import as_tensor, same_dtype_operands

# TF's allowed lists in its OpDef order, bfloat16 first (its messages list them so; _base.FLOAT
# puts bfloat16 last, the order of other ops).
FLOATING = dtypes_named("bfloat16 float16 float32 float64")
FLOATING_COMPLEX = dtypes_named("bfloat16 float16 float32 float64 complex64 complex128")
F16_F32_F64 = dtypes_named("float16 float32 float64")
F32_F64 = dtypes_named("float32 float64")
I32_I64 = dtypes_named("int32 int64")


def unary_op(name, kernel, allowed, *names, doc="", **family):
    """Register the one-input op ``name`` (``_base.unary``, which takes ``family``'s keywords)
    and export its public function under ``names``; returns (OpDef, function)."""
    opdef = unary(name, kernel, allowed, **family)

    def fn(x, name=None):
        try:  # x stays as given: an eager error's text depends on it (messages)
            t = as_tensor(x)
        except (TypeError, ValueError):  # a composite argument (ragged) has its own form
            return fallback(fn, (x,), {"name": name}, elementwise=True)
        return bind(opdef, t)

    return opdef, export_function(fn, *names, doc=doc)


def binary_op(name, kernel, allowed, *names, doc="", **family):
    """Register the broadcasting two-input op ``name`` (``_base.binary``) and export its public
    function under ``names``: TF's conversion of both operands, then the op."""
    opdef = binary(name, kernel, allowed, **family)

    def fn(x, y, name=None):
        try:  # x and y stay as given: an eager error's text depends on them (messages)
            tx, ty = same_dtype_operands(x, y)
        except (TypeError, ValueError):  # a composite argument (ragged) has its own form
            return fallback(fn, (x, y), {"name": name}, elementwise=True)
        return bind(opdef, tx, ty)

    default_name(_binary_scope, fn)
    return opdef, export_function(fn, *names, doc=doc)


def _binary_scope(local):
    """TF's node name of a binary function's call where it is not the op type."""
    return "floordiv" if local["opdef"].name == "FloorDiv" else None
