"""A linear-time regex matcher (Thompson's NFA with submatches, as RE2's NFA runs it) over the parse
tree of Python's ``re``: the fallback engine for patterns a backtracking engine could take
exponential time on, when RE2 itself is not installed. Leftmost-first, like RE2 and Perl.

    >>> vm = compile_tree(parse("(a+)+$"))
    >>> vm.search("a" * 30 + "b", 0) is None
    True
"""

import re

try:
    from re import _parser as _sre
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre

_CHAR, _SPLIT, _JMP, _SAVE, _AT, _MATCH = range(6)
_SPACE = frozenset("\t\n\f\r ")  # RE2's \s (no \v)
_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGIT = frozenset("0123456789")
_CATEGORIES = {
    _sre.CATEGORY_DIGIT: (_DIGIT, False), _sre.CATEGORY_NOT_DIGIT: (_DIGIT, True),
    _sre.CATEGORY_SPACE: (_SPACE, False), _sre.CATEGORY_NOT_SPACE: (_SPACE, True),
    _sre.CATEGORY_WORD: (_WORD, False), _sre.CATEGORY_NOT_WORD: (_WORD, True),
}


def parse(pattern):
    """The parse tree of a Python-syntax pattern (ASCII classes)."""
    return _sre.parse(pattern, re.ASCII)


def compile_tree(tree):
    return _Program(tree)


class _Program:
    """The instructions of one pattern and the matcher that runs them."""

    def __init__(self, tree):
        self.groups = tree.state.groups - 1
        self.code = []
        flags = tree.state.flags
        self.multiline = bool(flags & re.MULTILINE)
        self._emit_seq(list(tree), flags)
        self.code.append((_MATCH,))

    # --- compiling ------------------------------------------------------------------------------
    def _emit(self, *inst):
        self.code.append(inst)
        return len(self.code) - 1

    def _emit_seq(self, items, flags):
        for op, av in items:
            self._emit_item(op, av, flags)

    def _emit_item(self, op, av, flags):
        fold = bool(flags & re.IGNORECASE)
        if op is _sre.LITERAL:
            c = chr(av)
            self._emit(_CHAR, _literal(c, fold, False))
        elif op is _sre.NOT_LITERAL:
            self._emit(_CHAR, _literal(chr(av), fold, True))
        elif op is _sre.ANY:
            dotall = bool(flags & re.DOTALL)
            self._emit(_CHAR, (lambda c: True) if dotall else (lambda c: c != "\n"))
        elif op is _sre.IN:
            self._emit(_CHAR, _char_class(av, fold))
        elif op is _sre.AT:
            self._emit(_AT, av)
        elif op is _sre.SUBPATTERN:
            group, add, remove, body = av
            inner = (flags | add) & ~remove
            if group is not None:
                self._emit(_SAVE, 2 * group)
            self._emit_seq(list(body), inner)
            if group is not None:
                self._emit(_SAVE, 2 * group + 1)
        elif op is _sre.BRANCH:
            jumps, branches = [], av[1]
            for i, branch in enumerate(branches):
                if i < len(branches) - 1:
                    split = self._emit(_SPLIT, None, None)
                    start = len(self.code)
                    self._emit_seq(list(branch), flags)
                    jumps.append(self._emit(_JMP, None))
                    self.code[split] = (_SPLIT, start, len(self.code))
                else:
                    self._emit_seq(list(branch), flags)
            for j in jumps:
                self.code[j] = (_JMP, len(self.code))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            lo, hi, body = av
            greedy = op is _sre.MAX_REPEAT
            if hi is _sre.MAXREPEAT:  # x{n,} is n - 1 copies of x, then x+ (x* for n = 0)
                for _ in range(lo - 1):
                    self._emit_seq(list(body), flags)
                if lo == 0 and not _nullable(body):  # x*: one Alt, entered and looped to
                    split = self._emit(_SPLIT, None, None)
                    self._emit_seq(list(body), flags)
                    self._emit(_JMP, split)
                    self._set_split(split, split + 1, len(self.code), greedy)
                    return
                skip = self._emit(_SPLIT, None, None) if lo == 0 else None  # (x+)?, as RE2
                start = len(self.code)
                self._emit_seq(list(body), flags)
                loop = self._emit(_SPLIT, None, None)
                self._set_split(loop, start, len(self.code), greedy)
                if skip is not None:
                    self._set_split(skip, start, len(self.code), greedy)
                return
            for _ in range(lo):
                self._emit_seq(list(body), flags)
            splits = []
            for _ in range(hi - lo):
                splits.append(self._emit(_SPLIT, None, None))
                self._emit_seq(list(body), flags)
            for split in splits:
                self._set_split(split, split + 1, len(self.code), greedy)
        else:  # lookarounds, backreferences ...: refused before compiling
            raise ValueError(f"unsupported regex construct: {op}")

    def _set_split(self, at, body, out, greedy):
        self.code[at] = (_SPLIT, body, out) if greedy else (_SPLIT, out, body)

    # --- running --------------------------------------------------------------------------------
    def _at(self, kind, text, i):
        n = len(text)
        if kind is _sre.AT_BEGINNING_STRING:
            return i == 0
        if kind is _sre.AT_END_STRING:
            return i == n
        if kind is _sre.AT_BEGINNING:
            return i == 0 or (self.multiline and text[i - 1] == "\n")
        if kind is _sre.AT_END:
            return i == n or (self.multiline and text[i] == "\n")
        before = i > 0 and text[i - 1] in _WORD
        after = i < n and text[i] in _WORD
        return (before != after) == (kind is _sre.AT_BOUNDARY)

    def _add(self, threads, seen, pc, caps, text, i):
        """Follow the empty moves from ``pc`` in priority order, adding the threads they reach."""
        stack = [(pc, caps)]
        code = self.code
        while stack:
            pc, caps = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            inst = code[pc]
            op = inst[0]
            if op is _JMP:
                stack.append((inst[1], caps))
            elif op is _SPLIT:
                stack.append((inst[2], caps))
                stack.append((inst[1], caps))
            elif op is _SAVE:
                caps = caps[:inst[1]] + (i,) + caps[inst[1] + 1:]
                stack.append((pc + 1, caps))
            elif op is _AT:
                if self._at(inst[1], text, i):
                    stack.append((pc + 1, caps))
            else:
                threads.append((pc, caps))

    def run(self, text, pos, anchored, full):
        """The spans of groups 0..n of the leftmost-first match at or after ``pos`` (at ``pos``
        only when ``anchored``; to the end of the text when ``full``), or None."""
        n, code = len(text), self.code
        empty = (-1,) * (2 * self.groups + 2)
        threads, seen, matched = [], set(), None
        self._add(threads, seen, 0, (pos,) + empty[1:], text, pos)
        i = pos
        while True:
            c = text[i] if i < n else None
            nxt, nseen = [], set()
            for pc, caps in threads:
                inst = code[pc]
                if inst[0] is _MATCH:
                    if full and i != n:
                        continue
                    matched = caps[:1] + (i,) + caps[2:]
                    break  # the threads after it have lower priority
                if c is not None and inst[1](c):
                    self._add(nxt, nseen, pc + 1, caps, text, i + 1)
            if i >= n:
                break
            i += 1
            if matched is None and not anchored:  # a new start, after every older thread
                self._add(nxt, nseen, 0, (i,) + empty[1:], text, i)
            threads = nxt
            if not threads and (matched is not None or anchored):
                break
        if matched is None:
            return None
        return [(matched[2 * g], matched[2 * g + 1]) if matched[2 * g + 1] >= 0 else (-1, -1)
                for g in range(self.groups + 1)]


