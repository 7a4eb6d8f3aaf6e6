"""Graphs to JSON and back: ops with their inputs, attrs and output specs; sub-graphs nested.

Loading rebuilds a graph op by op through the registry (op types by name), with the saved output
specs; ``verify`` then re-runs every op's ``infer`` against them. Nothing is executed.
"""

import contextlib

import numpy as np

from ..graph import ir
from ..ops.random.seeds import _STREAM_IDS
from ..registry import all_ops
from ..tensor import EagerTensor, TensorSpec
from ..variables import ResourceHandle
from .format import FormatError, UnsaveableError, decode, decode_dtype, decode_shape, encode, expect

# Ops whose attrs hold Python objects: named in the error so users know which call to replace.
PYTHON_OPS = {
    "EagerPyFunc": "tf.py_function/tf.numpy_function calls a Python callable",
    "PythonDataset": "a tf.data pipeline is a Python object",
}


def python_op_error(op, where):
    """The error saving an op that calls Python (``op.type`` in PYTHON_OPS) raises."""
    return UnsaveableError(
        f"Cannot save {where}: op '{op.name}' ({op.type}) cannot be saved because "
        f"{PYTHON_OPS[op.type]}, and a SavedModel stores no Python code.")


class GraphWriter:
    """Encodes graphs at save time; ``variable(v)``/``constant(t)`` give table indices."""

    def __init__(self, arrays, variable, constant):
        self.arrays = arrays
        self.variable = variable
        self.constant = constant

    def encode(self, graph, where, holder=None):
        """The JSON form of ``graph`` (a sub-graph of the op ``holder``); ``where`` names the
        function for error messages.

        Raises:
            UnsaveableError: naming the op and function when an op cannot be saved.
        """
        ops = [self._op(op, where) for op in graph.get_operations()]
        n = len(graph.captures)
        doc = {
            "name": graph.name,
            "ops": ops,
            "inputs": [t.name for t in graph.inputs],
            "outputs": [t.name for t in graph.outputs],
            "captures": [[self._outer(value, graph, where, holder, i - n), ph.name]
                         for i, (value, ph) in enumerate(graph.captures)],
        }
        try:
            doc["structured_outputs"] = encode(graph.structured_outputs, self.arrays,
                                               lambda x: _tensor_ref(x, graph))
        except UnsaveableError as e:
            if getattr(graph, "is_function_graph", False):
                raise UnsaveableError(f"Cannot save {where}: its outputs hold {e}, which is not "
                                      "a tensor or a plain Python value.") from None
            # a branch or body returned Python objects (TensorArrays ...): only the flat outputs
            # are needed to run it
        return doc

    def _op(self, op, where):
        if op.type in PYTHON_OPS:
            raise python_op_error(op, where)
        attrs = {}
        for key, value in op.attrs.items():
            try:
                attrs[key] = encode(value, self.arrays, lambda x: self._attr_leaf(x, op, where))
            except UnsaveableError as e:
                if str(e).startswith("Cannot save"):
                    raise
                raise UnsaveableError(
                    f"Cannot save {where}: attr '{key}' of op '{op.name}' ({op.type}) holds {e}, "
                    "which has no saved form.") from None
        doc = {"name": op.name, "type": op.type, "inputs": [t.name for t in op.inputs],
               "attrs": attrs, "outputs": [_spec(t) for t in op.outputs]}
        if op.multi != (len(op.outputs) != 1):
            doc["multi"] = op.multi
        if op.control_inputs:
            doc["control_inputs"] = [c.name for c in op.control_inputs]
        if op.source:
            doc["source"] = [str(op.source[0]), int(op.source[1])]
        return doc

    def _attr_leaf(self, x, op, where):
        if isinstance(x, ir.Graph):
            return {"graph": self.encode(x, where, holder=op)}
        return None

    def _outer(self, value, graph, where, holder, position):
        """What a capture stands for: a variable, a constant, or a tensor of the enclosing graph
        (control-flow ops feed their sub-graphs' captures as their trailing inputs)."""
        if isinstance(value, ResourceHandle):
            return {"variable": self.variable(value._value)}
        if isinstance(value, EagerTensor):
            return {"constant": self.constant(value)}
        if isinstance(value, ir.SymbolicTensor) and holder is None and value.graph is graph.outer \
                and not getattr(graph, "is_function_graph", False):
            return {"outer": value.name}  # a custom gradient's graph reading forward tensors
        if isinstance(value, ir.SymbolicTensor) and holder is not None:
            if value.graph is holder.graph:
                return {"outer": value.name}
            # a sub-graph reused by inlining still names the graph it was traced in: the
            # tensor that feeds the capture is the holder's input at the same position
            fed = holder.inputs[position] if len(holder.inputs) >= -position else None
            if fed is not None and fed.dtype == value.dtype:
                return {"outer": fed.name}
        raise UnsaveableError(f"Cannot save {where}: graph {graph.name!r} captures {value!r}, "
                              "which is neither a variable nor a constant.")


