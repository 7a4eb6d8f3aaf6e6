"""Placeholders for variables that have no value yet, and the loads that check for them."""

import sys

from .values import is_symbolic


class Undefined:
    """The value of a variable that is not yet assigned on this path (``Undefined('y')``).

    Reading it through ``ld`` raises UnboundLocalError, as Python would; staging a graph
    conditional or loop that leaves it undefined raises an error naming ``symbol_name``.
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def read(self):
        if sys.version_info >= (3, 11):
            raise UnboundLocalError(f"cannot access local variable '{self.symbol_name}' where it "
                                    "is not associated with a value")
        raise UnboundLocalError(
            f"local variable '{self.symbol_name}' referenced before assignment")

    def __repr__(self):
        return self.symbol_name

    def __getattribute__(self, name):
        try:
            return object.__getattribute__(self, name)
        except AttributeError:
            return self  # lets code that builds get_state/set_state tuples pass through

    def __getitem__(self, i):
        return self


class UndefinedReturnValue:
    """The return value of a function before any ``return`` ran (``None`` if none does)."""

    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue"


def ld(value):
    """Load a variable that may be undefined: raise UnboundLocalError if it is."""
    if isinstance(value, Undefined):
        value.read()
    return value


def ldu(load, name):
    """``load()``, or ``Undefined(name)`` if the variable is unbound (possibly-defined names)."""
    try:
        return load()
    except NameError:  # UnboundLocalError and free-variable errors are NameErrors
        return Undefined(name)


def retval(value, do_return=True):
    """A function's result: its return value, or None when no ``return`` ran.

    Raises:
        ValueError: if whether the function returned depends on a tensor (a ``return`` inside
            a graph loop, with no ``return`` after it).
    """
    if is_symbolic(do_return):
        raise ValueError(
            "the function returns a value only on some paths, and which path runs depends on a "
            "tensor (a `return` inside a TensorFlow loop or conditional): add a `return` at "
            "the end of the function so that every path returns a value")
    if isinstance(value, UndefinedReturnValue) or not do_return:
        return None
    return value