def _nullable(items):
    """Whether a parsed sequence can match the empty string."""
    for op, av in items:
        if op is _sre.AT:
            continue
        if op is _sre.SUBPATTERN:
            if not _nullable(av[-1]):
                return False
        elif op is _sre.BRANCH:
            if not any(_nullable(b) for b in av[1]):
                return False
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            if av[0] > 0 and not _nullable(av[2]):
                return False
        else:
            return False
    return True


def _literal(c, fold, negate):
    if fold and c.lower() != c.upper():
        options = {c.lower(), c.upper()}
        return (lambda x: x not in options) if negate else (lambda x: x in options)
    return (lambda x: x != c) if negate else (lambda x: x == c)


def _char_class(items, fold):
    """A predicate for a ``[...]`` class."""
    negate, chars, ranges, sets = False, set(), [], []
    for op, av in items:
        if op is _sre.NEGATE:
            negate = True
        elif op is _sre.LITERAL:
            chars.add(chr(av))
        elif op is _sre.RANGE:
            ranges.append((chr(av[0]), chr(av[1])))
        elif op is _sre.CATEGORY:
            sets.append(_CATEGORIES[av])
        else:
            raise ValueError(f"unsupported class item: {op}")

    def one(c):
        if c in chars or any(a <= c <= b for a, b in ranges):
            return True
        return any((c in s) != inverted for s, inverted in sets)

    def test(c):
        hit = one(c) or (fold and (one(c.lower()) or one(c.upper())))
        return hit != negate

    return test
