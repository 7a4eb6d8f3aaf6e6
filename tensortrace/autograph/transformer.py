"""The base of every converter: a NodeTransformer over statement blocks, a namer for the
helper functions it creates, and origin tracking so generated code keeps the user's lines."""

import ast

from .analysis import activity


class Namer:
    """Fresh names (``if_body``, ``if_body_1`` ...) that collide with nothing in the function."""

    def __init__(self, fn_node):
        self.used = {n.id for n in ast.walk(fn_node) if isinstance(n, ast.Name)}
        self.used |= {n.arg for n in ast.walk(fn_node) if isinstance(n, ast.arg)}
        self.used |= {n.name for n in ast.walk(fn_node)
                      if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.original = set(self.used)

    def new(self, base):
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name


class Context:
    """What converters share about the function being converted."""

    def __init__(self, fn_node, filename, namespace):
        self.namer = Namer(fn_node)
        self.filename = filename
        self.namespace = namespace  # the function's globals, for resolving called names


def is_generator(fn_node):
    """True if ``fn_node``'s own body yields or awaits: such functions are left as written."""
    known = getattr(fn_node, "ag_generator", None)
    if known is None:  # cached: every converter asks
        body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
        known = fn_node.ag_generator = any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await))
                                           for n in activity._walk_scope_list(body))
    return known


def has_walrus(node):
    """True if ``node`` binds a name with ``:=`` (in its own scope)."""
    return any(isinstance(n, ast.NamedExpr) for n in activity._walk_scope_list([node]))


class Base(ast.NodeTransformer):
    """Visits statement blocks in order; leaves classes, generators and coroutines untouched."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_block(self, nodes, after_visit=None):
        """Visit ``nodes``; ``after_visit(node) -> (node, block)`` may redirect the statements
        that follow into ``block`` (used to guard them with ``if not flag:``)."""
        out = []
        dest = out
        for node in nodes:
            new = self.visit(node)
            block = None
            if after_visit is not None and new:
                new, block = after_visit(new)
            if isinstance(new, list):
                dest.extend(new)
            elif new is not None:
                dest.append(new)
            if block is not None:
                dest = block
        return out

    def generic_visit(self, node):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self.visit_block(value) or [ast.Pass()])
            elif isinstance(value, list):
                new = []
                for v in value:
                    if not isinstance(v, ast.AST):  # None entries (Dict keys, kw_defaults) stay
                        new.append(v)
                        continue
                    v = self.visit(v)
                    if v is not None:
                        new.extend(v) if isinstance(v, list) else new.append(v)
                setattr(node, field, new)
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_ClassDef(self, node):
        return node

    def visit_AsyncFunctionDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        return self.generic_visit(node)


# --- origins ------------------------------------------------------------------------------------
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def header(node):
    """The position of a compound statement's first line: ``if test`` / ``for t in it``."""
    last = {ast.If: "test", ast.While: "test", ast.For: "iter"}.get(type(node))
    end = getattr(node, last) if last else node
    loc = ast.Pass()
    loc.lineno, loc.col_offset = node.lineno, node.col_offset
    loc.end_lineno, loc.end_col_offset = end.end_lineno, end.end_col_offset
    if (loc.end_lineno, loc.end_col_offset) < (loc.lineno, loc.col_offset):
        loc.end_lineno, loc.end_col_offset = node.end_lineno, node.end_col_offset
    return loc


def copy_origin(nodes, origin):
    """Give every node in ``nodes`` without a position the position of ``origin``."""
    for top in nodes if isinstance(nodes, list) else [nodes]:
        for node in ast.walk(top):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                for attr in _POSITIONS:
                    setattr(node, attr, getattr(origin, attr))
    return nodes
