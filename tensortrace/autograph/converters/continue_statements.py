"""Lowers ``continue`` into a flag: ``continue_ = True`` and ``if not continue_:`` guards on
the rest of the loop body."""

from .. import templates
from ..transformer import copy_origin
from .guards import Flag, GuardingTransformer


class ContinueTransformer(GuardingTransformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None  # the innermost loop's Flag

    def visit_Continue(self, node):
        self._jumped()
        return copy_origin(templates.replace("flag = True", flag=self.flag.use()), node)

    def _flag_name(self):
        return self.flag.name

    def _loop_body(self, node):
        saved, flag = self.flag, Flag(self.ctx.namer, "continue_")
        self.flag = flag
        body = self._block(node.body, is_target=True)
        self.flag = saved
        if flag.name is None:
            return body
        return copy_origin(templates.replace("flag = False", flag=flag.name), node) + body

    def visit_FunctionDef(self, node):
        saved = self.flag, self.blocks
        self.flag, self.blocks = None, []
        node = super().visit_FunctionDef(node)
        self.flag, self.blocks = saved
        return node


def transform(node, ctx):
    return ContinueTransformer(ctx).visit(node)
