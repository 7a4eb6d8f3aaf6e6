"""The backward walk: visit tape records in reverse, call each op's ``grad`` rule (written with
public ops, so it runs eagerly, while tracing, and under outer tapes for higher orders) and sum
the gradients flowing into each tensor."""

from ..registry import NON_DIFFERENTIABLE


def _differentiable(t):
    d = t.dtype
    return d.is_floating or d.is_complex or d.name == "resource"


def _add(a, b):
    from ..ops.math import add

    return add(a, b)


def backward(records, targets, sources, output_gradients=None):
    """Gradients of ``targets`` with respect to ``sources`` (None where unconnected).

    Raises:
        LookupError: when an op on the path from sources to targets has no gradient rule.
    """
    from ..ops import array as array_ops

    grads = {}
    keep = []  # tensors whose ids key ``grads`` stay alive until the walk ends

    def accumulate(t, g):
        key = id(t)
        keep.append(t)
        grads[key] = g if key not in grads else _add(grads[key], g)

    for i, t in enumerate(targets):
        if not _differentiable(t):
            continue
        g = output_gradients[i] if output_gradients is not None else array_ops.ones_like(t)
        accumulate(t, g)
    needed = _needed(records, sources)
    for record in reversed(records):
        if id(record) not in needed:
            continue
        dys = [grads.get(id(o)) for o in record.outputs]
        if all(d is None for d in dys):
            continue
        rule = record.opdef.grad
        if rule is NON_DIFFERENTIABLE:
            continue
        if rule is None:
            raise LookupError(f"gradient registry has no entry for: {record.opdef.name}")
        dys = [d if d is not None else array_ops.zeros_like(o)
               for d, o in zip(dys, record.outputs)]
        dxs = rule(record, *dys)
        if not isinstance(dxs, (tuple, list)):
            dxs = (dxs,)
        for x, dx in zip(record.inputs, dxs):
            if dx is not None and _differentiable(x):
                accumulate(x, dx)
    return [grads.get(id(s)) for s in sources]


def _needed(records, sources):
    """Ids of the records that lie downstream of a source (the others cannot matter)."""
    reached = {id(s) for s in sources}
    needed = set()
    for record in records:
        if any(id(x) in reached for x in record.inputs):
            needed.add(id(record))
            reached.update(id(o) for o in record.outputs)
    return needed


def jacobian(tape, target, sources, unconnected_gradients):
    """Row by row: one backward pass per element of ``target``."""
    from .. import nest
    from ..ops import array as array_ops
    from ..tensor import Tensor
    from ..variables import Variable

    persistent = tape._persistent
    tape._persistent = True
    try:
        n = target.shape.num_elements()
        flat_sources = nest.flatten(sources)
        rows = [[] for _ in flat_sources]
        for i in range(n):
            seed = array_ops.reshape(array_ops.one_hot(i, n, dtype=target.dtype), target.shape)
            tape._used = False
            grads = nest.flatten(tape.gradient(target, flat_sources, output_gradients=[seed],
                                               unconnected_gradients=unconnected_gradients))
            for row, g in zip(rows, grads):
                row.append(g)
        out = []
        for src, row in zip(flat_sources, rows):
            value = src.value() if isinstance(src, Variable) else src
            if any(g is None for g in row):
                out.append(None)
                continue
            stacked = array_ops.stack(row) if row else array_ops.zeros(
                [0] + value.shape.as_list(), dtype=value.dtype)
            out.append(array_ops.reshape(stacked, target.shape.concatenate(value.shape)))
        assert all(isinstance(o, Tensor) or o is None for o in out)
        return nest.pack_sequence_as(sources, out)
    finally:
        tape._persistent = persistent
        tape._used = not persistent


def batch_jacobian(tape, target, source, unconnected_gradients):
    """Jacobian of each example's target row w.r.t. the same example's source row."""
    from ..ops import array as array_ops
    from ..ops.reduce import reduce_sum  # noqa: F401  (keeps the dependency explicit)

    persistent = tape._persistent
    tape._persistent = True
    try:
        batch = target.shape[0]
        inner = target.shape[1:]
        m = inner.num_elements()
        flat_target_shape = [batch, m]
        columns = []
        for j in range(m):
            seed = array_ops.reshape(
                array_ops.one_hot(array_ops.fill([batch], j), m, dtype=target.dtype),
                target.shape)
            tape._used = False
            g = tape.gradient(target, source, output_gradients=[seed],
                              unconnected_gradients=unconnected_gradients)
            if g is None:
                return None
            columns.append(g)
        stacked = array_ops.stack(columns, axis=1)
        del flat_target_shape
        return array_ops.reshape(stacked, target.shape.concatenate(source.shape[1:]))
    finally:
        tape._persistent = persistent
        tape._used = not persistent
