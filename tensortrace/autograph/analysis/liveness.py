"""Liveness and definedness at each ``if``, ``while`` and ``for`` of a function.

``resolve(fn)`` annotates, for every such statement of ``fn`` and of the functions nested in it:

- ``ag_live_in`` / ``ag_live_out``: names read before being rebound, from the statement's entry
  (for loops: its head, where each iteration starts) and from its exit;
- ``ag_may_define`` / ``ag_must_define``: names bound on some / on every path into the statement
  (a loop's own back edge excluded: that is what "defined before the loop" means);

and on each function ``ag_always_live`` (locals closures read, and global/nonlocal names: they
outlive any statement), and on each read of a local that may be unbound there
``ag_maybe_undefined = True``. The code must be free of ``break``/``continue`` (the converters
that remove them run first).
"""

import ast

from . import activity

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def resolve(fn_node):
    """Annotate ``fn_node`` and the functions nested in it."""
    for node in ast.walk(fn_node):
        if isinstance(node, _FUNCTIONS):
            _resolve_function(node)
    return fn_node


def _resolve_function(fn):
    globals_ = activity.declared(fn, ast.Global)
    nonlocals = activity.declared(fn, ast.Nonlocal)
    fn.ag_globals = globals_
    fn.ag_nonlocals = nonlocals
    fn.ag_always_live = activity.captured(fn) | globals_ | nonlocals
    _live_block(fn.body, set())
    params = activity.parameters(fn)
    _Definedness(activity.local_names(fn)).block(fn.body, set(params), set(params))


# --- liveness (backward) --------------------------------------------------------------------
def _live_block(stmts, live_out):
    live = set(live_out)
    for stmt in reversed(stmts):
        live = _live_stmt(stmt, live)
    return live


def _live_stmt(s, out):
    read = activity.read
    if isinstance(s, ast.If):
        live = read(s.test) | _live_block(s.body, out) | _live_block(s.orelse, out)
        s.ag_live_in, s.ag_live_out = live, set(out)
        return live
    if isinstance(s, ast.While):
        head = set()
        while True:
            new = read(s.test) | _live_block(s.body, head) | _live_block(s.orelse, out)
            if new == head:
                break
            head = new
        s.ag_live_in, s.ag_live_out = head, set(out)
        return head | _option_reads(s)
    if isinstance(s, (ast.For, ast.AsyncFor)):
        head = set()
        after = _live_block(s.orelse, out) | out
        target_bound, target_read = activity.bound(s.target), activity.target_reads(s.target)
        extra = getattr(s, "ag_extra_test", None)  # break/return flags, checked at the head
        extra = read(extra) if extra is not None else set()
        while True:
            new = after | extra | (_live_block(s.body, head) - target_bound) | target_read
            if new == head:
                break
            head = new
        s.ag_live_in, s.ag_live_out = head, set(out)
        return head | read(s.iter) | _option_reads(s)
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        after = _live_block(s.finalbody, out)
        handlers = set()
        for h in s.handlers:
            handlers |= _live_block(h.body, after) - ({h.name} if h.name else set())
            handlers |= read(h.type) if h.type is not None else set()
        return _live_block(s.body, _live_block(s.orelse, after) | handlers) | handlers
    if isinstance(s, (ast.With, ast.AsyncWith)):
        live = _live_block(s.body, out)
        for item in reversed(s.items):
            if item.optional_vars is not None:
                live = (live - activity.bound(item.optional_vars)) | activity.target_reads(
                    item.optional_vars)
            live |= read(item.context_expr)
        return live
    if isinstance(s, ast.Match):
        live = read(s.subject)
        for case in s.cases:
            guard = read(case.guard) if case.guard is not None else set()
            live |= (_live_block(case.body, out) | guard) - activity.bound(case.pattern)
            live |= read(case.pattern)  # value patterns (Point.x) read names
        return live | out  # no case may match
    if isinstance(s, ast.Return):
        return read(s.value) if s.value is not None else set()
    if isinstance(s, ast.Raise):
        return read([x for x in (s.exc, s.cause) if x is not None])
    if isinstance(s, (ast.Assign, ast.AnnAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        value = read(s.value) if s.value is not None else set()
        killed = activity.bound(targets) if s.value is not None else set()
        reads = set().union(*(activity.target_reads(t) for t in targets))
        return (out - killed) | value | reads
    if isinstance(s, ast.Delete):
        return (out - activity.bound(s.targets)) | set().union(
            *(activity.target_reads(t) for t in s.targets))
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                      ast.ImportFrom)):
        return (out - activity.bound(s)) | read(s)
    return out | read(s)


def _option_reads(loop):
    """Names read by the loop's ``set_loop_options`` arguments (evaluated before the loop)."""
    options = getattr(loop, "ag_loop_options", {})
    return activity.read(list(options.values()))


# --- definedness (forward) ------------------------------------------------------------------
class _Definedness:
    """Tracks names bound on some (``may``) and on every (``must``) path, in program order."""

    def __init__(self, local_names):
        self.locals = local_names

    def block(self, stmts, may, must):
        for s in stmts:
            may, must = self.stmt(s, may, must)
        return may, must

    def mark(self, node, must):
        """Flag reads of locals that may be unbound at this point."""
        if node is None:
            return
        for sub in activity._walk_scope_list(node if isinstance(node, list) else [node]):
            if (isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)
                    and sub.id in self.locals and sub.id not in must):
                sub.ag_maybe_undefined = True

    def stmt(self, s, may, must):
        if isinstance(s, ast.If):
            s.ag_may_define, s.ag_must_define = set(may), set(must)
            self.mark(s.test, must)
            walrus = activity.bound(s.test)  # `if (m := f()):` binds m before either branch
            may, must = may | walrus, must | walrus
            bm, bM = self.block(s.body, set(may), set(must))
            om, oM = self.block(s.orelse, set(may), set(must))
            return bm | om, bM & oM
        if isinstance(s, (ast.While, ast.For, ast.AsyncFor)):
            s.ag_may_define, s.ag_must_define = set(may), set(must)
            is_for = not isinstance(s, ast.While)
            self.mark(s.iter if is_for else s.test, must)
            # the target, or names a `while (m := f()):` test binds
            target = activity.bound(s.target if is_for else s.test)
            loop_may = may | activity.bound(s.body) | target
            self.block(s.body, set(loop_may), must | target)
            om, oM = self.block(s.orelse, set(loop_may), set(must))
            return loop_may | om, oM
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            everything = may | activity.bound(s)
            bm, bM = self.block(s.body + s.orelse, set(may), set(must))
            musts = [bM]
            for h in s.handlers:
                self.mark(h.type, must)
                named = {h.name} if h.name else set()
                _, hM = self.block(h.body, everything | named, must | named)
                musts.append(hM - named)
            _, fM = self.block(s.finalbody, everything, set(must))
            return everything, set.intersection(*musts) | fM
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.mark(item.context_expr, must)
                if item.optional_vars is not None:
                    names = activity.bound(item.optional_vars)
                    may, must = may | names, must | names
            return self.block(s.body, may, must)
        if isinstance(s, ast.Delete):
            self.mark(s.targets, must)
            names = activity.bound(s.targets)
            return may - names, must - names
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.mark([d for d in s.decorator_list], must)
            names = {s.name}
            return may | names, must | names
        if isinstance(s, ast.Match):
            self.mark(s.subject, must)
            for case in s.cases:
                names = activity.bound(case.pattern)
                self.mark(case.guard, must | names)
                self.block(case.body, may | names, must | names)
            return may | activity.bound(s), must
        self.mark(s, must)
        names = activity.bound(s)
        return may | names, must | names
