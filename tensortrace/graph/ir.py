"""The graph IR: a ``Graph`` of ``Operation``s (in program order) producing ``SymbolicTensor``s.

    >>> g = Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(TensorSpec([None], tf.float32), "x")
    ...     y = x * 2.0
    >>> y
    <tf.Tensor 'Mul:0' shape=(None,) dtype=float32>

Tracing only appends; passes build new graphs. Control-flow ops hold sub-graphs in their attrs.
"""

import contextlib
import importlib
import os
import sys

import numpy as np

from .. import context as _context
from ..dtypes import from_numpy
from ..errors import OperatorNotAllowedInGraphError
from ..registry import get as get_op
from ..shapes import as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from . import naming
from .printer import format_graph

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STATIC_LIMIT = 64  # fold values at trace time only for small tensors (shape arithmetic)


# TF's advice, verbatim, for Python control flow on a symbolic tensor
_RESOLUTIONS = (
    " You can attempt the following resolutions to the problem: If you are running in Graph "
    "mode, use Eager execution mode or decorate this function with @tf.function. If you are "
    "using AutoGraph, you can try decorating this function with @tf.function. If that does not "
    "work, then you may be using an unsupported feature or your source code may not be visible "
    "to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
    "autograph/g3doc/reference/limitations.md#access-to-source-code for more information.")


class SymbolicTensor(Tensor):
    """The ``index``-th output of ``op``: a shape and dtype, and a value only when run."""

    # __dict__: Python attributes, as TF's tensors take them (Keras' ``_keras_logits``)
    __slots__ = ("op", "value_index", "_shape", "_dtype", "static", "__weakref__", "__dict__")

    def __init__(self, op, value_index, spec):
        self.op = op
        self.value_index = value_index
        self._shape = spec.shape
        self._dtype = spec.dtype
        self.static = None

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    @property
    def device(self):
        return ""

    @property
    def spec(self):
        return TensorSpec(self._shape, self._dtype)

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self):
        return [op for op in self.op.graph.get_operations() if self in op.inputs]

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        shape = "" if self._shape.rank is None else f", shape={self._shape}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed." + _RESOLUTIONS)

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed." + _RESOLUTIONS)

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please "
                        "call `x.shape` rather than `len(x)` for shape information.")

    def __index__(self):
        raise TypeError(f"A symbolic Tensor ({self.name}) cannot be used as a Python index.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error "
            "may indicate that you're trying to pass a Tensor to a NumPy call, which is not "
            "supported.")

    # No ``numpy``: as in TF, ``t.numpy()`` in a trace is Python's AttributeError
    # "'SymbolicTensor' object has no attribute 'numpy'".


