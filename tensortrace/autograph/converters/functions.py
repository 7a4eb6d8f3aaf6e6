"""Marks the functions a converted function defines as converted already, TF's way: nested
``def``s get ``@ag__.autograph_artifact`` and lambdas ``ag__.autograph_artifact(lambda ...)``,
so that ``converted_call`` runs them as they are (their scope options are TF's ``ag__.STD``,
which ``return_statements`` writes)."""

import ast

from ..transformer import Base, copy_origin, is_generator


def _artifact():
    return ast.Attribute(ast.Name("ag__", ast.Load()), "autograph_artifact", ast.Load())


class FunctionsTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.depth = 0  # functions (and lambdas) around the node being visited

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        self.depth += 1
        node = self.generic_visit(node)
        self.depth -= 1
        if self.depth:
            node.decorator_list.append(copy_origin(_artifact(), node))
        return node

    def visit_Lambda(self, node):
        self.depth += 1
        node = self.generic_visit(node)
        self.depth -= 1
        if not self.depth:  # the lambda being converted itself
            return node
        return copy_origin(ast.Call(_artifact(), [node], []), node)


def transform(node, ctx):
    return FunctionsTransformer(ctx).visit(node)
