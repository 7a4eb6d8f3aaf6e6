"""Turns ``a if test else b`` into ``ag__.if_exp(test, lambda: a, lambda: b, 'test')``."""

import ast

from .. import templates
from ..transformer import Base, copy_origin, has_walrus


class ConditionalExpressionTransformer(Base):

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if has_walrus(node):  # the branches become lambdas, where `:=` would bind locally
            return node
        expr = templates.replace_as_expression(
            "ag__.if_exp(test, lambda: body, lambda: orelse, text)", test=node.test,
            body=node.body, orelse=node.orelse, text=ast.Constant(ast.unparse(node.test)))
        return copy_origin(expr, node)


def transform(node, ctx):
    return ConditionalExpressionTransformer(ctx).visit(node)
