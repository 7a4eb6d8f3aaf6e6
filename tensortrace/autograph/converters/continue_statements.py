"""Lowers ``continue`` into a flag: ``continue_ = True`` and ``if not continue_:`` guards on
the rest of the loop body."""

from .. import templates
from ..transformer import Base, copy_origin


class _Block:
    def __init__(self, is_loop):
        self.is_loop = is_loop
        self.guard_now = False
        self.guard_next = False


class ContinueTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = []
        self.flag = None
        self.used = False

    def visit_Continue(self, node):
        self.used = True
        for block in reversed(self.blocks):
            block.guard_next = True
            if block.is_loop:
                break
        if self.flag[0] is None:
            self.flag[0] = self.ctx.namer.new("continue_")
        return copy_origin(templates.replace("flag = True", flag=self.flag[0]), node)

    def _after(self, node):
        if not self.used:
            return node, None
        block = self.blocks[-1]
        wrap = block.guard_now
        block.guard_now, block.guard_next = block.guard_next, False
        if not wrap:
            return node, None
        (guard,) = templates.replace("if not flag:\n    stmt", flag=self.flag[0],
                                     stmt=node if isinstance(node, list) else [node])
        first = node[0] if isinstance(node, list) else node
        copy_origin(guard, first)
        return guard, guard.body

    def _block(self, stmts, is_loop):
        self.blocks.append(_Block(is_loop))
        stmts = self.visit_block(stmts, after_visit=self._after)
        self.blocks.pop()
        return stmts

    def _loop_body(self, node):
        saved = self.flag, self.used
        self.flag, self.used = [None], False
        body = self._block(node.body, is_loop=True)
        if self.used:
            body = copy_origin(templates.replace("flag = False", flag=self.flag[0]), node) + body
        self.flag, self.used = saved
        return body

    def visit_FunctionDef(self, node):
        saved = self.flag, self.used, self.blocks
        self.flag, self.used, self.blocks = None, False, []
        node = super().visit_FunctionDef(node)
        self.flag, self.used, self.blocks = saved
        return node

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self._loop_body(node)
        node.orelse = self._block(node.orelse, False)
        return node

    def visit_For(self, node):
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.body = self._loop_body(node)
        node.orelse = self._block(node.orelse, False)
        return node

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body = self._block(node.body, False)
        node.orelse = self._block(node.orelse, False)
        return node

    def visit_With(self, node):
        node.items = [self.visit(i) for i in node.items]
        node.body = self._block(node.body, False)
        return node

    def visit_Try(self, node):
        node.body = self._block(node.body, False)
        node.orelse = self._block(node.orelse, False)
        node.finalbody = self._block(node.finalbody, False)
        for h in node.handlers:
            h.body = self._block(h.body, False)
        return node


def transform(node, ctx):
    return ContinueTransformer(ctx).visit(node)
