"""The Python operators on tensors (``x + 2``, ``a < b``, ``~mask`` ...), installed on ``Tensor``
with TF's conversion of the other operand and its fallbacks (bool products, string addition, the
other value's reflected operator)."""

from ... import dtypes as D
from ... import errors
from ...context import bind
from ...graph.naming import default_name
from ...convert import convert_to_tensor
from ...tensor import Tensor
from .arithmetic import ADD, ADD_STRING, FLOOR_DIV, FLOOR_MOD, MUL, NEG, POW, SUB, abs, true_divide
from .casting import cast
from .compare import (BITWISE_AND, BITWISE_OR, BITWISE_XOR, EQUAL, GREATER, GREATER_EQUAL, INVERT,
                      LESS, LESS_EQUAL, LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR, NOT_EQUAL,
                      logical_xor)
from .operands import as_tensor, hinted_operand, operand


# TF's operator wrapper: when the other value cannot take part (TypeError/ValueError), its own
# reflected operator gets a chance (so ``bool_tensor / np.float64(2)`` is NumPy's answer).
def _reflected_or_raise(self, other, op_name):
    """Called while handling the operator's TypeError/ValueError: the answer of ``other``'s
    reflected operator, or that error again when it has none."""
    reflected = getattr(type(other), f"__r{op_name}__", None)
    if reflected is not None:
        try:
            out = reflected(other, self)
        except (TypeError, ValueError):
            out = NotImplemented
        if out is not NotImplemented:
            return out
    raise  # the error the calling operator is handling


def _simple_operator(opdef, op_name):
    """``x <op> y`` and ``y <op> x`` for an op with TF's strict conversion of the other value."""

    def forward(self, other):
        try:
            return bind(opdef, self, operand(other, self))
        except (TypeError, ValueError):
            return _reflected_or_raise(self, other, op_name)

    def reflected(self, other):
        return bind(opdef, operand(other, self), self)

    return forward, reflected


def _add(self, other):
    try:
        other = operand(other, self)
    except (TypeError, ValueError):  # TF's dtype_hint: the value keeps its own dtype
        other = convert_to_tensor(other)
    try:
        return bind(ADD, self, other)
    except (errors.InvalidArgumentError, TypeError):
        if self.dtype is not D.string:  # strings take the other op; the common path stays lean
            raise
    return bind(ADD_STRING, self, other)


def _add_operator(self, other):
    try:
        return _add(self, other)
    except (TypeError, ValueError):
        return _reflected_or_raise(self, other, "add")


def _radd_operator(self, other):
    other = operand(other, self)
    return bind(ADD_STRING if self.dtype is D.string else ADD, other, self)


def _bool_product(x, y):
    """TF multiplies bool tensors through int32 (``*`` only; tf.multiply refuses bool)."""
    x, y = cast(x, D.int32), cast(y, D.int32)
    return cast(bind(MUL, x, y), D.bool)


def _mul_operator(self, other):
    try:
        return bind(MUL, self, operand(other, self))
    except (errors.InvalidArgumentError, TypeError, ValueError):
        if self.dtype is not D.bool and getattr(other, "dtype", None) is not D.bool:
            return _reflected_or_raise(self, other, "mul")
    return _bool_product(self, as_tensor(other))  # outside the handler: no chained error


def _rmul_operator(self, other):
    other = operand(other, self)
    return _bool_product(other, self) if self.dtype is D.bool else bind(MUL, other, self)


def _truediv_operator(self, other):
    try:
        return true_divide(self, hinted_operand(other, self))
    except (TypeError, ValueError):
        return _reflected_or_raise(self, other, "truediv")


def _rtruediv_operator(self, other):
    return true_divide(operand(other, self), self)


def _logic_operator(logical, bitwise, op_name):
    """``&``/``|``/``^``: the logical op for bool tensors, the bitwise op for integers."""

    def forward(self, other):
        try:
            other = operand(other, self)
            return logical(self, other) if self.dtype is D.bool else bind(bitwise, self, other)
        except (TypeError, ValueError):
            return _reflected_or_raise(self, other, op_name)

    def reflected(self, other):
        other = operand(other, self)
        return logical(other, self) if self.dtype is D.bool else bind(bitwise, other, self)

    return forward, reflected


def _tensor_equals(self, other):
    """``==``: False for None, a scalar False for shapes that cannot broadcast."""
    if other is None:
        return False
    return bind(EQUAL, self, operand(other, self), incompatible_shape_error=False)


def _tensor_not_equals(self, other):
    if other is None:
        return True
    return bind(NOT_EQUAL, self, operand(other, self), incompatible_shape_error=False)


def _comparison(opdef):
    return lambda self, other: bind(opdef, self, operand(other, self))


def _install_operators():
    override = Tensor._override_operator
    for op_name, opdef in (("sub", SUB), ("floordiv", FLOOR_DIV), ("mod", FLOOR_MOD),
                           ("pow", POW)):
        forward, reflected = _simple_operator(opdef, op_name)
        override(f"__{op_name}__", forward)
        override(f"__r{op_name}__", reflected)
    for op_name, logical, bitwise in (
            ("and", lambda x, y: bind(LOGICAL_AND, x, y), BITWISE_AND),
            ("or", lambda x, y: bind(LOGICAL_OR, x, y), BITWISE_OR),
            ("xor", logical_xor, BITWISE_XOR)):
        forward, reflected = _logic_operator(logical, bitwise, op_name)
        override(f"__{op_name}__", forward)
        override(f"__r{op_name}__", reflected)
    override("__add__", _add_operator)
    override("__radd__", _radd_operator)
    override("__mul__", _mul_operator)
    override("__rmul__", _rmul_operator)
    override("__truediv__", _truediv_operator)
    override("__rtruediv__", _rtruediv_operator)
    override("__lt__", _comparison(LESS))
    override("__le__", _comparison(LESS_EQUAL))
    override("__gt__", _comparison(GREATER))
    override("__ge__", _comparison(GREATER_EQUAL))
    override("__eq__", _tensor_equals)
    override("__ne__", _tensor_not_equals)
    override("__neg__", lambda self: bind(NEG, self))
    override("__abs__", abs)
    override("__invert__",
             lambda self: bind(LOGICAL_NOT if self.dtype is D.bool else INVERT, self))
    # No __pos__: TF 2.21 tensors do not support unary plus (TypeError).


# TF's node names for the operators (math_ops' operator scopes: ``x - y`` is ``sub``; comparisons
# and unary operators keep their op type); ``&``, ``|``, ``^`` on integers put the bitwise op
# under the scope (``and/BitwiseAnd``)
_SCOPES = {"Sub": "sub", "FloorDiv": "floordiv", "FloorMod": "mod", "Pow": "pow",
           "BitwiseAnd": "and", "BitwiseOr": "or", "BitwiseXor": "xor"}
default_name("add", _add_operator, _radd_operator)
default_name("mul", _mul_operator, _rmul_operator)
default_name("truediv", _truediv_operator, _rtruediv_operator)
default_name(lambda loc: loc["opdef"].name, _comparison(LESS))  # op types: Greater/y
default_name("Equal", _tensor_equals)
default_name("NotEqual", _tensor_not_equals)
default_name(lambda loc: _SCOPES[loc["opdef"].name], *_simple_operator(SUB, "sub"))
default_name(lambda loc: (_SCOPES[loc["bitwise"].name], loc["self"].dtype is D.bool, None),
             *_logic_operator(None, BITWISE_AND, "and"))
_install_operators()
