"""Lowers ``break`` into a flag: ``break_ = True`` plus guards on the code that follows, and an
extra loop condition ``not break_``. A loop's ``else`` runs only when the flag is unset."""


from .. import templates
from ..transformer import Base, copy_origin


class BreakTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None  # [name] of the innermost loop's break flag
        self.used = False

    def visit_Break(self, node):
        self.used = True
        if self.flag[0] is None:  # named on first use, so loops without break take no name
            self.flag[0] = self.ctx.namer.new("break_")
        stmts = templates.replace("flag = True\ncontinue", flag=self.flag[0])
        return copy_origin(stmts, node)

    def visit_FunctionDef(self, node):
        saved = self.flag, self.used
        self.flag, self.used = None, False
        node = super().visit_FunctionDef(node)
        self.flag, self.used = saved
        return node

    def _body(self, stmts, flag):
        saved = self.flag, self.used
        self.flag, self.used = flag, False
        stmts = self.visit_block(stmts)
        used = self.used
        self.flag, self.used = saved
        return stmts, used

    def _loop(self, node, is_for):
        holder = [None]
        if is_for:
            node.target = self.visit(node.target)
            node.iter = self.visit(node.iter)
        else:
            node.test = self.visit(node.test)
        node.body, used = self._body(node.body, holder)
        orelse = self.visit_block(node.orelse)
        node.orelse = []
        if not used:
            return [node] + orelse  # no break: the else clause always runs after the loop
        flag = holder[0]
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
