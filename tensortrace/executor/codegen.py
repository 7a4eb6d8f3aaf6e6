"""Compile a graph to Python source: one line per op, kernels and constants as globals.

    def __inference_f_1(x):
        Mul = (x * x)
        AddV2 = (Mul + _c0)
        return AddV2

Each line is an op's ``expr`` template or a call of its kernel (attrs bound once with
``functools.partial``); a value is deleted after its last use so large arrays are freed early,
and a large elementwise result goes into a buffer that has just died (``buffers.plan``):

        Mul = (x * _c4)
        AddV2 = np.add(Mul, _c5, out=Mul)

A long run of them is computed block by block (the values read after it get full arrays):

        Tanh = np.empty((1048576,), _d5_float32)
        for block in range(0, 1048576, 32768):
            x_block = x[block:block + 32768]
            Mul = np.multiply(x_block, _c4)
            AddV2 = np.add(Mul, _c6, out=Mul)
            ...

and when the run is long enough to pay for threads, its blocks are shared out among them, each
thread writing a block's fresh values into its own scratch buffers (``parallel.run_blocks``):

        def run_block(block, scratch):
            x_block = x[block:block + 32768]
            Mul = np.multiply(x_block, _c4, out=scratch[0])
            ...
        _blocks(run_block, 1048576, 32768, _s12_scratch)
"""

import builtins
import functools
import keyword
import re

import numpy as np

from ..numerics import EXTOBJ, IGNORE
from ..registry import get as get_op
from . import buffers, parallel, replica_groups


class Generated:
    """Source text, its globals, and the op each source line runs (for error mapping)."""

    def __init__(self, name, source, namespace, line_ops):
        self.name = name
        self.source = source
        self.namespace = namespace
        self.line_ops = line_ops


def _identifier(name, used):
    """A fresh local variable name for ``name`` (any text): ASCII, since Python normalizes
    non-ASCII identifiers (NFKC: ``\ufb01`` and ``fi`` would be one variable) and rejects some
    (``a\u00b2``); never a global's shape (``_...``, ``np``), a keyword nor a builtin (node
    names ``pow``, ``range``, ``len`` would hide the builtins generated code calls); unique in
    ``used``."""
    ident = name if name.isascii() and name.isidentifier() else _NON_WORD.sub("_", name)
    if not ident or ident[0].isdigit() or ident[0] == "_" or keyword.iskeyword(ident) \
            or ident == "np" or ident in _BUILTINS:
        ident = "v_" + ident
    base, n = ident, 1
    while ident in used:
        ident = f"{base}_{n}"
        n += 1
    used.add(ident)
    return ident


_NON_WORD = re.compile(r"\W", re.ASCII)
_BUILTINS = frozenset(dir(builtins))


def function_name(name):
    """The generated function's name for ``name`` (any text): an ASCII identifier that no
    global of the generated code has (``np``, ``_c0``, dunders); ``__inference_f_1`` stays."""
    ident = _NON_WORD.sub("_", name)
    if not ident or ident[0].isdigit() or keyword.iskeyword(ident) or ident == "np" or \
            ident.startswith("_") and not ident.startswith("__") or ident.endswith("__"):
        ident = "f_" + ident
    return ident


def _last_uses(ops, outputs):
    """For each op index, the values whose last use is that op (and that are not outputs)."""
    last = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = (i, t)
    keep = {id(t) for t in outputs}
    dels = {}
    for key, (i, t) in last.items():
        if key not in keep:
            dels.setdefault(i, []).append(t)
    return dels


