"""The reference executor: walk a graph's ops in order with an environment of values.

It is the oracle the compiled code is tested against.
"""

from ..registry import get as get_op


def run(graph, feeds):
    """Run ``graph`` on ``feeds`` (values for ``graph.inputs`` then capture placeholders).

    Returns:
        The list of output values (NumPy arrays/scalars; Variables for resource outputs).
    """
    env = {}
    placeholders = list(graph.inputs) + [ph for _, ph in graph.captures]
    for ph, value in zip(placeholders, feeds):
        env[id(ph)] = value
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            env[id(op.outputs[0])] = op.attrs["value"]
            continue
        out = get_op(op.type).kernel(*[env[id(t)] for t in op.inputs], **op.attrs)
        if type(out) is not tuple:
            out = (out,)
        for t, v in zip(op.outputs, out):
            env[id(t)] = v
    return [env[id(t)] for t in graph.outputs]
