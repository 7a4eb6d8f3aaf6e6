"""Elementwise string ops: case mapping, ``strip``, ``length`` and ``substr``."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, map_values
from ...context import bind
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import INDEX, broadcast_shape
from ..math.operands import binary_operands
from ._common import (check_unit, decode, encode, infer_strings, map_strings, numbers, string_op,
                      strings)

_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes


# --- case mapping, strip -------------------------------------------------------------------------
def _case_kernel(convert):
    """A case mapping: ASCII only, or all of Unicode with ``encoding="utf-8"``."""

    def kernel(input, *, encoding):
        if encoding not in ("", "utf-8"):
            raise invalid_argument("only utf-8 or '' (no encoding) is supported, received "
                                   f"{encoding}")
        if not encoding:
            return map_strings(convert, input)
        return map_strings(lambda s: convert(s.decode("utf-8", "replace")).encode("utf-8"), input)

    return kernel


StringUpper = string_op("StringUpper", _case_kernel(lambda s: s.upper()), "Upper case.")
StringLower = string_op("StringLower", _case_kernel(lambda s: s.lower()), "Lower case.")
StringStrip = string_op("StringStrip", lambda input: map_strings(bytes.strip, input),
                        "Leading and trailing ASCII whitespace removed.")


@tf_export("strings.upper")
def upper(input, encoding="", name=None):
    """Upper case (ASCII letters only unless ``encoding="utf-8"``)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(upper, input, encoding=encoding)
    return bind(StringUpper, strings(input), encoding=encoding)


@tf_export("strings.lower")
def lower(input, encoding="", name=None):
    """Lower case (ASCII letters only unless ``encoding="utf-8"``)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(lower, input, encoding=encoding)
    return bind(StringLower, strings(input), encoding=encoding)


@tf_export("strings.strip")
def strip(input, name=None):
    """Leading and trailing whitespace removed."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(strip, input)
    return bind(StringStrip, strings(input))


# --- length --------------------------------------------------------------------------------------
@define_op("StringLength")
class StringLength:
    """Length in bytes, or in UTF-8 characters (bytes that do not continue a character)."""

    check = DtypeCheck("StringLength", same=1, fixed=D.string)

    def infer(input, *, unit):
        infer_strings("StringLength", (input, "input"))
        check_unit(unit, "StringLength", eager=False)
        return TensorSpec(input.shape, D.int32)

    def kernel(input, *, unit):
        check_unit(unit, "StringLength", eager=True)
        a = np.asarray(input)
        flat = a.ravel().tolist()
        if unit == "BYTE":
            values = [len(s) for s in flat]
        else:
            values = [len(s.translate(None, _CONTINUATION)) for s in flat]
        return numbers(values, a.shape, np.int32)


@tf_export("strings.length")
def length(input, unit="BYTE", name=None):
    """Length of each string in bytes (``"BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(length, input, unit=unit)
    return bind(StringLength, strings(input), unit=unit)


# --- substr --------------------------------------------------------------------------------------
def _substr_bytes(s, pos, length, index):
    n = len(s)
    if pos < -n or pos > n:
        raise invalid_argument(f"pos {pos} out of range for string b'{decode(s)}' at index "
                               f"{index}")
    if pos < 0:
        pos += n
    end = n if length < 0 else min(n, pos + length)
    return s[pos:end]


def _substr_chars(s, pos, length, index):
    t = decode(s)
    n = len(t)
    if pos < -n or pos > n:
        raise invalid_argument(f"pos {pos} out of range for string at index {index}")
    if pos < 0:
        pos += n
    end = n if length < 0 else min(n, pos + length)
    return encode(t[pos:end])


@define_op("Substr")
class Substr:
    """Substrings from ``pos`` (negative counts from the end) of ``len`` bytes or characters."""

    check = DtypeCheck("Substr", INDEX, 2, first=1, fixed={0: D.string})

    def infer(input, pos, len, *, unit):
        infer_strings("Substr", (input, "input"))
        check_unit(unit, "Substr", eager=False)
        if pos.dtype not in INDEX or len.dtype is not pos.dtype:
            raise TypeError(f"Value passed to parameter 'pos' has DataType {pos.dtype.name} not "
                            "in list of allowed values: int32, int64")
        if not pos.shape.is_compatible_with(len.shape):
            raise ValueError(f"pos and len shapes must match: {shape_text(pos.shape)} vs. "
                             f"{shape_text(len.shape)} for '{{{{node Substr}}}}'")
        return TensorSpec(broadcast_shape(input.shape, pos.shape.merge_with(len.shape), "Substr"),
                          D.string)

    def kernel(input, pos, len, *, unit):
        check_unit(unit, "Substr", eager=True)
        s, p, n = np.asarray(input), np.asarray(pos), np.asarray(len)
        if p.shape != n.shape:
            raise invalid_argument(f"pos and len should have the same shape, got: "
                                   f"{shape_text(p.shape)} vs. {shape_text(n.shape)}")
        try:
            s, p, n = np.broadcast_arrays(s, p, n)
        except ValueError:
            raise invalid_argument(f"Incompatible shapes: {shape_text(s.shape)} vs. "
                                   f"{shape_text(p.shape)}") from None
        one = _substr_bytes if unit == "BYTE" else _substr_chars
        out = np.empty(s.size, object)
        out[:] = [one(*args, i) for i, args in enumerate(zip(s.ravel().tolist(),
                                                               p.ravel().tolist(),
                                                               n.ravel().tolist()))]
        return out.reshape(s.shape)


@tf_export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):
    """Substrings of ``len`` units from ``pos``; ``pos`` and ``len`` broadcast against ``input``.

    Raises:
        InvalidArgumentError: when ``pos`` is outside a string.
    """
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(substr, input, pos=pos, len=len, unit=unit)
    pos, len = binary_operands(pos, len)
    return bind(Substr, strings(input), pos, len, unit=unit)
