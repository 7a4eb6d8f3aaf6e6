"""TF's variable loads: every read of a user's variable goes through ``ag__.ld(x)`` (which
raises for a variable a graph branch or loop left undefined), and ``x += v`` reloads ``x``
first (``x = ag__.ld(x)``). ``mark`` runs before the other converters so that only the user's
own names are wrapped, not the ones conversion adds (flags, state, helpers)."""

import ast

from .. import templates
from ..transformer import Base, copy_origin, is_generator


def mark(node):
    """Mark the user's variable reads in ``node`` (the function as parsed)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id != "ag__":
            n.ag_user_load = True


class VariableAccessTransformer(Base):

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        return self.generic_visit(node)

    def visit_Name(self, node):
        if not getattr(node, "ag_user_load", False) or not isinstance(node.ctx, ast.Load):
            return node
        node.ag_user_load = False
        call = templates.replace_as_expression("ag__.ld(var)", var=node)
        return copy_origin(call, node)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            node.target = self.visit(node.target)
            return node
        reload = templates.replace("var = ag__.ld(var)", var=node.target.id)
        return copy_origin(reload, node) + [node]


def transform(node, ctx):
    return VariableAccessTransformer(ctx).visit(node)