class Operation:
    """One node: ``type`` names an OpDef; ``attrs`` are its static parameters."""

    __slots__ = ("name", "type", "inputs", "attrs", "outputs", "control_inputs", "graph",
                 "source", "multi", "__weakref__")

    def __init__(self, graph, name, type, inputs, attrs, specs, source=None):
        self.graph = graph
        self.name = name
        self.type = type
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.control_inputs = ()
        self.source = source
        self.multi = len(specs) != 1  # its kernel returns a tuple (set by apply for 1-tuples)
        self.outputs = (SymbolicTensor(self, 0, specs[0]),) if len(specs) == 1 else \
            tuple(SymbolicTensor(self, i, s) for i, s in enumerate(specs))

    @property
    def opdef(self):
        return get_op(self.type)

    def get_attr(self, name):
        return self.attrs[name]

    def subgraphs(self):
        """The (attr name, graph) pairs of the branches and bodies this op holds."""
        return subgraphs(self.attrs)

    @property
    def node_def(self):
        return _NodeDef(self)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class _AttrValue:
    """A GraphDef attr value: exposes the raw value as ``.value`` and prints readably."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return repr(self.value)


class _NodeDef:
    """GraphDef-shaped view of an Operation: ``name``, ``op``, ``input``, ``attr``."""

    def __init__(self, op):
        self.name = op.name
        self.op = op.type
        self.input = [t.name if t.value_index else t.op.name for t in op.inputs]
        self.input += ["^" + c.name for c in op.control_inputs]
        self.attr = {k: _AttrValue(v) for k, v in op.attrs.items()}
        self.device = ""

    def __repr__(self):
        return f"node {{ name: {self.name!r} op: {self.op!r} input: {self.input} }}"


class GraphDef:
    """What ``Graph.as_graph_def()`` returns: ``.node`` is a list of NodeDefs."""

    def __init__(self, nodes):
        self.node = nodes

    def __repr__(self):
        return "\n".join(map(repr, self.node))


class Graph:
    """A dataflow graph: placeholders, operations in program order, outputs, captures."""

    def __init__(self, name="graph", outer=None):
        self.name = name
        self.outer = outer  # the graph a sub-graph or nested trace captures from
        self._ops = []
        self._names = {}  # lower-cased name -> times taken (naming.unique_name)
        self._name_stack = ""  # the name scope ops are added under ("s/t")
        self._calls = []  # the API calls whose ops are being added (naming._Call)
        self._owner_frames = []  # the frames that made this graph the default one
        self._loose = []  # captures made outside any API call, named after their reader
        self._live_above = None  # naming's frames above the last user frame (naming.py)
        self._source_above = None  # _user_source's user frames above the last user frame
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.captures = []  # (outer value: EagerTensor/SymbolicTensor/Variable, placeholder)
        self._capture_index = {}
        self.variables = []
        self.building_function = True
        self.control_dependencies_stack = []

    # --- building ------------------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """TF's unique name for ``name`` under the current name scope."""
        name = naming.scoped(self._name_stack, name)
        if not mark_as_used:
            return naming.unique_name(dict(self._names), name)
        return naming.unique_name(self._names, name)

    def add_op(self, type, inputs, attrs, specs, name=None):
        """Append an operation whose outputs have ``specs``; returns it. Without ``name`` it is
        named as TF names it (``graph/naming.py``)."""
        op = Operation(self, None, type, inputs, attrs, specs)
        f = sys._getframe(1)
        user = naming.name_op(self, op, name, f)
        op.source = _user_source(self, f, user)  # the user's line and its definition stack
        if self.control_dependencies_stack:
            op.control_inputs = tuple(self.control_dependencies_stack[-1])
        self._ops.append(op)
        return op

    def apply(self, opdef, inputs, attrs):
        """``bind`` in a graph: capture outer values, infer outputs, append an op."""
        inputs = [t if getattr(t, "graph", None) is self else self.capture(t) for t in inputs]
        specs = opdef.infer(*inputs, **attrs)
        single = isinstance(specs, TensorSpec)
        op = self.add_op(opdef.name, inputs, attrs, (specs,) if single else specs)
        op.multi = not single
        if not opdef.stateful:
            _propagate_static(opdef, op, inputs, attrs)
        if _context.state.tapes:
            _context.record(opdef, inputs, attrs, op.outputs[0] if single else op.outputs)
        if single:
            return op.outputs[0]
        return op.outputs if op.outputs else op  # an op with no outputs is returned, as in TF

    def constant(self, value, name=None):
        """A ``Const`` op holding ``value`` (a NumPy array or scalar)."""
        arr = np.asarray(value)
        op = self.add_op("Const", (), {"value": value, "dtype": from_numpy(arr.dtype)},
                         (TensorSpec(arr.shape, from_numpy(arr.dtype)),), name=name)
        out = op.outputs[0]
        out.static = arr
        return out

    def placeholder(self, spec, name=None):
        """A graph input of ``spec``'s shape and dtype."""
        op = self.add_op("Placeholder", (), {"dtype": spec.dtype, "shape": spec.shape},
                         (TensorSpec(spec.shape, spec.dtype),), name=name)
        return op.outputs[0]

    def capture(self, value, name=None):
        """The placeholder standing for an outer ``value`` (eager tensor or outer-graph tensor)."""
        key = id(value)
        hit = self._capture_index.get(key)
        if hit is not None:
            return hit
        if isinstance(value, SymbolicTensor):
            if self.outer is None and value.graph is not self:
                raise _foreign_tensor_error(value, self)
            if self.outer is not None and value.graph is not self.outer:
                value = self.outer.capture(value)
        elif not isinstance(value, EagerTensor):
            raise TypeError(f"Cannot use {value!r} as a tensor input in graph {self.name}")
        ph = self.placeholder(TensorSpec(value.shape, value.dtype), name)
        if isinstance(value, SymbolicTensor):  # an outer value known while tracing stays known
            ph.static = value.static
        self.captures.append((value, ph))
        self._capture_index[key] = ph
        self._capture_index[id(ph)] = ph
        return ph

    # --- inspection ----------------------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        for op in self._ops:
            if op.name == name:
                return op
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def get_tensor_by_name(self, name):
        op_name, _, index = name.partition(":")
        return self.get_operation_by_name(op_name).outputs[int(index or 0)]

    def as_graph_def(self, from_version=None, add_shapes=False):
        """TF's ``GraphDef`` protocol buffer of this graph (its sub-graphs in ``library``;
        ``add_shapes`` gives each node ``_output_shapes``) with the ``tf-formats`` extra;
        without it, a light view with the same ``node`` list surface (``.name``, ``.op``,
        ``.input``)."""
        try:
            # reason: the exporter needs the optional extra, so it loads on first use
            exporter = importlib.import_module("tensortrace.graph.graph_def")
            exporter._pb()
        except ImportError:
            return GraphDef([op.node_def for op in self._ops])
        return exporter.graph_to_graph_def(self, add_shapes=add_shapes)

    @contextlib.contextmanager
    def as_default(self):
        """Make this graph the one ops are added to (``bind`` appends here)."""
        st = _context.state
        saved = st.graph
        st.graph = self
        self._owner_frames.append(sys._getframe(2))  # ops its body adds come from calls below
        try:
            yield self
        finally:
            st.graph = saved
            self._owner_frames.pop()
            if not self._owner_frames:  # they hold frames
                self._calls.clear()
                self._live_above = self._source_above = None

    @contextlib.contextmanager
    def name_scope(self, name):
        """TF's ``Graph.name_scope``: ops added inside are named ``name/...`` (a unique scope;
        ``"s/"`` re-enters a scope as given, ``""`` or None the top level)."""
        saved = self._name_stack
        self._name_stack, scope = naming.scope_stack(saved, name, self._names)
        try:
            yield scope
        finally:
            self._name_stack = saved

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def control_dependencies(self, ops):
        self.control_dependencies_stack.append([getattr(o, "op", o) for o in ops if o is not None])
        try:
            yield
        finally:
            self.control_dependencies_stack.pop()

    def __repr__(self):
        return f"<Graph {self.name!r} with {len(self._ops)} ops>"

    def __str__(self):
        return format_graph(self)


