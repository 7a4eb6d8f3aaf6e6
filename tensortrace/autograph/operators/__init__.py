"""The operators converted code calls (as ``ag__.if_stmt`` ...; ``api.RUNTIME`` adds
``converted_call``): Python semantics for Python values, graph control flow for symbolic
tensors."""

from .control_flow import for_stmt, if_stmt, while_stmt
from .function_wrappers import STD, ConversionOptions, FunctionScope, autograph_artifact
from .logical import and_, if_exp, not_, or_
from .py_builtins import abs_, assert_stmt, float_, int_, len_, list_append, range_, unpack
from .variables import Undefined, UndefinedReturnValue, ld, ldu, retval

__all__ = [
    "ConversionOptions",
    "FunctionScope",
    "Undefined",
    "STD",
    "UndefinedReturnValue",
    "abs_",
    "and_",
    "assert_stmt",
    "autograph_artifact",
    "float_",
    "for_stmt",
    "if_exp",
    "if_stmt",
    "int_",
    "ld",
    "ldu",
    "len_",
    "list_append",
    "not_",
    "or_",
    "range_",
    "retval",
    "unpack",
    "while_stmt",
]

