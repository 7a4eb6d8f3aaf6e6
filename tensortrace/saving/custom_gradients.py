"""Custom gradients (``tf.custom_gradient``) of saved functions: each gradient function is traced
into a graph at save time (TF's ``experimental_custom_gradients``, on by default) and registered
again on load, so gradients of a loaded function use it.

The traced gradient graph takes the upstream gradients as inputs and captures the forward
tensors, constants and variables the gradient function uses; on load it is replayed where the
gradient is needed (the backward graph maps forward tensors to their replayed copies).
"""

from ..autodiff import custom_gradient
from ..autodiff.replay import replay
from ..convert import convert_to_tensor
from ..graph import ir
from ..graph.verify import verify
from ..registry import OpDef
from ..tensor import Tensor, TensorSpec
from . import checks
from .format import FormatError, UnsaveableError, expect


def encode(graph, writer, where):
    """The custom gradients recorded while ``graph`` was traced, as a JSON list.

    Raises:
        UnsaveableError: when a gradient function cannot be traced into a graph.
    """
    entries = []
    for marker, (opdef, inputs, outputs) in custom_gradient.markers(graph).items():
        if any(getattr(t, "graph", None) is not graph for t in list(inputs) + list(outputs)):
            raise UnsaveableError(f"Cannot save {where}: the custom gradient at {marker!r} "
                                  "reads tensors from outside the function.")
        grad_graph, connected = _trace(graph, opdef, outputs, f"{where} custom gradient")
        entries.append({"marker": marker, "inputs": [t.name for t in inputs],
                        "outputs": [t.name for t in outputs], "connected": connected,
                        "graph": writer.encode(grad_graph, where, holder=None)})
    return entries


def _trace(graph, opdef, outputs, where):
    grad_graph = ir.Graph(f"{opdef.name}_grad", outer=graph)
    with grad_graph.as_default():
        dys = [grad_graph.placeholder(TensorSpec(t.shape, t.dtype), "dy") for t in outputs]
        try:
            grads = opdef.grad(None, *dys)
        except Exception as e:  # noqa: BLE001 - reported with the function's name
            raise UnsaveableError(f"Cannot save {where}: tracing it failed with "
                                  f"{type(e).__name__}: {e}") from None
        flat = []
        for g in grads:
            if g is None:
                continue
            g = g if isinstance(g, Tensor) else convert_to_tensor(g)
            flat.append(g if getattr(g, "graph", None) is grad_graph else grad_graph.capture(g))
    grad_graph.inputs = dys
    grad_graph.outputs = grad_graph.structured_outputs = flat
    return grad_graph, [g is not None for g in grads]


def restore(graph, docs, reader, where):
    """Register the saved custom gradients of the loaded ``graph``."""
    tensors = {t.name: t for op in graph.get_operations() for t in op.outputs}
    for doc in expect(docs, list, f"{where}: custom gradients"):
        doc = expect(doc, dict, f"{where}: custom gradient")
        marker = expect(doc.get("marker"), str, f"{where}: custom gradient marker")
        inputs = [_tensor(tensors, n, where) for n in expect(doc.get("inputs"), list, where)]
        outputs = [_tensor(tensors, n, where) for n in expect(doc.get("outputs"), list, where)]
        connected = [expect(c, bool, where) for c in expect(doc.get("connected"), list, where)]
        grad_graph = reader.decode(doc.get("graph"), f"{where} custom gradient {marker!r}",
                                   ir.Graph, outer=graph, outer_tensors=tensors)
        verify(grad_graph, f"{where} custom gradient {marker!r}")
        checks.check_graph(grad_graph, f"{where} custom gradient {marker!r}")
        if len(connected) != len(inputs) or sum(connected) != len(grad_graph.outputs) or \
                len(grad_graph.inputs) != len(outputs):
            raise FormatError(f"{where}: custom gradient {marker!r} does not fit its op")
        opdef = OpDef(f"{marker}_custom_gradient", infer=None, kernel=None,
                      grad=_rule(grad_graph, connected))
        custom_gradient._MARKERS.setdefault(graph, {})[marker] = (opdef, inputs, outputs)


