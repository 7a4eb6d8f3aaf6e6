"""String ops (``tf.strings.*``) on NumPy object arrays of ``bytes``.

String attrs (separators, patterns) are stored as ``str``, decoded from bytes with
``surrogateescape`` so any byte string survives a round trip through a saved graph. Regexes are
RE2's, run by Python's ``re`` after a small translation (see ``_translate_regex``).
"""

import functools
import math as _math
import re

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import OutOfRangeError, invalid_argument
from ...registry import NON_DIFFERENTIABLE, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._base import broadcast_shape
from ...messages import c_name
from ..math import binary_operands

_UNITS = ("BYTE", "UTF8_CHAR")
_TO_NUMBER_TYPES = (D.float32, D.float64, D.int32, D.int64, D.uint32, D.uint64)
_INDEX_TYPES = (D.int32, D.int64)
_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes


# --- helpers -------------------------------------------------------------------------------------
def _text(value):
    """A str attr from str or bytes (bytes kept exactly via surrogateescape)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


def _bytes(text):
    return text.encode("utf-8", "surrogateescape")


def _decode(s):
    return s.decode("utf-8", "surrogateescape")


def _fmt(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _strings(x):
    """Convert a public argument: tensors pass (the op checks them), other values become strings."""
    return x if isinstance(x, Tensor) else convert_to_tensor(x, D.string)


def _map(fn, arr):
    """``fn`` over every element of an object array; the result keeps the shape (0-d too)."""
    a = np.asarray(arr)
    out = np.empty(a.size, object)
    out[:] = [fn(s) for s in a.ravel().tolist()]
    return out.reshape(a.shape)


def _numbers(values, shape, np_dtype):
    out = np.array(values, np_dtype).reshape(shape)
    return out[()] if out.ndim == 0 else out


def _string_check(op_name, count=1):
    """Eager check: the first ``count`` inputs (all when None) are string tensors."""

    def check(arrays):
        for i in range(len(arrays) if count is None else count):
            if arrays[i].dtype != object:
                raise invalid_argument(
                    f"cannot compute {op_name} as input #{i}(zero-based) was expected to be a "
                    f"string tensor but is a {c_name(D.from_numpy(arrays[i].dtype))} tensor",
                    op_name)

    return check


def _infer_string(op_name, t, param="input"):
    if t.dtype is not D.string:
        raise TypeError(f"Input '{param}' of '{op_name}' Op has type {t.dtype.name} that does "
                        "not match expected type of string.")


def _infer_scalar(t, what, op_name):
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for "
                         f"'{{{{node {op_name}}}}}' ({what})")


def _check_unit(unit, op_name, eager):
    if unit not in _UNITS:
        if eager:
            raise invalid_argument(f"Value for attr 'unit' of \"{unit}\" is not in the list of "
                                   "allowed values: \"BYTE\", \"UTF8_CHAR\"")
        raise ValueError(f"Attr 'unit' of '{op_name}' Op passed string '{unit}' not in: "
                         "\"BYTE\", \"UTF8_CHAR\".")


def _check_encoding(encoding):
    if encoding not in ("", "utf-8"):
        raise invalid_argument(f"only utf-8 or '' (no encoding) is supported, received {encoding}")


# --- elementwise string -> string ----------------------------------------------------------------
def _upper(s, encoding):
    return s.upper() if not encoding else s.decode("utf-8", "replace").upper().encode("utf-8")


def _lower(s, encoding):
    return s.lower() if not encoding else s.decode("utf-8", "replace").lower().encode("utf-8")


def _case_op(name, convert):
    """Register an elementwise case mapping: ASCII only, or all of Unicode with
    ``encoding="utf-8"``."""

    def infer(input, *, encoding):
        _infer_string(name, input)
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, encoding):
        _check_encoding(encoding)
        return _map(lambda s: convert(s, encoding), input)

    return register(OpDef(name, infer, kernel, grad=NON_DIFFERENTIABLE,
                          check=_string_check(name)))


StringUpper = _case_op("StringUpper", _upper)
StringLower = _case_op("StringLower", _lower)


@define_op("StringStrip")
class StringStrip:
    """Leading and trailing ASCII whitespace removed."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StringStrip")

    def infer(input):
        _infer_string("StringStrip", input)
        return TensorSpec(input.shape, D.string)

    def kernel(input):
        return _map(bytes.strip, input)


