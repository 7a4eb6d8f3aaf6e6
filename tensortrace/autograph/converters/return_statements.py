"""Lowers ``return`` inside ``if``/``for``/``while`` into two variables, ``do_return`` and
``retval_``, guards on the code that follows (``if not do_return:``) and an extra loop condition,
so that the function returns once, at its end. Functions whose returns are all at the top level
are left as written."""

import ast

from .. import templates
from ..transformer import Base, copy_origin, is_generator


def _needs_rewrite(fn):
    """True if a ``return`` of ``fn`` sits inside a statement AutoGraph turns into functions."""
    def walk(stmts, nested):
        for s in stmts:
            if isinstance(s, ast.Return) and nested:
                return True
            if isinstance(s, (ast.If, ast.For, ast.While)):
                if walk(s.body, True) or walk(s.orelse, True):
                    return True
            elif isinstance(s, (ast.With, ast.Try)):
                blocks = [s.body] + [getattr(s, f, []) for f in ("orelse", "finalbody")]
                blocks += [h.body for h in getattr(s, "handlers", [])]
                if any(walk(b, nested) for b in blocks):
                    return True
        return False

    return walk(fn.body, False)


# --- moving code after a one-sided return into the other branch ----------------------------------
def _merge_returns(stmts):
    """Rewrite ``if c: ...; return`` + rest into ``if c: ...; return`` / ``else: rest``.

    Returns:
        (statements, whether they definitely return).
    """
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            return out + stmts[i:], True
        if isinstance(s, ast.If):
            s.body, body_returns = _merge_returns(s.body)
            s.orelse, else_returns = _merge_returns(s.orelse)
            rest = stmts[i + 1:]
            if body_returns and else_returns:
                return out + [s] + rest, True
            if rest and (body_returns or else_returns):
                if body_returns:
                    s.orelse, else_returns = _merge_returns(s.orelse + rest)
                else:
                    s.body, body_returns = _merge_returns(s.body + rest)
                return out + [s], body_returns and else_returns
        elif isinstance(s, ast.With):
            s.body, returns = _merge_returns(s.body)
            if returns:
                return out + stmts[i:], True
        elif isinstance(s, (ast.For, ast.While)):
            s.body, _ = _merge_returns(s.body)
            s.orelse, _ = _merge_returns(s.orelse)
        elif isinstance(s, ast.Try):
            s.body, _ = _merge_returns(s.body)
            s.orelse, _ = _merge_returns(s.orelse)
            s.finalbody, _ = _merge_returns(s.finalbody)
            for h in s.handlers:
                h.body, _ = _merge_returns(h.body)
        out.append(s)
    return out, False


def _is_read(fn, name):
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(fn))


def _drop_assignments(fn, name):
    """Remove ``name = ...`` statements from ``fn`` (a flag nothing reads)."""
    for node in ast.walk(fn):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                kept = [s for s in value if not (
                    isinstance(s, ast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name)]
                setattr(node, field, kept or [ast.Pass()])


# --- lowering -----------------------------------------------------------------------------------
class _Block:
    def __init__(self, is_function=False):
        self.is_function = is_function
        self.return_used = False
        self.guard_next = False
        self.guard_now = False


class ReturnTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = []
        self.names = None  # (do_return, retval_) of the function being lowered

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        saved = self.blocks, self.names
        if not _needs_rewrite(node):
            self.blocks, self.names = [], None
            node = self.generic_visit(node)  # nested functions may need it
            self.blocks, self.names = saved
            return node
        node.body, definitely_returns = _merge_returns(node.body)
        do_return, retval = self.ctx.namer.new("do_return"), self.ctx.namer.new("retval_")
        self.blocks, self.names = [_Block(is_function=True)], (do_return, retval)
        body = self._block(node.body)
        self.blocks, self.names = saved
        prologue = templates.replace("do_return = False\nretval_ = ag__.UndefinedReturnValue()",
                                     do_return=do_return, retval_=retval)
        if definitely_returns:
            epilogue = templates.replace("return retval_", retval_=retval)
        else:
            epilogue = templates.replace("return ag__.retval(retval_, do_return)",
                                         retval_=retval, do_return=do_return)
        copy_origin(prologue, node.body[0])
        copy_origin(epilogue, node.body[-1])
        node.body = prologue + body + epilogue
        if not _is_read(node, do_return):  # every path returns and no guard needs the flag
            _drop_assignments(node, do_return)
        return node

    def visit_Return(self, node):
        if self.names is None:
            return node
        for block in reversed(self.blocks):
            block.return_used = True
            block.guard_next = True
            if block.is_function:
                break
        value = self.visit(node.value) if node.value is not None else ast.Constant(None)
        do_return, retval = self.names
        # The value first: if computing it raises (and is caught), no return happened.
        stmts = templates.replace("retval_ = value\ndo_return = True", do_return=do_return,
                                  retval_=retval, value=value)
        return copy_origin(stmts, node)

    def _after(self, node):
        block = self.blocks[-1]
        if not block.return_used:
            return node, None
        wrap = block.guard_now
        block.guard_now, block.guard_next = block.guard_next, False
        if not wrap:
            return node, None
        (guard,) = templates.replace("if not do_return:\n    stmt", do_return=self.names[0],
                                     stmt=node if isinstance(node, list) else [node])
        copy_origin(guard, node[0] if isinstance(node, list) else node)
        return guard, guard.body

    def _block(self, stmts):
        if self.names is None:
            return self.visit_block(stmts)
        self.blocks.append(_Block())
        stmts = self.visit_block(stmts, after_visit=self._after)
        self.blocks.pop()
        return stmts

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self._block(node.body)
        if self.names is not None and self.blocks[-1].return_used:
            test = templates.replace_as_expression("not do_return and test",
                                                   do_return=self.names[0], test=node.test)
            node.test = copy_origin(test, node.test)
        node.orelse = self._block(node.orelse)
        return node

    def visit_For(self, node):
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.body = self._block(node.body)
        if self.names is not None and self.blocks[-1].return_used:
            extra = getattr(node, "ag_extra_test", None)
            if extra is None:
                extra = templates.replace_as_expression("not do_return", do_return=self.names[0])
            else:
                extra = templates.replace_as_expression("not do_return and extra",
                                                        do_return=self.names[0], extra=extra)
            node.ag_extra_test = copy_origin(extra, node)
        node.orelse = self._block(node.orelse)
        return node

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        return node

    def visit_With(self, node):
        node.items = [self.visit(i) for i in node.items]
        node.body = self._block(node.body)
        return node

    def visit_Try(self, node):
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        node.finalbody = self._block(node.finalbody)
        for h in node.handlers:
            h.body = self._block(h.body)
        return node


def transform(node, ctx):
    return ReturnTransformer(ctx).visit(node)
