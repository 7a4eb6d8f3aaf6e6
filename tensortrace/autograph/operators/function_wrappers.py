"""The scope converted functions run in (TF's generated form: ``with ag__.FunctionScope(...) as
fscope:`` ... ``return fscope.ret(retval_, do_return)``) and the conversion options it carries."""

import sys

from .values import is_symbolic
from .variables import UndefinedReturnValue, retval

#: Code of converted functions that may end without a return after one inside control flow
INDEFINITE_RETURNS = set()


class ConversionOptions:
    """How a function was converted (TF's options; calls inside are converted recursively)."""

    __slots__ = ("recursive", "user_requested", "optional_features", "internal_convert_user_code")

    def __init__(self, recursive=False, user_requested=False, optional_features=(),
                 internal_convert_user_code=True):
        self.recursive, self.user_requested = recursive, user_requested
        self.optional_features = optional_features
        self.internal_convert_user_code = internal_convert_user_code

    def __repr__(self):
        return (f"ConversionOptions(recursive={self.recursive}, user_requested="
                f"{self.user_requested}, optional_features={self.optional_features}, "
                f"internal_convert_user_code={self.internal_convert_user_code})")


#: TF's standard options: those of the functions a converted function defines.
STD = ConversionOptions(recursive=True, user_requested=False, optional_features=None)


def autograph_artifact(entity):
    """``entity`` (a function converted code defines) marked as converted already."""
    setattr(entity, "autograph_info__", None)
    return entity


class FunctionScope:
    """The scope of one call of a converted function: its name, its options and ``ret``, the
    value it returns."""

    __slots__ = ("name", "scope_name", "options")

    def __init__(self, function_name, scope_name, options):
        self.name, self.scope_name, self.options = function_name, scope_name, options

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def ret(value, did_return):
        """The function's result: ``value``, or None when no ``return`` set it.

        Raises:
            ValueError: when whether the function returned depends on a tensor (a ``return``
                inside a graph loop) and it may also end without one.
        """
        if isinstance(value, UndefinedReturnValue):
            return None
        if is_symbolic(did_return) and sys._getframe(1).f_code in INDEFINITE_RETURNS:
            return retval(value, did_return)  # raises TF-style advice
        return value
