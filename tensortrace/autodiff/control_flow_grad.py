"""Gradients of functional control flow. An If/Case's gradient is an If/Case whose branches are
the branches' backward graphs. A While's gradient is a While running the body's backward graph
in reverse: the forward While is rewritten (once, while its graph is still being traced) to save
the values that backward graph reads, one TensorList accumulator per value, plus an iteration
count; the backward body reads them back at its iteration, so nothing is recomputed.

    with tf.GradientTape() as tape:       # inside tf.function
        y = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * w), [0, x])[1]
    tape.gradient(y, w)                   # a While over the saved x's, in reverse
"""

import functools

import numpy as np

from .. import dtypes as D
from ..context import bind, state
from ..graph.ir import Graph, SymbolicTensor
from ..ops.array.creation import zeros, zeros_like
from ..ops.control_flow.records import STATELESS_WHILE, WHILE
from ..ops.control_flow.subgraphs import any_stateful, unify_captures
from ..ops.control_flow.subgraphs import unify_captures as _unify_captures
from ..ops.math.arithmetic import add, subtract
from ..ops.math.compare import greater
from ..ops.tensor_array.list_math import add_lists, element_dtype, single_item, zero_list_like
from ..ops.tensor_array.list_ops import GET_ITEM, RESERVE, SET_ITEM
from ..shapes import shape_attr
from ..registry import get as get_op
from ..tensor import TensorSpec
from .backprop import backward, differentiable
from .replay import replay
from .tape import GradientTape, _variable_of


def _tape():
    return GradientTape(watch_accessed_variables=False)


class _GradGraph(Graph):
    """A backward sub-graph: forward sub-graph tensors (which custom gradient functions close
    over) stand for their replayed copies."""

    replayed = None

    def capture(self, value, name=None):
        hit = self.replayed.get(id(value)) if self.replayed else None
        return hit if hit is not None else super().capture(value, name)


def _owned(graph, t):
    """``t`` as a tensor of ``graph`` (an output may be an outer tensor, e.g. a passed-on dy)."""
    return t if getattr(t, "graph", None) is graph else graph.capture(t)


# --- zeros standing for a missing gradient ------------------------------------------------------
def _zeros(x, like):
    """The zero gradient of ``x``; ``like`` is a gradient of it computed elsewhere, or None (only
    its dtype and static structure are read, so it may belong to another graph)."""
    kind = x.dtype.name
    if kind == "variant":
        shape = None
        single = single_item(like) if like is not None else None
        if single is not None:
            shape = shape_attr(single[1].shape)
        dtype = (element_dtype(like) if like is not None else None) or element_dtype(x)
        return zero_list_like(x, dtype or D.float32, shape)
    if kind == "resource":
        return _variable_zeros(x, like)
    if x.shape.is_fully_defined():
        return zeros(x.shape.as_list(), x.dtype)
    return zeros_like(x)


def _variable_zeros(handle, like):
    """Zeros shaped like the variable behind ``handle``."""
    if like is not None and like.shape.is_fully_defined():
        return zeros(like.shape.as_list(), like.dtype)
    var = _variable_of(handle)
    if var is not None and var.shape.is_fully_defined():
        return zeros(var.shape.as_list(), var.dtype)
    value = bind(get_op("ReadVariableOp"), handle, dtype=like.dtype, shape=like.shape)
    return zeros_like(value)


