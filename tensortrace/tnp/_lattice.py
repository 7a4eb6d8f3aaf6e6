"""TF's new type promotion ("safe" and "all" dtype conversion modes): the JAX-like lattice of
dtypes with weak types, how an input's (dtype, weak) is inferred, and the binary result of two
(dtype, weak) pairs, with the promotions "safe" mode refuses.

The result of two types is their first common child in the lattice (the join). Weak types sit on
three nodes of their own: ``i*`` (Python ints, weak int32/int64), ``f*`` (Python floats, weak
float32/float64) and ``c*`` (Python complex, weak complex128); a join that lands there is weak,
and its width is the widest weak input's (an ``f*`` reached from a strong integer is float64).
"""

import numbers

import numpy as np

from .. import dtypes as D
from .. import nest
from ..tensor import Tensor
from ._weak import WeakTensor

# The lattice: each node's direct children (JAX's type promotion lattice, as TF adopted it).
_CHILDREN = {
    "b": ("i*",), "i*": ("u8", "i8"), "u8": ("u16", "i16"), "u16": ("u32", "i32"),
    "u32": ("u64", "i64"), "u64": ("f*",), "i8": ("i16",), "i16": ("i32",), "i32": ("i64",),
    "i64": ("f*",), "f*": ("bf16", "f16", "c*"), "bf16": ("f32",), "f16": ("f32",),
    "f32": ("f64", "c64"), "f64": ("c128",), "c*": ("c64",), "c64": ("c128",), "c128": (),
}
_NODE = {D.bool: "b", D.uint8: "u8", D.uint16: "u16", D.uint32: "u32", D.uint64: "u64",
         D.int8: "i8", D.int16: "i16", D.int32: "i32", D.int64: "i64", D.bfloat16: "bf16",
         D.float16: "f16", D.float32: "f32", D.float64: "f64", D.complex64: "c64",
         D.complex128: "c128"}
_STRONG = {node: dtype for dtype, node in _NODE.items()}
_WEAK_NODE = {D.int32: "i*", D.int64: "i*", D.float32: "f*", D.float64: "f*",
              D.complex128: "c*"}
WEAK_DTYPES = tuple(_WEAK_NODE)

# Unordered pairs "safe" mode refuses (bit-widening or lossy promotions), by node; a weak input
# is named by its dtype and a star ("f32*").
_ALL_ONLY = {
    "u8": "i8 f32*", "u16": "i8 i16 bf16 f16 f32*", "u32": "i8 i16 i32 bf16 f16 f32 c64 f32*",
    "u64": "i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f32* f64* c128*", "i8": "f32*",
    "i16": "bf16 f16 f32*", "i32": "bf16 f16 f32 c64 f32*",
    "i64": "bf16 f16 f32 f64 c64 c128 f32* f64* c128*", "bf16": "f16 c128*", "f16": "c128*",
    "f32": "c128*", "f64": "c64",
}
_REFUSED = frozenset(frozenset((a, b)) for a, names in _ALL_ONLY.items()
                     for b in names.split())


def _descendants(node):
    seen, todo = {node}, [node]
    while todo:
        for child in _CHILDREN[todo.pop()]:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


_BELOW = {node: _descendants(node) for node in _CHILDREN}


def _join(a, b):
    """The first common child of nodes ``a`` and ``b`` (the one below all common ones)."""
    common = _BELOW[a] & _BELOW[b]
    return next(n for n in common if common <= _BELOW[n])


def _name(dtype, weak):
    return _NODE[dtype][:1] + str(dtype.size * 8) + "*" if weak else _NODE[dtype]


_RESULTS = {}  # (a, b, mode) -> the promoted (dtype, weak)


def promote(a, b, mode):
    """The (dtype, weak) result of ``a`` and ``b`` ((dtype, weak) pairs) in ``mode`` ("safe"
    or "all").

    Raises:
        TypeError: for a promotion "safe" mode refuses (TF's message).
        KeyError: for strings with other types.
    """
    found = _RESULTS.get((a, b, mode))
    if found is None:
        found = _RESULTS[a, b, mode] = _promote(a, b, mode)
    return found