naming.not_named(Graph.add_op, Graph.constant, Graph.placeholder, Graph.capture)


def subgraphs(attrs):
    """The (name, graph) pairs held in an op's attrs: branches, loop bodies, tuples of them."""
    found = []
    for k, v in attrs.items():
        if isinstance(v, Graph):
            found.append((k, v))
        elif isinstance(v, (list, tuple)):
            found.extend((f"{k}[{i}]", g) for i, g in enumerate(v) if isinstance(g, Graph))
    return found


def _propagate_static(opdef, op, inputs, attrs):
    """Record trace-time values for small outputs whose inputs are all known (shape maths)."""
    rule = opdef.static
    if rule is not None:
        values = rule(*inputs, **attrs)
        if values is not None:
            for t, v in zip(op.outputs, values if isinstance(values, tuple) else (values,)):
                t.static = np.asarray(v)
        return
    statics = [t.static for t in inputs]
    if not inputs or any(s is None or s.size > STATIC_LIMIT for s in statics) or subgraphs(attrs):
        return
    try:
        with np.errstate(all="ignore"):
            out = opdef.kernel(*statics, **attrs)
    except Exception:  # the op will raise at run time, with the runtime's error
        return
    for t, v in zip(op.outputs, out if type(out) is tuple else (out,)):
        t.static = np.asarray(v)