class Emitter:
    """Writes Python lines for graphs; control-flow ops use it to inline their sub-graphs (an
    op whose OpDef has ``emit`` may emit its own lines instead of a kernel call)."""

    def __init__(self):
        self.used = set()
        self.names = {}  # id(tensor) -> Python name
        self.namespace = {"np": np}
        self.lines = []
        self.line_ops = {}  # 1-based line number -> op (for runtime error mapping)
        self.overrides = {}  # id(op) -> emit(em, op, args, outs, indent): set by an enclosing op

    def fresh(self, base):
        return _identifier(base, self.used)

    def global_value(self, value, prefix, hint=""):
        name = f"_{prefix}{len(self.namespace)}"  # globals start with "_"; op names never do
        if hint:
            name += "_" + _NON_WORD.sub("_", hint)
        self.namespace[name] = value
        return name

    def line(self, text, indent, op=None):
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    def graph(self, graph, feed_names, indent, free_feeds=True):
        """Emit ``graph``'s ops with its feeds (inputs, then captures) bound to ``feed_names``;
        returns the names of its outputs. Feeds are deleted after last use only if
        ``free_feeds`` (an inlined loop body must keep them for the next iteration)."""
        feeds = list(graph.inputs) + [ph for _, ph in graph.captures]
        for ph, name in zip(feeds, feed_names):
            self.names[id(ph)] = name
        feed_ids = {id(ph) for ph in feeds}
        ops = [op for op in graph.get_operations() if op.type != "Placeholder"]

        def may_delete(t):
            return t.op.type != "Const" and (free_feeds or id(t) not in feed_ids)

        items = replica_groups.plan(graph, ops)
        if items is not None:  # replicas' work that runs at once
            self._items(items, graph.outputs, indent, may_delete)
        else:
            dels = _last_uses(ops, graph.outputs)
            reuse = buffers.plan(ops, graph.outputs, self.overrides)
            self._sequence(ops, reuse, dels, indent, may_delete)
        return [self.names[id(t)] for t in graph.outputs]

    def _items(self, items, outputs, indent, may_delete):
        """Emit ``replica_groups.plan``'s items: runs of ops in order, and groups whose
        replicas' parts are functions called on threads. Each item has its own liveness and
        buffer plan, so no part writes into a buffer another part or a later item reads."""
        last = {id(t): -1 for t in outputs}
        for k, item in enumerate(items):
            for op in item.ops if isinstance(item, replica_groups.Group) else item:
                for t in op.inputs:
                    last[id(t)] = k
        final = {id(t) for t in outputs}
        for k, item in enumerate(items):
            def later(t, k=k):
                return last.get(id(t), -1) > k or id(t) in final
            if isinstance(item, replica_groups.Group):
                self._group(item, later, indent, may_delete)
                continue
            keep = [t for op in item for t in op.inputs + op.outputs if later(t)]
            self._sequence(item, buffers.plan(item, keep, self.overrides),
                           _last_uses(item, keep), indent, may_delete)

    def _group(self, group, later, indent, may_delete):
        """The ops every part reads, then one function per replica's part (values it makes are
        its locals; those read later are returned), the parts called at once, then the values
        read inside for the last time deleted."""
        for op in group.consts + group.before:
            self._op(op, indent)
        fns, returned = [], []
        for replica in sorted(group.parts):
            ops = group.parts[replica]
            made = {id(t) for op in ops for t in op.outputs}
            live = [t for op in ops for t in op.outputs if later(t)]
            fns.append(self.fresh(f"replica_{replica}"))
            self.line(f"def {fns[-1]}():", indent)
            self._sequence(ops, buffers.plan(ops, live, self.overrides), _last_uses(ops, live),
                           indent + 1, lambda t, made=made: id(t) in made and may_delete(t))
            names = [self.names[id(t)] for t in live]
            self.line(f"return ({', '.join(names)}{',' if names else ''})", indent + 1)
            returned.append(names)
        results = self.fresh("replica_results")
        self.namespace["_parts"] = replica_groups.run_parts
        self.line(f"{results} = _parts(({', '.join(fns)},))", indent)
        for k, names in enumerate(returned):
            if names:
                self.line(f"{', '.join(names)}, = {results}[{k}]", indent)
        made = {id(t) for ops in group.parts.values() for op in ops for t in op.outputs}
        gone = [self.names[id(t)] for op in group.ops for t in op.inputs
                if id(t) not in made and not later(t) and may_delete(t)]
        self.line(f"del {', '.join(dict.fromkeys(fns + [results] + gone))}", indent)

    def _sequence(self, ops, reuse, dels, indent, may_delete, into=None):
        """Emit ``ops`` with the ``buffers.plan`` ``reuse``, deleting each value ``may_delete``
        accepts after its last use; ``into(i)`` gives op ``i``'s ``_op`` target instead."""
        taken = {}  # op index -> dead buffers it writes into (deleted after it, not at death)
        for key, j in reuse.keep.items():
            taken.setdefault(j, []).append(key)
        i = 0
        while i < len(ops):
            block = reuse.blocks.get(i)
            if block is not None:
                self._blocked(ops, block, indent)
                dying = [t for j in range(i, block.stop) for t in dels.get(j, ())
                         if id(t) not in block.made]
                i = block.stop
            else:
                target = into(i) if into is not None else reuse.out.get(i)
                if target is not None and not isinstance(target[1], str):
                    target = (target[0], self.names[id(target[1])])
                self._op(ops[i], indent, target)
                dying = dels.get(i, ())
                i += 1
            gone = [self.names[id(t)] for t in dying if may_delete(t) and id(t) not in reuse.keep]
            gone += [self.names[key] for key in taken.get(i - 1, ())]
            if gone:
                self.line(f"del {', '.join(dict.fromkeys(gone))}", indent)

    def _blocked(self, ops, block, indent):
        """A ``buffers.Block``: its values read later get full arrays, then a loop computes
        the run block by block, each block's values written in place where they die."""
        run = ops[block.start:block.stop]
        full = {}
        for t in block.live_out:
            full[id(t)] = name = self.fresh(t.op.name)
            dtype = self.global_value(t.dtype._np, "d", t.dtype.name)
            self.line(f"{name} = np.empty({block.shape}, {dtype})", indent)
        start = self.fresh("block")
        cut = f"[{start}:{start} + {block.rows}]"
        if block.scratch is None:
            self.line(f"for {start} in range(0, {block.shape[0]}, {block.rows}):", indent)
        else:  # a function of one block, for run_blocks to call on its threads
            block_fn, scratch = self.fresh("run_block"), self.fresh("scratch")
            self.line(f"def {block_fn}({start}, {scratch}):", indent)
        outer = {}
        for op in run:
            for t in op.inputs:
                if id(t) in block.sliced and id(t) not in outer:
                    outer[id(t)] = self.names[id(t)]
                    self.names[id(t)] = piece = self.fresh(self.names[id(t)] + "_block")
                    self.line(f"{piece} = {outer[id(t)]}{cut}", indent + 1)
        dels = _last_uses(run, block.live_out)

        def into(k):
            ufunc = block.ufuncs.get(k)
            if ufunc is None:
                return None
            t = run[k].outputs[0]
            if id(t) in full:
                return ufunc, full[id(t)] + cut
            target = block.inner.out.get(k)
            if target is not None:
                return target
            return ufunc, (f"{scratch}[{block.slots[k]}]" if block.scratch is not None else "")

        self._sequence(run, block.inner, dels, indent + 1,
                       lambda t: id(t) in block.made and id(t) not in full, into)
        if block.scratch is None:
            views = [self.names[key] for key in outer] + [self.names[id(t)] for t in block.live_out]
            self.line(f"del {', '.join(views)}", indent)
        else:
            rows = (block.rows,) + tuple(block.shape[1:])
            spec = self.global_value(tuple((rows, d) for d in block.scratch), "s", "scratch")
            self.namespace["_blocks"] = parallel.run_blocks
            self.line(f"_blocks({block_fn}, {block.shape[0]}, {block.rows}, {spec})", indent)
        for key, name in outer.items():
            self.names[key] = name
        for key, name in full.items():
            self.names[key] = name

    def _op(self, op, indent, into=None):
        """Emit ``op``; ``into`` = (ufunc, buffer expression) calls the op's ufunc with
        ``out=`` that buffer (or without ``out=`` when it is empty)."""
        if op.type == "Const":
            self.names[id(op.outputs[0])] = self.global_value(op.attrs["value"], "c")
            return
        opdef = get_op(op.type)
        args = [self.names[id(t)] for t in op.inputs]
        outs = [self.fresh(op.name if j == 0 else f"{op.name}_{j}")
                for j in range(len(op.outputs))]
        for t, ident in zip(op.outputs, outs):
            self.names[id(t)] = ident
        emit = self.overrides.get(id(op)) or opdef.emit
        if emit is not None and emit(self, op, args, outs, indent):
            return
        if into is not None:
            ufunc, buffer = into
            name = f"np.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc \
                else self.global_value(ufunc, "u", ufunc.__name__)
            call = f"{name}({', '.join(args)}{', out=' + buffer if buffer else ''})"
        elif opdef.expr is not None and len(outs) == 1 and not op.attrs:
            call = opdef.expr.format(*args)
        else:
            kernel = functools.partial(opdef.kernel, **op.attrs) if op.attrs else opdef.kernel
            call = f"{self.global_value(kernel, 'k', op.type)}({', '.join(args)})"
        if len(outs) == 1 and not op.multi:
            self.line(f"{outs[0]} = {call}", indent, op)
        elif outs:
            self.line(f"{', '.join(outs)}, = {call}", indent, op)
        else:
            self.line(call, indent, op)


def generate(graph, name, feeds):
    """Python source for a function ``name(*feeds)`` running ``graph``.

    The body runs with NumPy's inf/nan warnings silenced, as the eager kernels do (TF never
    warns): ``expr`` lines such as ``a * b`` call NumPy directly.

    Args:
        feeds: the placeholders that become parameters, in order.
    """
    em = Emitter()
    params = [em.fresh(ph.op.name) for ph in feeds]
    em.line(f"def {name}({', '.join(params)}):", 0)
    quiet = EXTOBJ is not None
    if quiet:
        em.namespace.update(_quiet_on=EXTOBJ.set, _quiet_off=EXTOBJ.reset, _IGNORE=IGNORE)
        em.line("_token = _quiet_on(_IGNORE)", 1)
        em.line("try:", 1)
    body = 2 if quiet else 1
    results = em.graph(graph, params, body)
    if len(results) == 1:
        em.line(f"return {results[0]}", body)
    else:
        em.line(f"return ({', '.join(results)}{',' if results else ''})", body)
    if quiet:
        em.line("finally:", 1)
        em.line("_quiet_off(_token)", 2)
    return Generated(name, "\n".join(em.lines) + "\n", em.namespace, em.line_ops)