@define_op("StringLength")
class StringLength:
    """Length in bytes, or in UTF-8 characters (bytes that do not continue a character)."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StringLength")

    def infer(input, *, unit):
        _infer_string("StringLength", input)
        _check_unit(unit, "StringLength", eager=False)
        return TensorSpec(input.shape, D.int32)

    def kernel(input, *, unit):
        _check_unit(unit, "StringLength", eager=True)
        a = np.asarray(input)
        flat = a.ravel().tolist()
        if unit == "BYTE":
            values = [len(s) for s in flat]
        else:
            values = [len(s.translate(None, _CONTINUATION)) for s in flat]
        return _numbers(values, a.shape, np.int32)


# --- join ----------------------------------------------------------------------------------------
def _mismatch(a, b):
    """TF's shape-merge message for two incompatible shapes."""
    if a.rank != b.rank:
        return f"Shapes must be equal rank, but are {a.rank} and {b.rank}"
    for i, (x, y) in enumerate(zip(a.dims, b.dims)):
        if x is not None and y is not None and x != y:
            return (f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                    f"{_fmt(a.dims)} and {_fmt(b.dims)}.")
    return f"Shapes {a} and {b} are not compatible"


@define_op("StringJoin")
class StringJoin:
    """Elementwise join of N string tensors of one shape (scalars repeat)."""

    grad = NON_DIFFERENTIABLE

    check = _string_check("StringJoin", None)

    def infer(*inputs, separator):
        shape = TensorShape([])
        for i, t in enumerate(inputs):
            _infer_string("StringJoin", t, f"inputs_{i}")
            if t.shape.rank == 0:
                continue
            if shape.rank == 0:
                shape = t.shape
            elif not shape.is_compatible_with(t.shape):
                raise ValueError(_mismatch(shape, t.shape) + " for '{{node StringJoin}}'")
            else:
                shape = shape.merge_with(t.shape)
        return TensorSpec(shape, D.string)

    def kernel(*inputs, separator):
        arrays = [np.asarray(a) for a in inputs]
        shape = None
        for a in arrays:
            if a.ndim:
                if shape is None:
                    shape = a.shape
                elif a.shape != shape:
                    raise invalid_argument(f"Input shapes do not match: {_fmt(shape)} vs. "
                                           f"{_fmt(a.shape)}")
        shape = () if shape is None else shape
        size = int(np.prod(shape))
        columns = [a.ravel().tolist() if a.ndim else [a[()]] * size for a in arrays]
        sep = _bytes(separator)
        out = np.empty(size, object)
        out[:] = [sep.join(parts) for parts in zip(*columns)] if columns else [b""]
        return out.reshape(shape)


def _reduction_axes(indices, rank):
    """ReduceJoin's axes, normalized, in the order given (which orders the join)."""
    axes = []
    for i in np.asarray(indices).ravel().tolist():
        if not -rank <= i < rank:
            raise OutOfRangeError(None, None, f"Invalid reduction dimension {i} for input with "
                                              f"{rank} dimension(s)")
        a = i % rank
        if a in axes:
            raise invalid_argument(f"Duplicate reduction dimension {i}")
        axes.append(a)
    return axes


