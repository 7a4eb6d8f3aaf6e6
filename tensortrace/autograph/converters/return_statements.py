"""Lowers every ``return`` into two variables, ``do_return`` and ``retval_`` (TF's form: ``try:
do_return = True; retval_ = value`` ``except: do_return = False; raise``), guards on the code
that follows (``if not do_return:``) and an extra loop condition, so that the function returns
once, at its end, inside TF's ``with ag__.FunctionScope(...) as fscope:`` with
``return fscope.ret(retval_, do_return)`` (a function without ``return`` gets the scope alone,
as in TF)."""

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


def _returns(stmts):
    """True if a ``return`` sits in ``stmts`` (not counting nested functions and classes)."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


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
        self.depth = 0  # enclosing functions of the one being lowered

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        saved = self.blocks, self.names
        nested, returns = _needs_rewrite(node), _returns(node.body)
        node.body, definitely_returns = _merge_returns(node.body)
        if nested and not definitely_returns:  # fscope.ret checks it returned (see conversion)
            self.ctx.indefinite_returns = getattr(self.ctx, "indefinite_returns", set())
            self.ctx.indefinite_returns.add(node.name)
        do_return, retval = self.ctx.namer.new("do_return"), self.ctx.namer.new("retval_")
        scope = self.ctx.namer.new("fscope")
        self.blocks, self.names = [], (do_return, retval)
        self.depth += 1
        body = self._block(node.body, is_target=True)
        self.depth -= 1
        self.blocks, self.names = saved
        # the converted function's own options; the functions it defines get TF's ag__.STD
        options = "ag__.STD" if self.depth else (
            "ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
            "internal_convert_user_code=True)")
        header = f"with ag__.FunctionScope(name, scope, {options}) as fscope:\n"
        if not returns:  # TF's form: no return variables, the body falls off the end
            (wrapper,) = templates.replace(header + "    body", name=ast.Constant(node.name),
                                           scope=ast.Constant(scope), fscope=scope, body=body)
            node.body = [copy_origin(wrapper, node.body[0])]
            return node
        (wrapper,) = templates.replace(
            header + "    do_return = False\n"
            "    retval_ = ag__.UndefinedReturnValue()\n"
            "    body\n"
            "    return fscope.ret(retval_, do_return)",
            name=ast.Constant(node.name), scope=ast.Constant(scope), fscope=scope,
            do_return=do_return, retval_=retval, body=body)
        copy_origin(wrapper, node.body[0])
        for stmt in wrapper.body[:2]:
            copy_origin(stmt, node.body[0])
        copy_origin(wrapper.body[-1], node.body[-1])
        node.body = [wrapper]
        return node

    def visit_Return(self, node):
        if self.names is None:
            return node
        self._jumped()
        value = self.visit(node.value) if node.value is not None else ast.Constant(None)
        do_return, retval = self.names
        # TF's form: if computing the value raises (and is caught), no return happened
        stmts = templates.replace(
            "try:\n    do_return = True\n    retval_ = value\nexcept:\n    do_return = False\n"
            "    raise", do_return=do_return, retval_=retval, value=value)
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
