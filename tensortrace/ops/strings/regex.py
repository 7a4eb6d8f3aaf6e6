"""Regular expressions on strings: RE2's syntax and rewrite rules, run by Python's ``re`` after a
small translation (``_translate_regex``)."""

import functools
import re

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from ._common import (decode, encode, infer_scalar, infer_strings, map_strings, numbers, string_op,
                      strings, text)

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


def _regex_replace(input, *, pattern, rewrite, replace_global):
    regex = _compile(pattern)
    parts, top, bad = _parse_rewrite(rewrite)
    if top > regex.groups or (bad and not replace_global):
        return input  # RE2 refuses the rewrite and leaves every string as it is

    def one(s):
        t = decode(s)
        if replace_global:
            return encode(_replace_global(regex, parts, t))
        return encode(regex.sub(lambda m: _expand(parts, m), t, count=1))

    return map_strings(one, input)


def _regex_full_match(input, *, pattern):
    regex = _compile(pattern)
    a = np.asarray(input)
    return numbers([regex.fullmatch(decode(s)) is not None for s in a.ravel().tolist()],
                   a.shape, np.bool_)



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
    input = strings(input)
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return bind(StaticRegexReplace, input, pattern=text(pattern), rewrite=text(rewrite),
                    replace_global=bool(replace_global))
    return bind(RegexReplace, input, strings(pattern), strings(rewrite),
                replace_global=bool(replace_global))


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (RE2 syntax)."""
    input = strings(input)
    if isinstance(pattern, (str, bytes)):
        return bind(StaticRegexFullMatch, input, pattern=text(pattern))
    return bind(RegexFullMatch, input, strings(pattern))
