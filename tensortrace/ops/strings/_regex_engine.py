"""The regex engine of the string ops, with TF's semantics (RE2's syntax, UTF-8 text, rewrites).

RE2 itself (the ``google-re2`` package, the ``re2`` extra) runs when installed: linear time, and
RE2's own error texts. Without it, Python's ``re`` runs a translation of the pattern, after a check
that refuses what RE2 refuses (backreferences, lookarounds) with RE2's texts; a pattern that a
backtracking engine could take exponential time on (a repeat of a repeat or of an alternation)
runs instead in ``_regex_vm``, a linear-time matcher with RE2's leftmost-first submatches.

    >>> compile_pattern("(a+)+$").fullmatch(b"a" * 30 + b"b")
    False
"""

import functools
import re

from ._regex_vm import _sre as _sre_parse
from ._regex_vm import compile_tree, parse

_UNSET = object()
# RE2's binding (the extra), looked up on first use: importing the package stays quick
_re2 = _UNSET


class PatternError(ValueError):
    """A pattern RE2 (or the fallback) refuses; ``str(e)`` is RE2's error text."""


def compile_pattern(pattern):
    """The compiled regex of a pattern given as ``str`` (an attr, UTF-8 via surrogateescape)."""
    return _compile(pattern, _binding() is not None)


def _binding():
    global _re2
    if _re2 is _UNSET:
        try:
            from re2 import _re2 as binding  # the optional extra, not a package module
        except ImportError:
            binding = None
        _re2 = binding
    return _re2


@functools.lru_cache(maxsize=512)
def _compile(pattern, use_re2):
    return _RE2Regex(pattern) if use_re2 else _FallbackRegex(pattern)


def global_replace(regex, parts, data):
    """RE2::GlobalReplace on bytes ``data``: each leftmost match is rewritten; an empty match right
    after the previous match is skipped by one character."""
    text = regex.to_text(data)
    out, pos, last_end, count, n = [], 0, -1, 0, len(text)
    while pos <= n:
        spans = regex.search(text, pos)
        if spans is None:
            break
        start, end = spans[0]
        out.append(text[pos:start])
        if start == end and start == last_end:
            step = regex.char_len(text, pos)
            out.append(text[pos:pos + step])
            pos += step if pos < n else 1
            continue
        out.append(_expand(parts, spans, text))
        pos = last_end = end
        count += 1
    if count == 0:
        return data
    out.append(text[pos:])
    return regex.from_text(regex.empty.join(out))


def replace_first(regex, parts, data):
    """RE2::Replace on bytes ``data``: the first match is rewritten."""
    text = regex.to_text(data)
    spans = regex.search(text, 0)
    if spans is None:
        return data
    start, end = spans[0]
    return regex.from_text(text[:start] + _expand(parts, spans, text) + text[end:])


def _expand(parts, spans, text):
    out = []
    for p in parts:
        if type(p) is int:
            s, e = spans[p]
            if s >= 0:
                out.append(text[s:e])
        else:
            out.append(p)
    return text[:0].join(out)


class _RE2Regex:
    """RE2 on the UTF-8 bytes themselves (offsets are byte offsets)."""

    empty = b""

    def __init__(self, pattern):
        _re2 = _binding()
        options = _re2.RE2.Options()
        options.log_errors = False
        self._re = _re2.RE2(pattern.encode("utf-8", "surrogateescape"), options)
        if not self._re.ok():
            raise PatternError(self._re.error().decode("utf-8", "backslashreplace"))
        self.groups = self._re.NumberOfCapturingGroups()
        self._unanchored = _re2.RE2.Anchor.UNANCHORED
        self._both = _re2.RE2.Anchor.ANCHOR_BOTH

    def fullmatch(self, data):
        return self._re.Match(self._both, data, 0, len(data))[0][0] >= 0

    def search(self, text, pos):
        spans = self._re.Match(self._unanchored, text, pos, len(text))
        return spans if spans[0][0] >= 0 else None

    @staticmethod
    def char_len(text, pos):
        """The length of the UTF-8 character at ``pos`` (1 for a byte that starts none)."""
        lead = text[pos] if pos < len(text) else 0
        n = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if n > 1:
            try:
                text[pos:pos + n].decode("utf-8")
            except UnicodeDecodeError:
                return 1
        return n

    @staticmethod
    def to_text(data):
        return data

    @staticmethod
    def from_text(text):
        return text

    def rewrite_literal(self, s):
        return s.encode("utf-8", "surrogateescape")


class _FallbackRegex:
    """Python's ``re`` on the decoded text (offsets are characters), or the linear-time matcher
    for patterns ``re`` could take exponential time on."""

    empty = ""

    def __init__(self, pattern):
        error = _re2_syntax_error(pattern)
        if error is not None:
            raise PatternError(error)
        translated = _translate_regex(pattern)
        try:
            self._re = re.compile(translated, re.ASCII)
            tree = parse(translated)
        except re.error as e:
            raise PatternError(str(e)) from None
        except RecursionError:
            raise PatternError("pattern too deeply nested") from None
        error = _repeat_size_error(tree)
        if error is not None:
            raise PatternError(error)
        self.groups = self._re.groups
        self._vm = compile_tree(tree) if _may_backtrack_exponentially(tree, False) else None

    def fullmatch(self, data):
        if self._vm is not None:
            return self._vm.run(self.to_text(data), 0, True, True) is not None
        return self._re.fullmatch(self.to_text(data)) is not None

    def search(self, text, pos):
        if self._vm is not None:
            return self._vm.run(text, pos, False, False)
        m = self._re.search(text, pos)
        if m is None:
            return None
        return [m.span(i) for i in range(self.groups + 1)]

    @staticmethod
    def char_len(text, pos):
        return 1

    @staticmethod
    def to_text(data):
        return data.decode("utf-8", "surrogateescape")

    @staticmethod
    def from_text(text):
        return text.encode("utf-8", "surrogateescape")

    @staticmethod
    def rewrite_literal(s):
        return s