# --- If / Case ----------------------------------------------------------------------------------
def cond_grad(record, dys, branches, make_op):
    """Gradients of an If/Case record (inputs: the predicate or index, then the captures):
    ``make_op(index, graphs, captured, Tout, output_shapes)`` binds the gradient op."""
    ins = record.inputs[1:]
    wrt = [i for i, x in enumerate(ins)
           if differentiable(x) and i + 1 not in record.skip_input_indices]
    outs = [j for j, (d, y) in enumerate(zip(dys, record.outputs))
            if d is not None and differentiable(y)]
    none = [None] * len(record.inputs)
    if not wrt or not outs:
        return none
    built = []
    for branch in branches:
        graph = _GradGraph(f"{branch.name}_grad", outer=state.graph)
        with graph.as_default():
            feeds = [graph.capture(x) for x in ins]
            with _tape() as tape:
                tape.watch([feeds[i] for i in wrt])
                ys, graph.replayed = replay(branch, feeds, skip_effects=True)
            grads = backward(tape._records, [ys[j] for j in outs], [feeds[i] for i in wrt],
                             [dys[j] for j in outs])
        built.append((graph, feeds, grads))
    connected = [k for k in range(len(wrt)) if any(b[2][k] is not None for b in built)]
    if not connected:
        return none
    for graph, feeds, grads in built:
        with graph.as_default():
            out = []
            for k in connected:
                g = grads[k]
                if g is None:
                    like = next(b[2][k] for b in built if b[2][k] is not None)
                    g = _zeros(feeds[wrt[k]], like)
                out.append(_owned(graph, g))
        graph.outputs = out
        graph.structured_outputs = list(out)
    graphs = [b[0] for b in built]
    captured = _unify_captures(graphs)
    specs = [[t.shape for t in g.outputs] for g in graphs]
    shapes = []
    for column in zip(*specs):
        shape = column[0]
        for s in column[1:]:
            shape = shape.most_specific_compatible_shape(s)
        shapes.append(None if shape.rank is None else tuple(shape.dims))
    result = make_op(record.inputs[0], graphs, captured,
                     tuple(t.dtype for t in graphs[0].outputs), tuple(shapes))
    result = result if type(result) is tuple else (result,)
    grads = list(none)
    for k, g in zip(connected, result):
        grads[1 + wrt[k]] = g
    return grads


# --- While: the forward loop rewritten to save what the backward pass reads ---------------------
class _Forward:
    """A forward While op rewritten to count its iterations and save, per iteration, the body
    values the backward body reads. The body becomes a replay of itself recorded on a tape, plus
    the counter and one ``TensorListSetItem`` per saved value (recorded too, so the saved values
    can be differentiated again); accumulators are added when a backward body first asks."""

    def __init__(self, op):
        self.op = op
        attrs = op.attrs
        self.lim = int(bool(attrs.get("has_maximum_iterations")))
        n = len(attrs["T"])
        body, cond = attrs["body"], attrs["cond"]
        captured = op.inputs[self.lim + n:]
        int32 = TensorSpec((), D.int32)
        self.body = graph = Graph(f"{body.name}_saving", outer=op.graph)
        self.tape = _tape()
        with graph.as_default():
            xs = [graph.placeholder(TensorSpec(p.shape, p.dtype), "loop_var")
                  for p in body.inputs]
            self.counter = graph.placeholder(int32, "iteration")
            self.ks = [graph.capture(v) for v in captured]
            with self.tape:
                self.tape.watch([t for t in xs + self.ks if differentiable(t)])
                ys, self.env = replay(body, xs + self.ks)
            step = add(self.counter, 1)
        self.records = self.tape._records
        graph.inputs = xs + [self.counter]
        graph.outputs = [_owned(graph, y) for y in ys] + [step]
        graph.structured_outputs = list(graph.outputs)
        self.cond = test = Graph(f"{cond.name}_saving", outer=op.graph)
        with test.as_default():
            feeds = [test.placeholder(TensorSpec(p.shape, p.dtype), "loop_var")
                     for p in cond.inputs]
            test.inputs = feeds + [test.placeholder(int32, "iteration")]
            (pred,), _ = replay(cond, feeds + [test.capture(v) for v in captured])
            test.outputs = [_owned(test, pred)]
        start = _before(op, lambda: op.graph.constant(_int32(0), "iteration"))
        self._add_loop_var(start, int32, cond=test, body=graph)
        self.count = op.outputs[n]
        self.saved = {}  # id(body tensor) -> the accumulator output of the op

    @property
    def xs(self):
        """The body's loop variables: the user's, the counter, the accumulators."""
        return self.body.inputs

    @property
    def ys(self):
        return self.body.outputs

    def _add_loop_var(self, initial, spec, **attrs):
        op = self.op
        at = self.lim + len(op.attrs["T"])
        op.inputs = op.inputs[:at] + (initial,) + op.inputs[at:]
        op.attrs = dict(op.attrs, T=op.attrs["T"] + (spec.dtype,),
                        output_shapes=op.attrs["output_shapes"] + ((),), **attrs)
        op.outputs = op.outputs + (SymbolicTensor(op, len(op.outputs), spec),)
        op.multi = True

    def outer_of(self, t):
        """The outer value a capture placeholder of the body stands for (None otherwise)."""
        for value, ph in self.body.captures:
            if ph is t:
                return value
        return None

    def _empty(self, t):
        """An accumulator's initial list; sizes differ, so no pass merges two of them (a write
        to one would then move the other's contents)."""
        size = self.op.graph.constant(_int32(len(self.saved)), "size")
        return bind(RESERVE, size, element_shape=shape_attr(t.shape), element_dtype=t.dtype)

    def accumulators(self, tensors):
        """The accumulators of ``tensors`` (body tensors), added to the loop where missing."""
        op, graph, variant = self.op, self.body, TensorSpec((), D.variant)
        for t in tensors:
            if id(t) in self.saved:
                continue
            with graph.as_default():
                acc = graph.placeholder(variant, "accumulator")
                with self.tape:
                    self.tape.watch(acc)
                    written = bind(SET_ITEM, acc, self.counter, t,
                                   resize_if_index_out_of_bounds=True)
            self.cond.inputs.append(self.cond.placeholder(variant, "accumulator"))
            tapes, state.tapes = state.tapes, ()
            try:
                empty = _before(op, functools.partial(self._empty, t))
            finally:
                state.tapes = tapes
            graph.inputs.append(acc)
            graph.outputs.append(written)
            self._add_loop_var(empty, variant)
            self.saved[id(t)] = op.outputs[-1]
        return [self.saved[id(t)] for t in tensors]


