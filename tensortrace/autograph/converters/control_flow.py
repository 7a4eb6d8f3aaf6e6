"""Turns ``if``, ``while`` and ``for`` into calls of ``ag__.if_stmt``/``while_stmt``/``for_stmt``.

Each block becomes a function (``if_body``, ``loop_body`` ...) that declares the variables it
shares with the rest of the function ``nonlocal``; ``get_state``/``set_state`` read and write
those variables, so the runtime can run the blocks as Python or trace them into graph control
flow. The shared variables are those the statement modifies and that are live: read later, or
read by the block before being written.

    if x > 0:                    def get_state():
        y = x                        return (y,)
    else:                 ->     def set_state(vars_):
        y = -x                       nonlocal y
                                     (y,) = vars_
                                 def if_body():
                                     nonlocal y
                                     y = x
                                 def else_body():
                                     nonlocal y
                                     y = -x
                                 y = ag__.Undefined('y')
                                 ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state,
                                              ('y',), 1)
"""

import ast

from .. import templates
from ..analysis import activity, liveness
from ..transformer import Base, copy_origin, has_walrus, header, is_generator


class ControlFlowTransformer(Base):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.fns = []  # the enclosing user functions
        self.shared = [set()]  # per function: state variables of the enclosing statements

    def visit_FunctionDef(self, node):
        if is_generator(node):
            return node
        self.fns.append(node)
        self.shared.append(set())
        node = self.generic_visit(node)
        self.shared.pop()
        self.fns.pop()
        return node

    def _visit_inside(self, node, names):
        """Convert the statements nested in ``node``, whose state is ``names``."""
        saved = self.shared[-1]
        self.shared[-1] = saved | set(names)
        node = self.generic_visit(node)
        self.shared[-1] = saved
        return node

    def visit_Name(self, node):
        if getattr(node, "ag_maybe_undefined", False):
            return copy_origin(templates.replace_as_expression("ag__.ld(var)", var=node.id), node)
        return node

    # --- shared pieces --------------------------------------------------------------------------
    def _state_vars(self, node, inputs_too):
        """Sorted outputs then input-only variables of ``node``, and the number of outputs."""
        fn = self.fns[-1]
        always = fn.ag_always_live
        live_out = node.ag_live_out | always
        outputs = {v for v in node.ag_modified if v in live_out}
        inputs = {v for v in node.ag_modified if v in node.ag_live_in} - outputs
        if not inputs_too:
            return sorted(outputs | inputs), len(outputs | inputs)
        return sorted(outputs) + sorted(inputs), len(outputs)

    def _declarations(self, names):
        globals_ = [n for n in names if n in self.fns[-1].ag_globals]
        nonlocals = [n for n in names if n not in globals_]
        decls = [ast.Global(globals_)] if globals_ else []
        return decls + ([ast.Nonlocal(nonlocals)] if nonlocals else [])

    def _state_functions(self, names):
        if not names:
            return [], ast.Constant(None), ast.Constant(None)
        getter, setter = self.ctx.namer.new("get_state"), self.ctx.namer.new("set_state")
        stmts = templates.replace(
            "def getter():\n    return names\ndef setter(vars_):\n    decls\n    names = vars_",
            getter=getter, setter=setter, names=tuple(names), decls=self._declarations(names))
        return stmts, ast.Name(getter, ast.Load()), ast.Name(setter, ast.Load())

    def _block_function(self, base, body, names, params=()):
        name = self.ctx.namer.new(base)
        (fn,) = templates.replace("def name():\n    decls\n    body", name=name,
                                  decls=self._declarations(names), body=body)
        fn.args.args = [ast.arg(p) for p in params]
        return fn, name

    def _undefined_assigns(self, node, names):
        fn = self.fns[-1]
        stmts = []
        for name in names:
            if name in fn.ag_globals or name in fn.ag_nonlocals or name in self.shared[-1]:
                continue  # bound already (an enclosing statement's state has a value for it)
            if name not in node.ag_may_define:
                stmts += templates.replace("var = ag__.Undefined(name)", var=name,
                                           name=ast.Constant(name))
            elif name not in node.ag_must_define:
                stmts += templates.replace("var = ag__.ldu(lambda: var, name)", var=name,
                                           name=ast.Constant(name))
        return stmts

    @staticmethod
    def _names_tuple(names):
        return ast.Tuple([ast.Constant(n) for n in names], ast.Load())

    def _finish(self, node, stmts):
        return copy_origin(stmts, header(node))

    # --- statements -----------------------------------------------------------------------------
    def visit_If(self, node):
        names, nouts = self._state_vars(node, inputs_too=True)
        node = self._visit_inside(node, names)
        state, getter, setter = self._state_functions(names)
        body_fn, body_name = self._block_function("if_body", node.body, names)
        stmts = state + [body_fn]
        # TF's form: an else function always (``pass`` when the statement has no else)
        else_fn, else_name = self._block_function("else_body", node.orelse or [ast.Pass()],
                                                  names)
        stmts.append(else_fn)
        orelse = ast.Name(else_name, ast.Load())
        stmts += self._undefined_assigns(node, names)
        stmts += templates.replace(
            "ag__.if_stmt(test, body, orelse, getter, setter, names, nouts)", test=node.test,
            body=body_name, orelse=orelse, getter=getter, setter=setter,
            names=self._names_tuple(names), nouts=ast.Constant(nouts))
        return self._finish(node, stmts)

    def visit_While(self, node):
        names, _ = self._state_vars(node, inputs_too=False)
        node = self._visit_inside(node, names)
        if has_walrus(node.test):  # the test would move into a function, where `:=` is local
            return node
        state, getter, setter = self._state_functions(names)
        body_fn, body_name = self._block_function("loop_body", node.body, names)
        test_name = self.ctx.namer.new("loop_test")
        test_fn = templates.replace("def name():\n    return test", name=test_name,
                                    test=node.test)
        stmts = state + [body_fn] + test_fn + self._undefined_assigns(node, names)
        stmts += templates.replace(
            "ag__.while_stmt(test, body, getter, setter, names, opts)", test=test_name,
            body=body_name, getter=getter, setter=setter, names=self._names_tuple(names),
            opts=self._options(node))
        return self._finish(node, stmts)

    def visit_For(self, node):
        names, _ = self._state_vars(node, inputs_too=False)
        node = self._visit_inside(node, names)
        state, getter, setter = self._state_functions(names)
        body = node.body
        target = node.target
        param = self.ctx.namer.new("itr")  # TF's form: ``def loop_body(itr): x = itr``
        if isinstance(target, ast.Tuple) and not any(
                isinstance(e, ast.Starred) for e in target.elts):
            # ``for x, y in pairs``: a tensor row unpacks along its first dimension
            value = templates.replace_as_expression(
                "ag__.unpack(itr, n)", itr=param, n=ast.Constant(len(target.elts)))
        else:
            value = ast.Name(param, ast.Load())
        body = copy_origin(templates.replace("target = value", target=target, value=value),
                           header(node)) + body
        body_fn, body_name = self._block_function("loop_body", body, names, params=[param])
        stmts = state + [body_fn]
        extra = ast.Constant(None)
        if getattr(node, "ag_extra_test", None) is not None:
            extra_name = self.ctx.namer.new("extra_test")
            stmts += templates.replace("def name():\n    decls\n    return test",
                                       name=extra_name, decls=self._declarations(names),
                                       test=node.ag_extra_test)
            extra = ast.Name(extra_name, ast.Load())
        stmts += self._undefined_assigns(node, names)
        opts = self._options(node)
        opts.keys.append(ast.Constant("iterate_names"))
        opts.values.append(ast.Constant(ast.unparse(target)))
        stmts += templates.replace(
            "ag__.for_stmt(iterated, extra, body, getter, setter, names, opts)",
            iterated=node.iter, extra=extra, body=body_name, getter=getter, setter=setter,
            names=self._names_tuple(names), opts=opts)
        return self._finish(node, stmts)

    def _options(self, node):
        options = getattr(node, "ag_loop_options", {})
        return ast.Dict([ast.Constant(k) for k in options], list(options.values()))


def _annotate_modified(fn_node):
    for node in ast.walk(fn_node):
        if isinstance(node, ast.If):
            node.ag_modified = activity.bound(node.body + node.orelse)
        elif isinstance(node, ast.While):
            node.ag_modified = activity.bound(node.body)
        elif isinstance(node, ast.For):
            node.ag_modified = activity.bound(node.body) | activity.bound(node.target)


def transform(node, ctx):
    _annotate_modified(node)
    liveness.resolve(node)
    return ControlFlowTransformer(ctx).visit(node)
