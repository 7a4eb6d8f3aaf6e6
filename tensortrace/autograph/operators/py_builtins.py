"""Tensor-aware versions of Python builtins (``len``, ``range``, ``abs``, ``int``, ``float``),
``list.append`` inside converted blocks, and ``assert``."""

import builtins
import linecache
import sys

from ...context import state
from ...dtypes import float32, int32
from ...ops.array.ranges import range as tf_range
from ...ops.array.shapes import shape as tf_shape
from ...ops.control_flow.records import Assert
from ...ops.math.arithmetic import abs as tf_abs
from ...ops.math.casting import cast
from ...tensor import Tensor
from . import checks
from .values import is_symbolic, is_tensor_array


def len_(s):
    """``len(s)``: a Python int when known statically, else a scalar tensor."""
    if is_tensor_array(s):
        return s.size()
    if hasattr(s, "_for_loop") and hasattr(s, "cardinality"):
        return s.cardinality()  # a dataset: TF's len inside a function is its cardinality
    if is_symbolic(s):
        shape = s.shape
        if shape.rank == 0:
            raise ValueError(f"len requires a non-scalar tensor, got one of shape {shape}")
        if shape.rank is not None and shape.dims[0] is not None:
            return shape.dims[0]
        return tf_shape(s)[0]
    return len(s)


def range_(start_or_stop, stop=None, step=None):
    """``range(...)``; ``tf.range`` when an argument is a tensor."""
    args = [a for a in (start_or_stop, stop, step) if a is not None]
    if any(isinstance(a, Tensor) or is_symbolic(a) for a in args):
        if stop is None:
            return tf_range(start_or_stop)
        return tf_range(start_or_stop, stop, 1 if step is None else step)
    return builtins.range(*args)


def abs_(x):
    return tf_abs(x) if isinstance(x, Tensor) or is_symbolic(x) else abs(x)


def int_(x, base=None):
    if isinstance(x, Tensor) or is_symbolic(x):
        return cast(x, int32)
    return int(x) if base is None else int(x, base)


def float_(x=0.0):
    if isinstance(x, Tensor) or is_symbolic(x):
        return cast(x, float32)
    return float(x)


def unpack(value, n):
    """``value`` ready to unpack into ``n`` names: a symbolic tensor whose first dimension is
    ``n`` splits into its rows (``for x, y in pairs``)."""
    if is_symbolic(value) and value.shape.rank and value.shape.dims[0] == n:
        return tuple(value[i] for i in range(n))
    return value


def list_append(target, element):
    """``target.append(element)``, returning ``target`` (a TensorArray is written to)."""
    if is_tensor_array(target):
        return target.write(target.size(), element)
    if isinstance(target, list) and state.graph is not None:
        frame = sys._getframe(1)
        line = _source_line(frame.f_code.co_filename, frame.f_lineno)
        dtype = getattr(element, "dtype", None)
        checks.APPEND_SITES[id(target)] = (
            f"{frame.f_code.co_filename}:{frame.f_lineno}{': ' + line if line else ''}",
            getattr(dtype, "name", None))
    target.append(element)
    return target


def _source_line(filename, lineno):
    return linecache.getline(filename, lineno).strip()


def assert_stmt(expression1, expression2=None):
    """``assert expression1, expression2()``: a graph assertion for a symbolic condition."""
    if is_symbolic(expression1):
        message = expression2() if expression2 is not None else "Assertion error"
        data = list(message) if isinstance(message, (list, tuple)) else [message]
        return graph_assert(expression1, data)
    if not expression1:
        if expression2 is None:
            raise AssertionError()
        raise AssertionError(expression2())
    return None


def graph_assert(condition, data, summarize=None):
    return Assert(condition, data, summarize=summarize)
