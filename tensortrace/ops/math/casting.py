"""``Cast`` and ``tf.cast``: dtype conversion with TF's CPU semantics (float -> int truncates and
saturates as an x86 CPU does, complex drops its imaginary part, anything nonzero is True)."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import export_value, tf_export
from ...composite import CompositeTensor, fallback
from ...context import bind
from ...messages import c_name
from ...numerics import quiet
from ...registry import define_op
from ...tensor import TensorSpec
from .operands import as_tensor

# TF casts float -> int with the C conversion of an x86 CPU: truncation toward zero, and NaN or
# out-of-range values give the minimum int of the conversion's width (int32, or int64 for 64-bit
# and uint32 targets); narrower targets then wrap.
_I32_LIMIT, _I64_LIMIT = 2.0 ** 31, 2.0 ** 63


def _float_to_int(x, dst):
    x = np.asarray(x, np.float64)  # exact for every float type TF has
    wide, limit = ((np.int64, _I64_LIMIT) if dst.itemsize == 8 or dst == np.uint32
                   else (np.int32, _I32_LIMIT))
    ok = np.abs(x) < limit  # NaN fails this too
    out = np.where(ok, np.where(ok, x, 0.0).astype(wide), np.iinfo(wide).min)
    if dst == np.uint64:  # values in [2**63, 2**64) convert exactly
        big = (x >= _I64_LIMIT) & (x < 2.0 ** 64)
        return np.where(big, np.where(big, x, 0.0).astype(np.uint64), out.astype(np.uint64))
    return out.astype(dst)


# TF's CPU Cast kernels of its narrow types: float8_e4m3fn/e5m2 from the floats (and each
# other) to any float, int or bool; int4/uint4 from and to the ints; none for the others.
_F8, _I4 = ("float8_e4m3fn", "float8_e5m2"), ("int4", "uint4")
_F8_SOURCES = frozenset(("float16", "bfloat16", "float32", "float64") + _F8)


for _name in sorted(D._NARROW):  # TF exports them as tf.(dtypes.)experimental.<name>
    if getattr(D, _name) is not None:
        export_value(getattr(D, _name), f"experimental.{_name}", f"dtypes.experimental.{_name}")


def _narrow_cast_ok(src, dst):
    if src.name in _F8:
        return dst.name in _F8_SOURCES or dst is D.bool or (dst.is_integer and
                                                           dst.name not in D._NARROW)
    if src.name in _I4:
        return dst.is_integer and dst.name not in ("int2", "uint2")
    if dst.name in _F8:
        return src.name in _F8_SOURCES
    if dst.name in _I4:
        return src.is_integer and src.name not in ("int2", "uint2")
    return False


def _cast(x, SrcT, DstT, Truncate=False):
    src, dst = x.dtype, DstT._np
    source = D.from_numpy(src)
    if src == object or dst == object or ((source.name in D._NARROW or DstT.name in D._NARROW)
                                          and not _narrow_cast_ok(source, DstT)):
        raise errors.UnimplementedError(
            None, None, f"Cast {c_name(source)} to {c_name(DstT)} is not supported")
    if source.name in _F8 and DstT.name not in _F8:
        x = x.astype(np.float32)  # exact; then the float rules (NaN -> int min, nonzero -> True)
    elif source.name in _I4:
        x = x.astype(np.int32)
    if src.kind == "c" and dst.kind != "c":
        x = np.real(x)  # TF discards the imaginary part, even when casting to bool
    if dst == np.bool_:
        return np.not_equal(x, 0)
    if dst.kind in "iu" and x.dtype.kind == "f":
        return _float_to_int(x, dst)[()]
    return x.astype(dst)


@define_op("Cast")
class Cast:
    """``x`` as dtype ``DstT`` (attrs ``SrcT``, ``DstT``, ``Truncate``)."""

    def infer(x, SrcT, DstT, Truncate=False):
        return TensorSpec(x.shape, DstT)

    kernel = quiet(_cast)


@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """``x`` as ``dtype``: floats truncate toward zero, complex drops its imaginary part, and
    anything nonzero is True; a tensor already of ``dtype`` comes back unchanged."""
    dtype = D.as_dtype(dtype)
    if isinstance(x, CompositeTensor) and hasattr(x, "_with_values"):
        return x._with_values(cast(x.values, dtype))  # SparseTensor, IndexedSlices, as TF
    try:
        x = as_tensor(x)
    except (TypeError, ValueError):  # a composite (ragged) casts its values
        return fallback(cast, (x, dtype), {})
    if x.dtype == dtype:
        return x
    return bind(Cast, x, SrcT=x.dtype, DstT=dtype, Truncate=False)
