"""Finds a function's source as an AST node whose line and column numbers are the user's own.

    >>> node, filename = parse_function(f)   # ast.FunctionDef (or ast.Lambda), "/path/user.py"
"""

import ast
import copy
import functools
import inspect
import linecache
import textwrap


class SourceUnavailable(Exception):
    """The function's source cannot be found or parsed: it will run unconverted."""


def parse_function(fn):
    """The ``FunctionDef`` (or ``Lambda``) of ``fn``, positioned as in its file.

    Returns:
        ``(node, filename)``; ``node`` is a fresh copy the caller may mutate.

    Raises:
        SourceUnavailable: no source, an ambiguous lambda, or a generator/coroutine.
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailable(f"{fn!r} has no Python code")
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise SourceUnavailable("generators and coroutines are not converted")
    filename = code.co_filename
    index = _index_file(filename)
    if index is None:
        raise SourceUnavailable(f"no source for {fn.__qualname__} in {filename}")
    candidates = index.get((code.co_name, code.co_firstlineno), ())
    matches = [n for n in candidates if _same_parameters(n, code)]
    if len(matches) != 1:
        why = "ambiguous" if matches else "not found"
        raise SourceUnavailable(f"source of {fn.__qualname__} is {why} in {filename}")
    return copy.deepcopy(matches[0]), filename  # the parsed file is cached and shared


@functools.lru_cache(maxsize=256)
def _index_lines(filename, text):
    """``{(name, first line): [definitions]}`` of a file's functions and lambdas."""
    try:
        module = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None
    index = {}
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # code objects start at the first decorator (the def line before Python 3.8)
            for line in {node.lineno} | {d.lineno for d in node.decorator_list}:
                index.setdefault((node.name, line), []).append(node)
        elif isinstance(node, ast.Lambda):
            index.setdefault(("<lambda>", node.lineno), []).append(node)
    return index


def _index_file(filename):
    lines = linecache.getlines(filename)
    if not lines:
        return None
    return _index_lines(filename, "".join(lines))


def _same_parameters(node, code):
    """True if ``node`` declares the parameters ``code`` has (tells same-line lambdas apart)."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return tuple(names) == code.co_varnames[:len(names)]


_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def parse_template(text):
    """Statements of a code template (dedented), without positions: they take the user's."""
    body = ast.parse(textwrap.dedent(text)).body
    for stmt in body:
        for node in ast.walk(stmt):
            for attr in _POSITIONS:
                if hasattr(node, attr):
                    delattr(node, attr)
    return body
