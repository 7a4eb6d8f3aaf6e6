"""Code templates: Python source with placeholder names, filled with names, AST nodes or
statement lists. A template whose placeholders differ from the replacements raises.

    replace("target = ag__.Undefined(name)", target="y", name=ast.Constant("y"))
"""

import ast
import copy

from .parser import parse_template


def replace(template, **replacements):
    """Statements of ``template`` with each placeholder name replaced.

    A replacement is a ``str`` (a new name), an ``ast.expr`` (an expression, its context set
    to the placeholder's), a tuple of those (a tuple expression), or a list of statements (only
    where the placeholder stands alone as a statement).

    Raises:
        ValueError: if the template's placeholders and ``replacements`` differ.
        TypeError: for a replacement that does not fit where its placeholder stands.
    """
    nodes = parse_template(template)
    filler = _Filler(replacements)
    nodes = filler.visit_block(nodes)
    missing = set(replacements) - filler.used
    if missing:
        raise ValueError(f"template placeholders {sorted(missing)} not found in {template!r}")
    return nodes


def replace_as_expression(template, **replacements):
    """The single expression of ``template``, filled as by ``replace``."""
    (stmt,) = replace(template, **replacements)
    if not isinstance(stmt, ast.Expr):
        raise TypeError(f"template is not an expression: {template!r}")
    return stmt.value


def _with_ctx(node, ctx):
    """A copy of expression ``node`` usable in context ``ctx`` (Load/Store/Del)."""
    node = copy.deepcopy(node)
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)):
        node.ctx = ctx
    if isinstance(node, (ast.Tuple, ast.List)):
        node.ctx = ctx
        node.elts = [_with_ctx(e, ctx) for e in node.elts]
    if isinstance(node, ast.Starred):
        node.value = _with_ctx(node.value, ctx)
    return node


def _as_expr(value, ctx):
    if isinstance(value, str):
        return ast.Name(value, ctx)
    if isinstance(value, tuple):
        return ast.Tuple([_as_expr(v, type(ctx)()) for v in value], ctx)
    if isinstance(value, ast.expr):
        return _with_ctx(value, ctx)
    raise TypeError(f"cannot use {value!r} as an expression")


class _Filler(ast.NodeTransformer):
    """Replaces placeholders; records which were used."""

    def __init__(self, replacements):
        self.replacements = replacements
        self.used = set()

    def _lookup(self, name):
        if name in self.replacements:
            self.used.add(name)
            return True
        return False

    def visit_block(self, stmts):
        out = []
        for stmt in stmts:
            if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name)
                    and self._lookup(stmt.value.id)
                    and isinstance(self.replacements[stmt.value.id], list)):
                out.extend(self.replacements[stmt.value.id])
                continue
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def generic_visit(self, node):
        # Visit each field once: filled-in nodes are never visited (user code may use names
        # that look like placeholders).
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    setattr(node, field, self.visit_block(value) or [ast.Pass()])
                else:
                    setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v
                                          for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Name(self, node):
        if not self._lookup(node.id):
            return node
        value = self.replacements[node.id]
        if isinstance(value, list):
            raise TypeError(f"statement list {node.id!r} used inside an expression")
        return _as_expr(value, node.ctx)

    def visit_FunctionDef(self, node):
        if self._lookup(node.name):
            node.name = self.replacements[node.name]
        return self.generic_visit(node)

    def visit_arg(self, node):
        if self._lookup(node.arg):
            node.arg = self.replacements[node.arg]
        return node

    def _visit_names(self, node):
        names = []
        for n in node.names:
            if self._lookup(n):
                value = self.replacements[n]
                names.extend(value if isinstance(value, (list, tuple)) else [value])
            else:
                names.append(n)
        if not names:
            return []
        node.names = names
        return node

    visit_Nonlocal = visit_Global = _visit_names
