"""Lowers ``break`` into a flag: ``break_ = True`` plus guards on the code that follows, and an
extra loop condition ``not break_``. A loop's ``else`` runs only when the flag is unset."""


from .. import templates
from ..transformer import Base, copy_origin
from .guards import Flag


class BreakTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None  # the innermost loop's Flag

    def visit_Break(self, node):
        stmts = templates.replace("flag = True\ncontinue", flag=self.flag.use())
        return copy_origin(stmts, node)

    def visit_FunctionDef(self, node):
        saved, self.flag = self.flag, None
        node = super().visit_FunctionDef(node)
        self.flag = saved
        return node

    def _loop(self, node, is_for):
        if is_for:
            node.target = self.visit(node.target)
            node.iter = self.visit(node.iter)
        else:
            node.test = self.visit(node.test)
        saved = self.flag
        self.flag = loop_flag = Flag(self.ctx.namer, "break_")
        node.body = self.visit_block(node.body)
        self.flag = saved
        orelse = self.visit_block(node.orelse)
        node.orelse = []
        if loop_flag.name is None:
            return [node] + orelse  # no break: the else clause always runs after the loop
        flag = loop_flag.name
        if is_for:
            extra = templates.replace_as_expression("not flag", flag=flag)
            node.ag_extra_test = copy_origin(extra, node)
        else:
            test = templates.replace_as_expression("not flag and test", flag=flag,
                                                   test=node.test)
            node.test = copy_origin(test, node.test)
        init = templates.replace("flag = False", flag=flag)
        if orelse:
            orelse = templates.replace("if not flag:\n    orelse", flag=flag, orelse=orelse)
        return copy_origin(init + [node] + orelse, node)

    def visit_While(self, node):
        return self._loop(node, is_for=False)

    def visit_For(self, node):
        return self._loop(node, is_for=True)


def transform(node, ctx):
    return BreakTransformer(ctx).visit(node)
