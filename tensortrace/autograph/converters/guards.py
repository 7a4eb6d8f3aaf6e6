"""What the jump converters share. A jump (``break``, ``continue``, ``return``) becomes a flag
set to True; for ``continue`` and ``return``, the statements after it, in its block and every
enclosing block up to the one it leaves, run only ``if not flag``."""

from .. import templates
from ..transformer import Base, copy_origin


class Flag:
    """A loop's or function's jump flag, named (``continue_``, ``break_1``...) on first use, so
    that code without the jump takes no name."""

    def __init__(self, namer, base):
        self.namer, self.base, self.name = namer, base, None

    def use(self):
        if self.name is None:
            self.name = self.namer.new(self.base)
        return self.name


class _Block:
    """A statement block being visited."""

    def __init__(self, is_target):
        self.is_target = is_target  # the block a jump leaves (a loop body, a function body)
        self.jumped = False  # a jump happened in this block or one nested in it
        self.guard_now = self.guard_next = False  # guard the statements after this one


class GuardingTransformer(Base):
    """Visits blocks so that the statements after a jump are guarded by the jump's flag.

    Subclasses call ``_jumped()`` where they lower a jump, name the flag (``_flag_name``) and
    visit loop bodies (``_loop_body``).
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = []

    def _flag_name(self):
        raise NotImplementedError

    def _loop_body(self, node):
        raise NotImplementedError

    def _jumped(self):
        """A jump here: guard what follows it, up to the block it leaves."""
        for block in reversed(self.blocks):
            block.jumped = True
            block.guard_next = True
            if block.is_target:
                break

    def _after(self, node):
        block = self.blocks[-1]
        wrap = block.guard_now
        block.guard_now, block.guard_next = block.guard_next, False
        if not wrap:
            return node, None
        (guard,) = templates.replace("if not flag:\n    stmt", flag=self._flag_name(),
                                     stmt=node if isinstance(node, list) else [node])
        copy_origin(guard, node[0] if isinstance(node, list) else node)
        return guard, guard.body

    def _block(self, stmts, is_target=False):
        self.blocks.append(_Block(is_target))
        stmts = self.visit_block(stmts, after_visit=self._after)
        self.blocks.pop()
        return stmts

    def visit_While(self, node):
        node.test = self.visit(node.test)
        return self._loop(node)

    def visit_For(self, node):
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        return self._loop(node)

    def _loop(self, node):
        node.body = self._loop_body(node)
        return self._blocks(node, "orelse")

    def visit_If(self, node):
        node.test = self.visit(node.test)
        return self._blocks(node, "body", "orelse")

    def visit_With(self, node):
        node.items = [self.visit(i) for i in node.items]
        return self._blocks(node, "body")

    def visit_Try(self, node):
        self._blocks(node, "body", "orelse", "finalbody")
        for h in node.handlers:
            h.body = self._block(h.body)
        return node

    def _blocks(self, node, *fields):
        """Visit the statement blocks ``fields`` of ``node``, in order."""
        for field in fields:
            setattr(node, field, self._block(getattr(node, field)))
        return node