# --- the fallback: RE2's syntax in Python's, and the guards ------------------------------------
_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_MULTILINE = re.compile(r"\(\?[a-zA-Z]*m")
_BAD_ESCAPES = frozenset("123456789ZGk")  # RE2 refuses these; Python takes some
_PERL_OPERATORS = ("(?<=", "(?<!", "(?P=", "(?=", "(?!", "(?>", "(?(", "(?#")
_REPEAT_COUNT = re.compile(r"\{\d+(?:,\d*)?\}")


def _re2_syntax_error(pattern):
    """RE2's error text for syntax RE2 refuses but Python's ``re`` takes (backreferences,
    lookarounds, possessive repeats), or None."""
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1:i + 2] in _BAD_ESCAPES and i + 1 < n:
                return f"invalid escape sequence: {pattern[i:i + 2]}"
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i) and pattern.find(":]", i + 2) > 0:
                i = pattern.find(":]", i + 2) + 2
                continue
            in_class = c != "]"
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 2 if pattern[i + 1:i + 2] in ("]", "^") else 1
            if pattern[i - 1] == "^" and pattern[i:i + 1] == "]":
                i += 1
            continue
        if c == "(":
            op = next((op for op in _PERL_OPERATORS if pattern.startswith(op, i)), None)
            if op is not None:
                return f"invalid perl operator: {op[:3] if op == '(?P=' else op}"
        m = _REPEAT_COUNT.match(pattern, i) if c == "{" else None
        if c in "*+?" or m:
            j = m.end() if m else i + 1
            if pattern[j:j + 1] == "?":
                j += 1
            if pattern[j:j + 1] in ("*", "+", "?") or _REPEAT_COUNT.match(pattern, j):
                k = j + 1 if pattern[j] != "{" else _REPEAT_COUNT.match(pattern, j).end()
                return f"bad repetition operator: {pattern[i:k]}"
            i = j
            continue
        i += 1
    return None


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


_REPEATS = {_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT, getattr(_sre_parse, "POSSESSIVE_REPEAT",
                                                                   None)} - {None}


def _may_backtrack_exponentially(items, in_repeat):
    """True when a repeat (``*``, ``+``, ``{n,m}`` with m > 1) holds another such repeat, or an
    alternation whose branches may start alike."""
    for op, av in items:
        if op in _REPEATS:
            _, hi, body = av
            repeats = hi is _sre_parse.MAXREPEAT or hi > 1
            if repeats and in_repeat:
                return True
            if _may_backtrack_exponentially(body, in_repeat or repeats):
                return True
        elif op is _sre_parse.SUBPATTERN:
            if _may_backtrack_exponentially(av[-1], in_repeat):
                return True
        elif op is _sre_parse.BRANCH:
            branches = av[1]
            if in_repeat and not _distinct_starts(branches):
                return True
            if any(_may_backtrack_exponentially(b, in_repeat) for b in branches):
                return True
    return False


_MAX_REPEAT_PRODUCT = 1000  # RE2's limit on counted repetition, nested counts multiplied


def _repeat_size_error(items):
    """RE2's "invalid repetition size" for the first counted repeat (in parse order) whose count,
    times the counts nested in it, passes 1000; or None."""
    for op, av in items:
        if op in _REPEATS:
            lo, hi, body = av
            count = lo if hi is _sre_parse.MAXREPEAT else hi
            error = _repeat_size_error(body)
            if error is not None:
                return error
            if count > _MAX_REPEAT_PRODUCT or (count > 1 and _budget(
                    body, _MAX_REPEAT_PRODUCT // count) == 0):
                size = f"{lo}" if lo == hi else f"{lo}," if hi is _sre_parse.MAXREPEAT else \
                    f"{lo},{hi}"
                return f"invalid repetition size: {{{size}}}"
        elif op is _sre_parse.SUBPATTERN:
            error = _repeat_size_error(av[-1])
            if error is not None:
                return error
        elif op is _sre_parse.BRANCH:
            for branch in av[1]:
                error = _repeat_size_error(branch)
                if error is not None:
                    return error
    return None


def _budget(items, budget):
    """What is left of ``budget`` after dividing by the counts of the repeats nested in items."""
    low = budget
    for op, av in items:
        if op in _REPEATS:
            lo, hi, body = av
            count = lo if hi is _sre_parse.MAXREPEAT else hi
            inner = budget // count if count > 0 else budget
            low = min(low, inner, _budget(body, inner))
        elif op is _sre_parse.SUBPATTERN:
            low = min(low, _budget(av[-1], budget))
        elif op is _sre_parse.BRANCH:
            low = min([low] + [_budget(b, budget) for b in av[1]])
    return low


def _distinct_starts(branches):
    """Whether every branch starts with a literal character no other branch starts with."""
    firsts = []
    for b in branches:
        items = list(b)
        if not items or items[0][0] is not _sre_parse.LITERAL:
            return False
        firsts.append(items[0][1])
    return len(set(firsts)) == len(firsts)
