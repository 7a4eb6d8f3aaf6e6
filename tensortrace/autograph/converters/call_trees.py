"""Routes calls through the runtime: ``f(a, k=b)`` becomes ``ag__.converted_call(f, (a,),
{'k': b}, fscope)`` so user functions are converted when called, and ``len``/``range``/...
become their tensor-aware overloads. Calls of names that resolve, at conversion time, to
library code (``tf.reduce_sum``, ``np.sum``, ``print``) stay as written."""

import ast

from .. import rules, templates
from ..analysis import activity
from ..transformer import Base, copy_origin, is_generator

#: Builtins with a tensor-aware overload in the runtime (``len`` -> ``ag__.len_``).
OVERLOADS = ("len", "range", "abs", "int", "float")
_LEAVE = ("super", "eval", "exec", "locals", "globals", "vars", "print", "isinstance")


class CallTreeTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.scopes = []  # names local to each enclosing function/lambda/comprehension
        self.first_params = []
        self.function_scopes = [None]  # the enclosing ``fscope`` name (calls pass it, as TF's)

    def _scoped(self, node, names):
        self.scopes.append(names)
        node = self.generic_visit(node)
        self.scopes.pop()
        return node

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        args = node.args.posonlyargs + node.args.args
        self.first_params.append(args[0].arg if args else None)
        self.function_scopes.append(_function_scope(node) or self.function_scopes[-1])
        node = self._scoped(node, activity.local_names(node))
        self.function_scopes.pop()
        self.first_params.pop()
        return node

    def visit_Lambda(self, node):
        return self._scoped(node, activity.parameters(node))

    def _visit_comprehension(self, node):
        targets = activity.bound([g.target for g in node.generators])
        return self._scoped(node, targets)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def _is_local(self, name):
        return any(name in scope for scope in self.scopes)

    def _resolve(self, func):
        base = func
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name) or self._is_local(base.id) or base.id == "ag__":
            return None, base
        return rules.resolve_static(func, self.ctx.namespace), base

    def visit_Call(self, node):
        node = self.generic_visit(node)
        func = node.func
        obj, base = self._resolve(func)
        if isinstance(base, ast.Name) and (base.id == "ag__" or base.id in self.function_scopes):
            return node
        if obj is not None:
            name = rules.builtin_name(obj)
            if name == "super" and not node.args and self.first_params[0] is not None:
                node.args = [ast.Name("__class__", ast.Load()),
                             ast.Name(self.first_params[0], ast.Load())]
                return copy_origin(node, node.func)
            if name in OVERLOADS:
                node.func = copy_origin(ast.parse(f"ag__.{name}_", mode="eval").body, func)
                return node
            if name in _LEAVE or rules.never_convert(obj):
                return node
        elif isinstance(func, ast.Name) and func.id in _LEAVE and not self._is_local(func.id):
            return node
        args = ast.Tuple(node.args, ast.Load())
        if node.keywords:
            kwargs = ast.Dict([k.arg and ast.Constant(k.arg) for k in node.keywords],
                              [k.value for k in node.keywords])
        else:
            kwargs = ast.Constant(None)
        scope = self.function_scopes[-1]
        call = templates.replace_as_expression(
            "ag__.converted_call(func, args, kwargs, fscope)", func=func, args=args,
            kwargs=kwargs, fscope=scope if scope else ast.Constant(None))
        return copy_origin(call, node)


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
