"""``tf.graph_util.import_graph_def``: a GraphDef's nodes added to the graph a tf.function is
building, named under a scope, with ``input_map`` replacing some of their outputs and
``return_elements`` picking tensors and operations.

    @tf.function
    def f(y):
        (out,) = tf.graph_util.import_graph_def(graph_def, input_map={"x:0": y},
                                                return_elements=["out:0"])
        return out
"""

from .. import context
from .._export import tf_export
from ..convert import convert_to_tensor
from ..graph import ir
from ..graph.function_def import import_into
from ..tensor import EagerTensor

_EAGER = "_as_tf_output not supported when eager execution is enabled."
_GLOBAL = []  # the graph eager imports go to (TF's global default graph), made on first use


@tf_export("graph_util.import_graph_def", "import_graph_def")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Import ``graph_def`` into the graph being built; returns the ``return_elements``
    ("node:index" a tensor, "node" an operation), or None when none are asked for.

    Raises:
        TypeError: when ``graph_def`` is not a GraphDef or input_map not a dict.
        ValueError: for names the GraphDef lacks (TF's messages).
        NotImplementedError: eagerly with an ``input_map`` (TF's message: eager tensors cannot
            feed a graph).

    Eagerly it imports into a global graph kept for this, as TF imports into its default graph
    (the tensors it returns are that graph's, symbolic).
    """
    if type(graph_def).__name__ != "GraphDef" or not hasattr(graph_def, "node"):
        raise TypeError("Argument `graph_def` must be a GraphDef proto.")
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if return_elements is not None and (isinstance(return_elements, str) or not all(
            isinstance(x, str) for x in return_elements)):
        raise TypeError("return_elements must be a list of strings.")
    graph = context.state.graph
    if graph is None:
        if input_map:
            raise NotImplementedError(_EAGER)
        if not _GLOBAL:
            _GLOBAL.append(ir.Graph("global"))
        graph = _GLOBAL[0]
    mapped = {}
    for key, value in (input_map or {}).items():
        if isinstance(value, EagerTensor):
            raise NotImplementedError(_EAGER)
        if not (isinstance(value, ir.SymbolicTensor) and value.graph is graph):
            value = convert_to_tensor(value)
        mapped[key if ":" in key else f"{key}:0"] = value
    # eagerly TF's name scope is no graph scope: the nodes keep their names, made unique
    eager = bool(_GLOBAL) and graph is _GLOBAL[0]
    prefix = "" if eager else _scope(graph, "import" if name is None else name)
    nodes = import_into(graph, graph_def, mapped, prefix)
    if return_elements is None:
        return None
    found = []
    for element in return_elements:
        node, sep, index = element.partition(":")
        if node not in nodes:
            what = "tensor" if sep else "node"
            raise ValueError(f"Requested return {what} '{element}' not found in graph def")
        outputs, op = nodes[node]
        if not sep:
            found.append(op if op is not None else outputs[0].op)
            continue
        if not index.isdigit() or int(index) >= len(outputs):
            raise ValueError(f"Invalid return output {index} of node '{node}', which has "
                             f"{len(outputs)} output(s)")
        found.append(mapped.get(element, outputs[int(index)]))
    return found


def _scope(graph, name):
    """TF's name scope for the import: ``name/``, made unique (``import_1/``); "" for none."""
    if not name:
        return ""
    taken = {op.name.split("/")[0] for op in graph.get_operations()}
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}_{k}", k + 1
    return candidate + "/"
