"""Routes calls through the runtime, in TF's form: ``f(a, *b, k=c)`` becomes
``ag__.converted_call(f, (a,) + tuple(b), dict(k=c), fscope)``, which at run time converts user
functions, gives ``len``/``range``/... their tensor-aware overloads and ``super()`` its caller's
class, and calls library code as it is. As in TF, ``print`` (TF's builtin-functions feature is
off by default), debugger entry points, calls of ``ag__``/``fscope`` and, here, the builtins that
read their caller's frame (``eval``, ``locals``, ...) stay as written."""

import ast

from .. import rules
from ..analysis import activity
from ..transformer import Base, copy_origin, is_generator

#: Calls TF never routes through converted_call (by their dotted name in the source).
_AS_WRITTEN = ("print", "pdb.set_trace", "ipdb.set_trace", "breakpoint")
#: Builtins that read the frame they run in: converted_call would run them in its own.
_FRAME_BUILTINS = ("eval", "exec", "locals", "globals", "vars")


class CallTreeTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.scopes = []  # names local to each enclosing function/lambda/comprehension
        self.function_scopes = [None]  # the enclosing ``fscope`` name (calls pass it, as TF's)

    def _scoped(self, node, names):
        self.scopes.append(names)
        node = self.generic_visit(node)
        self.scopes.pop()
        return node

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        self.function_scopes.append(_function_scope(node) or self.function_scopes[-1])
        node = self._scoped(node, activity.local_names(node))
        self.function_scopes.pop()
        return node

    def visit_Lambda(self, node):
        return self._scoped(node, activity.parameters(node))

    def _visit_comprehension(self, node):
        targets = activity.bound([g.target for g in node.generators])
        return self._scoped(node, targets)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def _is_local(self, name):
        return any(name in scope for scope in self.scopes)

    def visit_Call(self, node):
        node = self.generic_visit(node)
        func = node.func
        chain = rules.attribute_chain(func)
        name = None if chain is None else ".".join(chain)
        if name is not None:
            base = name.partition(".")[0]
            if base == "ag__" or base in self.function_scopes or name in _AS_WRITTEN:
                return node
            if (name in _FRAME_BUILTINS and not self._is_local(name) and rules.builtin_name(
                    rules.resolve_static(func, self.ctx.namespace)) == name):
                return node
        kwargs = (ast.Call(ast.Name("dict", ast.Load()), [], node.keywords) if node.keywords
                  else ast.Constant(None))
        scope = self.function_scopes[-1]
        call = ast.Call(
            ast.Attribute(ast.Name("ag__", ast.Load()), "converted_call", ast.Load()),
            [func, _args_tuple(node.args), kwargs,
             ast.Name(scope, ast.Load()) if scope else ast.Constant(None)], [])
        return copy_origin(call, node)


def _args_tuple(args):
    """The positional arguments as one tuple expression, TF's way: runs of plain arguments as
    tuples, each ``*x`` as ``tuple(x)``, joined with ``+``."""
    parts, run = [], []
    for arg in args:
        if isinstance(arg, ast.Starred):
            if run:
                parts.append(ast.Tuple(run, ast.Load()))
                run = []
            parts.append(ast.Call(ast.Name("tuple", ast.Load()), [arg.value], []))
        else:
            run.append(arg)
    if run or not parts:
        parts.append(ast.Tuple(run, ast.Load()))
    result = parts[0]
    for part in parts[1:]:
        result = ast.BinOp(result, ast.Add(), part)
    return result


def _function_scope(node):
    """The name a converted function's ``with ag__.FunctionScope(...) as fscope`` binds."""
    first = node.body[0] if node.body else None
    if isinstance(first, ast.With) and len(first.items) == 1:
        item = first.items[0]
        call = item.context_expr
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "FunctionScope" and isinstance(item.optional_vars, ast.Name)):
            return item.optional_vars.id
    return None


def transform(node, ctx):
    return CallTreeTransformer(ctx).visit(node)
