"""Rewrites ``xs.append(v)`` inside ``if``/``for``/``while`` into ``xs = ag__.list_append(xs, v)``:
the list becomes part of the statement's state, so a Python list growing inside a graph loop
is caught (with advice to use a TensorArray) instead of leaking the loop's tensors."""

import ast

from .. import templates
from ..analysis import activity
from ..transformer import Base, copy_origin


def _append_target(stmt):
    """``xs`` if ``stmt`` is ``xs.append(v)`` with ``xs`` a plain name, else None."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if (isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1
            and not call.keywords and not isinstance(call.args[0], ast.Starred)):
        return call.func.value.id
    return None


class ListTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.depth = 0  # how many control-flow statements enclose the current one
        self.locals = set()  # only local lists are rewritten: an assignment would make a
        # global or closure variable local

    def visit_FunctionDef(self, node):
        saved = self.depth, self.locals
        self.depth, self.locals = 0, activity.local_names(node)
        node = super().visit_FunctionDef(node)
        self.depth, self.locals = saved
        return node

    def _nested(self, node):
        self.depth += 1
        node = self.generic_visit(node)
        self.depth -= 1
        return node

    visit_If = visit_For = visit_While = _nested

    def visit_Expr(self, node):
        name = _append_target(node)
        if name is None or not self.depth or name not in self.locals:
            return self.generic_visit(node)
        value = self.visit(node.value.args[0])
        stmts = templates.replace("target = ag__.list_append(target, value)", target=name,
                                  value=value)
        return copy_origin(stmts, node)


def transform(node, ctx):
    return ListTransformer(ctx).visit(node)