def _spec(t):
    shape = t.shape
    return {"dtype": t.dtype.name, "shape": None if shape.rank is None else shape.dims}


def _tensor_ref(x, graph):
    if isinstance(x, ir.SymbolicTensor) and x.graph is graph:
        return {"tensor": x.name}
    return None


class GraphReader:
    """Rebuilds graphs at load time; ``variables``/``constants`` are the loaded tables."""

    def __init__(self, arrays, variables, constants):
        self.arrays = arrays
        self.variables = variables
        self.constants = constants
        self._ops = all_ops()

    def decode(self, doc, where, graph_class, outer=None, outer_tensors=None):
        """A graph of ``graph_class`` rebuilt from ``doc`` (not yet verified).

        Raises:
            FormatError: naming ``where`` and the op when ``doc`` is malformed.
        """
        doc = expect(doc, dict, "graph")
        name = expect(doc.get("name"), str, "graph name")
        if graph_class is ir.Graph:
            graph = ir.Graph(name, outer=outer)
        else:
            graph = graph_class(name, outer=outer, allow_variable_creation=False)
        tensors, ops = {}, {}
        for op_doc in expect(doc.get("ops"), list, "ops"):
            op = self._op(graph, expect(op_doc, dict, "op"), tensors, ops, where)
            ops[op.name] = op
            for t in op.outputs:
                tensors[t.name] = t
        graph.inputs = [_lookup(tensors, n, f"{where}: graph input")
                        for n in expect(doc.get("inputs"), list, "inputs")]
        graph.outputs = [_lookup(tensors, n, f"{where}: graph output")
                         for n in expect(doc.get("outputs"), list, "outputs")]
        for pair in expect(doc.get("captures"), list, "captures"):
            outer_doc, ph_name = expect(pair, list, "capture")
            value = self._outer(outer_doc, outer_tensors, where)
            ph = _lookup(tensors, ph_name, f"{where}: capture placeholder")
            graph.captures.append((value, ph))
            graph._capture_index[id(value)] = ph
            graph._capture_index[id(ph)] = ph
        if "structured_outputs" in doc:
            graph.structured_outputs = decode(
                doc["structured_outputs"], self.arrays,
                lambda kind, ref: _lookup(tensors, ref, f"{where}: output") if kind == "tensor"
                else None)
        else:
            graph.structured_outputs = list(graph.outputs)
        return graph

    def _op(self, graph, doc, tensors, ops, where):
        op_name = expect(doc.get("name"), str, "op name")
        op_type = expect(doc.get("type"), str, f"type of op {op_name!r}")
        opdef = self._ops.get(op_type)
        if opdef is None:
            raise FormatError(f"{where}: op {op_name!r} has type {op_type!r}, which is not a "
                              "registered op")
        context = f"{where}: op {op_name!r} ({op_type})"
        inputs = [_lookup(tensors, n, f"{context}: input")
                  for n in expect(doc.get("inputs"), list, f"{context}: inputs")]
        attrs = {}
        for key, value in expect(doc.get("attrs"), dict, f"{context}: attrs").items():
            try:
                attrs[key] = decode(value, self.arrays,
                                    lambda kind, payload: self._attr_leaf(
                                        kind, payload, where, graph, tensors))
            except FormatError as e:
                raise FormatError(f"{context}: attr {key!r}: {e}") from None
        if type(attrs.get("_stream")) is int and attrs["_stream"] > 0:
            # a graph op owns a random stream: a fresh one, as a freshly loaded TF kernel starts
            attrs["_stream"] = next(_STREAM_IDS)
        specs = [_decode_spec(s, context) for s in expect(doc.get("outputs"), list, context)]
        if op_name in ops:
            raise FormatError(f"{where}: two ops are named {op_name!r}")
        op = graph.add_op(op_type, inputs, attrs, specs, name=op_name)
        op.name = op_name  # as saved (names unique before TF's case-insensitive rule load too)
        op.multi = expect(doc.get("multi", len(specs) != 1), bool, f"{context}: multi")
        op.source = _source(doc.get("source"), context)
        op.control_inputs = tuple(_lookup(ops, n, f"{context}: control input")
                                  for n in expect(doc.get("control_inputs", []), list, context))
        if op_type == "Const":
            op.outputs[0].static = np.asarray(attrs.get("value"))
        elif not opdef.stateful and op_type != "Placeholder":
            with contextlib.suppress(Exception):  # trace-time values are an optimization only
                ir._propagate_static(opdef, op, inputs, attrs)
        return op

    def _attr_leaf(self, kind, payload, where, graph, tensors):
        if kind == "graph":
            return self.decode(payload, where, ir.Graph, outer=graph, outer_tensors=tensors)
        return None

    def _outer(self, doc, outer_tensors, where):
        doc = expect(doc, dict, f"{where}: capture")
        if len(doc) != 1:
            raise FormatError(f"{where}: malformed capture {doc!r}")
        (kind, ref), = doc.items()
        if kind == "variable":
            return _index(self.variables, ref, f"{where}: captured variable").handle
        if kind == "constant":
            return _index(self.constants, ref, f"{where}: captured constant")
        if kind == "outer" and outer_tensors is not None:
            return _lookup(outer_tensors, ref, f"{where}: captured outer tensor")
        raise FormatError(f"{where}: unknown capture kind {kind!r}")


