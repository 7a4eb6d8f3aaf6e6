"""Compile a graph to Python source: one line per op, kernels and constants as globals.

    def __inference_f_1(x):
        Mul = (x * x)
        AddV2 = (Mul + _c0)
        return AddV2

Each line is an op's ``expr`` template or a call of its kernel (attrs bound once with
``functools.partial``); a value is deleted after its last use so large arrays are freed early.
"""

import functools
import keyword
import re

import numpy as np

from ..registry import get as get_op


class Generated:
    """Source text, its globals, and the op each source line runs (for error mapping)."""

    def __init__(self, name, source, namespace, line_ops):
        self.name = name
        self.source = source
        self.namespace = namespace
        self.line_ops = line_ops


def _identifier(name, used):
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit() or ident.startswith("_") or keyword.iskeyword(ident) \
            or ident == "np":
        ident = "v_" + ident
    base, n = ident, 1
    while ident in used:
        ident = f"{base}_{n}"
        n += 1
    used.add(ident)
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


def generate(graph, name, feeds):
    """Python source for a function ``name(*feeds)`` running ``graph``.

    Args:
        feeds: the placeholders that become parameters, in order.
    """
    used = set()
    names = {}
    namespace = {"np": np}
    params = []
    for ph in feeds:
        names[id(ph)] = _identifier(ph.op.name, used)
        params.append(names[id(ph)])
    lines = [f"def {name}({', '.join(params)}):"]
    line_ops = {}
    ops = [op for op in graph.get_operations() if op.type != "Placeholder"]
    dels = _last_uses(ops, graph.outputs)
    for i, op in enumerate(ops):
        if op.type == "Const":
            const = f"_c{len(namespace)}"  # globals start with "_"; op-derived names never do
            namespace[const] = op.attrs["value"]
            names[id(op.outputs[0])] = const
            continue
        opdef = get_op(op.type)
        args = [names[id(t)] for t in op.inputs]
        outs = [_identifier(op.name if j == 0 else f"{op.name}_{j}", used)
                for j in range(len(op.outputs))]
        for t, ident in zip(op.outputs, outs):
            names[id(t)] = ident
        if opdef.expr is not None and len(outs) == 1 and not op.attrs:
            call = opdef.expr.format(*args)
        else:
            kernel = f"_k{len(namespace)}_{op.type}"
            namespace[kernel] = functools.partial(opdef.kernel, **op.attrs) if op.attrs \
                else opdef.kernel
            call = f"{kernel}({', '.join(args)})"
        if len(outs) == 1:
            lines.append(f"    {outs[0]} = {call}")
        elif outs:
            lines.append(f"    {', '.join(outs)}, = {call}")
        else:
            lines.append(f"    {call}")
        line_ops[len(lines)] = op
        gone = [names[id(t)] for t in dels.get(i, ()) if t.op.type != "Const"]
        if gone:
            lines.append(f"    del {', '.join(dict.fromkeys(gone))}")
    results = [names[id(t)] for t in graph.outputs]
    if len(results) == 1:
        lines.append(f"    return {results[0]}")
    else:
        lines.append(f"    return ({', '.join(results)}{',' if results else ''})")
    return Generated(name, "\n".join(lines) + "\n", namespace, line_ops)
