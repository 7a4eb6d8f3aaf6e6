"""Elementwise math: arithmetic, comparisons, logic, bitwise, rounding, transcendental functions.

Each op is a registry record (mostly one ``unary``/``binary`` line) plus its public function;
Python operators on tensors are installed here too.
"""

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor, operand
from ..tensor import Tensor
from ._rules import ALL, FLOAT, NUMERIC, binary, errstate, unary

def _object_result(out):
    """NumPy returns bare Python objects (bytes) from 0-d object ops; keep them arrays."""
    return out if isinstance(out, (np.ndarray, np.generic)) else np.array(out, dtype=object)


# --- registry records ---------------------------------------------------------------------------
ADD = binary("AddV2", np.add, expr="({0} + {1})")
ADD_STRING = binary("Add", lambda x, y: _object_result(np.add(x, y)), allowed=NUMERIC + (D.string,))
SUB = binary("Sub", np.subtract, expr="({0} - {1})")
MUL = binary("Mul", np.multiply, expr="({0} * {1})")
REAL_DIV = binary("RealDiv", errstate(np.true_divide), allowed=FLOAT + (D.complex64, D.complex128))
NEG = unary("Neg", np.negative, expr="(-{0})")


# --- public functions ---------------------------------------------------------------------------
def binary_operands(x, y):
    """Convert the operands of a binary op: a Python value takes the other operand's dtype."""
    if isinstance(x, Tensor):
        return x, operand(y, x)
    if isinstance(y, Tensor):
        return operand(x, y), y
    x = convert_to_tensor(x)
    return x, operand(y, x)


@tf_export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting (string tensors concatenate)."""
    x, y = binary_operands(x, y)
    return bind(ADD_STRING if x.dtype is D.string else ADD, x, y)


@tf_export("math.subtract", "subtract")
def subtract(x, y, name=None):
    x, y = binary_operands(x, y)
    return bind(SUB, x, y)


@tf_export("math.multiply", "multiply")
def multiply(x, y, name=None):
    x, y = binary_operands(x, y)
    return bind(MUL, x, y)


@tf_export("math.negative", "negative")
def negative(x, name=None):
    return bind(NEG, convert_to_tensor(x))


# --- operators ----------------------------------------------------------------------------------
def _binary_operator(opdef):
    def forward(self, other):
        return bind(opdef, self, operand(other, self))

    def reflected(self, other):
        return bind(opdef, operand(other, self), self)

    return forward, reflected


def _add_operator(self, other):
    other = operand(other, self)
    return bind(ADD_STRING if other.dtype is D.string else ADD, self, other)


def _radd_operator(self, other):
    other = operand(other, self)
    return bind(ADD_STRING if other.dtype is D.string else ADD, other, self)


Tensor._override_operator("__add__", _add_operator)
Tensor._override_operator("__radd__", _radd_operator)
for _name, _opdef in (("sub", SUB), ("mul", MUL)):
    _f, _r = _binary_operator(_opdef)
    Tensor._override_operator(f"__{_name}__", _f)
    Tensor._override_operator(f"__r{_name}__", _r)
Tensor._override_operator("__neg__", lambda self: bind(NEG, self))