@define_op("ReduceJoin")
class ReduceJoin:
    """Join along ``reduction_indices``; the first listed axis varies fastest."""

    grad = NON_DIFFERENTIABLE

    def check(arrays):
        _string_check("ReduceJoin")(arrays)
        if arrays[1].dtype != np.int32:
            raise invalid_argument(
                f"cannot compute ReduceJoin as input #1(zero-based) was expected to be a int32 "
                f"tensor but is a {c_name(D.from_numpy(arrays[1].dtype))} tensor", "ReduceJoin")

    def infer(inputs, reduction_indices, *, keep_dims, separator):
        _infer_string("ReduceJoin", inputs, "inputs")
        dims = inputs.shape.dims
        axes = static_value(reduction_indices)
        if dims is None or axes is None:
            if keep_dims and dims is not None:
                return TensorSpec([None] * len(dims), D.string)
            return TensorSpec(None, D.string)
        rank = len(dims)
        axes = np.asarray(axes).ravel().tolist()
        for i in axes:
            if not -rank <= i < rank:
                raise ValueError(f"Invalid reduction dimension {i} for input with {rank} "
                                 "dimensions. for '{{node ReduceJoin}}'")
        axes = {i % rank for i in axes}
        if keep_dims:
            out = [1 if i in axes else d for i, d in enumerate(dims)]
        else:
            out = [d for i, d in enumerate(dims) if i not in axes]
        return TensorSpec(out, D.string)

    def kernel(inputs, reduction_indices, *, keep_dims, separator):
        a = np.asarray(inputs)
        axes = _reduction_axes(reduction_indices, a.ndim)
        if not axes:
            return inputs
        kept = [i for i in range(a.ndim) if i not in axes]
        kept_shape = tuple(a.shape[i] for i in kept)
        size = int(np.prod(kept_shape))
        out = np.empty(size, object)
        if a.size == 0:
            out[:] = [b""] * size
        else:
            sep = _bytes(separator)
            rows = a.transpose(kept + axes[::-1]).reshape(size, -1)
            out[:] = [sep.join(r) for r in rows.tolist()]
        if keep_dims:
            return out.reshape(tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
        return out.reshape(kept_shape)


# --- substr --------------------------------------------------------------------------------------
def _substr_bytes(s, pos, length, index):
    n = len(s)
    if pos < -n or pos > n:
        raise invalid_argument(f"pos {pos} out of range for string b'{_decode(s)}' at index "
                               f"{index}")
    if pos < 0:
        pos += n
    end = n if length < 0 else min(n, pos + length)
    return s[pos:end]


def _substr_chars(s, pos, length, index):
    t = _decode(s)
    n = len(t)
    if pos < -n or pos > n:
        raise invalid_argument(f"pos {pos} out of range for string at index {index}")
    if pos < 0:
        pos += n
    end = n if length < 0 else min(n, pos + length)
    return _bytes(t[pos:end])


@define_op("Substr")
class Substr:
    """Substrings from ``pos`` (negative counts from the end) of ``len`` bytes or characters."""

    grad = NON_DIFFERENTIABLE

    def check(arrays):
        _string_check("Substr")(arrays)
        for a in arrays[1:]:
            if a.dtype not in (np.int32, np.int64):
                raise invalid_argument(
                    f"Value for attr 'T' of {c_name(D.from_numpy(a.dtype))} is not in the list "
                    "of allowed values: int32, int64", "Substr")
        if arrays[1].dtype != arrays[2].dtype:
            raise invalid_argument(
                f"cannot compute Substr as input #2(zero-based) was expected to be a "
                f"{c_name(D.from_numpy(arrays[1].dtype))} tensor but is a "
                f"{c_name(D.from_numpy(arrays[2].dtype))} tensor", "Substr")

    def infer(input, pos, len, *, unit):
        _infer_string("Substr", input)
        _check_unit(unit, "Substr", eager=False)
        if pos.dtype not in _INDEX_TYPES or len.dtype is not pos.dtype:
            raise TypeError(f"Value passed to parameter 'pos' has DataType {pos.dtype.name} not "
                            "in list of allowed values: int32, int64")
        if not pos.shape.is_compatible_with(len.shape):
            raise ValueError(f"pos and len shapes must match: {_fmt(pos.shape.dims)} vs. "
                             f"{_fmt(len.shape.dims)} for '{{{{node Substr}}}}'")
        return TensorSpec(broadcast_shape(input.shape, pos.shape.merge_with(len.shape), "Substr"),
                          D.string)

    def kernel(input, pos, len, *, unit):
        _check_unit(unit, "Substr", eager=True)
        s, p, n = np.asarray(input), np.asarray(pos), np.asarray(len)
        if p.shape != n.shape:
            raise invalid_argument(f"pos and len should have the same shape, got: {_fmt(p.shape)} "
                                   f"vs. {_fmt(n.shape)}")
        try:
            s, p, n = np.broadcast_arrays(s, p, n)
        except ValueError:
            raise invalid_argument(f"Incompatible shapes: {_fmt(s.shape)} vs. {_fmt(p.shape)}")
        one = _substr_bytes if unit == "BYTE" else _substr_chars
        out = np.empty(s.size, object)
        out[:] = [one(*args, i) for i, args in enumerate(zip(s.ravel().tolist(),
                                                               p.ravel().tolist(),
                                                               n.ravel().tolist()))]
        return out.reshape(s.shape)


# --- split ---------------------------------------------------------------------------------------
@define_op("StringSplitV2")
class StringSplitV2:
    """Split each string of a vector on ``sep`` (whitespace when empty): the sparse parts
    (indices [n, 2], values [n], dense shape [2]). A scalar input counts as one row."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StringSplitV2", 2)

    def infer(input, sep, *, maxsplit):
        _infer_string("StringSplitV2", input)
        _infer_string("StringSplitV2", sep, "sep")
        _infer_scalar(sep, "sep", "StringSplitV2")
        return (TensorSpec([None, 2], D.int64), TensorSpec([None], D.string),
                TensorSpec([2], D.int64))

    def kernel(input, sep, *, maxsplit):
        a, sp = np.asarray(input), np.asarray(sep)
        if a.ndim > 1:
            raise invalid_argument(f"input must be a vector, got shape: {_fmt(a.shape)}")
        if sp.ndim:
            raise invalid_argument(f"sep must be a scalar, got shape: {_fmt(sp.shape)}")
        sp = sp[()] or None
        parts = [s.split(sp, maxsplit) for s in a.ravel().tolist()]
        counts = np.array([len(p) for p in parts], np.int64)
        values = np.empty(int(counts.sum()), object)
        values[:] = [v for p in parts for v in p]
        rows = np.repeat(np.arange(len(parts), dtype=np.int64), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        cols = np.arange(len(values), dtype=np.int64) - starts
        shape = np.array([len(parts), counts.max(initial=0)], np.int64)
        return np.stack([rows, cols], axis=1), values, shape


# --- regular expressions -------------------------------------------------------------------------
_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_MULTILINE = re.compile(r"\(\?[a-zA-Z]*m")


def _translate_regex(pattern):
    """RE2 syntax -> Python's: ``\\z`` is ``\\Z``; ``$`` matches only at the very end (unless
    multi-line); POSIX classes (``[[:digit:]]``) are spelled out."""
    out, i, n = [], 0, len(pattern)
    in_class = False
    multiline = _MULTILINE.search(pattern) is not None
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append("\\Z" if pattern[i + 1] == "z" and not in_class else pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2:end] if end > 0 else None
                if name in _POSIX_CLASSES:
                    out.append(_POSIX_CLASSES[name])
                    i = end + 2
                    continue
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":  # a "]" right after "[" or "[^" is literal
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("\\]")
                i += 1
            continue
        elif c == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=512)
def _compile(pattern):
    """The compiled regex of a (str) RE2 pattern; matching runs on UTF-8 text."""
    try:
        return re.compile(_translate_regex(pattern), re.ASCII)
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {pattern}, error: {e}") from None


@functools.lru_cache(maxsize=512)
def _parse_rewrite(rewrite):
    """RE2's rewrite: ``\\0``-``\\9`` are groups, ``\\\\`` a backslash. Returns (parts, the
    highest group used, whether an invalid escape cut the rewrite short)."""
    parts, literal, top, bad = [], [], 0, False
    i, n = 0, len(rewrite)
    while i < n:
        c = rewrite[i]
        if c != "\\":
            literal.append(c)
            i += 1
            continue
        nxt = rewrite[i + 1] if i + 1 < n else ""
        if nxt.isdigit() and nxt.isascii():
            if not bad:
                parts.append("".join(literal))
                literal = []
                parts.append(int(nxt))
            top = max(top, int(nxt))
        elif nxt == "\\" and not bad:
            literal.append("\\")
        elif not bad:
            bad = True
            parts.append("".join(literal))
            literal = []
        i += 2
    if not bad:
        parts.append("".join(literal))
    return tuple(p for p in parts if p != ""), top, bad


def _expand(parts, m):
    return "".join(p if type(p) is str else (m.group(p) or "") for p in parts)


def _replace_global(regex, parts, text):
    """RE2's GlobalReplace: an empty match right after the previous match is skipped."""
    out, pos, last_end, count, n = [], 0, -1, 0, len(text)
    while pos <= n:
        m = regex.search(text, pos)
        if m is None:
            break
        start, end = m.span()
        out.append(text[pos:start])
        if start == end and start == last_end:
            if start < n:
                out.append(text[start])
            pos = start + 1
            continue
        out.append(_expand(parts, m))
        pos = last_end = end
        if start == end:  # an empty match: copy one character and move on
            if end < n:
                out.append(text[end])
            pos = end + 1
        count += 1
    if count == 0:
        return text
    out.append(text[pos:])
    return "".join(out)


