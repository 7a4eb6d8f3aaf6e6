"""TF's compile-time constant arguments: when an input XLA needs at compile time (a split's
sizes, a reshape's shape) is computed from a jit_compile function's arguments alone, TF compiles
the function for those arguments' values, again for each new value. A graph is compiled without
them first; only on that error are the arguments found and the graph compiled per value, so
every other function's call stays as it was."""

import numpy as np

from .. import dtypes as D
from .. import errors
from ..registry import get as get_op


def per_value(compiled, general):
    """The call of ``compiled`` (an XlaCompiledGraph whose own call is ``general``): ``general``
    until a compile finds arguments XLA needs as constants, then a graph compiled for their
    values (``type(compiled)(graph, name, constants=...)``), one per value."""
    by_value = {}  # the constant arguments' values -> the graph compiled for them
    constant_at = []  # feed positions compiled as values (none until a compile needs one)

    def fn(*feeds):
        if not constant_at:
            try:
                return general(*feeds)
            except errors.InvalidArgumentError as e:
                if not _more_constants(compiled, e, constant_at):
                    raise
        while True:
            key = tuple(_value_key(feeds[i]) for i in constant_at)
            specialized = by_value.get(key)
            if specialized is None:
                resources = compiled._resources  # _lower takes the other feeds: count them out
                values = tuple((i - sum(r < i for r in resources), np.asarray(feeds[i]))
                               for i in constant_at)
                specialized = by_value[key] = type(compiled)(compiled.graph, compiled.name,
                                                             constants=values)
            try:
                return specialized.fn(*feeds)
            except errors.InvalidArgumentError as e:
                if not _more_constants(specialized, e, constant_at):
                    raise
                by_value.clear()

    return fn


def _more_constants(compiled, error, constant_at):
    """Add to ``constant_at`` the feeds of ``compiled`` that the tensor ``error`` found not
    constant is computed from; False when it depends on anything else (a variable, a stateful
    op, a loop's result: TF's error stands) or on no feed not already there."""
    tensor = getattr(error, "_tt_not_constant", None)
    if tensor is None:
        return False
    positions = {id(ph): i for i, ph in enumerate(compiled.feeds)}
    found, seen, stack = set(), set(), [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if id(t) in positions:
            if t.dtype == D.resource:
                return False
            found.add(positions[id(t)])
            continue
        op = t.op
        if op.type == "Placeholder" or get_op(op.type).stateful:
            return False  # a branch's own input, a variable read, a random draw ...
        stack.extend(op.inputs)
    if not found or found <= set(constant_at):
        return False
    constant_at[:] = sorted(found | set(constant_at))
    return True


def _value_key(value):
    a = np.asarray(value)
    return a.dtype.str, a.shape, a.tobytes()
