"""The one graph-copying helper passes share: rebuild a graph op by op, optionally replacing ops.

Passes never mutate their input graph; they describe edits and ``rebuild`` makes the new graph.
"""

from operator import is_

from ..graph.ir import Graph, Operation, SymbolicTensor


def empty_like(graph):
    """A graph with ``graph``'s inputs, captures and names but no ops yet."""
    new = Graph.__new__(type(graph))
    new.__dict__.update(graph.__dict__)
    new._ops = []
    new._names = dict(graph._names)
    return new


def copy_op(new, op, inputs, control_inputs=None):
    """``op`` in graph ``new`` reading ``inputs`` (after ``control_inputs``, default op's): the op
    itself if neither changed."""
    control = op.control_inputs if control_inputs is None else tuple(control_inputs)
    if all(map(is_, inputs, op.inputs)) and all(map(is_, control, op.control_inputs)):
        new._ops.append(op)
        return op.outputs
    copy = Operation.__new__(Operation)
    copy.graph, copy.name, copy.type = new, op.name, op.type
    copy.inputs, copy.attrs = tuple(inputs), op.attrs
    copy.control_inputs, copy.source, copy.multi = control, op.source, op.multi
    copy.outputs = tuple(SymbolicTensor(copy, i, t.spec) for i, t in enumerate(op.outputs))
    for t, c in zip(op.outputs, copy.outputs):
        c.static = t.static
    new._ops.append(copy)
    return copy.outputs


def rebuild(graph, keep=None, replace=None):
    """A new graph with the ops ``keep(op)`` accepts; ``replace(op, inputs, new)`` may return the
    output tensors to use instead of a copy of ``op`` (or None to copy it).

    Placeholders (inputs and captures) are always kept, so a graph's feeds never change.
    """
    new = empty_like(graph)
    env, ops = {}, {}  # old tensor -> new tensor; old op -> new op (control inputs follow it)
    for op in graph.get_operations():
        placeholder = op.type == "Placeholder"
        if not placeholder and keep is not None and not keep(op):
            continue
        inputs = [env.get(id(t), t) for t in op.inputs]
        outs = None if placeholder or replace is None else replace(op, inputs, new)
        if outs is None:
            control = [ops.get(id(c), c) for c in op.control_inputs] \
                if op.control_inputs else None
            outs = copy_op(new, op, inputs, control)
            ops[id(op)] = new._ops[-1]
        elif outs and getattr(outs[0], "op", None) is not None:
            ops[id(op)] = outs[0].op
        for t, r in zip(op.outputs, outs):
            env[id(t)] = r
    new.outputs = [env.get(id(t), t) for t in graph.outputs]
    return new
