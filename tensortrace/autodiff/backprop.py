"""The backward walk: visit tape records in reverse, call each op's ``grad`` rule (written with
public ops, so it runs eagerly, while tracing, and under outer tapes for higher orders) and sum
the gradients flowing into each tensor. A gather's gradient is an IndexedSlices, as in TF: rules
that only pass it on (Identity, variable reads) keep it, every other rule gets it densified."""

import numpy as np

from .. import dtypes, nest
from ..context import state
from ..ops.array.broadcasting import broadcast_to
from ..ops.array.creation import eye as tf_eye
from ..ops.array.creation import ones, ones_like, zeros, zeros_like
from ..ops.array.joining import concat, stack, unstack
from ..ops.array.ranges import one_hot
from ..ops.array.reshaping import reshape
from ..ops.array.shapes import shape as tf_shape
from ..ops.array.shapes import size
from ..ops.control_flow.loops import while_loop
from ..ops.math.clip import add_n
from ..ops.tensor_array.list_math import add_lists
from ..ops.tensor_array.tensor_arrays import TensorArray
from ..registry import NON_DIFFERENTIABLE
from ..ops.sparse.indexed_slices import IndexedSlices


def differentiable(t):
    """Gradients flow into float, complex, resource (variable) and variant (TensorList) tensors
    only, as in TF."""
    kind = getattr(getattr(t, "_value", None), "dtype", None)
    if not isinstance(kind, np.dtype):  # not an eager array (a variable handle, a graph tensor)
        d = t.dtype
        return d.is_floating or d.is_complex or d.name in ("resource", "variant")
    return kind.kind in "fc" or kind == _BFLOAT16


def _bfloat16():
    return dtypes.bfloat16._np if dtypes.bfloat16 else None


_BFLOAT16 = _bfloat16()


#: Ops whose gradient rule passes an IndexedSlices on unchanged (TF's _IdGrad, _ReadGrad).
_PASS_SLICES = frozenset(("Identity", "ReadVariableOp"))


def densify(g):
    """A gradient as a dense tensor (an IndexedSlices summed into its dense shape)."""
    return g._as_graph_or_eager_tensor() if isinstance(g, IndexedSlices) else g


def _sum(grads):
    if len(grads) == 1:
        return grads[0]
    if any(isinstance(g, IndexedSlices) for g in grads):
        if all(isinstance(g, IndexedSlices) for g in grads):  # TF keeps them sparse
            return IndexedSlices(concat([g.values for g in grads], 0),
                                 concat([g.indices for g in grads], 0), grads[0].dense_shape)
        grads = [densify(g) for g in grads]
    if grads[0].dtype.name == "variant":  # TensorList gradients add element by element
        return add_lists(grads)
    return add_n(grads)


