"""The one graph-copying helper passes share: rebuild a graph op by op, optionally replacing ops.

Passes never mutate their input graph; they describe edits and ``rebuild`` makes the new graph.
"""

from ..graph.ir import Graph, Operation


def rebuild(graph, keep=None, replace=None):
    """A new graph with the ops ``keep(op)`` accepts; ``replace(op, inputs)`` may return new
    output tensors (in the new graph) instead of copying the op.

    Placeholders (inputs and captures) are always kept, so a graph's feeds never change.
    """
    new = Graph.__new__(type(graph))
    new.__dict__.update(graph.__dict__)
    new._ops = []
    env = {}
    for op in graph.get_operations():
        if op.type != "Placeholder" and keep is not None and not keep(op):
            continue
        inputs = [env.get(id(t), t) for t in op.inputs]
        if replace is not None:
            outs = replace(op, inputs, new)
            if outs is not None:
                for t, r in zip(op.outputs, outs):
                    env[id(t)] = r
                continue
        if op.type == "Placeholder" or all(a is b for a, b in zip(inputs, op.inputs)):
            new._ops.append(op)
            continue
        copy = Operation.__new__(Operation)
        copy.graph, copy.name, copy.type = new, op.name, op.type
        copy.inputs, copy.attrs, copy.control_inputs, copy.source = tuple(inputs), op.attrs, \
            op.control_inputs, op.source
        from ..graph.ir import SymbolicTensor

        copy.outputs = tuple(SymbolicTensor(copy, i, t.spec) for i, t in enumerate(op.outputs))
        for t, c in zip(op.outputs, copy.outputs):
            c.static = t.static
            env[id(t)] = c
        new._ops.append(copy)
    new.outputs = [env.get(id(t), t) for t in graph.outputs]
    return new