def _regex_replace(input, pattern, rewrite, replace_global):
    regex = _compile(pattern)
    parts, top, bad = _parse_rewrite(rewrite)
    if top > regex.groups or (bad and not replace_global):
        return input  # RE2 refuses the rewrite and leaves every string as it is

    def one(s):
        text = _decode(s)
        if replace_global:
            return _bytes(_replace_global(regex, parts, text))
        return _bytes(regex.sub(lambda m: _expand(parts, m), text, count=1))

    return _map(one, input)


def _regex_full_match(input, pattern):
    regex = _compile(pattern)
    a = np.asarray(input)
    return _numbers([regex.fullmatch(_decode(s)) is not None for s in a.ravel().tolist()],
                    a.shape, np.bool_)


def _scalar_text(t, what):
    a = np.asarray(t)
    if a.ndim:
        raise invalid_argument(f"{what} must be scalar, but received {_fmt(a.shape)}")
    return _decode(a[()])


@define_op("StaticRegexReplace")
class StaticRegexReplace:
    """Replace matches of the ``pattern`` attr with the ``rewrite`` attr (RE2 syntax)."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StaticRegexReplace")

    def infer(input, *, pattern, rewrite, replace_global):
        _infer_string("StaticRegexReplace", input)
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, pattern, rewrite, replace_global):
        return _regex_replace(input, pattern, rewrite, replace_global)


@define_op("RegexReplace")
class RegexReplace:
    """Replace matches of a scalar ``pattern`` tensor with a scalar ``rewrite`` tensor."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("RegexReplace", 3)

    def infer(input, pattern, rewrite, *, replace_global):
        for t, name in ((input, "input"), (pattern, "pattern"), (rewrite, "rewrite")):
            _infer_string("RegexReplace", t, name)
        _infer_scalar(pattern, "pattern", "RegexReplace")
        _infer_scalar(rewrite, "rewrite", "RegexReplace")
        return TensorSpec(input.shape, D.string)

    def kernel(input, pattern, rewrite, *, replace_global):
        pattern = _scalar_text(pattern, "Pattern")
        rewrite = _scalar_text(rewrite, "Rewrite")
        return _regex_replace(input, pattern, rewrite, replace_global)


