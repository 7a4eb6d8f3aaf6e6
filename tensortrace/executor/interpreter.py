"""The reference executor: walk a graph's ops in order with an environment of values.

It is the oracle the compiled code is tested against, and (through ``inline``) the way a
graph is replayed into another graph being traced.
"""

from ..context import bind, record
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


def inline(graph, inputs, captures, env=None):
    """Replay ``graph`` into the current context (eager, or another graph being traced).

    Under a tape, the ``tf.custom_gradient`` calls traced into ``graph`` are recorded with their
    custom gradients (not as the Identity ops that mark them in the graph).

    Args:
        inputs: tensors standing for ``graph.inputs``.
        captures: tensors standing for the capture placeholders.
        env: optional dict filled with id(graph tensor) -> its replayed tensor.

    Returns:
        The tensors standing for ``graph.outputs``.
    """
    from ..context import state
    from ..convert import constant

    env = {} if env is None else env
    custom = {}
    if state.tapes:
        from ..autodiff.custom_gradient import markers

        custom = markers(graph)
    pending = {id(t) for _, _, outs in custom.values() for t in outs}
    for ph, t in zip(list(graph.inputs) + [ph for _, ph in graph.captures],
                     list(inputs) + list(captures)):
        env[id(ph)] = t
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            env[id(op.outputs[0])] = constant(op.attrs["value"])
            continue
        args = [env[id(t)] for t in op.inputs]
        if pending and id(op.outputs[0]) in pending:  # recorded below, with its own gradient
            tapes, state.tapes = state.tapes, ()
            try:
                out = bind(get_op(op.type), *args, **op.attrs)
            finally:
                state.tapes = tapes
        else:
            out = bind(get_op(op.type), *args, **op.attrs)
        for t, v in zip(op.outputs, out if type(out) is tuple else (out,)):
            env[id(t)] = v
        entry = custom.get(op.name) if custom else None
        if entry is not None:
            opdef, ins, outs = entry
            record(opdef, [env.get(id(t), t) for t in ins], {},
                             tuple(env[id(t)] for t in outs))
    return [env[id(t)] for t in graph.outputs]
