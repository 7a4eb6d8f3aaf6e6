"""What the string ops share: attrs as text, elementwise work on NumPy object arrays of
``bytes``, the graph-time checks of string inputs, and the family of one-string-input ops.

String attrs (separators, patterns) are stored as ``str``, decoded from bytes with
``surrogateescape`` so any byte string survives a round trip through a saved graph.
"""

import numpy as np

from ... import dtypes as D
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, OpDef, register
from ...tensor import Tensor, TensorSpec
from .._base import check_fixed

_UNITS = ("BYTE", "UTF8_CHAR")


def text(value):
    """A str attr from str or bytes (bytes kept exactly via surrogateescape)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


def encode(value):
    """The bytes a str attr (or a decoded string) stands for."""
    return value.encode("utf-8", "surrogateescape")


def decode(s):
    return s.decode("utf-8", "surrogateescape")


def strings(x):
    """Convert a public argument: tensors pass (the op checks them), other values become strings."""
    return x if isinstance(x, Tensor) else convert_to_tensor(x, D.string)


def map_strings(fn, arr):
    """``fn`` over every element of an object array; the result keeps the shape (0-d too)."""
    a = np.asarray(arr)
    out = np.empty(a.size, object)
    out[:] = [fn(s) for s in a.ravel().tolist()]
    return out.reshape(a.shape)


def numbers(values, shape, np_dtype):
    """A list of numbers as an array of ``shape`` (0-d as a NumPy scalar)."""
    out = np.array(values, np_dtype).reshape(shape)
    return out[()] if out.ndim == 0 else out


def infer_strings(op_name, *named):
    """The graph-time check of string inputs, given as ``(tensor, parameter name)`` pairs."""
    for t, param in named:
        check_fixed(op_name, (t,), (param,), D.string)


def infer_scalar(t, what, op_name):
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for "
                         f"'{{{{node {op_name}}}}}' ({what})")


def check_unit(unit, op_name, eager):
    """The ``unit`` attr is BYTE or UTF8_CHAR (an attr value, checked when the op is built)."""
    if unit not in _UNITS:
        if eager:
            raise invalid_argument(f"Value for attr 'unit' of \"{unit}\" is not in the list of "
                                   "allowed values: \"BYTE\", \"UTF8_CHAR\"")
        raise ValueError(f"Attr 'unit' of '{op_name}' Op passed string '{unit}' not in: "
                         "\"BYTE\", \"UTF8_CHAR\".")


def string_op(name, kernel, doc, *, dtype=D.string, shape=None):
    """Register an op of one string input (and attrs): its output has ``dtype`` and the input's
    shape, or ``shape`` when given."""

    def infer(input, **attrs):
        infer_strings(name, (input, "input"))
        return TensorSpec(input.shape if shape is None else shape, dtype)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, same=1, fixed=D.string),
                          doc=doc))