def _rule(grad_graph, connected):
    def grad(record, *dys):
        outputs, _ = replay(grad_graph, list(dys) + [value for value, _ in grad_graph.captures])
        grads = iter(outputs)
        return [next(grads) if c else None for c in connected]

    return grad


def _tensor(tensors, name, where):
    if not isinstance(name, str) or name not in tensors:
        raise FormatError(f"{where}: custom gradient tensor {name!r} is not in the function")
    return tensors[name]


# --- TF's format ----------------------------------------------------------------------------------
def encode_tf(graph, convert, capture_node, where):
    """The custom gradients of ``graph`` for TF's format: each gradient graph converted by
    ``convert(grad_graph, name) -> function name`` (a library FunctionDef), and a list (JSON
    data) naming its forward tensors and what each captured value is (a forward tensor, or
    ``capture_node(value)``: an object node id)."""
    args = {id(t): f"#{k}" for k, t in enumerate(
        list(graph.inputs) + [ph for _, ph in graph.captures])}

    def ref(t):  # an argument by position (the import names placeholders anew), else by name
        return args.get(id(t), t.name)

    entries = []
    for k, (marker, (opdef, inputs, outputs)) in enumerate(
            sorted(custom_gradient.markers(graph).items())):
        if any(getattr(t, "graph", None) is not graph for t in list(inputs) + list(outputs)):
            raise UnsaveableError(f"Cannot save {where}: the custom gradient at {marker!r} "
                                  "reads tensors from outside the function.")
        grad_graph, connected = _trace(graph, opdef, outputs, f"{where} custom gradient")
        captures = []
        for value, _ in grad_graph.captures:
            if isinstance(value, ir.SymbolicTensor) and value.graph is graph:
                captures.append({"tensor": ref(value)})
            else:
                captures.append({"node": capture_node(value)})
        entries.append({"marker": marker, "inputs": [ref(t) for t in inputs],
                        "outputs": [ref(t) for t in outputs], "connected": connected,
                        "function": convert(grad_graph, f"{graph.name}_custom_gradient_{k}"),
                        "captures": captures})
    return entries


def restore_tf(graph, args, docs, build, objects, where):
    """Register the custom gradients ``encode_tf`` wrote for the loaded ``graph`` (``args``:
    its placeholders in the FunctionDef's order); ``build(function name)`` gives a library
    function's graph, ``objects`` the captured values by object node id."""
    tensors = {t.name: t for op in graph.get_operations() for t in op.outputs}
    tensors.update({f"#{k}": t for k, t in enumerate(args)})
    for doc in expect(docs, list, f"{where}: custom gradients"):
        doc = expect(doc, dict, f"{where}: custom gradient")
        marker = expect(doc.get("marker"), str, f"{where}: custom gradient marker")
        inputs = [_tensor(tensors, n, where) for n in expect(doc.get("inputs"), list, where)]
        outputs = [_tensor(tensors, n, where) for n in expect(doc.get("outputs"), list, where)]
        connected = [expect(c, bool, where) for c in expect(doc.get("connected"), list, where)]
        grad_graph = build(expect(doc.get("function"), str, where))
        grad_graph.outer = graph
        captured = []
        for c in expect(doc.get("captures"), list, where):
            c = expect(c, dict, where)
            if "tensor" in c:
                captured.append(_tensor(tensors, c["tensor"], where))
            elif c.get("node") in objects:
                captured.append(objects[c["node"]])
            else:
                raise FormatError(f"{where}: custom gradient {marker!r} captures {c!r}")
        phs = list(grad_graph.inputs)
        if len(phs) != len(outputs) + len(captured) or sum(connected) != \
                len(grad_graph.outputs) or len(connected) != len(inputs):
            raise FormatError(f"{where}: custom gradient {marker!r} does not fit its op")
        grad_graph.inputs = phs[:len(outputs)]
        grad_graph.captures = list(zip(captured, phs[len(outputs):]))
        checks.check_graph(grad_graph, f"{where} custom gradient {marker!r}")
        opdef = OpDef(f"{marker}_custom_gradient", infer=None, kernel=None,
                      grad=_rule(grad_graph, connected))
        custom_gradient._MARKERS.setdefault(graph, {})[marker] = (opdef, inputs, outputs)

