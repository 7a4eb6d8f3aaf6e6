"""What every graph has: the ``Const`` and ``Placeholder`` ops (their values come from the graph,
not from inputs), ``NoOp``, the scopes that order ops or lift them out of a trace
(``tf.control_dependencies``, ``tf.group``, ``tf.init_scope``) and ``tf.name_scope``."""

import contextlib
import threading

import numpy as np

from .. import nest
from .._export import tf_export
from ..context import bind, state
from ..registry import define_op
from ..tensor import EagerTensor, Tensor, TensorSpec
from ._args import check_nesting


@define_op("Const")
class Const:
    """A value baked into the graph (``attrs['value']``)."""

    def infer(value, dtype):
        return TensorSpec(np.shape(value), dtype)

    def kernel(value, dtype):
        return value


@define_op("Placeholder")
class Placeholder:
    """A graph input; the executor feeds it, it has no kernel of its own to run."""

    def infer(dtype, shape):
        return TensorSpec(shape, dtype)

    def kernel(dtype, shape):
        raise ValueError("A Placeholder has no value outside a graph call: feed it.")


# --- NoOp, group, control_dependencies, init_scope ---------------------------------------------
@define_op("NoOp")
class NoOp:
    """Does nothing; in a graph its control inputs make it a join point (``tf.group``)."""

    def infer():
        return ()

    def kernel():
        return ()


@tf_export("no_op")
def no_op(name=None):
    """Eagerly None; while tracing, a NoOp operation."""
    if state.graph is None:
        return None
    return bind(NoOp)  # a graph returns the Operation itself for ops without outputs


def _control_ops(values):
    """The graph operations ``values`` (tensors, operations, nested lists) stand for."""
    ops = []
    for v in nest.flatten(values):
        if isinstance(v, Tensor) and not isinstance(v, EagerTensor):
            ops.append(v.op)
        elif hasattr(v, "control_inputs") and hasattr(v, "outputs"):  # an Operation
            ops.append(v)
    return ops


@tf_export("group")
def group(*inputs, name=None):
    """Eagerly None; while tracing, a NoOp that runs after every op of ``inputs``."""
    if state.graph is None:
        return None
    with control_dependencies(_control_ops(check_nesting(inputs, "inputs"))):
        return no_op(name)


@tf_export("control_dependencies")
def control_dependencies(control_inputs):
    """A context manager: ops created inside run after ``control_inputs`` (tensors or ops).

    Eagerly ops already run in order, so it does nothing. While tracing, nested blocks add up;
    ``None`` clears the dependencies inside the block.
    """
    graph = state.graph
    if graph is None:
        return contextlib.nullcontext()
    if control_inputs is None:
        return graph.control_dependencies([])
    outer = graph.control_dependencies_stack[-1] if graph.control_dependencies_stack else []
    return graph.control_dependencies(list(outer) + _control_ops(control_inputs))


@tf_export("init_scope")
@contextlib.contextmanager
def init_scope():
    """Run the body eagerly even inside a trace (how TF lifts initializers), with gradient tapes
    paused."""
    saved_graph, saved_tapes = state.graph, state.tapes
    state.graph, state.tapes = None, ()
    try:
        yield
    finally:
        state.graph, state.tapes = saved_graph, saved_tapes


# --- name scopes ----------------------------------------------------------------------------
class _NameScopes(threading.local):
    """The eager name scopes (tf.name_scope, tf.Module), variable names' prefix: per thread, as
    in TF's eager context (a new thread, a replica's among them, starts at the top level); used
    as a list."""

    def __init__(self):
        self.stack = []

    def append(self, name):
        self.stack.append(name)

    def pop(self):
        return self.stack.pop()

    def __setitem__(self, index, value):
        self.stack[index] = value

    def __iter__(self):
        return iter(self.stack)

    def __len__(self):
        return len(self.stack)

    def __add__(self, other):
        return self.stack + other


name_scopes = _NameScopes()


@tf_export("name_scope")
class name_scope:
    """``tf.name_scope(name)``: while tracing, ops made inside are named ``name/...`` (a unique
    scope: ``name_1/`` the second time; ``"s/"`` re-enters ``s/`` as given; ``""`` the top level);
    eagerly (and for variables) it prefixes variable names. Yields the scope, ``"name/"``."""

    __slots__ = ("_name", "_exits")

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._exits = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        name, graph = self._name, state.graph
        inner = scope = None
        if graph is not None:  # first: a name the graph refuses changes nothing
            inner = graph.name_scope(name)
            scope = inner.__enter__()
        saved = list(name_scopes)
        if not name or name[-1] == "/":  # the top level, or a scope given in full
            name_scopes[:] = [name[:-1]] if name else []
        else:
            name_scopes.append(name)
        if scope is None:
            scope = "/".join(name_scopes) + "/" if name_scopes else ""
        self._exits.append((saved, inner))
        return scope

    def __exit__(self, *exc):
        saved, inner = self._exits.pop()
        name_scopes[:] = saved
        if inner is not None:
            inner.__exit__(*exc)
        return False


@tf_export("get_current_name_scope")
def get_current_name_scope():
    """The current name scope (``"s/t"``): the graph's while tracing, else the eager one."""
    graph = state.graph
    return "/".join(name_scopes) if graph is None else graph.get_name_scope()