def _int32(v):
    return np.int32(v)


def _before(op, build):
    """Run ``build`` in ``op``'s graph and move the ops it adds in front of ``op`` (the graph
    keeps program order, and ``op`` is about to consume them)."""
    graph = op.graph
    start = len(graph._ops)
    with graph.as_default():
        out = build()
    new = graph._ops[start:]
    del graph._ops[start:]
    at = graph._ops.index(op)
    graph._ops[at:at] = new
    return out


def _forward(op):
    """The rewrite of the forward While ``op``, made once (kept by its graph)."""
    graph = op.graph
    known = graph.__dict__.setdefault("_while_rewrites", {})
    fwd = known.get(id(op))
    if fwd is None:
        fwd = known[id(op)] = _Forward(op)
    return fwd


def _sync(record, op):
    """Give ``record`` the op's added inputs and outputs; tapes that watch its outputs watch the
    new ones, so gradients can flow back through the saved values (higher orders)."""
    old = record.outputs
    record.inputs, record.outputs = op.inputs, op.outputs
    for tape in state.tapes:
        watched = getattr(tape, "_watched", None)
        if watched is not None and any(id(t) in watched for t in old):
            for t in op.outputs[len(old):]:
                watched[id(t)] = t


class _BackwardBody(Graph):
    """The backward loop's body. A forward-body tensor it uses is read from its accumulator at
    the iteration being undone; loop-invariant ones (the forward captures, constants) are
    captured as they are."""

    def __init__(self, name, outer, fwd):
        super().__init__(name, outer)
        self.fwd = fwd
        self.index = None  # the forward iteration this backward iteration undoes
        self.reads = {}  # id(forward body tensor) -> its value here
        self.pending = []  # (forward body tensor, accumulator placeholder)
        self.dk = []  # (capture index, its gradient in one iteration)

    def capture(self, value, name=None):
        fwd = self.fwd
        value = fwd.env.get(id(value), value)
        if getattr(value, "graph", None) is not fwd.body:
            return super().capture(value, name)
        hit = self.reads.get(id(value))
        if hit is None:
            hit = self.reads[id(value)] = self._read(value)
        return hit

    def _read(self, t):
        outer = self.fwd.outer_of(t)
        if outer is not None:
            return super().capture(outer)
        if t.op.type == "Const":
            return self.constant(t.op.attrs["value"])
        acc = self.placeholder(TensorSpec((), D.variant), "accumulator")
        self.pending.append((t, acc))
        with self.as_default():
            return bind(GET_ITEM, acc, self.index, element_dtype=t.dtype,
                        element_shape=shape_attr(t.shape))

    def bind_accumulators(self):
        """Turn the accumulator placeholders into captures of the forward loop's outputs."""
        accs = self.fwd.accumulators([t for t, _ in self.pending])
        for out, (_, ph) in zip(accs, self.pending):
            value = out if out.graph is self.outer else self.outer.capture(out)
            self.captures.append((value, ph))
            self._capture_index[id(value)] = ph
            self._capture_index[id(ph)] = ph


