"""Turns ``a and b``, ``a or b`` and ``not a`` into ``ag__.and_(lambda: a, lambda: b)``,
``ag__.or_(...)`` and ``ag__.not_(a)``: lazy like Python, graph ops for tensors."""

import ast

from .. import templates
from ..transformer import Base, copy_origin, has_walrus


class LogicalTransformer(Base):

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        if has_walrus(node):  # operands become lambdas, where `:=` would bind locally
            return node
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        expr = values[-1]
        for value in reversed(values[:-1]):
            expr = templates.replace_as_expression(f"ag__.{op}(lambda: a, lambda: b)", a=value,
                                                   b=expr)
        return copy_origin(expr, node)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return copy_origin(templates.replace_as_expression("ag__.not_(a)", a=node.operand), node)


def transform(node, ctx):
    return LogicalTransformer(ctx).visit(node)
