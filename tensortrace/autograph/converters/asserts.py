"""Turns ``assert test, msg`` into ``ag__.assert_stmt(test, lambda: msg)``: a graph assertion
when ``test`` is a tensor, Python's assert otherwise."""

from .. import templates
from ..transformer import Base, copy_origin


class AssertTransformer(Base):

    def visit_Assert(self, node):
        node = self.generic_visit(node)
        if node.msg is None:
            stmts = templates.replace("ag__.assert_stmt(test)", test=node.test)
        else:
            stmts = templates.replace("ag__.assert_stmt(test, lambda: msg)", test=node.test,
                                      msg=node.msg)
        return copy_origin(stmts, node)


def transform(node, ctx):
    return AssertTransformer(ctx).visit(node)