def backward(records, targets, sources, output_gradients=None, watched=None, slices=False):
    """Gradients of ``targets`` with respect to ``sources`` (None where unconnected).

    Args:
        records: the tape's records, in program order.
        targets, sources: flat lists of tensors (a variable is given by its handle).
        output_gradients: a flat list (one per target, None meaning ones), or None.
        watched: ids of the tensors the tape watches (None: all); as in TF, gradients reach
            only watched sources through ops (a source that is a target still gets its seed).

    Raises:
        LookupError: when an op on the path from sources to targets has no gradient rule.
    """
    pending = {}  # id(tensor) -> gradients not yet summed
    keep = []  # tensors whose ids key ``pending`` stay alive until the walk ends
    slices_from = {}  # id(tensor) -> the records its IndexedSlices gradients came from
    tf_rank = []  # TF's processing order of the records, worked out when first needed

    def accumulate(t, g, record=None):
        key = id(t)
        got = pending.get(key)
        if got is None:
            pending[key] = [g]
            keep.append(t)
        else:
            got.append(g)
        if isinstance(g, IndexedSlices):
            slices_from.setdefault(key, []).append(record)

    def total(t):
        got = pending.get(id(t))
        if got is None:
            return None
        if len(got) > 1:
            origins = slices_from.get(id(t))
            if origins is not None and len(origins) == len(got):
                # IndexedSlices concatenate in the order TF's tape meets their consumers
                if not tf_rank:
                    tf_rank.append(_tf_order(records, needed))
                rank = tf_rank[0]
                got[:] = [g for _, g in sorted(zip(origins, got), key=lambda p: rank.get(
                    id(p[0]), -1))]
            got[:] = [_sum(got)]
        return got[0]

    source_ids = {id(s) for s in sources}
    for i, t in enumerate(targets):
        if not differentiable(t) and id(t) not in source_ids:  # d(t)/d(t) is ones, any dtype
            continue
        g = output_gradients[i] if output_gradients is not None else None
        accumulate(t, _ones(t) if g is None else g)
    needed, reached = _needed(records, sources if watched is None else
                              [s for s in sources if id(s) in watched])
    for record in reversed(records):
        if id(record) not in needed:
            continue
        dys = [total(o) for o in record.outputs]
        if all(d is None for d in dys):
            continue
        rule = record.opdef.grad
        if rule is NON_DIFFERENTIABLE:
            continue
        if rule is None:
            raise LookupError(f"gradient registry has no entry for: {record.opdef.name}")
        dys = [d if d is not None or o.dtype.name == "variant" else zeros_like(o)
               for d, o in zip(dys, record.outputs)]  # a list's missing gradient stays None
        if slices_from and record.opdef.name not in _PASS_SLICES:
            dys = [densify(d) for d in dys]
        record.skip_input_indices = tuple(
            i for i, x in enumerate(record.inputs)
            if id(x) not in reached or not differentiable(x))
        dxs = rule(record, *dys)
        if not isinstance(dxs, (tuple, list)):
            dxs = (dxs,)
        for x, dx in zip(record.inputs, dxs):
            if dx is not None and id(x) in reached and differentiable(x):
                accumulate(x, dx, record)
    grads = [total(s) for s in sources]
    return grads if slices or not slices_from else [densify(g) for g in grads]


def _tf_order(records, needed):
    """{id(record): n}: the order TF's eager tape runs the needed records' gradients in (a
    queue: a record joins it once every gradient flowing into its outputs is in), which is
    the order a tensor's gradients are summed in."""
    chosen = [r for r in records if id(r) in needed]
    producer = {id(o): r for r in chosen for o in r.outputs}
    uses = {}
    for r in chosen:
        for x in r.inputs:
            if id(x) in producer:
                uses[id(x)] = uses.get(id(x), 0) + 1
    missing = {id(r): sum(1 for o in r.outputs if id(o) in uses) for r in chosen}
    queue = [r for r in chosen if not missing[id(r)]]
    rank = {}
    while queue:
        r = queue.pop()
        rank[id(r)] = len(rank)
        for x in r.inputs:
            k = id(x)
            if k in uses:
                uses[k] -= 1
                if not uses[k]:
                    p = producer[k]
                    missing[id(p)] -= 1
                    if not missing[id(p)]:
                        queue.insert(0, p)
    return rank


def _ones(t):
    """The seed gradient of a target: a constant while tracing when t's shape is known (so
    the passes can fold what the rules compute from it), else ``ones_like``."""
    if state.graph is not None and t.shape.is_fully_defined():
        return ones(t.shape.as_list(), t.dtype)
    return ones_like(t)


def _needed(records, sources):
    """Ids of the records downstream of a source (only they can matter), and the ids of the
    tensors those records and the sources make."""
    reached = {id(s) for s in sources}
    needed = set()
    for record in records:
        for x in record.inputs:
            if id(x) in reached:
                needed.add(id(record))
                reached.update(id(o) for o in record.outputs)
                break
    return needed, reached


def _seeds(target, dtype):
    """One-hot output gradients, one per element of ``target`` (rows of the jacobian)."""
    n = target.shape.num_elements()
    eye = tf_eye(n, dtype=dtype)
    return [reshape(row, tf_shape(target)) for row in unstack(eye)]


