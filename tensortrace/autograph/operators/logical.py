"""``and``, ``or``, ``not`` and conditional expressions: lazy like Python, and graph
conditionals when the deciding operand is a symbolic tensor."""

from ...ops.control_flow.conditionals import cond as tf_cond
from ...ops.math.compare import logical_not
from ...tensor import Tensor
from . import checks
from .values import is_symbolic


def and_(a, b):
    """``a() and b()``; ``b`` runs (or is staged) only when needed."""
    a_val = a()
    if is_symbolic(a_val):
        return _tf_cond_value(a_val, b, lambda: a_val, "and")
    return a_val and b()


def or_(a, b):
    """``a() or b()``; ``b`` runs (or is staged) only when needed."""
    a_val = a()
    if is_symbolic(a_val):
        return _tf_cond_value(a_val, lambda: a_val, b, "or")
    return a_val or b()


def not_(a):
    """``not a``; ``tf.logical_not`` for tensors."""
    if isinstance(a, Tensor) or is_symbolic(a):
        return logical_not(a)
    return not a


def if_exp(cond, if_true, if_false, expr_repr):
    """``if_true() if cond else if_false()``, as ``tf.cond`` for a symbolic ``cond``."""
    if is_symbolic(cond):
        return _tf_cond_value(cond, if_true, if_false, expr_repr)
    return if_true() if cond else if_false()


def _tf_cond_value(cond, if_true, if_false, name):
    """One value chosen by a graph conditional; both branches must agree on its type."""
    pred = checks.verify_condition(cond, f"`{name}`" if name in ("and", "or") else
                                   "if expression")
    results = {}

    def branch(fn, key):
        def run():
            results[key] = value = fn()
            if len(results) == 2:
                checks.verify_cond_vars((results["main"],), (results["else"],), (name,))
            return value

        return run

    return tf_cond(pred, branch(if_true, "main"), branch(if_false, "else"))
