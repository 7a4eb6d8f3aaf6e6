"""Replay a graph into the current context (eager, or another graph being traced), op by op
through ``bind``, so the active tapes record it; the ``tf.custom_gradient`` calls traced into
the graph are recorded with their own gradients, not as the Identity ops that mark them.

    outputs, env = replay(concrete.graph, inputs + captures)

Calls of a function inside another trace, backward graphs of function calls and control-flow
gradients all replay graphs this way.
"""

from ..context import bind, record, state
from ..convert import constant
from ..registry import get as get_op
from .custom_gradient import markers


def replay(graph, feeds, env=None, skip_effects=False):
    """Bind ``graph``'s ops with its feeds (inputs, then capture placeholders) replaced by
    ``feeds``.

    Args:
        env: optional dict filled with id(graph tensor) -> its replayed tensor.
        skip_effects: drop ops run only for their effects (prints, asserts, assignments).

    Returns:
        ``(outputs, env)``: the tensors standing for ``graph.outputs``, and the map above.
    """
    env = {} if env is None else env
    custom = markers(graph) if state.tapes else {}
    pending = {id(t) for _, _, outs in custom.values() for t in outs}
    for ph, t in zip(list(graph.inputs) + [ph for _, ph in graph.captures], feeds):
        env[id(ph)] = t
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            env[id(op.outputs[0])] = constant(op.attrs["value"])
            continue
        opdef = get_op(op.type)
        if skip_effects and not op.outputs and opdef.stateful:
            continue
        args = [env[id(t)] for t in op.inputs]
        if op.outputs and id(op.outputs[0]) in pending:  # recorded below, with its own rule
            tapes, state.tapes = state.tapes, ()
            try:
                out = bind(opdef, *args, **op.attrs)
            finally:
                state.tapes = tapes
        else:
            target = state.graph
            made = len(target._ops) if target is not None and op.source else None
            out = bind(opdef, *args, **op.attrs)
            if made is not None:  # an inlined op keeps where the user defined it (TF's stack)
                for new in target._ops[made:]:
                    new.source = op.source
        for t, v in zip(op.outputs, out if type(out) is tuple else (out,)):
            env[id(t)] = v
            if state.graph is not None and v.shape != t.shape and t.shape.rank is not None \
                    and v.shape.is_compatible_with(t.shape):
                # the graph's shapes (set_shape's too) hold for every call of it, as TF's call
                # op keeps its function body's shapes
                v.set_shape(t.shape)
        entry = custom.get(op.name) if custom else None
        if entry is not None:
            rule, ins, outs = entry
            record(rule, [env.get(id(t), t) for t in ins], {}, tuple(env[id(t)] for t in outs))
    return [env[id(t)] for t in graph.outputs], env
