"""Generated code for While and If ops: a real Python ``while``/``if`` around their sub-graphs'
inlined code, so an iteration costs its ops and no function calls. A TensorArray the loop only
writes is accumulated in place in a private Python list."""

from ...passes.pipeline import optimize
from ...shapes import TensorShape
from ..tensor_array.list_value import from_items, private_items, set_item_error


def _assign(em, targets, values, indent):
    if targets:
        em.line(f"{', '.join(targets)}, = {', '.join(values)},", indent)


def emit_while(em, op, args, outs, indent):
    """``while cond: body`` inline, so an iteration costs its ops and no function calls."""
    attrs = op.attrs
    if attrs.get("has_maximum_iterations") or attrs["cond"].outputs[0].shape.rank != 0:
        return False  # the kernel handles the bound and squeezes non-scalar predicates
    n = len(attrs["T"])
    cond, body = optimize(attrs["cond"]), optimize(attrs["body"])
    loop_vars = [em.fresh("loop_var") for _ in range(n)]
    captured = args[n:]
    _assign(em, loop_vars, args[:n], indent)
    accumulators = _accumulate_in_place(em, op, cond, body, loop_vars, indent)
    em.line("while True:", indent)
    (test,) = em.graph(cond, loop_vars + captured, indent + 1, free_feeds=False)
    em.line(f"if not {test}:", indent + 1)
    em.line("break", indent + 2)
    updated = em.graph(body, loop_vars + captured, indent + 1, free_feeds=False)
    _assign(em, loop_vars, updated, indent + 1)
    for k, acc in accumulators.items():
        em.line(f"{loop_vars[k]} = {em.global_value(from_items, 'k', 'list')}"
                f"({acc}, {loop_vars[k]})", indent)
    _assign(em, outs, loop_vars, indent)
    return True


def _accumulate_in_place(em, op, cond, body, loop_vars, indent):
    """Loop variables that are TensorArrays the body only writes (``ta = ta.write(i, x)``, the
    seeds' dynamic_rnn) become a private Python list written in place: ``acc[i] = x`` instead
    of a TensorListSetItem call per iteration. The list is new, so values stay immutable.

    Returns {loop var index: accumulator name}; emits the accumulators' set-up lines.
    """
    made = {}
    for k, writer in _only_written_lists(op, cond, body).items():
        acc, size = em.fresh("accumulator"), em.fresh("accumulator_size")
        em.line(f"{acc} = {em.global_value(private_items, 'k', 'list')}"
                f"({loop_vars[k]})", indent)
        em.line(f"{size} = len({acc})", indent)
        fail = em.global_value(set_item_error, "k", "list")

        def emit(em, s, args, outs, indent, acc=acc, size=size, fail=fail, k=k):
            _, index, item = args
            em.line(f"if not 0 <= {index} < {size}:", indent, s)
            em.line(f"{fail}({index}, {size})", indent + 1, s)
            em.line(f"{acc}[{index}] = {item}", indent, s)
            em.names[id(s.outputs[0])] = loop_vars[k]  # the list itself is not rebuilt
            return True

        em.overrides[id(writer)] = emit
        made[k] = acc
    return made


def _only_written_lists(op, cond, body):
    """{k: the body's TensorListSetItem} for list loop vars that start as a TensorListReserve of
    the written items' static dtype and shape, are read nowhere, and are written once."""
    found = {}
    for k, (ph, out) in enumerate(zip(body.inputs, body.outputs)):
        writer = out.op
        if writer.type != "TensorListSetItem" or writer.attrs or writer.inputs[0] is not ph:
            continue
        users = [o for o in body.get_operations() if any(t is ph for t in o.inputs)]
        if users != [writer] or any(t is ph for t in body.outputs):
            continue
        test_ph = cond.inputs[k]
        if any(t is test_ph for o in cond.get_operations() for t in o.inputs) or \
                any(t is test_ph for t in cond.outputs):
            continue
        init, item = op.inputs[k].op, writer.inputs[2]
        if init.type != "TensorListReserve" or init.attrs["element_dtype"] != item.dtype:
            continue
        shape = init.attrs["element_shape"]
        if not item.shape.is_fully_defined() or (
                shape is not None and not TensorShape(shape).is_compatible_with(item.shape)):
            continue
        found[k] = writer
    return found


def emit_if(em, op, args, outs, indent):
    """``if pred: then else: else`` inline; only the branch taken runs."""
    if op.inputs[0].shape.rank != 0:
        return False
    em.line(f"if {args[0]}:", indent)
    _assign(em, outs, em.graph(optimize(op.attrs["then_branch"]), args[1:], indent + 1,
                               free_feeds=False), indent + 1)
    em.line("else:", indent)
    _assign(em, outs, em.graph(optimize(op.attrs["else_branch"]), args[1:], indent + 1,
                               free_feeds=False), indent + 1)
    if not outs:
        em.line("pass", indent + 1)
    return True