@define_op("StaticRegexFullMatch")
class StaticRegexFullMatch:
    """Whether each whole string matches the ``pattern`` attr (RE2 syntax)."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StaticRegexFullMatch")

    def infer(input, *, pattern):
        _infer_string("StaticRegexFullMatch", input)
        return TensorSpec(input.shape, D.bool)

    def kernel(input, *, pattern):
        return _regex_full_match(input, pattern)


@define_op("RegexFullMatch")
class RegexFullMatch:
    """Whether each whole string matches a scalar ``pattern`` tensor."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("RegexFullMatch", 2)

    def infer(input, pattern):
        _infer_string("RegexFullMatch", input)
        _infer_string("RegexFullMatch", pattern, "pattern")
        _infer_scalar(pattern, "pattern", "RegexFullMatch")
        return TensorSpec(input.shape, D.bool)

    def kernel(input, pattern):
        return _regex_full_match(input, _scalar_text(pattern, "Pattern"))


# --- numbers <-> strings -------------------------------------------------------------------------
_FLOAT_TEXT = re.compile(
    rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    rb"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    rb"|(?i:inf(?:inity)?)|(?i:nan)(?:\([0-9A-Za-z_]*\))?)\s*")
_INT_TEXT = re.compile(rb"\s*[+-]?\d+\s*")
_UINT_TEXT = re.compile(rb"\s*\+?\d+\s*")


