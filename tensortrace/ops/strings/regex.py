"""Regular expressions on strings: RE2's syntax and rewrite rules (the engine: ``_regex_engine``,
RE2 itself when the ``re2`` extra is installed)."""

import functools

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, map_values
from ...context import bind
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from ._common import (
    decode,
    infer_scalar,
    infer_strings,
    map_strings,
    numbers,
    string_op,
    strings,
    text,
)
from ._regex_engine import PatternError, compile_pattern, global_replace, replace_first


def _compile(pattern):
    """The compiled regex of a (str) RE2 pattern, or TF's error for a pattern RE2 refuses."""
    try:
        return compile_pattern(pattern)
    except PatternError as e:
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


def _regex_replace(input, *, pattern, rewrite, replace_global):
    regex = _compile(pattern)
    parts, top, bad = _parse_rewrite(rewrite)
    if top > regex.groups or (bad and not replace_global):
        return input  # RE2 refuses the rewrite and leaves every string as it is
    parts = tuple(p if type(p) is int else regex.rewrite_literal(p) for p in parts)
    replace = global_replace if replace_global else replace_first
    return map_strings(lambda s: replace(regex, parts, s), input)


def _regex_full_match(input, *, pattern):
    regex = _compile(pattern)
    a = np.asarray(input)
    return numbers([regex.fullmatch(s) for s in a.ravel().tolist()], a.shape, np.bool_)


def _scalar_text(t, what):
    a = np.asarray(t)
    if a.ndim:
        raise invalid_argument(f"{what} must be scalar, but received {shape_text(a.shape)}")
    return decode(a[()])


StaticRegexReplace = string_op(
    "StaticRegexReplace", _regex_replace,
    "Replace matches of the ``pattern`` attr with the ``rewrite`` attr (RE2 syntax).")
StaticRegexFullMatch = string_op(
    "StaticRegexFullMatch", _regex_full_match,
    "Whether each whole string matches the ``pattern`` attr (RE2 syntax).", dtype=D.bool)


@define_op("RegexReplace")
class RegexReplace:
    """Replace matches of a scalar ``pattern`` tensor with a scalar ``rewrite`` tensor."""

    check = DtypeCheck("RegexReplace", same=1, fixed=D.string)

    def infer(input, pattern, rewrite, *, replace_global):
        infer_strings("RegexReplace", (input, "input"), (pattern, "pattern"), (rewrite, "rewrite"))
        infer_scalar(pattern, "pattern", "RegexReplace")
        infer_scalar(rewrite, "rewrite", "RegexReplace")
        return TensorSpec(input.shape, D.string)

    def kernel(input, pattern, rewrite, *, replace_global):
        return _regex_replace(input, pattern=_scalar_text(pattern, "Pattern"),
                              rewrite=_scalar_text(rewrite, "Rewrite"),
                              replace_global=replace_global)


@define_op("RegexFullMatch")
class RegexFullMatch:
    """Whether each whole string matches a scalar ``pattern`` tensor."""

    check = DtypeCheck("RegexFullMatch", same=1, fixed=D.string)

    def infer(input, pattern):
        infer_strings("RegexFullMatch", (input, "input"), (pattern, "pattern"))
        infer_scalar(pattern, "pattern", "RegexFullMatch")
        return TensorSpec(input.shape, D.bool)

    def kernel(input, pattern):
        return _regex_full_match(input, pattern=_scalar_text(pattern, "Pattern"))


@tf_export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Replace matches of ``pattern`` (RE2 syntax) with ``rewrite`` (``\\1`` names a group)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(regex_replace, input, pattern=pattern, rewrite=rewrite,
                          replace_global=replace_global)
    values = strings(input)  # input stays as given: an eager error's text reads it
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return bind(StaticRegexReplace, values, pattern=text(pattern), rewrite=text(rewrite),
                    replace_global=bool(replace_global))
    return bind(RegexReplace, values, strings(pattern), strings(rewrite),
                replace_global=bool(replace_global))


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (RE2 syntax)."""
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(regex_full_match, input, pattern=pattern)
    values = strings(input)  # input stays as given: an eager error's text reads it
    if isinstance(pattern, (str, bytes)):
        return bind(StaticRegexFullMatch, values, pattern=text(pattern))
    return bind(RegexFullMatch, values, strings(pattern))
