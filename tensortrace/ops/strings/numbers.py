"""Numbers to strings and back: ``tf.strings.to_number`` (C's number syntax) and
``tf.strings.as_string`` (printf formats)."""

import math as _math
import re

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, map_values
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._args import int_arg
from .._base import check_out_type, kernel_out_type
from ._common import decode, encode, infer_strings, strings, text

_TO_NUMBER_TYPES = (D.float32, D.float64, D.int32, D.int64, D.uint32, D.uint64)
_FLOAT_TEXT = re.compile(
    rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    rb"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    rb"|(?i:inf(?:inity)?)|(?i:nan)(?:\([0-9A-Za-z_]*\))?)\s*")
_INT_TEXT = re.compile(rb"\s*[+-]?\d+\s*")
_UINT_TEXT = re.compile(rb"\s*\+?\d+\s*")


def _bad_number(s):
    return invalid_argument(f"StringToNumberOp could not correctly convert string: {decode(s)}")


def _parse_float(s):
    if _FLOAT_TEXT.fullmatch(s) is None:
        raise _bad_number(s)
    t = s.strip().lower()
    if b"x" in t:
        return float.fromhex(t.decode())
    if b"nan" in t:
        return -_math.nan if t.startswith(b"-") else _math.nan
    return float(t)


def _to_floats(flat, np_dtype):
    values = np.array([_parse_float(s) for s in flat], np.float64)
    if np_dtype == np.float64:
        return values
    big = np.abs(values) > np.finfo(np.float32).max  # TF overflows to inf rather than rounding
    with np.errstate(over="ignore"):
        out = values.astype(np.float32)
    out[big] = np.copysign(np.float32(np.inf), values[big])
    return out


def _to_ints(flat, np_dtype):
    info = np.iinfo(np_dtype)
    syntax = _UINT_TEXT if info.min == 0 else _INT_TEXT
    values = []
    for s in flat:
        if syntax.fullmatch(s) is None:
            raise _bad_number(s)
        v = int(s)
        if not info.min <= v <= info.max:
            raise _bad_number(s)
        values.append(v)
    return np.array(values, np_dtype)


@define_op("StringToNumber")
class StringToNumber:
    """Parse numbers (C syntax: whitespace, hex floats, inf/nan) into ``out_type``."""

    check = DtypeCheck("StringToNumber", same=1, fixed=D.string)

    def infer(string_tensor, *, out_type):
        infer_strings("StringToNumber", (string_tensor, "string_tensor"))
        check_out_type("StringToNumber", out_type, _TO_NUMBER_TYPES)
        return TensorSpec(string_tensor.shape, out_type)

    def kernel(string_tensor, *, out_type):
        kernel_out_type(out_type, _TO_NUMBER_TYPES)
        a = np.asarray(string_tensor)
        flat = a.ravel().tolist()
        np_dtype = out_type._np
        values = _to_floats(flat, np_dtype) if out_type.is_floating else _to_ints(flat, np_dtype)
        values = values.reshape(a.shape)
        return values[()] if values.ndim == 0 else values


def _as_string_format(dtype, precision, scientific, shortest, width, fill):
    """The printf format AsString applies, with TF's checks in TF's order."""
    if not (dtype.is_floating or dtype.is_complex or dtype is D.string):
        if scientific or shortest:
            raise invalid_argument("scientific and shortest format not supported for datatype "
                                   f"{dtype.name}")
        if precision > -1:
            raise invalid_argument(f"precision not supported for datatype {dtype.name}")
    if len(fill) > 1:
        raise invalid_argument("Fill string must be one or fewer characters")
    if scientific and shortest:
        raise invalid_argument("Cannot select both scientific and shortest notation")
    if fill and fill not in " +-0#":
        raise invalid_argument(f'Fill argument not supported: "{fill}"')
    spec = "%" + fill + (str(width) if width > 0 else "")
    if dtype is D.string:
        return spec + (f".{precision}" if precision > -1 else "") + "s"
    if not (dtype.is_floating or dtype.is_complex):
        return spec + "d"
    return spec + (f".{precision}" if precision > -1 else "") + (
        "g" if shortest else "e" if scientific else "f")


def _format_floats(fmt, values):
    """printf of floats; a NaN with its sign bit set prints as ``-nan`` as in C."""
    neg_nan = np.isnan(values) & np.signbit(values)
    if not neg_nan.any():
        return [fmt % v for v in values.tolist()]
    return [(fmt % -_math.inf).replace("inf", "nan") if n else fmt % v
            for v, n in zip(values.tolist(), neg_nan.tolist())]


@define_op("AsString")
class AsString:
    """Numbers, booleans (and strings) formatted as strings, printf style."""

    def infer(input, *, precision, scientific, shortest, width, fill):
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, precision, scientific, shortest, width, fill):
        a = np.asarray(input)
        dtype = D.from_numpy(a.dtype)
        fmt = _as_string_format(dtype, precision, scientific, shortest, width, fill)
        if dtype is D.string:
            if width <= 0:
                return input
            values = [encode(fmt % decode(s)) for s in a.ravel().tolist()]
        elif dtype is D.bool:
            values = [b"true" if v else b"false" for v in a.ravel().tolist()]
        elif dtype.is_complex:
            flat = a.ravel()
            re_, im = _format_floats(fmt, flat.real), _format_floats(fmt, flat.imag)
            values = [f"({r},{i})".encode() for r, i in zip(re_, im)]
        elif dtype.is_floating:
            values = [t.encode() for t in _format_floats(fmt, a.ravel().astype(np.float64))]
        else:
            values = [(fmt % v).encode() for v in a.ravel().tolist()]
        out = np.empty(a.size, object)
        out[:] = values
        return out.reshape(a.shape)


@tf_export("strings.to_number")
def to_number(input, out_type=D.float32, name=None):
    """Parse each string as a number of ``out_type``.

    Raises:
        InvalidArgumentError: naming the first string that is not a number of that type.
    """
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(to_number, input, out_type=out_type)
    return bind(StringToNumber, strings(input), out_type=D.as_dtype(out_type))


@tf_export("strings.as_string", "as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Format each element as a string (printf style; ``fill`` is a printf flag)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(as_string, input, precision=precision, scientific=scientific,
                          shortest=shortest, width=width, fill=fill)
    return bind(AsString, convert_to_tensor(input), precision=int_arg(precision, "precision"),
                scientific=bool(scientific), shortest=bool(shortest),
                width=int_arg(width, "width"),
                fill=text(fill))