def _bad_number(s):
    return invalid_argument(f"StringToNumberOp could not correctly convert string: {_decode(s)}")


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

    grad = NON_DIFFERENTIABLE
    check = _string_check("StringToNumber")

    def infer(string_tensor, *, out_type):
        _infer_string("StringToNumber", string_tensor, "string_tensor")
        if out_type not in _TO_NUMBER_TYPES:
            raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} "
                            "not in list of allowed values: "
                            + ", ".join(d.name for d in _TO_NUMBER_TYPES))
        return TensorSpec(string_tensor.shape, out_type)

    def kernel(string_tensor, *, out_type):
        if out_type not in _TO_NUMBER_TYPES:
            raise invalid_argument(f"Value for attr 'out_type' of {c_name(out_type)} is not in "
                                   "the list of allowed values: "
                                   + ", ".join(c_name(d) for d in _TO_NUMBER_TYPES))
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

    grad = NON_DIFFERENTIABLE

    def infer(input, *, precision, scientific, shortest, width, fill):
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, precision, scientific, shortest, width, fill):
        a = np.asarray(input)
        dtype = D.from_numpy(a.dtype)
        fmt = _as_string_format(dtype, precision, scientific, shortest, width, fill)
        if dtype is D.string:
            if width <= 0:
                return input
            values = [_bytes(fmt % _decode(s)) for s in a.ravel().tolist()]
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


# --- public functions ----------------------------------------------------------------------------
@tf_export("strings.join")
def join(inputs, separator="", name=None):
    """Elementwise concatenation of string tensors of one shape (scalars repeat)."""
    return bind(StringJoin, *[_strings(x) for x in inputs], separator=_text(separator))


@tf_export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join along ``axis`` (all axes, row-major, when None)."""
    inputs = _strings(inputs)
    if axis is None:
        rank = inputs.shape.rank
        if rank is None:
            raise ValueError("reduce_join with axis=None needs an input of known rank")
        axis = np.arange(rank - 1, -1, -1, dtype=np.int32)
    if not isinstance(axis, Tensor):
        axis = convert_to_tensor(axis, D.int32)
    return bind(ReduceJoin, inputs, axis, keep_dims=bool(keepdims), separator=_text(separator))


@tf_export("strings.length")
def length(input, unit="BYTE", name=None):
    """Length of each string in bytes (``"BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``)."""
    return bind(StringLength, _strings(input), unit=unit)


@tf_export("strings.upper")
def upper(input, encoding="", name=None):
    """Upper case (ASCII letters only unless ``encoding="utf-8"``)."""
    return bind(StringUpper, _strings(input), encoding=encoding)


@tf_export("strings.lower")
def lower(input, encoding="", name=None):
    """Lower case (ASCII letters only unless ``encoding="utf-8"``)."""
    return bind(StringLower, _strings(input), encoding=encoding)


@tf_export("strings.strip")
def strip(input, name=None):
    """Leading and trailing whitespace removed."""
    return bind(StringStrip, _strings(input))


@tf_export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):
    """Substrings of ``len`` units from ``pos``; ``pos`` and ``len`` broadcast against ``input``.

    Raises:
        InvalidArgumentError: when ``pos`` is outside a string.
    """
    pos, len = binary_operands(pos, len)
    return bind(Substr, _strings(input), pos, len, unit=unit)