def while_grad(record, dys):
    """Gradients of a While record: [maximum_iterations] + loop variables + captures."""
    op = record.outputs[0].op
    fwd = _forward(op)
    lim, nv, m = fwd.lim, len(fwd.xs), len(fwd.ks)
    dys = list(dys) + [None] * (nv - len(dys))  # the record may predate added loop variables
    for j, (d, y) in enumerate(zip(dys, op.outputs)):
        if d is None and y.dtype.name != "variant" and differentiable(y):
            dys[j] = zeros_like(y)
    first = lim + len(record.outputs)  # the captures' position in the record's inputs
    xdiff = [j for j in range(nv) if differentiable(fwd.xs[j])]
    kdiff = [i for i in range(m)
             if differentiable(fwd.ks[i]) and first + i not in record.skip_input_indices]
    carried = [j for j in xdiff if dys[j] is not None]
    inits = {j: dys[j] for j in carried}
    while True:
        body, grads_x = _backward_body(fwd, carried, xdiff, kdiff)
        # a list whose loop output has no gradient may still get one from reads in the body
        extra = [j for j in xdiff if j not in carried and grads_x[xdiff.index(j)] is not None]
        if not extra:
            break
        for j in extra:
            inits[j] = _zeros(op.outputs[j], grads_x[xdiff.index(j)])
        carried = sorted(carried + extra)
    if not carried and not body.dk:
        return [None] * len(record.inputs)
    outs = _run_backward(fwd, body, [inits[j] for j in carried], record)
    grads = [None] * len(op.inputs)
    it = iter(outs[1:])
    for j in carried:
        grads[lim + j] = next(it)
    first = len(op.inputs) - m
    for i, _ in body.dk:
        grads[first + i] = next(it)
    return grads


def _backward_body(fwd, carried, xdiff, kdiff):
    """Trace the backward body; returns it and the gradients of the loop variables."""
    body = _BackwardBody(f"{fwd.body.name}_grad", state.graph, fwd)
    xs, ys, ks = list(fwd.xs), list(fwd.ys), fwd.ks
    with body.as_default():
        k = body.placeholder(TensorSpec((), D.int32), "iteration")
        dxs = [body.placeholder(TensorSpec(xs[j].shape, xs[j].dtype), "dy") for j in carried]
        body.index = subtract(k, 1)
        sources = [xs[j] for j in xdiff] + [ks[i] for i in kdiff]
        grads = backward(fwd.records, [ys[j] for j in carried], sources, dxs) \
            if carried else [None] * len(sources)
        grads_x, grads_k = grads[:len(xdiff)], grads[len(xdiff):]
        next_dx = []
        for j, dx in zip(carried, dxs):
            g = grads_x[xdiff.index(j)]
            if g is None:
                g = _zeros(body.capture(xs[j]), dx)
            next_dx.append(_owned(body, g))
        dks, next_dk = [], []
        for i, g in zip(kdiff, grads_k):
            if g is None:
                continue
            kind = ks[i].dtype.name
            shape = () if kind == "variant" else g.shape if kind == "resource" else ks[i].shape
            acc = body.placeholder(TensorSpec(shape, g.dtype), "dx")
            total = add_lists([acc, g]) if kind == "variant" else add(acc, g)
            body.dk.append((i, g))
            dks.append(acc)
            next_dk.append(_owned(body, total))
    body.inputs = [k] + dxs + dks
    body.outputs = [body.index] + next_dx + next_dk
    body.structured_outputs = list(body.outputs)
    return body, grads_x


def _run_backward(fwd, body, dx_inits, record):
    """Bind the backward While: it runs ``body`` count times from the dys and zero sums."""
    body.bind_accumulators()
    _sync(record, fwd.op)
    test = Graph(f"{body.name}_cond", outer=state.graph)
    with test.as_default():
        k = test.placeholder(TensorSpec((), D.int32), "iteration")
        rest = [test.placeholder(TensorSpec(p.shape, p.dtype), "dx") for p in body.inputs[1:]]
        test.inputs = [k] + rest
        test.outputs = [greater(k, 0)]
    graphs = [test, body]
    captured = unify_captures(graphs)
    first = len(fwd.op.inputs) - len(fwd.ks)
    dk_inits = [_zeros(fwd.op.inputs[first + i], g) for i, g in body.dk]
    inits = [fwd.count] + list(dx_inits) + dk_inits
    opdef = WHILE if any_stateful(graphs) else STATELESS_WHILE
    out = bind(opdef, *inits, *captured, cond=test, body=body,
               T=tuple(p.dtype for p in body.inputs),
               output_shapes=tuple(shape_attr(p.shape) for p in body.inputs),
               parallel_iterations=int(fwd.op.attrs.get("parallel_iterations", 10)),
               has_maximum_iterations=False)
    return out if type(out) is tuple else (out,)
