"""``tf.gradients``, ``tf.hessians`` and ``tf.recompute_grad``: symbolic differentiation of the
graph being traced (TF's graph-mode API), by walking the graph's ops as if a tape had recorded
them."""

import functools

from .. import nest
from .._export import tf_export
from ..context import state
from ..convert import convert_to_tensor
from ..ops.array.creation import zeros, zeros_like
from ..ops.array.joining import stack
from ..ops.array.reshaping import reshape
from ..variables import Variable
from .backprop import backward
from .custom_gradient import markers
from .tape import TapeRecord, UnconnectedGradients, _graph_handle, _source_key, _unconnected


def _graph_records(graph, stop):
    """The graph's ops as tape records, in program order; tf.custom_gradient calls carry their
    own rule (their outputs are reachable only through it), and ops making a ``stop`` tensor
    pass no gradient on."""
    custom = markers(graph)
    pending = {id(t) for _, _, outs in custom.values() for t in outs}
    records = []
    for op in graph.get_operations():
        if op.inputs and not any(id(t) in pending or id(t) in stop for t in op.outputs):
            records.append(TapeRecord(op.opdef, op.inputs, op.attrs, op.outputs))
        entry = custom.get(op.name)
        if entry is not None:
            rule, ins, outs = entry
            records.append(TapeRecord(rule, tuple(ins), {}, tuple(outs)))
    return records


@tf_export("gradients")
def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none"):
    """Symbolic d(sum of ys)/d(x) for each x in ``xs``, inside a tf.function: a list with
    None (or zeros, with ``unconnected_gradients="zero"``) where x does not reach ys.

    Raises:
        RuntimeError: when called eagerly (as in TF: use tf.GradientTape).
    """
    graph = state.graph
    if graph is None:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    unconnected = _unconnected(unconnected_gradients)
    flat_ys = [_graph_handle(y) if isinstance(y, Variable) else convert_to_tensor(y)
               for y in nest.flatten(ys)]
    flat_xs = nest.flatten(xs)
    keys = [_source_key(x) for x in flat_xs]
    seeds = None
    if grad_ys is not None:
        given = nest.flatten(grad_ys)
        if len(given) != len(flat_ys):
            raise ValueError(f"Passed {len(given)} grad_ys for {len(flat_ys)} ys")
        seeds = [None if g is None else convert_to_tensor(g, dtype=y.dtype)
                 for g, y in zip(given, flat_ys)]
    stop = {id(_source_key(t)) for t in nest.flatten(stop_gradients or [])}
    grads = backward(_graph_records(graph, stop), flat_ys, keys, seeds, slices=True)
    out = []
    for x, g in zip(flat_xs, grads):
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = zeros_like(x.value() if isinstance(x, Variable) else x)
        out.append(g)
    return out


@tf_export("hessians")
def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Second derivatives of ``sum(ys)`` for each x in ``xs``: one ``x.shape + x.shape``
    tensor per x (x's size must be known)."""
    out = []
    for x in nest.flatten(xs):
        (grad,) = gradients(ys, [x])
        n = x.shape.num_elements()
        if grad is None or n is None:
            out.append(None if grad is None else _unknown_size(x))
            continue
        flat = reshape(grad, [-1])
        rows = [gradients(flat[i], [x], unconnected_gradients="zero")[0] for i in range(n)]
        shape = x.shape.concatenate(x.shape).as_list()
        out.append(reshape(stack(rows), shape) if rows
                   else zeros(shape, x.dtype))
    return out


def _unknown_size(x):
    raise ValueError(f"tf.hessians needs an input of known size, got shape {x.shape}")


@tf_export("recompute_grad")
def recompute_grad(f):
    """``f`` unchanged: its gradient is the same whether or not activations are recomputed
    (memory is not a concern on this backend)."""

    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)

    return inner