def jacobian(tape, target, sources, unconnected_gradients):
    """Row by row: one backward pass per element of ``target``."""
    flat_sources = nest.flatten(sources)
    n = target.shape.num_elements()
    if n is None:
        if state.graph is None:
            raise ValueError(f"jacobian needs a target of fully known shape, got {target.shape}")
        with _reusable(tape):
            out = _dynamic_jacobian(tape, target, flat_sources, unconnected_gradients)
        return nest.pack_sequence_as(sources, out)
    rows = [[] for _ in flat_sources]
    with _reusable(tape):
        for seed in (_seeds(target, target.dtype) if n else []):
            grads = tape.gradient(target, flat_sources, output_gradients=[seed],
                                  unconnected_gradients=unconnected_gradients)
            for row, g in zip(rows, grads):
                row.append(densify(g))
    out = []
    for src, row in zip(flat_sources, rows):
        full = target.shape.concatenate(src.shape)
        shape = full.as_list() if full.is_fully_defined() else concat(
            [tf_shape(target), tf_shape(src)], 0)
        if not row or any(g is None for g in row):  # TF: None for an empty target too
            out.append(None)
        else:
            out.append(reshape(stack(row), shape))
    return nest.pack_sequence_as(sources, out)


def _dynamic_jacobian(tape, target, flat_sources, unconnected_gradients):
    """A traced target of unknown size: a while loop computes one row per iteration (TF's
    non-pfor path); a source no row reaches gives None."""
    n = size(target)
    target_shape = tf_shape(target)
    unconnected = [False] * len(flat_sources)

    def body(i, rows):
        seed = reshape(one_hot(i, n, dtype=target.dtype), target_shape)
        grads = [densify(g) for g in tape.gradient(
            target, flat_sources, output_gradients=[seed],
            unconnected_gradients=unconnected_gradients)]
        written = []
        for k, (src, g, ta) in enumerate(zip(flat_sources, grads, rows)):
            if g is None:
                unconnected[k] = True
                g = zeros_like(src)
            written.append(ta.write(i, g))
        return i + 1, written

    rows = [TensorArray(src.dtype, size=n, element_shape=src.shape) for src in flat_sources]
    _, rows = while_loop(lambda i, _: i < n, body, [0, rows])
    out = []
    for src, ta, missing in zip(flat_sources, rows, unconnected):
        if missing:
            out.append(None)
            continue
        out.append(reshape(ta.stack(), concat(
            [target_shape, tf_shape(src)], 0)))
    return out


def batch_jacobian(tape, target, source, unconnected_gradients):
    """Per example: target [b, ...] and source [b, ...] give [b, target..., source...]; one
    backward pass per element of an example's target."""
    if target.shape.rank == 0:
        raise IndexError("list index out of range")  # TF indexes the target's dims first
    first = target.shape[0] if target.shape.rank is not None else None
    try:
        target.shape.with_rank_at_least(2)
        source.shape.with_rank_at_least(2)
        compatible = first is None or source.shape[0] is None or first == source.shape[0]
    except ValueError:
        compatible = False
    if not compatible:
        raise ValueError(f"Need first dimension of target shape ({target.shape}) and source "
                         f"shape ({source.shape}) to match.")
    inner = target.shape[1:]
    m = inner.num_elements()
    if m is None:
        raise ValueError(f"batch_jacobian needs the non-batch dims of `target` to be known, got "
                         f"{target.shape}")
    columns = []
    with _reusable(tape):
        for j in range(m):
            hot = reshape(one_hot(j, m, dtype=target.dtype),
                                    [1] + inner.as_list())
            seed = broadcast_to(hot, tf_shape(target))
            g = densify(tape.gradient(target, source, output_gradients=[seed],
                                      unconnected_gradients=unconnected_gradients))
            if g is None:  # TF gives zeros (of the target's dtype) whatever is asked
                columns = None
                break
            columns.append(g)
    shape = concat([tf_shape(source)[:1], inner.as_list(),
                              tf_shape(source)[1:]], 0)
    static = source.shape[:1].concatenate(inner).concatenate(source.shape[1:])
    if static.is_fully_defined():
        shape = static.as_list()
    if not columns:
        return zeros(shape, target.dtype)
    return reshape(stack(columns, axis=1), shape)


class _reusable:
    """Let a (possibly non-persistent) tape run several backward passes, then mark it used."""

    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        self.persistent = self.tape._persistent
        self.tape._persistent = True

    def __exit__(self, *exc):
        self.tape._persistent = self.persistent
        self.tape._used = True
