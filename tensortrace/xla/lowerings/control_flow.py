"""Lowerings of functional control flow: If to ``lax.cond``, Case to ``lax.switch``, While to
``lax.while_loop`` (a static predicate picks its branch while lowering). Variables the
sub-graphs use and TensorLists travel through them as arrays and come back updated."""

import numpy as np
from jax import lax
from jax import numpy as jnp

from ...passes.pipeline import optimize
from ..compiler import Cell, is_static, lowering
from ..compiler import lower_graph as _lower_raw
from .state import ListValue


def lower_graph(graph, feeds):
    """A branch or body lowered as the executor runs it: optimized first (``x[i]`` in a loop
    becomes one dynamic index)."""
    return _lower_raw(optimize(graph), feeds)


class _Carry:
    """How values cross a lax control-flow boundary: arrays out, the same kinds back in."""

    def __init__(self, values):
        self.kinds = []
        for v in values:
            if isinstance(v, ListValue):
                self.kinds.append(("list", v.n, v.dtype))
            elif isinstance(v, Cell):
                self.kinds.append(("cell", v))
            else:
                self.kinds.append(("array",))

    def arrays(self, values):
        out = []
        for v in values:
            if isinstance(v, ListValue):
                out.append(v.array)
            elif isinstance(v, Cell):
                out.append(v.value)
            else:
                out.append(jnp.asarray(v))
        return out

    def values(self, arrays, cells):
        """Rebuild the values (new cells, collected in ``cells``) from ``arrays``."""
        out = []
        for kind, a in zip(self.kinds, arrays):
            if kind[0] == "list":
                out.append(ListValue(a, kind[1], kind[2]))
            elif kind[0] == "cell":
                cell = Cell(a, kind[1].name)
                cells.append((kind[1], cell))
                out.append(cell)
            else:
                out.append(a)
        return out


def _write_back(pairs, arrays):
    """Outer cells take the values their inner copies had (written if any copy was)."""
    for (outer, inner), value in zip(pairs, arrays):
        if inner.written:
            outer.value, outer.written = value, True


def _resolve_lists(values, body, op):
    """Reserved lists whose element shape only the loop body's writes tell (the seeds' RNN)."""
    out = list(values)
    for k, v in enumerate(values):
        if isinstance(v, ListValue) and v.array is None:
            ph = body.inputs[k]
            shape = None
            for o in body.get_operations():
                if o.type == "TensorListSetItem" and o.inputs[0] is ph and \
                        o.inputs[2].shape.is_fully_defined():
                    shape = tuple(o.inputs[2].shape.as_list())
            out[k] = ListValue(v.filled(shape, op), v.n, v.dtype)
    return out


def _branches_call(op, branches, index, inputs):
    """Run one of ``branches`` (sub-graphs fed ``inputs``) chosen by ``index``: a lax.switch
    over arrays, variables carried in and out."""
    carry = _Carry(inputs)
    arrays = carry.arrays(inputs)
    captured = [c for c in inputs if isinstance(c, Cell)]
    written = [False] * len(captured)
    n_out = len(op.outputs)
    out_kinds = {}

    def make(graph):
        def branch(arrays):
            pairs = []
            values = carry.values(arrays, pairs)
            outs = lower_graph(graph, values)
            out_kinds["lists"] = [(o.n, o.dtype) if isinstance(o, ListValue) else None
                                  for o in outs]
            for j, (_, inner) in enumerate(pairs):
                written[j] |= inner.written
            return ([o.array if isinstance(o, ListValue) else jnp.asarray(o) for o in outs],
                    [inner.value for _, inner in pairs])
        return branch

    fns = [make(g) for g in branches]
    if len(fns) == 2 and index is not None and index.dtype == np.bool_:
        outs, cell_values = lax.cond(index, fns[0], fns[1], arrays)
    else:
        outs, cell_values = lax.switch(index, fns, arrays)
    for cell, value, w in zip(captured, cell_values, written):
        if w:
            cell.value, cell.written = value, True
    lists = out_kinds.get("lists", [None] * n_out)
    outs = [ListValue(o, *k) if k else o for o, k in zip(outs, lists)]
    return outs[0] if n_out == 1 and not op.multi else tuple(outs)


def _pred(value):
    return jnp.reshape(value, ()).astype(bool)


@lowering("If", "StatelessIf")
def _if(op, cond, *inputs, then_branch, else_branch, Tout, output_shapes):
    if is_static(cond):
        outs = lower_graph(then_branch if bool(np.reshape(cond, ())) else else_branch, inputs)
        return outs[0] if len(outs) == 1 and not op.multi else tuple(outs)
    return _branches_call(op, (then_branch, else_branch), _pred(cond), inputs)


@lowering("Case", "StatelessCase")
def _case(op, branch_index, *inputs, branches, Tout, output_shapes):
    n = len(branches)
    if is_static(branch_index):
        i = int(branch_index)
        outs = lower_graph(branches[i if 0 <= i < n else n - 1], inputs)
        return outs[0] if len(outs) == 1 and not op.multi else tuple(outs)
    index = jnp.where((branch_index >= 0) & (branch_index < n), branch_index, n - 1)
    return _branches_call(op, branches, index.astype(jnp.int32), inputs)


@lowering("While", "StatelessWhile")
def _while(op, *inputs, cond, body, T, output_shapes, parallel_iterations,
           has_maximum_iterations=False):
    limit = None
    if has_maximum_iterations:
        limit, inputs = jnp.asarray(inputs[0]), inputs[1:]
    n = len(T)
    values, captured = _resolve_lists(list(inputs[:n]), body, op), list(inputs[n:])
    loop = _Carry(values)
    outer_cells = [c for c in captured if isinstance(c, Cell)]
    shared = _Carry(outer_cells)
    written = [False] * len(outer_cells)

    def feeds(state):
        arrays, cell_arrays, _ = state
        pairs = []
        cells = iter(shared.values(cell_arrays, pairs))
        caps = [next(cells) if isinstance(c, Cell) else c for c in captured]
        return loop.values(arrays, []) + caps, pairs

    def test(state):
        fed, _ = feeds(state)
        (pred,) = lower_graph(cond, fed)
        ok = _pred(pred)
        return ok if limit is None else ok & (state[2] < limit)

    def step(state):
        fed, pairs = feeds(state)
        outs = lower_graph(body, fed)
        for j, (_, inner) in enumerate(pairs):
            written[j] |= inner.written
        return (loop.arrays(outs), [inner.value for _, inner in pairs], state[2] + 1)

    init = (loop.arrays(values), shared.arrays(outer_cells), jnp.int32(0))
    arrays, cell_values, _ = lax.while_loop(test, step, init)
    for cell, value, w in zip(outer_cells, cell_values, written):
        if w:
            cell.value, cell.written = value, True
    outs = loop.values(arrays, [])
    return outs[0] if n == 1 and not op.multi else tuple(outs)


@lowering("PartitionedCall", "StatefulPartitionedCall")
def _call(op, *inputs, f, **attrs):
    """A jit_compile function called in a compiled graph: part of the one cluster (its
    variables' cells are the caller's, so its writes reach the caller)."""
    outs = lower_graph(f, list(inputs))
    return outs[0] if len(outs) == 1 else tuple(outs)
