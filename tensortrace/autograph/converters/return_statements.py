"""Lowers ``return`` inside ``if``/``for``/``while`` into two variables, ``do_return`` and
``retval_``, guards on the code that follows (``if not do_return:``) and an extra loop condition,
so that the function returns once, at its end. Functions whose returns are all at the top level
are left as written."""

import ast

from .. import templates
from ..transformer import copy_origin, is_generator
from .guards import GuardingTransformer


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
class ReturnTransformer(GuardingTransformer):

    def __init__(self, ctx):
        super().__init__(ctx)
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
        self.blocks, self.names = [], (do_return, retval)
        body = self._block(node.body, is_target=True)
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
        self._jumped()
        value = self.visit(node.value) if node.value is not None else ast.Constant(None)
        do_return, retval = self.names
        # The value first: if computing it raises (and is caught), no return happened.
        stmts = templates.replace("retval_ = value\ndo_return = True", do_return=do_return,
                                  retval_=retval, value=value)
        return copy_origin(stmts, node)

    def _flag_name(self):
        return self.names[0]

    def _loop_body(self, node):
        """The body; a return in it also ends the loop (its test, or its extra test)."""
        body = self._block(node.body)
        if self.names is None or not self.blocks[-1].jumped:
            return body
        if isinstance(node, ast.While):
            test = templates.replace_as_expression("not do_return and test",
                                                   do_return=self.names[0], test=node.test)
            node.test = copy_origin(test, node.test)
            return body
        extra = getattr(node, "ag_extra_test", None)
        if extra is None:
            extra = templates.replace_as_expression("not do_return", do_return=self.names[0])
        else:
            extra = templates.replace_as_expression("not do_return and extra",
                                                    do_return=self.names[0], extra=extra)
        node.ag_extra_test = copy_origin(extra, node)
        return body


def transform(node, ctx):
    return ReturnTransformer(ctx).visit(node)