def _decode_spec(doc, context):
    doc = expect(doc, dict, f"{context}: output spec")
    return TensorSpec(decode_shape(doc.get("shape")), decode_dtype(doc.get("dtype")))


def _source(doc, context):
    if doc is None:
        return None
    doc = expect(doc, list, f"{context}: source")
    if len(doc) != 2 or type(doc[0]) is not str or type(doc[1]) is not int:
        raise FormatError(f"{context}: malformed source {doc!r}")
    return (doc[0], doc[1])


def _lookup(table, name, what):
    if not isinstance(name, str) or name not in table:
        raise FormatError(f"{what} {name!r} is not defined before it is used")
    return table[name]


def _index(table, i, what):
    if type(i) is not int or not 0 <= i < len(table):
        raise FormatError(f"{what} #{i!r} does not exist")
    return table[i]


def op_types(doc, found):
    """Collect every op type named in a graph document (sub-graphs included) into ``found``."""
    if not isinstance(doc, dict):
        return found
    for op in doc.get("ops") or ():
        if isinstance(op, dict):
            found.add(op.get("type"))
            for value in (op.get("attrs") or {}).values():
                _graph_types(value, found)
    return found


def _graph_types(value, found):
    if isinstance(value, dict):
        if "graph" in value and len(value) == 1:
            op_types(value["graph"], found)
        else:
            for v in value.values():
                _graph_types(v, found)
    elif isinstance(value, list):
        for v in value:
            _graph_types(v, found)

