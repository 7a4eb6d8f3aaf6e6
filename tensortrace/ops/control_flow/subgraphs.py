"""Tracing branches and loop bodies into sub-graphs: their inputs and outputs (TensorArrays pass
as their flow tensors), captures shared by all the sub-graphs of one op, and the checks TF makes
of what they return."""

import itertools

from ... import dtypes as D
from ... import errors, nest
from ...context import state
from ...convert import convert_to_tensor
from ...graph.ir import Graph, Operation
from ...registry import get as get_op
from ...tensor import Tensor
from ..array.passthrough import identity
from ..tensor_array.tensor_arrays import TensorArray, flow_of, from_flow

_uid = itertools.count(1)


def is_tensor_array(x):
    return isinstance(x, TensorArray)


def _output_tensor(graph, x, fn):
    """A branch or body result leaf as a tensor of ``graph``: TensorArrays give their flow,
    variables their value, Python values a constant, outer tensors a capture."""
    if is_tensor_array(x):
        x = flow_of(x)
    elif not isinstance(x, Tensor):
        try:
            x = convert_to_tensor(x)
        except (TypeError, ValueError):
            raise TypeError(
                "To be compatible with tf.function, Python functions must return zero or more "
                f"Tensors or ExtensionTypes or None values; in compilation of {fn}, found "
                f"return value of type {type(x).__name__}, which is not a Tensor or "
                "ExtensionType.") from None
    if getattr(x, "graph", None) is not graph:
        x = graph.capture(x)
    return x


class Traced:
    """One traced branch or body: its graph, the returned structure and its leaves (the graph's
    outputs are the leaves' tensors)."""

    def __init__(self, graph, result, leaves, tensors):
        self.graph, self.result, self.leaves = graph, result, leaves
        graph.outputs, graph.structured_outputs = tensors, result

    def shown(self):
        """The result with tensors in place of Python values (for error messages)."""
        it = iter(self.graph.outputs)
        flat = [None if leaf is None else next(it) for leaf in self.leaves]
        return nest.pack_sequence_as(self.result, flat, expand_composites=True)


def trace(kind, fn, args=(), specs=None, templates=None, structure=None, allow_none=True,
          op_value=None):
    """Trace ``fn(*args)`` into a new sub-graph; ``specs`` make placeholders standing for the
    flat loop variables, repacked like ``structure`` (TensorArrays rebuilt from ``templates``).
    A returned Operation stands for ``op_value`` run after it (TF's cond/switch_case: a
    branch returning ``tf.no_op()`` yields the predicate or index)."""
    graph = Graph(f"{kind}_{next(_uid)}", outer=state.graph)
    with graph.as_default():
        if specs is not None:
            graph.inputs = [graph.placeholder(s, "loop_var") for s in specs]
            args = pack(structure, templates, graph.inputs)
        result = fn(*args)
        if specs is not None and kind == "while_body" and not nest.is_nested(result):
            result = [result]
        leaves = nest.flatten(result, expand_composites=True)  # composites give components
        if op_value is not None and any(isinstance(x, Operation) for x in leaves):
            leaves = [_op_result(graph, x, op_value) if isinstance(x, Operation) else x
                      for x in leaves]
            result = nest.pack_sequence_as(result, leaves, expand_composites=True)
        tensors = []
        for leaf in leaves:
            if leaf is None:
                if not allow_none:
                    raise ValueError("None values not supported.")
                continue
            tensors.append(_output_tensor(graph, leaf, fn))
    return Traced(graph, result, leaves, tensors)


def _op_result(graph, op, value):
    """``value`` read after ``op`` ran (the branch function has returned, so no other control
    dependencies are open in its graph)."""
    if getattr(value, "graph", None) is not graph:
        value = graph.capture(value)  # before the block: a capture takes no control inputs
    with graph.control_dependencies([op]):
        return identity(value)


def pack(structure, leaves, tensors):
    """``structure`` with its leaves (composites' components) replaced by ``tensors``
    (TensorArrays rebuilt around them, None kept, composites rebuilt from their components)."""
    it = iter(tensors)
    flat = [None if leaf is None else
            from_flow(leaf, next(it)) if is_tensor_array(leaf) else next(it)
            for leaf in leaves]
    return nest.pack_sequence_as(structure, flat, expand_composites=True)


def unify_captures(graphs):
    """Give every sub-graph the same captures, in one order; returns the outer values."""
    values, seen = [], set()
    for g in graphs:
        for value, _ in g.captures:
            if id(value) not in seen:
                seen.add(id(value))
                values.append(value)
    position = {id(v): i for i, v in enumerate(values)}
    for g in graphs:
        have = {id(v) for v, _ in g.captures}
        for value in values:
            if id(value) not in have:
                g.capture(value)
        g.captures.sort(key=lambda c: position[id(c[0])])
    return values


def any_stateful(graphs):
    """True if a sub-graph holds a stateful op (its If/Case/While is then the stateful one)."""
    return any(get_op(op.type).stateful for g in graphs for op in g.get_operations())


def bool_pred(pred, input_name, node):
    """``pred`` when it is a bool tensor; else TF's error naming the NodeDef being built."""
    if pred.dtype != D.bool:
        raise errors.InvalidArgumentError(
            None, None, f"Input '{input_name}' passed {pred.dtype.name} expected bool while "
            f"building NodeDef '{node}'")
    return pred
