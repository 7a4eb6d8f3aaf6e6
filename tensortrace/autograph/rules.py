"""Which callables AutoGraph converts: user code, but never library code (tensortrace, NumPy,
the standard library, builtins), classes, or functions marked ``do_not_convert``."""

import ast
import builtins
import functools
import inspect
import os
import sysconfig
import types

#: Top-level packages whose functions always run as written.
LIBRARY_PACKAGES = frozenset({
    "tensortrace", "numpy", "scipy", "pandas", "pytest", "_pytest", "pluggy", "ml_dtypes",
    "IPython", "ipykernel", "absl", "tensorflow", "keras", "jax", "torch",
})

_STDLIB_DIRS = tuple(os.path.realpath(p) for p in {sysconfig.get_paths()["stdlib"],
                                                   sysconfig.get_paths()["platstdlib"]})
_SITE_MARKERS = ("site-packages", "dist-packages")

DO_NOT_CONVERT = "__ag_do_not_convert__"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _module_root(obj):
    module = getattr(obj, "__module__", None) or ""
    return module.partition(".")[0]


@functools.lru_cache(maxsize=1024)
def _is_stdlib_file(filename):
    path = os.path.realpath(filename)
    return path.startswith(_STDLIB_DIRS) and not any(m in path for m in _SITE_MARKERS)


def is_library_function(fn):
    """True for a plain Python function that belongs to a library, not to the user."""
    if _module_root(fn) in LIBRARY_PACKAGES:
        return True
    code = getattr(fn, "__code__", None)
    return code is not None and (code.co_filename.startswith(_PACKAGE_DIR)
                                 or _is_stdlib_file(code.co_filename))


def never_convert(obj):
    """True if calls of ``obj`` must run as written (no conversion attempted)."""
    if getattr(obj, DO_NOT_CONVERT, False):
        return True
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, type,
                        types.ModuleType, types.MethodWrapperType, types.WrapperDescriptorType,
                        types.MethodDescriptorType, types.ClassMethodDescriptorType)):
        return True
    if isinstance(obj, types.MethodType):
        return never_convert(obj.__func__)
    if isinstance(obj, functools.partial):
        return never_convert(obj.func)
    if isinstance(obj, types.FunctionType):
        return is_library_function(obj)
    if _module_root(type(obj)) in LIBRARY_PACKAGES:  # ufuncs, tf.function objects, ...
        return True
    call = inspect.getattr_static(type(obj), "__call__", None)
    return not isinstance(call, types.FunctionType) or never_convert(call)


def builtin_name(obj):
    """The name of ``obj`` if it is a Python builtin function, else None."""
    name = getattr(obj, "__name__", None)
    return name if name and getattr(builtins, name, None) is obj else None


def attribute_chain(node):
    """``["a", "b", "c"]`` for the expression ``a.b.c`` (attributes on a name), else None."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id] + chain[::-1]


def resolve_static(node, namespace):
    """The object a call's function expression names, found at conversion time, or None.

    Only module-level names (and builtins) and attributes of modules and classes are resolved:
    they name the same object every time the code runs.
    """
    chain = attribute_chain(node)
    if chain is None:
        return None
    _missing = object()
    obj = namespace.get(chain[0], _missing)
    if obj is _missing:
        obj = getattr(builtins, chain[0], _missing)
    if obj is _missing:
        return None
    for attr in chain[1:]:
        if not isinstance(obj, (types.ModuleType, type)):
            return None
        try:
            obj = inspect.getattr_static(obj, attr)
        except AttributeError:
            obj = _lazy_attribute(obj, attr)
            if obj is None:
                return None
        if isinstance(obj, (staticmethod, classmethod)):  # bound on access: resolve at run time
            return None
    return obj


def _lazy_attribute(module, attr):
    """A module attribute loaded on first use (PEP 562 ``__getattr__``: ``tf.tanh`` before the
    math ops are loaded), which names the same object every time too; None otherwise."""
    if not isinstance(module, types.ModuleType) or attr.startswith("_"):
        return None
    try:
        return getattr(module, attr)
    except Exception:  # noqa: BLE001 - left to run time, where it raises where it is used
        return None
