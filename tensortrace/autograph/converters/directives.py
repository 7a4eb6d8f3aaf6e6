"""Moves ``tf.autograph.experimental.set_loop_options(...)`` calls at the top of a loop body
into the loop's options (``shape_invariants``, ``maximum_iterations``, ...)."""

import ast

from ..transformer import Base


def _is_directive(stmt):
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


class DirectivesTransformer(Base):

    def _visit_loop(self, node):
        node = self.generic_visit(node)
        options = {}
        body = []
        for stmt in node.body:
            if _is_directive(stmt):
                options.update({k.arg: k.value for k in stmt.value.keywords if k.arg})
            else:
                body.append(stmt)
        if options:
            node.body = body or [ast.Pass()]
            node.ag_loop_options = options
        return node

    visit_While = visit_For = _visit_loop


def transform(node, ctx):
    return DirectivesTransformer(ctx).visit(node)