@tf_export("strings.split")
def split(input, sep=None, maxsplit=-1, name=None):
    """Split a scalar string into a 1-D tensor of parts (on whitespace when ``sep`` is None).

    Raises:
        NotImplementedError: for inputs of rank >= 1, whose result in TF is a RaggedTensor.
    """
    input = _strings(input)
    rank = input.shape.rank
    if rank is None:
        raise ValueError("input must have a statically-known rank.")
    if rank != 0:
        raise NotImplementedError("tf.strings.split of a tensor of rank >= 1 returns a "
                                  "RaggedTensor, which tensortrace does not support; split "
                                  "scalars one at a time.")
    sep = _strings("" if sep is None else sep)
    return bind(StringSplitV2, input, sep, maxsplit=int(maxsplit))[1]


@tf_export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Replace matches of ``pattern`` (RE2 syntax) with ``rewrite`` (``\\1`` names a group)."""
    input = _strings(input)
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return bind(StaticRegexReplace, input, pattern=_text(pattern), rewrite=_text(rewrite),
                    replace_global=bool(replace_global))
    return bind(RegexReplace, input, _strings(pattern), _strings(rewrite),
                replace_global=bool(replace_global))


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (RE2 syntax)."""
    input = _strings(input)
    if isinstance(pattern, (str, bytes)):
        return bind(StaticRegexFullMatch, input, pattern=_text(pattern))
    return bind(RegexFullMatch, input, _strings(pattern))


@tf_export("strings.to_number")
def to_number(input, out_type=D.float32, name=None):
    """Parse each string as a number of ``out_type``.

    Raises:
        InvalidArgumentError: naming the first string that is not a number of that type.
    """
    return bind(StringToNumber, _strings(input), out_type=D.as_dtype(out_type))


@tf_export("strings.as_string", "as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Format each element as a string (printf style; ``fill`` is a printf flag)."""
    return bind(AsString, convert_to_tensor(input), precision=int(precision),
                scientific=bool(scientific), shortest=bool(shortest), width=int(width),
                fill=_text(fill))


# --- StringFormat ---------------------------------------------------------------------------------
@define_op("StringFormat")
class StringFormat:
    """A scalar string: ``template`` with each ``placeholder`` replaced by one input, printed as
    ``tf.print`` prints it."""

    grad = NON_DIFFERENTIABLE

    def infer(*inputs, template, placeholder, summarize):
        return TensorSpec([], D.string)

    def kernel(*inputs, template, placeholder, summarize):
        from ..io import format_tensor

        pieces = template.split(placeholder)
        out = [pieces[0]]
        for value, piece in zip(inputs, pieces[1:]):
            out.append(format_tensor(value, summarize))
            out.append(piece)
        return np.array("".join(out).encode("utf-8"), dtype=object)


@tf_export("strings.format")
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """Format ``inputs`` (a tensor or a list of them) into ``template`` as a scalar string."""
    if isinstance(inputs, (list, tuple)):
        values = list(inputs)
    else:
        values = [inputs]
    values = [convert_to_tensor(v) for v in values]
    count = template.count(placeholder)
    if count != len(values):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has "
                         f"{len(values)}. Please ensure the number of placeholders in template "
                         f"matches inputs length.")
    return bind(StringFormat, *values, template=str(template), placeholder=str(placeholder),
                summarize=int(summarize))


# --- bytes_split (of a scalar: a dense 1-D result) ----------------------------------------------
@define_op("StringBytesSplit")
class StringBytesSplit:
    """The bytes of one scalar string, each as a 1-byte string."""

    grad = NON_DIFFERENTIABLE
    check = _string_check("StringBytesSplit")

    def infer(input):
        _infer_string("StringBytesSplit", input)
        return TensorSpec([None], D.string)

    def kernel(input):
        data = bytes(input[()])
        out = np.empty(len(data), object)
        out[:] = [data[i:i + 1] for i in range(len(data))]
        return out


@tf_export("strings.bytes_split")
def bytes_split(input, name=None):
    """The bytes of a scalar string as a 1-D string tensor (higher ranks give a RaggedTensor in
    TF, which tensortrace does not support)."""
    input = _strings(input)
    if input.shape.rank != 0:
        raise NotImplementedError("tf.strings.bytes_split of a tensor of rank >= 1 returns a "
                                  "RaggedTensor, which tensortrace does not support; split "
                                  "scalars one at a time.")
    return bind(StringBytesSplit, input)
