"""The execution context and ``bind``, the one dispatch point every op goes through.

Eagerly ``bind`` runs the op's NumPy kernel at once; while a function is being traced it asks the
graph under construction to append an operation; in both cases it offers the op to every active
tape (``record``). Tapes are any objects with a ``_record`` method: autodiff's ``GradientTape``
puts itself on ``state.tapes``, so this module knows nothing of gradients.

    >>> bind(registry.get("AddV2"), constant(1), constant(2))
    <tf.Tensor: shape=(), dtype=int32, numpy=3>
"""

import threading

import numpy as np

from . import errors, messages
from .tensor import EagerTensor, Tensor


class _State(threading.local):
    """What ``bind`` consults: the graph being built (None when eager) and the active tapes
    (objects with a ``_record`` method, innermost last).

    Per thread, as TF's context is: a function traced in one thread never captures the eager ops
    another thread runs meanwhile (about 20 ns more per read than a plain object).
    """

    def __init__(self):
        self.graph = None
        self.tapes = ()


state = _State()

_new = object.__new__
_Eager = EagerTensor


def _wrap(value):
    t = _new(_Eager)
    t._value = value
    return t


def executing_eagerly():
    """True unless a function is being traced (``tf.executing_eagerly``)."""
    return state.graph is None


def bind(op, *inputs, **attrs):
    """Apply ``op`` to ``inputs`` (tensors) in the current context.

    Returns:
        One tensor, or a tuple of tensors for multi-output ops.
    """
    graph = state.graph
    if graph is not None:
        return graph.apply(op, inputs, attrs)
    try:  # unrolled for the common arities: this is the eager hot path
        n = len(inputs)
        if n == 2:
            arrays = (inputs[0]._value, inputs[1]._value)
        elif n == 1:
            arrays = (inputs[0]._value,)
        else:
            arrays = tuple([t._value for t in inputs])
    except AttributeError:
        raise _not_eager(op, inputs) from None
    try:  # free when nothing is raised (3.11)
        fast = op.fast_dtypes
        if fast is not None:
            d0 = arrays[0].dtype
            if d0 not in fast or (op.fast_pair and n > 1 and arrays[1].dtype is not d0):
                op.check(arrays)
        elif op.check is not None:
            op.check(arrays)
    except errors.OpError as e:  # a dtype TF's kernel lookup refuses: its text, the name tail
        raise type(e)(None, None, e.message + messages.eager_name_tail(op.name, attrs)) from None
    try:
        out = op.kernel(*arrays, **attrs)
    except errors.OpError as e:
        if e.message.startswith("{{function_node"):  # worded by a kernel running another op
            raise
        raise type(e)(None, None, messages.kernel_error_text(e.message, op.name, n, attrs)) \
            from None
    except (ValueError, IndexError, TypeError, np.linalg.LinAlgError) as e:
        raise errors.InvalidArgumentError(None, None, messages.kernel_error_text(
            _kernel_message(e, arrays), op.name, n, attrs)) from None
    except (MemoryError, ArithmeticError) as e:  # free when nothing is raised (3.11)
        raise _kernel_error(e, op.name, n, attrs) from None
    if type(out) is tuple:
        outs = tuple(map(_wrap, out))
    else:
        outs = _new(_Eager)
        outs._value = out
    if state.tapes:
        record(op, inputs, attrs, outs)
    return outs


def record(op, inputs, attrs, outs):
    """Offer one application of ``op`` to every active tape; each keeps it if it watches an
    input. Tapes share one record: ``tape._record(op, inputs, attrs, outputs, shared)`` returns
    the record it kept (``shared`` when one was given) or ``shared`` unchanged."""
    outputs = outs if type(outs) is tuple else (outs,)
    shared = None
    for tape in state.tapes:
        shared = tape._record(op, inputs, attrs, outputs, shared)


def _kernel_message(e, arrays):
    msg = str(e)
    if "could not be broadcast" in msg:
        shapes = [list(np.shape(a)) for a in arrays]
        return "Incompatible shapes: " + " vs. ".join(str(s).replace(" ", "") for s in shapes)
    return msg


def _kernel_error(e, op_name, n_inputs, attrs):
    """NumPy running out of memory is TF's OOM; an overflowing size or a division by zero in a
    kernel's arithmetic is an invalid argument."""
    if isinstance(e, MemoryError):
        oom = messages.oom_error(getattr(e, "shape", ()), getattr(e, "dtype", "float32"))
        return type(oom)(None, None, messages.kernel_error_text(oom.message, op_name, n_inputs,
                                                                 attrs))
    return errors.InvalidArgumentError(None, None, messages.kernel_error_text(
        str(e), op_name, n_inputs, attrs))


def _not_eager(op, inputs):
    for t in inputs:
        if isinstance(t, Tensor) and not isinstance(t, EagerTensor):
            return TypeError(
                f"An op outside of the function building code is being passed a symbolic "
                f"tensor ({t!r}) as input to {op.name}. Symbolic tensors exist only while a "
                f"tf.function is being traced; return them from the function instead."
            )
    got = [type(t).__name__ for t in inputs]
    return TypeError(f"{op.name} expects tensors as inputs, got {got}")
