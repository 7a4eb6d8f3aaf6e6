"""Which names a piece of code binds and reads, within one function scope.

Nested functions, lambdas, classes and comprehensions are scopes of their own: they bind only
their own name (if any) in the enclosing scope, and read their free names from it.

    >>> bound(ast.parse("a = b; c += 1").body), read(ast.parse("a = b; c += 1").body)
    ({'a', 'c'}, {'b', 'c'})
"""

import ast

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
          ast.SetComp, ast.DictComp, ast.GeneratorExp)


def bound(nodes):
    """Names bound by ``nodes`` (a node or a list) in the current scope."""
    names = set()
    for node in _as_list(nodes):
        _bound(node, names)
    return names


def read(nodes):
    """Names read by ``nodes`` in the current scope, including free names of nested scopes."""
    names = set()
    for node in _as_list(nodes):
        _read(node, names)
    return names


def target_reads(target):
    """Names a store target reads (``a[i] = ...`` reads ``a`` and ``i``)."""
    names = set()
    for node in ast.walk(target):
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            _read(node.value, names)
            if isinstance(node, ast.Subscript):
                _read(node.slice, names)
    return names


def declared(fn_node, kind):
    """Names declared ``global`` or ``nonlocal`` (``kind``) directly in ``fn_node``'s scope."""
    names = set()
    for node in _walk_scope(fn_node):
        if isinstance(node, kind):
            names.update(node.names)
    return names


def parameters(fn_node):
    args = fn_node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return set(names)


def local_names(fn_node):
    """The function's local variables: its parameters and the names its body binds."""
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    names = parameters(fn_node) | bound(body)
    return names - declared(fn_node, ast.Global) - declared(fn_node, ast.Nonlocal)


def free_names(fn_node):
    """Names ``fn_node`` (a function, lambda or class) reads from enclosing scopes."""
    if isinstance(fn_node, ast.ClassDef):
        return read(fn_node.body) - bound(fn_node.body)
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    return (read(body) - local_names(fn_node)) | declared(fn_node, ast.Nonlocal)


def captured(fn_node):
    """Locals of ``fn_node`` that nested scopes read (they must stay bound for closures)."""
    local = local_names(fn_node)
    names = set()
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    for node in _walk_scope_list(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            names |= free_names(node) & local
    return names


def _as_list(nodes):
    return nodes if isinstance(nodes, list) else [nodes]


def _walk_scope(fn_node):
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    return _walk_scope_list(body)


def _walk_scope_list(nodes):
    """All nodes of ``nodes`` not inside nested scopes (nested scope nodes themselves included)."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _store_names(target, names):
    for node in ast.walk(target):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)


def _bound(node, names):
    for sub in _walk_scope_list([node]):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            for alias in sub.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(sub, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and sub.name:
            names.add(sub.name)
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            names.add(sub.rest)
        elif isinstance(sub, ast.NamedExpr):
            names.add(sub.target.id)
        if isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for named in ast.walk(sub):  # walrus in a comprehension binds in the enclosing scope
                if isinstance(named, ast.NamedExpr):
                    names.add(named.target.id)


def _read(node, names):
    for sub in _walk_scope_list([node]):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            names.add(sub.target.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            _read_function_header(sub, names)
            names |= free_names(sub)
        elif isinstance(sub, ast.ClassDef):
            for part in sub.bases + sub.keywords + sub.decorator_list:
                _read(part, names)
            names |= free_names(sub)
        elif isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            _read_comprehension(sub, names)


def _read_function_header(fn, names):
    """Decorators and defaults are evaluated in the enclosing scope."""
    args = fn.args
    parts = list(args.defaults) + [d for d in args.kw_defaults if d is not None]
    parts += getattr(fn, "decorator_list", [])
    for part in parts:
        _read(part, names)


def _read_comprehension(node, names):
    inner = set()
    targets = set()
    for i, gen in enumerate(node.generators):
        (_read(gen.iter, names) if i == 0 else _read(gen.iter, inner))
        _store_names(gen.target, targets)
        for cond in gen.ifs:
            _read(cond, inner)
    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for part in parts:
        _read(part, inner)
    names |= inner - targets