def _promote(a, b, mode):
    if a == b:
        return a
    if a[0] is D.string or b[0] is D.string:
        raise KeyError(f"Implicit Conversion between {a[0]} and {b[0]} is not allowed. "
                       "Please convert the input manually if you need to.")
    node = _join(_WEAK_NODE[a[0]] if a[1] else _NODE[a[0]],
                 _WEAK_NODE[b[0]] if b[1] else _NODE[b[0]])
    if mode == "safe" and frozenset((_name(*a), _name(*b))) in _REFUSED:
        raise TypeError(
            f"In promotion mode PromoMode.SAFE, implicit dtype promotion between "
            f"({a[0]}, weak={a[1]}) and ({b[0]}, weak={b[1]}) is disallowed. You need to "
            "explicitly specify the dtype in your op, or relax your dtype promotion rules (such "
            "as from SAFE mode to ALL mode).")
    if node in _STRONG:
        return _STRONG[node], False
    if node == "i*":
        return (D.int64 if D.int64 in (a[0], b[0]) else D.int32), True
    if node == "c*":
        return D.complex128, True
    # f*: float64 when a weak float64 or a strong integer leads here, else float32
    wide = any((t[1] and t[0] is D.float64) or (not t[1] and t[0].is_integer) for t in (a, b))
    return (D.float64 if wide else D.float32), True


def infer(x):
    """(dtype, weak) of one input (TF's inference): weak tensors and Python numbers are weak
    (int: int32, float: float32, complex: complex128); tensors, NumPy values, DTypes and Python
    bools are strong.

    Raises:
        OverflowError: for a Python int beyond int32.
    """
    cls = type(x)
    if cls is float:
        return D.float32, True
    if isinstance(x, Tensor):
        return x.dtype, False
    if isinstance(x, WeakTensor):
        return x.dtype, True
    if isinstance(x, D.DType):
        return x, False
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, D.DType):
        return dtype.base_dtype, False
    if isinstance(x, (np.ndarray, np.generic)) or isinstance(dtype, np.dtype):
        return D.as_dtype(dtype), False
    if isinstance(x, (bytes, str)):
        return D.string, False
    if isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic)):
        return D.as_dtype(x), False
    if x is int:
        return D.int32, True
    if x is float:
        return D.float32, True
    if x is complex:
        return D.complex128, True
    if x is bool or isinstance(x, (bool, np.bool_)):
        return D.bool, False
    if isinstance(x, int):
        if not -2 ** 31 <= x <= 2 ** 31 - 1:
            raise OverflowError(f"Python int {x} too large to convert to np.int32")
        return D.int32, True
    if isinstance(x, numbers.Real):
        return D.float32, True
    if isinstance(x, numbers.Complex):
        return D.complex128, True
    raise NotImplementedError(f"Auto dtype conversion semantics does not support {type(x)} "
                              "type.")


def result_type2(a, b, mode):
    """``result_type((a, b), mode)`` for two operands, the operators' case."""
    if isinstance(a, _NESTED) or isinstance(b, _NESTED) or a is None or b is None:
        return result_type((a, b), mode)
    return promote(infer(a), infer(b), mode)


_NESTED = (list, tuple, dict)


def result_type(values, mode):
    """(dtype, weak) of the inputs ``values`` (nested lists flattened, None dropped) folded
    left to right; weak float32 for none.

    Raises:
        TypeError: for a promotion ``mode`` refuses.
        OverflowError: for a Python int beyond int32.
        NotImplementedError: for an input kind the promotion does not know.
    """
    if any(isinstance(v, (list, tuple, dict)) for v in values):
        values = nest.flatten(list(values))
    found = [infer(x) for x in values if x is not None]
    if not found:
        return D.float32, True
    out = found[0]
    for t in found[1:]:
        out = promote(out, t, mode)
    return out
