"""Converts one Python function: parse its source, run the converters in order, compile the
result under the user's file name and line numbers, and rebuild the function with the original
globals, closure cells and defaults. Results are cached per code object.

    new_fn = convert_function(fn, runtime)   # raises ConversionError when it cannot
    source_of(fn)                      # the generated code, as text (tf.autograph.to_code)
"""

import ast
import types

from . import transformer
from .converters import (asserts, break_statements, call_trees, conditional_expressions,
                         continue_statements, control_flow, directives, functions, lists,
                         logical_expressions, return_statements, variables)
from .operators import function_wrappers
from .parser import SourceUnavailable, parse_function

#: The converters, in the order they run (each relies on the ones before it).
PIPELINE = (functions, directives, break_statements, asserts, continue_statements,
            return_statements, lists, call_trees, control_flow, conditional_expressions,
            logical_expressions, variables)

#: Every code object produced by conversion -> the user function name it belongs to.
CONVERTED_CODES = {}

_CACHE = {}  # original code object -> _Converted, or the ConversionError it raised


class ConversionError(Exception):
    """The function cannot be converted (no source, unsupported construct, ...)."""


class _Converted:
    """The compiled result for one code object."""

    def __init__(self, code, source):
        self.code = code
        self.source = source


def convert_function(fn, runtime):
    """A converted copy of the plain Python function ``fn``, whose ``ag__`` is ``runtime`` (the
    operators converted code calls).

    Raises:
        ConversionError: if ``fn`` cannot be converted.
    """
    converted = _cached(fn)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells["ag__"] = types.CellType(runtime)
    try:
        closure = tuple(cells[name] for name in converted.code.co_freevars)
    except KeyError as e:
        raise ConversionError(f"unexpected free variable {e}") from None
    new = types.FunctionType(converted.code, fn.__globals__, fn.__name__, fn.__defaults__,
                             closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__annotations__ = fn.__annotations__
    new.__dict__.update(fn.__dict__)
    return new


def source_of(fn):
    """The generated source of ``fn`` (as ``tf.autograph.to_code`` shows it)."""
    return _cached(fn).source


def _cached(fn):
    code = fn.__code__
    hit = _CACHE.get(code)
    if hit is None:
        try:
            hit = _convert(fn)
        except ConversionError as e:
            hit = e
        _CACHE[code] = hit
    if isinstance(hit, ConversionError):
        raise hit
    return hit


def _convert(fn):
    try:
        node, filename = parse_function(fn)
    except SourceUnavailable as e:
        raise ConversionError(str(e)) from None
    ctx = transformer.Context(node, filename, fn.__globals__)
    try:
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []
            node.returns = None
        variables.mark(node)
        for converter in PIPELINE:
            node = converter.transform(node, ctx)
        generated = set(ctx.namer.used) - ctx.namer.original
        code, shown = _compile(node, fn, filename)
    except (SyntaxError, ValueError, TypeError, AttributeError, KeyError) as e:
        raise ConversionError(f"{type(e).__name__}: {e}") from e
    _register_codes(code, fn.__name__, code.co_name, generated)
    _register_indefinite(code, fn.__name__, getattr(ctx, "indefinite_returns", ()))
    return _Converted(code, shown)


def _register_indefinite(code, user_name, names):
    """Mark the code of functions that may end without a ``return`` after one inside control
    flow: their ``fscope.ret`` checks that a graph loop did not leave that undecided."""
    if not names:
        return
    name = user_name if code.co_name.startswith("tf__") else code.co_name
    if name in names:
        function_wrappers.INDEFINITE_RETURNS.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register_indefinite(const, user_name, names)


def _compile(node, fn, filename):
    """Compile ``node`` inside a factory whose locals stand for ``fn``'s closure cells; return
    the code object of the converted function and its source text."""
    name = "tf__" + (fn.__name__ if isinstance(node, ast.FunctionDef) else "lam")
    if isinstance(node, ast.FunctionDef):
        node.name = name
        definition = node
    else:
        definition = ast.Assign([ast.Name(name, ast.Store())], node)
        transformer.copy_origin(definition, node)
    cells = [n for n in fn.__code__.co_freevars] + ["ag__"]
    factory = ast.FunctionDef(
        "__ag_factory", ast.arguments([], [], None, [], [], None, []),
        [ast.Assign([ast.Name(c, ast.Store()) for c in cells], ast.Constant(None)), definition,
         ast.Return(ast.Name(name, ast.Load()))], [], None)
    transformer.copy_origin(factory, definition)
    owner = _owner_class(fn)
    if owner is not None:  # inside a class body, `self.__x` is mangled as in the original
        factory = transformer.copy_origin(ast.ClassDef(owner, [], [], [factory], []), definition)
    module = ast.Module([factory], [])
    ast.fix_missing_locations(module)
    compiled = compile(module, filename, "exec", dont_inherit=True)
    if owner is not None:
        compiled = _child(compiled, owner)
    factory_code = _child(compiled, "__ag_factory")
    code = _child(factory_code, name if isinstance(node, ast.FunctionDef) else "<lambda>")
    return code, ast.unparse(definition)


def _owner_class(fn):
    """The name of the class ``fn`` was defined in (from its qualified name), or None."""
    parts = fn.__qualname__.split(".")
    if len(parts) > 1 and parts[-2] != "<locals>":
        return parts[-2]
    return None


def _child(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise ConversionError(f"compiled code has no {name}")


def _register_codes(code, user_name, top_name, generated):
    """Map each code object of a conversion to the user function its frames belong to."""
    CONVERTED_CODES[code] = user_name
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            own = const.co_name  # helpers, lambdas and comprehensions belong to their parent
            inherit = own in generated or own.startswith("<")
            _register_codes(const, user_name if inherit else own, top_name, generated)