def _foreign_tensor_error(value, graph):
    return TypeError(
        f"{value} belongs to a different graph than {graph.name}: a symbolic tensor from one "
        "tf.function trace was used in another. Pass it as an argument or return it instead.")


def _user_source(graph, f, user):
    """Where the user made an op (from frame ``f``, whose innermost user frame naming found):
    ``(filename, lineno, code, above, outer)``, the innermost frame outside tensortrace, the
    frames outside tensortrace above it up to the trace's entry (flat ``filename, lineno, code``
    runs, innermost first) and those above the entry (outermost first, one tuple shared by the
    trace's ops): TF's "defined at (most recent call last)" of an op's runtime error
    (``source_stack``). What lies above a running user frame cannot change, so it is walked
    once per such frame."""
    above = None
    if user is not None:
        anchor = _anchor
        cached = graph._source_above
        if cached is not None and cached[0] is user and cached[1] is anchor:
            above = cached[2]
        else:
            above = _above_user(user, anchor)
            if not user.f_code.co_flags & naming.FRESH_FRAMES:
                graph._source_above = (user, anchor, above)
    if above is not None:
        code = user.f_code
        return (code.co_filename, user.f_lineno, code, above[0], above[1])
    inner, outer = _user_frames(f)  # no user frame, or the trace's entry lies under it
    if inner:
        return (inner[0], inner[1], inner[2], tuple(inner[3:]), outer)
    if outer:
        return (outer[-3], outer[-2], None, (), outer)
    return None


def _above_user(user, anchor):
    """The user frames above ``user`` (flat) and the anchor's outer frames, when the trace's
    entry lies above ``user``; else None."""
    if user.f_code.co_filename.startswith(_HIDDEN_FILES):
        return None
    f = user.f_back
    while f is not None and f is not anchor[0]:
        f = f.f_back
    if f is None:
        return None
    frames, outer = _user_frames(user.f_back)
    return tuple(frames), outer


def _user_frames(f):
    """The user frames from ``f`` outwards (flat, innermost first), and the anchor's outer
    frames when the walk reaches a trace's entry (the walk stops there)."""
    frames = []
    users = _USER_CODE
    anchor, outer = _anchor
    while f is not None:
        if f is anchor:
            return frames, outer
        code = f.f_code
        user = users.get(code)
        if user is None:
            if len(users) > 50000:  # bounded: code objects of long-gone conversions go
                users.clear()
            fn = code.co_filename
            user = users[code] = not fn.startswith(_PACKAGE_DIR) and \
                not fn.startswith(_HIDDEN_FILES)
        if user:
            frames += (code.co_filename, f.f_lineno, code)
        f = f.f_back
    return frames, ()


def source_stack(source):
    """An op's definition stack, outermost first, as ``(filename, lineno, code)``; a loaded
    graph's op has its one line (code None)."""
    if len(source) < 5:
        return [(source[0], source[1], None)]
    outer, above = source[4], source[3]
    inner = () if source[2] is None else source[:3] + above
    return [outer[i:i + 3] for i in range(0, len(outer), 3)] + \
        [inner[i:i + 3] for i in range(len(inner) - 3, -1, -3)]


def anchor_stack(frame):
    """Collect the user frames above ``frame`` (a trace's entry) once: ops made below it stop
    their walk there. Returns what ``release_stack`` restores."""
    global _anchor
    previous = _anchor
    inner, outer = _user_frames(frame.f_back)
    triples = [outer[i:i + 3] for i in range(0, len(outer), 3)] + \
        [inner[i:i + 3] for i in range(len(inner) - 3, -1, -3)]
    _anchor = (frame, tuple(x for t in triples for x in t))
    return previous


def release_stack(previous):
    global _anchor
    _anchor = previous


# the trace entry frame and the user frames above it (shared by threads: another thread's
# anchor is never on a walk's path, so it only costs that walk its shortcut)
_anchor = (None, ())
_USER_CODE = {}  # code object -> whether its frames are user code (one test per code object)

# frames that are no user code: generated graphs, and the interpreter's runner of ``-m``
_HIDDEN_FILES = ("<tensortrace", "<frozen runpy>", os.path.dirname(os.__file__) + os.sep + "runpy")
