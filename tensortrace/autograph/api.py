"""AutoGraph's public API (``tf.autograph``) and the entry points the runtime and tracing use:
``convert`` (the tracing hook), ``converted_call`` (every call in converted code)."""

import builtins
import enum
import functools
import inspect
import logging
import sys
import types
import weakref

from .._export import tf_export
from ..executor import compiled
from .._logging import logger
from . import conversion, errors, operators, rules

_CONVERTED = weakref.WeakKeyDictionary()  # original function -> converted function
_AS_IS = object()  # a function that cannot be converted
# Code of library functions (tf.reduce_sum, ...): every call in converted code goes through
# converted_call, and this spares those calls the library checks after the first.
_LIBRARY_CODES = set()


# --- conversion of callables --------------------------------------------------------------------
def _convert_plain(fn):
    """``fn`` (a plain function) converted, or ``fn`` itself when it must or cannot be."""
    code = fn.__code__
    if code in _LIBRARY_CODES or code in conversion.CONVERTED_CODES:
        return fn
    if rules.never_convert(fn):
        if rules.is_library_function(fn):
            _LIBRARY_CODES.add(code)
        return fn
    hit = _CONVERTED.get(fn)
    if hit is not None:
        return fn if hit is _AS_IS else hit
    try:
        new = conversion.convert_function(fn, RUNTIME)
    except conversion.ConversionError as e:
        quiet = ("no source", "not found", "generators")  # TF leaves these alone silently
        log = logger.info if any(q in str(e) for q in quiet) else logger.warning
        log("AutoGraph could not transform %s and will run it as-is.\nCause: %s\nTo silence "
            "this warning, decorate the function with "
            "@tf.autograph.experimental.do_not_convert", fn, e)
        _CONVERTED[fn] = _AS_IS  # not fn itself: the value would keep the weak key alive
        return fn
    _CONVERTED[fn] = new
    return new


def convert_callable(f):
    """The callable to run in place of ``f``: converted if it is user code, else ``f``."""
    if isinstance(f, types.FunctionType):
        return _convert_plain(f)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        new = _convert_plain(f.__func__)
        return f if new is f.__func__ else types.MethodType(new, f.__self__)
    if isinstance(f, functools.partial):
        new = convert_callable(f.func)
        return f if new is f.func else functools.partial(new, *f.args, **f.keywords)
    if rules.never_convert(f):
        return f
    call = inspect.getattr_static(type(f), "__call__", None)
    if isinstance(call, types.FunctionType):  # a callable object defined by the user
        new = _convert_plain(call)
        return f if new is call else types.MethodType(new, f)
    return f


#: Builtins whose calls in converted code run their tensor-aware overloads (by id: builtins
#: live as long as the interpreter, and any callable, hashable or not, can be looked up).
_OVERLOADS = {id(builtins.len): operators.len_, id(builtins.range): operators.range_,
              id(builtins.abs): operators.abs_, id(builtins.int): operators.int_,
              id(builtins.float): operators.float_}


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """``f(*args, **kwargs)`` with ``f`` converted when it is user code (``ag__.converted_call``;
    the caller's FunctionScope is TF's argument, conversion here is always recursive).
    """
    target = _OVERLOADS.get(id(f))
    if target is None:
        if f is super and not args:
            return _zero_argument_super(sys._getframe(1))
        target = convert_callable(f)
    if kwargs:
        return target(*args, **kwargs)
    return target(*args)


def _zero_argument_super(frame):
    """``super()`` as the converted method calling it means it: its class cell and first
    argument, found in the method's frame (the call may sit in a generated loop or branch
    function nested in it)."""
    while frame is not None and not frame.f_code.co_name.startswith("tf__"):
        frame = frame.f_back
    code = frame.f_code if frame is not None else None
    if code is None or "__class__" not in code.co_freevars:
        raise RuntimeError("super(): __class__ cell not found")
    if not code.co_argcount:
        raise RuntimeError("super(): no arguments")
    frame_locals = frame.f_locals
    return super(frame_locals["__class__"], frame_locals[code.co_varnames[0]])


#: What converted code calls ``ag__``: the operators, and ``converted_call`` for its calls.
RUNTIME = types.SimpleNamespace(converted_call=converted_call,
                                **{name: getattr(operators, name) for name in operators.__all__})


def _frame_name(code):
    """A frame's function name as TF prints an op's definition stack: converted code (and the
    helpers conversion makes) under the user's function name."""
    return conversion.CONVERTED_CODES.get(code, code.co_name)


compiled.frame_name = _frame_name


def convert(fn):
    """The tracing hook: what to run for ``fn``. Converted code is wrapped so that errors name
    the user's source lines."""
    target = convert_callable(fn)
    if target is fn:
        return fn
    return _user_errors(target, fn)


def _user_errors(target, original):
    @functools.wraps(original)
    def ag_converted(*args, **kwargs):
        try:
            return target(*args, **kwargs)
        except Exception as e:
            errors.annotate(e)
            raise

    setattr(ag_converted, rules.DO_NOT_CONVERT, True)  # already converted: call as is
    ag_converted.ag_converted_target = target
    return ag_converted


# --- tf.autograph -------------------------------------------------------------------------------
@tf_export("autograph.to_graph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` converted to graph-building code: a function that runs Python control flow
    on Python values and builds graph control flow for tensors.

    Raises:
        ValueError: if ``entity`` cannot be converted.
    """
    target = _convert_strict(entity)
    return _user_errors(target, entity)


@tf_export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source AutoGraph generates for ``entity`` (a function or method).

    Raises:
        ValueError: if ``entity`` cannot be converted.
    """
    fn = _function_of(entity)
    try:
        return conversion.source_of(fn) + "\n"
    except conversion.ConversionError as e:
        raise ValueError(f"AutoGraph could not convert {entity}: {e}") from None


def _function_of(entity):
    python_function = getattr(entity, "python_function", None)  # a tf.function
    if python_function is not None:
        entity = python_function
    if isinstance(entity, types.MethodType):
        entity = entity.__func__
    if isinstance(entity, functools.partial):
        entity = entity.func
    if not isinstance(entity, types.FunctionType):
        call = inspect.getattr_static(type(entity), "__call__", None)
        if isinstance(call, types.FunctionType):
            return call
        raise ValueError(f"AutoGraph can only convert functions and methods, got {entity!r}")
    return entity


def _convert_strict(entity):
    fn = _function_of(entity)
    try:
        new = conversion.convert_function(fn, RUNTIME)
    except conversion.ConversionError as e:
        raise ValueError(f"AutoGraph could not convert {entity}: {e}") from None
    if isinstance(entity, types.MethodType):
        return types.MethodType(new, entity.__self__)
    return new


@tf_export("autograph.experimental.do_not_convert")
def do_not_convert(func=None):
    """Mark ``func`` so that AutoGraph calls it as written (usable as a decorator).

    Returns:
        ``func`` itself (or a decorator when called without a function).
    """
    if func is None:
        return do_not_convert
    try:
        setattr(func, rules.DO_NOT_CONVERT, True)
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        setattr(wrapper, rules.DO_NOT_CONVERT, True)
        return wrapper


_UNSPECIFIED = object()


@tf_export("autograph.experimental.set_loop_options")
def set_loop_options(parallel_iterations=_UNSPECIFIED, swap_memory=_UNSPECIFIED,
                     maximum_iterations=_UNSPECIFIED, shape_invariants=_UNSPECIFIED):
    """Options for the loop whose body starts with this call (``shape_invariants``: a list of
    ``(variable, shape)`` pairs; ``maximum_iterations``). AutoGraph moves the call into the
    loop; run directly, it does nothing."""
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants


@tf_export("autograph.experimental.Feature")
class Feature(enum.Enum):
    """Optional conversion features (accepted for compatibility; all are always on)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


@tf_export("autograph.set_verbosity")
def set_verbosity(level, alsologtostdout=False):
    """Set how much AutoGraph logs (``logging.DEBUG`` and below for level >= 1)."""
    logger.setLevel(logging.DEBUG if level > 0 else logging.WARNING)


@tf_export("autograph.trace")
def trace(*args):
    """Print ``args`` when run (at trace time inside a function), as ``tf.autograph.trace``."""
    print(*args)


def is_converted(fn):
    """True for functions produced by conversion."""
    return getattr(fn, "__code__", None) in conversion.CONVERTED_CODES

